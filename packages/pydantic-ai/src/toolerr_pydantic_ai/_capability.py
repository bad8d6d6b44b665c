"""ToolErrors: toolerr as a pydantic-ai capability.

* ``on_tool_execute_error``: a tool raised: a failed result with its diagnosis (``Name:
  message``, capped) instead of the end of the run; a fixable failure takes the framework's
  retry path (``ModelRetry``) while the tool has retries left, anything else is a
  ``ToolFailed`` result (no retry spent).
* ``wrap_tool_execute``: a tool author's ``ModelRetry`` counts as fixable, an MCP ``isError``
  result is classified from its text; loop action ``block``/``stop``: an identical repeat
  of a failed call is not run.
* ``on_tool_validate_error``: rejected arguments, classified from the exception object;
  past the tool's ``max_retries`` a failed result instead of the end of the run.
* ``before_model_request``: the form applied to that request only (never the history),
  with the retry safety its tools declare. Each run (the instance ``for_run`` returns) is
  a run scope of its own on the shared layers, whatever its call ids.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
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
from toolerr.adapters import (
    ConversionCache,
    Failure,
    Layers,
    RunSnapshot,
    acall_with_retries,
    clean_text,
    fail_open,
    failure_of,
    framework_verdict,
    guard_call,
    remember_hidden_retries,
)

from ._convert import CLIENT, call_of, to_conversation, tool_return_text


def _tool_error(error: BaseException) -> BaseException | None:
    """The tool's own exception behind the failed result :meth:`ToolErrorRecovery.on_tool_execute_error`
    made of it (``auto_retry`` classifies it); ``None`` for pydantic-ai's own signals."""
    cause = error.__cause__
    wrapped = isinstance(error, (ToolFailed, _Mapped))
    return cause if wrapped and not isinstance(cause, (ModelRetry, UnexpectedModelBehavior)) else None


if TYPE_CHECKING:
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

__all__ = ["ToolErrors"]

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

    async def for_run(self, ctx: RunContext[Any]) -> AbstractCapability[Any]:
        run = copy.copy(self)
        run._per_run = True
        return run

    def _scope(self, ctx: RunContext[Any]) -> tuple[ToolErrorLayer, object]:
        """The layer of the run's latest model request and the run scope: the per-run
        instance, or (hooks that reach the shared instance without ``for_run``) the run id."""
        snapshot = self._snapshot
        if snapshot is not None:
            return snapshot.layer, snapshot.run
        return self._layers.layer, self if self._per_run else (ctx.run_id or f"ctx:{id(ctx)}")

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        """The form applied to this request's messages; the history is not changed.
        Fails open; raises :class:`toolerr.ToolLoopError` only for loop action ``stop``."""
        with fail_open("rewriting the model request"):
            layer = self._layers.for_tools(request_context.model_request_parameters.function_tools)
            run = self._scope(ctx)[1]
            conversation = to_conversation(request_context.messages, self._cache)
            if self._per_run:
                self._snapshot = RunSnapshot(layer, conversation.messages, run)
            result = layer.rewrite(conversation.messages, run=run)
            if not result.changed:
                return request_context
            return replace(request_context, messages=conversation.to_model_messages(result.messages))
        return request_context

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
        if layer.policy.checks_calls:
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
            return await acall_with_retries(layer, call.tool_name, lambda: handler(args), unwrap=_tool_error)
        except ToolRetryError as error:
            # the retried tool return the framework made of the author's ModelRetry (fixable)
            # or of an MCP error result (classified: a kind that is not fixable is a failed
            # result, although pydantic-ai has counted the retry)
            with fail_open("classifying a retried tool call", "ignored", reraise=(ToolFailed,)):
                part = error.tool_retry
                if isinstance(part, ToolReturnPart) and not isinstance(error.__cause__, _Mapped):
                    text = tool_return_text(part)
                    if _is_mcp(tool_def):
                        self._mcp_failure(ctx, call, text, fixable_retries=True)
                    else:
                        layer.remember(call.tool_call_id, _RETRY, content=text, run=run)
            raise
        except ToolFailed as error:
            remember_hidden_retries(layer, call.tool_call_id, error.message, error, run=run)
            raise
        except _Mapped:
            raise
        except ModelRetry as error:  # from a tool hook: the framework charges the retry
            layer.remember(call.tool_call_id, _RETRY, content=error.message, run=run)
            raise

    def _ledger(self, ctx: RunContext[Any], layer: ToolErrorLayer, run: object) -> FailureLedger:
        """Without a snapshot (no ``for_run``): the ledger of the run's history so far."""
        return layer.replay(to_conversation(ctx.messages, self._cache).messages, run=run)[0]

    def _mcp_failure(
        self, ctx: RunContext[Any], call: ToolCallPart, text: str, *, fixable_retries: bool = False
    ) -> None:
        """An MCP error result (``isError``), classified from its text: a fixable one keeps
        the framework's retry (while there is one); every other becomes a failed result."""
        with fail_open("classifying an MCP error result", "ignored") as guard:
            layer, run = self._scope(ctx)
            message = Message(role="tool", content=text, is_error=True, name=call.tool_name, client="mcp")
            verdict = layer.inspect(message)
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
        if ctx.retries.get(call.tool_name, 0) < ctx.max_retries:
            self._remember_rejected(ctx, call, tool_def, error)
            raise error
        failure = self._failed(ctx, call, tool_def, error, "classifying an argument validation error")
        raise ToolFailed(failure.text) from error

    def _failed(
        self, ctx: RunContext[Any], call: ToolCallPart, tool_def: ToolDefinition, error: Exception, where: str
    ) -> Failure:
        """The failure shown for ``error``, remembered for the call; when toolerr fails
        (logged), ``error`` itself is raised: it propagates as without toolerr."""
        with fail_open(where, "it propagates"):
            layer, run = self._scope(ctx)
            failure = self._failure(layer, error, call, tool_def)
            layer.remember(call.tool_call_id, failure.verdict, content=failure.text, run=run)
            return failure
        raise error from None

    def _failure(
        self, layer: ToolErrorLayer, error: Exception, call: ToolCallPart, tool_def: ToolDefinition
    ) -> Failure:
        """A ``ModelRetry`` is the framework's fixable signal; any other error is classified,
        with the call's arguments and the tool's declared parameters."""
        if isinstance(error, ModelRetry):
            return Failure(clean_text(error.message, self.policy.max_error_chars), _RETRY)
        parameters = declared_parameters(tool_def)
        return failure_of(layer, error, tool=call.tool_name, arguments=call.args, parameters=parameters)

    def _remember_rejected(
        self,
        ctx: RunContext[Any],
        call: ToolCallPart,
        tool_def: ToolDefinition,
        error: ValidationError | ModelRetry,
    ) -> None:
        """The verdict of the exception object, for the ``retried`` result pydantic-ai builds
        from it: malformed JSON is as fixable on the first retry as past ``max_retries``."""
        with fail_open("classifying rejected tool arguments", "ignored"):
            # the framework's own builder of that result (not public API: imported here, so
            # that its absence in another pydantic-ai version only falls back to the text)
            from pydantic_ai._output import build_retried_tool_return

            content = tool_return_text(build_retried_tool_return(error, tool_name=call.tool_name))
            layer, run = self._scope(ctx)
            verdict = self._failure(layer, error, call, tool_def).verdict
            layer.remember(call.tool_call_id, verdict, content, run=run)

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
        failure = self._failed(ctx, call, tool_def, error, "classifying a tool exception")
        if failure.verdict.kind == "fixable" and ctx.retries.get(call.tool_name, 0) < ctx.max_retries:
            raise _Mapped(failure.text) from error
        raise ToolFailed(failure.text) from error


def declared_parameters(tool_def: ToolDefinition) -> dict[str, Any] | None:
    """The tool's declared JSON schema of its parameters, ``ToolDefinition.parameters_json_schema``:
    as the model is given it, a function tool's own dict (the same object at every call, so
    the core's reading of it is cached per tool), an MCP tool's ``inputSchema`` as listed
    (for what its call raises; an MCP error result is read from its text alone, without the
    call's arguments or this). ``None`` where there is none to read; never raises."""
    with fail_open("reading the tool's declared parameters", "the failure is classified without them"):
        schema = tool_def.parameters_json_schema
        return schema if isinstance(schema, dict) else None
    return None


def _is_mcp(tool_def: ToolDefinition) -> bool:
    """A tool of pydantic-ai's MCP toolset (its metadata carries the MCP annotations)."""
    metadata = tool_def.metadata
    return isinstance(metadata, Mapping) and "annotations" in metadata and "meta" in metadata
