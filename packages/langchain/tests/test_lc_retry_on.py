"""``toolerr_langchain.retry_on`` with LangChain's REAL ``ToolRetryMiddleware`` in a real
``create_agent`` loop (issue 27, item 6): a tool that calls a real 127.0.0.1 HTTP server.
A 503 is retried (the server turned the request away); a ``PermissionError`` and a read
timeout are not (permanent; the outcome unknown). Executions are counted at the server
and in the tool."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import ToolRetryMiddleware
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool
from toolerr_langchain import ToolErrorMiddleware, retry_on
from toolerr_langchain.testing import ScriptedChatModel, tool_call

# the session disables sockets; these tests talk to their own server on 127.0.0.1 only
pytestmark = [pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]


class Upstream:
    """A real HTTP server: ``/flaky`` answers 503 (``Retry-After: 0``) ``fail`` times, then
    200; ``/slow`` answers after the client's read timeout. ``hits`` counts requests."""

    def __init__(self, fail: int = 2) -> None:
        self.fail = fail
        self.hits: dict[str, int] = {}
        self.lock = threading.Lock()
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with upstream.lock:
                    n = upstream.hits[self.path] = upstream.hits.get(self.path, 0) + 1
                if self.path == "/slow":
                    time.sleep(1.0)
                status = 503 if self.path == "/flaky" and n <= upstream.fail else 200
                body = b"busy, try later" if status == 503 else b"fine"
                try:
                    self.send_response(status)
                    if status == 503:
                        self.send_header("Retry-After", "0")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the client gave up (read timeout)
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Upstream:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    with Upstream() as server:
        yield server


def run(upstream: Upstream, path: str, *, predicate: Any = retry_on) -> tuple[list[str], list[ToolMessage]]:
    """One agent run: the model calls ``fetch(path)`` once, then answers. Returns the
    tool's executions and the tool results the model saw."""
    executed: list[str] = []

    @tool
    def fetch(path: str) -> str:
        """Fetch a path of the upstream service."""
        executed.append(path)
        if path == "/private":
            raise PermissionError(13, "Permission denied: /private")
        response = httpx.get(upstream.url + path, timeout=httpx.Timeout(5.0, read=0.2))
        response.raise_for_status()
        return response.text

    model = ScriptedChatModel(
        script=[AIMessage("", tool_calls=[tool_call("fetch", "c1", path=path)]), "done"]
    )
    retry = ToolRetryMiddleware(max_retries=2, retry_on=predicate, initial_delay=0.0, jitter=False)
    agent = create_agent(model, [fetch], middleware=[ToolErrorMiddleware(), retry])
    agent.invoke({"messages": [("user", "Fetch it.")]})
    return executed, [m for m in model.calls[-1] if isinstance(m, ToolMessage)]


def test_a_503_is_retried_until_it_succeeds(upstream: Upstream) -> None:
    executed, results = run(upstream, "/flaky")
    assert executed == ["/flaky"] * 3
    assert upstream.hits == {"/flaky": 3}
    [result] = results
    assert (result.status, result.content) == ("success", "fine")


def test_a_permission_error_is_not_retried(upstream: Upstream) -> None:
    executed, results = run(upstream, "/private")
    assert executed == ["/private"]
    [result] = results
    assert result.status == "error" and "PermissionError" in str(result.content)


def test_a_read_timeout_is_not_retried(upstream: Upstream) -> None:
    """The request reached the server, which may have acted on it: never sent twice."""
    executed, results = run(upstream, "/slow")
    assert executed == ["/slow"]
    assert upstream.hits == {"/slow": 1}
    [result] = results
    assert result.status == "error" and "ReadTimeout" in str(result.content)


def test_langchains_default_would_resend_the_timed_out_request(upstream: Upstream) -> None:
    """The control: ToolRetryMiddleware's own default retries every exception."""
    from langchain.agents.middleware._retry import default_retry_on

    executed, _ = run(upstream, "/slow", predicate=default_retry_on)
    assert executed == ["/slow"] * 3


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (ConnectionRefusedError(111, "Connection refused"), True),
        (httpx.ConnectError("[Errno -2] Name or service not known"), True),
        (ValueError("city must not be empty"), False),
        (TimeoutError("timed out"), False),
    ],
)
def test_the_predicate_follows_the_core(error: Exception, expected: bool) -> None:
    assert retry_on(error) is expected


def test_an_internal_error_means_no_retry(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import toolerr

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("classification is broken")

    monkeypatch.setattr(toolerr.ToolErrorLayer, "inspect_exception", broken)
    toolerr._failopen.forget_causes()
    assert retry_on(ConnectionRefusedError(111, "Connection refused")) is False
    assert any(r.name == "toolerr" and r.levelname == "WARNING" for r in caplog.records)
