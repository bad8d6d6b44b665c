"""``toolerr_langchain.retry_on`` with LangChain's REAL ``ToolRetryMiddleware`` in a real
``create_agent`` loop (issue 27, item 6): a tool that calls a real 127.0.0.1 HTTP server.
A 503 is retried (the server turned the request away); a ``PermissionError`` and a read
timeout are not (permanent; the outcome unknown). Executions are counted at the server
and in the tool. Against the same server, toolerr's own ``auto_retry`` (item 4) and its
idempotency guard (item 5)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from adapter_contract import RESEND_BLOCKED
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


# -- toolerr's own hidden retries and idempotency guard, against the same real server ------


def agent_run(
    tool_: Any, calls: list[dict[str, Any]], middleware: ToolErrorMiddleware
) -> tuple[list[ToolMessage], list[ToolMessage]]:
    """One create_agent run: the model calls ``tool_`` once per entry of ``calls`` (one
    call per turn), then answers. Returns the tool results of the last model call and of
    the agent's state."""
    script: list[Any] = [
        AIMessage("", tool_calls=[tool_call(tool_.name, f"c{i}", **a)]) for i, a in enumerate(calls)
    ]
    model = ScriptedChatModel(script=[*script, "done"])
    state = create_agent(model, [tool_], middleware=[middleware]).invoke({"messages": [("user", "Go.")]})
    seen = [m for m in model.calls[-1] if isinstance(m, ToolMessage)]
    return seen, [m for m in state["messages"] if isinstance(m, ToolMessage)]


def fetch_tool(upstream: Upstream, executed: list[str]) -> Any:
    @tool
    def fetch(path: str) -> str:
        """Fetch a path of the upstream service."""
        executed.append(path)
        response = httpx.get(upstream.url + path, timeout=httpx.Timeout(5.0, read=0.2))
        response.raise_for_status()
        return response.text

    return fetch


def test_auto_retry_reruns_a_real_503_before_the_model_sees_it(upstream: Upstream) -> None:
    """``auto_retry=2`` (issue 27, item 4): the server answers 503 twice, then 200; the tool
    runs three times and the model sees the success only; no failure is recorded."""
    executed: list[str] = []
    records: list[Any] = []
    seen, _ = agent_run(
        fetch_tool(upstream, executed),
        [{"path": "/flaky"}],
        ToolErrorMiddleware(auto_retry=2, on_record=records.append),
    )
    assert executed == ["/flaky"] * 3 and upstream.hits == {"/flaky": 3}
    assert [(m.status, m.content) for m in seen] == [("success", "fine")]
    assert records == []


def test_auto_retry_leaves_a_real_read_timeout_of_an_undeclared_tool_to_the_model(upstream: Upstream) -> None:
    """The request reached the server (its outcome unknown): not re-run hidden; the model
    sees the failure."""
    executed: list[str] = []
    records: list[Any] = []
    seen, _ = agent_run(
        fetch_tool(upstream, executed),
        [{"path": "/slow"}],
        ToolErrorMiddleware(auto_retry=2, on_record=records.append),
    )
    assert executed == ["/slow"] and upstream.hits == {"/slow": 1}
    [result] = seen
    assert result.status == "error" and "ReadTimeout" in str(result.content)
    [record] = records
    assert (record.kind, record.verdict.outcome, record.hidden_retries) == ("transient", "unknown_outcome", 0)


@pytest.mark.parametrize("safety", [None, "idempotent"])
def test_a_timed_out_transfer_money_is_not_resent_unless_declared_idempotent(
    upstream: Upstream, safety: str | None
) -> None:
    """``transfer_money`` times out (the server got it) and the model sends the identical
    call again (issue 27, item 5): not executed, the model is told to check whether the
    first took effect; with ``tool_safety={"transfer_money": "idempotent"}`` it runs."""
    executed: list[dict[str, Any]] = []

    @tool
    def transfer_money(to: str, amount: int) -> str:
        """Transfer an amount to someone."""
        executed.append({"to": to, "amount": amount})
        response = httpx.get(upstream.url + "/slow", timeout=httpx.Timeout(5.0, read=0.2))
        response.raise_for_status()
        return "transferred"

    middleware = ToolErrorMiddleware(tool_safety={} if safety is None else {"transfer_money": safety})
    pay = {"to": "bob", "amount": 10}
    seen, kept = agent_run(transfer_money, [pay, pay], middleware)
    runs = 1 if safety is None else 2
    assert executed == [pay] * runs and upstream.hits == {"/slow": runs}
    assert [m.status for m in seen] == ["error", "error"]
    assert ("ReadTimeout" in str(seen[1].content)) is (safety is not None)
    assert (str(seen[1].content) == RESEND_BLOCKED) is (safety is None)
    assert kept[1].content == seen[1].content
