"""The proxy end to end: a real stdio client, the proxy as a subprocess, real upstream servers."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_servers as servers
import pytest
import toolerr
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from raw_server import EXTENDED, INPUT_REQUIRED, RECOVERED
from toolerr_mcp import META_KEY
from toolerr_mcp import _compat as compat

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

RAW_SERVER = str(Path(__file__).with_name("raw_server.py"))
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bytes", "version": "0"}}


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text"]


def meta(result: Any) -> dict[str, Any]:
    assert result.meta is not None
    value: dict[str, Any] = result.meta[META_KEY]
    return value


@asynccontextmanager
async def proxied(
    tmp_path: Path, *upstream: str, options: tuple[str, ...] = ()
) -> AsyncIterator[tuple[ClientSession, Path]]:
    """A ClientSession to ``toolerr-mcp proxy [options] -- upstream`` over stdio; the
    proxy's stderr goes to the returned file."""
    command = upstream or (sys.executable, servers.SCRIPT)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolerr_mcp", "proxy", *options, "--", *command],
        env=dict(os.environ),
    )
    stderr = tmp_path / "proxy-stderr.txt"
    with stderr.open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            with anyio.fail_after(60):
                await session.initialize()
            yield session, stderr


@asynccontextmanager
async def direct() -> AsyncIterator[ClientSession]:
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(servers.stdio_params(), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def test_tools_are_mirrored_with_annotations(tmp_path: Path) -> None:
    async with direct() as upstream:
        expected = (await upstream.list_tools()).tools
    async with proxied(tmp_path) as (session, _):
        listed = (await session.list_tools()).tools
    assert [t.model_dump(by_alias=True) for t in listed] == [t.model_dump(by_alias=True) for t in expected]
    echo = next(t for t in listed if t.name == "echo")
    assert echo.annotations is not None
    assert echo.annotations.model_dump(by_alias=True)["readOnlyHint"] is True


async def test_successes_are_byte_identical(tmp_path: Path) -> None:
    calls = [
        ("echo", {"text": "héllo \u2603"}),
        ("image", {}),
        ("forecast", {"city": "Paris"}),
        ("huge", {"size": 300_000}),
    ]
    async with direct() as upstream:
        expected = [await upstream.call_tool(name, args) for name, args in calls]
    async with proxied(tmp_path) as (session, _):
        got = [await session.call_tool(name, args) for name, args in calls]
    for want, have in zip(expected, got, strict=True):
        assert have.model_dump_json(by_alias=True) == want.model_dump_json(by_alias=True)


async def test_resources_and_prompts_pass_through(tmp_path: Path) -> None:
    async with direct() as upstream:
        want_resources = await upstream.list_resources()
        want_read = await upstream.read_resource(want_resources.resources[0].uri)
        want_prompt = await upstream.get_prompt("ask", {"topic": "MCP"})
    async with proxied(tmp_path) as (session, _):
        resources = await session.list_resources()
        assert resources.model_dump_json() == want_resources.model_dump_json()
        read = await session.read_resource(resources.resources[0].uri)
        assert read.model_dump_json() == want_read.model_dump_json()
        assert [p.name for p in (await session.list_prompts()).prompts] == ["ask"]
        prompt = await session.get_prompt("ask", {"topic": "MCP"})
        assert prompt.model_dump_json() == want_prompt.model_dump_json()
        with pytest.raises(compat.MCP_ERROR):  # the upstream's own error, passed on
            await session.read_resource("memo://missing")
        assert texts(await session.call_tool("echo", {"text": "ok"})) == ["ok"]


async def test_a_failure_is_annotated(tmp_path: Path) -> None:
    async with proxied(tmp_path) as (session, _):
        result = await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
        assert compat.is_error(result)
        assert servers.FIXABLE_TEXT in texts(result)[0]
        assert texts(result)[-1] == toolerr.adapters.GUIDANCE["fixable"]
        info = meta(result)
        assert info["kind"] == "fixable"
        assert info["note"].startswith("Note from the tool runtime: the last attempt called convert")

        rpc = await session.call_tool("fail_rpc", {"code": -32602})  # a JSON-RPC error upstream
        assert compat.is_error(rpc)
        assert texts(rpc)[0].startswith("MCP error -32602")
        assert meta(rpc)["kind"] == "fixable"


@pytest.mark.parametrize("rpc", [False, True], ids=["is_error", "json_rpc_error"])
async def test_the_declared_parameters_of_the_listing_it_relays(tmp_path: Path, rpc: bool) -> None:
    """The proxy keeps each tool's inputSchema from the tools/list answer it relays: one
    failure text, ambiguous (sent as the upstream sent it) for the tool that declares its
    query a saved one, fixable (the guidance appended) for the one that runs the SQL given."""
    args: dict[str, Any] = {"query": "churn_by_plan", **({"as_rpc_error": True} if rpc else {})}
    async with direct() as upstream:
        bare = None if rpc else await upstream.call_tool("run_saved_query", args)
    async with proxied(tmp_path) as (session, _):
        await session.list_tools()
        saved = await session.call_tool("run_saved_query", args)
        sql = await session.call_tool("run_sql", args)
    shown = f"MCP error -32603: {servers.LITERAL_TEXT}" if rpc else texts(bare)[0]
    assert shown.endswith(servers.LITERAL_TEXT)
    assert compat.is_error(saved) and compat.is_error(sql)
    assert texts(saved) == [shown]
    assert (meta(saved)["kind"], meta(saved)["guidance"]) == ("ambiguous", None)
    assert texts(sql) == [shown.replace("run_saved_query", "run_sql"), toolerr.adapters.GUIDANCE["fixable"]]
    assert meta(sql)["kind"] == "fixable"
    if bare is not None:  # the upstream's own result, byte for byte, with toolerr's _meta beside it
        dumped = saved.model_dump(by_alias=True, mode="json", exclude_none=True)
        dumped.pop("_meta")
        assert dumped == bare.model_dump(by_alias=True, mode="json", exclude_none=True)


async def test_form_c0_and_loop_block(tmp_path: Path) -> None:
    async with proxied(tmp_path, options=("--form", "c0", "--loop-action", "block")) as (session, _):
        args = {"path": "/etc/passwd", "text": "x"}
        first = await session.call_tool("write_file", args)
        assert len(first.content) == 1
        assert meta(first)["kind"] == "unrecoverable"
        second = await session.call_tool("write_file", args)
        assert texts(second)[0].startswith("Error: this call was not executed.")
        counts = json.loads(texts(await session.call_tool("stats", {}))[0])
        assert counts["write_file"] == 1


async def test_loop_stop_answers_with_an_error(tmp_path: Path) -> None:
    async with proxied(tmp_path, options=("--loop-action", "stop")) as (session, _):
        await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
        stopped = await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
        assert compat.is_error(stopped)
        assert "toolerr stopped the run" in texts(stopped)[0]


async def test_call_timeout_never_hangs_the_client(tmp_path: Path) -> None:
    async with proxied(tmp_path, options=("--call-timeout", "0.5")) as (session, _):
        started = time.monotonic()
        with anyio.fail_after(20):
            result = await session.call_tool("slow", {"seconds": 60})
        assert time.monotonic() - started < 10
        assert compat.is_error(result)
        assert meta(result)["kind"] == "transient"
        assert texts(result)[-1] == toolerr.adapters.GUIDANCE["transient"]  # slow is read-only
        assert texts(await session.call_tool("echo", {"text": "still here"})) == ["still here"]


async def test_upstream_crash_and_recovery(tmp_path: Path) -> None:
    async with proxied(tmp_path) as (session, stderr):
        first_pid = json.loads(texts(await session.call_tool("pid", {}))[0])
        with anyio.fail_after(30):
            died = await session.call_tool("die", {})
        assert compat.is_error(died)
        assert "closed the connection during the call" in texts(died)[0]
        assert meta(died)["kind"] == "transient"
        assert meta(died)["outcome"] == "unknown_outcome"  # it may have taken effect
        assert texts(died)[-1] == toolerr.adapters.GUIDANCE_CHECK_FIRST
        with anyio.fail_after(60):
            after = await session.call_tool("echo", {"text": "back"})
        assert texts(after) == ["back"]
        second_pid = json.loads(texts(await session.call_tool("pid", {}))[0])
        assert second_pid != first_pid
        # the tool list still answers after the restart
        assert "echo" in [t.name for t in (await session.list_tools()).tools]
    log = stderr.read_text()
    assert "closed the connection during the call" in log
    assert "started again" in log
    assert "test server: exiting in the middle of a call" in log  # the upstream's own stderr


async def test_upstream_that_cannot_start(tmp_path: Path) -> None:
    upstream = (sys.executable, servers.SCRIPT, "exit-at-start")
    async with proxied(tmp_path, *upstream) as (session, stderr):
        with pytest.raises(compat.MCP_ERROR, match="could not be started"):
            await session.list_tools()
        for _ in range(4):  # each call tries to start it again; none invites a retry
            with anyio.fail_after(60):
                result = await session.call_tool("echo", {"text": "x"})
            assert compat.is_error(result)
            text = texts(result)[0]
            assert "could not be started" in text
            assert "exit-at-start" in text  # the command
            assert "exited with status 2" in text  # its exit status
            assert "test server: cannot start (missing configuration)" in text  # its last stderr lines
            assert "configuration problem" in text
            assert meta(result)["kind"] == "unrecoverable"
            assert toolerr.adapters.GUIDANCE["unrecoverable"] in texts(result)[-1]
            assert "Retrying the same call is expected" not in " ".join(texts(result))
            assert "was not executed" not in text  # never blocked: the server is asked each time
    log = stderr.read_text()
    assert "could not be started" in log
    assert "test server: cannot start (missing configuration)" in log


async def test_missing_command(tmp_path: Path) -> None:
    async with proxied(tmp_path, "/nonexistent/mcp-server") as (session, _):
        result = await session.call_tool("echo", {"text": "x"})
        assert compat.is_error(result)
        assert "could not be started" in texts(result)[0]
        assert "No such file" in texts(result)[0]


async def test_upstream_that_fails_once_then_starts(tmp_path: Path) -> None:
    flag = tmp_path / "fail-next-start"
    flag.write_text("1")
    upstream = (sys.executable, servers.SCRIPT, "fail-if-flag", str(flag))
    async with proxied(tmp_path, *upstream) as (session, _):
        result = await session.call_tool("echo", {"text": "x"})  # started again for this call
        assert texts(result) == ["x"]
        assert not compat.is_error(result)


async def test_upstream_that_hangs_at_start(tmp_path: Path) -> None:
    """initialize is answered within the start-up timeout, with an error that says why."""
    upstream = (sys.executable, servers.SCRIPT, "hang-at-start")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolerr_mcp", "proxy", "--startup-timeout", "1", "--", *upstream],
        env=dict(os.environ),
    )
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            started = time.monotonic()
            with (
                anyio.fail_after(20),
                pytest.raises(compat.MCP_ERROR, match="did not answer initialize within 1 s"),
            ):
                await session.initialize()
            assert time.monotonic() - started < 10


# -- a misbehaving upstream ----------------------------------------------------------------


async def test_non_utf8_bytes_are_replaced(tmp_path: Path) -> None:
    async with proxied(tmp_path, sys.executable, RAW_SERVER) as (session, _):
        result = await session.call_tool("bytes", {})
        assert not compat.is_error(result)
        assert texts(result) == ["caf\ufffd \ufffd\ufffd ok"]


async def test_invalid_output_is_skipped(tmp_path: Path) -> None:
    async with proxied(tmp_path, sys.executable, RAW_SERVER) as (session, _):
        result = await session.call_tool("noise", {})  # a non-JSON line, then the result
        assert texts(result) == ["after the noise"]


async def test_invalid_result_is_reported(tmp_path: Path) -> None:
    async with proxied(tmp_path, sys.executable, RAW_SERVER) as (session, _):
        with anyio.fail_after(30):
            result = await session.call_tool("invalid", {})
        assert compat.is_error(result)
        assert "not valid" in texts(result)[0]
        assert texts(await session.call_tool("bytes", {}))  # the proxy goes on


async def test_structured_content_that_breaks_its_schema_is_reported(tmp_path: Path) -> None:
    async with proxied(tmp_path, sys.executable, RAW_SERVER) as (session, _):
        result = await session.call_tool("schema", {})
        assert compat.is_error(result)
        assert "Invalid structured content returned by tool schema" in texts(result)[0]
        assert meta(result)["failed"] is True


async def test_a_start_failure_blocks_nothing_once_the_server_runs(tmp_path: Path) -> None:
    """With block, the calls that failed while the server could not start are not blocked
    once it runs (their failure was the configuration's, not theirs)."""
    flag = tmp_path / "fail-next-start"
    flag.write_text("1")
    upstream = (sys.executable, servers.SCRIPT, "fail-if-flag", str(flag))
    async with proxied(tmp_path, *upstream, options=("--loop-action", "block")) as (session, _):
        flag.write_text("1")  # the start at initialize failed; the next one fails too
        with anyio.fail_after(60):
            failed = await session.call_tool("echo", {"text": "x"})
            assert meta(failed)["kind"] == "unrecoverable"
            assert "echo" in [t.name for t in (await session.list_tools()).tools]  # it starts now
            again = await session.call_tool("echo", {"text": "x"})
    assert texts(again) == ["x"]


def test_a_long_upstream_command_keeps_its_arguments_in_the_messages() -> None:
    """The command in the proxy's errors is cut in the middle, not at the end: an
    interpreter deep in a virtual environment must not hide the server and its arguments
    (what tells two upstreams apart), whatever the checkout's path."""
    from toolerr_mcp._proxy import Upstream

    venv_python = "/home/someone/projects/agent-platform/.venv-production-2026/bin/python3.11"
    command = [venv_python, "-m", "company_mcp_servers.inventory", "--config", "/etc/inventory/prod.toml"]
    display = Upstream(command).display
    assert len(display) <= 120
    assert display.startswith("/home/someone/")
    assert display.endswith("--config /etc/inventory/prod.toml")
    short = [sys.executable, "server.py"]
    assert Upstream(short).display == f"{sys.executable} server.py"


async def call_as_bytes(tool: str, **options: Any) -> dict[str, Any]:
    """The proxy (in this process, over the raw server) answering one ``tools/call``, as the
    JSON its client reads (a client SDK would drop what it does not know); ``options``: the
    proxy's policy options."""
    import asyncio

    from toolerr_mcp import Proxy

    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": {}}},
    ]
    lines: asyncio.Queue[bytes] = asyncio.Queue()
    answers: dict[Any, Any] = {}

    def write(line: bytes) -> None:
        message = json.loads(line.decode("utf-8"))  # what a client reads: UTF-8 JSON
        answers[message.get("id")] = message
        if message.get("id") == 2:
            lines.put_nowait(b"")  # the client closes its side

    for request in requests:
        lines.put_nowait(json.dumps(request).encode() + b"\n")
    with open(os.devnull, "w") as errlog:
        proxy = Proxy([sys.executable, RAW_SERVER], errlog=errlog, **options)
        with anyio.fail_after(30):
            await proxy.serve(lines.get, write)
    assert 2 in answers, "the call was never answered"
    answer: dict[str, Any] = answers[2]["result"]
    return answer


async def test_a_failed_result_keeps_the_fields_the_sdk_does_not_know() -> None:
    """The proxy's answer to a failed call: the upstream's result with the guidance
    appended and the classification in ``_meta``, its own fields (newer protocol
    revisions, vendor extensions) kept."""
    result = await call_as_bytes("extended")
    assert result["x-trace"] == {"id": "abc"}
    assert result["content"][0] == {
        "type": "text",
        "text": "Error: 503 Service Unavailable",
        "x-vendor": "kept",
    }
    assert result["content"][1:] == [{"type": "text", "text": toolerr.adapters.GUIDANCE["transient"]}]
    assert result["isError"] is True
    assert result["_meta"]["vendor"] == 1 and result["_meta"][META_KEY]["kind"] == "transient"


async def test_a_failed_result_with_a_lone_surrogate_is_answered() -> None:
    """A failed result whose text holds a lone surrogate (valid JSON, ``"\\ud800"``, not
    valid UTF-8): the client gets the annotated result with the text as the upstream sent
    it, not silence."""
    result = await call_as_bytes("surrogate")
    assert result["isError"] is True
    assert result["content"][0]["text"] == "Error: 503 Service Unavailable \ud800"
    assert result["content"][-1]["text"] == toolerr.adapters.GUIDANCE["transient"]


async def test_a_result_that_cannot_be_sent_annotated_passes_as_the_upstream_sent_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Fail open at the last step too: when the annotated result cannot be written, the
    client gets the upstream's own answer (logged at WARNING), never silence."""
    import toolerr_mcp._proxy as proxy_module

    def broken(*args: Any) -> Any:
        raise RuntimeError("toolerr bug")

    monkeypatch.setattr(proxy_module, "_annotated", broken)
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        result = await call_as_bytes("extended")
    assert result == EXTENDED
    assert "could not send the annotated result of extended" in caplog.text


async def test_a_failed_result_rerun_hidden_is_answered_with_the_last_attempt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """auto_retry=2: the upstream's 503 results are sent again, hidden; the client gets the
    third answer, the success, as the upstream sent it. With auto_retry=1 the second 503,
    counting one hidden retry."""
    waits: list[float] = []

    async def asleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("toolerr._kit_retry._asleep", asleep)
    assert await call_as_bytes("flaky", auto_retry=2) == RECOVERED
    assert len(waits) == 2
    failed = await call_as_bytes("flaky", auto_retry=1)
    assert failed["content"][0] == EXTENDED["content"][0] and failed["x-trace"] == EXTENDED["x-trace"]
    assert (failed["_meta"][META_KEY]["kind"], failed["_meta"][META_KEY]["hidden_retries"]) == (
        "transient",
        1,
    )
    assert len(waits) == 3


async def test_an_input_required_answer_passes_as_it_is() -> None:
    """A ``tools/call`` answered with ``resultType: "input_required"`` (the server asks the
    client for input first) is no tool result yet: relayed as it is, not reported as an
    invalid result."""
    assert await call_as_bytes("ask") == INPUT_REQUIRED
