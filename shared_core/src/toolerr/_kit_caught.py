"""The adapter kit, hidden retries where the framework catches the tool's exception
itself: its invoker gives back a failed result (the Agents SDK's ``on_invoke_tool``,
strands' ``ToolResultEvent`` with its ``exception``), not the exception (its failure hook
may have classified the failure before the retries were counted:
:func:`~toolerr.adapters.remember_hidden_retries`). Exported from
:mod:`toolerr.adapters`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ._kit_retry import acall_with_retries

if TYPE_CHECKING:
    from ._layer import ToolErrorLayer

__all__ = ["acall_with_result_retries"]

T = TypeVar("T")


class _FailedResult(Exception):
    """An attempt whose result is a failure: the result and the tool's exception behind it."""

    def __init__(self, result: Any, error: BaseException) -> None:
        super().__init__("toolerr: a tool call's attempt failed")
        self.result, self.error = result, error


def _cause(error: BaseException) -> BaseException | None:
    """The tool's own exception behind a failed result; ``None`` (not re-run) for what the
    call raised itself (the framework's own errors, cancellation)."""
    return error.error if isinstance(error, _FailedResult) else None


async def acall_with_result_retries(
    layer: ToolErrorLayer,
    name: str,
    call: Callable[[], Awaitable[T]],
    error_of: Callable[[T], BaseException | None],
) -> T:
    """:func:`~toolerr.adapters.acall_with_retries` for a call whose failure comes back as
    its result: a result that ``error_of`` finds the tool's exception behind is re-run as
    ``auto_retry`` allows (classified from that exception), and the last attempt's result
    is given back, failed or not.

    Args:
        layer: The adapter's layer for this call (its policy decides).
        name: The tool's name.
        call: Runs the tool once (the framework's invoker); what it raises leaves unchanged.
        error_of: The tool's exception behind a result (``None``: it did not fail), or a
            :class:`~toolerr.adapters.ResultFailure` of the verdict of a failed result that
            has none (an MCP ``isError`` result).

    Returns:
        The first successful attempt's result, else the last attempt's; its exception
        keeps the hidden retries before it (:func:`~toolerr.adapters.hidden_retries_of`).
    """

    async def attempt() -> T:
        result = await call()
        error = error_of(result)
        if error is not None:
            raise _FailedResult(result, error)
        return result

    try:
        return await acall_with_retries(layer, name, attempt, unwrap=_cause)
    except _FailedResult as failed:
        return failed.result  # type: ignore[no-any-return]  # what call() gave
