"""Hidden retries (``Policy.auto_retry``, the behaviour contract: "Hidden retries"): an
adapter that runs the tool call itself re-runs a transient failure that was not executed
(a 429, a 503, a refused connection) up to ``auto_retry`` times, with exponential
backoff and jitter and honouring ``Retry-After`` up to ``max_wait``, before the model
sees anything. A failure of unknown outcome is re-run only for a tool declared
``read_only`` or ``idempotent``; fixable, unrecoverable and ambiguous failures never.
The number of hidden retries of a call whose last attempt failed is kept with its
exception: the verdict classified from it (``hidden_retries``), its detection record and
the run's ledger count them.

:func:`call_with_retries` and :func:`acall_with_retries` are the one sync and one async
helper adapters call where they run the tool; ``auto_retry=0`` (the default) runs the call
once, exactly as without them. :class:`tool_raised` catches what the call raised at last,
for the adapter's error result.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from ._failopen import log_swallowed
from ._loop import ToolLoopError

if TYPE_CHECKING:
    from ._layer import ToolErrorLayer
    from ._types import Verdict

__all__ = [
    "BACKOFF_BASE",
    "ResultFailure",
    "acall_with_retries",
    "call_with_retries",
    "hidden_retries_of",
    "retry_wait",
    "tool_raised",
]

T = TypeVar("T")

logger = logging.getLogger("toolerr")

BACKOFF_BASE = 0.25
"""Seconds before the first hidden retry without a ``Retry-After``; doubled for each
next one, with full jitter over its upper half, and never over ``max_wait``."""

_sleep: Callable[[float], Any] = time.sleep
"""The default wait of :func:`call_with_retries` (a test may replace it: no real sleeping)."""
_asleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
"""The default wait of :func:`acall_with_retries`."""

# id(exception) -> (a weak reference to it, hidden retries): by identity, not equality (an
# exception class may compare equal by its message: two runs' errors are two entries)
_HIDDEN: dict[int, tuple[weakref.ref[BaseException], int]] = {}
_HIDDEN_LOCK = threading.Lock()
# where an exception that cannot be referred to weakly keeps them
_HIDDEN_ATTRIBUTE = "_toolerr_hidden_retries"


class ResultFailure(Exception):
    """A failed result told by its verdict, with no exception behind it (an MCP
    ``CallToolResult`` with ``isError``: the server's text): what ``error_of`` gives
    :func:`~toolerr.adapters.acall_with_result_retries` for it. The verdict the adapter
    classified the result to decides the hidden retry as it stands (the result is classified
    once); the hidden retries before it are kept with this object
    (:func:`hidden_retries_of`), for the adapter to count them in that verdict."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(f"toolerr: a failed tool result ({verdict.rule})")
        self.verdict = verdict


def hidden_retries_of(error: BaseException) -> int:
    """The hidden retries that came before the attempt that raised ``error`` (0: none).

    Args:
        error: What the last attempt of a call raised.

    Returns:
        The number :func:`call_with_retries` or :func:`acall_with_retries` kept for it.
    """
    with _HIDDEN_LOCK:
        kept = _HIDDEN.get(id(error))
    if kept is not None and kept[0]() is error:
        return kept[1]
    count = getattr(error, _HIDDEN_ATTRIBUTE, 0)  # a built-in exception's (no weak references)
    return count if isinstance(count, int) and not isinstance(count, bool) else 0


def _forget(key: int) -> Callable[[weakref.ref[BaseException]], None]:
    def forget(ref: weakref.ref[BaseException]) -> None:
        with _HIDDEN_LOCK:
            if _HIDDEN.get(key, (None, 0))[0] is ref:
                del _HIDDEN[key]

    return forget


def _keep_hidden(error: BaseException, count: int) -> None:
    key = id(error)
    try:
        ref = weakref.ref(error, _forget(key))
    except TypeError:  # built-in exceptions (TimeoutError, ValueError ...): on the object itself
        try:
            setattr(error, _HIDDEN_ATTRIBUTE, count)
        except (AttributeError, TypeError):
            log_swallowed("keeping the hidden retries of an exception", logging.DEBUG)
        return
    with _HIDDEN_LOCK:
        _HIDDEN[key] = (ref, count)


def retry_wait(layer: ToolErrorLayer, name: str, error: BaseException, retry: int) -> float | None:
    """The seconds to wait before hidden retry number ``retry`` (1-based) of a call to
    ``name`` that raised ``error``, or ``None`` when it must not be retried hidden.

    Args:
        layer: The layer (its policy's ``auto_retry``, ``max_wait``, ``tool_safety``).
        name: The tool's name.
        error: What the last attempt raised.
        retry: The number of the retry this would be.

    Returns:
        ``Retry-After`` when the error gives one (``None`` when it is over ``max_wait``),
        else ``BACKOFF_BASE * 2 ** (retry - 1)`` with jitter, capped at ``max_wait``.
    """
    policy = layer.policy
    if retry > policy.auto_retry or not isinstance(error, Exception):
        return None
    given = error.verdict if isinstance(error, ResultFailure) else None  # classified once, by the adapter
    verdict = given if given is not None else layer.inspect_exception(error, tool=name)
    if not verdict.failed or verdict.kind != "transient" or not policy.retry_safe(name, verdict):
        return None
    if verdict.retry_after is not None:
        return verdict.retry_after if 0 <= verdict.retry_after <= policy.max_wait else None
    ceiling: float = min(BACKOFF_BASE * float(2 ** (retry - 1)), policy.max_wait)
    return ceiling / 2 + random.uniform(0, ceiling / 2)  # jitter, not a secret


def _next_wait(layer: ToolErrorLayer, name: str, error: BaseException, retry: int) -> float | None:
    """:func:`retry_wait`, failing open to no retry (logged)."""
    try:
        return retry_wait(layer, name, error, retry)
    except Exception:  # noqa: BLE001 - toolerr's own error: the failure goes to the model
        log_swallowed(f"deciding a hidden retry of {name!r}", then="the failure goes to the model")
        return None


def _delay(
    layer: ToolErrorLayer,
    name: str,
    error: BaseException,
    retry: int,
    never: tuple[type[BaseException], ...],
    unwrap: Callable[[BaseException], BaseException | None] | None,
) -> float | None:
    if isinstance(error, never):
        return None
    cause = unwrap(error) if unwrap is not None else error
    return None if cause is None else _next_wait(layer, name, cause, retry)


def _done(
    name: str,
    retries: int,
    error: BaseException | None,
    unwrap: Callable[[BaseException], BaseException | None] | None = None,
) -> None:
    if retries == 0:
        return
    if error is not None:
        _keep_hidden(error, retries)
        # and with the tool's own exception behind a framework's wrapper: classifying it
        # (``inspect_exception``) attaches them to its verdict
        cause = unwrap(error) if unwrap is not None else None
        if cause is not None and cause is not error:
            _keep_hidden(cause, retries)
        logger.info("toolerr: %s still failed after %d hidden retries", name, retries)
    else:
        logger.info("toolerr: %s succeeded after %d hidden retries", name, retries)


def call_with_retries(
    layer: ToolErrorLayer,
    name: str,
    call: Callable[[], T],
    *,
    sleep: Callable[[float], Any] | None = None,
    never: tuple[type[BaseException], ...] = (),
    unwrap: Callable[[BaseException], BaseException | None] | None = None,
) -> T:
    """Run ``call()`` (the tool call), re-running it hidden as ``auto_retry`` allows.

    Args:
        layer: The adapter's layer for this call (its policy decides).
        name: The tool's name.
        call: Runs the tool once; raises what the tool raised.
        sleep: Waits the given seconds (default ``time.sleep``; tests inject their own).
        never: Exception types never retried (a framework's own signals: its retry request,
            an interrupt).
        unwrap: The tool's own exception behind what the call raised, for a framework that
            wraps it (``None``: not retried); default: what the call raised.

    Returns:
        What the first successful attempt returned.

    Raises:
        What the last attempt raised (its hidden retries are kept with it, and with what
        ``unwrap`` finds behind it: :func:`hidden_retries_of`).
    """
    if layer.policy.auto_retry == 0:
        return call()
    wait = sleep if sleep is not None else _sleep
    retries = 0
    while True:
        try:
            result = call()
        except BaseException as error:
            delay = _delay(layer, name, error, retries + 1, never, unwrap)
            if delay is None:
                _done(name, retries, error, unwrap)
                raise
            retries += 1
            wait(delay)
            continue
        _done(name, retries, None)
        return result


async def acall_with_retries(
    layer: ToolErrorLayer,
    name: str,
    call: Callable[[], Awaitable[T]],
    *,
    sleep: Callable[[float], Awaitable[Any]] | None = None,
    never: tuple[type[BaseException], ...] = (),
    unwrap: Callable[[BaseException], BaseException | None] | None = None,
) -> T:
    """The async twin of :func:`call_with_retries` (``call()`` returns an awaitable;
    ``sleep`` default ``asyncio.sleep``)."""
    if layer.policy.auto_retry == 0:
        return await call()
    wait = sleep if sleep is not None else _asleep
    retries = 0
    while True:
        try:
            result = await call()
        except BaseException as error:
            delay = _delay(layer, name, error, retries + 1, never, unwrap)
            if delay is None:
                _done(name, retries, error, unwrap)
                raise
            retries += 1
            await wait(delay)
            continue
        _done(name, retries, None)
        return result


class tool_raised:
    """Catch the exception a tool raised, to answer it with an error result: an adapter's
    one catch-all where it runs the tool (the feature, not a fail-open), for its sync and
    its async hook alike::

        with tool_raised(passes=(Interrupt,)) as raised:
            return run_the_tool()
        return error_result(raised.error)  # reached only when the tool raised

    :class:`~toolerr.ToolLoopError`, exceptions that are not ``Exception`` (cancellation,
    exit), the ``passes`` types and those ``passes_if`` accepts (a framework's control
    flow) leave unchanged.
    """

    __slots__ = ("error", "passes", "passes_if")

    def __init__(
        self,
        passes: tuple[type[BaseException], ...] = (),
        passes_if: Callable[[BaseException], bool] | None = None,
    ) -> None:
        self.passes = passes
        self.passes_if = passes_if
        self.error: Exception | None = None
        """The exception caught (``None``: the block ran to its end or returned)."""

    def __enter__(self) -> tool_raised:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> bool:
        if not isinstance(error, Exception) or isinstance(error, (ToolLoopError, *self.passes)):
            return False
        if self.passes_if is not None and self.passes_if(error):
            return False
        self.error = error
        return True
