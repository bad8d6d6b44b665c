"""ToolErrorRecovery: toolerr for the OpenAI Agents SDK, in four SDK hooks.

* ``tool_error_formatter`` (``RunConfig``), ``failure_error_function`` (per tool): a tool
  raised; its result keeps the diagnosis (not the SDK's "An error occurred while running
  the tool. Please try again.") and the verdict classified from the exception object.
* ``call_model_input_filter`` (``RunConfig``): the form, applied to each model call's input
  (the run's history is not changed).
* ``tool_input_guardrail`` (per function tool): loop actions ``block`` and ``stop``.
* ``on_invoke_tool`` (per function tool, with ``auto_retry`` only): hidden retries
  (:class:`Rerun`).
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from agents import Agent, AgentsException, FunctionTool, RunConfig, get_current_trace
from agents.run_config import CallModelData, ModelInputData, ToolErrorFormatterArgs
from agents.run_context import RunContextWrapper
from agents.tool import ToolErrorFunction, default_tool_error_function
from agents.tool_context import ToolContext
from agents.tool_guardrails import ToolGuardrailFunctionOutput, ToolInputGuardrail, ToolInputGuardrailData
from toolerr import DetectionRecord, Policy, ToolErrorLayer, ToolLoopError, Verdict
from toolerr.adapters import (
    RunTrail,
    acall_with_result_retries,
    fail_open,
    failure_of,
    guard_call,
    parse_arguments,
    plain_failure_of,
    remember_hidden_retries,
)

from ._convert import CLIENT, to_conversation

if TYPE_CHECKING:
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

__all__ = ["ToolErrorRecovery"]

_Target = TypeVar("_Target", Agent[Any], FunctionTool)
_Invoker = Callable[[ToolContext[Any], str], Awaitable[Any]]
_OWNER = "__toolerr_recovery__"
_CLASSIFYING = "classifying a tool exception"
logger = logging.getLogger("toolerr")

SDK_ERROR_DETAIL: Literal["none"] = "none"
"""The adapter's ``error_detail`` when neither a ``policy`` nor ``error_detail`` is given:
the SDK's own default failure text shows the model nothing of the exception."""


# The latest exception classified in this task and its verdict: a user's formatter's words
# for the same exception take it (one classification).
_CLASSIFIED: ContextVar[tuple[BaseException, Verdict] | None] = ContextVar(
    "toolerr_oai_classified", default=None
)


class _RunStopped(ToolLoopError, AgentsException):
    """A ``ToolLoopError`` that the SDK lets end the run as it is (it wraps any other
    exception from a tool in ``UserError``)."""

    def __init__(self, error: ToolLoopError) -> None:
        ToolLoopError.__init__(self, error.decision, calls=error.calls, fingerprints=error.fingerprints)
        self.run_data = None


class ToolErrorRecovery:
    """Re-delivers failed tool calls to the model for the OpenAI Agents SDK::

        result = await Runner.run(agent, "...", run_config=ToolErrorRecovery().run_config())

    Args:
        policy: a ready :class:`toolerr.Policy` (``options`` override its fields).
        on_record: receives every :class:`toolerr.DetectionRecord`.
        **options: toolerr's policy options (``form`` ``c3`` by default,
            ``retry_budget``, ``loop_action``, ``tool_safety``, ``max_error_chars``,
            ``error_detail``, ``auto_retry``, ``max_wait``).

    What the model is shown of a tool's exception follows the SDK's own default, which
    hides the exception from the model (its ``default_tool_error_function``): without
    ``policy`` and ``error_detail``, ``error_detail`` is ``"none"`` here (the result reads
    ``Error: details withheld`` and the note gives the guidance alone). Ask for more with
    ``error_detail="safe"`` (the exception type and the HTTP status, error code, errno,
    Retry-After) or ``error_detail="full"`` (``Type: message``, as before); a ``policy`` you
    pass keeps its own ``error_detail``.

    With ``auto_retry`` on, the input filter (and :meth:`wrap`) puts a wrapper in each
    function tool's ``on_invoke_tool`` (in place, once) that re-runs a failure the failure
    hooks classified as one to re-run hidden.

    One object serves any number of agents and concurrent runs: the verdicts of failures
    it produced are remembered in the run's own scope (by call id and result text), the
    rest is derived from each model call's own input, so no run sees another's failures,
    whatever the call ids.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        on_record: Callable[[DetectionRecord], None] | None = None,
        **options: Unpack[PolicyOptions],
    ) -> None:
        if policy is None and options.get("error_detail") is None:
            options["error_detail"] = SDK_ERROR_DETAIL
            logger.debug(
                "toolerr: error_detail=%r, as the Agents SDK hides exception text from the model; "
                "pass error_detail='safe' or 'full' to show more",
                SDK_ERROR_DETAIL,
            )
        self.layer = ToolErrorLayer(policy, on_record=on_record, client=CLIENT, **options)
        self.tool_input_guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(
            guardrail_function=self._guard, name="toolerr_repeat_guard"
        )
        """Add it to a ``FunctionTool``'s ``tool_input_guardrails`` (or use :meth:`wrap`)."""
        # Each run's latest snapshot, by context (task, thread) and by the SDK trace.
        self._trail = RunTrail()

    @property
    def policy(self) -> Policy:
        return self.layer.policy

    # -- failures the SDK catches ------------------------------------------------------

    def failure_error_function(self, ctx: RunContextWrapper[Any], error: Exception) -> str:
        """A ``ToolErrorFunction`` for ``function_tool(failure_error_function=...)`` and
        ``Agent(mcp_config={"failure_error_function": ...})``.

        Returns:
            The tool result: ``Type: message`` (capped), in every form (the input filter
            applies the form, C1 too, to the model call's view only); the SDK's default
            text where toolerr fails (logged).
        """
        text = self._failure_text(error, ctx)
        return default_tool_error_function(ctx, error) if text is None else text

    def tool_error_formatter(self, args: ToolErrorFormatterArgs[Any]) -> str | None:
        """A ``RunConfig.tool_error_formatter``: the same result as
        :meth:`failure_error_function` for function tools that keep the SDK's default
        failure handler; ``None`` (the SDK's text) for every other kind."""
        error = getattr(args, "error", None)
        if args.kind != "tool_exception" or not isinstance(error, BaseException):
            return None
        return self._failure_text(error, args.run_context, tool=args.tool_name, call_id=args.call_id)

    def _failure_text(
        self,
        error: BaseException,
        context: object,
        *,
        tool: str | None = None,
        call_id: str | None = None,
        shown: str | None = None,
    ) -> str | None:
        """The tool result for an exception (``None`` where toolerr fails), or ``shown``
        (the user's formatter's text) classified as it; its verdict is remembered in the
        run's scope for the call id and the result, and the attempt running for the hook's
        ``context`` (``auto_retry``) is told it failed."""
        arguments = parameters = None
        if isinstance(context, ToolContext):
            tool, call_id = tool or context.tool_name, call_id or context.tool_call_id
            arguments = context.tool_arguments  # the model's JSON text
            parameters = declared_parameters(context)
        snapshot = self._trail.current()
        run = snapshot.run if snapshot is not None else None
        then = "the SDK's default text is used" if shown is None else "its text is classified alone"
        with fail_open(_CLASSIFYING, then):
            if shown is None:
                failure = plain_failure_of(
                    self.layer, error, tool=tool, arguments=arguments, parameters=parameters
                )
                text, verdict = failure.text, failure.verdict
                _CLASSIFIED.set((error, verdict))  # for the user's formatter's words, next
            else:
                known = _CLASSIFIED.get()
                if known is not None and known[0] is error:
                    text, verdict = shown, known[1]
                else:
                    text, verdict = (
                        shown,
                        failure_of(
                            self.layer, error, tool=tool, arguments=arguments, parameters=parameters
                        ).verdict,
                    )
            self.layer.remember(call_id, verdict, text, run=run)
            attempt = attempt_of(context)
            if attempt is not None:
                attempt.error = error
                attempt.count_hidden = partial(remember_hidden_retries, self.layer, call_id, text, run=run)
            return text
        return None

    # -- the model input ---------------------------------------------------------------

    def call_model_input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """A ``RunConfig.call_model_input_filter``: the form applied to this model call.

        Returns:
            ``data.model_data`` itself when nothing changes or toolerr fails (logged).

        Raises:
            toolerr.ToolLoopError: only for loop action ``stop``.
        """
        model_data = data.model_data
        try:
            with fail_open("rewriting the model input"):
                items = self._rewritten(data)
                if items is not None:
                    return ModelInputData(input=items, instructions=model_data.instructions)
        except ToolLoopError as error:
            raise error if isinstance(error, AgentsException) else _RunStopped(error) from None
        return model_data

    def _rewritten(self, data: CallModelData[Any]) -> list[Any] | None:
        """The rewritten input items (``None``: unchanged); the run is followed in this
        context and in the SDK trace (:class:`toolerr.adapters.RunTrail`)."""
        items: Any = data.model_data.input
        if not isinstance(items, list):
            return None
        trace = get_current_trace()
        conversation = to_conversation(items, self._trail.conversions(trace))
        snapshot = self._trail.advance(self.layer, conversation.messages, trace)
        if self.policy.checks_calls or self.policy.auto_retry:
            self._attach(getattr(data, "agent", None), guard=self.policy.checks_calls)
        result = self.layer.rewrite(snapshot.messages, run=snapshot.run)
        return conversation.to_items(result.messages) if result.changed else None

    # -- loops -------------------------------------------------------------------------

    def _guard(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        context, snapshot = data.context, self._trail.current()
        if snapshot is None or not self._owns(context.run_config):
            return ToolGuardrailFunctionOutput.allow()
        raw = context.tool_arguments
        try:
            blocked = guard_call(
                self.layer,
                context.tool_name,
                parse_arguments(raw),
                context.tool_call_id,
                raw=raw,
                ledger=snapshot.ledger,  # built on first use
                run=snapshot.run,
            )
        except ToolLoopError as error:
            raise error if isinstance(error, AgentsException) else _RunStopped(error) from None
        if blocked is None:
            return ToolGuardrailFunctionOutput.allow()
        return ToolGuardrailFunctionOutput.reject_content(
            blocked.text, output_info={"toolerr": blocked.decision.reason}
        )

    def _owns(self, run_config: RunConfig | None) -> bool:
        """Whether this run's model input goes through this object's filter (so the
        snapshot in this context is the run's own, not a stale one from another run)."""
        used = getattr(run_config, "call_model_input_filter", None)
        return used is not None and (
            used == self.call_model_input_filter or getattr(used, _OWNER, None) is self
        )

    @staticmethod
    def _retry_layer(context: Any) -> ToolErrorLayer | None:
        """The layer whose ``auto_retry`` decides for a tool call with this context: that of
        the ToolErrorRecovery whose input filter serves the run (``None``: the call runs
        once, as without toolerr)."""
        run_config = getattr(context, "run_config", None)
        used = getattr(run_config, "call_model_input_filter", None)
        owner = getattr(used, _OWNER, None) or getattr(used, "__self__", None)
        if isinstance(owner, ToolErrorRecovery) and owner._owns(run_config) and owner.policy.auto_retry:
            return owner.layer
        return None

    def _attach(self, agent: Any, *tools: FunctionTool, guard: bool = True) -> None:
        """The repeat guard (with ``guard``) on ``tools`` and the agent's function tools and
        MCP servers, the hidden retries (``auto_retry``) on the function tools
        (idempotent)."""
        tools += tuple(t for t in getattr(agent, "tools", None) or () if isinstance(t, FunctionTool))
        if self.policy.auto_retry:
            for tool in tools:
                install(tool)
        if not guard:
            return
        for owner in (*tools, *(getattr(agent, "mcp_servers", None) or ())):
            guardrails = getattr(owner, "tool_input_guardrails", None)
            if not (guardrails is None or isinstance(guardrails, list) or isinstance(owner, FunctionTool)):
                continue  # an MCP server's guardrails of a kind of its own
            if not any(g is self.tool_input_guardrail for g in guardrails or ()):
                owner.tool_input_guardrails = [*(guardrails or ()), self.tool_input_guardrail]

    # -- wiring ------------------------------------------------------------------------

    def run_config(self, **kwargs: Any) -> RunConfig:
        """An ``agents.RunConfig`` with toolerr wired in.

        Args:
            **kwargs: ``RunConfig``'s own. A ``call_model_input_filter`` you pass runs
                first and toolerr sees its result; a ``tool_error_formatter`` you pass
                wins where it returns text (toolerr still classifies the exception) and
                toolerr's text is used where it returns ``None``.

        Returns:
            The ``RunConfig`` to pass to ``Runner.run`` (``run_sync``, ``run_streamed``).
        """
        user_filter = kwargs.pop("call_model_input_filter", None)
        user_formatter = kwargs.pop("tool_error_formatter", None)

        async def call_model_input_filter(data: CallModelData[Any]) -> ModelInputData:
            updated = user_filter(data)
            if inspect.isawaitable(updated):
                updated = await updated
            if not isinstance(updated, ModelInputData):
                return cast(ModelInputData, updated)  # the SDK reports the user's mistake
            return self.call_model_input_filter(
                CallModelData(model_data=updated, agent=data.agent, context=data.context)
            )

        async def tool_error_formatter(args: ToolErrorFormatterArgs[Any]) -> str | None:
            ours = self.tool_error_formatter(args)
            theirs = user_formatter(args)
            if inspect.isawaitable(theirs):
                theirs = await theirs
            if theirs is None:
                return ours
            if ours is not None and isinstance(theirs, str):  # their words, our classification
                error, context = cast(Exception, args.error), args.run_context
                self._failure_text(error, context, tool=args.tool_name, call_id=args.call_id, shown=theirs)
            return cast(str, theirs)

        setattr(call_model_input_filter, _OWNER, self)
        own = self.call_model_input_filter, self.tool_error_formatter
        kwargs["call_model_input_filter"] = own[0] if user_filter is None else call_model_input_filter
        kwargs["tool_error_formatter"] = own[1] if user_formatter is None else tool_error_formatter
        return RunConfig(**kwargs)

    def wrap(self, *targets: _Target) -> _Target:
        """Wire toolerr into agents and function tools you own, in place.

        A ``FunctionTool`` gets :attr:`tool_input_guardrail` and, when it has none,
        :meth:`failure_error_function` as its ``timeout_error_function`` (the timeout is
        then classified from the ``ToolTimeoutError`` object). An ``Agent``: each of its
        function tools, ``mcp_config["failure_error_function"]`` unless you set one (the
        SDK runs MCP tools with its fixed text otherwise), and the agents it hands off to.

        Args:
            *targets: ``Agent`` and ``FunctionTool`` objects (at least one).

        Returns:
            The first target.
        """
        if not targets:
            raise TypeError("wrap() needs at least one Agent or FunctionTool")
        queue: list[Any] = list(targets)
        seen: set[int] = set()
        for target in queue:  # grows with the agents' tools and handoffs
            if id(target) in seen:
                continue
            seen.add(id(target))
            if isinstance(target, FunctionTool):
                if target.timeout_error_function is None:
                    target.timeout_error_function = self.failure_error_function
                self._attach(None, target)
            elif isinstance(target, Agent):
                queue += [t for t in target.tools if isinstance(t, FunctionTool)]
                queue += [h for h in target.handoffs if isinstance(h, Agent)]
                self._attach(target)
                config, default = dict(target.mcp_config or {}), default_tool_error_function
                if config.get("failure_error_function", default) is default:
                    config["failure_error_function"] = cast(ToolErrorFunction, self.failure_error_function)
                    target.mcp_config = cast(Any, config)
            else:
                raise TypeError(f"wrap() takes an Agent or a FunctionTool, got {type(target).__name__}")
        return targets[0]


def declared_parameters(context: ToolContext[Any]) -> dict[str, Any] | None:
    """The declared JSON schema of the parameters of the tool a failure hook's context is
    for: the ``params_json_schema`` of the agent's ``FunctionTool`` of that name (the
    tool's own dict, the same object at every call, so the core's reading of it is cached
    per tool). ``None`` where there is none to read: no agent on the context, a tool not
    among the agent's (MCP tools are listed per turn and are not), two of that name that
    the namespace does not tell apart; never raises."""
    with fail_open("reading the tool's declared parameters", "the failure is classified without them"):
        name = context.tool_name
        tools = getattr(getattr(context, "agent", None), "tools", None) or ()
        found = [t for t in tools if isinstance(t, FunctionTool) and t.name == name]
        if len(found) > 1:
            namespace = getattr(context, "tool_namespace", None)
            found = [t for t in found if getattr(t, "_tool_namespace", None) == namespace]
        schema = found[0].params_json_schema if len(found) == 1 else None
        return schema if isinstance(schema, dict) else None
    return None


# -- hidden retries (``auto_retry``) ------------------------------------------------------

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
    count_hidden: Callable[[BaseException], None] | None = None
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
    allows. The SDK runs a function tool itself: the invoker catches the tool's exception
    and hands it to the failure hooks (the tool's failure function, then the run's
    ``tool_error_formatter``), whose text is the result and which classify the failure
    (:func:`attempt_of`). An attempt whose failure they classified is re-run with the same
    context and input (:func:`toolerr.adapters.acall_with_result_retries`); the model sees
    the last attempt's result only, and its remembered verdict counts the hidden retries.
    The run's own config decides at each call (:meth:`ToolErrorRecovery._retry_layer`), so
    one tool serves runs with and without toolerr, and with different policies. Attributes
    it lacks are the invoker's (the SDK's markers); ``__wrapped__`` is the invoker, so the
    SDK reads its signature (which context it passes) as before."""

    def __init__(self, invoker: _Invoker) -> None:
        self.__wrapped__ = invoker

    def __getattr__(self, name: str) -> Any:
        if name == "__wrapped__":
            raise AttributeError(name)
        return getattr(self.__wrapped__, name)

    def __agents_bind_function_tool__(self, tool: FunctionTool) -> Rerun:
        """A copy of the tool (``copy.copy``) rebinds the SDK's invoker to itself."""
        bind = getattr(self.__wrapped__, "__agents_bind_function_tool__", None)
        bound = bind(tool) if callable(bind) else self.__wrapped__
        return self if bound is self.__wrapped__ else Rerun(bound)

    async def __call__(self, ctx: ToolContext[Any], input: str) -> Any:
        invoker, layer = self.__wrapped__, None
        with fail_open("reading the run's auto_retry", "the call runs once"):
            layer = ToolErrorRecovery._retry_layer(ctx)
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
            last.count_hidden(last.error)
        return output


def install(tool: FunctionTool) -> None:
    """Put a :class:`Rerun` in ``tool.on_invoke_tool`` (once). Not in an agent run as a
    tool (``Agent.as_tool``): its run may have called tools, with their effects, before
    the failure its exception tells of, so it is never re-run hidden."""
    if isinstance(tool.on_invoke_tool, Rerun) or getattr(tool, "_is_agent_tool", False):
        return
    with _INSTALLING:  # runs in threads may reach the same tool at once
        if not isinstance(tool.on_invoke_tool, Rerun):
            tool.on_invoke_tool = Rerun(tool.on_invoke_tool)
