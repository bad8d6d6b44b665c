"""ToolErrorPlugin: toolerr for Google's Agent Development Kit.

Three ADK plugin callbacks, one object:

* ``on_tool_error_callback``: a tool raised; classify the exception object, remember the
  verdict (scoped to the session and call id) and answer with a function response
  ``{"error": "ExceptionName: message"}`` (capped) instead of ending the run.
* ``before_model_callback``: before each model call, apply the form to that request's
  contents only (new ``Content``/``Part`` objects where something changes; the session's
  events and state are never touched).
* ``before_tool_callback``: with loop action ``block`` or ``stop``, an identical repeat of
  a failed non-transient call is not executed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.invocation_context import InvocationContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from toolerr import DetectionRecord, FailureLedger, Message, Policy, ToolErrorLayer, ToolLoopError
from toolerr.adapters import LRUCache, clean_text, exception_text

from ._convert import CLIENT, response_content, to_conversation

if TYPE_CHECKING:
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

__all__ = ["ToolErrorPlugin"]

logger = logging.getLogger("toolerr")

_SNAPSHOTS = 1024
_SEPARATOR = "\x1f"


class _Snapshot:
    """The neutral conversation of the latest model call of one invocation and agent
    (what a new call is checked against); its ledger is built once, on first use."""

    __slots__ = ("_ledger", "_lock", "messages", "scope")

    def __init__(self, scope: str, messages: list[Message]) -> None:
        self.scope = scope
        self.messages = messages
        self._ledger: FailureLedger | None = None
        self._lock = threading.Lock()

    def ledger(self, layer: ToolErrorLayer) -> FailureLedger:
        with self._lock:
            if self._ledger is None:
                self._ledger = layer.replay(self.messages)[0]
            return self._ledger


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
        self._snapshots: LRUCache[tuple[str, str], _Snapshot] = LRUCache(_SNAPSHOTS)

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

    # -- a tool raised -----------------------------------------------------------------

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
        if isinstance(error, asyncio.CancelledError) or not isinstance(error, Exception):
            return None
        if type(tool) is BaseTool:  # ADK's placeholder for an unknown tool name
            return None
        try:
            verdict = self.layer.inspect_exception(error, tool=tool.name)
            response = {"error": clean_text(exception_text(error), self.policy.max_error_chars)}
            key = _call_key(tool_context, tool_context.function_call_id)
            self.layer.remember(key, verdict, content=response_content(response)[0])
        except Exception:
            logger.warning(
                "toolerr: classifying a tool exception failed; ADK handles it as usual", exc_info=True
            )
            return None
        return response

    # -- the model input ---------------------------------------------------------------

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """The form applied to this request's contents (a new list; nothing shared with
        the session is changed). Always ``None``: the model call and other plugins go on.
        Fails open; raises :class:`toolerr.ToolLoopError` only for loop action ``stop``."""
        try:
            contents = list(llm_request.contents or ())
            if not contents:
                return None
            scope = _scope(callback_context)
            conversation = to_conversation(contents, _session_ids(callback_context, scope), scope)
            if self.policy.loop_action in ("block", "stop"):
                self._keep_snapshot(callback_context, _Snapshot(scope, conversation.messages))
            result = self.layer.rewrite(conversation.messages)
            if not result.changed:
                return None
            llm_request.contents = conversation.to_contents(result.messages)
        except ToolLoopError:
            raise
        except Exception:
            logger.warning("toolerr: rewriting the model request failed; it passes unchanged", exc_info=True)
        return None

    # -- loops -------------------------------------------------------------------------

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """With loop action ``block``: ``{"error": ...}`` instead of running an identical
        repeat of a failed non-transient call; ``stop`` raises :class:`toolerr.ToolLoopError`."""
        if self.policy.loop_action == "note":
            return None
        try:
            snapshot = self._snapshot(tool_context)
            if snapshot is None:
                return None
            ledger = snapshot.ledger(self.layer)
            arguments = dict(tool_args)
        except Exception:
            logger.warning("toolerr: checking a tool call for repeats failed; the call runs", exc_info=True)
            return None
        decision = self.layer.check_call(tool.name, arguments, ledger=ledger)
        if decision.action != "block":
            return None
        try:
            key = _call_key(tool_context, tool_context.function_call_id)
            text = self.layer.blocked_result(key, decision)
            response = {"error": text}
            verdict = self.layer.recall(key, text)
            if verdict is not None:  # the result the next request holds is the JSON payload
                self.layer.remember(key, verdict, content=response_content(response)[0])
        except Exception:
            logger.warning("toolerr: answering a blocked call failed; the call runs", exc_info=True)
            return None
        return response

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """The invocation ended: drop its snapshots."""
        invocation = invocation_context.invocation_id
        for key in [k for k in self._snapshots if k[0] == invocation]:
            self._snapshots.pop(key)

    def _keep_snapshot(self, context: CallbackContext, snapshot: _Snapshot) -> None:
        key = (context.invocation_id, context.agent_name)
        self._snapshots.put(key, snapshot)

    def _snapshot(self, context: ToolContext) -> _Snapshot | None:
        snapshot = self._snapshots.get((context.invocation_id, context.agent_name))
        if snapshot is None or snapshot.scope != _scope(context):
            return None
        return snapshot


def _scope(context: CallbackContext | ToolContext) -> str:
    """The session a callback belongs to: what remembered verdicts are scoped by (call
    ids are unique only within a conversation; models that number calls reuse them)."""
    session = context.session
    return f"{session.app_name}\x1f{session.user_id}\x1f{session.id}"


def _call_key(context: CallbackContext | ToolContext, call_id: str | None) -> str | None:
    """What a verdict is remembered by: the session, the invocation (unique even across
    runners whose sessions share app, user and session names) and the call id."""
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
