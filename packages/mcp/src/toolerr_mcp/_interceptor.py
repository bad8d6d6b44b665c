"""ToolErrorInterceptor: toolerr as a langchain-mcp-adapters tool-call interceptor."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from toolerr import DetectionRecord, Policy

if TYPE_CHECKING:  # the optional extra `toolerr-mcp[langchain]` (absent: these are Any)
    from langchain_mcp_adapters.interceptors import (  # type: ignore[import-not-found,unused-ignore]
        MCPToolCallRequest,
        MCPToolCallResult,
    )

from ._recovery import TRANSPORT_ERRORS, CallRecovery, declared_parameters

if TYPE_CHECKING:
    from toolerr import PolicyOptions
    from typing_extensions import Unpack


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
    with ``loop_action="block"`` (the default, ``"note"``, runs it and says so). Results
    an inner interceptor turned into a ``ToolMessage`` or ``Command`` pass through.

    Verdicts and the failed-call ledger are kept per run: per LangGraph thread
    (``thread_id`` of the tool runtime's config), else per run (its ``run_id``), else per
    conversation (the id of its first message), so concurrent conversations sharing one
    interceptor never see each other's failures, whatever their call ids. Calls made
    outside a graph (no runtime) share one scope.
    If the agent also uses ``toolerr_langchain.ToolErrorMiddleware`` (which delivers the
    C3 note at the model call), give this interceptor ``form="c0"`` so the guidance is not
    given twice; it then classifies, records and blocks loops only.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        on_record: Callable[[DetectionRecord], None] | None = None,
        catch: tuple[type[BaseException], ...] = TRANSPORT_ERRORS,
        tools: Iterable[Any] = (),
        **options: Unpack[PolicyOptions],
    ) -> None:
        self._recovery = CallRecovery(policy, on_record=on_record, catch=catch, **options)
        self._names: set[str] = set()
        self.learn_tools(tools)

    @property
    def policy(self) -> Policy:
        return self._recovery.policy

    def learn_tools(self, tools: Iterable[Any]) -> None:
        """Retry safety from tools' MCP annotations and their declared parameters (their
        JSON schema, read when a call fails): LangChain tools from ``load_mcp_tools`` /
        ``MultiServerMCPClient.get_tools`` (annotations in their ``metadata``, the MCP
        ``inputSchema`` as their ``args_schema``) or MCP ``Tool`` objects."""
        described = [_Described(tool) for tool in tools]
        described = [tool for tool in described if tool.name]
        self._names.update(tool.name for tool in described)
        self._recovery.learn_tools(described)

    def reset(self) -> None:
        """Forget the failed calls of every run (the tools' retry safety is kept)."""
        self._recovery.reset()

    async def __call__(
        self,
        request: MCPToolCallRequest,
        handler: Callable[[MCPToolCallRequest], Awaitable[MCPToolCallResult]],
    ) -> MCPToolCallResult:
        recovery = self._recovery
        name = str(request.name)
        prefixed = f"{getattr(request, 'server_name', '')}_{name}"
        if name not in self._names and prefixed in self._names:
            name = prefixed  # the name the model knows the tool by (tool_name_prefix=True)

        async def invoke() -> MCPToolCallResult:
            return await handler(request)

        # The recovery numbers calls itself: model call ids are not unique across turns
        # (scripted and some local models reuse them), and verdicts are kept by id.
        result = await recovery.call(
            name, request.args, invoke, run=run_key(getattr(request, "runtime", None))
        )
        return cast("MCPToolCallResult", result)


class _Described:
    """A tool's name, MCP annotations and declared parameters, from an MCP ``Tool`` or a
    LangChain tool (langchain-mcp-adapters gives it the MCP ``inputSchema`` dict as its
    ``args_schema``; a pydantic model there is no MCP tool's: none)."""

    __slots__ = ("annotations", "input_schema", "name")

    def __init__(self, tool: Any) -> None:
        name = getattr(tool, "name", None)
        self.name: str = name if isinstance(name, str) else ""
        annotations = getattr(tool, "annotations", None)
        if annotations is None:
            metadata = getattr(tool, "metadata", None)
            annotations = metadata if isinstance(metadata, Mapping) else None
        self.annotations = annotations
        schema = declared_parameters(tool)
        if schema is None:
            given = getattr(tool, "args_schema", None)
            schema = given if isinstance(given, Mapping) else None
        self.input_schema: Mapping[str, Any] | None = schema


def run_key(runtime: Any) -> tuple[str, str] | None:
    """The run scope of a tool call from its LangGraph tool runtime: its thread, else its
    run, else its conversation (the id LangGraph gave its first message); ``None`` outside
    a graph."""
    config = getattr(runtime, "config", None)
    if isinstance(config, Mapping):
        configurable = config.get("configurable")
        if isinstance(configurable, Mapping) and configurable.get("thread_id") is not None:
            return ("thread", str(configurable["thread_id"]))
        if config.get("run_id") is not None:
            return ("run", str(config["run_id"]))
    run_id = getattr(getattr(runtime, "execution_info", None), "run_id", None)
    if run_id is not None:
        return ("run", str(run_id))
    state = getattr(runtime, "state", None)
    messages = state.get("messages") if isinstance(state, Mapping) else getattr(state, "messages", None)
    if isinstance(messages, list) and messages:
        first = getattr(messages[0], "id", None)
        if isinstance(first, str) and first:
            return ("conversation", first)
    return None
