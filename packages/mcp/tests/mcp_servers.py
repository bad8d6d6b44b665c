"""Real MCP test servers for both SDK majors (MCPServer in 2.x, FastMCP in 1.x).

Run in-process (:func:`connect`) or over stdio as a subprocess
(``python mcp_servers.py [MODE]``; see :func:`main`).
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import anyio
from mcp import ClientSession, types
from pydantic import BaseModel, Field

try:  # mcp 2.x
    from mcp.server.mcpserver import MCPServer as ServerClass
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.shared.exceptions import MCPError

    MAJOR = 2

    def rpc_error(code: int, message: str) -> Exception:
        return MCPError(code, message)

except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as ServerClass  # type: ignore[no-redef]
    from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]
    from mcp.shared.exceptions import McpError

    MAJOR = 1

    def rpc_error(code: int, message: str) -> Exception:
        return McpError(types.ErrorData(code=code, message=message))


HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.abspath(__file__)
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 32).decode()

TRANSIENT_TEXT = "503 Service Unavailable: the search index is being rebuilt"
FIXABLE_TEXT = "Invalid arguments: unit must be 'celsius' or 'fahrenheit', got 'kelvins'"
UNRECOVERABLE_TEXT = "Permission denied: /etc/passwd is read-only"
SECRET = "database password is hunter2"
LITERAL_TEXT = "invalid literal for int() with base 10: 'forty'"
"""What ``run_saved_query`` and ``run_sql`` fail with: fixable by its words alone, ambiguous
for a query the tool's schema declares a stored one ("Name of a saved query")."""
LOG_TEXT = (
    'Traceback (most recent call last):\n  File "worker.py", line 12, in <module>\n'
    "ConnectionRefusedError: [Errno 111] Connection refused\n"
)


def annotations(**hints: bool) -> types.ToolAnnotations:
    """Tool annotations by their wire names (readOnlyHint ...), either major."""
    return types.ToolAnnotations.model_validate(hints)


class Forecast(BaseModel):
    city: str
    celsius: float


def make_server(name: str = "toolerr-test") -> Any:
    """The test server: one tool per kind of outcome."""
    server = ServerClass(name)
    calls: Counter[str] = Counter()

    def count(tool: str) -> None:
        calls[tool] += 1

    @server.tool(annotations=annotations(readOnlyHint=True))
    def echo(text: str) -> str:
        """Echo the text back."""
        count("echo")
        return text

    @server.tool(annotations=annotations(readOnlyHint=True))
    def search(query: str) -> str:
        """Search (the index is down: a temporary failure)."""
        count("search")
        raise ToolError(TRANSIENT_TEXT)

    @server.tool()
    def convert(value: float, unit: str) -> str:
        """Convert a temperature (fails for an unknown unit: fixable)."""
        count("convert")
        if unit not in ("celsius", "fahrenheit"):
            raise ToolError(FIXABLE_TEXT)
        return f"{value} {unit}"

    @server.tool(annotations=annotations(readOnlyHint=False, destructiveHint=True))
    def write_file(path: str, text: str) -> str:
        """Write a file (always refused: unrecoverable)."""
        count("write_file")
        raise ToolError(UNRECOVERABLE_TEXT)

    @server.tool()
    def crash() -> str:
        """Raise an unexpected exception (the SDK withholds its text)."""
        count("crash")
        raise RuntimeError(SECRET)

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers (invalid arguments are rejected by the SDK)."""
        count("add")
        return a + b

    @server.tool()
    def fail_rpc(code: int) -> str:
        """Answer with a JSON-RPC error response of the given code."""
        count("fail_rpc")
        raise rpc_error(
            code, "Invalid params: 'code' is not accepted" if code == -32602 else "Method not found"
        )

    @server.tool(annotations=annotations(readOnlyHint=True))
    async def slow(seconds: float) -> str:
        """Sleep, then answer (hangs past a short read timeout)."""
        count("slow")
        await anyio.sleep(seconds)
        return "done"

    @server.tool(annotations=annotations(readOnlyHint=False, idempotentHint=False))
    async def charge(amount: float, seconds: float = 0.0) -> str:
        """A write whose outcome is unknown on a timeout."""
        count("charge")
        await anyio.sleep(seconds)
        return f"charged {amount}"

    @server.tool()
    def die(code: int = 3) -> str:
        """Exit the server process in the middle of the call."""
        sys.stderr.write("test server: exiting in the middle of a call\n")
        sys.stderr.flush()
        os._exit(code)

    @server.tool(structured_output=False)
    def image() -> list[Any]:
        """An image and an embedded resource."""
        count("image")
        return [
            types.ImageContent(type="image", data=PNG, mimeType="image/png"),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(
                    uri="file:///tmp/report.txt", text="report", mimeType="text/plain"
                ),
            ),
        ]

    @server.tool(structured_output=False, annotations=annotations(readOnlyHint=True))
    def read_log(path: str) -> list[Any]:
        """A file read as an embedded resource: a log whose first line starts like an error."""
        count("read_log")
        return [
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(
                    uri=f"file://{path}", text=LOG_TEXT, mimeType="text/plain"
                ),
            )
        ]

    @server.tool(annotations=annotations(readOnlyHint=True))
    def lookup(key: str) -> types.CallToolResult:
        """A failure told in structured content only (no text block: the TypeScript SDK's
        servers may answer so)."""
        count("lookup")
        return types.CallToolResult.model_validate(
            {"content": [], "structuredContent": {"error": TRANSIENT_TEXT, "key": key}, "isError": True}
        )

    @server.tool()
    def image_error() -> str:
        """A failure whose only content is an image."""
        count("image_error")
        raise ToolError("Error: rendering failed: 503 Service Unavailable")

    @server.tool()
    def forecast(city: str) -> Forecast:
        """Structured content."""
        count("forecast")
        return Forecast(city=city, celsius=21.5)

    @server.tool()
    def huge(size: int) -> str:
        """A very long text."""
        count("huge")
        return "x" * size

    @server.tool()
    def huge_error(size: int) -> str:
        """A very long error text."""
        count("huge_error")
        raise ToolError("Invalid arguments: " + "y" * size)

    @server.tool()
    def note(name: str) -> str:
        """A success whose text starts like an error."""
        count("note")
        return f"Error: there is no note named {name!r}"

    @server.tool()
    def run_saved_query(
        query: Annotated[str, Field(description="Name of a saved query")], as_rpc_error: bool = False
    ) -> str:
        """Run a saved query (a value it reads does not parse; ``as_rpc_error``: told in a
        JSON-RPC error response instead of an is_error result)."""
        count("run_saved_query")
        raise rpc_error(-32603, LITERAL_TEXT) if as_rpc_error else ToolError(LITERAL_TEXT)

    @server.tool()
    def run_sql(
        query: Annotated[str, Field(description="SQL query to run")], as_rpc_error: bool = False
    ) -> str:
        """Run a SQL query: the same failure, where the query is the value the model wrote."""
        count("run_sql")
        raise rpc_error(-32603, LITERAL_TEXT) if as_rpc_error else ToolError(LITERAL_TEXT)

    @server.tool()
    def stats() -> str:
        """How many times each tool ran (to check that blocked calls never reached the server)."""
        return json.dumps(dict(calls), sort_keys=True)

    @server.tool()
    def pid() -> int:
        """This server's process id."""
        return os.getpid()

    @server.resource("memo://greeting")
    def greeting() -> str:
        return "hello"

    @server.prompt()
    def ask(topic: str) -> str:
        return f"Tell me about {topic}"

    server.calls = calls  # type: ignore[attr-defined]
    if MAJOR == 1:
        _rpc_errors_for_fastmcp(server)
    return server


def _rpc_errors_for_fastmcp(server: Any) -> None:
    """FastMCP (1.x) turns every exception of a tool into an is_error result; a JSON-RPC
    error response needs the low-level handler to raise it."""
    low = server._mcp_server
    original = low.request_handlers[types.CallToolRequest]

    async def handler(request: Any) -> Any:
        name, arguments = request.params.name, request.params.arguments or {}
        if name == "fail_rpc":
            server.calls["fail_rpc"] += 1
            code = int(arguments.get("code", -32602))
            raise rpc_error(
                code, "Invalid params: 'code' is not accepted" if code == -32602 else "Method not found"
            )
        if name in ("run_saved_query", "run_sql") and arguments.get("as_rpc_error"):
            server.calls[name] += 1
            raise rpc_error(-32603, LITERAL_TEXT)
        return await original(request)

    low.request_handlers[types.CallToolRequest] = handler


def lowlevel(server: Any) -> Any:
    return getattr(server, "_lowlevel_server", None) or server._mcp_server


@asynccontextmanager
async def connect(server: Any, *, read_timeout: float | None = None) -> AsyncIterator[ClientSession]:
    """A ClientSession connected in-process to ``server`` over memory streams."""
    from mcp.shared.memory import create_client_server_memory_streams

    low = lowlevel(server)
    kwargs: dict[str, Any] = {}
    if read_timeout is not None:
        from datetime import timedelta

        kwargs["read_timeout_seconds"] = read_timeout if MAJOR >= 2 else timedelta(seconds=read_timeout)
    async with (
        create_client_server_memory_streams() as (client_streams, server_streams),
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(
            lambda: low.run(server_streams[0], server_streams[1], low.create_initialization_options())
        )
        async with ClientSession(client_streams[0], client_streams[1], **kwargs) as session:
            await session.initialize()
            yield session
        tg.cancel_scope.cancel()


def stdio_params(*args: str) -> Any:
    from mcp.client.stdio import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=[SCRIPT, *args], env=dict(os.environ))


def main(argv: list[str]) -> None:
    """Modes: ``serve`` (default), ``exit-at-start``, ``hang-at-start``, ``once`` (exits at
    the first start if the flag file given as the next argument exists)."""
    mode = argv[0] if argv else "serve"
    if mode == "exit-at-start":
        sys.stderr.write("test server: cannot start (missing configuration)\n")
        sys.exit(2)
    if mode == "hang-at-start":
        time.sleep(3600)
    if mode == "fail-if-flag":
        flag = argv[1]
        if os.path.exists(flag):
            os.remove(flag)
            sys.stderr.write("test server: failing this start\n")
            sys.exit(2)
    make_server().run()


if __name__ == "__main__":
    main(sys.argv[1:])
