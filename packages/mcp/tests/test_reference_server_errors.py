"""Failures the MCP reference servers return, raised live, and what toolerr makes of them.

Each case calls a real server (``mcp-server-time``, ``mcp-server-git``, ``mcp-server-fetch``
from PyPI; ``@modelcontextprotocol/server-everything`` and ``server-filesystem`` from npm)
with arguments that trigger one cause, and is labelled by that cause, never by toolerr. The
server's own error text (its ``isError`` result, or the JSON-RPC error the SDK raises) is
classified by the core as an MCP client sees it, and the same call through the
``toolerr-mcp`` proxy must carry the same verdict in ``_meta``. Installed and run by
``nox -s mcp_servers`` (offline: every URL is 127.0.0.1 or an ``.invalid`` name).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import pytest
from test_reference_servers import (
    NPM_BIN,
    PYPI_BIN,
    closed_port,
    compat,
    connect,
    meta,
    npm,
    pypi,
    serve_http,
    texts,
)
from toolerr import ToolErrorLayer, inspect_result

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.slow,
    pytest.mark.skipif(
        not (PYPI_BIN and NPM_BIN), reason="the servers are installed by `nox -s mcp_servers`"
    ),
]


class Case(NamedTuple):
    tool: str
    arguments: Callable[[Path, str], dict[str, Any]]  # (work dir, base URL) -> arguments
    label: str  # the kind of the cause that was triggered
    cause: str
    expect: str | None = None  # what toolerr answers where it differs from the label
    why: str = ""  # why that miss is left


def _repo(root: Path) -> Path:
    repo = root / "repo"
    if not repo.exists():
        repo.mkdir()
        git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
        subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
        (repo / "a.txt").write_text("one\n")
        subprocess.run([*git, "add", "a.txt"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "first"], check=True)
    return repo


TIME = [
    Case(
        "get_current_time",
        lambda d, u: {"timezone": "Mars/Olympus_Mons"},
        "fixable",
        "unknown IANA zone ('Invalid timezone: ...')",
    ),
    Case(
        "convert_time",
        lambda d, u: {"source_timezone": "Europe/Paris", "time": "14:30", "target_timezone": "Nowhere/City"},
        "fixable",
        "unknown target zone",
    ),
    Case(
        "convert_time",
        lambda d, u: {"source_timezone": "Europe/Paris", "time": "25:99", "target_timezone": "Asia/Tokyo"},
        "fixable",
        "time not HH:MM ('Invalid time format. Expected HH:MM')",
    ),
    Case(
        "convert_time",
        lambda d, u: {"source_timezone": "Europe/Paris", "time": "14:30"},
        "fixable",
        "required argument missing (pydantic)",
    ),
    Case("no_such_tool", lambda d, u: {}, "fixable", "unknown tool (JSON-RPC error, raised by the SDK)"),
]

GIT = [
    Case(
        "git_status",
        lambda d, u: {"repo_path": str(d / "not-a-repo")},
        "fixable",
        "repo_path is not a repository",
        expect="ambiguous",
        why="the server's text is the path alone (InvalidGitRepositoryError's str)",
    ),
    Case(
        "git_diff",
        lambda d, u: {"repo_path": str(_repo(d)), "target": "no-such-branch"},
        "ambiguous",
        "a ref that does not exist (may be fetched or created: a missing name stays ambiguous)",
    ),
    Case(
        "git_show",
        lambda d, u: {"repo_path": str(_repo(d)), "revision": "deadbeef"},
        "ambiguous",
        "a revision that does not exist",
    ),
    Case(
        "git_create_branch",
        lambda d, u: {"repo_path": str(_repo(d)), "branch_name": "main"},
        "ambiguous",
        "the branch already exists (like EEXIST)",
    ),
    Case(
        "git_add",
        lambda d, u: {"repo_path": str(_repo(d)), "files": ["missing.txt"]},
        "fixable",
        "a pathspec that matches no file ('did not match any files')",
    ),
    Case(
        "git_log",
        lambda d, u: {"repo_path": str(_repo(d)), "max_count": "many"},
        "fixable",
        "an integer argument given as a word (pydantic)",
    ),
    Case("git_commit", lambda d, u: {"repo_path": str(_repo(d))}, "fixable", "message missing (pydantic)"),
]

FETCH = [
    Case(
        "fetch", lambda d, u: {"url": f"http://127.0.0.1:{closed_port()}/"}, "transient", "connection refused"
    ),
    Case("fetch", lambda d, u: {"url": "http://api.example.invalid/"}, "transient", "DNS: no such name"),
    Case("fetch", lambda d, u: {"url": "not a url"}, "fixable", "not a URL (pydantic)"),
    Case(
        "fetch", lambda d, u: {"url": f"{u}/", "max_length": -5}, "fixable", "max_length below 1 (pydantic)"
    ),
    Case("fetch", lambda d, u: {"url": f"{u}/status/503"}, "transient", "HTTP 503"),
    Case("fetch", lambda d, u: {"url": f"{u}/status/429"}, "transient", "HTTP 429"),
    Case("fetch", lambda d, u: {"url": f"{u}/status/403"}, "unrecoverable", "HTTP 403"),
    Case("fetch", lambda d, u: {"url": f"{u}/status/404"}, "ambiguous", "HTTP 404"),
]

EVERYTHING = [
    Case("get-sum", lambda d, u: {"a": "two", "b": 3}, "fixable", "a string for a number (zod, -32602)"),
    Case("get-sum", lambda d, u: {"a": 2}, "fixable", "argument missing (zod, -32602)"),
    Case("echo", lambda d, u: {}, "fixable", "required message missing"),
    Case("no-such-tool", lambda d, u: {}, "fixable", "unknown tool ('Tool ... not found', -32602)"),
]

FILESYSTEM = [
    Case("read_text_file", lambda d, u: {"path": "/etc/passwd"}, "unrecoverable", "outside the allowed dirs"),
    Case("read_text_file", lambda d, u: {"path": str(d / "missing.txt")}, "ambiguous", "ENOENT"),
    Case(
        "read_text_file",
        lambda d, u: {"path": str(d / "a.txt"), "head": 1, "tail": 1},
        "fixable",
        "mutually exclusive arguments ('Cannot specify both head and tail')",
    ),
    Case("read_text_file", lambda d, u: {"path": str(d / "sub")}, "fixable", "EISDIR (a directory given)"),
    Case("list_directory", lambda d, u: {"path": str(d / "a.txt")}, "fixable", "ENOTDIR (a file given)"),
    Case(
        "edit_file",
        lambda d, u: {"path": str(d / "a.txt"), "edits": [{"oldText": "three", "newText": "four"}]},
        "fixable",
        "oldText not in the file ('Could not find exact match for edit')",
    ),
    Case("create_directory", lambda d, u: {"path": str(d / "a.txt")}, "ambiguous", "EEXIST"),
    Case(
        "move_file",
        lambda d, u: {"source": str(d / "a.txt"), "destination": str(d / "sub")},
        "ambiguous",
        "the destination exists",
    ),
    Case("write_file", lambda d, u: {"path": str(d / "b.txt")}, "fixable", "content missing (zod, -32602)"),
    Case("search_files", lambda d, u: {"path": str(d / "nope"), "pattern": "x"}, "ambiguous", "ENOENT"),
]


@pytest.fixture(scope="module")
def status_url() -> Iterator[str]:
    """An HTTP server on 127.0.0.1 (a subprocess): ``/status/N`` answers status N."""
    code = (
        "import http.server\n"
        "class H(http.server.BaseHTTPRequestHandler):\n"
        "    def do_GET(self):\n"
        "        parts = self.path.split('/')\n"
        "        status = int(parts[2]) if len(parts) > 2 and parts[1] == 'status' else 200\n"
        "        body = b'<html><body>answer</body></html>'\n"
        "        self.send_response(status)\n"
        "        self.send_header('content-type', 'text/html')\n"
        "        self.send_header('content-length', str(len(body)))\n"
        "        self.end_headers()\n"
        "        self.wfile.write(body)\n"
        "    def log_message(self, *args):\n"
        "        pass\n"
        "server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)\n"
        "print(server.server_address[1], flush=True)\n"
        "server.serve_forever()\n"
    )
    with serve_http(code) as url:
        yield url


async def _run(
    command: list[str], cases: list[Case], work: Path, url: str, proxy: bool
) -> list[dict[str, Any]]:
    """Each case's verdict (direct: the core on the server's text; proxied: the proxy's _meta)."""
    out: list[dict[str, Any]] = []
    async with connect(command, proxy=proxy) as (session, _):
        with anyio.fail_after(120):
            await session.list_tools()
            for case in cases:
                try:
                    result = await session.call_tool(case.tool, case.arguments(work, url))
                except (
                    compat.MCP_ERROR
                ) as exc:  # a JSON-RPC error the SDK raises (the session adapters' path)
                    verdict = ToolErrorLayer().inspect_exception(exc, tool=case.tool)
                    out.append({"kind": verdict.kind, "text": str(exc), "raised": True})
                    continue
                assert compat.is_error(result), (case, result)
                text = "\n".join(texts(result))
                if proxy:
                    out.append({"kind": meta(result)["kind"], "text": text, "raised": False})
                else:
                    verdict = inspect_result(text, is_error=True, client="mcp")
                    out.append({"kind": verdict.kind, "text": text, "raised": False})
    return out


def _work(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    (tmp_path / "sub").mkdir()
    return tmp_path


SERVERS: dict[str, tuple[Callable[[Path], list[str]], list[Case]]] = {
    "mcp-server-time": (lambda d: pypi("mcp-server-time"), TIME),
    "mcp-server-git": (lambda d: pypi("mcp-server-git"), GIT),
    "mcp-server-fetch": (
        lambda d: pypi("mcp-server-fetch", "--ignore-robots-txt", "--allow-private-ips"),
        FETCH,
    ),
    "server-everything": (lambda d: npm("mcp-server-everything"), EVERYTHING),
    "server-filesystem": (lambda d: npm("mcp-server-filesystem", str(d)), FILESYSTEM),
}


@pytest.mark.parametrize("server", list(SERVERS))
async def test_reference_server_failures_are_classified_by_their_cause(
    server: str, tmp_path: Path, status_url: str
) -> None:
    command_for, cases = SERVERS[server]
    work = _work(tmp_path)
    direct = await _run(command_for(work), cases, work, status_url, proxy=False)
    wrong = [
        (case.tool, case.cause, seen["kind"], seen["text"][:200])
        for case, seen in zip(cases, direct, strict=True)
        if seen["kind"] != (case.expect or case.label)
    ]
    assert not wrong, wrong
    # the proxy gives the same verdict in _meta (a raised JSON-RPC error passes as it was)
    proxied = await _run(command_for(work), cases, work, status_url, proxy=True)
    assert [p["kind"] for p in proxied] == [d["kind"] for d in direct]


def test_the_cases_and_their_misses() -> None:
    every = [case for _, cases in SERVERS.values() for case in cases]
    assert len(every) >= 30
    assert {case.label for case in every} == {"transient", "fixable", "unrecoverable", "ambiguous"}
    misses = [case for case in every if case.expect is not None]
    assert all(case.why for case in misses)
    assert len(misses) <= 1  # the listed miss: a message that is the path alone
