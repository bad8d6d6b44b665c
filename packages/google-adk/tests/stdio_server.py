"""A tiny MCP server over stdio for the tests (mcp 2.x ``MCPServer``).

``read_file`` fails the way a real file server does when it may not open a path: the
tool raises ``ToolError``, which the MCP SDK returns as a ``CallToolResult`` with
``is_error`` set and the text ``Error executing tool read_file: ...``.
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


if __name__ == "__main__":
    server.run()
