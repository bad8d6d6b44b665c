"""A tiny MCP server over stdio for the adapters' tests and the integration tests (mcp 2.x
``MCPServer``), run as a script: ``python tests/_shared/mcp_files_server.py``.

Its tools fail the way real servers do: they raise ``ToolError``, which the MCP SDK returns
as a ``CallToolResult`` with ``is_error`` set and the text ``Error executing tool ...``.
``read_file`` refuses paths under ``/root/`` (``EACCES``); ``fetch`` always times out;
``book`` times out on 2026-01-01 and rejects a malformed date.
"""

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("toolerr-test-files")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def read_file(path: str) -> str:
    """Read a text file."""
    if path.startswith("/root/"):
        raise ToolError(f"EACCES: permission denied, open '{path}'")
    return f"contents of {path}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def fetch(url: str) -> str:
    """Fetch a URL."""
    raise ToolError(f"Read timed out: {url}")


@server.tool(annotations=ToolAnnotations(destructive_hint=True, read_only_hint=False))
def book(date: str) -> str:
    """Book a room for a date (YYYY-MM-DD)."""
    if date == "2026-01-01":
        raise ToolError("Read timed out")
    if len(date) != 10:
        raise ToolError(f"invalid date format {date!r}: expected YYYY-MM-DD")
    return f"booked {date}"


if __name__ == "__main__":
    server.run()
