"""RecoveringSession: an ``mcp.ClientSession`` whose failed tool calls carry guidance."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from toolerr import DetectionRecord, Policy

from . import _compat
from ._recovery import TRANSPORT_ERRORS, CallRecovery

if TYPE_CHECKING:
    from mcp.types import CallToolResult
    from toolerr import PolicyOptions
    from typing_extensions import Unpack


ProgressCallback: TypeAlias = Callable[[float, float | None, str | None], Awaitable[None]]
"""The SDK's ``ProgressFnT`` (``mcp.shared.session`` in 1.x, ``mcp.shared.dispatcher`` in 2.x)."""


class RecoveringSession:
    """Wraps an ``mcp.ClientSession`` (or anything with its ``call_tool``); same ``call_tool``.

    ::

        async with stdio_client(params) as (read, write):
            async with RecoveringSession(ClientSession(read, write)) as session:
                await session.initialize()
                tools = await session.list_tools()
                result = await session.call_tool("search", {"query": "..."})

    A failed call (``is_error``, a JSON-RPC error such as -32601 or -32602, a transport
    failure or a timeout) returns a ``CallToolResult`` with ``is_error`` set, its original
    content, the guidance appended as a text block (form ``c1``; ``c0`` classifies only)
    and the classification under ``result.meta["toolerr"]`` (``toolerr.DetectionRecord.to_dict``:
    ``failed``, ``kind``, ``rule``, ``guidance``, ``loop``, ``note`` ...; ``note`` is the C3
    runtime note for clients that place it in a user turn themselves). A success is
    returned as the very object the session returned. The session is its own run scope.

    Retry safety comes from the tools' annotations seen in ``list_tools`` results
    (``readOnlyHint``, ``idempotentHint``, ``destructiveHint``), merged under the
    ``tool_safety`` you give. ``loop_action="block"`` answers an identical
    repeat of a failed non-transient call without reaching the server; ``"stop"`` raises
    :class:`toolerr.ToolLoopError`; ``"note"`` (the default) lets it run and says so in the result.
    Every other attribute (``initialize``, ``list_resources``, ``read_resource``,
    ``list_prompts``, notifications ...) is the wrapped session's own.

    ``catch``: the exceptions of ``call_tool`` that become failed results (default: the
    SDK's error type, timeouts, ``OSError``, closed or broken streams and invalid results).
    """

    def __init__(
        self,
        session: Any,
        policy: Policy | None = None,
        *,
        on_record: Callable[[DetectionRecord], None] | None = None,
        catch: tuple[type[BaseException], ...] = TRANSPORT_ERRORS,
        fetch_annotations: bool = True,
        **options: Unpack[PolicyOptions],
    ) -> None:
        if not callable(getattr(session, "call_tool", None)):
            raise TypeError(f"RecoveringSession wraps an mcp.ClientSession, got {type(session).__name__}")
        self.session = session
        self.recovery = CallRecovery(policy, on_record=on_record, catch=catch, **options)
        self._fetch_annotations = fetch_annotations

    @property
    def policy(self) -> Policy:
        return self.recovery.policy

    async def __aenter__(self) -> RecoveringSession:
        enter = getattr(self.session, "__aenter__", None)
        if enter is not None:
            await enter()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        leave = getattr(self.session, "__aexit__", None)
        if leave is None:
            return None
        result: bool | None = await leave(exc_type, exc_value, traceback)
        return result

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes this class does not define: the session's own.
        if name == "session":
            raise AttributeError(name)
        return getattr(self.session, name)

    async def list_tools(self, *args: Any, **kwargs: Any) -> Any:
        """The session's ``list_tools``; the tools' annotations set their retry safety."""
        result = await self.session.list_tools(*args, **kwargs)
        self.recovery.learn_tools(getattr(result, "tools", None) or ())
        return result

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        read_timeout_seconds: float | timedelta | None = None,
        progress_callback: ProgressCallback | None = None,
        **kwargs: Any,
    ) -> CallToolResult:
        """The session's ``call_tool`` through the layer (see the class docstring).

        ``read_timeout_seconds`` is passed on as given (``float`` in mcp 2.x; a number is
        also accepted with mcp 1.x, which takes a ``timedelta``)."""
        if isinstance(read_timeout_seconds, (int, float)) and not isinstance(read_timeout_seconds, bool):
            read_timeout_seconds = _compat.read_timeout(float(read_timeout_seconds))

        async def invoke() -> Any:
            return await self.session.call_tool(
                name, arguments, read_timeout_seconds, progress_callback, **kwargs
            )

        learn = self._fetch_annotations and not self.recovery.knows_tools
        result = await self.recovery.call(
            name, arguments, invoke, before_failure=self._learn_annotations if learn else None
        )
        return cast("CallToolResult", result)

    async def _learn_annotations(self) -> None:
        """Before classifying a failure: list the tools once if no listing was seen, so a
        timeout on a read-only tool can be called safe to retry."""
        if not self._fetch_annotations or self.recovery.knows_tools:
            return
        self._fetch_annotations = False  # once per session, whatever happens
        tools: list[Any] = []
        cursor: str | None = None
        for _ in range(_compat.MAX_PAGES):
            if cursor is None:
                page = await self.session.list_tools()
            else:
                page = await self.session.list_tools(params=_compat.paginated(cursor))
            tools.extend(getattr(page, "tools", None) or ())
            cursor = _compat.next_cursor(page)
            if cursor is None:
                break
        self.recovery.learn_tools(tools)
