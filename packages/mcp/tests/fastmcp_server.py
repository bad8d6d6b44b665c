"""A FastMCP server for the tests of ``ToolErrorServerMiddleware`` (in memory and over stdio).

Run as a script it serves over stdio: ``python fastmcp_server.py URL [--bare] [--mask]
[--block]`` (``URL``: a 127.0.0.1 server that answers 503; ``--bare``: without toolerr).
Every execution of a tool body is written to stderr as ``ran NAME``, so a test can see
which calls ran.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import httpx2
from fastmcp import FastMCP
from toolerr_mcp import ToolErrorServerMiddleware

SECRET = "s3cr3t-detail-7f1c"
"""A word of every failure's message: with ``mask_error_details`` it must not be sent."""


def build(
    url: str,
    *,
    middleware: Any = None,
    mask: bool = False,
    ran: Callable[[str], None] | None = None,
    name: str = "weather",
) -> FastMCP:
    """The server: ``fetch_forecast`` (a real 503 from ``url``), ``read_secret``
    (``PermissionError``), ``add`` (typed arguments: a wrong type is a pydantic
    validation error) and ``echo`` (a success)."""
    mcp = FastMCP(name, mask_error_details=mask)
    if middleware is not None:
        mcp.add_middleware(middleware)

    def note(tool: str) -> None:
        if ran is not None:
            ran(tool)

    @mcp.tool
    def fetch_forecast(city: str) -> str:
        """The forecast from the upstream service."""
        note("fetch_forecast")
        response = httpx2.get(f"{url}?city={city}&key={SECRET}", timeout=5)
        response.raise_for_status()
        return response.text

    @mcp.tool
    def read_secret(path: str) -> str:
        """A file the server may not read."""
        note("read_secret")
        raise PermissionError(13, f"Permission denied ({SECRET})", path)

    @mcp.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        note("add")
        return a + b

    @mcp.tool
    def echo(text: str) -> dict[str, Any]:
        """Echo the text back, with its length."""
        note("echo")
        return {"text": text, "length": len(text)}

    return mcp


def main(argv: list[str]) -> None:
    url = argv[0]
    middleware = (
        None
        if "--bare" in argv
        else ToolErrorServerMiddleware(loop_action="block" if "--block" in argv else None)
    )

    def ran(tool: str) -> None:
        print(f"ran {tool}", file=sys.stderr, flush=True)

    build(url, middleware=middleware, mask="--mask" in argv, ran=ran).run(show_banner=False)


if __name__ == "__main__":
    main(sys.argv[1:])
