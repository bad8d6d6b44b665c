"""toolerr for MCP: failed tool calls that tell the model what to do next.

Three ways in: :class:`RecoveringSession` wraps your own ``mcp.ClientSession``;
:class:`ToolErrorInterceptor` plugs into langchain-mcp-adapters; ``toolerr-mcp proxy --
CMD ARGS...`` serves any stdio MCP server through the layer for clients you cannot change.
On the server side, :class:`ToolErrorServerMiddleware` is a FastMCP middleware (the extra
``toolerr-mcp[fastmcp]``; imported on first use, so FastMCP is needed only for it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._interceptor import ToolErrorInterceptor
from ._proxy import Proxy, UpstreamError, UpstreamLost, UpstreamUnavailable
from ._recovery import META_KEY, TRANSPORT_ERRORS
from ._session import RecoveringSession

if TYPE_CHECKING:
    from ._fastmcp import ToolErrorServerMiddleware

__all__ = [
    "META_KEY",
    "TRANSPORT_ERRORS",
    "Proxy",
    "RecoveringSession",
    "ToolErrorInterceptor",
    "ToolErrorServerMiddleware",
    "UpstreamError",
    "UpstreamLost",
    "UpstreamUnavailable",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """``ToolErrorServerMiddleware`` is imported on first use (it needs FastMCP)."""
    if name == "ToolErrorServerMiddleware":
        try:
            from ._fastmcp import ToolErrorServerMiddleware
        except ImportError as error:
            raise ImportError(
                "toolerr_mcp.ToolErrorServerMiddleware needs FastMCP: "
                f"pip install 'toolerr-mcp[fastmcp]' ({error})"
            ) from error
        return ToolErrorServerMiddleware
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
