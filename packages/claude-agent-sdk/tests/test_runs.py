"""The bundled Claude Code CLI's real loop, offline, through ToolErrorRecovery's relay: a fake
Anthropic upstream on 127.0.0.1 scripts the tool_use turns and records every request."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
import toolerr
from claude_agent_sdk import create_sdk_mcp_server
from claude_support import FakeUpstream, Recorded, Status503, Use, base_options, kit_tools, run, transcripts
from shared_support import FIXABLE, TRANSIENT, UNRECOVERABLE
from toolerr_claude_agent_sdk import ToolErrorRecovery

pytestmark = [pytest.mark.enable_socket, pytest.mark.allow_hosts(["127.0.0.1"])]

NOTE_PREFIX = "Note from the tool runtime: "
BLOCKED_PREFIX = "Error: this call was not executed."


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    server = FakeUpstream()
    yield server
    server.close()


@pytest.fixture
def busy() -> Iterator[Status503]:
    server = Status503()
    yield server
    server.close()


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "config").mkdir()
    (tmp_path / "work").mkdir()
    return tmp_path / "config", tmp_path / "work"


def _note(tool: str, arguments: str, error: str, guidance: str) -> str:
    """The runtime note of DELIVERY.md section 4, written out."""
    return f"{NOTE_PREFIX}the last attempt called {tool} with {arguments} and it failed with: {error}\n\n{guidance}"


def _step(requests: list[Recorded], assistants: int) -> dict[str, Any]:
    """The (last) request sent after ``assistants`` assistant turns."""
    found = [
        r.json for r in requests if sum(m["role"] == "assistant" for m in r.json["messages"]) == assistants
    ]
    assert found, f"no request after {assistants} assistant turn(s)"
    return found[-1]


def _last_user(request: dict[str, Any]) -> list[dict[str, Any]]:
    message = request["messages"][-1]
    assert message["role"] == "user"
    return list(message["content"])


async def _run_three_kinds(
    upstream: FakeUpstream, busy: Status503, dirs: tuple[Path, Path], recovery: ToolErrorRecovery, marker: str
) -> None:
    upstream.scripts[marker] = [
        [Use("toolu_1", "mcp__kit__fetch_status", {"page": "home"})],
        [Use("toolu_2", "mcp__kit__read_secret", {"path": "/srv/secret"})],
        [Use("toolu_3", "Read", {"path": "notes.txt"})],
        "finished",
    ]
    tools = [recovery.tool(t) for t in kit_tools(busy.url)]
    options = base_options(upstream.url, *dirs, tools)
    await run(f"{marker}: check the three tools", recovery.options(options))


def test_each_kind_reaches_the_model_byte_exact(
    upstream: FakeUpstream, busy: Status503, dirs: tuple[Path, Path]
) -> None:
    async def main() -> None:
        async with ToolErrorRecovery() as recovery:
            await _run_three_kinds(upstream, busy, dirs, recovery, "KINDS")

    asyncio.run(main())
    requests = upstream.loop_requests("KINDS")
    cases = [
        (
            1,
            "mcp__kit__fetch_status",
            'page="home"',
            TRANSIENT,
            f"HTTPStatusError: Server error '503 Service Unavailable' for url '{busy.url}'",
        ),
        (
            2,
            "mcp__kit__read_secret",
            'path="/srv/secret"',
            UNRECOVERABLE,
            "PermissionError: [Errno 13] Permission denied: '/srv/secret'",
        ),
        (
            3,
            "Read",
            'path="notes.txt"',
            FIXABLE,
            "<tool_use_error>InputValidationError: Read failed due to the following issues:",
        ),
    ]
    for assistants, tool, arguments, guidance, head in cases:
        result, note = _last_user(_step(requests, assistants))
        assert result["type"] == "tool_result" and result["is_error"] is True
        assert result["tool_use_id"] == f"toolu_{assistants}"
        error = result["content"]
        assert isinstance(error, str) and error.startswith(head)
        # the note restates the tool's error, not the reminder the CLI appends to the result
        error = error.split("\n\n<system-reminder>", 1)[0]
        assert note == {"type": "text", "text": _note(tool, arguments, error, guidance)}


def test_the_clis_transcript_holds_no_note(
    upstream: FakeUpstream, busy: Status503, dirs: tuple[Path, Path]
) -> None:
    async def main() -> None:
        async with ToolErrorRecovery() as recovery:
            await _run_three_kinds(upstream, busy, dirs, recovery, "TRANSCRIPT")

    asyncio.run(main())
    assert any(NOTE_PREFIX in json.dumps(r.json) for r in upstream.loop_requests("TRANSCRIPT"))
    files = transcripts(dirs[0])
    assert files
    text = "".join(path.read_text() for path in files)
    assert "PermissionError: [Errno 13] Permission denied" in text  # the failures are there ...
    assert "InputValidationError" in text
    assert NOTE_PREFIX not in text  # ... and no note


def test_the_upstream_request_stays_valid_for_the_messages_api(
    upstream: FakeUpstream, busy: Status503, dirs: tuple[Path, Path]
) -> None:
    async def main() -> None:
        async with ToolErrorRecovery() as recovery:
            await _run_three_kinds(upstream, busy, dirs, recovery, "VALID")

    asyncio.run(main())
    requests = upstream.loop_requests("VALID")
    assert len(requests) >= 4
    for recorded in requests:
        body = json.loads(recorded.body)  # valid JSON
        turns = [m for m in body["messages"] if m["role"] in ("user", "assistant")]
        assert turns[0]["role"] == "user"
        for before, after in itertools.pairwise(turns):
            assert before["role"] != after["role"], "roles must alternate"
        for before, after in itertools.pairwise(turns):
            if before["role"] != "assistant" or not isinstance(before["content"], list):
                continue
            uses = [b["id"] for b in before["content"] if b["type"] == "tool_use"]
            blocks = after["content"]
            results = [b["tool_use_id"] for b in blocks[: len(uses)] if b["type"] == "tool_result"]
            assert results == uses, "tool_result blocks come first, one per tool_use"
            assert all(b["type"] != "tool_result" for b in blocks[len(uses) :])
        for message in body["messages"]:
            for block in message["content"] if isinstance(message["content"], list) else []:
                if block["type"] == "text":
                    assert isinstance(block["text"], str) and block["text"]


def _normalised(recorded: Recorded) -> bytes:
    session = recorded.headers["x-claude-code-session-id"]
    return recorded.body.replace(session.encode(), b"<session>")


def test_a_run_without_failure_reaches_the_upstream_byte_identical(
    upstream: FakeUpstream, busy: Status503, dirs: tuple[Path, Path]
) -> None:
    script = [
        [Use("toolu_1", "mcp__kit__add", {"a": 2, "b": 3})],
        [Use("toolu_2", "mcp__kit__add", {"a": 4, "b": 5})],
        "sum done",
    ]
    upstream.scripts["CLEAN"] = script

    async def main() -> None:
        await run("CLEAN: add numbers", base_options(upstream.url, *dirs, kit_tools(busy.url)))
        direct = list(upstream.requests)
        upstream.requests.clear()
        async with ToolErrorRecovery() as recovery:
            tools = [recovery.tool(t) for t in kit_tools(busy.url)]
            await run("CLEAN: add numbers", recovery.options(base_options(upstream.url, *dirs, tools)))
        relayed = list(upstream.requests)
        assert [r.path for r in relayed] == [r.path for r in direct]
        assert len([r for r in direct if b"toolu_2" in r.body]) >= 1
        for one, other in zip(direct, relayed):
            assert _normalised(other) == _normalised(one)
            skip = {
                "x-claude-code-session-id",
                "host",
                "content-length",
                "connection",
                "x-stainless-retry-count",
            }
            assert {k: v for k, v in other.headers.items() if k not in skip} == {
                k: v for k, v in one.headers.items() if k not in skip
            }

    asyncio.run(main())


def test_two_concurrent_runs_with_colliding_call_ids_stay_apart(
    upstream: FakeUpstream, busy: Status503, tmp_path: Path
) -> None:
    upstream.scripts["ALPHA"] = [[Use("toolu_1", "mcp__kit__fetch_status", {"page": "a"})], "alpha done"]
    upstream.scripts["BETA"] = [[Use("toolu_1", "mcp__kit__read_secret", {"path": "/b"})], "beta done"]
    dirs = {}
    for name in ("a", "b"):
        (tmp_path / name / "config").mkdir(parents=True)
        (tmp_path / name / "work").mkdir()
        dirs[name] = (tmp_path / name / "config", tmp_path / name / "work")

    async def main() -> None:
        async with ToolErrorRecovery(loop_action="block") as recovery:
            tools = [recovery.tool(t) for t in kit_tools(busy.url)]
            await asyncio.gather(
                run("ALPHA: fetch", recovery.options(base_options(upstream.url, *dirs["a"], tools))),
                run("BETA: read", recovery.options(base_options(upstream.url, *dirs["b"], tools))),
            )

    asyncio.run(main())
    alpha = _last_user(_step(upstream.loop_requests("ALPHA"), 1))
    beta = _last_user(_step(upstream.loop_requests("BETA"), 1))
    assert alpha[0]["content"].startswith("HTTPStatusError: Server error '503")
    assert alpha[1]["text"].endswith(TRANSIENT) and "/b" not in alpha[1]["text"]
    assert beta[0]["content"].startswith("PermissionError: [Errno 13]")
    assert beta[1]["text"].endswith(UNRECOVERABLE) and "503" not in beta[1]["text"]


def test_block_does_not_execute_an_identical_repeat(
    upstream: FakeUpstream, busy: Status503, dirs: tuple[Path, Path]
) -> None:
    upstream.scripts["BLOCK"] = [
        [Use("toolu_1", "mcp__kit__read_secret", {"path": "/srv/secret"})],
        [Use("toolu_2", "mcp__kit__read_secret", {"path": "/srv/secret"})],
        "gave up",
    ]
    executed: list[str] = []

    async def main() -> None:
        async with ToolErrorRecovery(loop_action="block") as recovery:
            tools = [recovery.tool(t) for t in kit_tools(busy.url, executed)]
            await run("BLOCK: read twice", recovery.options(base_options(upstream.url, *dirs, tools)))

    asyncio.run(main())
    assert executed == ["read_secret"]  # the repeat never ran
    blocks = _last_user(_step(upstream.loop_requests("BLOCK"), 2))
    assert blocks[0]["tool_use_id"] == "toolu_2" and blocks[0]["is_error"] is True
    shown = blocks[0]["content"]
    text = shown if isinstance(shown, str) else "".join(b.get("text", "") for b in shown)
    assert BLOCKED_PREFIX in text


def test_stop_does_not_execute_an_identical_repeat(
    upstream: FakeUpstream, busy: Status503, dirs: tuple[Path, Path]
) -> None:
    """Loop action ``stop``: the repeat is denied (it never runs) and the run ends."""
    upstream.scripts["STOP"] = [
        [Use("toolu_1", "mcp__kit__read_secret", {"path": "/srv/secret"})],
        [Use("toolu_2", "mcp__kit__read_secret", {"path": "/srv/secret"})],
        "gave up",
    ]
    executed: list[str] = []

    async def main() -> None:
        async with ToolErrorRecovery(loop_action="stop") as recovery:
            tools = [recovery.tool(t) for t in kit_tools(busy.url, executed)]
            await run("STOP: read twice", recovery.options(base_options(upstream.url, *dirs, tools)))

    asyncio.run(main())
    assert executed == ["read_secret"]
    assert len(upstream.loop_requests("STOP")) == 2  # no model call after the stop


def test_without_block_the_repeat_runs(
    upstream: FakeUpstream, busy: Status503, dirs: tuple[Path, Path]
) -> None:
    upstream.scripts["NOBLOCK"] = [
        [Use("toolu_1", "mcp__kit__read_secret", {"path": "/srv/secret"})],
        [Use("toolu_2", "mcp__kit__read_secret", {"path": "/srv/secret"})],
        "gave up",
    ]
    executed: list[str] = []

    async def main() -> None:
        async with ToolErrorRecovery() as recovery:
            tools = [recovery.tool(t) for t in kit_tools(busy.url, executed)]
            await run("NOBLOCK: read twice", recovery.options(base_options(upstream.url, *dirs, tools)))

    asyncio.run(main())
    assert executed == ["read_secret", "read_secret"]


def test_fail_open_when_the_rewrite_raises(
    upstream: FakeUpstream,
    busy: Status503,
    dirs: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(toolerr, "rewrite_wire", broken)
    upstream.scripts["OPEN"] = [[Use("toolu_1", "mcp__kit__read_secret", {"path": "/x"})], "done"]

    async def main() -> None:
        async with ToolErrorRecovery() as recovery:
            tools = [recovery.tool(t) for t in kit_tools(busy.url)]
            await run("OPEN: read", recovery.options(base_options(upstream.url, *dirs, tools)))

    with caplog.at_level(logging.WARNING, logger="toolerr"):
        asyncio.run(main())
    blocks = _last_user(_step(upstream.loop_requests("OPEN"), 1))
    assert [b["type"] for b in blocks] == ["tool_result"]  # passed unchanged, the run went on
    assert any("Claude relay" in r.getMessage() for r in caplog.records if r.name == "toolerr")


def test_a_wrapped_tool_is_classified_from_its_exception_object(
    upstream: FakeUpstream, busy: Status503, dirs: tuple[Path, Path]
) -> None:
    """Without the wrapper the SDK shows ``str(exc)`` only; wrapped, the model reads
    ``Type: message`` and the verdict comes from the object."""
    records: list[toolerr.DetectionRecord] = []
    upstream.scripts["OBJECT"] = [[Use("toolu_1", "mcp__kit__read_secret", {"path": "/x"})], "done"]

    async def main() -> None:
        async with ToolErrorRecovery(on_record=records.append) as recovery:
            options = base_options(upstream.url, *dirs, [])
            options.mcp_servers = {
                "kit": create_sdk_mcp_server("kit", tools=[recovery.tool(t) for t in kit_tools(busy.url)])
            }
            await run("OBJECT: read", recovery.options(options))

    asyncio.run(main())
    result = _last_user(_step(upstream.loop_requests("OBJECT"), 1))[0]
    assert result["content"].startswith("PermissionError: [Errno 13] Permission denied: '/x'")
    assert any(r.kind == "unrecoverable" and r.tool == "mcp__kit__read_secret" for r in records)
    # the verdict the wrapper made from the object (a failed result's hook: PostToolUseFailure)
    assert [r.detection for r in records] == ["exception"]


def test_auto_retry_reruns_a_wrapped_tool_before_the_model_sees_it(
    upstream: FakeUpstream, busy: Status503, dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``auto_retry=2``: a real 503 is re-run twice, hidden; the model sees the third
    failure, and its record counts the hidden retries."""
    import toolerr._kit_retry as kit_retry

    waits: list[float] = []

    async def asleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(kit_retry, "_asleep", asleep)
    records: list[toolerr.DetectionRecord] = []
    executed: list[str] = []
    upstream.scripts["RETRY"] = [[Use("toolu_1", "mcp__kit__fetch_status", {"page": "a"})], "done"]

    async def main() -> None:
        async with ToolErrorRecovery(auto_retry=2, on_record=records.append) as recovery:
            tools = [recovery.tool(t) for t in kit_tools(busy.url, executed)]
            await run("RETRY: fetch", recovery.options(base_options(upstream.url, *dirs, tools)))

    asyncio.run(main())
    assert executed == ["fetch_status"] * 3 and len(waits) == 2
    [record] = records
    assert (record.kind, record.detection, record.hidden_retries) == ("transient", "exception", 2)


# two exception types of one name and message: the same result text, a different verdict
_Refused = type("Denied", (ConnectionRefusedError,), {})
_Forbidden = type("Denied", (PermissionError,), {})


def test_a_wrapped_tools_verdict_stays_with_its_session(
    upstream: FakeUpstream, busy: Status503, tmp_path: Path
) -> None:
    """Two concurrent runs share one recovery and one wrapped tool, which fails in both
    with the same text (``Denied: the gate is closed``) from two exception objects of
    different kinds: each run's model reads its own kind's guidance, classified from its
    own object (kept for the session the call was in flight in, not for the text alone,
    where the two verdicts would cancel out and the text decide both)."""
    from claude_agent_sdk import tool

    @tool("open_gate", "Open a gate", {"gate": str})
    async def open_gate(args: dict[str, Any]) -> dict[str, Any]:
        raise (_Refused if args["gate"] == "a" else _Forbidden)("the gate is closed")

    upstream.scripts["GATE_A"] = [[Use("toolu_1", "mcp__kit__open_gate", {"gate": "a"})], "a done"]
    upstream.scripts["GATE_B"] = [[Use("toolu_1", "mcp__kit__open_gate", {"gate": "b"})], "b done"]
    records: list[toolerr.DetectionRecord] = []

    async def main() -> None:
        async with ToolErrorRecovery(on_record=records.append) as recovery:
            tools = [recovery.tool(open_gate)]
            runs = []
            for name in ("a", "b"):
                config, work = tmp_path / name / "config", tmp_path / name / "work"
                config.mkdir(parents=True)
                work.mkdir()
                options = base_options(upstream.url, config, work, tools)
                options.allowed_tools = ["mcp__kit__open_gate"]
                runs.append(run(f"GATE_{name.upper()}: open it", recovery.options(options)))
            await asyncio.gather(*runs)

    asyncio.run(main())
    for marker, guidance in (("GATE_A", TRANSIENT), ("GATE_B", UNRECOVERABLE)):
        result, note = _last_user(_step(upstream.loop_requests(marker), 1))
        assert result["content"].startswith("Denied: the gate is closed"), result
        gate = marker[-1].lower()
        expected = _note("mcp__kit__open_gate", f'gate="{gate}"', "Denied: the gate is closed", guidance)
        assert note == {"type": "text", "text": expected}
    assert sorted((r.kind, r.detection) for r in records) == [
        ("transient", "exception"),
        ("unrecoverable", "exception"),
    ]


# -- the tool's declared parameters -------------------------------------------------------

LITERAL = "ValueError: invalid literal for int() with base 10: 'forty'"
SAVED = "Name of a saved query"  # a reference to stored data: the value was read, not written
WRITTEN = "SQL query to run"  # the value itself: the model wrote it


def query_tool(description: str) -> Any:
    """``run_query(name)``, its parameter declared with ``description``; it rejects the value."""
    from claude_agent_sdk import tool

    @tool("run_query", "Run a query", {"name": Annotated[str, description]})
    async def run_query(args: dict[str, Any]) -> dict[str, Any]:
        raise ValueError("invalid literal for int() with base 10: 'forty'")

    return run_query


@pytest.mark.parametrize(("description", "kind"), [(SAVED, "ambiguous"), (WRITTEN, "fixable")])
def test_the_tools_declared_parameters_decide_the_note(
    upstream: FakeUpstream, dirs: tuple[Path, Path], description: str, kind: str
) -> None:
    """The same rejected value of a wrapped tool: fixable when the schema the model was
    given says the model wrote it (the note tells it to correct the value), ambiguous when
    it says the value names a saved query (it came from stored data: no note tells the
    model to rewrite it)."""
    records: list[toolerr.DetectionRecord] = []
    upstream.scripts["QUERY"] = [[Use("toolu_1", "mcp__kit__run_query", {"name": "churn_by_plan"})], "done"]

    async def main() -> None:
        async with ToolErrorRecovery(on_record=records.append) as recovery:
            options = base_options(upstream.url, *dirs, [recovery.tool(query_tool(description))])
            options.allowed_tools = ["mcp__kit__run_query"]
            await run("QUERY: how many churned", recovery.options(options))

    asyncio.run(main())
    request = _step(upstream.loop_requests("QUERY"), 1)
    [declared] = [t["input_schema"] for t in request["tools"] if t["name"] == "mcp__kit__run_query"]
    assert declared["properties"]["name"]["description"] == description  # what the model was given
    blocks = _last_user(request)
    assert blocks[0]["type"] == "tool_result" and blocks[0]["is_error"] is True
    error = blocks[0]["content"]
    assert isinstance(error, str) and error.split("\n\n<system-reminder>", 1)[0] == LITERAL
    if kind == "fixable":
        note = _note("mcp__kit__run_query", 'name="churn_by_plan"', LITERAL, FIXABLE)
        assert blocks[1:] == [{"type": "text", "text": note}]
    else:
        assert blocks[1:] == []  # no guidance for an ambiguous failure
    assert [(r.kind, r.detection) for r in records] == [(kind, "exception")]


@pytest.fixture
def classified(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, str | None]]:
    """Each exception the layer classifies: the parameters it was given and the kind."""
    seen: list[tuple[Any, str | None]] = []
    inspect = toolerr.ToolErrorLayer.inspect_exception

    def spy(self: toolerr.ToolErrorLayer, exception: BaseException, **kwargs: Any) -> toolerr.Verdict:
        verdict = inspect(self, exception, **kwargs)
        seen.append((kwargs.get("parameters"), verdict.kind))
        return verdict

    monkeypatch.setattr(toolerr.ToolErrorLayer, "inspect_exception", spy)
    return seen


def test_the_declared_parameters_are_read_once_per_tool(
    monkeypatch: pytest.MonkeyPatch, classified: list[tuple[Any, str | None]]
) -> None:
    """Read when the tool is wrapped, as the SDK lists them; the same dict for every failure."""
    import toolerr_claude_agent_sdk._recovery as recovery_module

    reads: list[Any] = []
    declared = recovery_module._declared_parameters
    monkeypatch.setattr(recovery_module, "_declared_parameters", lambda t: reads.append(t) or declared(t))
    wrapped = ToolErrorRecovery().tool(query_tool(SAVED))
    for _ in range(2):
        result = asyncio.run(wrapped.handler({"name": "churn_by_plan"}))
        assert result == {"content": [{"type": "text", "text": LITERAL}], "is_error": True}
    assert len(reads) == 1
    (first, kind), (second, _) = classified
    assert first is second and kind == "ambiguous"
    assert first["properties"]["name"] == {"type": "string", "description": SAVED}


def test_a_schema_that_cannot_be_read_is_left_out(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    classified: list[tuple[Any, str | None]],
) -> None:
    import toolerr_claude_agent_sdk._recovery as recovery_module

    def broken(sdk_tool: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(recovery_module, "_declared_parameters", broken)
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        wrapped = ToolErrorRecovery().tool(query_tool(SAVED))  # wrapping does not raise
        result = asyncio.run(wrapped.handler({"name": "churn_by_plan"}))
    assert result == {"content": [{"type": "text", "text": LITERAL}], "is_error": True}
    assert classified == [(None, "fixable")]  # classified without the schema
    assert any(r.name == "toolerr" and "declared parameters" in r.getMessage() for r in caplog.records)
