"""ToolErrorServerMiddleware: toolerr inside a FastMCP server (the optional extra
``toolerr-mcp[fastmcp]``).

FastMCP turns a tool's exception into a ``ToolError`` whose text the client sees
(``Error calling tool 'X': ...``; with ``mask_error_details`` only ``Error calling tool
'X'``) and keeps the original as its ``__cause__``. This middleware classifies that
original object with the kit (beside the call's arguments and the tool's declared
parameters), answers with an ``isError`` result in form C1 (the text FastMCP would have
sent, then the kind's guidance) and the classification under
``_meta["toolerr"]``, keeps the failed-call ledger per client (FastMCP's session scope)
and, with ``loop_action="block"``, answers an identical repeat of a failed non-transient
call without running the tool. A success passes through as the very object the tool
returned.

Type-checked against FastMCP (the ``type: ignore`` comments are for an install without it).
"""

from __future__ import annotations

import itertools
import logging
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from fastmcp.exceptions import DisabledError, FastMCPError, NotFoundError, ToolError  # type: ignore[import-not-found,unused-ignore]
from fastmcp.exceptions import ValidationError as FastMCPValidationError  # type: ignore[import-not-found,unused-ignore]
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext  # type: ignore[import-not-found,unused-ignore]
from fastmcp.tools.base import ToolResult  # type: ignore[import-not-found,unused-ignore]
from toolerr import DetectionRecord, Policy, ToolErrorLayer
from toolerr.adapters import (
    ToolSafety,
    acall_with_retries,
    fail_open,
    failure_as,
    guard_call,
    safety_from_annotations,
)

from ._recovery import FORMS, META_KEY

if TYPE_CHECKING:
    import mcp_types as mt  # type: ignore[import-not-found,unused-ignore]
    from toolerr import PolicyOptions
    from typing_extensions import Unpack

logger = logging.getLogger("toolerr")

_WRAPPERS: tuple[type[BaseException], ...] = (ToolError, FastMCPValidationError)
"""FastMCP's own wrappers of a tool's exception (the original is their ``__cause__``)."""


def _body_error_type() -> type[BaseException] | None:
    """FastMCP's private wrapper of a pydantic error raised in a tool's body."""
    try:
        from fastmcp.tools.function_tool import _ToolBodyError  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # a later FastMCP without it: nothing to unwrap
        return None
    found: type[BaseException] = _ToolBodyError
    return found


_BODY_ERROR = _body_error_type()


def original_exception(error: BaseException) -> BaseException:
    """The exception the tool raised, under FastMCP's wrappers: a ``ToolError`` or
    ``ValidationError`` that FastMCP raised ``from`` it (a pydantic error raised in the
    tool's body is wrapped once more). A ``ToolError`` the tool raised itself (no cause) is
    the original.

    Args:
        error: What the rest of FastMCP's ``tools/call`` chain raised.

    Returns:
        The innermost cause through FastMCP's wrappers (``error`` when there is none).
    """
    wrappers = _WRAPPERS if _BODY_ERROR is None else (*_WRAPPERS, _BODY_ERROR)
    seen = 0
    while isinstance(error, wrappers) and error.__cause__ is not None and seen < 8:
        error = error.__cause__
        seen += 1
    return error


class _Request:
    """The run scope of one request whose client nothing identifies (held weakly by the
    layer: it ends with the request)."""

    __slots__ = ("__weakref__",)


class ToolErrorServerMiddleware(Middleware):  # type: ignore[misc,unused-ignore]
    """A FastMCP middleware that gives each failed tool call toolerr's guidance::

        mcp = FastMCP("my server")
        mcp.add_middleware(ToolErrorServerMiddleware())

    A tool's exception (FastMCP's ``ToolError``, argument ``ValidationError``, an unknown
    tool) becomes an ``isError`` result holding one text block: the text FastMCP sends
    without this middleware (masked with ``mask_error_details``) and, in form ``c1`` (the
    default), the kind's guidance on the next line; ``_meta["toolerr"]`` holds the
    classification (:meth:`toolerr.DetectionRecord.to_dict`). The kind is classified from
    the exception object the tool raised even when its text is masked, and nothing of a
    masked message is sent, in the content nor under ``_meta``. ``loop_action="block"``
    answers an identical repeat of a failed non-transient call without running the tool;
    ``"note"`` (the default) runs it and says so. A success (and a failure toolerr cannot
    handle) passes through unchanged. Errors of toolerr's own are logged (WARNING on logger
    ``toolerr``) and the tool's own result or error passes unchanged.

    The failed-call ledger is kept per client, by FastMCP's session scope: the session on a
    handshake-era connection, the authenticated user or (stdio, in-memory) the server
    process on a 2026-07-28 connection, where every request has a new session id. An
    unauthenticated 2026-07-28 HTTP request is its own scope (nothing ties it to the
    next). One middleware may serve several servers: scopes are kept per server.

    A tool's retry safety comes from its annotations (``readOnlyHint``, ``idempotentHint``,
    ``destructiveHint``), read at its first call on each server: a read timeout of a tool
    annotated read-only or idempotent is a temporary failure that may be retried (and
    ``auto_retry`` re-runs it). The ``tool_safety`` you give wins; a name that two servers
    annotate differently gets none.

    Args:
        policy: A :class:`toolerr.Policy` (default: form ``c1``, loop action ``note``).
        on_record: Called with each failure's :class:`toolerr.DetectionRecord`.
        **options: :class:`toolerr.Policy` fields (``form``: ``c1`` or ``c0``,
            ``loop_action``, ``retry_budget``, ``tool_safety``, ``error_detail``,
            ``auto_retry`` ...).

    Raises:
        ValueError: A form an MCP result cannot carry (``c2``, ``c3``, ``c4``, ``abstract``).
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        on_record: Callable[[DetectionRecord], None] | None = None,
        **options: Unpack[PolicyOptions],
    ) -> None:
        values: dict[str, Any] = dict(options)
        if policy is None:
            if values.get("form") is None:
                values["form"] = "c1"
            if values.get("loop_action") is None:
                values["loop_action"] = "note"
        values["client"] = "mcp"
        base = Policy.coerce(policy, **values)
        if any(form not in FORMS for form in base.forms.values()):
            raise ValueError(
                f"form {base.form!r} cannot be delivered by an MCP server: a tool result cannot add "
                "user turns. Use 'c1' (guidance appended to the result) or 'c0' (classification under "
                "_meta only); the C3 note is in _meta['toolerr']['note'] for clients that place it."
            )
        self._layer = ToolErrorLayer(base, on_record=on_record)
        self._ids = itertools.count(1)
        # retry safety from tool annotations: the policy as given (its tool_safety wins),
        # the safeties each tool name was annotated with on the servers seen (None: none),
        # and the names looked up per server
        self._given = base
        self._annotated: dict[str, set[ToolSafety | None]] = {}
        self._looked_up: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
        self._safety_lock = threading.Lock()

    @property
    def policy(self) -> Policy:
        """The policy every call is delivered under."""
        return self._layer.policy

    def reset(self) -> None:
        """Forget the failed calls of every client (calls in flight finish as they started)."""
        self._layer = ToolErrorLayer(self._layer.policy, on_record=self._layer.on_record)

    async def on_call_tool(
        self,
        context: MiddlewareContext[mt.CallToolRequestParams],
        call_next: CallNext[mt.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        """One ``tools/call`` through the layer (see the class docstring).

        Args:
            context: FastMCP's middleware context of the call.
            call_next: The rest of the chain (the tool).

        Returns:
            The tool's own result, or the failed result toolerr delivers.

        Raises:
            Exception: What the rest of the chain raised, when toolerr cannot turn it into
                a result (fail-open, or an error FastMCP sends as a protocol error).
            toolerr.ToolLoopError: Only with loop action ``stop``.
        """
        layer = self._layer  # one layer for the whole call, whatever reset() does meanwhile
        name = str(context.message.name)
        arguments = context.message.arguments
        args: dict[str, Any] = dict(arguments) if isinstance(arguments, Mapping) else {}
        call_id = f"toolerr-fastmcp-{next(self._ids)}"  # client ids are not unique: the layer's own
        await self._learn_safety(context, name, layer)
        run = self._run_of(context)
        blocked = guard_call(layer, name, args, call_id, run=run)  # ToolLoopError (stop) propagates
        if blocked is not None:
            answer = self._failed(layer, name, args, call_id, run, blocked.text, None, blocked.verdict)
            if answer is not None:
                return answer
        try:  # auto_retry: hidden reruns of a turned-away call, classified from the tool's own error
            result = await acall_with_retries(
                layer, name, lambda: call_next(context), unwrap=original_exception
            )
        except (FastMCPError, NotFoundError, DisabledError) as error:
            unknown = isinstance(error, (NotFoundError, DisabledError))
            shown = f"Unknown tool: {name!r}" if unknown else str(error)  # FastMCP's own texts
            parameters = (
                None
                if unknown or _asks_a_version(context.message)
                else await self._declared_parameters(context, name)
            )
            with fail_open("turning a failed tool call into a result", "the error passes") as turning:
                cause = original_exception(error)
                failure = failure_as(
                    layer, cause, shown, tool=name, arguments=args, parameters=parameters
                )  # with its hidden retries
                verdict = failure.verdict
            if turning.failed:
                raise
            answer = self._failed(layer, name, args, call_id, run, failure.text, cause, verdict)
            if answer is None:
                raise
            return answer
        with fail_open("recording a successful tool call", "it passes unchanged"):
            if not result.is_error:  # the ledger: a success clears the tool's failures
                layer.deliver_result(name, args, _text_of(result), is_error=False, call_id=call_id, run=run)
        return result

    def _failed(
        self,
        layer: ToolErrorLayer,
        name: str,
        args: dict[str, Any],
        call_id: str,
        run: object,
        text: str,
        exception: BaseException | None,
        verdict: Any,
    ) -> ToolResult | None:
        """The failed result to send (``None``: toolerr failed, the original goes on)."""
        delivery = layer.deliver_result(
            name, args, text, exception=exception, is_error=True, call_id=call_id, run=run, verdict=verdict
        )  # fails open; ToolLoopError (stop) propagates
        if not delivery.failed or delivery.error is not None:
            return None
        with fail_open("building a failed tool result", "the original passes unchanged"):
            return ToolResult(
                content=[_text_block(delivery.text)], is_error=True, meta={META_KEY: delivery.to_dict()}
            )
        return None

    async def _learn_safety(self, context: MiddlewareContext[Any], name: str, layer: ToolErrorLayer) -> None:
        """The called tool's retry safety from its annotations, read at its first call on
        its server and merged into the policy (the given ``tool_safety`` wins; a name two
        servers annotate differently gets none). Fails open (safety unchanged)."""
        if name in self._given.tool_safety:
            return
        with fail_open("reading the tool's annotations", "retry safety unchanged"):
            ctx = context.fastmcp_context
            server = getattr(ctx, "fastmcp", None) if ctx is not None else None
            if server is None:
                return
            with self._safety_lock:
                names = self._looked_up.setdefault(server, set())
                if name in names:
                    return
                names.add(name)
            tool = await server.get_tool(name)
            if tool is None:  # unknown (or hidden) here: FastMCP answers the call
                return
            safety = safety_from_annotations(getattr(tool, "annotations", None))
            with self._safety_lock:
                seen = self._annotated.setdefault(name, set())
                if safety in seen:
                    return
                seen.add(safety)
                declared: dict[str, ToolSafety] = {}
                for tool_name, kinds in self._annotated.items():
                    only = next(iter(kinds)) if len(kinds) == 1 else None
                    if only is not None:
                        declared[tool_name] = only
                policy = self._given.with_tool_safety(declared)
                # the call's layer, and the current one (reset() may have replaced it)
                layer.policy = policy
                self._layer.policy = policy

    async def _declared_parameters(
        self, context: MiddlewareContext[Any], name: str
    ) -> Mapping[str, Any] | None:
        """The called tool's declared parameters: the JSON schema its registration holds
        (``Tool.parameters``, the server's own dict), looked up in the server's registry as
        the calling client sees it. ``None`` when there is none; fails open."""
        with fail_open("reading the tool's declared parameters", "the failure is classified without them"):
            ctx = context.fastmcp_context
            server = getattr(ctx, "fastmcp", None) if ctx is not None else None
            if server is None:
                return None
            tool = await server.get_tool(name)
            schema = getattr(tool, "parameters", None)
            return schema if isinstance(schema, Mapping) else None
        return None

    def _run_of(self, context: MiddlewareContext[Any]) -> object:
        """The run scope of a call: FastMCP's session scope for its client, per server."""
        with fail_open("reading the FastMCP session scope", "the call is its own scope"):
            ctx = context.fastmcp_context
            if ctx is not None:
                scope_of = getattr(ctx, "_session_scope_key", None)  # what FastMCP's own state uses
                key = scope_of() if callable(scope_of) else ctx.session_id
                if isinstance(key, str):
                    return ("fastmcp", id(ctx.fastmcp), key)
        return _Request()


def _text_block(text: str) -> Any:
    from mcp.types import TextContent

    return TextContent(type="text", text=text)


def _text_of(result: ToolResult) -> list[dict[str, Any]]:
    """A result's text blocks as the neutral content the ledger reads."""
    blocks: list[dict[str, Any]] = []
    for block in result.content:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            blocks.append({"type": "text", "text": text})
    return blocks


def _asks_a_version(params: Any) -> bool:
    """Whether a call names the version of the tool it calls (FastMCP's
    ``_meta.fastmcp.version``): the registry's lookup by name gives the highest version,
    whose parameters may not be the called one's, so none are passed then."""
    meta = getattr(params, "meta", None)
    if meta is not None and not isinstance(meta, Mapping):
        meta = getattr(meta, "model_extra", None)
    fastmcp_meta = meta.get("fastmcp") if isinstance(meta, Mapping) else None
    return isinstance(fastmcp_meta, Mapping) and fastmcp_meta.get("version") is not None
