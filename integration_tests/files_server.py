"""A small MCP file server over stdio (mcp 2.x ``MCPServer``) for the integration tests.

``read_file`` refuses paths under ``/root/`` the way a real file server does: the tool
raises ``ToolError`` and the SDK returns ``is_error`` with ``Error executing tool ...``.
"""

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("toolerr-integration-files")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def read_file(path: str) -> str:
    """Read a text file."""
    if path.startswith("/root/"):
        raise ToolError(f"EACCES: permission denied, open '{path}'")
    return f"contents of {path}"


if __name__ == "__main__":
    server.run()
