"""ToolErrorInterceptor: toolerr as a langchain-mcp-adapters tool-call interceptor."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from toolerr import DetectionRecord, Policy

if TYPE_CHECKING:  # the optional extra `toolerr-mcp[langchain]` (absent: these are Any)
    from langchain_mcp_adapters.interceptors import (  # type: ignore[import-not-found,unused-ignore]
        MCPToolCallRequest,
        MCPToolCallResult,
    )

from ._recovery import TRANSPORT_ERRORS, CallRecovery

_MAX_THREADS = 256


class ToolErrorInterceptor:
    """A ``ToolCallInterceptor`` for langchain-mcp-adapters (mcp 1.x)::

        interceptor = ToolErrorInterceptor()
        client = MultiServerMCPClient(connections, tool_interceptors=[interceptor])
        tools = await client.get_tools()
        interceptor.learn_tools(tools)  # retry safety from the tools' MCP annotations

    Each MCP tool call goes through the toolerr layer as with
    :class:`toolerr_mcp.RecoveringSession`: a failed call (``isError``, a JSON-RPC error,
    a transport failure or a timeout) returns a ``CallToolResult`` with ``isError`` set,
    its original content and the guidance appended as a text block, so the agent gets a
    ``ToolMessage`` with ``status="error"`` instead of a crashed run; an identical repeat of
    a failed non-transient call is answered without reaching the server
    (``loop_action="block"``, the default). Results an inner interceptor turned into a
    ``ToolMessage`` or ``Command`` pass through.

    The failed-call ledger is kept per LangGraph thread (``thread_id`` of the tool
    runtime's config), so concurrent conversations do not see each other's failures.
    If the agent also uses ``toolerr_langchain.ToolErrorMiddleware`` (which delivers the
    C3 note at the model call), give this interceptor ``form="c0"`` so the guidance is not
    given twice; it then classifies, records and blocks loops only.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        form: str | None = None,
        retry_budget: int | None = None,
        loop_action: str | None = None,
        tool_safety: dict[str, str] | None = None,
        max_error_chars: int | None = None,
        on_record: Callable[[DetectionRecord], None] | None = None,
        catch: tuple[type[BaseException], ...] = TRANSPORT_ERRORS,
        tools: Iterable[Any] = (),
    ) -> None:
        options: dict[str, Any] = {
            "form": form,
            "retry_budget": retry_budget,
            "loop_action": loop_action,
            "tool_safety": tool_safety,
            "max_error_chars": max_error_chars,
        }
        self._policy = policy
        self._on_record = on_record
        self._catch = catch
        self._options = options
        self._template = self._make()  # validates the options now, not at the first call
        self._recoveries: OrderedDict[str, CallRecovery] = OrderedDict()
        self._lock = threading.Lock()
        self._tools: list[Any] = []
        self._names: set[str] = set()
        self.learn_tools(tools)

    def _make(self) -> CallRecovery:
        return CallRecovery(self._policy, on_record=self._on_record, catch=self._catch, **self._options)

    @property
    def policy(self) -> Policy:
        return self._template.policy

    def learn_tools(self, tools: Iterable[Any]) -> None:
        """Retry safety from tools' MCP annotations: LangChain tools from
        ``load_mcp_tools`` / ``MultiServerMCPClient.get_tools`` (annotations in their
        ``metadata``) or MCP ``Tool`` objects."""
        described = [_Described(tool) for tool in tools]
        described = [tool for tool in described if tool.name]
        with self._lock:
            self._tools.extend(described)
            self._names.update(tool.name for tool in described)
            recoveries = [self._template, *self._recoveries.values()]
        for recovery in recoveries:
            recovery.learn_tools(described)

    def _recovery(self, runtime: Any) -> CallRecovery:
        key = _thread_key(runtime)
        with self._lock:
            recovery = self._recoveries.get(key)
            if recovery is not None:
                self._recoveries.move_to_end(key)
                return recovery
            recovery = self._make()
            tools = list(self._tools)
            self._recoveries[key] = recovery
            while len(self._recoveries) > _MAX_THREADS:
                self._recoveries.popitem(last=False)
        if tools:
            recovery.learn_tools(tools)
        return recovery

    def reset(self) -> None:
        """Forget the failed calls of every thread."""
        with self._lock:
            self._recoveries.clear()

    async def __call__(
        self,
        request: MCPToolCallRequest,
        handler: Callable[[MCPToolCallRequest], Awaitable[MCPToolCallResult]],
    ) -> MCPToolCallResult:
        runtime = getattr(request, "runtime", None)
        recovery = self._recovery(runtime)
        name = str(request.name)
        prefixed = f"{getattr(request, 'server_name', '')}_{name}"
        if name not in self._names and prefixed in self._names:
            name = prefixed  # the name the model knows the tool by (tool_name_prefix=True)

        async def invoke() -> MCPToolCallResult:
            return await handler(request)

        # The recovery numbers calls itself: model call ids are not unique across turns
        # (scripted and some local models reuse them), and verdicts are kept by id.
        return cast("MCPToolCallResult", await recovery.call(name, request.args, invoke))


class _Described:
    """A tool's name and MCP annotations, from an MCP ``Tool`` or a LangChain tool."""

    __slots__ = ("annotations", "name")

    def __init__(self, tool: Any) -> None:
        name = getattr(tool, "name", None)
        self.name: str = name if isinstance(name, str) else ""
        annotations = getattr(tool, "annotations", None)
        if annotations is None:
            metadata = getattr(tool, "metadata", None)
            annotations = metadata if isinstance(metadata, Mapping) else None
        self.annotations = annotations


def _thread_key(runtime: Any) -> str:
    config = getattr(runtime, "config", None)
    if isinstance(config, Mapping):
        configurable = config.get("configurable")
        if isinstance(configurable, Mapping):
            thread = configurable.get("thread_id")
            if thread is not None:
                return f"thread:{thread}"
    return "default"
