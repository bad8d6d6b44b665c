"""Hidden retries (``auto_retry``) for the Agents SDK's function tools.

The SDK runs a function tool itself: ``FunctionTool.on_invoke_tool`` catches the tool's
exception and hands it to the failure hooks (the tool's failure function, then the run's
``tool_error_formatter``), whose text is the result. toolerr's hooks classify the failure
there. With ``auto_retry`` on, :func:`install` puts a :class:`Rerun` in a tool's
``on_invoke_tool`` (in place, once): it runs the SDK's own invoker as one attempt, and an
attempt whose failure toolerr's hook classified (:func:`attempt_of`) is re-run through the
kit's :func:`~toolerr.adapters.acall_with_result_retries` with the same context and input; the
model sees the last attempt's result only, and its remembered verdict counts the hidden
retries. Which policy decides is read from the run's own config at each call (the
``call_model_input_filter`` of a :class:`ToolErrorRecovery`), so one tool serves runs
with and without toolerr, and with different policies.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext
from toolerr import ToolErrorLayer
from toolerr.adapters import acall_with_result_retries, fail_open, hidden_retries_of

_Invoker = Callable[[ToolContext[Any], str], Awaitable[Any]]
_LayerOf = Callable[[Any], "ToolErrorLayer | None"]

_SDK_FAILURE_FLAG = "_function_tool_default_failure_handled"
"""Set on the tool context by the SDK when its default failure handler wrote the result
(read back once the invoker returns, to skip output validation for it): cleared before a
re-run, so a retry that succeeds is not taken for the SDK's error text."""


@dataclass
class Attempt:
    """One run of a tool call's invoker, and the failure toolerr's hook classified in it."""

    context: object
    """The context the invoker got (the failure hooks get the same object)."""
    error: BaseException | None = None
    count_hidden: Callable[[int], None] | None = None
    """Remembers the hook's verdict again with the hidden retries before this attempt."""


_INSTALLING = threading.Lock()
_ATTEMPT: ContextVar[Attempt | None] = ContextVar("toolerr_openai_agents_attempt", default=None)


def attempt_of(context: object) -> Attempt | None:
    """The attempt running for ``context`` (the context a failure hook got), ``None``
    outside a :class:`Rerun` or for another call's context (a nested run's tool)."""
    attempt = _ATTEMPT.get()
    return attempt if attempt is not None and attempt.context is context else None


class Rerun:
    """A ``FunctionTool.on_invoke_tool`` that re-runs the SDK's invoker as ``auto_retry``
    allows. Attributes it lacks are the invoker's (the SDK's markers); ``__wrapped__`` is
    the invoker, so the SDK reads its signature (which context it passes) as before."""

    def __init__(self, invoker: _Invoker, layer_of: _LayerOf) -> None:
        self.__wrapped__ = invoker
        self._layer_of = layer_of

    def __getattr__(self, name: str) -> Any:
        if name in ("__wrapped__", "_layer_of"):
            raise AttributeError(name)
        return getattr(self.__wrapped__, name)

    def __agents_bind_function_tool__(self, tool: FunctionTool) -> Rerun:
        """A copy of the tool (``copy.copy``) rebinds the SDK's invoker to itself."""
        bind = getattr(self.__wrapped__, "__agents_bind_function_tool__", None)
        bound = bind(tool) if callable(bind) else self.__wrapped__
        return self if bound is self.__wrapped__ else Rerun(bound, self._layer_of)

    async def __call__(self, ctx: ToolContext[Any], input: str) -> Any:
        invoker, layer = self.__wrapped__, None
        with fail_open("reading the run's auto_retry", "the call runs once"):
            layer = self._layer_of(ctx)
        if layer is None:
            return await invoker(ctx, input)
        runs = 0

        async def attempt() -> tuple[Any, Attempt]:
            nonlocal runs
            runs += 1
            if runs > 1 and getattr(ctx, _SDK_FAILURE_FLAG, False):
                setattr(ctx, _SDK_FAILURE_FLAG, False)
            current = Attempt(ctx)
            token = _ATTEMPT.set(current)
            try:
                return await invoker(ctx, input), current
            finally:
                _ATTEMPT.reset(token)

        name = getattr(ctx, "tool_name", None) or "unknown_tool"
        output, last = await acall_with_result_retries(layer, name, attempt, lambda done: done[1].error)
        if last.error is not None and last.count_hidden is not None:  # the last attempt's result
            with fail_open("counting the hidden retries", "the record counts none"):
                last.count_hidden(hidden_retries_of(last.error))
        return output


def install(tool: FunctionTool, layer_of: _LayerOf) -> None:
    """Put a :class:`Rerun` in ``tool.on_invoke_tool`` (once). Not in an agent run as a
    tool (``Agent.as_tool``): its run may have called tools, with their effects, before
    the failure its exception tells of, so it is never re-run hidden."""
    if isinstance(tool.on_invoke_tool, Rerun) or getattr(tool, "_is_agent_tool", False):
        return
    with _INSTALLING:  # runs in threads may reach the same tool at once
        if not isinstance(tool.on_invoke_tool, Rerun):
            tool.on_invoke_tool = Rerun(tool.on_invoke_tool, layer_of)
