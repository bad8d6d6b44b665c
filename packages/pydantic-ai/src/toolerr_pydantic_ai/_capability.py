"""ToolErrors: toolerr as a pydantic-ai capability.

Hooks, one object:

* ``on_tool_execute_error``: a tool raised; classify the exception object and give the
  model a failed tool result with its diagnosis (``Name: message``, capped) instead of
  ending the run. A fixable failure takes the framework's retry path (``ModelRetry``) while
  the tool has retries left; every other kind, and a fixable one past the tool's
  ``max_retries``, is a ``ToolFailed`` result (no retry budget spent, the run goes on).
* ``wrap_tool_execute``: a tool author's ``ModelRetry`` keeps working and is remembered as
  a fixable failure; an MCP ``isError`` result (pydantic-ai raises ``ModelRetry`` for it)
  is classified from its text; with loop action ``block``/``stop`` an identical repeat of
  a failed non-transient call is not executed.
* ``on_tool_validate_error``: arguments that fail validation (malformed JSON, wrong types,
  an ``args_validator``'s ``ModelRetry``) are classified from the exception object; past the
  tool's ``max_retries`` they are a failed result instead of ending the run.
* ``before_model_request``: the form applied to the messages of that request only (the
  run's history never holds a note).
* ``prepare_tools``: retry safety from each tool's metadata and MCP annotations.

Per-run state (the verdicts learnt from exception objects, the failed-call ledger) lives in
the per-run instance that ``for_run`` returns, so concurrent runs of one agent never see
each other's failures, whatever their call ids.
"""

from __future__ import annotations

import copy
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.capabilities.abstract import RawToolArgs, ValidatedToolArgs, WrapToolExecuteHandler
from pydantic_ai.exceptions import ModelRetry, ToolFailed, ToolRetryError, UnexpectedModelBehavior
from pydantic_ai.messages import ToolCallPart, ToolReturnPart
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import RunContext, ToolDefinition
from toolerr import DetectionRecord, FailureLedger, Message, Policy, ToolErrorLayer, ToolLoopError, Verdict
from toolerr.adapters import LRUCache, ToolSafety, clean_text, exception_text, safety_from_annotations

from ._convert import CLIENT, MessageCache, call_of, to_conversation, tool_return_text

if TYPE_CHECKING:
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

__all__ = ["ToolErrors"]

logger = logging.getLogger("toolerr")

_SAFETIES = ("read_only", "idempotent", "unsafe")
_SAFETY_KEY = "toolerr_safety"
"""``ToolDefinition.metadata`` key (``Tool(..., metadata={"toolerr_safety": "read_only"})``)."""
_FALLBACK_RUNS = 64


class _Mapped(ModelRetry):
    """The ``ModelRetry`` toolerr raises for a fixable failure (not the tool author's)."""


class _RunState:
    """One run's toolerr state: its own layer (verdicts by call id), the neutral
    conversation of its latest model request and the ledger built from it on first use."""

    __slots__ = ("_ledger", "_lock", "cache", "layer", "messages", "safety")

    def __init__(self, layer: ToolErrorLayer) -> None:
        self.layer = layer
        self.cache = MessageCache()
        self.messages: Sequence[Message] | None = None
        self.safety: dict[str, ToolSafety] = {}
        self._ledger: FailureLedger | None = None
        self._lock = threading.Lock()

    def snapshot(self, messages: Sequence[Message]) -> None:
        with self._lock:
            self.messages = messages
            self._ledger = None

    def ledger(self) -> FailureLedger | None:
        with self._lock:
            if self.messages is None:
                return None
            if self._ledger is None:
                self._ledger = self.layer.replay(self.messages)[0]
            return self._ledger


class ToolErrors(AbstractCapability[Any]):
    """Classifies failed tool calls and re-delivers them to the model, for pydantic-ai.

    One line::

        agent = Agent(model, tools=[...], capabilities=[ToolErrors()])

    Options are toolerr's policy (``form`` ``c3`` by default, ``retry_budget``,
    ``loop_action``, ``tool_safety``, ``max_error_chars``) or a ready
    :class:`toolerr.Policy`; ``on_record`` receives every :class:`toolerr.DetectionRecord`
    (they are also logged on logger ``toolerr``). A tool's retry safety can also be declared
    in its metadata (``metadata={"toolerr_safety": "read_only"}``); MCP tools' annotations
    (``readOnlyHint``, ``idempotentHint``, ``destructiveHint``) are read. One instance
    serves any number of agents and concurrent runs.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        on_record: Callable[[DetectionRecord], None] | None = None,
        **options: Unpack[PolicyOptions],
    ) -> None:
        self.policy = Policy.coerce(policy, client=CLIENT, **options)
        self.on_record = on_record
        self._run: _RunState | None = None
        # Runs whose hooks reach this shared instance without for_run (defensive).
        self._fallback: LRUCache[str, _RunState] = LRUCache(_FALLBACK_RUNS)
        self._fallback_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ToolErrors(policy={self.policy!r})"

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # takes callables; not spec-serializable

    # -- per-run state -----------------------------------------------------------------

    def _new_state(self) -> _RunState:
        return _RunState(ToolErrorLayer(self.policy, on_record=self.on_record))

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        run = copy.copy(self)
        run._run = self._new_state()
        run._fallback = LRUCache(_FALLBACK_RUNS)
        run._fallback_lock = threading.Lock()
        return run

    def _state(self, ctx: RunContext[Any]) -> _RunState:
        if self._run is not None:
            return self._run
        key = ctx.run_id or f"ctx:{id(ctx)}"
        with self._fallback_lock:
            state = self._fallback.get(key)
            if state is None:
                state = self._new_state()
                self._fallback.put(key, state)
            return state

    # -- retry safety --------------------------------------------------------------------

    async def prepare_tools(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        try:
            state = self._state(ctx)
            safety = dict(state.safety)
            for tool_def in tool_defs:
                declared = _declared_safety(tool_def)
                if declared is not None:
                    safety[tool_def.name] = declared
            if safety != state.safety:
                state.safety = safety
                state.layer.policy = self.policy.with_tool_safety(safety)
        except Exception:
            logger.warning("toolerr: reading tool safety failed; ignored", exc_info=True)
        return tool_defs

    # -- the model request ---------------------------------------------------------------

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """The form applied to this request's messages; the history is not changed.
        Fails open; raises :class:`toolerr.ToolLoopError` only for loop action ``stop``."""
        try:
            state = self._state(ctx)
            conversation = to_conversation(request_context.messages, state.cache)
            state.snapshot(conversation.messages)
            result = state.layer.rewrite(conversation.messages)
            if not result.changed:
                return request_context
            messages = conversation.to_model_messages(result.messages)
        except ToolLoopError:
            raise
        except Exception:
            logger.warning("toolerr: rewriting the model request failed; it passes unchanged", exc_info=True)
            return request_context
        return replace(request_context, messages=messages)

    # -- tool execution ------------------------------------------------------------------

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        state = self._state(ctx)
        if self.policy.loop_action != "note":
            self._guard(state, call)
        try:
            return await handler(args)
        except ToolRetryError as error:
            self._retried(state, ctx, call, tool_def, error)
            raise
        except _Mapped:
            raise
        except ModelRetry as error:  # from a tool hook: the framework charges the retry
            self._remember_retry(state, call, error.message)
            raise

    def _guard(self, state: _RunState, call: ToolCallPart) -> None:
        """Loop action ``block``/``stop``: an identical repeat of a failed call is not run."""
        try:
            ledger = state.ledger()
            if ledger is None:
                return
            neutral = call_of(call)
        except Exception:
            logger.warning("toolerr: checking a tool call for repeats failed; the call runs", exc_info=True)
            return
        decision = state.layer.check_call(
            neutral.name, neutral.arguments, raw=neutral.raw_arguments, ledger=ledger
        )
        if decision.action == "block":
            raise ToolFailed(state.layer.blocked_result(call.tool_call_id, decision))

    def _retried(
        self,
        state: _RunState,
        ctx: RunContext[Any],
        call: ToolCallPart,
        tool_def: ToolDefinition,
        error: ToolRetryError,
    ) -> None:
        """A retry the framework turned into a ``retried`` tool return: the author's
        ``ModelRetry`` (fixable) or an MCP error result (classified from its text; a kind
        that is not fixable becomes a failed result: the model is not told to correct
        it, although pydantic-ai has already counted the retry)."""
        try:
            part = error.tool_retry
            if not isinstance(part, ToolReturnPart) or isinstance(error.__cause__, _Mapped):
                return
            text = tool_return_text(part)
            if not _is_mcp(tool_def):
                self._remember_retry(state, call, text)
                return
        except Exception:
            logger.warning("toolerr: classifying a retried tool call failed; ignored", exc_info=True)
            return
        self._mcp_failure(state, call, text, fixable_retries=True)

    def _mcp_failure(
        self, state: _RunState, call: ToolCallPart, text: str, *, fixable_retries: bool = False
    ) -> None:
        """An MCP error result (``isError``), classified from its text: a fixable one keeps
        the framework's retry (while there is one); every other becomes a failed result."""
        try:
            verdict = state.layer.inspect(
                Message(role="tool", content=text, is_error=True, name=call.tool_name, client="mcp")
            )
            state.layer.remember(call.tool_call_id, verdict, content=text)
        except Exception:
            logger.warning("toolerr: classifying an MCP error result failed; ignored", exc_info=True)
            return
        if fixable_retries and verdict.kind == "fixable":
            return
        raise ToolFailed(text)

    def _remember_retry(self, state: _RunState, call: ToolCallPart, text: str) -> None:
        state.layer.remember(
            call.tool_call_id,
            Verdict(failed=True, kind="fixable", rule="pydantic-ai:ModelRetry", detection="exception"),
            content=text,
        )

    async def on_tool_validate_error(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: RawToolArgs,
        error: ValidationError | ModelRetry,
    ) -> ValidatedToolArgs:
        """The model's arguments failed validation: the framework's retry while the tool
        has retries left; past its ``max_retries`` a failed result (fixable) instead of
        ``UnexpectedModelBehavior`` ending the run."""
        try:
            if ctx.retries.get(call.tool_name, 0) < ctx.max_retries:
                self._remember_rejected(self._state(ctx), call, error)
                raise error
            state = self._state(ctx)
            if isinstance(error, ModelRetry):
                text = clean_text(error.message, self.policy.max_error_chars)
                self._remember_retry(state, call, text)
            else:
                text = clean_text(exception_text(error), self.policy.max_error_chars)
                verdict = state.layer.inspect_exception(error, tool=call.tool_name)
                state.layer.remember(call.tool_call_id, verdict, content=text)
        except (ValidationError, ModelRetry):
            raise
        except Exception:
            logger.warning(
                "toolerr: classifying an argument validation error failed; it propagates", exc_info=True
            )
            raise error from None
        raise ToolFailed(text) from error

    def _remember_rejected(
        self, state: _RunState, call: ToolCallPart, error: ValidationError | ModelRetry
    ) -> None:
        """The verdict from the exception object for the ``retried`` result the framework
        answers rejected arguments with (remembered for that result's exact content, which
        pydantic-ai builds from the error): malformed JSON is as fixable on the first retry
        as past ``max_retries``, whatever words its retry text has. Fails open: the result
        is then classified from its text."""
        try:
            # the framework's own builder of that result (not public API: imported here, so
            # that its absence in another pydantic-ai version only falls back to the text)
            from pydantic_ai._output import build_retried_tool_return

            content = tool_return_text(build_retried_tool_return(error, tool_name=call.tool_name))
            if isinstance(error, ModelRetry):
                self._remember_retry(state, call, content)
                return
            verdict = state.layer.inspect_exception(error, tool=call.tool_name)
            state.layer.remember(call.tool_call_id, verdict, content=content)
        except Exception:
            logger.warning("toolerr: classifying rejected tool arguments failed; ignored", exc_info=True)

    async def on_tool_execute_error(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        error: Exception,
    ) -> Any:
        """A tool raised: a failed result with its diagnosis (see the module doc).
        Fails open: on an internal error the exception propagates as without toolerr."""
        cause = error.__cause__
        if isinstance(error, UnexpectedModelBehavior) and isinstance(cause, ModelRetry):
            # The tool's max_retries are spent: the author's ModelRetry ends the run as it
            # would without toolerr; an MCP error result becomes a failed result.
            if not _is_mcp(tool_def):
                raise error
            self._mcp_failure(self._state(ctx), call, cause.message)
        try:
            state = self._state(ctx)
            verdict = state.layer.inspect_exception(error, tool=call.tool_name)
            text = clean_text(exception_text(error), self.policy.max_error_chars)
            state.layer.remember(call.tool_call_id, verdict, content=text)
            retries_left = ctx.retries.get(call.tool_name, 0) < ctx.max_retries
        except Exception:
            logger.warning("toolerr: classifying a tool exception failed; it propagates", exc_info=True)
            raise error from None
        if verdict.kind == "fixable" and retries_left:
            raise _Mapped(text) from error
        raise ToolFailed(text) from error


def _is_mcp(tool_def: ToolDefinition) -> bool:
    """A tool of pydantic-ai's MCP toolset (its metadata carries the MCP annotations)."""
    metadata = tool_def.metadata
    return isinstance(metadata, Mapping) and "annotations" in metadata and "meta" in metadata


def _declared_safety(tool_def: ToolDefinition) -> ToolSafety | None:
    metadata = tool_def.metadata
    if not isinstance(metadata, Mapping):
        return None
    declared = metadata.get(_SAFETY_KEY)
    if declared in _SAFETIES:
        return declared  # type: ignore[no-any-return]
    annotations = metadata.get("annotations")
    if annotations is not None:
        return safety_from_annotations(annotations)
    return None
