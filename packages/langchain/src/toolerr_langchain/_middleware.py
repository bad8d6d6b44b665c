"""The LangChain and LangGraph hooks: ``ToolErrorMiddleware`` (a LangChain v1 agent
middleware), :func:`retry_on` (for LangChain's ``ToolRetryMiddleware``) and, for users who
build their own graph, :func:`handle_tool_errors` (for ``ToolNode``) and
:func:`rewrite_messages` (before a model call). The classification is the core's: these
hooks hold no rule of their own."""

from __future__ import annotations

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
from langgraph.prebuilt.tool_node import ToolInvocationError
from toolerr import DetectionRecord, Policy, ToolErrorLayer
from toolerr.adapters import (
    ConversationRun,
    Failure,
    Layers,
    acall_with_retries,
    call_with_retries,
    exception_text,
    fail_open,
    failure_of,
    guard_call,
    hinted_safety,
    shown_failure,
    tool_raised,
)

from ._messages import (
    CLASSIFIER,
    CLIENT,
    TEXT_VERDICTS,
    conversation,
    graph_run,
    neutral,
    rewrite_and_ledger,
    to_toolerr,
    verdict_of,
    with_verdict,
)
from ._parameters import declared_parameters

if TYPE_CHECKING:
    from langchain.agents.middleware.types import ExtendedModelResponse, ToolCallRequest
    from langchain_core.messages import ContentBlock
    from langchain_core.tools import BaseTool
    from langgraph.types import Command
    from toolerr import FailureLedger, PolicyOptions
    from typing_extensions import Unpack

    OnError = Callable[[Exception, ToolCallRequest], "str | list[ContentBlock] | None"]
    AOnError = Callable[[Exception, ToolCallRequest], Awaitable["str | list[ContentBlock] | None"]]

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
    is not the model's mistake).

    Args:
        exc: the exception the tool raised.

    Returns:
        ``Error: {ExceptionType}: {message}``, or ``Error: {ExceptionType}`` when the
        message is empty (or its ``__str__`` raises).
    """
    return f"Error: {exception_text(exc)}"


_NOT_RETRIED = (GraphBubbleUp, ToolInvocationError)
"""LangGraph's own signals (an interrupt, invalid arguments): never re-run hidden."""


def _state_messages(state: Any) -> Sequence[Any]:
    if not isinstance(state, list):
        state = state.get("messages") if isinstance(state, Mapping) else getattr(state, "messages", None)
    return state if isinstance(state, Sequence) else ()


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
    ``max_error_chars`` and ``error_detail`` (``full``, ``safe``: the result and the note
    show the exception type and safe fields only, ``none``). ``on_record`` receives every
    :class:`toolerr.DetectionRecord`; they are also logged on logger ``toolerr``.

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
        self._layers = Layers(self.layer)

    @property
    def name(self) -> str:
        """Distinct from LangChain's own ``ToolErrorMiddleware``, so both can be stacked."""
        return "toolerr"

    # -- model calls ---------------------------------------------------------------------

    def _layer_for(self, tools: Sequence[Any]) -> ToolErrorLayer:
        """This middleware's layer with the safety that a request's own tools declare in
        their metadata (MCP-style hints; the user's explicit ``tool_safety`` wins)."""
        if self._layers.layer is not self.layer:
            self._layers = Layers(self.layer)
        return self._layers.for_tools(tools, hinted_safety)

    def _model_request(self, request: ModelRequest[ContextT]) -> ModelRequest[ContextT]:
        """The request with the form applied to its messages (or the request itself).

        A model that declares ``toolerr_accepts_failed_calls`` (a local model with a
        decoder ban, such as ``toolerr_hf.ChatLocalModel``) also gets the conversation's
        failed-call ledger as the ``failed_calls`` model setting, so that it can ban the
        failed calls at the decoder even when the form removed them from its view
        (abstract + ban)."""
        with fail_open("rewriting the model request", "the messages pass unchanged"):
            messages, ledger = rewrite_and_ledger(
                self._layer_for(request.tools), request.messages, ConversationRun()
            )
            changes: dict[str, Any] = {} if messages is None else {"messages": messages}
            if (
                ledger is not None
                and getattr(request.model, "toolerr_accepts_failed_calls", False) is True
                and "failed_calls" not in request.model_settings
                and ledger.banned_calls()
            ):
                changes["model_settings"] = {**request.model_settings, "failed_calls": ledger}
            return request.override(**changes) if changes else request
        return request

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

    def _before(self, request: ToolCallRequest) -> tuple[str | None, ToolMessage | None]:
        """The tool's name (``None``: not a tool this middleware handles) and, with loop
        action ``block``/``stop`` or the idempotency guard, the runtime result for a repeat
        of a failed call that must not run (``None``: run it). ``stop`` raises ToolLoopError."""
        name = request.tool.name if request.tool is not None else str(request.tool_call.get("name"))
        if self._tool_filter is not None and name not in self._tool_filter:
            return None, None
        if not self.layer.policy.checks_calls:
            return name, None  # nothing is blocked: no closure, no run scope, no call
        if self.layer.policy.loop_action == "note":  # only the idempotency guard can answer
            with fail_open(f"checking a call to {name!r} for repeats", "the call runs"):
                if not self._unknown_outcome_last(_state_messages(request.state), name):
                    return name, None  # the latest result is no unknown outcome of the tool
        call = request.tool_call
        call_id, scope = call.get("id"), ConversationRun()  # a run scope of this call alone

        def ledger() -> FailureLedger | None:
            messages = _state_messages(request.state)
            if not _called_before(messages, name, call_id) and self.layer.policy.progress is None:
                return None  # nothing to repeat (and no stall): no need to replay the conversation
            return self.layer.replay(conversation(messages, neutral), run=scope)[0]

        layer = self._layer_for([request.tool])  # the tool's declared safety: the idempotency guard
        blocked = guard_call(layer, name, call.get("args", {}), call_id, ledger=ledger, run=scope)
        if blocked is None:
            return name, None
        with fail_open(f"answering a blocked repeat of {name}", "the call runs"):
            message = ToolMessage(blocked.text, tool_call_id=call_id or "", name=name, status="error")
            return name, with_verdict(message, blocked.verdict)
        return name, None

    def _unknown_outcome_last(self, messages: Sequence[Any], tool_name: str) -> bool:
        """Whether the conversation's latest tool result is a failure of ``tool_name`` whose
        outcome is unknown: the only case the idempotency guard answers (the latest result
        is the latest call the ledger records; the results of this step are not in the
        state yet). Cheap: no replay."""
        for message in reversed(messages):
            if isinstance(message, ToolMessage):
                if message.status != "error" or message.name not in (tool_name, None):
                    return False
                verdict = verdict_of(message) or self.layer.inspect(to_toolerr(message))
                return verdict.outcome == "unknown_outcome"
        return False

    def _annotated(self, result: Any, tool_name: str, request: ToolCallRequest) -> Any:
        """An error ``ToolMessage`` that LangChain built (argument validation, unknown
        tool) or an inner middleware returned, with its classification kept; any other
        result (successes, content blocks, ``Command``) is returned as it is."""
        if not isinstance(result, ToolMessage) or result.status != "error" or verdict_of(result) is not None:
            return result
        with fail_open(f"classifying the error result of {tool_name}"):
            arguments, parameters = request.tool_call.get("args"), declared_parameters(request.tool)
            verdict = self.layer.inspect(to_toolerr(result), arguments=arguments, parameters=parameters)
            return with_verdict(result, verdict)
        return result

    @property
    def _custom_content(self) -> bool:
        """Whether the user's ``on_error``/``aon_error`` words an error result (it may
        also re-raise: then nothing is classified)."""
        return self.on_error is not None or self.aon_error is not None

    def _failure(self, exc: Exception, tool_name: str, request: ToolCallRequest) -> Failure | None:
        """The exception classified once (its shown text under ``error_detail`` with it)."""
        with fail_open(f"classifying the exception of {tool_name}", "the error result goes out unclassified"):
            arguments, parameters = request.tool_call.get("args"), declared_parameters(request.tool)
            return failure_of(self.layer, exc, tool=tool_name, arguments=arguments, parameters=parameters)
        return None

    def _content(self, exc: Exception, request: ToolCallRequest, failure: Failure | None) -> Any:
        """What ``on_error`` (else :func:`default_error_content`) makes of an exception."""
        if self.on_error is not None:
            return self.on_error(exc, request)
        if self.aon_error is not None:
            msg = "ToolErrorMiddleware has no sync `on_error`; "
            msg += "run async (ainvoke/astream) or provide `on_error`."
            raise RuntimeError(msg) from exc
        if self.layer.policy.error_detail != "full":  # the type and safe fields, or nothing
            return failure.text if failure is not None else shown_failure(self.layer, exc)
        return default_error_content(exc)

    def _error_result(
        self, exc: Exception, content: Any, request: ToolCallRequest, tool_name: str, failure: Failure | None
    ) -> ToolMessage:
        if content is None:
            raise exc
        if failure is None and self._custom_content:  # the user's words: classified once still
            failure = self._failure(exc, tool_name, request)
        call_id = request.tool_call.get("id") or ""
        message = ToolMessage(content=content, tool_call_id=call_id, name=tool_name, status="error")
        return with_verdict(message, failure.verdict) if failure is not None else message

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Run the tool; turn its exception into a classified error result; with loop
        action ``block``, answer an identical repeat of a failed call without running it."""
        tool_name, blocked = self._before(request)
        if tool_name is None or blocked is not None:
            return handler(request) if blocked is None else blocked
        with tool_raised((GraphBubbleUp,), is_invalid_resume) as raised:
            layer = self._layer_for([request.tool]) if self.layer.policy.auto_retry else self.layer
            result = call_with_retries(layer, tool_name, lambda: handler(request), never=_NOT_RETRIED)
            return cast("ToolMessage | Command[Any]", self._annotated(result, tool_name, request))
        exc = cast("Exception", raised.error)
        failure = None if self._custom_content else self._failure(exc, tool_name, request)
        content = self._content(exc, request, failure)
        return self._error_result(exc, content, request, tool_name, failure)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async twin of :meth:`wrap_tool_call` (uses ``aon_error``, else ``on_error``)."""
        tool_name, blocked = self._before(request)
        if tool_name is None or blocked is not None:
            return await handler(request) if blocked is None else blocked
        with tool_raised((GraphBubbleUp,), is_invalid_resume) as raised:
            layer = self._layer_for([request.tool]) if self.layer.policy.auto_retry else self.layer
            result = await acall_with_retries(layer, tool_name, lambda: handler(request), never=_NOT_RETRIED)
            return cast("ToolMessage | Command[Any]", self._annotated(result, tool_name, request))
        exc = cast("Exception", raised.error)
        failure = None if self._custom_content else self._failure(exc, tool_name, request)
        content = (
            self._content(exc, request, failure)
            if self.aon_error is None
            else await self.aon_error(exc, request)
        )
        return self._error_result(exc, content, request, tool_name, failure)

    # -- for custom graphs -----------------------------------------------------------------

    def rewrite(self, messages: Sequence[Any]) -> list[Any]:
        """The messages for one model call with the form applied (this middleware's layer
        and policy).

        Args:
            messages: the conversation as it is in the graph state.

        Returns:
            A new list; a plain copy when nothing changes. Fails open (the messages pass
            unchanged, the error is logged); raises :class:`toolerr.ToolLoopError` only
            with loop action ``stop``.
        """
        return rewrite_messages(messages, layer=self.layer)


def handle_tool_errors(e: Exception) -> str:
    """``ToolNode(tools, handle_tool_errors=handle_tool_errors)``: every exception a tool
    raises becomes an error ``ToolMessage`` instead of ending the run.

    The exception is classified here, and :func:`rewrite_messages` (or a
    :class:`ToolErrorMiddleware`'s ``rewrite``) uses that classification for the error
    message with exactly this text, in the same graph run only (one ``invoke``/``stream``
    of the graph, by its ``RunControl``; by the configured ``thread_id`` on a LangGraph
    without one): another run, whatever its call ids and texts, never sees it. Outside a
    graph run nothing is kept. When two exceptions of one run give the same text with
    different classifications, neither is used and the text is classified on its own.

    Args:
        e: the exception the tool raised.

    Returns:
        The result text: LangChain's own for argument validation errors,
        ``Error: {ExceptionType}: {message}`` otherwise.
    """
    content = e.message if isinstance(e, ToolInvocationError) else default_error_content(e)
    with fail_open("classifying a ToolNode exception", "the error result goes out unclassified"):
        run = graph_run()
        if run is not None:
            TEXT_VERDICTS.put(run, content, CLASSIFIER.inspect_exception(e, text=content))
    return content


def retry_on(exc: Exception) -> bool:
    """Whether ``ToolRetryMiddleware`` should run a failed tool call again: ``True`` only
    for a transient failure the other side turned away before doing anything (HTTP 429 and
    503, a refused connection, a DNS failure: the core's outcome ``not_executed``), so a
    retry cannot do the work twice. ``False`` for a permanent failure (a
    ``PermissionError``, a 404, a bad argument), for a failure whose outcome is unknown
    (a read timeout, a 500 or 502: the call may have taken effect) and for anything the
    core cannot classify; the exception then reaches the next middleware (put
    ``ToolErrorMiddleware`` before ``ToolRetryMiddleware`` in ``middleware=[...]``, so that
    it turns the exception into an error result for the model).

    Fails closed: an internal error of toolerr's gives ``False`` (no retry; a WARNING on
    logger ``toolerr``), never a duplicate call.

    Args:
        exc: The exception the tool raised (what ``ToolRetryMiddleware`` passes).

    Returns:
        Whether to retry.
    """
    with fail_open("classifying an exception for ToolRetryMiddleware", "it is not retried"):
        verdict = CLASSIFIER.inspect_exception(exc)
        return verdict.kind == "transient" and verdict.outcome == "not_executed"
    return False


def rewrite_messages(
    messages: Sequence[Any],
    *,
    layer: ToolErrorLayer | None = None,
    policy: Policy | None = None,
    on_record: Callable[[DetectionRecord], None] | None = None,
    **options: Unpack[PolicyOptions],
) -> list[Any]:
    """The LangChain messages for one model call with the toolerr form applied (C3 by
    default).

    Give the result to the model and keep the state as it was. Unchanged messages are the
    very same objects; when there is no failure at the decision step the result is a plain
    copy of the input. Fails open: on an internal error the messages pass unchanged and
    the error is logged on logger ``toolerr``.

    Args:
        messages: the conversation as it is in the graph state.
        layer: the layer to use (e.g. ``ToolErrorMiddleware().layer``); else a one-off
            layer of ``policy``, ``on_record`` and the policy fields ``options``.

    Returns:
        The messages for the model.

    Raises:
        toolerr.ToolLoopError: only with loop action ``stop``.
        ValueError: for an invalid policy.
    """
    if layer is None:
        layer = ToolErrorLayer(policy, on_record=on_record, client=CLIENT, **options)
    with fail_open("rewriting the messages", "they pass unchanged"):
        rewritten = rewrite_and_ledger(layer, messages)[0]
        return list(messages) if rewritten is None else rewritten
    return list(messages)
