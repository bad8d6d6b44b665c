"""The proxy in front of the MCP reference servers, direct against through the proxy.

PyPI: ``mcp-server-time``, ``mcp-server-git``, ``mcp-server-fetch`` (pointed at an HTTP
server on 127.0.0.1); npm: ``@modelcontextprotocol/server-everything`` (the protocol's own
test server) and ``@modelcontextprotocol/server-filesystem``. The ``mcp_servers`` nox
session installs them (the PyPI ones in a venv of their own: they pin mcp>=2.3) and
points ``TOOLERR_MCP_REFERENCE_BIN`` and ``TOOLERR_MCP_NPM_BIN`` at their ``bin`` folders.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from toolerr_mcp import META_KEY
from toolerr_mcp import _compat as compat

PYPI_BIN = os.environ.get("TOOLERR_MCP_REFERENCE_BIN", "")
NPM_BIN = os.environ.get("TOOLERR_MCP_NPM_BIN", "")

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.slow,
    pytest.mark.skipif(
        not (PYPI_BIN and NPM_BIN), reason="the reference servers are installed by `nox -s mcp_servers`"
    ),
]


def pypi(name: str, *args: str) -> list[str]:
    return [str(Path(PYPI_BIN) / name), *args]


def npm(name: str, *args: str) -> list[str]:
    return [str(Path(NPM_BIN) / name), *args]


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text"]


def meta(result: Any) -> dict[str, Any]:
    assert result.meta is not None, result
    value: dict[str, Any] = result.meta[META_KEY]
    return value


def assert_classified(result: Any, says: str) -> None:
    """A failed result, its own text first, classified by the core and annotated."""
    assert compat.is_error(result)
    assert says in texts(result)[0]
    info = meta(result)
    assert info["failed"] is True
    assert info["kind"] in ("transient", "fixable", "unrecoverable", "ambiguous")
    if info["kind"] != "ambiguous":
        assert info["guidance"] in texts(result)[-1]


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed, by a subprocess)."""
    code = (
        "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1]); s.close()"
    )
    return int(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    )


def dump(value: Any) -> Any:
    return value.model_dump(by_alias=True, mode="json", exclude_none=True)


class Client:
    """What a client offers: sampling and roots, and what it saw (progress, logs)."""

    def __init__(self, roots: list[str] | None = None) -> None:
        self.roots = roots or ["file:///srv/workspace"]
        self.sampled: list[Any] = []
        self.logs: list[Any] = []
        self.elicited: list[str] = []

    async def sampling(self, context: Any, params: Any) -> Any:
        self.sampled.append(params.max_tokens if hasattr(params, "max_tokens") else params.maxTokens)
        text = types.TextContent(type="text", text="a sampled answer")
        return types.CreateMessageResult(role="assistant", content=text, model="scripted")

    async def elicit(self, context: Any, params: Any) -> Any:
        self.elicited.append(params.message)
        return types.ElicitResult(action="decline")

    async def list_roots(self, context: Any) -> Any:
        return types.ListRootsResult(roots=[types.Root(uri=uri) for uri in self.roots])  # type: ignore[arg-type]

    async def logging(self, params: Any) -> None:
        self.logs.append(params.level)


@asynccontextmanager
async def connect(
    command: list[str], *, proxy: bool, client: Client | None = None, options: tuple[str, ...] = ()
) -> AsyncIterator[tuple[ClientSession, Any]]:
    if proxy:
        command = [sys.executable, "-m", "toolerr_mcp", "proxy", *options, "--", *command]
    params = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    client = client or Client()
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(
                read,
                write,
                sampling_callback=client.sampling,
                list_roots_callback=client.list_roots,
                elicitation_callback=client.elicit,
                logging_callback=client.logging,
            ) as session,
        ):
            with anyio.fail_after(60):
                init = await session.initialize()
            yield session, init


async def both(command: list[str], calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """initialize, tools/list and the calls, direct and through the proxy."""
    seen = []
    for proxy in (False, True):
        async with connect(command, proxy=proxy) as (session, init):
            with anyio.fail_after(60):
                tools = (await session.list_tools()).tools
                results = [dump(await session.call_tool(name, args)) for name, args in calls]
        seen.append({"init": dump(init), "tools": [dump(t) for t in tools], "results": results})
    return seen


@contextmanager
def serve_http(code: str, *args: str) -> Iterator[str]:
    """Run ``code`` (a Python HTTP server that prints its port on 127.0.0.1) in a
    subprocess; yields its base URL and stops it afterwards."""
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdout is not None
    port = process.stdout.readline().strip()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)
        process.stdout.close()


@pytest.fixture(scope="module")
def http_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 (a subprocess) serving a small page."""
    root = tmp_path_factory.mktemp("www")
    (root / "page.html").write_text("<html><body><h1>Hello</h1><p>from the local server</p></body></html>")
    code = (
        "import functools, http.server, sys\n"
        "handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])\n"
        "server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)\n"
        "print(server.server_address[1], flush=True)\n"
        "server.serve_forever()\n"
    )
    with serve_http(code, str(root)) as url:
        yield url


# -- identical direct and through the proxy --------------------------------------------------


async def test_time_server() -> None:
    calls = [
        (
            "convert_time",
            {"source_timezone": "Europe/Paris", "time": "14:30", "target_timezone": "Asia/Tokyo"},
        )
    ]
    direct, proxied = await both(pypi("mcp-server-time"), calls)
    assert proxied == direct
    assert not direct["results"][0].get("isError")
    async with connect(pypi("mcp-server-time"), proxy=True) as (session, _):
        failed = await session.call_tool("get_current_time", {"timezone": "Mars/Olympus_Mons"})
    assert_classified(failed, "Invalid timezone")


async def test_git_server(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "a.txt").write_text("one\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    (repo / "a.txt").write_text("two\n")
    calls = [
        ("git_status", {"repo_path": str(repo)}),
        ("git_diff_unstaged", {"repo_path": str(repo)}),
        ("git_branch", {"repo_path": str(repo), "branch_type": "local"}),
    ]
    direct, proxied = await both(pypi("mcp-server-git"), calls)
    assert proxied == direct
    assert not any(r.get("isError") for r in direct["results"])
    async with connect(pypi("mcp-server-git"), proxy=True) as (session, _):
        failed = await session.call_tool("git_status", {"repo_path": str(tmp_path / "not-a-repo")})
    assert_classified(failed, "not-a-repo")


async def test_fetch_server(http_root: str) -> None:
    command = pypi("mcp-server-fetch", "--ignore-robots-txt", "--allow-private-ips")
    calls = [("fetch", {"url": f"{http_root}/page.html"})]
    direct, proxied = await both(command, calls)
    assert proxied == direct
    assert "from the local server" in str(direct["results"][0])
    async with connect(command, proxy=True) as (session, _):
        missing = await session.call_tool("fetch", {"url": f"{http_root}/missing.html"})
        refused = await session.call_tool("fetch", {"url": f"http://127.0.0.1:{closed_port()}/"})
    assert_classified(missing, "status code 404")
    assert_classified(refused, "127.0.0.1")


async def test_everything_server() -> None:
    calls = [("echo", {"message": "héllo"}), ("get-sum", {"a": 2, "b": 3}), ("get-tiny-image", {})]
    direct, proxied = await both(npm("mcp-server-everything"), calls)
    assert proxied["init"] == direct["init"]  # capabilities (tasks, logging, completions ...), instructions
    assert set(direct["init"]["capabilities"]) >= {"logging", "completions", "resources", "tools", "tasks"}
    assert proxied["tools"] == direct["tools"]
    names = [t["name"] for t in direct["tools"]]
    # offered by the client: sampling, roots, elicitation
    assert {"trigger-sampling-request", "get-roots-list", "trigger-elicitation-request"} <= set(names)
    assert proxied["results"] == direct["results"]


async def test_everything_progress_sampling_roots() -> None:
    seen = []
    for proxy in (False, True):
        client = Client(roots=["file:///srv/workspace"])
        progress: list[float] = []

        async def on_progress(
            value: float, total: float | None, message: str | None, progress: list[float] = progress
        ) -> None:
            progress.append(value)

        async with connect(npm("mcp-server-everything"), proxy=proxy, client=client) as (session, _):
            with anyio.fail_after(60):
                await session.list_tools()
                long = await session.call_tool(
                    "trigger-long-running-operation",
                    {"duration": 1, "steps": 3},
                    progress_callback=on_progress,
                )
                sampled = await session.call_tool(
                    "trigger-sampling-request", {"prompt": "hi", "maxTokens": 7}
                )
                roots = await session.call_tool("get-roots-list", {})
                elicited = await session.call_tool("trigger-elicitation-request", {})
        seen.append(
            {
                "progress": progress,
                "long": dump(long),
                "sampled": dump(sampled),
                "sampling_requests": client.sampled,
                "roots": dump(roots),
                "elicited": dump(elicited),
                "elicitation_requests": client.elicited,
            }
        )
    direct, proxied = seen
    assert proxied == direct
    assert direct["progress"] == [1, 2, 3]
    assert direct["sampling_requests"] == [7]
    assert "a sampled answer" in str(direct["sampled"])
    assert "file:///srv/workspace" in str(direct["roots"])
    assert len(direct["elicitation_requests"]) == 1
    assert "decline" in str(direct["elicited"])


async def test_filesystem_server_with_the_clients_roots(tmp_path: Path) -> None:
    """Started without a directory, the server takes its allowed directories from the client's roots."""
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    (allowed / "hello.txt").write_text("hello from the roots")
    seen = []
    for proxy in (False, True):
        client = Client(roots=[allowed.as_uri()])
        async with connect(npm("mcp-server-filesystem"), proxy=proxy, client=client) as (session, _):
            with anyio.fail_after(60):
                tools = (await session.list_tools()).tools
                await anyio.sleep(0.5)  # it asks for the roots after initialized
                read = await session.call_tool("read_text_file", {"path": str(allowed / "hello.txt")})
                listed = await session.call_tool("list_allowed_directories", {})
        seen.append({"tools": [dump(t) for t in tools], "read": dump(read), "listed": dump(listed)})
    direct, proxied = seen
    assert proxied == direct
    assert texts(types.CallToolResult.model_validate(direct["read"])) == ["hello from the roots"]


@pytest.mark.parametrize("loop_action", ["note", "block"])
async def test_filesystem_missing_file_written_then_read_again(tmp_path: Path, loop_action: str) -> None:
    """Read a missing file (fails: ambiguous), write it, read again: the read reaches the server."""
    target = str(tmp_path / "notes.txt")
    command = npm("mcp-server-filesystem", str(tmp_path))
    async with connect(command, proxy=True, options=("--loop-action", loop_action)) as (session, _):
        with anyio.fail_after(60):
            missing = await session.call_tool("read_text_file", {"path": target})
            assert compat.is_error(missing)
            assert meta(missing)["kind"] == "ambiguous"
            written = await session.call_tool("write_file", {"path": target, "content": "now it exists"})
            assert not compat.is_error(written)
            again = await session.call_tool("read_text_file", {"path": target})
    assert not compat.is_error(again)
    assert texts(again) == ["now it exists"]
