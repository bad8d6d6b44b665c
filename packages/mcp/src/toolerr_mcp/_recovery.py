"""One MCP conversation's tool calls through the toolerr layer.

:class:`CallRecovery` is what all three entry points share: :class:`RecoveringSession`,
:class:`ToolErrorInterceptor` and the proxy each hand it a call (tool name, arguments and
a coroutine that performs it) and get back the ``CallToolResult`` to give the client.

* A success passes through: the very same result object.
* A failure (``is_error``, a JSON-RPC error, a transport failure, a timeout) comes back
  as a ``CallToolResult`` with ``is_error`` set, the original content kept, the guidance
  appended as a text block (form C1: an MCP server cannot add user turns) and the
  classification under ``_meta["toolerr"]``, with the C3 runtime note for clients that
  can place it in a user turn themselves.
* With loop action ``block`` an identical repeat of a failed non-transient call is
  answered without performing it; with ``stop`` it raises :class:`toolerr.ToolLoopError`.
* A failure is classified with the call's arguments and the tool's declared parameters
  (its ``inputSchema``, remembered by name from the tool listings the entry point sees).

The adapter holds no rules: detection, classification, guidance, notes, the failed-call
ledger and loop decisions all come from the adapter kit (``guard_call`` before a call,
``failure_as`` for an exception, ``fail_open``) and
:meth:`toolerr.ToolErrorLayer.deliver_result`, in the run scope of the conversation (the
recovery's own for a session and the proxy, one per LangGraph thread or run for the
interceptor).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

import anyio
from pydantic import ValidationError
from toolerr import DetectionRecord, Policy, ToolErrorLayer, Verdict
from toolerr.adapters import (
    ResultFailure,
    acall_with_result_retries,
    fail_open,
    failure_as,
    guard_call,
    hidden_retries_of,
    safety_from_annotations,
    shown_failure,
)

from . import _compat
from ._convert import describe_exception, evidence, neutral_content

logger = logging.getLogger("toolerr")

META_KEY = "toolerr"
"""The key under a result's ``_meta`` that holds toolerr's classification."""

FORMS = ("c0", "c1")
"""The forms an MCP tool result can carry: C0 (classify only) and C1 (guidance appended).
The note of form C3 is given under ``_meta`` for clients that place it themselves."""

TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (
    _compat.MCP_ERROR,
    TimeoutError,
    OSError,
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    ValidationError,
)
"""Exceptions of a call that become failed results: JSON-RPC error responses, read
timeouts and closed connections (the SDK's error type), broken pipes and streams, and a
result that does not validate (a misbehaving server)."""

_ACTIONABLE = ("transient", "fixable", "unrecoverable")

BEFORE_FAILURE_TIMEOUT = 5.0
"""Seconds a session may spend fetching tool annotations before classifying a failure."""

Invoke = Callable[[], Awaitable[Any]]


class CallRecovery:
    """The toolerr layer applied to the tool calls of one MCP conversation.

    Not a public class: build a :class:`toolerr_mcp.RecoveringSession`,
    :class:`toolerr_mcp.ToolErrorInterceptor` or run the proxy. ``options`` are
    :class:`toolerr.Policy` fields (``form``, ``retry_budget``, ``loop_action``,
    ``tool_safety``, ``max_error_chars``).
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        on_record: Callable[[DetectionRecord], None] | None = None,
        catch: tuple[type[BaseException], ...] = TRANSPORT_ERRORS,
        **options: Any,
    ) -> None:
        if policy is None:  # MCP's defaults: guidance in the result, loops noted (as everywhere)
            if options.get("form") is None:
                options["form"] = "c1"
            if options.get("loop_action") is None:
                options["loop_action"] = "note"
        options["client"] = "mcp"
        base = Policy.coerce(policy, **options)
        if any(form not in FORMS for form in base.forms.values()):  # one form, or one per kind
            raise ValueError(
                f"form {base.form!r} cannot be delivered by MCP: a tool result cannot add user turns. "
                "Use 'c1' (guidance appended to the result) or 'c0' (classification under _meta only); "
                "the C3 note is in _meta['toolerr']['note'] for clients that place it themselves."
            )
        self._layer = ToolErrorLayer(base, on_record=on_record)
        self._catch = catch
        self._ids = itertools.count(1)
        self._safety_seen = False
        # each listed tool's declared parameters (its inputSchema, the listing's own dict);
        # a name listed with two different schemas gets none
        self._parameters: dict[str, Mapping[str, Any]] = {}
        self._clashing: set[str] = set()
        self._parameters_lock = threading.Lock()

    @property
    def policy(self) -> Policy:
        return self._layer.policy

    @property
    def knows_tools(self) -> bool:
        """Whether a tool listing has been seen (tool safety comes from its annotations)."""
        return self._safety_seen

    # -- tool safety -----------------------------------------------------------------

    def learn_tools(self, tools: Iterable[Any]) -> None:
        """Tool safety from the annotations of listed tools (``readOnlyHint``,
        ``idempotentHint``, ``destructiveHint``); safety the user declared wins. Each
        tool's declared parameters (``inputSchema``) are kept by name for classifying its
        failures; a name listed with two different schemas (two servers behind one
        interceptor, a tool whose parameters changed) gets none from then on."""
        learned: dict[str, Any] = {}
        declared: dict[str, Mapping[str, Any]] = {}
        with fail_open("reading tool annotations", "retry safety unchanged") as reading:
            for tool in tools:
                name = getattr(tool, "name", None)
                if not isinstance(name, str):
                    continue
                schema = declared_parameters(tool)
                if schema is not None:
                    declared[name] = schema
                safety = safety_from_annotations(getattr(tool, "annotations", None))
                if safety is not None:
                    learned[name] = safety
        with fail_open("keeping tools' declared parameters", "their failures are read without them"):
            self._keep_parameters(declared)
        if reading.failed:
            return
        self._safety_seen = True
        if learned:  # the safety the user declared wins (``Policy.with_tool_safety``)
            self._layer.policy = self._layer.policy.with_tool_safety(learned)

    def _keep_parameters(self, declared: Mapping[str, Mapping[str, Any]]) -> None:
        with self._parameters_lock:
            for name, schema in declared.items():
                if name in self._clashing:
                    continue
                known = self._parameters.get(name)
                if known is not None and known is not schema and known != schema:
                    # two listings declare this name differently (two servers behind one
                    # interceptor, or a tool changed): which one a call meant is unknown
                    self._clashing.add(name)
                    del self._parameters[name]
                else:
                    self._parameters[name] = schema

    def parameters_of(self, name: str) -> Mapping[str, Any] | None:
        """The declared parameters (JSON schema) of a listed tool, ``None`` when unknown."""
        return self._parameters.get(name)

    def reset(self) -> None:
        """Forget the failed calls of every run scope; the policy (with the tool safety and
        the declared parameters learned so far) is kept. Calls in flight finish on the
        layer they started with."""
        self._layer = ToolErrorLayer(self._layer.policy, on_record=self._layer.on_record)

    # -- calls -----------------------------------------------------------------------

    def new_call_id(self) -> str:
        return f"toolerr-mcp-{next(self._ids)}"

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        invoke: Invoke,
        *,
        call_id: str | None = None,
        before_failure: Callable[[], Awaitable[None]] | None = None,
        run: object | None = None,
    ) -> Any:
        """Perform one call through the layer and return what the client should get.

        Args:
            name: the tool's name (as the model knows it).
            arguments: the call's arguments.
            invoke: performs the call and returns a ``CallToolResult`` (anything else is
                passed through untouched). Exceptions in ``catch`` become failed results;
                others propagate.
            call_id: the call's id (default: a new one; model call ids are not unique).
            before_failure: runs before a failure is classified and delivered (the session
                uses it to list the tools when it has seen no listing: their annotations and
                declared parameters), at most ``BEFORE_FAILURE_TIMEOUT``.
            run: the run scope of the conversation (``None``: this recovery's own).

        Returns:
            The result to give the client: a success as it came, a failure annotated.

        Raises:
            toolerr.ToolLoopError: only with loop action ``stop``.
        """
        layer = self._layer  # one layer for the whole call, whatever reset() does meanwhile
        call_id = call_id or self.new_call_id()
        args: dict[str, Any] = dict(arguments) if isinstance(arguments, Mapping) else {}
        blocked = guard_call(layer, name, args, call_id, run=run)  # ToolLoopError (stop) propagates
        exception: BaseException | None = None
        verdict: Verdict | None = None
        if blocked is not None:
            result: Any = _compat.error_result(blocked.text)
            verdict = blocked.verdict
        else:
            try:
                if layer.policy.auto_retry:
                    result, verdict = await self._with_retries(layer, name, args, invoke, call_id, run)
                else:
                    result = await invoke()
            except self._catch as exc:
                if before_failure is not None:  # the tools listed first: their declared parameters
                    await _before_failure(before_failure)
                    before_failure = None
                with fail_open("turning a failed call into a result", "the error propagates") as turning:
                    exception = evidence(exc)
                    failure = failure_as(
                        layer,
                        exception,
                        describe_exception(exception),
                        tool=name,
                        arguments=args,
                        parameters=self.parameters_of(name),
                    )
                if turning.failed:
                    raise
                result, verdict = _compat.error_result(failure.text), failure.verdict
        if not isinstance(result, _compat.CallToolResult):
            return result
        return await self._deliver(
            layer, name, args, call_id, result, exception, verdict, before_failure, run
        )

    async def _with_retries(
        self,
        layer: ToolErrorLayer,
        name: str,
        args: dict[str, Any],
        invoke: Invoke,
        call_id: str,
        run: object | None,
    ) -> tuple[Any, Verdict | None]:
        """The call run as ``auto_retry`` allows (:func:`toolerr.adapters.acall_with_result_retries`):
        a transient failure that was not executed, raised (a transport error) or returned (an
        ``isError`` result: a server tool's upstream answered 503), is re-run hidden; one of
        unknown outcome only for a tool declared read-only or idempotent. Each attempt's
        failed result is classified once; the last one's verdict comes back with the hidden
        retries before it, and what the last attempt raised is raised (with them kept)."""

        async def attempt() -> _Attempt:
            try:
                result = await invoke()
            except self._catch as exc:
                error = evidence(exc)
                return _Attempt(None, None, error, error)
            verdict = _failed_verdict(layer, name, result, call_id, run, args, self.parameters_of(name))
            return _Attempt(result, verdict, ResultFailure(verdict) if verdict is not None else None)

        done = await acall_with_result_retries(layer, name, attempt, lambda tried: tried.error)
        if done.raised is not None:
            raise done.raised  # caught by call(): its hidden retries are kept with it
        verdict = done.verdict
        if verdict is not None and done.error is not None:
            hidden = hidden_retries_of(done.error)
            if hidden:
                verdict = dataclasses.replace(verdict, hidden_retries=hidden)
        return done.result, verdict

    async def _deliver(
        self,
        layer: ToolErrorLayer,
        name: str,
        args: dict[str, Any],
        call_id: str,
        result: Any,
        exception: BaseException | None,
        verdict: Verdict | None,
        before_failure: Callable[[], Awaitable[None]] | None,
        run: object | None,
    ) -> Any:
        with fail_open("inspecting a tool result") as inspecting:
            flag = _compat.is_error(result)
            content = _result_content(result, bool(flag))

            def classify(parameters: Mapping[str, Any] | None) -> Verdict:
                return layer.inspect_tool_result(
                    name,
                    content,
                    exception=exception,
                    is_error=flag,
                    call_id=call_id,
                    run=run,
                    arguments=args,
                    parameters=parameters,
                )

            parameters = self.parameters_of(name)
            if verdict is None:  # classified here with the tool's declared parameters, when known
                verdict = classify(parameters)
            if before_failure is not None and verdict.failed:
                await _before_failure(before_failure)
                if parameters is None and (listed := self.parameters_of(name)) is not None:
                    # the tools were listed just now; an auto_retry verdict's hidden retries stay
                    verdict = dataclasses.replace(classify(listed), hidden_retries=verdict.hidden_retries)
        if inspecting.failed:
            return result
        delivery = layer.deliver_result(
            name, args, content, exception=exception, is_error=flag, call_id=call_id, run=run, verdict=verdict
        )  # fails open; ToolLoopError (stop) propagates
        if not delivery.failed or delivery.error is not None:
            return result
        with fail_open(
            "annotating a failed tool result", "it passes unchanged (toolerr could not annotate it)"
        ):
            append = [_compat.text_block(delivery.suffix)] if delivery.changed and delivery.suffix else []
            shown = None
            if layer.policy.error_detail != "full" and exception is None:  # the server's words
                text = shown_failure(layer, None, delivery.verdict, text=delivery.text)
                shown = [_compat.text_block(text)]
            # The error flag is set for every failure with evidence beyond the text; a result the
            # server flagged as a success keeps its flag when the text alone says nothing certain.
            flagged = bool(flag) or exception is not None or delivery.kind in _ACTIONABLE
            meta = {META_KEY: delivery.to_dict()}
            return _compat.result_with(
                result, append=append, failed=True if flagged else None, meta=meta, content=shown
            )
        return result


@dataclasses.dataclass
class _Attempt:
    """One attempt of a call: its result and the verdict of a failed one, or what it raised."""

    result: Any
    verdict: Verdict | None
    error: BaseException | None
    """What decides a hidden retry: a :class:`toolerr.adapters.ResultFailure` of the
    verdict, the exception raised (``None``: not failed)."""
    raised: BaseException | None = None


def _failed_verdict(
    layer: ToolErrorLayer,
    name: str,
    result: Any,
    call_id: str,
    run: object | None,
    args: dict[str, Any],
    parameters: Mapping[str, Any] | None,
) -> Verdict | None:
    """The verdict of a ``CallToolResult`` the server flagged ``isError`` when it failed
    (``None`` for anything else, or when toolerr cannot tell: not re-run), read with the
    call's arguments and the tool's declared parameters."""
    if not isinstance(result, _compat.CallToolResult):
        return None
    with fail_open("classifying a failed tool result", "it is not re-run hidden"):
        if not _compat.is_error(result):
            return None
        content = _result_content(result, True)
        verdict = layer.inspect_tool_result(
            name, content, is_error=True, call_id=call_id, run=run, arguments=args, parameters=parameters
        )
        return verdict if verdict.failed else None
    return None


def declared_parameters(tool: Any) -> Mapping[str, Any] | None:
    """A listed tool's declared parameters: the JSON schema dict it holds (an MCP ``Tool``'s
    ``inputSchema``, either SDK major; the ``input_schema`` of the interceptor's view of a
    LangChain tool), ``None`` when it has none. Never raises (an unreadable tool: ``None``)."""
    schema: Any = None
    with fail_open("reading a tool's declared parameters", "its failures are classified without them"):
        schema = _compat.field(tool, "input_schema", "inputSchema")
    return schema if isinstance(schema, Mapping) else None


def _result_content(result: Any, flag: bool) -> list[dict[str, Any]]:
    """A result's content as neutral blocks; a failure told in structured content only has
    it as its error text."""
    content = neutral_content(result.content, resource_text=flag)
    structured = _compat.structured_content(result)
    if flag and structured is not None and not any(b["type"] == "text" for b in content):
        content.append({"type": "text", "text": json.dumps(structured, ensure_ascii=False)})
    return content


async def _before_failure(before_failure: Callable[[], Awaitable[None]]) -> None:
    with fail_open("fetching tool annotations", "the failure is delivered without them"):
        try:
            with anyio.move_on_after(BEFORE_FAILURE_TIMEOUT):
                await before_failure()
        except TRANSPORT_ERRORS:  # the server's failure (it closed, it cannot list): expected
            logger.debug("toolerr: fetching tool annotations failed", exc_info=True)
