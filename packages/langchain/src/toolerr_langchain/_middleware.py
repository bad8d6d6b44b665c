"""``ToolErrorMiddleware``: toolerr as a LangChain v1 agent middleware."""

from __future__ import annotations

import logging
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from langchain.agents.middleware.types import (
    AgentMiddleware,
    AgentState,
    ContextT,
    ModelRequest,
    ModelResponse,
    ResponseT,
)
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.errors import GraphBubbleUp
from toolerr import DetectionRecord, Policy, ToolErrorLayer, ToolLoopError
from toolerr.adapters import LRUCache, safety_from_annotations

from ._messages import (
    CLIENT,
    neutral,
    restore_verdicts,
    rewrite_and_ledger,
    rewrite_with,
    to_toolerr,
    verdict_of,
    with_verdict,
)

if TYPE_CHECKING:
    from langchain.agents.middleware.types import ExtendedModelResponse, ToolCallRequest
    from langchain_core.messages import ContentBlock
    from langchain_core.tools import BaseTool
    from langgraph.types import Command
    from toolerr import PolicyOptions
    from toolerr.adapters import ToolSafety
    from typing_extensions import Unpack

    OnError = Callable[[Exception, ToolCallRequest], "str | list[ContentBlock] | None"]
    AOnError = Callable[[Exception, ToolCallRequest], Awaitable["str | list[ContentBlock] | None"]]

logger = logging.getLogger("toolerr")

_SAFETY_LAYERS = 64
"""Layers kept for distinct sets of tool safety declared in tools' metadata."""

try:
    from langgraph.types import TracePolicy, omit_payload

    _TRACE_POLICY: Any = TracePolicy(process_inputs=omit_payload)
except ImportError:  # pragma: no cover - langgraph before trace policies: hooks traced in full
    _TRACE_POLICY = None

try:
    from langgraph.errors import is_invalid_resume
except ImportError:  # pragma: no cover - langgraph before resume validation

    def is_invalid_resume(error: BaseException) -> bool:
        return False


def default_error_content(exc: BaseException) -> str:
    """The result text for a tool exception nobody else handled:
    ``Error: {ExceptionType}: {message}`` (LangGraph's ``handle_tool_errors=True`` text
    without its "Please fix your mistakes." trailer, which is wrong for every failure that
    is not the model's mistake)."""
    name = type(exc).__name__
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ must not hide the failure
        message = ""
    return f"Error: {name}: {message}" if message else f"Error: {name}"


def _tool_safety(tool: Any) -> ToolSafety | None:
    """Safety declared in a tool's metadata: MCP-style hints at the top level (as
    langchain-mcp-adapters copies them) or under ``annotations``."""
    metadata = getattr(tool, "metadata", None)
    if not isinstance(metadata, Mapping):
        return None
    return safety_from_annotations(metadata) or safety_from_annotations(metadata.get("annotations"))


def _state_messages(state: Any) -> Sequence[Any]:
    if isinstance(state, Mapping):
        messages = state.get("messages")
    elif isinstance(state, list):
        messages = state
    else:
        messages = getattr(state, "messages", None)
    return messages if isinstance(messages, Sequence) else ()


class _Scope:
    """The run scope of one hook call. The middleware keeps nothing between calls: each
    verdict travels on its ``ToolMessage`` (``response_metadata["toolerr"]``) and is
    restored from the call's own messages into a fresh scope, so no run, thread or
    concurrent invocation sharing the middleware can see another's (whatever call ids)."""

    __slots__ = ("__weakref__",)


def _called_before(messages: Sequence[Any], tool_name: str, call_id: str | None) -> bool:
    """Whether the conversation holds another call to ``tool_name``: without one, the
    call cannot repeat a failure or close a cycle, and the loop check can be skipped."""
    for message in messages:
        if isinstance(message, AIMessage):
            for call in (*message.tool_calls, *message.invalid_tool_calls):
                if (call.get("name") or "unknown") == tool_name and call.get("id") != call_id:
                    return True
    return False


class ToolErrorMiddleware(AgentMiddleware[AgentState[ResponseT], ContextT, ResponseT]):
    """Detect, classify and re-deliver failed tool calls in a ``create_agent`` run.

    ``create_agent(model, tools, middleware=[ToolErrorMiddleware()])``.

    A superset of ``langchain.agents.middleware.ToolErrorMiddleware``:

    * ``on_error(exc, request)`` / ``aon_error``: as there. Return content to turn the
      exception into a ``ToolMessage(status="error")``, ``None`` to let it propagate.
      Without either, every exception a tool raises becomes an error result
      (:func:`default_error_content`) instead of ending the run.
    * ``tools``: tools (or names) whose exceptions are handled and whose repeats are
      checked; the others run untouched. Detection and delivery at the model call cover
      every tool.

    The toolerr policy: ``policy`` (a :class:`toolerr.Policy`) and/or its fields ``form``
    (``c3`` default, ``c0``-``c4``, ``abstract``), ``retry_budget``, ``loop_action``
    (``note``, ``block``, ``stop``), ``tool_safety`` (tool name -> ``read_only``,
    ``idempotent`` or ``unsafe``; MCP hints found in a tool's ``metadata`` are used too)
    and ``max_error_chars``. ``on_record`` receives every :class:`toolerr.DetectionRecord`;
    they are also logged on logger ``toolerr``.

    Each failed result keeps its classification in ``response_metadata["toolerr"]``
    (read it with :func:`toolerr_langchain.verdict_of`). The form is applied to the
    messages of one model call only: the agent's state and checkpoints never hold a note.
    """

    trace_policy = _TRACE_POLICY
    """Hook spans keep their timing but not the conversation payload (as LangChain's own)."""

    def __init__(
        self,
        on_error: OnError | None = None,
        *,
        aon_error: AOnError | None = None,
        tools: Sequence[BaseTool | str] | None = None,
        policy: Policy | None = None,
        on_record: Callable[[DetectionRecord], None] | None = None,
        **options: Unpack[PolicyOptions],
    ) -> None:
        super().__init__()
        self.on_error = on_error
        self.aon_error = aon_error
        self._tool_filter: frozenset[str] | None = (
            None if tools is None else frozenset(t if isinstance(t, str) else t.name for t in tools)
        )
        self.tools = []  # registers no tools
        self.layer = ToolErrorLayer(policy, on_record=on_record, client=CLIENT, **options)
        """The toolerr layer this middleware drives (its ``policy``)."""
        # Layers for the tool safety that a request's own tools declare (by that safety).
        self._safety_layers: LRUCache[frozenset[tuple[str, ToolSafety]], tuple[Policy, ToolErrorLayer]]
        self._safety_layers = LRUCache(_SAFETY_LAYERS)
        self._safety_lock = threading.Lock()

    @property
    def name(self) -> str:
        """Distinct from LangChain's own ``ToolErrorMiddleware``, so both can be stacked."""
        return "toolerr"

    # -- shared steps ------------------------------------------------------------------

    def _handles(self, tool_name: str) -> bool:
        return self._tool_filter is None or tool_name in self._tool_filter

    def _layer_for(self, tools: Sequence[Any]) -> ToolErrorLayer:
        """The layer for one model request: this middleware's policy with the safety that
        the request's own tools declare in their metadata (the user's explicit
        ``tool_safety`` wins). Never merged into the shared policy: agents that share the
        middleware may each have their own tool of one name."""
        declared: dict[str, ToolSafety] = {}
        for tool in tools:
            name = getattr(tool, "name", None)
            if isinstance(name, str):
                safety = _tool_safety(tool)
                if safety is not None:
                    declared[name] = safety
        base = self.layer
        if not declared:
            return base
        key = frozenset(declared.items())
        with self._safety_lock:
            kept = self._safety_layers.get(key)
            if kept is not None and kept[0] is base.policy and kept[1].on_record is base.on_record:
                return kept[1]
            layer = ToolErrorLayer(base.policy.with_tool_safety(declared), on_record=base.on_record)
            self._safety_layers.put(key, (base.policy, layer))
        return layer

    def _model_request(self, request: ModelRequest[ContextT]) -> ModelRequest[ContextT]:
        """The request with the form applied to its messages (or the request itself).

        A model that declares ``toolerr_accepts_failed_calls`` (a local model with a
        decoder ban, such as ``toolerr_hf.ChatLocalModel``) also gets the conversation's
        failed-call ledger as the ``failed_calls`` model setting, so that it can ban the
        failed calls at the decoder even when the form removed them from its view
        (abstract + ban)."""
        try:
            messages, ledger = rewrite_and_ledger(self._layer_for(request.tools), request.messages, _Scope())
            settings = None
            if (
                ledger is not None
                and getattr(request.model, "toolerr_accepts_failed_calls", False) is True
                and "failed_calls" not in request.model_settings
                and ledger.banned_calls()
            ):
                settings = {**request.model_settings, "failed_calls": ledger}
        except ToolLoopError:
            raise
        except Exception:  # fail open: the model sees what LangChain built
            logger.warning(
                "toolerr: rewriting the model request failed; the messages pass unchanged", exc_info=True
            )
            return request
        if messages is None and settings is None:
            return request
        changes: dict[str, Any] = {}
        if messages is not None:
            changes["messages"] = messages
        if settings is not None:
            changes["model_settings"] = settings
        return request.override(**changes)

    def _blocked(self, request: ToolCallRequest, tool_name: str) -> ToolMessage | None:
        """With loop action ``block``/``stop``: the runtime result for a repeat of a failed
        call that must not run (``None``: run it). ``stop`` raises ToolLoopError."""
        if self.layer.policy.loop_action == "note":
            return None
        call = request.tool_call
        scope = _Scope()
        try:
            messages = _state_messages(request.state)
            if not _called_before(messages, tool_name, call.get("id")):
                return None  # nothing to repeat: no need to replay the conversation
            restore_verdicts(self.layer, messages, scope)
            converted = [neutral(message) for message in messages]
        except Exception:  # fail open: the call runs
            logger.warning(
                "toolerr: reading the conversation for the loop check failed; the call runs", exc_info=True
            )
            return None
        decision = self.layer.check_call(tool_name, call.get("args", {}), messages=converted, run=scope)
        if decision.action != "block":
            return None
        try:
            content = self.layer.blocked_result(call.get("id"), decision, run=scope)
            message = ToolMessage(
                content=content, tool_call_id=call.get("id") or "", name=tool_name, status="error"
            )
            verdict = self.layer.recall(call.get("id"), content, run=scope)
            return with_verdict(message, verdict) if verdict is not None else message
        except Exception:  # fail open: the call runs
            logger.warning(
                "toolerr: answering a blocked repeat of %s failed; the call runs", tool_name, exc_info=True
            )
            return None

    def _error_result(
        self, exc: Exception, content: Any, request: ToolCallRequest, tool_name: str
    ) -> ToolMessage:
        call_id = request.tool_call.get("id")
        message = ToolMessage(
            content=cast("str | list[str | dict[Any, Any]]", content),
            tool_call_id=call_id or "",
            name=tool_name,
            status="error",
        )
        try:
            return with_verdict(message, self.layer.inspect_exception(exc, tool=tool_name))
        except Exception:  # fail open: the error result goes out unclassified
            logger.warning("toolerr: classifying the exception of %s failed", tool_name, exc_info=True)
            return message

    def _annotated(self, result: Any, tool_name: str) -> Any:
        """An error ``ToolMessage`` that LangChain built (argument validation, unknown
        tool) or an inner middleware returned, with its classification kept; any other
        result (successes, content blocks, ``Command``) is returned as it is."""
        if not isinstance(result, ToolMessage) or result.status != "error":
            return result
        try:
            if verdict_of(result) is not None:
                return result
            return with_verdict(result, self.layer.inspect(to_toolerr(result)))
        except Exception:  # fail open
            logger.warning("toolerr: classifying the error result of %s failed", tool_name, exc_info=True)
            return result

    @staticmethod
    def _tool_name(request: ToolCallRequest) -> str:
        return request.tool.name if request.tool is not None else str(request.tool_call.get("name"))

    # -- model calls ---------------------------------------------------------------------

    def wrap_model_call(
        self,
        request: ModelRequest[ContextT],
        handler: Callable[[ModelRequest[ContextT]], ModelResponse[ResponseT]],
    ) -> ModelResponse[ResponseT] | AIMessage | ExtendedModelResponse[ResponseT]:
        """Apply the form to the messages of this model call only."""
        return handler(self._model_request(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[ContextT],
        handler: Callable[[ModelRequest[ContextT]], Awaitable[ModelResponse[ResponseT]]],
    ) -> ModelResponse[ResponseT] | AIMessage | ExtendedModelResponse[ResponseT]:
        """Async twin of :meth:`wrap_model_call`."""
        return await handler(self._model_request(request))

    # -- tool calls ------------------------------------------------------------------------

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Run the tool; turn its exception into a classified error result; with loop
        action ``block``, answer an identical repeat of a failed call without running it."""
        tool_name = self._tool_name(request)
        if not self._handles(tool_name):
            return handler(request)
        blocked = self._blocked(request, tool_name)
        if blocked is not None:
            return blocked
        try:
            result = handler(request)
        except (GraphBubbleUp, ToolLoopError):
            raise
        except Exception as exc:
            if is_invalid_resume(exc):
                raise
            if self.on_error is not None:
                content = self.on_error(exc, request)
            elif self.aon_error is not None:
                msg = (
                    "ToolErrorMiddleware has no sync `on_error`; "
                    "run async (ainvoke/astream) or provide `on_error`."
                )
                raise RuntimeError(msg) from exc
            else:
                content = default_error_content(exc)
            if content is None:
                raise
            return self._error_result(exc, content, request, tool_name)
        return cast("ToolMessage | Command[Any]", self._annotated(result, tool_name))

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async twin of :meth:`wrap_tool_call` (uses ``aon_error``, else ``on_error``)."""
        tool_name = self._tool_name(request)
        if not self._handles(tool_name):
            return await handler(request)
        blocked = self._blocked(request, tool_name)
        if blocked is not None:
            return blocked
        try:
            result = await handler(request)
        except (GraphBubbleUp, ToolLoopError):
            raise
        except Exception as exc:
            if is_invalid_resume(exc):
                raise
            if self.aon_error is not None:
                content = await self.aon_error(exc, request)
            elif self.on_error is not None:
                content = self.on_error(exc, request)
            else:
                content = default_error_content(exc)
            if content is None:
                raise
            return self._error_result(exc, content, request, tool_name)
        return cast("ToolMessage | Command[Any]", self._annotated(result, tool_name))

    # -- for custom graphs -----------------------------------------------------------------

    def rewrite(self, messages: Sequence[Any]) -> list[Any]:
        """The messages for one model call with the form applied (this middleware's layer
        and policy); a plain copy of the list when nothing changes. Fails open."""
        try:
            rewritten = rewrite_with(self.layer, messages, _Scope())
        except ToolLoopError:
            raise
        except Exception:  # fail open
            logger.warning("toolerr: rewriting the messages failed; they pass unchanged", exc_info=True)
            return list(messages)
        return list(messages) if rewritten is None else rewritten
