"""How much of a failure the model is shown: the policy's ``error_detail``.

``full`` (the default) shows the error as the tool or the framework wrote it (today's
behaviour, byte for byte). ``safe`` shows the exception type and the safe structured
fields the core already reads (HTTP status, error code, errno, Retry-After), none of the
message's words. ``none`` shows no detail at all: the guidance alone says what to do.

The summary of a failure is one short text, used everywhere the model is shown the
failure in a call: as the error of the runtime note (``... and it failed with: {summary}``),
as the diagnosis of the abstract form, and as the failed result's own text,
``Error: {summary}`` (what an adapter writes for an exception, and what a rewrite shows
for a result the tool wrote). A text that already is such a result (``Error: PermissionError
(errno EACCES)``) is its own summary, so that a result toolerr wrote is shown as it is.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import re
from collections.abc import Sequence
from typing import Any, Literal, get_args

from ._exceptions import read_exception
from ._failopen import log_swallowed
from ._forms import ExchangeResult
from ._notes import strip_c1_suffix
from ._types import Message, Verdict, content_text

ErrorDetail = Literal["full", "safe", "none"]
"""What ``error_detail=`` accepts."""

ERROR_DETAILS: tuple[ErrorDetail, ...] = get_args(ErrorDetail)

WITHHELD = "details withheld"
"""The summary of a failure whose detail is withheld (``none``, or ``safe`` with nothing safe)."""

RESULT_PREFIX = "Error: "

_TYPE_SUFFIXES = r"(?:Error|Exception|Exit|Interrupt|Timeout|Warning|Failure|Fault|Cancelled|Canceled)"
_TEXT_TYPE = re.compile(
    rf"\A(?:Error: )?\s*(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w{{0,79}}{_TYPE_SUFFIXES})(?::|\s*\Z|\s\()"
)
_CODE = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}\Z")
_FIELD = (
    r"HTTP status \d{3}|status [A-Z][A-Z_]{1,40}|error code -?[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}"
    r"|errno [A-Z][A-Z0-9_]{1,30}|Retry-After \d{1,9} seconds?"
)
_SUMMARY = re.compile(
    rf"(?:{re.escape(WITHHELD)}|(?:[A-Za-z_]\w{{0,79}}|an error)(?: \((?:{_FIELD})(?:, (?:{_FIELD}))*\))?)"
)
_RESULT = re.compile(rf"{re.escape(RESULT_PREFIX)}({_SUMMARY.pattern})")


def check_error_detail(value: Any) -> ErrorDetail:
    """``value`` when it is one of :data:`ERROR_DETAILS`; raises :class:`ValueError` otherwise."""
    if value not in ERROR_DETAILS:
        raise ValueError(f"unknown error_detail {value!r}; expected full, safe or none")
    return value  # type: ignore[no-any-return]


def exception_type(exception: BaseException | None, text: str = "") -> str | None:
    """The failure's exception type: the class name of ``exception``, else the type a
    ``Type: message`` text starts with (``Error: PermissionError: ...`` -> ``PermissionError``)."""
    if exception is not None:
        name = type(exception).__name__
        return name if re.fullmatch(r"[A-Za-z_]\w{0,79}", name) else None
    m = _TEXT_TYPE.match(strip_c1_suffix(text).strip())
    return m.group(1) if m is not None else None


def _code(value: Any) -> str | None:
    return value if isinstance(value, str) and _CODE.match(value) else None


def safe_fields(verdict: Verdict | None, exception: BaseException | None = None) -> list[str]:
    """The safe structured fields of a failure, in a fixed order: HTTP status (or another
    protocol's status), error code, errno, Retry-After; read from the exception's
    attributes (as the core reads them) and the verdict. Never a word of the message."""
    status: int | None = None
    other: str | None = None
    code: str | None = None
    errno: str | None = None
    retry_after = verdict.retry_after if verdict is not None else None
    if exception is not None:
        try:
            facts = read_exception(exception)
        except Exception:  # noqa: BLE001 - a hostile exception object: the verdict alone
            log_swallowed("reading an exception's fields", logging.DEBUG)
        else:
            for link in facts.links:
                status = status if status is not None else link.status
                if other is None and link.grpc is not None:
                    other = _code(link.grpc)
                if code is None and link.jsonrpc is not None:
                    code = str(link.jsonrpc)
                for candidate in (*link.vendor, link.aws_code, link.sqlstate):
                    code = code or _code(candidate)
                errno = errno or _code(link.errno_name)
            if retry_after is None:
                retry_after = facts.retry_after
    if verdict is not None:
        if isinstance(verdict.status, int) and 100 <= verdict.status <= 599:
            status = status if status is not None else verdict.status
        elif isinstance(verdict.status, int) and code is None:
            code = str(verdict.status)
        elif isinstance(verdict.status, str) and other is None:
            other = _code(verdict.status)
        table, _, value = (verdict.rule or "").partition(":")
        if table == "errno" and errno is None:
            errno = _code(value)
        elif table in ("aws", "sqlstate", "jsonrpc") and code is None:
            code = _code(value)
        elif table == "grpc" and other is None:
            other = _code(value)
    fields: list[str] = []
    if status is not None:
        fields.append(f"HTTP status {status}")
    if other is not None and re.fullmatch(r"[A-Z][A-Z_]{1,40}", other):
        fields.append(f"status {other}")
    if code is not None:
        fields.append(f"error code {code}")
    if errno is not None and re.fullmatch(r"[A-Z][A-Z0-9_]{1,30}", errno):
        fields.append(f"errno {errno}")
    if retry_after is not None and retry_after > 0 and retry_after < 1e9:
        seconds = math.ceil(retry_after)
        fields.append(f"Retry-After {seconds} second{'' if seconds == 1 else 's'}")
    return fields


def shown_summary(text: str) -> str | None:
    """The summary a failed result's text already is (``Error: {summary}``, with any C1
    suffix), or ``None`` when it is not one."""
    m = _RESULT.fullmatch(strip_c1_suffix(text).strip())
    return m.group(1) if m is not None else None


def summary(
    detail: ErrorDetail, verdict: Verdict | None, exception: BaseException | None = None, text: str = ""
) -> str:
    """The failure as the model is shown it under ``safe`` or ``none`` (see the module).

    Args:
        detail: ``safe`` or ``none`` (``full`` is the text itself: not summarised).
        verdict: The failure's verdict (its status, rule and Retry-After are read).
        exception: The exception the tool raised, when known (its type and attributes).
        text: The failed result's text (a type it starts with; an existing summary).

    Returns:
        ``Type (field, field)``, ``Type``, ``an error (field)`` or ``details withheld``.
    """
    if detail == "none":
        return WITHHELD
    kept = shown_summary(text) if text else None
    if kept is not None:
        return kept
    name = exception_type(exception, text)
    fields = safe_fields(verdict, exception)
    if name is None and not fields:
        return WITHHELD
    head = name or "an error"
    return f"{head} ({', '.join(fields)})" if fields else head


def result_text(
    detail: ErrorDetail, verdict: Verdict | None, exception: BaseException | None = None, text: str = ""
) -> str:
    """The failed result's text under ``safe`` or ``none``: ``Error: {summary}``."""
    return RESULT_PREFIX + summary(detail, verdict, exception, text)


def note_error(
    detail: ErrorDetail, text: str, verdict: Verdict | None, exception: BaseException | None = None
) -> str:
    """What a note restates of the failure: ``text`` itself under ``full``; the summary
    under ``safe``; nothing under ``none`` (the runtime note then says ``details
    withheld``; the abstract form gives no diagnosis)."""
    if detail == "full":
        return text
    return summary(detail, verdict, exception, text)


def shown_results(
    messages: Sequence[Message], failed: Sequence[tuple[ExchangeResult, Verdict]], detail: ErrorDetail
) -> tuple[list[Message], list[tuple[ExchangeResult, Verdict]], set[int]]:
    """The conversation of one model call with each failed result of its decision step
    shown as :func:`result_text` says (``safe``, ``none``): the list, the failed results
    paired with their new message, and the indices of the results whose text changed. A
    result that already is such a text (toolerr wrote it from the exception) is kept as it
    is; content blocks become one text block. The input is never modified."""
    out = list(messages)
    pairs: list[tuple[ExchangeResult, Verdict]] = []
    changed: set[int] = set()
    for result, verdict in failed:
        message = result.message
        text = content_text(message.content)
        shown = result_text(detail, verdict, message.exception, text)
        if shown_summary(text) is not None and (detail != "none" or shown == strip_c1_suffix(text).strip()):
            pairs.append((result, verdict))
            continue
        content: Any = shown if not isinstance(message.content, list) else [{"type": "text", "text": shown}]
        new = dataclasses.replace(message, content=content)
        out[result.index] = new
        changed.add(result.index)
        pairs.append((dataclasses.replace(result, message=new), verdict))
    return out, pairs, changed
