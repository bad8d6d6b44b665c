"""RecoveringSession against real MCP servers, in-process and over stdio."""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import mcp_servers as servers
import pytest
import toolerr
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from toolerr_mcp import META_KEY, RecoveringSession, _compat
from toolerr_mcp import _compat as compat

pytestmark = pytest.mark.anyio

CHECK_FIRST = toolerr.adapters.GUIDANCE_CHECK_FIRST


class RecordingSession(ClientSession):
    """The real ClientSession, keeping the last result it returned (for identity checks)."""

    last: Any = None

    async def call_tool(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.last = await super().call_tool(*args, **kwargs)
        return self.last


def texts(result: Any) -> list[str]:
    return [block.text for block in result.content if getattr(block, "type", None) == "text"]


def meta(result: Any) -> dict[str, Any]:
    assert result.meta is not None, "a failed result carries _meta"
    value = result.meta[META_KEY]
    assert isinstance(value, dict)
    return value


async def stats(session: Any) -> dict[str, int]:
    result = await session.call_tool("stats", {})
    counts: dict[str, int] = json.loads(texts(result)[0])
    return counts


@pytest.fixture
async def session() -> Any:
    async with servers.connect(servers.make_server()) as inner:
        wrapped = RecoveringSession(inner)
        await wrapped.list_tools()
        yield wrapped


# -- successes ---------------------------------------------------------------------------


async def test_success_is_the_very_same_object() -> None:
    from mcp.shared.memory import create_client_server_memory_streams

    server = servers.make_server()
    low = servers.lowlevel(server)
    async with create_client_server_memory_streams() as (client, srv), anyio.create_task_group() as tg:
        tg.start_soon(lambda: low.run(srv[0], srv[1], low.create_initialization_options()))
        async with RecordingSession(client[0], client[1]) as inner:
            await inner.initialize()
            session = RecoveringSession(inner)
            for name, args in [("echo", {"text": "hi"}), ("image", {}), ("forecast", {"city": "Paris"})]:
                result = await session.call_tool(name, args)
                assert result is inner.last
                assert result.meta is None or META_KEY not in result.meta
        tg.cancel_scope.cancel()


async def test_success_bytes_equal_a_direct_call(session: RecoveringSession) -> None:
    for name, args in [
        ("echo", {"text": "hi"}),
        ("image", {}),
        ("forecast", {"city": "Oslo"}),
        ("huge", {"size": 10}),
    ]:
        wrapped = await session.call_tool(name, args)
        direct = await session.session.call_tool(name, args)
        assert wrapped.model_dump_json(by_alias=True) == direct.model_dump_json(by_alias=True)
        assert not compat.is_error(wrapped)


# -- failures the server reports -----------------------------------------------------------


async def test_transient_tool_error_gets_retry_guidance(session: RecoveringSession) -> None:
    result = await session.call_tool("search", {"query": "mcp"})
    assert compat.is_error(result)
    assert servers.TRANSIENT_TEXT in texts(result)[0]
    assert texts(result)[-1] == toolerr.adapters.GUIDANCE["transient"]
    info = meta(result)
    assert info["failed"] is True
    assert info["kind"] == "transient"
    assert info["guidance"] == toolerr.adapters.GUIDANCE["transient"]
    assert info["note"].startswith(
        'Note from the tool runtime: the last attempt called search with query="mcp"'
    )
    assert info["note"].endswith(toolerr.adapters.GUIDANCE["transient"])


async def test_fixable_tool_error(session: RecoveringSession) -> None:
    result = await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
    assert compat.is_error(result)
    assert len(result.content) == 2
    assert servers.FIXABLE_TEXT in texts(result)[0]
    assert texts(result)[1] == toolerr.adapters.GUIDANCE["fixable"]
    assert meta(result)["kind"] == "fixable"


async def test_unrecoverable_tool_error(session: RecoveringSession) -> None:
    result = await session.call_tool("write_file", {"path": "/etc/passwd", "text": "x"})
    assert texts(result)[-1] == toolerr.adapters.GUIDANCE["unrecoverable"]
    assert meta(result)["kind"] == "unrecoverable"


async def test_unexpected_exception_keeps_the_result(session: RecoveringSession) -> None:
    result = await session.call_tool("crash", {})
    assert compat.is_error(result)
    info = meta(result)
    assert info["failed"] is True
    if servers.MAJOR >= 2:  # the SDK withholds the text: nothing says what kind it is
        assert texts(result) == ["Error executing tool crash"]
        assert info["kind"] == "ambiguous"
        assert info["guidance"] is None
        assert info["note"] is None


async def test_invalid_arguments_are_fixable(session: RecoveringSession) -> None:
    result = await session.call_tool("add", {"a": "x"})
    assert compat.is_error(result)
    assert meta(result)["kind"] == "fixable"
    assert texts(result)[-1] == toolerr.adapters.GUIDANCE["fixable"]


async def test_unknown_tool_is_fixable(session: RecoveringSession) -> None:
    result = await session.call_tool("no_such_tool", {})
    assert compat.is_error(result)
    assert "no_such_tool" in texts(result)[0]
    assert meta(result)["kind"] == "fixable"


@pytest.mark.parametrize("code", [-32602, -32601])
async def test_json_rpc_errors_become_failed_results(session: RecoveringSession, code: int) -> None:
    result = await session.call_tool("fail_rpc", {"code": code})
    assert compat.is_error(result)
    assert texts(result)[0].startswith(f"MCP error {code}: ")
    assert meta(result)["kind"] == "fixable"
    assert texts(result)[-1] == toolerr.adapters.GUIDANCE["fixable"]


async def test_error_text_in_a_success_keeps_the_flag(session: RecoveringSession) -> None:
    result = await session.call_tool("note", {"name": "todo"})
    assert not compat.is_error(result)  # the text alone is not certain enough to flip it
    assert len(result.content) == 1
    assert meta(result)["kind"] == "ambiguous"


# -- the tool's declared parameters ----------------------------------------------------------

QUERY = {"query": "churn_by_plan"}
RPC_TEXT = f"MCP error -32603: {servers.LITERAL_TEXT}"


async def _queries(session: RecoveringSession, rpc: bool) -> tuple[Any, Any, list[str]]:
    """run_saved_query and run_sql with the same arguments through ``session``, and the text
    the server itself answers (an is_error result's, or the JSON-RPC error as toolerr shows it)."""
    args = {**QUERY, "as_rpc_error": True} if rpc else QUERY
    saved = await session.call_tool("run_saved_query", args)
    sql = await session.call_tool("run_sql", args)
    bare = [RPC_TEXT] if rpc else texts(await session.session.call_tool("run_saved_query", args))
    return saved, sql, bare


def _assert_ambiguous_then_fixable(saved: Any, sql: Any, bare: list[str]) -> None:
    """The stored query's failure as the server sent it, nothing appended (ambiguous: the value
    came from what the tool read); the SQL query's with the fixable guidance."""
    assert bare[0].endswith(servers.LITERAL_TEXT)
    assert compat.is_error(saved) and compat.is_error(sql)
    assert texts(saved) == bare
    assert (meta(saved)["kind"], meta(saved)["guidance"], meta(saved)["note"]) == ("ambiguous", None, None)
    assert texts(sql) == [bare[0].replace("run_saved_query", "run_sql"), toolerr.adapters.GUIDANCE["fixable"]]
    assert meta(sql)["kind"] == "fixable"
    assert meta(sql)["note"].endswith(toolerr.adapters.GUIDANCE["fixable"])


@pytest.mark.parametrize("rpc", [False, True], ids=["is_error", "json_rpc_error"])
async def test_a_failure_on_a_declared_stored_reference_is_ambiguous(
    session: RecoveringSession, rpc: bool
) -> None:
    """One failure text, two tools that differ only in their schema: "Name of a saved query"
    declares the argument a stored thing, "SQL query to run" a value the model wrote."""
    _assert_ambiguous_then_fixable(*await _queries(session, rpc))


@pytest.mark.parametrize("rpc", [False, True], ids=["is_error", "json_rpc_error"])
async def test_declared_parameters_are_listed_before_a_failure_is_classified(rpc: bool) -> None:
    """No listing seen: the session lists the tools before classifying the first failure."""
    async with servers.connect(servers.make_server()) as inner:
        _assert_ambiguous_then_fixable(*await _queries(RecoveringSession(inner), rpc))


async def test_without_a_listing_no_parameters_are_declared() -> None:
    """Nothing listed (fetch_annotations=False): the failure is read from its words and the
    arguments alone, fixable for both tools."""
    async with servers.connect(servers.make_server()) as inner:
        saved, sql, _ = await _queries(RecoveringSession(inner, fetch_annotations=False), False)
    for result in (saved, sql):
        assert meta(result)["kind"] == "fixable"
        assert texts(result)[-1] == toolerr.adapters.GUIDANCE["fixable"]


# -- timeouts and retry safety -----------------------------------------------------------------


async def test_timeout_of_a_read_only_tool_invites_a_retry(session: RecoveringSession) -> None:
    with anyio.fail_after(10):
        result = await session.call_tool("slow", {"seconds": 30}, read_timeout_seconds=0.3)
    assert compat.is_error(result)
    assert texts(result)[0].startswith("MCP error ")
    info = meta(result)
    assert info["kind"] == "transient"
    assert info["outcome"] == "unknown_outcome"
    assert texts(result)[-1] == toolerr.adapters.GUIDANCE["transient"]


async def test_timeout_of_a_write_says_check_first(session: RecoveringSession) -> None:
    result = await session.call_tool("charge", {"amount": 5, "seconds": 30}, read_timeout_seconds=0.3)
    assert meta(result)["outcome"] == "unknown_outcome"
    assert texts(result)[-1] == CHECK_FIRST


async def test_annotations_are_fetched_when_no_listing_was_seen() -> None:
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner)  # list_tools never called
        result = await session.call_tool("slow", {"seconds": 30}, read_timeout_seconds=0.3)
        assert texts(result)[-1] == toolerr.adapters.GUIDANCE["transient"]


async def test_user_tool_safety_wins_over_annotations() -> None:
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, tool_safety={"slow": "unsafe"})
        await session.list_tools()
        result = await session.call_tool("slow", {"seconds": 30}, read_timeout_seconds=0.3)
        assert texts(result)[-1] == CHECK_FIRST


async def test_timeout_from_the_session_default() -> None:
    async with servers.connect(servers.make_server(), read_timeout=0.3) as inner:
        session = RecoveringSession(inner)
        result = await session.call_tool("slow", {"seconds": 30})
        assert meta(result)["kind"] == "transient"


# -- loops ---------------------------------------------------------------------------------


async def test_loops_are_noted_by_default(session: RecoveringSession) -> None:
    args = {"path": "/etc/passwd", "text": "x"}
    await session.call_tool("write_file", args)
    second = await session.call_tool("write_file", dict(args))
    assert (await stats(session))["write_file"] == 2  # the default loop action is note
    assert meta(second)["loop"] is not None


async def test_block_answers_an_identical_repeat_without_the_server() -> None:
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, loop_action="block")
        await session.list_tools()
        await _block_answers_an_identical_repeat(session)


async def _block_answers_an_identical_repeat(session: RecoveringSession) -> None:
    args = {"path": "/etc/passwd", "text": "x"}
    first = await session.call_tool("write_file", args)
    second = await session.call_tool("write_file", dict(args))
    assert compat.is_error(second)
    assert texts(second)[0].startswith("Error: this call was not executed.")
    assert meta(second)["kind"] == "unrecoverable"
    assert meta(second)["loop"] is not None or meta(second)["guidance"] is not None
    assert (await stats(session))["write_file"] == 1
    assert first.content[0] is not second.content[0]
    # changed arguments are not a repeat: they reach the server
    await session.call_tool("write_file", {"path": "/etc/hosts", "text": "x"})
    assert (await stats(session))["write_file"] == 2


async def test_transient_retries_reach_the_server_within_the_budget() -> None:
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, retry_budget=2, loop_action="block")
        await session.list_tools()
        results = [await session.call_tool("search", {"query": "q"}) for _ in range(5)]
        # attempts 1..3 (two retries) run; then the failure counts as unrecoverable
        assert (await stats(session))["search"] == 3
        assert meta(results[2])["kind"] == "unrecoverable"
        assert texts(results[3])[0].startswith("Error: this call was not executed.")


async def test_stop_raises_tool_loop_error() -> None:
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, loop_action="stop")
        await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
        with pytest.raises(toolerr.ToolLoopError):
            await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
        assert (await stats(session))["convert"] == 1


async def test_note_lets_the_repeat_run() -> None:
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, loop_action="note")
        await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
        repeat = await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
        assert (await stats(session))["convert"] == 2
        assert meta(repeat)["loop"] is not None
        assert "already called" in texts(repeat)[-1]


# -- forms and options ---------------------------------------------------------------------------


async def test_form_c0_classifies_without_changing_content() -> None:
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, form="c0")
        result = await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
        assert len(result.content) == 1
        assert meta(result)["kind"] == "fixable"
        assert meta(result)["note"].endswith(toolerr.adapters.GUIDANCE["fixable"])


@pytest.mark.parametrize("form", ["c2", "c3", "c4", "abstract"])
def test_forms_that_need_user_turns_are_refused(form: str) -> None:
    with pytest.raises(ValueError, match="cannot be delivered by MCP"):
        RecoveringSession(object.__new__(ClientSession), form=form)


def test_forms_per_kind_are_accepted_when_each_is_c0_or_c1() -> None:
    session = RecoveringSession(object.__new__(ClientSession), form={"transient": "c1", "default": "c0"})
    assert session.policy.form_for("transient") == "c1" and session.policy.form_for("fixable") == "c0"
    for form in ({"transient": "c1", "fixable": "abstract"}, "small-local"):
        with pytest.raises(ValueError, match="cannot be delivered by MCP"):
            RecoveringSession(object.__new__(ClientSession), form=form)


def test_needs_a_session() -> None:
    with pytest.raises(TypeError):
        RecoveringSession(object())


async def test_on_record_sees_each_failure() -> None:
    records: list[toolerr.DetectionRecord] = []
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, on_record=records.append)
        await session.call_tool("echo", {"text": "ok"})
        await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
    assert [(r.tool, r.kind, r.changed) for r in records] == [("convert", "fixable", True)]


async def test_existing_meta_is_kept() -> None:
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner)
        result = await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
        assert set(result.meta) >= {META_KEY}


# -- everything else passes through ------------------------------------------------------------------


async def test_other_requests_pass_through(session: RecoveringSession) -> None:
    resources = await session.list_resources()
    assert [str(r.uri) for r in resources.resources] == ["memo://greeting"]
    read = await session.read_resource(resources.resources[0].uri)
    assert read.contents[0].text == "hello"
    prompts = await session.list_prompts()
    assert [p.name for p in prompts.prompts] == ["ask"]
    prompt = await session.get_prompt("ask", {"topic": "MCP"})
    assert "MCP" in prompt.messages[0].content.text
    await session.send_ping()


async def test_async_context_manager_enters_the_session() -> None:
    from mcp.shared.memory import create_client_server_memory_streams

    server = servers.make_server()
    low = servers.lowlevel(server)
    async with create_client_server_memory_streams() as (client, srv), anyio.create_task_group() as tg:
        tg.start_soon(lambda: low.run(srv[0], srv[1], low.create_initialization_options()))
        async with RecoveringSession(ClientSession(client[0], client[1])) as session:
            assert isinstance(session, RecoveringSession)
            await session.initialize()
            assert texts(await session.call_tool("echo", {"text": "in"})) == ["in"]
        tg.cancel_scope.cancel()


# -- bad input ----------------------------------------------------------------------------------------


async def test_huge_error_is_annotated_and_the_note_is_capped(session: RecoveringSession) -> None:
    result = await session.call_tool("huge_error", {"size": 1_000_000})
    assert len(texts(result)[0]) > 1_000_000  # the original content is kept
    assert texts(result)[-1] == toolerr.adapters.GUIDANCE["fixable"]
    assert len(meta(result)["note"]) < 3000


async def test_a_resource_that_reads_like_an_error_is_data(session: RecoveringSession) -> None:
    """A successful read whose embedded text resource is a log starting with a traceback:
    the resource is the data the tool returned, not its error message. The result passes
    as the server sent it (no error flag, no retry guidance)."""
    direct = await session.session.call_tool("read_log", {"path": "/var/log/worker.log"})
    result = await session.call_tool("read_log", {"path": "/var/log/worker.log"})
    assert result.model_dump_json(by_alias=True) == direct.model_dump_json(by_alias=True)
    assert not compat.is_error(result) and (result.meta is None or META_KEY not in result.meta)


async def test_a_failure_told_in_structured_content_only(session: RecoveringSession) -> None:
    """is_error with no text block and the error in ``structuredContent``: classified from
    it (a 503: retry), the guidance appended, the structured content kept."""
    result = await session.call_tool("lookup", {"key": "k"})
    assert compat.is_error(result)
    assert compat.structured_content(result) == {"error": servers.TRANSIENT_TEXT, "key": "k"}
    assert meta(result)["kind"] == "transient"
    assert texts(result) == [toolerr.adapters.GUIDANCE["transient"]]
    assert servers.TRANSIENT_TEXT in meta(result)["note"]


async def test_image_only_failure_content_is_kept(session: RecoveringSession) -> None:
    result = await session.call_tool("image_error", {})
    assert compat.is_error(result)
    assert meta(result)["kind"] == "transient"


async def test_closed_connection_becomes_a_failed_result() -> None:
    from mcp.shared.memory import create_client_server_memory_streams

    server = servers.make_server()
    low = servers.lowlevel(server)
    async with create_client_server_memory_streams() as (client, srv), anyio.create_task_group() as tg:
        server_scope = anyio.CancelScope()

        async def run_server() -> None:
            with server_scope:
                await low.run(srv[0], srv[1], low.create_initialization_options())

        tg.start_soon(run_server)
        async with RecoveringSession(ClientSession(client[0], client[1])) as session:
            await session.initialize()
            await session.list_tools()
            server_scope.cancel()  # the server goes away ...
            await srv[1].aclose()  # ... and its side of the connection closes
            with anyio.fail_after(10):
                result = await session.call_tool("echo", {"text": "x"})
            assert compat.is_error(result)
            assert meta(result)["failed"] is True
            assert meta(result)["kind"] == "transient", texts(result)
        tg.cancel_scope.cancel()


async def test_internal_error_fails_open(
    session: RecoveringSession, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any) -> Any:
        raise RuntimeError("toolerr bug")

    direct = await session.session.call_tool("convert", {"value": 1, "unit": "kelvins"})
    monkeypatch.setattr(session.recovery._layer, "_delivery", broken)  # inside the core's delivery
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        result = await session.call_tool("convert", {"value": 1, "unit": "kelvins"})
    assert result.model_dump_json() == direct.model_dump_json()
    assert "delivering a tool result failed" in caplog.text
    monkeypatch.undo()
    monkeypatch.setattr("toolerr_mcp._recovery._compat.result_with", broken)  # in the adapter
    direct = await session.session.call_tool("convert", {"value": 2, "unit": "kelvins"})
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        result = await session.call_tool("convert", {"value": 2, "unit": "kelvins"})
    assert result.model_dump_json() == direct.model_dump_json()
    assert "could not annotate" in caplog.text


# -- over stdio, with a server that exits in the middle of a call ----------------------------------------


@pytest.mark.slow
async def test_stdio_server_exiting_mid_call() -> None:
    with open("/dev/null", "w") as errlog:
        async with (
            stdio_client(servers.stdio_params(), errlog=errlog) as (read, write),
            RecoveringSession(ClientSession(read, write)) as session,
        ):
            await session.initialize()
            await session.list_tools()
            ok = await session.call_tool("echo", {"text": "before"})
            assert texts(ok) == ["before"]
            failed = await session.call_tool("search", {"query": "q"})
            assert meta(failed)["kind"] == "transient"
            with anyio.fail_after(15):
                died = await session.call_tool("die", {})
            assert compat.is_error(died)
            assert texts(died)[0].startswith("MCP error ")
            info = meta(died)
            assert info["kind"] == "transient"
            assert info["outcome"] == "unknown_outcome"
            assert texts(died)[-1] == CHECK_FIRST  # die is not declared read-only
            with anyio.fail_after(15):
                after = await session.call_tool("echo", {"text": "after"})
            assert compat.is_error(after)


async def test_wraps_the_2x_client_too() -> None:
    import mcp

    if not hasattr(mcp, "Client"):
        pytest.skip("mcp.Client is new in mcp 2.x")
    async with RecoveringSession(mcp.Client(servers.make_server())) as client:
        await client.list_tools()
        result = await client.call_tool("fail_rpc", {"code": -32602})
        assert compat.is_error(result)
        assert texts(result)[-1] == toolerr.adapters.GUIDANCE["fixable"]
        assert texts(await client.call_tool("echo", {"text": "ok"})) == ["ok"]


# -- sessions sharing a server (issue 18) ----------------------------------------------------------


async def test_sessions_never_share_failures() -> None:
    """Session A's failed call (and its blocked repeat) does not block session B's
    identical first call, nor change what B's calls return, whichever runs first."""
    server = servers.make_server()
    async with servers.connect(server) as inner_a, servers.connect(server) as inner_b:
        a, b = (
            RecoveringSession(inner_a, loop_action="block"),
            RecoveringSession(inner_b, loop_action="block"),
        )
        bad = {"value": 1, "unit": "kelvins"}
        first_a = await a.call_tool("convert", bad)
        repeat_a = await a.call_tool("convert", bad)
        assert texts(repeat_a)[0].startswith("Error: this call was not executed")
        first_b = await b.call_tool("convert", bad)
        assert first_b.model_dump_json() == first_a.model_dump_json()  # ran, as A's first did
        ok = await b.call_tool("convert", {"value": 1, "unit": "celsius"})
        assert not _compat.is_error(ok)
        assert (await stats(a))["convert"] == 3  # A's first, B's first and B's success


# -- the idempotency guard (DELIVERY.md section 5) ------------------------------------------

RESEND = (
    "Error: this call was not executed. The same call failed just before with an unknown outcome "
    "and may already have taken effect; check whether it did before sending it again."
)


async def test_a_resend_of_a_timed_out_write_is_not_sent() -> None:
    """charge (annotated not read-only, not idempotent) times out: its identical resend is
    answered without the server, under the default loop action; other arguments go."""
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner)
        await session.list_tools()
        args = {"amount": 5, "seconds": 30}
        first = await session.call_tool("charge", args, read_timeout_seconds=0.3)
        assert meta(first)["outcome"] == "unknown_outcome"
        second = await session.call_tool("charge", dict(args), read_timeout_seconds=0.3)
        assert compat.is_error(second)
        assert texts(second)[0] == RESEND
        assert meta(second)["outcome"] == "unknown_outcome"
        assert (await stats(session))["charge"] == 1
        await session.call_tool("charge", dict(args), read_timeout_seconds=0.3)  # stats came between
        assert (await stats(session))["charge"] == 2


@pytest.mark.parametrize("options", [{"tool_safety": {"charge": "idempotent"}}, {"idempotency_guard": False}])
async def test_a_resend_runs_when_declared_idempotent_or_the_guard_is_off(options: dict[str, Any]) -> None:
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, **options)
        await session.list_tools()
        args = {"amount": 5, "seconds": 30}
        await session.call_tool("charge", args, read_timeout_seconds=0.3)
        second = await session.call_tool("charge", dict(args), read_timeout_seconds=0.3)
        assert texts(second)[0] != RESEND
        assert (await stats(session))["charge"] == 2


async def test_a_resend_of_a_timed_out_read_only_tool_is_sent(session: RecoveringSession) -> None:
    await session.call_tool("slow", {"seconds": 30}, read_timeout_seconds=0.3)
    await session.call_tool("slow", {"seconds": 30}, read_timeout_seconds=0.3)
    assert (await stats(session))["slow"] == 2


# -- hidden retries (auto_retry) --------------------------------------------------------------


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    import toolerr._kit_retry as kit_retry

    waits: list[float] = []

    async def asleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(kit_retry, "_asleep", asleep)
    return waits


async def test_auto_retry_reruns_a_timed_out_read_only_call_and_counts_it(waits: list[float]) -> None:
    """slow (annotated read-only) times out: with auto_retry=1 the session sends it again
    before the client sees anything; it times out again, and the result counts the hidden
    retry. charge (a write) is sent once."""
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, auto_retry=1)
        await session.list_tools()
        result = await session.call_tool("slow", {"seconds": 30}, read_timeout_seconds=0.3)
        assert compat.is_error(result)
        assert meta(result)["hidden_retries"] == 1
        assert (await stats(session))["slow"] == 2
        assert len(waits) == 1
        charged = await session.call_tool("charge", {"amount": 5, "seconds": 30}, read_timeout_seconds=0.3)
        assert "hidden_retries" not in meta(charged)
        assert (await stats(session))["charge"] == 1
        assert len(waits) == 1


async def test_auto_retry_classifies_a_failed_result_with_the_declared_parameters(waits: list[float]) -> None:
    """auto_retry classifies each attempt's is_error result itself: with the schema too."""
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, auto_retry=1)
        await session.list_tools()
        _assert_ambiguous_then_fixable(*await _queries(session, False))
        assert waits == []  # neither is re-run hidden


async def test_auto_retry_without_a_listing_reads_the_first_failure_with_the_schema(
    waits: list[float],
) -> None:
    """auto_retry and no listing seen: the tools listed on the first failure are its
    evidence too (the attempt's verdict was read before they were known)."""
    async with servers.connect(servers.make_server()) as inner:
        _assert_ambiguous_then_fixable(*await _queries(RecoveringSession(inner, auto_retry=1), False))
        assert waits == []


async def test_a_result_read_again_once_listed_keeps_its_hidden_retries(waits: list[float]) -> None:
    """auto_retry, no listing seen: search's 503 result is re-run hidden, then read again
    with the schema listed on that failure; the hidden retry stays counted."""
    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner, auto_retry=1)
        result = await session.call_tool("search", {"query": "release notes"})
        assert session.recovery.parameters_of("search") is not None  # listed on the failure
        assert compat.is_error(result)
        assert (meta(result)["kind"], meta(result)["hidden_retries"]) == ("transient", 1)
        assert (await stats(session))["search"] == 2
        assert len(waits) == 1


async def test_a_name_two_listings_declare_differently_gets_no_schema() -> None:
    """Two servers' tools of one name behind one recovery (or a tool whose parameters
    changed): which schema a call meant is unknown, so none is used for that name."""
    from types import SimpleNamespace

    async with servers.connect(servers.make_server()) as inner:
        session = RecoveringSession(inner)
        await session.list_tools()
        schema = session.recovery.parameters_of("run_saved_query")
        assert schema is not None and schema["properties"]["query"]["description"] == "Name of a saved query"
        same = SimpleNamespace(name="run_saved_query", inputSchema=dict(schema), annotations=None)
        session.recovery.learn_tools([same])  # the same schema listed again: kept
        assert session.recovery.parameters_of("run_saved_query") == schema
        other = {"type": "object", "properties": {"query": {"type": "string", "description": "SQL to run"}}}
        session.recovery.learn_tools(
            [SimpleNamespace(name="run_saved_query", inputSchema=other, annotations=None)]
        )
        await session.list_tools()  # and the first one again: the name stays without a schema
        assert session.recovery.parameters_of("run_saved_query") is None
        result = await session.call_tool("run_saved_query", QUERY)
        assert meta(result)["kind"] == "fixable"  # read from the words and the arguments alone


async def test_auto_retry_zero_sends_once(session: RecoveringSession, waits: list[float]) -> None:
    result = await session.call_tool("slow", {"seconds": 30}, read_timeout_seconds=0.3)
    assert "hidden_retries" not in meta(result)
    assert (await stats(session))["slow"] == 1
    assert waits == []
