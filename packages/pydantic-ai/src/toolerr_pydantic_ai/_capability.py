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
  run's history never holds a note), with the retry safety its tools declare (metadata,
  MCP annotations).

Each run has its own run scope (the per-run instance that ``for_run`` returns) on the
shared layers, so concurrent runs of one agent never see each other's failures, whatever
their call ids.
"""

from __future__ import annotations

import copy
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
from toolerr import DetectionRecord, FailureLedger, Message, Policy, ToolErrorLayer
from toolerr._kit import framework_verdict
from toolerr.adapters import (
    ConversionCache,
    Layers,
    RunSnapshot,
    ToolSafety,
    clean_text,
    fail_open,
    failure_of,
    guard_call,
    safety_from_annotations,
)

from ._convert import CLIENT, call_of, to_conversation, tool_return_text

if TYPE_CHECKING:
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

__all__ = ["ToolErrors"]

_SAFETIES = ("read_only", "idempotent", "unsafe")
_SAFETY_KEY = "toolerr_safety"
"""``ToolDefinition.metadata`` key (``Tool(..., metadata={"toolerr_safety": "read_only"})``)."""


_RETRY = framework_verdict("pydantic-ai", "ModelRetry")
"""The verdict of a ``ModelRetry`` (a tool's, a tool hook's or an argument validator's)."""


class _Mapped(ModelRetry):
    """The ``ModelRetry`` toolerr raises for a fixable failure (not the tool author's)."""


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
        self._layers = Layers(ToolErrorLayer(self.policy, on_record=on_record))
        self._cache = ConversionCache()
        self._per_run = False
        self._snapshot: RunSnapshot | None = None
        """The run's latest model request (its layer, run scope and ledger); per-run only."""

    def __repr__(self) -> str:
        return f"ToolErrors(policy={self.policy!r})"

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # takes callables; not spec-serializable

    # -- the run -------------------------------------------------------------------------

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        run = copy.copy(self)
        run._per_run = True
        run._snapshot = None
        return run

    def _run(self, ctx: RunContext[Any]) -> object:
        """The run scope: the per-run instance, or (hooks that reach the shared instance
        without ``for_run``, defensive) the run's id, kept by the layer."""
        return self if self._per_run else (ctx.run_id or f"ctx:{id(ctx)}")

    def _scope(self, ctx: RunContext[Any]) -> tuple[ToolErrorLayer, object]:
        """The layer and run scope of the run's latest model request."""
        snapshot = self._snapshot
        if snapshot is not None:
            return snapshot.layer, snapshot.run
        return self._layers.layer, self._run(ctx)

    # -- the model request ---------------------------------------------------------------

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """The form applied to this request's messages; the history is not changed.
        Fails open; raises :class:`toolerr.ToolLoopError` only for loop action ``stop``."""
        with fail_open("rewriting the model request"):
            tools = request_context.model_request_parameters.function_tools
            layer = self._layers.get(safety=_declared_safety(tools))
            run = self._run(ctx)
            conversation = to_conversation(request_context.messages, self._cache)
            if self._per_run:
                self._snapshot = RunSnapshot(layer, conversation.messages, run)
            result = layer.rewrite(conversation.messages, run=run)
            if not result.changed:
                return request_context
            return replace(request_context, messages=conversation.to_model_messages(result.messages))
        return request_context

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
        layer, run = self._scope(ctx)
        if layer.policy.loop_action != "note":
            neutral, snapshot = call_of(call), self._snapshot
            blocked = guard_call(
                layer,
                neutral.name,
                neutral.arguments,
                call.tool_call_id,
                raw=neutral.raw_arguments,
                ledger=snapshot.ledger if snapshot is not None else lambda: self._ledger(ctx, layer, run),
                run=run,
            )
            if blocked is not None:
                raise ToolFailed(blocked.text)
        try:
            return await handler(args)
        except ToolRetryError as error:
            self._retried(ctx, call, tool_def, error)
            raise
        except _Mapped:
            raise
        except ModelRetry as error:  # from a tool hook: the framework charges the retry
            layer.remember(call.tool_call_id, _RETRY, content=error.message, run=run)
            raise

    def _ledger(self, ctx: RunContext[Any], layer: ToolErrorLayer, run: object) -> FailureLedger:
        """Without a snapshot (no ``for_run``): the ledger of the run's history so far."""
        return layer.replay(to_conversation(ctx.messages, self._cache).messages, run=run)[0]

    def _retried(
        self, ctx: RunContext[Any], call: ToolCallPart, tool_def: ToolDefinition, error: ToolRetryError
    ) -> None:
        """A retry the framework turned into a ``retried`` tool return: the author's
        ``ModelRetry`` (fixable) or an MCP error result (classified from its text; a kind
        that is not fixable becomes a failed result: the model is not told to correct
        it, although pydantic-ai has already counted the retry)."""
        with fail_open("classifying a retried tool call", "ignored") as guard:
            part = error.tool_retry
            if not isinstance(part, ToolReturnPart) or isinstance(error.__cause__, _Mapped):
                return
            text = tool_return_text(part)
            if not _is_mcp(tool_def):
                layer, run = self._scope(ctx)
                layer.remember(call.tool_call_id, _RETRY, content=text, run=run)
                return
        if not guard.failed:
            self._mcp_failure(ctx, call, text, fixable_retries=True)

    def _mcp_failure(
        self, ctx: RunContext[Any], call: ToolCallPart, text: str, *, fixable_retries: bool = False
    ) -> None:
        """An MCP error result (``isError``), classified from its text: a fixable one keeps
        the framework's retry (while there is one); every other becomes a failed result."""
        with fail_open("classifying an MCP error result", "ignored") as guard:
            layer, run = self._scope(ctx)
            verdict = layer.inspect(
                Message(role="tool", content=text, is_error=True, name=call.tool_name, client="mcp")
            )
            layer.remember(call.tool_call_id, verdict, content=text, run=run)
        if guard.failed or (fixable_retries and verdict.kind == "fixable"):
            return
        raise ToolFailed(text)

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
        where = "classifying an argument validation error"
        with fail_open(where, "it propagates", reraise=(ValidationError, ModelRetry)) as guard:
            layer, run = self._scope(ctx)
            if ctx.retries.get(call.tool_name, 0) < ctx.max_retries:
                self._remember_rejected(layer, run, call, error)
                raise error
            if isinstance(error, ModelRetry):
                text, verdict = clean_text(error.message, self.policy.max_error_chars), _RETRY
            else:
                failure = failure_of(layer, error, tool=call.tool_name)
                text, verdict = failure.text, failure.verdict
            layer.remember(call.tool_call_id, verdict, content=text, run=run)
        if guard.failed:
            raise error from None
        raise ToolFailed(text) from error

    def _remember_rejected(
        self, layer: ToolErrorLayer, run: object, call: ToolCallPart, error: ValidationError | ModelRetry
    ) -> None:
        """The verdict from the exception object for the ``retried`` result the framework
        answers rejected arguments with (remembered for that result's exact content, which
        pydantic-ai builds from the error): malformed JSON is as fixable on the first retry
        as past ``max_retries``, whatever words its retry text has. Fails open: the result
        is then classified from its text."""
        with fail_open("classifying rejected tool arguments", "ignored"):
            # the framework's own builder of that result (not public API: imported here, so
            # that its absence in another pydantic-ai version only falls back to the text)
            from pydantic_ai._output import build_retried_tool_return

            content = tool_return_text(build_retried_tool_return(error, tool_name=call.tool_name))
            if isinstance(error, ModelRetry):
                verdict = _RETRY
            else:
                verdict = failure_of(layer, error, tool=call.tool_name).verdict
            layer.remember(call.tool_call_id, verdict, content=content, run=run)

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
            self._mcp_failure(ctx, call, cause.message)
        with fail_open("classifying a tool exception", "it propagates") as guard:
            layer, run = self._scope(ctx)
            failure = failure_of(layer, error, tool=call.tool_name)
            layer.remember(call.tool_call_id, failure.verdict, content=failure.text, run=run)
            retries_left = ctx.retries.get(call.tool_name, 0) < ctx.max_retries
        if guard.failed:
            raise error from None
        if failure.verdict.kind == "fixable" and retries_left:
            raise _Mapped(failure.text) from error
        raise ToolFailed(failure.text) from error


def _is_mcp(tool_def: ToolDefinition) -> bool:
    """A tool of pydantic-ai's MCP toolset (its metadata carries the MCP annotations)."""
    metadata = tool_def.metadata
    return isinstance(metadata, Mapping) and "annotations" in metadata and "meta" in metadata


def _declared_safety(tools: Sequence[ToolDefinition]) -> dict[str, ToolSafety]:
    """The retry safety the request's tools declare (metadata, MCP annotations)."""
    safety: dict[str, ToolSafety] = {}
    for tool_def in tools:
        metadata = tool_def.metadata
        if not isinstance(metadata, Mapping):
            continue
        declared = metadata.get(_SAFETY_KEY)
        if declared not in _SAFETIES and metadata.get("annotations") is not None:
            declared = safety_from_annotations(metadata["annotations"])
        if declared in _SAFETIES:
            safety[tool_def.name] = declared
    return safety
