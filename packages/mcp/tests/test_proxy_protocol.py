"""The proxy is transparent: capabilities both ways, server-to-client requests (sampling,
roots), notifications (progress, logging), direct against through the proxy."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from toolerr_mcp import _compat as compat

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SERVER = [sys.executable, str(Path(__file__).with_name("protocol_server.py"))]


async def sampling(context: Any, params: Any) -> Any:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="from the client"), model="test"
    )


async def list_roots(context: Any) -> Any:
    return types.ListRootsResult(roots=[types.Root(uri="file:///srv/data")])


@asynccontextmanager
async def connect(proxy: bool, logs: list[Any]) -> AsyncIterator[tuple[ClientSession, Any]]:
    command = [sys.executable, "-m", "toolerr_mcp", "proxy", "--", *SERVER] if proxy else SERVER

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(
                read,
                write,
                sampling_callback=sampling,
                list_roots_callback=list_roots,
                logging_callback=on_log,
            ) as session,
        ):
            with anyio.fail_after(30):
                init = await session.initialize()
            yield session, init


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text"]


async def exercise(proxy: bool) -> dict[str, Any]:
    logs: list[Any] = []
    progress: list[float] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async with connect(proxy, logs) as (session, init):
        with anyio.fail_after(30):
            tools = (await session.list_tools()).tools
            caps = texts(await session.call_tool("client_capabilities", {}))
            done = await session.call_tool("progress", {}, progress_callback=on_progress)
            sample = texts(await session.call_tool("sample", {}))
            roots = texts(await session.call_tool("roots", {}))
    return {
        "capabilities": init.capabilities.model_dump(by_alias=True, exclude_none=True),
        "instructions": init.instructions,
        "tools": [t.model_dump(by_alias=True) for t in tools],
        "client_capabilities": json.loads(caps[0]),
        "progress_result": texts(done),
        "progress": progress,
        "logs": logs,
        "sample": sample,
        "roots": roots,
    }


async def test_the_proxy_is_transparent() -> None:
    direct = await exercise(proxy=False)
    proxied = await exercise(proxy=True)
    assert proxied == direct
    assert direct["capabilities"]["resources"] == {"subscribe": True, "listChanged": True}
    assert "logging" in direct["capabilities"] and "completions" in direct["capabilities"]
    assert direct["instructions"]
    assert "sampling" in direct["client_capabilities"] and "roots" in direct["client_capabilities"]
    assert direct["progress"] == [1, 2]
    assert direct["logs"] == ["progress done"]
    assert direct["sample"] == ["sampled: from the client"]
    assert direct["roots"] == ["roots: file:///srv/data"]


@pytest.mark.parametrize("loop_action", ["note", "block"])
async def test_the_fixed_then_retried_call_reaches_the_server(loop_action: str) -> None:
    """Read a missing note (ambiguous), write it, read again: the server answers."""
    command = [sys.executable, "-m", "toolerr_mcp", "proxy", "--loop-action", loop_action, "--", *SERVER]
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            with anyio.fail_after(30):
                await session.initialize()
                missing = await session.call_tool("read_note", {})
                assert compat.is_error(missing)
                assert (missing.meta or {})["toolerr"]["kind"] == "ambiguous"
                await session.call_tool("write_note", {"text": "hello"})
                again = await session.call_tool("read_note", {})
    assert not compat.is_error(again)
    assert texts(again) == ["hello"]
