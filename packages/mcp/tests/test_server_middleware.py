"""ToolErrorServerMiddleware on FastMCP's real server: its in-memory client and stdio.

A server placement has no model loop (the client's model is not ours): test_contract.py
puts it on the adapter contract suite with a client's agent driven through the in-memory
``Client`` (C1 only); here the same behaviours are tested directly on the bytes the MCP
client receives: each kind's delivery, masking, the blocked repeat, isolated sessions, a
success unchanged, fail-open.
"""

from __future__ import annotations

import http.server
import json
import logging
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import anyio
import pytest
from pydantic import Field

pytest.importorskip("fastmcp")

import toolerr._layer
from fastmcp import Client, FastMCP
from fastmcp.client.transports import StdioTransport
from toolerr import ToolErrorLayer
from toolerr_mcp import ToolErrorServerMiddleware

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests" / "_shared"))

from fastmcp_server import SECRET, build
from shared_support import FIXABLE, TRANSIENT, UNRECOVERABLE

pytestmark = [pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]

SERVER = Path(__file__).with_name("fastmcp_server.py")
BLOCKED = "Error: this call was not executed."

# tool, arguments, the kind, its guidance
CALLS: dict[str, tuple[str, dict[str, Any], str]] = {
    "transient": ("fetch_forecast", {"city": "Paris"}, TRANSIENT),
    "unrecoverable": ("read_secret", {"path": "/etc/shadow"}, UNRECOVERABLE),
    "fixable": ("add", {"a": "two", "b": 2}, FIXABLE),
}


class _Unavailable(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"upstream down"
        self.send_response(503)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 that answers every request with 503."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Unavailable)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/forecast"
    finally:
        server.shutdown()
        server.server_close()


def wire(result: Any) -> str:
    """A ``CallToolResult`` as it goes on the wire (JSON, by alias)."""
    return str(result.model_dump_json(by_alias=True, exclude_none=True))


def text_of(result: Any) -> str:
    (block,) = result.content
    return str(block.text)


async def calls(server: Any, plan: list[tuple[str, dict[str, Any]]], **client: Any) -> list[Any]:
    async with Client(server, **client) as c:
        return [await c.call_tool_mcp(name, args) for name, args in plan]


def run_calls(server: Any, plan: list[tuple[str, dict[str, Any]]], **client: Any) -> list[Any]:
    return anyio.run(lambda: calls(server, plan, **client))


# -- each kind, byte-exact --------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("kind", list(CALLS))
def test_each_kind_reaches_the_client_with_its_guidance(url: str, kind: str, mode: str) -> None:
    """The failure text FastMCP sends without toolerr, then the kind's guidance on the next
    line (form C1, as the core renders it); the classification under ``_meta["toolerr"]``."""
    name, args, guidance = CALLS[kind]
    records: list[Any] = []
    (bare,) = run_calls(build(url), [(name, args)], mode=mode)
    (got,) = run_calls(
        build(url, middleware=ToolErrorServerMiddleware(on_record=records.append)), [(name, args)], mode=mode
    )
    assert bare.is_error and got.is_error
    original = text_of(bare)
    assert text_of(got) == f"{original}\n{guidance}"
    meta = got.meta["toolerr"]
    assert (meta["failed"], meta["kind"], meta["form"], meta["guidance"]) == (True, kind, "c1", guidance)
    assert meta["tool"] == name
    # the kit's own C1 rendering of that failure text, byte for byte
    layer = ToolErrorLayer(form="c1", client="mcp")
    assert layer.deliver_result(name, args, original, is_error=True, verdict=_verdict(kind)).text == text_of(
        got
    )
    assert [(r.tool, r.kind) for r in records] == [(name, kind)]
    assert got.structured_content is None


def _verdict(kind: str) -> Any:
    from toolerr import Verdict

    return Verdict(failed=True, kind=kind, rule=f"test:{kind}", detection="exception")  # type: ignore[arg-type]


def test_the_texts_written_out(url: str) -> None:
    """The three deliveries written out in full (FastMCP's text, then the guidance)."""
    server = build(url, middleware=ToolErrorServerMiddleware())
    got = run_calls(server, [(n, a) for n, a, _ in CALLS.values()])
    transient, unrecoverable, fixable = (text_of(r) for r in got)
    assert transient == (
        f"Error calling tool 'fetch_forecast': Server error '503 Service Unavailable' for url "
        f"'{url}?city=Paris&key={SECRET}'\n"
        "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/503\n"
        f"{TRANSIENT}"
    )
    assert unrecoverable == (
        f"Error calling tool 'read_secret': [Errno 13] Permission denied ({SECRET}): '/etc/shadow'\n{UNRECOVERABLE}"
    )
    assert fixable.startswith("1 validation error for call[add]\na\n  Input should be a valid integer")
    assert fixable.endswith(f"\n{FIXABLE}")
    assert [r.meta["toolerr"]["rule"] for r in got] == [
        "http:503",
        "exception:PermissionError",
        "exception:pydantic_core._pydantic_core.ValidationError",
    ]


def test_a_validation_error_in_the_tool_body_is_classified_from_the_pydantic_error(url: str) -> None:
    """FastMCP wraps a pydantic error raised in a tool's body once more (its private
    ``_ToolBodyError``): still classified from the pydantic error."""
    from pydantic import BaseModel

    class Reading(BaseModel):
        celsius: float

    server = build(url, middleware=ToolErrorServerMiddleware())

    @server.tool
    def parse_reading(raw: str) -> float:
        return Reading.model_validate_json(raw).celsius

    (got,) = run_calls(server, [("parse_reading", {"raw": '{"celsius": "warm"}'})])
    assert got.is_error
    assert got.meta["toolerr"]["rule"] == "exception:pydantic_core._pydantic_core.ValidationError"
    assert text_of(got).startswith("Error calling tool 'parse_reading': 1 validation error for Reading")


def test_an_unknown_tool_is_a_fixable_call(url: str) -> None:
    """FastMCP answers a call to a tool it does not have with ``Unknown tool: 'X'``: the
    same text, then the fixable guidance (the model can call a tool that exists)."""
    (bare,) = run_calls(build(url), [("get_forecast", {"city": "Paris"})])
    (got,) = run_calls(
        build(url, middleware=ToolErrorServerMiddleware()), [("get_forecast", {"city": "Paris"})]
    )
    assert text_of(bare) == "Unknown tool: 'get_forecast'"
    assert text_of(got) == f"{text_of(bare)}\n{FIXABLE}"
    assert got.meta["toolerr"]["kind"] == "fixable"


# -- masking ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(CALLS))
def test_masked_errors_are_classified_and_leak_nothing(url: str, kind: str) -> None:
    """With ``mask_error_details`` the kind still comes from the exception object; the
    client gets FastMCP's masked text and the guidance, and no word of the message, in the
    content nor under ``_meta``."""
    name, args, guidance = CALLS[kind]
    (bare,) = run_calls(build(url, mask=True), [(name, args)])
    (got,) = run_calls(build(url, mask=True, middleware=ToolErrorServerMiddleware()), [(name, args)])
    assert got.meta["toolerr"]["kind"] == kind
    assert text_of(got) == f"{text_of(bare)}\n{guidance}"
    if kind != "fixable":  # FastMCP does not mask argument validation (the caller's own input)
        assert text_of(bare) == f"Error calling tool {name!r}"
        assert SECRET not in wire(got)
        for word in ("Permission denied", "Errno", "Service Unavailable", "127.0.0.1", "mozilla"):
            assert word not in wire(got), word  # the classification (kind, rule, status) and the
            # arguments the client sent itself (in the note) only


# -- the blocked repeat -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_block_does_not_run_an_identical_repeat(url: str, mode: str) -> None:
    """``loop_action="block"``: the repeat of a failed non-transient call is answered
    without running the tool (also on the 2026-07-28 protocol, where every request has a
    new session id); a changed call runs; a transient failure may be retried."""
    ran: list[str] = []
    server = build(url, middleware=ToolErrorServerMiddleware(loop_action="block"), ran=ran.append)
    read = ("read_secret", {"path": "/etc/shadow"})
    plan = [
        read,
        read,
        ("read_secret", {"path": "/etc/passwd"}),
        CALLS["transient"][:2],
        CALLS["transient"][:2],
    ]
    got = run_calls(server, plan, mode=mode)
    assert ran == ["read_secret", "read_secret", "fetch_forecast", "fetch_forecast"]
    _, repeat, other, _, again = got
    assert text_of(repeat).startswith(BLOCKED) and repeat.is_error
    assert text_of(repeat).endswith(f"\n{UNRECOVERABLE}")
    assert repeat.meta["toolerr"]["rule"] == "ledger:blocked-repeat"
    assert repeat.meta["toolerr"]["loop"] == "repeat"
    assert not text_of(other).startswith(BLOCKED)
    assert not text_of(again).startswith(BLOCKED) and again.meta["toolerr"]["kind"] == "transient"


def test_the_default_runs_a_repeat_and_says_so(url: str) -> None:
    ran: list[str] = []
    server = build(url, middleware=ToolErrorServerMiddleware(), ran=ran.append)
    read = ("read_secret", {"path": "/etc/shadow"})
    _, repeat = run_calls(server, [read, read])
    assert ran == ["read_secret", "read_secret"]
    assert repeat.meta["toolerr"]["loop"] == "repeat"


# -- the tool's declared parameters ----------------------------------------------------------

LITERAL = "invalid literal for int() with base 10: 'forty'"


def _queries_server(middleware: Any = None) -> FastMCP:
    """Two tools that raise the same ``ValueError`` and differ only in their parameter's
    description: a saved query's name (a stored thing) or the SQL to run (a value)."""
    mcp = FastMCP("queries")
    if middleware is not None:
        mcp.add_middleware(middleware)

    @mcp.tool
    def run_saved_query(query: Annotated[str, Field(description="Name of a saved query")]) -> str:
        """Run a saved query."""
        raise ValueError(LITERAL)

    @mcp.tool
    def run_sql(query: Annotated[str, Field(description="SQL query to run")]) -> str:
        """Run a SQL query."""
        raise ValueError(LITERAL)

    return mcp


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_tools_declared_parameters_come_from_the_server(mode: str) -> None:
    """The schema FastMCP registered for the tool: the failure on a saved query's name is
    ambiguous (FastMCP's own text, nothing appended), the same one on the SQL to run fixable."""
    plan = [("run_saved_query", {"query": "churn_by_plan"}), ("run_sql", {"query": "churn_by_plan"})]
    bare_saved, bare_sql = run_calls(_queries_server(), plan, mode=mode)
    records: list[Any] = []
    saved, sql = run_calls(
        _queries_server(ToolErrorServerMiddleware(on_record=records.append)), plan, mode=mode
    )
    assert text_of(bare_saved).endswith(LITERAL)
    assert saved.is_error and sql.is_error
    assert text_of(saved) == text_of(bare_saved)
    assert (saved.meta["toolerr"]["kind"], saved.meta["toolerr"]["guidance"]) == ("ambiguous", None)
    assert text_of(sql) == f"{text_of(bare_sql)}\n{FIXABLE}"
    assert sql.meta["toolerr"]["kind"] == "fixable"
    assert [(r.tool, r.kind) for r in records] == [("run_saved_query", "ambiguous"), ("run_sql", "fixable")]


def test_a_call_of_another_version_is_read_without_the_schema() -> None:
    """A client that calls an older version of a tool (``_meta.fastmcp.version``): the
    registry's lookup by name gives the newest version's parameters, which may not be the
    called one's ("SQL query to run" in 1, "Name of a saved query" in 2), so none are used."""
    mcp = FastMCP("versions")
    mcp.add_middleware(ToolErrorServerMiddleware())

    @mcp.tool(name="query", version="1")
    def query_v1(query: Annotated[str, Field(description="SQL query to run")]) -> str:
        raise ValueError(LITERAL)

    @mcp.tool(name="query", version="2")
    def query_v2(query: Annotated[str, Field(description="Name of a saved query")]) -> str:
        raise ValueError(LITERAL)

    async def run() -> list[Any]:
        async with Client(mcp) as c:
            args = {"query": "churn_by_plan"}
            return [
                await c.call_tool_mcp("query", args),  # the newest: its own parameters
                await c.call_tool_mcp("query", args, meta={"fastmcp": {"version": "1"}}),
            ]

    newest, older = anyio.run(run)
    assert newest.meta["toolerr"]["kind"] == "ambiguous"
    assert older.meta["toolerr"]["kind"] == "fixable"
    assert text_of(older).endswith(FIXABLE)  # after a note on the repeat


# -- sessions isolated ------------------------------------------------------------------------


def test_concurrent_sessions_sharing_one_middleware_stay_apart(url: str) -> None:
    """Two clients at once on one server (handshake-era sessions: FastMCP's session scope
    is each one's session), the same calls with the same arguments: each one's failure
    blocks only its own repeat; the other's first call runs."""
    ran: list[str] = []
    middleware = ToolErrorServerMiddleware(loop_action="block")
    server = build(url, middleware=middleware, ran=ran.append)
    read = ("read_secret", {"path": "/etc/shadow"})
    results: dict[str, list[Any]] = {"a": [], "b": []}
    first_done = anyio.Event()

    async def session(who: str) -> None:
        async with Client(server, mode="legacy") as c:
            if who == "b":
                await first_done.wait()  # a has failed before b calls the same
            results[who].append(await c.call_tool_mcp(*read))
            if who == "a":
                first_done.set()
            results[who].append(await c.call_tool_mcp(*read))

    async def both() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(session, "a")
            group.start_soon(session, "b")

    anyio.run(both)
    assert ran == ["read_secret", "read_secret"]  # each session's first call ran
    for who in ("a", "b"):
        first, repeat = results[who]
        assert not text_of(first).startswith(BLOCKED), who
        assert text_of(repeat).startswith(BLOCKED), who
        assert first.meta["toolerr"]["call_id"] != repeat.meta["toolerr"]["call_id"]


def test_two_servers_sharing_one_middleware_stay_apart(url: str) -> None:
    """On the 2026-07-28 protocol in memory the scope is the server process: one middleware
    on two servers keeps a scope per server."""
    ran: list[str] = []
    middleware = ToolErrorServerMiddleware(loop_action="block")
    read = ("read_secret", {"path": "/etc/shadow"})
    one = build(url, middleware=middleware, ran=ran.append, name="one")
    two = build(url, middleware=middleware, ran=ran.append, name="two")
    run_calls(one, [read])
    (got,) = run_calls(two, [read])
    assert ran == ["read_secret", "read_secret"]
    assert not text_of(got).startswith(BLOCKED)


# -- a success unchanged ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_success_passes_byte_for_byte(url: str, mode: str) -> None:
    plan = [("echo", {"text": "hello"}), ("add", {"a": 2, "b": 3}), ("echo", {"text": "again"})]
    records: list[Any] = []
    bare = run_calls(build(url), plan, mode=mode)
    got = run_calls(
        build(url, middleware=ToolErrorServerMiddleware(on_record=records.append)), plan, mode=mode
    )
    assert [wire(r) for r in got] == [wire(r) for r in bare]
    assert json.loads(wire(got[0]))["structuredContent"] == {"text": "hello", "length": 5}
    assert records == []


# -- fail-open --------------------------------------------------------------------------------


def test_fail_open_the_original_error_passes(
    url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """toolerr's own error while classifying: a WARNING on logger ``toolerr`` and the
    client gets exactly what FastMCP sends without toolerr."""
    plan = [(n, a) for n, a, _ in CALLS.values()] + [("echo", {"text": "hi"})]
    bare = run_calls(build(url), plan)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("classification is broken")

    monkeypatch.setattr(ToolErrorLayer, "inspect_exception", broken)
    monkeypatch.setattr(ToolErrorLayer, "inspect", broken)
    caplog.set_level(logging.WARNING, logger="toolerr")
    got = run_calls(build(url, middleware=ToolErrorServerMiddleware(loop_action="block")), plan)
    assert [wire(r) for r in got] == [wire(r) for r in bare]
    warnings = [r for r in caplog.records if r.name == "toolerr" and r.levelno == logging.WARNING]
    assert warnings


def test_fail_open_when_delivery_breaks(
    url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("delivery is broken")

    (bare,) = run_calls(build(url), [CALLS["unrecoverable"][:2]])
    monkeypatch.setattr(toolerr._layer, "deliver_one", broken)
    caplog.set_level(logging.WARNING, logger="toolerr")
    (got,) = run_calls(build(url, middleware=ToolErrorServerMiddleware()), [CALLS["unrecoverable"][:2]])
    assert wire(got) == wire(bare)
    assert any(r.name == "toolerr" and r.levelno == logging.WARNING for r in caplog.records)


# -- options ----------------------------------------------------------------------------------


def test_a_form_an_mcp_result_cannot_carry_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot be delivered by an MCP server"):
        ToolErrorServerMiddleware(form="c3")


def test_c0_classifies_without_changing_the_text(url: str) -> None:
    name, args, _ = CALLS["unrecoverable"]
    (bare,) = run_calls(build(url), [(name, args)])
    (got,) = run_calls(build(url, middleware=ToolErrorServerMiddleware(form="c0")), [(name, args)])
    assert text_of(got) == text_of(bare)
    assert got.meta["toolerr"]["kind"] == "unrecoverable"


def test_the_package_imports_without_fastmcp() -> None:
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'fastmcp': raise ImportError('no fastmcp here')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import toolerr_mcp\n"
        "assert 'fastmcp' not in sys.modules\n"
        "try:\n"
        "    toolerr_mcp.ToolErrorServerMiddleware\n"
        "except ImportError as e:\n"
        "    assert 'toolerr-mcp[fastmcp]' in str(e), e\n"
        "else:\n"
        "    raise SystemExit('no ImportError')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# -- over stdio: a real subprocess server -----------------------------------------------------


def stdio_calls(
    url: str, flags: list[str], plan: list[tuple[str, dict[str, Any]]], log: Path
) -> tuple[list[Any], list[str]]:
    transport = StdioTransport(sys.executable, [str(SERVER), url, *flags], log_file=log)
    results = run_calls(transport, plan)
    ran = [line.split(" ", 1)[1] for line in log.read_text().splitlines() if line.startswith("ran ")]
    return results, ran


def test_over_stdio(url: str, tmp_path: Path) -> None:
    """The same deliveries from a server in its own process, over stdio: each kind
    byte-exact against the bare server, a success byte for byte, masking, the blocked repeat."""
    plan = [(n, a) for n, a, _ in CALLS.values()] + [("echo", {"text": "hi"})]
    bare, _ = stdio_calls(url, ["--bare"], plan, tmp_path / "bare.log")
    got, _ = stdio_calls(url, [], plan, tmp_path / "toolerr.log")
    for kind, b, g in zip(CALLS, bare, got):
        assert text_of(g) == f"{text_of(b)}\n{CALLS[kind][2]}"
        assert g.is_error and g.meta["toolerr"]["kind"] == kind
    assert wire(got[-1]) == wire(bare[-1])

    masked, _ = stdio_calls(url, ["--mask"], plan[:2], tmp_path / "masked.log")
    assert [r.meta["toolerr"]["kind"] for r in masked] == ["transient", "unrecoverable"]
    assert all(SECRET not in wire(r) for r in masked)

    read = CALLS["unrecoverable"][:2]
    blocked, ran = stdio_calls(url, ["--block"], [read, read], tmp_path / "block.log")
    assert ran == ["read_secret"]
    assert text_of(blocked[1]).startswith(BLOCKED)


# -- retry safety from the tools' annotations ----------------------------------------------

UNKNOWN_OUTCOME = (
    "This may be a temporary failure, but the call may already have taken effect. "
    "Check whether it did before calling the tool again."
)


def _timing_out(middleware: ToolErrorServerMiddleware, ran: list[str], name: str = "timeouts") -> Any:
    """A server whose ``lookup`` (annotated read-only) and ``charge`` (no annotations)
    both time out."""
    from fastmcp import FastMCP
    from mcp.types import ToolAnnotations

    server = FastMCP(name)
    server.add_middleware(middleware)

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True))
    def lookup(key: str) -> str:
        ran.append("lookup")
        raise TimeoutError("timed out")

    @server.tool
    def charge(key: str) -> str:
        ran.append("charge")
        raise TimeoutError("timed out")

    return server


def test_a_read_only_annotation_makes_a_timeout_retryable() -> None:
    """``readOnlyHint``: the read timeout is a temporary failure the model may retry, and
    the identical resend runs; the unannotated tool's timeout may have taken effect, and its
    identical resend is not run (the idempotency guard)."""
    ran: list[str] = []
    server = _timing_out(ToolErrorServerMiddleware(), ran)
    plan = [
        ("lookup", {"key": "k"}),
        ("lookup", {"key": "k"}),
        ("charge", {"key": "k"}),
        ("charge", {"key": "k"}),
    ]
    first, again, charged, resent = run_calls(server, plan)
    assert ran == ["lookup", "lookup", "charge"]
    assert text_of(first) == f"Error calling tool 'lookup': timed out\n{TRANSIENT}"
    assert text_of(again) == text_of(first)
    assert text_of(charged) == f"Error calling tool 'charge': timed out\n{UNKNOWN_OUTCOME}"
    assert text_of(resent).startswith(f"{BLOCKED} The same call failed just before with an unknown outcome")


def test_the_given_tool_safety_wins_over_the_annotation() -> None:
    ran: list[str] = []
    server = _timing_out(ToolErrorServerMiddleware(tool_safety={"lookup": "unsafe"}), ran)
    first, resent = run_calls(server, [("lookup", {"key": "k"}), ("lookup", {"key": "k"})])
    assert ran == ["lookup"]
    assert text_of(first).endswith(f"\n{UNKNOWN_OUTCOME}") and text_of(resent).startswith(BLOCKED)


def test_a_name_two_servers_annotate_differently_gets_no_safety() -> None:
    """One middleware on two servers whose ``lookup`` differ (read-only on one, nothing
    declared on the other): neither's timeout is taken as retryable once both are seen."""
    from fastmcp import FastMCP

    middleware = ToolErrorServerMiddleware()
    ran: list[str] = []
    declared = _timing_out(middleware, ran, "declared")
    other = FastMCP("other")
    other.add_middleware(middleware)

    @other.tool
    def lookup(key: str) -> str:
        ran.append("other lookup")
        raise TimeoutError("timed out")

    (before,) = run_calls(declared, [("lookup", {"key": "a"})])
    (elsewhere,) = run_calls(other, [("lookup", {"key": "b"})])
    (after,) = run_calls(declared, [("lookup", {"key": "c"})])
    assert text_of(before).endswith(f"\n{TRANSIENT}")
    assert text_of(elsewhere).endswith(f"\n{UNKNOWN_OUTCOME}")
    assert text_of(after).endswith(f"\n{UNKNOWN_OUTCOME}")


def test_auto_retry_reruns_a_timeout_of_a_read_only_annotated_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolerr._kit_retry as kit_retry

    waits: list[float] = []

    async def asleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(kit_retry, "_asleep", asleep)
    ran: list[str] = []
    server = _timing_out(ToolErrorServerMiddleware(auto_retry=1), ran)
    looked, charged = run_calls(server, [("lookup", {"key": "k"}), ("charge", {"key": "k"})])
    assert ran == ["lookup", "lookup", "charge"] and len(waits) == 1
    assert text_of(looked).endswith(f"\n{TRANSIENT}") and text_of(charged).endswith(f"\n{UNKNOWN_OUTCOME}")
