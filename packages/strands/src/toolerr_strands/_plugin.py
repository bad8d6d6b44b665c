"""ToolErrorPlugin: toolerr for Strands Agents, as two middleware handlers the plugin adds
to each agent it is given to (``Plugin.init_agent``):

* ``ExecuteToolStage`` (wrap): a tool's failed result (``ToolResultEvent.exception``) is
  answered with its diagnosis (``Name: message``, cleaned, capped), classified once from
  the exception object; loop action ``block``/``stop`` and the idempotency guard keep an
  identical repeat of a failed call from running; ``auto_retry`` re-runs a turned-away
  call before the model sees it.
* ``InvokeModelStage.Input``: the form applied to that model call's messages only
  (``context.replace(messages=...)``); the agent's history is never changed.

Everything the plugin remembers is scoped by the agent (``context.agent``): strands runs
one invocation at a time per agent, so an agent is a run scope, and one plugin serves any
number of agents at once whatever their call ids.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from strands.middleware import (
    ExecuteToolContext,
    ExecuteToolStage,
    InvokeModelContext,
    InvokeModelStage,
    MiddlewareNext,
)
from strands.plugins import Plugin
from strands.types.events import ToolResultEvent, TypedEvent
from toolerr import DetectionRecord, Policy, ToolErrorLayer
from toolerr.adapters import (
    ConversionCache,
    RunSnapshot,
    acall_with_result_retries,
    fail_open,
    failure_of,
    guard_call,
)

from ._convert import CLIENT, to_conversation

if TYPE_CHECKING:
    from strands import Agent
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

__all__ = ["ToolErrorPlugin"]


class ToolErrorPlugin(Plugin):
    """Re-delivers failed tool calls to the model, for Strands Agents.

    One line::

        agent = Agent(model=model, tools=[...], plugins=[ToolErrorPlugin()])

    Options are toolerr's policy (``form`` ``c3`` by default, ``retry_budget``,
    ``loop_action``, ``tool_safety``, ``max_error_chars``, ``auto_retry`` ...) or a ready
    :class:`toolerr.Policy`; ``on_record`` receives every :class:`toolerr.DetectionRecord`
    (they are also logged on logger ``toolerr``). One plugin serves any number of agents,
    in any threads or event loops: what it remembers is scoped by the agent.

    Args:
        policy: A ready policy (else one is built from ``options``).
        on_record: Called with each detection record (an error it raises is logged).
        **options: :class:`toolerr.Policy` fields.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        on_record: Callable[[DetectionRecord], None] | None = None,
        **options: Unpack[PolicyOptions],
    ) -> None:
        self.on_record = on_record
        self.layer = ToolErrorLayer(policy, on_record=on_record, client=CLIENT, **options)
        # Each agent's latest model call (its neutral conversation and lazily built ledger):
        # what the tool calls that model call made are checked against.
        self._snapshots: weakref.WeakKeyDictionary[Any, RunSnapshot] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        self._cache = ConversionCache()
        super().__init__()

    @property
    def name(self) -> str:
        """The plugin's name in the agent's plugin registry."""
        return "toolerr"

    @property
    def policy(self) -> Policy:
        """The policy the plugin applies."""
        return self.layer.policy

    def __repr__(self) -> str:
        return f"ToolErrorPlugin(policy={self.policy!r})"

    def init_agent(self, agent: Agent) -> None:
        """Add the plugin's two middleware handlers to ``agent`` (strands calls this once
        per agent the plugin is given to).

        Args:
            agent: The agent being built.
        """
        agent.add_middleware(ExecuteToolStage, self.execute_tool)
        agent.add_middleware(InvokeModelStage.Input, self.before_model_call)

    def before_model_call(self, context: InvokeModelContext) -> InvokeModelContext:
        """The form applied to this model call's messages (strands' defensive copy; the
        agent's history is not changed). Fails open (the context unchanged, a WARNING);
        raises :class:`toolerr.ToolLoopError` only for loop action ``stop``.

        Args:
            context: strands' context of the model call.

        Returns:
            The context, or a copy with the rewritten messages.
        """
        with fail_open("rewriting the model request"):
            agent = context.agent
            conversation = to_conversation(context.messages, self._cache)
            if self.policy.checks_calls:
                snapshot = RunSnapshot(self.layer, conversation.messages, agent)
                with self._lock:
                    self._snapshots[agent] = snapshot
            result = self.layer.rewrite(conversation.messages, run=agent)
            if result.changed:
                return context.replace(messages=conversation.to_strands(result.messages))  # type: ignore[arg-type]
        return context

    async def execute_tool(
        self, context: ExecuteToolContext, next_fn: MiddlewareNext[ExecuteToolContext, TypedEvent]
    ) -> AsyncGenerator[TypedEvent, None]:
        """One tool call: not run when it repeats a failed call that the policy blocks
        (its answer instead), else run (with ``auto_retry``'s hidden retries); a failed
        result with its exception is answered with the diagnosis and its verdict kept for
        the next model call.

        Args:
            context: strands' context of the tool call.
            next_fn: The rest of strands' chain (runs the tool).

        Yields:
            The tool's events, its result last.
        """
        tool_use = context.tool_use
        name, call_id, agent = str(tool_use["name"]), str(tool_use["toolUseId"]), context.agent
        if context.tool is not None and self.policy.checks_calls:
            blocked = self._guard(agent, name, tool_use.get("input"), call_id)
            if blocked is not None:
                yield blocked
                return
        if context.tool is None or not self.policy.auto_retry:
            async for event in next_fn(context):
                yield (
                    self._answer(agent, name, event, tool_use.get("input"), context.tool)
                    if context.tool is not None
                    else event
                )
            return
        async for event in self._with_retries(context, next_fn, agent, name):
            yield event

    def _guard(self, agent: Any, name: str, arguments: Any, call_id: str) -> ToolResultEvent | None:
        with self._lock:
            snapshot = self._snapshots.get(agent)
        if snapshot is None:
            return None
        blocked = guard_call(self.layer, name, arguments, call_id, ledger=snapshot.ledger, run=agent)
        if blocked is None:
            return None
        result: Any = {"toolUseId": call_id, "status": "error", "content": [{"text": blocked.text}]}
        return ToolResultEvent(result)

    async def _with_retries(
        self,
        context: ExecuteToolContext,
        next_fn: MiddlewareNext[ExecuteToolContext, TypedEvent],
        agent: Any,
        name: str,
    ) -> AsyncGenerator[TypedEvent, None]:
        """The call run as ``auto_retry`` allows; the events of the attempt that counts."""

        async def attempt() -> list[TypedEvent]:
            return [event async for event in next_fn(context)]

        events = await acall_with_result_retries(self.layer, name, attempt, _exception)
        for event in events:
            yield self._answer(agent, name, event, context.tool_use.get("input"), context.tool)

    def _answer(self, agent: Any, name: str, event: TypedEvent, arguments: Any, tool: Any) -> TypedEvent:
        """A failed result with its exception -> the same result with the diagnosis as its
        text, the verdict remembered (with the hidden retries before it, kept with the
        exception); any other event unchanged. Classified with the call's arguments and
        the tool's declared parameters. Fails open (strands' own result)."""
        if not isinstance(event, ToolResultEvent) or event.exception is None:
            return event
        error = event.exception
        with fail_open("classifying a tool exception", "strands' own result goes on"):
            result: Any = dict(event.get("tool_result") or {})
            if result.get("status") != "error":
                return event
            parameters = _declared_parameters(tool)  # never raises: None when it cannot be read
            failure = failure_of(self.layer, error, tool=name, arguments=arguments, parameters=parameters)
            call_id = str(result.get("toolUseId"))
            self.layer.remember(call_id, failure.verdict, content=failure.text, run=agent)
            result["content"] = [{"text": failure.text}]
            return ToolResultEvent(result, exception=error)
        return event


def _declared_parameters(tool: Any) -> Any:
    """The tool's declared parameters: the JSON schema of its spec,
    ``tool_spec["inputSchema"]["json"]``, strands' own dict (the same object on every call
    for ``@tool``, module and MCP tools: the core reads a schema once per object, and a spec
    replaced at runtime is read anew). ``None`` when the spec has none; a spec that raises
    is logged once per cause and the failure is classified without it."""
    with fail_open("reading a tool's declared parameters", "the failure is classified without them"):
        spec = tool.tool_spec
        schema = spec.get("inputSchema") if isinstance(spec, Mapping) else None
        schema = schema.get("json") if isinstance(schema, Mapping) else None
        return schema if isinstance(schema, Mapping) else None
    return None


def _exception(events: list[TypedEvent]) -> Exception | None:
    """The exception behind the failed result among a tool call's events."""
    for event in events:
        if isinstance(event, ToolResultEvent) and event.exception is not None:
            return event.exception
    return None
