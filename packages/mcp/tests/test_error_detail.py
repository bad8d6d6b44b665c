"""error_detail through RecoveringSession against a real in-process MCP server (issue 27,
item 2): the failed result the session hands on is what the model is shown, so under
"safe" and "none" a server's error text is replaced by its summary (the status it names,
the guidance), and the note in ``_meta`` restates no word of it either."""

from __future__ import annotations

from typing import Any

import mcp_servers as servers
import pytest
import toolerr
from toolerr_mcp import META_KEY, RecoveringSession
from toolerr_mcp import _compat as compat

pytestmark = pytest.mark.anyio

WORDS = ("index", "rebuilt")  # of servers.TRANSIENT_TEXT


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text"]


async def call(detail: str, tool: str, args: dict[str, Any]) -> Any:
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, error_detail=detail)  # type: ignore[arg-type]
        await session.list_tools()
        return await session.call_tool(tool, args)


async def test_safe_replaces_the_servers_words_with_the_status() -> None:
    result = await call("safe", "search", {"query": "mcp"})
    assert compat.is_error(result)
    guidance = toolerr.adapters.GUIDANCE["transient"]
    assert texts(result) == ["Error: an error (HTTP status 503)", guidance]
    info = result.meta[META_KEY]
    assert info["kind"] == "transient"
    assert info["note"].endswith(f"and it failed with: an error (HTTP status 503)\n\n{guidance}")
    shown = repr(texts(result)) + info["note"]
    assert not any(word in shown for word in WORDS)


async def test_none_shows_the_guidance_only() -> None:
    result = await call("none", "write_file", {"path": "/etc/passwd", "text": "x"})
    assert texts(result) == ["Error: details withheld", toolerr.adapters.GUIDANCE["unrecoverable"]]
    assert "passwd" not in result.meta[META_KEY]["note"].split("failed with:")[1]


async def test_full_keeps_the_servers_text() -> None:
    result = await call("full", "search", {"query": "mcp"})
    assert servers.TRANSIENT_TEXT in texts(result)[0]
