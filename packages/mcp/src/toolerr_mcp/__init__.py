"""toolerr for MCP: failed tool calls that tell the model what to do next.

Three ways in: :class:`RecoveringSession` wraps your own ``mcp.ClientSession``;
:class:`ToolErrorInterceptor` plugs into langchain-mcp-adapters; ``toolerr-mcp proxy --
CMD ARGS...`` serves any stdio MCP server through the layer for clients you cannot change.
"""

from __future__ import annotations

from ._interceptor import ToolErrorInterceptor
from ._proxy import Proxy, UpstreamError, UpstreamLost, UpstreamUnavailable
from ._recovery import META_KEY, TRANSPORT_ERRORS
from ._session import RecoveringSession

__all__ = [
    "META_KEY",
    "TRANSPORT_ERRORS",
    "Proxy",
    "RecoveringSession",
    "ToolErrorInterceptor",
    "UpstreamError",
    "UpstreamLost",
    "UpstreamUnavailable",
]

__version__ = "0.1.0"
