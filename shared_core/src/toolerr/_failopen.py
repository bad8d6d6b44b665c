"""Fail open, never silently (the contract's "Visibility and safety").

Where toolerr swallows an exception so that the user's agent goes on (detection that cannot
read a content, classification that breaks, a hostile object whose ``__str__`` raises), it
calls :func:`log_swallowed` from the ``except`` block: a WARNING on logger ``toolerr`` with
the traceback (DEBUG for a foreign object's own error), once per distinct cause (exception
type, where, and the line that raised), so that a cause repeated on every model call does not flood the log.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

from ._secrets import mask_secrets

logger = logging.getLogger("toolerr")


class _MaskSecrets(logging.Filter):
    """Credentials masked in every record logged on logger ``toolerr``: its message and the
    traceback of its exception (a tool's error text may hold a password, a key, a token)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
            masked = mask_secrets(message)
            if masked is not message:
                record.msg, record.args = masked, None
            if record.exc_info and not record.exc_text:
                record.exc_text = mask_secrets(logging.Formatter().formatException(record.exc_info))
        except Exception:  # noqa: BLE001 - a record that cannot be read is logged as it is
            pass
        return True


logger.addFilter(_MaskSecrets())

_MAX_CAUSES = 4096
_seen: set[tuple[str, str, str, int]] = set()
_lock = threading.Lock()


def log_swallowed(
    where: str,
    level: int = logging.WARNING,
    *,
    then: str = "ignored, the input passes unchanged",
    exc: BaseException | None = None,
) -> None:
    """Log the exception being handled (call it inside ``except``), once per cause.

    WARNING (the default) for toolerr's own catch-alls: an internal error that fail-open
    hid. ``logging.DEBUG`` for a foreign object that raised where toolerr reads it
    defensively (a property of an exception, a ``__repr__``): expected, not toolerr's
    error (httpx's ``request`` property raises on every exception built without one), but
    never silent. Never raises."""
    try:
        exc = sys.exc_info()[1]
        if exc is None:
            return
        tb = exc.__traceback__
        filename, line = "", 0
        while tb is not None:
            filename, line = tb.tb_frame.f_code.co_filename, tb.tb_lineno
            tb = tb.tb_next
        name = type.__getattribute__(type(exc), "__qualname__")
        key = (str(name), where, filename, line)
        with _lock:
            if key in _seen:
                return
            if len(_seen) >= _MAX_CAUSES:
                _seen.clear()
            _seen.add(key)
        logger.log(
            level,
            "toolerr: %s failed (%s); %s (logged once per cause)",
            where,
            name,
            then,
            exc_info=(type(exc), exc, exc.__traceback__),
        )
    except Exception:  # noqa: BLE001 - logging itself failed (a hostile exception): nothing left to do
        pass


def forget_causes() -> None:
    """Forget the causes already logged (tests use it to see each log record again)."""
    with _lock:
        _seen.clear()


def safe_getattr(obj: Any, name: str) -> Any:
    """``getattr(obj, name, None)`` that never raises."""
    try:
        return getattr(obj, name, None)
    except Exception:  # noqa: BLE001 - a property that raises must not break detection
        log_swallowed(f"reading attribute {name!r} of a {type(obj).__name__}", logging.DEBUG)
        return None
