"""RecoveringSession's hidden retries (``auto_retry``) of a failure the server returns.

A real MCP server (the SDK's, in process) whose tool calls a real HTTP server on
127.0.0.1: the upstream's 503 comes back to the session as an ``isError`` result (the
server ran the tool, the tool's request was turned away), not as an exception. The
session re-runs it hidden as ``auto_retry`` allows; the upstream counts the runs.
"""

from __future__ import annotations

import http.server
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from typing import Any

import mcp_servers as servers
import pytest
import toolerr
from toolerr_mcp import META_KEY, RecoveringSession
from toolerr_mcp import _compat as compat

pytestmark = [pytest.mark.anyio, pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]

SUNNY = "sunny, 21 C"
UPSTREAM_TIMEOUT = 0.3
"""The tool's read timeout on its upstream (``/slow`` answers after a second)."""

# path -> the answers before the first 200: (status, Retry-After); ``None``: every request
SCRIPTS: dict[str, tuple[list[tuple[int, str | None]], bool]] = {
    "/flaky": ([(503, None), (503, None)], False),  # 503 twice, then 200
    "/down": ([(503, None)], True),  # 503 at every request
    "/busy": ([(503, "1"), (503, "1")], False),  # 503 with Retry-After: 1 twice, then 200
    "/overloaded": ([(503, "120")], True),  # Retry-After past max_wait
    "/forbidden": ([(403, None)], True),  # turned away for good
}


class Upstream(http.server.ThreadingHTTPServer):
    """A real HTTP server on 127.0.0.1 that answers each path by its script and counts
    the requests it got (each is one run of the tool)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: Counter[str] = Counter()
        self.lock = threading.Lock()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(http.server.BaseHTTPRequestHandler):
    server: Upstream

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.requests[self.path] += 1
            seen = self.server.requests[self.path]
        if self.path == "/slow":  # past the tool's read timeout: the outcome is unknown
            time.sleep(UPSTREAM_TIMEOUT * 4)
            self._answer(200, SUNNY.encode())
            return
        failures, forever = SCRIPTS[self.path]
        if forever or seen <= len(failures):
            status, retry_after = failures[min(seen, len(failures)) - 1]
            self._answer(status, b"upstream says no", retry_after)
        else:
            self._answer(200, SUNNY.encode())

    def _answer(self, status: int, body: bytes, retry_after: str | None = None) -> None:
        try:
            self.send_response(status)
            if retry_after is not None:
                self.send_header("Retry-After", retry_after)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the tool stopped waiting (/slow)
            pass

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    server = Upstream()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def make_server(base: str) -> Any:
    """The MCP server: ``forecast`` fetches ``base + path`` and fails with the upstream's
    words (a ``ToolError``: the SDK sends its text in an ``isError`` result). No
    annotations: its retry safety is what the session is told."""
    server = servers.ServerClass("upstream-test")

    @server.tool()
    def forecast(path: str) -> str:
        """The forecast from the upstream service."""
        try:
            with urllib.request.urlopen(base + path, timeout=UPSTREAM_TIMEOUT) as response:
                return str(response.read().decode())
        except urllib.error.HTTPError as error:
            error.close()
            wait = error.headers.get("Retry-After")
            raise servers.ToolError(
                f"upstream: {error}" + (f" (Retry-After: {wait})" if wait else "")
            ) from None
        except (urllib.error.URLError, OSError) as error:
            raise servers.ToolError(f"upstream: {getattr(error, 'reason', error)}") from None

    return server


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The kit's waits between hidden retries, recorded instead of slept."""
    import toolerr._kit_retry as kit_retry

    waits: list[float] = []

    async def asleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(kit_retry, "_asleep", asleep)
    return waits


async def call(
    upstream: Upstream, path: str, records: list[toolerr.DetectionRecord] | None = None, **options: Any
) -> Any:
    on_record = records.append if records is not None else None
    async with servers.connect(make_server(upstream.base)) as inner:
        session = RecoveringSession(inner, on_record=on_record, **options)
        await session.list_tools()
        return await session.call_tool("forecast", {"path": path})


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text"]


def info(result: Any) -> dict[str, Any]:
    assert result.meta is not None and META_KEY in result.meta, "a failed result carries _meta"
    value: dict[str, Any] = result.meta[META_KEY]
    return value


# -- a turned-away call (503, not executed) ---------------------------------------------------


async def test_a_returned_503_is_rerun_hidden_until_it_succeeds(
    upstream: Upstream, waits: list[float]
) -> None:
    """503, 503, 200 with auto_retry=2: the tool runs three times; the caller gets the
    success, with no failure, no toolerr meta and no record."""
    records: list[toolerr.DetectionRecord] = []
    result = await call(upstream, "/flaky", records, auto_retry=2)
    assert not compat.is_error(result), texts(result)
    assert texts(result) == [SUNNY]
    assert result.meta is None or META_KEY not in result.meta
    assert upstream.requests["/flaky"] == 3
    assert len(waits) == 2
    assert records == []


async def test_auto_retry_zero_gives_the_failure_once(upstream: Upstream, waits: list[float]) -> None:
    records: list[toolerr.DetectionRecord] = []
    result = await call(upstream, "/flaky", records)
    assert compat.is_error(result)
    assert "upstream: HTTP Error 503: Service Unavailable" in texts(result)[0]
    assert texts(result)[-1] == toolerr.adapters.GUIDANCE["transient"]
    assert (info(result)["kind"], info(result)["status"]) == ("transient", 503)
    assert "hidden_retries" not in info(result)
    assert upstream.requests["/flaky"] == 1
    assert waits == []
    assert [(r.kind, r.hidden_retries) for r in records] == [("transient", 0)]


async def test_the_last_failure_counts_the_hidden_retries(upstream: Upstream, waits: list[float]) -> None:
    """503 at every run, auto_retry=2: three runs; the caller sees the third failure, and
    its meta and its record count two hidden retries."""
    records: list[toolerr.DetectionRecord] = []
    result = await call(upstream, "/down", records, auto_retry=2)
    assert compat.is_error(result)
    assert upstream.requests["/down"] == 3
    assert len(waits) == 2
    assert (info(result)["kind"], info(result)["hidden_retries"]) == ("transient", 2)
    [record] = records
    assert (record.kind, record.hidden_retries, record.to_dict()["hidden_retries"]) == ("transient", 2, 2)


async def test_the_ledger_counts_the_hidden_retries(upstream: Upstream, waits: list[float]) -> None:
    """retry_budget=2: the third run's failure is past the budget (three attempts in the
    ledger), so it is no longer a retry to try."""
    result = await call(upstream, "/down", auto_retry=2, retry_budget=2)
    assert upstream.requests["/down"] == 3
    assert (info(result)["kind"], info(result)["hidden_retries"]) == ("unrecoverable", 2)
    within = await call(upstream, "/down", auto_retry=2, retry_budget=3)
    assert (info(within)["kind"], info(within)["hidden_retries"]) == ("transient", 2)


async def test_retry_after_is_waited_for(upstream: Upstream, waits: list[float]) -> None:
    result = await call(upstream, "/busy", auto_retry=2)
    assert texts(result) == [SUNNY]
    assert upstream.requests["/busy"] == 3
    assert waits == [1.0, 1.0]


async def test_a_retry_after_past_max_wait_goes_to_the_caller(upstream: Upstream, waits: list[float]) -> None:
    result = await call(upstream, "/overloaded", auto_retry=2, max_wait=30)
    assert compat.is_error(result)
    assert upstream.requests["/overloaded"] == 1
    assert waits == []
    assert (info(result)["kind"], info(result)["retry_after"]) == ("transient", 120.0)


# -- an unknown outcome, a permanent failure ---------------------------------------------------


async def test_a_read_timeout_of_an_undeclared_tool_is_not_rerun(
    upstream: Upstream, waits: list[float]
) -> None:
    """The upstream may have acted on a request the tool stopped waiting for."""
    result = await call(upstream, "/slow", auto_retry=2)
    assert compat.is_error(result)
    assert texts(result)[0].endswith("upstream: timed out")
    assert (info(result)["kind"], info(result)["outcome"]) == ("transient", "unknown_outcome")
    assert upstream.requests["/slow"] == 1
    assert waits == []


@pytest.mark.parametrize("safety", ["idempotent", "read_only"])
async def test_a_read_timeout_of_a_declared_tool_is_rerun(
    upstream: Upstream, waits: list[float], safety: str
) -> None:
    result = await call(upstream, "/slow", auto_retry=2, tool_safety={"forecast": safety})
    assert upstream.requests["/slow"] == 3
    assert len(waits) == 2
    assert info(result)["hidden_retries"] == 2


async def test_a_403_is_never_rerun(upstream: Upstream, waits: list[float]) -> None:
    result = await call(upstream, "/forbidden", auto_retry=3, tool_safety={"forecast": "idempotent"})
    assert compat.is_error(result)
    assert (info(result)["kind"], info(result)["status"]) == ("unrecoverable", 403)
    assert "hidden_retries" not in info(result)
    assert upstream.requests["/forbidden"] == 1
    assert waits == []


async def test_a_permission_error_is_never_rerun(waits: list[float]) -> None:
    """write_file (the test server's) is refused: ``Permission denied`` in its result."""
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, auto_retry=3, tool_safety={"write_file": "idempotent"})
        result = await session.call_tool("write_file", {"path": "/etc/passwd", "text": "x"})
        assert info(result)["kind"] == "unrecoverable"
        assert "hidden_retries" not in info(result)
        assert servers.UNRECOVERABLE_TEXT in texts(result)[0]
        counts = await session.call_tool("stats", {})
        assert '"write_file": 1' in texts(counts)[0]
    assert waits == []
