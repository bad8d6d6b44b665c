"""ToolErrorPlugin: toolerr for Google's Agent Development Kit, as three ADK plugin callbacks:
a tool's exception answered (``on_tool_error_callback``), the form applied to each model
request (``before_model_callback``) and identical repeats of failed calls kept from
running (``before_tool_callback``)."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from toolerr import DetectionRecord, Policy, ToolErrorLayer
from toolerr.adapters import RunSnapshot, acall_with_retries, fail_open, failure_of, guard_call

from ._convert import CLIENT
from ._convert import Conversation as to_conversation

if TYPE_CHECKING:
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

__all__ = ["ToolErrorPlugin"]

_SEPARATOR = "\x1f"

_Kept = tuple[tuple[str, str, str], RunSnapshot]


class ToolErrorPlugin(BasePlugin):
    """Re-delivers failed tool calls to the model, for ADK.

    One line::

        app = App(name="...", root_agent=agent, plugins=[ToolErrorPlugin()])

    Options are toolerr's policy (``form`` ``c3`` by default, ``retry_budget``,
    ``loop_action``, ``tool_safety``, ``max_error_chars``), or a ready
    :class:`toolerr.Policy`; ``on_record`` receives every :class:`toolerr.DetectionRecord`.
    One plugin serves any number of agents, sessions and concurrent invocations: what it
    remembers is keyed by session and call id, and each model call is rewritten from its
    own request alone.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        name: str = "toolerr",
        on_record: Callable[[DetectionRecord], None] | None = None,
        **options: Unpack[PolicyOptions],
    ) -> None:
        super().__init__(name)
        self.on_record = on_record
        self.layer = ToolErrorLayer(policy, on_record=self._record, client=CLIENT, **options)
        # The conversation of an agent's latest model call, with its session, invocation and
        # agent: ADK starts the tasks of an agent's tool calls from the context of its model
        # call, and runs concurrent agents and invocations in tasks of their own.
        self._snapshot: contextvars.ContextVar[_Kept | None] = contextvars.ContextVar(
            "toolerr_google_adk_snapshot", default=None
        )
        self._parameters = _DeclaredParameters()

    @property
    def policy(self) -> Policy:
        return self.layer.policy

    def _record(self, record: DetectionRecord) -> None:
        """A record for ``on_record`` with the call id as ADK has it (the layer works on
        call keys scoped to the session and invocation)."""
        if self.on_record is None:
            return
        call_id = record.call_id
        if call_id is not None and _SEPARATOR in call_id:
            record = dataclasses.replace(record, call_id=call_id.rsplit(_SEPARATOR, 1)[-1])
        self.on_record(record)

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        """The function response for a tool's exception: ``{"error": "Name: message"}``
        (cleaned, capped at ``max_error_chars``); the verdict from the exception object is
        remembered for the next model call. ``None`` for a cancellation, for a tool name
        the model made up (ADK then answers with its own list of the tools there are, which
        the next model call reads as the failure it is) and when toolerr fails internally
        (ADK re-raises)."""
        if not isinstance(error, Exception) or type(tool) is BaseTool:  # BaseTool: an unknown name
            return None
        if self.policy.auto_retry:  # hidden retries of a turned-away call: the plugin re-runs it
            failed = [error]

            async def attempt() -> Any:
                if failed:
                    raise failed.pop()  # the attempt ADK made
                return await tool.run_async(args=tool_args, tool_context=tool_context)

            try:
                value = await acall_with_retries(self.layer, tool.name, attempt)
            except Exception as last:  # noqa: BLE001 - the tool's: delivered below
                error = last
            else:
                return value if isinstance(value, dict) else {"result": value}  # as ADK shapes it
        with fail_open("classifying a tool exception", "ADK handles it as usual"):
            parameters = self._parameters.of(tool)  # never raises: None when it cannot be read
            failure = failure_of(
                self.layer, error, tool=tool.name, arguments=tool_args, parameters=parameters
            )
            self.layer.remember(_call_key(tool_context), failure.verdict, content=failure.text)
            return {"error": failure.text}
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """The form applied to this request's contents (a new list; nothing shared with
        the session is changed). Always ``None``: the model call and other plugins go on.
        Fails open; raises :class:`toolerr.ToolLoopError` only for loop action ``stop``."""
        with fail_open("rewriting the model request"):
            contents = list(llm_request.contents or ())
            if not contents:
                return None
            scope = _scope(callback_context)
            conversation = to_conversation(contents, _session_ids(callback_context, scope), scope)
            if self.policy.checks_calls:
                snapshot = RunSnapshot(self.layer, conversation.messages)
                self._snapshot.set((_run_key(callback_context), snapshot))
            result = self.layer.rewrite(conversation.messages)
            if result.changed:
                llm_request.contents = conversation.to_contents(result.messages)
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """With loop action ``block``: ``{"error": ...}`` instead of running an identical
        repeat of a failed non-transient call (checked against the agent's latest model
        call); ``stop`` raises :class:`toolerr.ToolLoopError`."""
        kept = self._snapshot.get()  # another agent's or invocation's: no model call yet, nothing to repeat
        ledger = kept[1].ledger if kept is not None and kept[0] == _run_key(tool_context) else lambda: None
        # The answer's payload {"error": text} reads back as text: its verdict is remembered.
        blocked = guard_call(self.layer, tool.name, dict(tool_args), _call_key(tool_context), ledger=ledger)
        return None if blocked is None else {"error": blocked.text}


class _DeclaredParameters:
    """Each tool's declared parameters as a JSON-schema dict, read from its function
    declaration (``_get_declaration()``: ``parameters_json_schema``, else ``parameters``, a
    ``google.genai`` ``Schema`` dumped to JSON) once per tool object and kept as long as the
    tool lives: the same dict for every failure of that tool (the core reads a schema once
    per object). ``None`` for a tool without a declaration or one that cannot be read."""

    def __init__(self) -> None:
        self._schemas: weakref.WeakKeyDictionary[BaseTool, dict[str, Any] | None] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def of(self, tool: BaseTool) -> dict[str, Any] | None:
        """The tool's declared parameters; never raises (a declaration that raises is
        logged once per cause, and the failure is classified without it)."""
        with fail_open("reading a tool's declared parameters", "the failure is classified without them"):
            try:
                with self._lock:
                    if tool in self._schemas:
                        return self._schemas[tool]
            except TypeError:  # a tool that cannot be a weak key (unhashable): read each time
                return _declared(tool)
            schema = _declared(tool)
            with self._lock, contextlib.suppress(TypeError):  # no weak reference to it: read each time
                self._schemas[tool] = schema
            return schema
        return None


def _declared(tool: BaseTool) -> dict[str, Any] | None:
    declaration = tool._get_declaration()
    if declaration is None:
        return None
    schema = declaration.parameters_json_schema
    if isinstance(schema, Mapping):
        return dict(schema)
    if declaration.parameters is not None:
        dumped: dict[str, Any] = declaration.parameters.model_dump(mode="json", exclude_none=True)
        return dumped
    return None


def _scope(context: CallbackContext | ToolContext) -> str:
    """The session a callback belongs to: what remembered verdicts are scoped by (call
    ids are unique only within a conversation; models that number calls reuse them)."""
    session = context.session
    return f"{session.app_name}\x1f{session.user_id}\x1f{session.id}"


def _run_key(context: CallbackContext | ToolContext) -> tuple[str, str, str]:
    return _scope(context), context.invocation_id, context.agent_name


def _call_key(context: ToolContext) -> str | None:
    """What a verdict is remembered by: the session, the invocation (unique even across
    runners whose sessions share app, user and session names) and the call id."""
    call_id = context.function_call_id
    return _key(_scope(context), context.invocation_id, call_id) if call_id else None


def _key(scope: str, invocation: str | None, call_id: str) -> str:
    return f"{scope}\x1f{invocation}\x1f{call_id}"


def _session_ids(context: CallbackContext, scope: str) -> dict[int, str]:
    """The session's call keys (see :func:`_call_key`) by ``id()`` of each call's
    arguments and each response's payload: the request's shallow copies share those
    objects, so a request part whose ``adk-`` id ADK removed leads back to its id and
    invocation. The session's events are only read, and they are alive for as long as the
    ids are used."""
    ids: dict[int, str] = {}
    for event in context.session.events:
        content = event.content
        for part in (content.parts or ()) if content is not None else ():
            call = part.function_call
            if call is not None and call.id and call.args is not None:
                ids[id(call.args)] = _key(scope, event.invocation_id, call.id)
            result = part.function_response
            if result is not None and result.id and result.response is not None:
                ids[id(result.response)] = _key(scope, event.invocation_id, result.id)
    return ids
