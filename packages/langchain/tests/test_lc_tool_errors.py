"""wrap_tool_call: exceptions become classified error results; LangChain's own failures
are recognised; on_error/aon_error/tools keep the semantics of LangChain's
ToolErrorMiddleware; loop actions; non-string outputs pass through untouched."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
import langchain.agents.factory
import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import ToolCallRequest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.types import Command
from lc_support import (
    EXECUTED,
    FIXABLE,
    TOOLS,
    UNRECOVERABLE,
    ai,
    blocks,
    fetch,
    get_weather,
    holds_note,
    note,
    record,
    shown,
    write_file,
)
from toolerr import ToolLoopError
from toolerr_langchain import ToolErrorMiddleware, verdict_of
from toolerr_langchain.testing import ScriptedChatModel, tool_call

ASK = "Please do it."
PERMISSION = "Error: PermissionError: [Errno 13] Permission denied: '/etc/app.conf'"


def run(
    script: list[Any], middleware: list[Any], tools: list[Any] | None = None
) -> tuple[ScriptedChatModel, Any]:
    model = ScriptedChatModel(script=script)
    agent = create_agent(model, tools or TOOLS, middleware=middleware)
    return model, agent.invoke({"messages": [("user", ASK)]})


def test_without_the_middleware_create_agent_aborts_on_a_tool_exception() -> None:
    """The behaviour the middleware changes (why it exists)."""
    with pytest.raises(httpx.ReadTimeout):
        run([ai(tool_call("fetch", "c1", url="https://api.example.com/slow")), "done"], [])


def test_exception_becomes_error_tool_message_with_its_classification() -> None:
    middleware = ToolErrorMiddleware()
    _, state = run(
        [ai(tool_call("fetch", "c1", url="https://api.example.com/forbidden")), "done"], [middleware]
    )

    result = state["messages"][2]
    assert isinstance(result, ToolMessage)
    assert (result.status, result.name, result.tool_call_id) == ("error", "fetch", "c1")
    verdict = verdict_of(result)
    assert verdict is not None
    assert (verdict.kind, verdict.status) == ("unrecoverable", 403)
    assert verdict.detection == "exception"
    assert result.response_metadata["toolerr"]["kind"] == "unrecoverable"
    # kept on the message only: nothing a shared middleware remembers reaches another run
    assert middleware.layer.recall("c1") is None


def test_langchain_argument_validation_and_unknown_tool_are_classified() -> None:
    _, state = run(
        [
            ai(tool_call("get_weather", "c1", city="Paris", days="three"), tool_call("nope", "c2", q=1)),
            "done",
        ],
        [ToolErrorMiddleware()],
    )
    results = {m.tool_call_id: m for m in state["messages"] if isinstance(m, ToolMessage)}
    for call_id in ("c1", "c2"):
        verdict = verdict_of(results[call_id])
        assert verdict is not None
        assert verdict.kind == "fixable"


@pytest.mark.skipif(
    not hasattr(langchain.agents.factory, "_patch_invalid_tool_calls"),
    reason="this langchain does not answer invalid tool calls",
)
def test_malformed_call_next_to_a_valid_one() -> None:
    """LangChain answers an invalid (truncated) call with its own error result; the
    middleware recognises it at the decision step and keeps the calls paired."""
    broken = AIMessage(
        content="",
        tool_calls=[tool_call("get_weather", "c1", city="Oslo", days=2)],
        invalid_tool_calls=[
            {
                "type": "invalid_tool_call",
                "id": "c2",
                "name": "get_weather",
                "args": '{"city": "Par',
                "error": None,
            }
        ],
    )
    model, state = run([broken, "done"], [ToolErrorMiddleware()])

    malformed = (
        "Tool call get_weather with id c2 could not be executed - arguments were malformed or truncated."
    )
    assert shown(model.calls[1]) == [
        ("human", ASK),
        ("ai", ""),
        ("tool", malformed),
        ("tool", "Oslo: sunny for 2 days"),
        ("human", note("get_weather", '{"city": "Par', malformed, FIXABLE)),
    ]
    assert not holds_note(state["messages"])


def test_parallel_calls_with_several_failures_in_one_step() -> None:
    calls = [
        tool_call("write_file", "c1", path="/etc/app.conf", text="x=1"),
        tool_call("get_weather", "c2", city="Oslo", days=2),
        tool_call("fetch", "c3", url="https://api.example.com/forbidden"),
    ]
    model, state = run([ai(*calls), "done"], [ToolErrorMiddleware()])

    seen = model.calls[1]
    # Every call keeps its result; one note after the results names both failures.
    assert [m.tool_call_id for m in seen if isinstance(m, ToolMessage)] == ["c1", "c2", "c3"]
    assert isinstance(seen[-1], HumanMessage)
    assert seen[-1].content == "\n\n".join(
        [
            note("write_file", 'path="/etc/app.conf", text="x=1"', PERMISSION, UNRECOVERABLE),
            note(
                "fetch",
                'url="https://api.example.com/forbidden"',
                verdict_text(state, "c3"),
                UNRECOVERABLE,
            ),
        ]
    )
    assert not holds_note(state["messages"])


def verdict_text(state: Any, call_id: str) -> str:
    return next(
        m.content for m in state["messages"] if isinstance(m, ToolMessage) and m.tool_call_id == call_id
    )


def test_on_error_content_and_propagation() -> None:
    seen: list[tuple[type[Exception], str]] = []

    def on_error(exc: Exception, request: ToolCallRequest) -> str | None:
        seen.append((type(exc), request.tool_call["name"]))
        if isinstance(exc, PermissionError):
            return "write_file is not allowed here."
        return None

    middleware = ToolErrorMiddleware(on_error)
    _, state = run([ai(tool_call("write_file", "c1", path="/etc/app.conf", text="x")), "done"], [middleware])
    result = state["messages"][2]
    assert (result.content, result.status) == ("write_file is not allowed here.", "error")
    verdict = verdict_of(result)
    assert verdict is not None
    assert verdict.kind == "unrecoverable"  # classified from the exception, not the handler's text

    with pytest.raises(httpx.ReadTimeout):
        run(
            [ai(tool_call("fetch", "c1", url="https://api.example.com/slow")), "done"],
            [ToolErrorMiddleware(on_error)],
        )
    assert seen == [(PermissionError, "write_file"), (httpx.ReadTimeout, "fetch")]


def test_aon_error_on_the_async_path_and_missing_sync_handler() -> None:
    async def aon_error(exc: Exception, request: ToolCallRequest) -> str | None:
        return f"async: {type(exc).__name__}"

    model = ScriptedChatModel(script=[ai(tool_call("write_file", "c1", path="/p", text="x")), "done"])
    agent = create_agent(model, TOOLS, middleware=[ToolErrorMiddleware(aon_error=aon_error)])
    state = asyncio.run(agent.ainvoke({"messages": [("user", ASK)]}))
    assert state["messages"][2].content == "async: PermissionError"

    model.reset()
    with pytest.raises(RuntimeError, match="no sync `on_error`"):
        agent.invoke({"messages": [("user", ASK)]})


def test_tools_filter_limits_exception_handling() -> None:
    middleware = ToolErrorMiddleware(tools=[fetch])
    with pytest.raises(PermissionError):
        run([ai(tool_call("write_file", "c1", path="/p", text="x")), "done"], [middleware])
    _, state = run([ai(tool_call("fetch", "c2", url="https://api.example.com/slow")), "done"], [middleware])
    assert state["messages"][2].status == "error"


def test_non_string_outputs_pass_through_untouched() -> None:
    @tool
    def jump() -> Command[Any]:
        """Returns a Command."""
        return Command(update={"messages": [ToolMessage("jumped", tool_call_id="c3", name="jump")]})

    calls = [tool_call("blocks", "c1"), tool_call("record", "c2"), tool_call("jump", "c3")]
    plain_model, plain = run([ai(*calls), "done"], [], tools=[blocks, record, jump])
    model, state = run([ai(*calls), "done"], [ToolErrorMiddleware()], tools=[blocks, record, jump])

    def results(messages: Any) -> list[tuple[Any, ...]]:
        return [
            (m.tool_call_id, m.content, m.status, m.response_metadata, m.artifact)
            for m in messages
            if isinstance(m, ToolMessage)
        ]

    assert results(state["messages"]) == results(plain["messages"])
    assert results(model.calls[1]) == results(plain_model.calls[1])
    assert not holds_note(model.calls[1])


def test_loop_action_block_does_not_execute_an_identical_repeat() -> None:
    call = {"path": "/etc/app.conf", "text": "x=1"}
    script = [
        ai(tool_call("write_file", "c1", **call)),
        ai(tool_call("write_file", "c2", **call)),
        "done",
    ]
    model, state = run(script, [ToolErrorMiddleware(loop_action="block")])

    assert [("write_file", call)] == EXECUTED  # the repeat never ran
    blocked = state["messages"][4]
    assert isinstance(blocked, ToolMessage)
    assert blocked.status == "error"
    assert blocked.content.startswith("Error: this call was not executed. ")
    verdict = verdict_of(blocked)
    assert verdict is not None
    assert (verdict.kind, verdict.rule) == ("unrecoverable", "ledger:blocked-repeat")
    # The model is told about the loop at its next call, without the verbatim call.
    last = model.calls[2][-1]
    assert isinstance(last, HumanMessage)
    assert "Note from the tool runtime: " in last.content
    assert '"/etc/app.conf"' not in last.content
    assert not holds_note(state["messages"])


def test_loop_action_block_lets_transient_retries_run() -> None:
    call = {"url": "https://api.example.com/slow"}
    script = [ai(tool_call("fetch", f"c{i}", **call)) for i in range(3)] + ["done"]
    # fetch times out (an unknown outcome): declared read-only, the idempotency guard lets
    # its identical retries run (an undeclared tool's resend is answered, not executed)
    run(script, [ToolErrorMiddleware(loop_action="block", tool_safety={"fetch": "read_only"})])
    assert [("fetch", call)] * 3 == EXECUTED


def test_loop_action_stop_ends_the_run() -> None:
    call = {"city": "Paris", "days": "three"}
    script = [ai(tool_call("get_weather", "c1", **call)), ai(tool_call("get_weather", "c2", **call)), "done"]
    with pytest.raises(ToolLoopError, match="toolerr stopped the run"):
        run(script, [ToolErrorMiddleware(loop_action="stop")])


def test_tool_safety_from_tool_metadata() -> None:
    """An MCP-style readOnlyHint in a tool's metadata makes timeout retries safe."""
    read_only_fetch = fetch.model_copy(update={"metadata": {"readOnlyHint": True}})
    model, _ = run(
        [ai(tool_call("fetch", "c1", url="https://api.example.com/slow")), "done"],
        [ToolErrorMiddleware()],
        tools=[read_only_fetch, write_file, get_weather],
    )
    assert model.calls[1][-1].content.endswith(
        "This is a temporary failure. Retrying the same call is expected to succeed."
    )


def test_detection_records_reach_the_callback_and_logger_toolerr(caplog: pytest.LogCaptureFixture) -> None:
    records: list[Any] = []
    caplog.set_level(logging.INFO, logger="toolerr")
    run(
        [ai(tool_call("write_file", "c1", path="/etc/app.conf", text="x=1")), "done"],
        [ToolErrorMiddleware(on_record=records.append)],
    )
    assert [(r.tool, r.call_id, r.kind, r.rule, r.detection, r.form, r.changed) for r in records] == [
        ("write_file", "c1", "unrecoverable", "exception:PermissionError", "exception", "c3", True)
    ]
    logged = [r.getMessage() for r in caplog.records if r.name == "toolerr" and r.levelno == logging.INFO]
    assert any(message.startswith("toolerr: write_file failed (unrecoverable") for message in logged)


@pytest.mark.parametrize(
    ("metadata", "runs"),
    [(None, 1), ({"readOnlyHint": True}, 2), ({"annotations": {"idempotentHint": True}}, 2)],
)
def test_the_idempotency_guard_honours_what_the_tool_declares(metadata: Any, runs: int) -> None:
    """fetch times out (an unknown outcome): under the default loop action its identical
    resend is answered without running it, unless its metadata declares it read-only or
    idempotent (MCP hints, as langchain-mcp-adapters copies them)."""
    call = {"url": "https://api.example.com/slow"}
    script = [ai(tool_call("fetch", f"c{i}", **call)) for i in range(2)] + ["done"]
    tool_ = fetch if metadata is None else fetch.model_copy(update={"metadata": metadata})
    _, state = run(script, [ToolErrorMiddleware()], tools=[tool_])
    assert [("fetch", call)] * runs == EXECUTED
    second = state["messages"][4]
    assert isinstance(second, ToolMessage) and second.status == "error"
    assert second.content.startswith("Error: this call was not executed.") is (runs == 1)
