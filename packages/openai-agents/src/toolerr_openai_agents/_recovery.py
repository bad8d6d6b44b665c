"""ToolErrorRecovery: toolerr for the OpenAI Agents SDK.

Four SDK hooks, one object:

* ``tool_error_formatter`` (``RunConfig``) and ``failure_error_function`` (per tool):
  a function tool raised; classify the exception object, remember the verdict by call id
  and return a result that keeps the diagnosis instead of the SDK's
  "An error occurred while running the tool. Please try again.".
* ``call_model_input_filter`` (``RunConfig``): before each model call, apply the form to
  the model input of that call only (the run's history is not changed).
* ``tool_input_guardrail`` (per function tool): with loop action ``block`` or ``stop``,
  an identical repeat of a failed non-transient call is not executed.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from agents import Agent, AgentsException, FunctionTool, RunConfig, get_current_trace
from agents.run_config import CallModelData, ModelInputData, ToolErrorFormatterArgs
from agents.run_context import RunContextWrapper
from agents.tool import ToolErrorFunction, default_tool_error_function
from agents.tool_context import ToolContext
from agents.tool_guardrails import ToolGuardrailFunctionOutput, ToolInputGuardrail, ToolInputGuardrailData
from toolerr import DetectionRecord, FailureLedger, Message, Policy, ToolCall, ToolErrorLayer, ToolLoopError
from toolerr.adapters import ConversationRun, ConversionCache, clean_text, exception_text

from ._convert import CLIENT, to_conversation

if TYPE_CHECKING:
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

__all__ = ["ToolErrorRecovery"]

logger = logging.getLogger("toolerr")

_Target = TypeVar("_Target", Agent[Any], FunctionTool)
_OWNER = "__toolerr_recovery__"


class _RunStopped(ToolLoopError, AgentsException):
    """``toolerr.ToolLoopError`` that is also an ``agents.AgentsException``, so the SDK
    lets it end the run as it is (it wraps any other exception from a tool in ``UserError``)."""

    def __init__(self, error: ToolLoopError) -> None:
        ToolLoopError.__init__(self, error.decision)
        self.run_data = None


class _Snapshot:
    """The neutral conversation of one run's latest model call (what the guardrail checks a
    new call against) and its run scope; the failed-call ledger is built on first use.

    ``conversions`` is the run's own conversion cache, handed from one model call of the
    run to the next: it lives in the run's context, so it goes with the run (one cache
    for all runs would keep the tool outputs of every finished run alive)."""

    __slots__ = ("_ledger", "_lock", "conversions", "messages", "run", "trace")

    def __init__(
        self, messages: Sequence[Message], previous: _Snapshot | None, conversions: ConversionCache
    ) -> None:
        self.messages = messages
        self.run: ConversationRun = ConversationRun.follow(getattr(previous, "run", None), messages)
        # ``conversions`` converted ``messages``; a new run (its input does not continue the
        # previous one) starts a cache of its own.
        self.conversions = conversions if previous is None or self.run is previous.run else ConversionCache()
        self.trace: weakref.ref[Any] | None = None
        """The SDK trace of the run, where it has one that can be followed."""
        self._ledger: FailureLedger | None = None
        self._lock = threading.Lock()

    def ledger(self, layer: ToolErrorLayer) -> FailureLedger:
        with self._lock:
            if self._ledger is None:
                self._ledger = layer.replay(self.messages, run=self.run)[0]
            return self._ledger


_TRACE_SNAPSHOTS = 8
"""Snapshots kept per trace: one per conversation run (several runs may share a trace)."""


def _continues(messages: Sequence[Message], earlier: Sequence[Message]) -> bool:
    """Whether ``messages`` starts with the ``earlier`` conversation (the same messages, or
    equal ones)."""
    if len(earlier) > len(messages):
        return False
    return all(a is b or a == b for a, b in zip(earlier, messages, strict=False))


class _TraceRuns:
    """The latest snapshot of each conversation run, by the SDK trace it runs in.

    The SDK runs the first turn of a run in a task of its own: a snapshot kept in a context
    variable there is gone at the next turn, where the variable holds whatever the run's
    task held before (nothing, or the snapshot of an earlier run in the same task). The
    trace is the same in every task of a run and is the run's own (unless the user opened
    one around several runs): a run's previous snapshot is the one of its trace whose
    conversation the new one continues, when that is one run's only (runs of one trace
    that begin alike cannot be told apart: each then starts a scope of its own, as without
    a trace). Traces are referred to weakly."""

    def __init__(self) -> None:
        self._items: dict[int, tuple[weakref.ref[Any], list[_Snapshot]]] = {}
        # reentrant: a trace in a reference cycle is freed by the cyclic GC, which may run
        # while this thread holds the lock; its callback (``forget``) then takes it again
        self._lock = threading.RLock()

    def snapshots(self, trace: object) -> list[_Snapshot] | None:
        """The trace's snapshots (latest last); ``None`` when the trace cannot be followed."""
        with self._lock:
            entry = self._items.get(id(trace))
            if entry is not None and entry[0]() is trace:
                return list(entry[1])
        try:
            weakref.ref(trace)
        except TypeError:
            return None
        return []

    def keep(self, trace: object, snapshot: _Snapshot) -> None:
        key = id(trace)
        items, lock = self._items, self._lock

        def forget(ref: weakref.ref[Any]) -> None:
            with lock:
                current = items.get(key)
                if current is not None and current[0] is ref:
                    del items[key]

        with lock:
            entry = items.get(key)
            if entry is None or entry[0]() is not trace:
                entry = (weakref.ref(trace, forget), [])
                items[key] = entry
            kept = [s for s in entry[1] if s.run is not snapshot.run]
            kept.append(snapshot)
            entry[1][:] = kept[-_TRACE_SNAPSHOTS:]


class ToolErrorRecovery:
    """Re-delivers failed tool calls to the model for the OpenAI Agents SDK.

    One line::

        result = await Runner.run(agent, "...", run_config=ToolErrorRecovery().run_config())

    Options are toolerr's policy (``form`` ``c3`` by default, ``retry_budget``,
    ``loop_action``, ``tool_safety``, ``max_error_chars``), or a ready
    :class:`toolerr.Policy`; ``on_record`` receives every
    :class:`toolerr.DetectionRecord`. One object serves any number of agents and
    concurrent runs: the verdicts of failures it produced are remembered in the run's own
    scope (by call id and result text), the rest is derived from each model call's own
    input, so no run sees another's failures, whatever the call ids.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        on_record: Callable[[DetectionRecord], None] | None = None,
        **options: Unpack[PolicyOptions],
    ) -> None:
        self.layer = ToolErrorLayer(policy, on_record=on_record, client=CLIENT, **options)
        self.tool_input_guardrail: ToolInputGuardrail[Any] = ToolInputGuardrail(
            guardrail_function=self._guard, name="toolerr_repeat_guard"
        )
        """Add it to a ``FunctionTool``'s ``tool_input_guardrails`` (or use :meth:`wrap`)."""
        # Per-run state: the snapshot lives in the run's own asyncio context, so concurrent
        # runs (tasks, threads) never see each other's conversation.
        self._snapshot: contextvars.ContextVar[_Snapshot | None] = contextvars.ContextVar(
            f"toolerr_openai_agents_{id(self):x}", default=None
        )
        self._traces = _TraceRuns()  # how a run's next model call finds its snapshot

    @property
    def policy(self) -> Policy:
        return self.layer.policy

    # -- failures the SDK catches ------------------------------------------------------

    def failure_error_function(self, ctx: RunContextWrapper[Any], error: Exception) -> str:
        """A ``ToolErrorFunction`` for ``function_tool(failure_error_function=...)`` and
        ``Agent(mcp_config={"failure_error_function": ...})``."""
        try:
            return self._failure_text(error, ctx if isinstance(ctx, ToolContext) else None)
        except Exception:
            logger.warning(
                "toolerr: classifying a tool exception failed; the SDK's default text is used", exc_info=True
            )
            return default_tool_error_function(ctx, error)

    def tool_error_formatter(self, args: ToolErrorFormatterArgs[Any]) -> str | None:
        """A ``RunConfig.tool_error_formatter``: the same result as
        :meth:`failure_error_function` for function tools that keep the SDK's default
        failure handler; ``None`` (the SDK's text) for every other kind."""
        error = getattr(args, "error", None)
        if args.kind != "tool_exception" or not isinstance(error, BaseException):
            return None
        context = args.run_context if isinstance(args.run_context, ToolContext) else None
        try:
            return self._failure_text(error, context, tool=args.tool_name, call_id=args.call_id)
        except Exception:
            logger.warning(
                "toolerr: classifying a tool exception failed; the SDK's default text is used", exc_info=True
            )
            return None

    def _remember_exception(self, args: ToolErrorFormatterArgs[Any], text: str) -> None:
        """Keep the classification of the exception of ``args`` for the result ``text`` that
        the user's formatter gave it (fails open)."""
        try:
            error = getattr(args, "error", None)
            if not isinstance(error, BaseException):
                return
            snapshot = self._snapshot.get()
            verdict = self.layer.inspect_exception(error, tool=args.tool_name)
            self.layer.remember(args.call_id, verdict, text, run=snapshot.run if snapshot else None)
        except Exception:
            logger.warning(
                "toolerr: classifying a tool exception failed; its text is classified alone", exc_info=True
            )

    def _failure_text(
        self,
        error: BaseException,
        context: ToolContext[Any] | None,
        *,
        tool: str | None = None,
        call_id: str | None = None,
    ) -> str:
        """The tool result for an exception: its diagnosis (``Name: message``, capped) and,
        in form C1, what the core's delivery of this result appends. The verdict is
        remembered in the run's scope for the call id and the result."""
        if context is not None:
            tool, call_id = tool or context.tool_name, call_id or context.tool_call_id
        snapshot = self._snapshot.get()
        run = snapshot.run if snapshot is not None else None
        verdict = self.layer.inspect_exception(error, tool=tool)
        text = exception_text(error)
        if not self.layer.inspect(Message(role="tool", content=text, client=CLIENT)).failed:
            text = f"Error: {text}"
        text = clean_text(text, self.policy.max_error_chars)
        self.layer.remember(call_id, verdict, text, run=run)
        if "c1" not in self.policy.forms.values():  # no kind is delivered in C1
            return text
        ledger = snapshot.ledger(self.layer).copy() if snapshot else FailureLedger(self.policy.retry_budget)
        delivery = self.layer.deliver_result(
            tool or "unknown_tool",
            None,
            text,
            exception=error,
            call_id=call_id,
            raw_arguments=context.tool_arguments if context is not None else None,
            run=run,
            ledger=ledger,  # the run's calls so far
            record=False,  # the input filter records it at the decision step
        )
        # A repeat of a failed call (or a cycle) may get other advice at the decision step
        # (retry budget, loop note): the input filter appends it there, not in the history.
        return text if delivery.repeats else delivery.text

    # -- the model input ---------------------------------------------------------------

    def call_model_input_filter(self, data: CallModelData[Any]) -> ModelInputData:
        """A ``RunConfig.call_model_input_filter``: the form applied to this model call.

        Returns ``data.model_data`` itself when nothing changes. Fails open (the input
        passes unchanged and the error is logged); raises :class:`toolerr.ToolLoopError`
        only for loop action ``stop``.
        """
        model_data = data.model_data
        try:
            items: Any = model_data.input
            if not isinstance(items, list):
                return model_data
            trace = get_current_trace()
            kept = self._traces.snapshots(trace) if trace is not None else None
            latest = self._snapshot.get()
            own: _Snapshot | None = None
            if kept is not None:  # this context's snapshot counts only if it is of this trace
                if latest is not None and latest.trace is not None and latest.trace() is trace:
                    own = latest
                else:
                    latest = kept[-1] if kept else None
            conversions = latest.conversions if latest is not None else ConversionCache()
            conversation = to_conversation(items, conversions)  # the run's next call reuses them
            previous = latest
            if kept is not None and not (own and _continues(conversation.messages, own.messages)):
                # the snapshot of the trace that this conversation continues; none when it
                # continues several runs' (runs of one trace with the same beginning)
                continued = [s for s in kept if _continues(conversation.messages, s.messages)]
                unique = len({id(s.run) for s in continued}) == 1
                previous = max(reversed(continued), key=lambda s: len(s.messages)) if unique else None
            snapshot = _Snapshot(conversation.messages, previous, conversions)
            self._snapshot.set(snapshot)  # for the tools and guardrails of this turn
            if kept is not None:
                snapshot.trace = weakref.ref(trace)
                self._traces.keep(trace, snapshot)
            if self.policy.loop_action in ("block", "stop"):
                self._attach_guardrail(getattr(data, "agent", None))
            result = self.layer.rewrite(conversation.messages, run=snapshot.run)
            if not result.changed:
                return model_data
            new_items = conversation.to_items(result.messages)
        except ToolLoopError as error:
            raise _stopped(error) from None
        except Exception:
            logger.warning("toolerr: rewriting the model input failed; it passes unchanged", exc_info=True)
            return model_data
        return ModelInputData(input=new_items, instructions=model_data.instructions)

    # -- loops -------------------------------------------------------------------------

    def _guard(self, data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        context = data.context
        if self.policy.loop_action == "note" or not self._owns(context.run_config):
            return ToolGuardrailFunctionOutput.allow()
        snapshot = self._snapshot.get()
        if snapshot is None:
            return ToolGuardrailFunctionOutput.allow()
        try:
            ledger = snapshot.ledger(self.layer)
            raw = context.tool_arguments
            arguments = ToolCall.from_raw(context.tool_call_id, context.tool_name, raw).arguments
        except Exception:
            logger.warning("toolerr: checking a tool call for repeats failed; the call runs", exc_info=True)
            return ToolGuardrailFunctionOutput.allow()
        try:
            decision = self.layer.check_call(context.tool_name, arguments, raw=raw, ledger=ledger)
        except ToolLoopError as error:
            raise _stopped(error) from None
        if decision.action != "block":
            return ToolGuardrailFunctionOutput.allow()
        try:
            message = self.layer.blocked_result(context.tool_call_id, decision, run=snapshot.run)
        except Exception:
            logger.warning("toolerr: answering a blocked repeat failed; the call runs", exc_info=True)
            return ToolGuardrailFunctionOutput.allow()
        return ToolGuardrailFunctionOutput.reject_content(message, output_info={"toolerr": decision.reason})

    def _owns(self, run_config: RunConfig | None) -> bool:
        """Whether this run's model input goes through this object's filter (so the
        snapshot in this context is the run's own, not a stale one from another run)."""
        installed = run_config.call_model_input_filter if run_config is not None else None
        if installed is None:
            return False
        return installed == self.call_model_input_filter or getattr(installed, _OWNER, None) is self

    def _attach_guardrail(self, agent: Any) -> None:
        """The repeat guard on the agent's function tools and MCP servers (idempotent)."""
        for tool in getattr(agent, "tools", None) or ():
            if isinstance(tool, FunctionTool):
                self._wrap_tool(tool)
        for server in getattr(agent, "mcp_servers", None) or ():
            guardrails = getattr(server, "tool_input_guardrails", None)
            if guardrails is not None and not isinstance(guardrails, list):
                continue
            if not any(g is self.tool_input_guardrail for g in guardrails or ()):
                server.tool_input_guardrails = [*(guardrails or ()), self.tool_input_guardrail]

    # -- wiring ------------------------------------------------------------------------

    def run_config(self, **kwargs: Any) -> RunConfig:
        """An ``agents.RunConfig`` with toolerr wired in; ``kwargs`` are RunConfig's own.

        A ``call_model_input_filter`` you pass runs first and toolerr sees its result; a
        ``tool_error_formatter`` you pass wins where it returns text (toolerr still
        classifies the exception) and toolerr's text is used where it returns ``None``.
        """
        user_filter = kwargs.pop("call_model_input_filter", None)
        user_formatter = kwargs.pop("tool_error_formatter", None)
        kwargs["call_model_input_filter"] = self._compose_filter(user_filter)
        kwargs["tool_error_formatter"] = self._compose_formatter(user_formatter)
        return RunConfig(**kwargs)

    def _compose_filter(self, user_filter: Callable[..., Any] | None) -> Callable[..., Any]:
        if user_filter is None:
            return self.call_model_input_filter

        async def call_model_input_filter(data: CallModelData[Any]) -> ModelInputData:
            updated = user_filter(data)
            if inspect.isawaitable(updated):
                updated = await updated
            if not isinstance(updated, ModelInputData):
                return cast(ModelInputData, updated)  # the SDK reports the user's mistake
            agent = data.agent
            return self.call_model_input_filter(
                CallModelData(model_data=updated, agent=agent, context=data.context)
            )

        setattr(call_model_input_filter, _OWNER, self)
        return call_model_input_filter

    def _compose_formatter(self, user_formatter: Callable[..., Any] | None) -> Callable[..., Any]:
        if user_formatter is None:
            return self.tool_error_formatter

        async def tool_error_formatter(args: ToolErrorFormatterArgs[Any]) -> str | None:
            ours = self.tool_error_formatter(args)
            theirs = user_formatter(args)
            if inspect.isawaitable(theirs):
                theirs = await theirs
            if theirs is None:
                return ours
            if ours is not None and isinstance(theirs, str):  # their words, our classification
                self._remember_exception(args, theirs)
            return cast(str, theirs)

        return tool_error_formatter

    def wrap(self, *targets: _Target) -> _Target:
        """Wire toolerr into agents and function tools you own, in place; returns the first.

        A ``FunctionTool`` gets :attr:`tool_input_guardrail` and, when it has none,
        :meth:`failure_error_function` as its ``timeout_error_function`` (the timeout is
        then classified from the ``ToolTimeoutError`` object). An ``Agent``: each of its
        function tools, ``mcp_config["failure_error_function"]`` unless you set one (the
        SDK runs MCP tools with its fixed text otherwise), and the agents it hands off to.
        """
        if not targets:
            raise TypeError("wrap() needs at least one Agent or FunctionTool")
        seen: set[int] = set()
        for target in targets:
            self._wrap_any(target, seen)
        return targets[0]

    def _wrap_any(self, target: Any, seen: set[int]) -> None:
        if id(target) in seen:
            return
        seen.add(id(target))
        if isinstance(target, FunctionTool):
            self._wrap_function_tool(target)
        elif isinstance(target, Agent):
            self._wrap_agent(target, seen)
        else:
            raise TypeError(f"wrap() takes an Agent or a FunctionTool, got {type(target).__name__}")

    def _wrap_tool(self, tool: FunctionTool) -> None:
        guardrails = list(tool.tool_input_guardrails or ())
        if not any(g is self.tool_input_guardrail for g in guardrails):
            tool.tool_input_guardrails = [*guardrails, self.tool_input_guardrail]

    def _wrap_agent(self, agent: Agent[Any], seen: set[int]) -> None:
        for tool in agent.tools:
            if isinstance(tool, FunctionTool):
                self._wrap_function_tool(tool)
        self._attach_guardrail(agent)
        config = dict(agent.mcp_config or {})
        if config.get("failure_error_function", default_tool_error_function) is default_tool_error_function:
            config["failure_error_function"] = cast(ToolErrorFunction, self.failure_error_function)
            agent.mcp_config = cast(Any, config)
        for handoff in _handoff_agents(agent.handoffs):
            self._wrap_any(handoff, seen)

    def _wrap_function_tool(self, tool: FunctionTool) -> None:
        if tool.timeout_error_function is None:
            tool.timeout_error_function = self.failure_error_function
        self._wrap_tool(tool)


def _stopped(error: ToolLoopError) -> ToolLoopError:
    return error if isinstance(error, AgentsException) else _RunStopped(error)


def _handoff_agents(handoffs: Iterable[Any]) -> list[Agent[Any]]:
    return [handoff for handoff in handoffs if isinstance(handoff, Agent)]
