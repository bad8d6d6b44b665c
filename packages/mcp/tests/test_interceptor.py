"""ToolErrorInterceptor with the real langchain-mcp-adapters (mcp 1.x only: the adapters need mcp<2)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any

import mcp_servers as servers
import pytest
import toolerr

pytest.importorskip("langchain_mcp_adapters", reason="langchain-mcp-adapters needs mcp<2")

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.interceptors import ToolCallInterceptor
from langchain_mcp_adapters.tools import load_mcp_tools
from toolerr_langchain.testing import ScriptedChatModel
from toolerr_mcp import ToolErrorInterceptor
from toolerr_mcp._interceptor import run_key

pytestmark = pytest.mark.anyio

CHECK_FIRST = toolerr.adapters.GUIDANCE_CHECK_FIRST


def call(name: str, args: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": args, "id": call_id}


def text_of(message: ToolMessage) -> list[str]:
    content = message.content
    if isinstance(content, str):
        return [content]
    return [block["text"] for block in content if isinstance(block, dict) and block.get("type") == "text"]


def by_name(tools: Sequence[Any], name: str) -> Any:
    return next(tool for tool in tools if tool.name == name)


def test_is_a_tool_call_interceptor() -> None:
    assert isinstance(ToolErrorInterceptor(), ToolCallInterceptor)


async def test_failures_become_error_messages_with_guidance() -> None:
    interceptor = ToolErrorInterceptor()
    async with servers.connect(servers.make_server()) as session:
        tools = await load_mcp_tools(session, tool_interceptors=[interceptor], server_name="test")
        interceptor.learn_tools(tools)

        ok = await by_name(tools, "echo").ainvoke(call("echo", {"text": "hi"}))
        assert ok.status == "success"
        assert text_of(ok) == ["hi"]

        fixable = await by_name(tools, "convert").ainvoke(call("convert", {"value": 1, "unit": "kelvins"}))
        assert fixable.status == "error"
        assert servers.FIXABLE_TEXT in text_of(fixable)[0]
        assert text_of(fixable)[-1] == toolerr.adapters.GUIDANCE["fixable"]

        # a JSON-RPC error would end the run without the interceptor
        rpc = await by_name(tools, "fail_rpc").ainvoke(call("fail_rpc", {"code": -32601}))
        assert rpc.status == "error"
        assert text_of(rpc)[0].startswith("MCP error -32601")
        assert text_of(rpc)[-1] == toolerr.adapters.GUIDANCE["fixable"]


async def test_without_the_interceptor_a_json_rpc_error_raises() -> None:
    async with servers.connect(servers.make_server()) as session:
        tools = await load_mcp_tools(session)
        with pytest.raises(Exception, match="Method not found"):
            await by_name(tools, "fail_rpc").ainvoke(call("fail_rpc", {"code": -32601}))


async def test_repeat_is_blocked_without_reaching_the_server() -> None:
    interceptor = ToolErrorInterceptor(loop_action="block")
    async with servers.connect(servers.make_server()) as session:
        tools = await load_mcp_tools(session, tool_interceptors=[interceptor])
        write = by_name(tools, "write_file")
        args = {"path": "/etc/passwd", "text": "x"}
        first = await write.ainvoke(call("write_file", args, "call_1"))
        second = await write.ainvoke(call("write_file", args, "call_1"))  # a reused id, too
        assert text_of(first)[-1] == toolerr.adapters.GUIDANCE["unrecoverable"]
        assert text_of(second)[0].startswith("Error: this call was not executed.")
        stats = await by_name(tools, "stats").ainvoke(call("stats", {}))
        assert json.loads(text_of(stats)[0])["write_file"] == 1


async def test_stop_ends_the_run() -> None:
    interceptor = ToolErrorInterceptor(loop_action="stop")
    async with servers.connect(servers.make_server()) as session:
        tools = await load_mcp_tools(session, tool_interceptors=[interceptor])
        convert = by_name(tools, "convert")
        await convert.ainvoke(call("convert", {"value": 1, "unit": "kelvins"}))
        with pytest.raises(toolerr.ToolLoopError):
            await convert.ainvoke(call("convert", {"value": 1, "unit": "kelvins"}, "call_2"))


async def test_annotations_from_learned_tools_set_retry_safety() -> None:
    safe = ToolErrorInterceptor()
    unsure = ToolErrorInterceptor()
    async with servers.connect(servers.make_server(), read_timeout=0.3) as session:
        safe_tools = await load_mcp_tools(session, tool_interceptors=[safe])
        safe.learn_tools(safe_tools)
        unsure_tools = await load_mcp_tools(session, tool_interceptors=[unsure])  # never learned
        result = await by_name(safe_tools, "slow").ainvoke(call("slow", {"seconds": 30}))
        assert result.status == "error"
        assert text_of(result)[-1] == toolerr.adapters.GUIDANCE["transient"]
        result = await by_name(unsure_tools, "slow").ainvoke(call("slow", {"seconds": 30}))
        assert text_of(result)[-1] == CHECK_FIRST


async def test_ledgers_are_kept_per_run() -> None:
    assert run_key(_Runtime("a")) == ("thread", "a") != run_key(_Runtime("b"))
    assert run_key(_Runtime(None, run_id="r1")) == ("run", "r1")
    first = HumanMessage("hi", id="m-1")
    assert run_key(_Runtime(None, messages=[first])) == ("conversation", "m-1")
    assert run_key(None) is None


class _Runtime:
    def __init__(self, thread: str | None, run_id: str | None = None, messages: Any = None) -> None:
        self.config: dict[str, Any] = {"configurable": {"thread_id": thread} if thread else {}}
        if run_id:
            self.config["run_id"] = run_id
        self.state = {"messages": messages or []}


@pytest.mark.slow
async def test_multi_server_client_over_stdio() -> None:
    interceptor = ToolErrorInterceptor()
    client = MultiServerMCPClient(
        {
            "test": {
                "command": sys.executable,
                "args": [servers.SCRIPT],
                "transport": "stdio",
                "env": dict(os.environ),
            }
        },
        tool_interceptors=[interceptor],
    )
    tools = await client.get_tools()
    interceptor.learn_tools(tools)
    result = await by_name(tools, "search").ainvoke(call("search", {"query": "q"}))
    assert result.status == "error"
    assert text_of(result)[-1] == toolerr.adapters.GUIDANCE["transient"]
    died = await by_name(tools, "die").ainvoke(call("die", {}))  # a new server process per call
    assert died.status == "error"
    assert text_of(died)[0].startswith("MCP error")


async def test_langchain_agent_sees_the_guidance() -> None:
    from langchain.agents import create_agent

    model = ScriptedChatModel(
        script=[
            AIMessage(content="", tool_calls=[call("convert", {"value": 1, "unit": "kelvins"}, "c1")]),
            AIMessage(content="", tool_calls=[call("convert", {"value": 1, "unit": "celsius"}, "c2")]),
            AIMessage(content="1 celsius"),
        ],
    )
    interceptor = ToolErrorInterceptor()
    async with servers.connect(servers.make_server()) as session:
        tools = await load_mcp_tools(session, tool_interceptors=[interceptor])
        agent = create_agent(model, tools)
        state = await agent.ainvoke(
            {"messages": [{"role": "user", "content": "convert 1 kelvins"}]},
            {"configurable": {"thread_id": "t1"}},
        )
    assert state["messages"][-1].content == "1 celsius"
    second_call_input = model.calls[1]
    failed = second_call_input[-1]
    assert isinstance(failed, ToolMessage)
    assert failed.status == "error"
    assert text_of(failed)[-1] == toolerr.adapters.GUIDANCE["fixable"]


@pytest.mark.parametrize("rpc", [False, True], ids=["is_error", "json_rpc_error"])
async def test_langchain_agent_sees_the_failure_read_with_the_declared_parameters(rpc: bool) -> None:
    """The learned tools' MCP inputSchema: one failure text, ambiguous for the query declared
    a saved one (what the server sent, nothing appended), fixable for the SQL to run."""
    from langchain.agents import create_agent

    extra = {"as_rpc_error": True} if rpc else {}
    model = ScriptedChatModel(
        script=[
            AIMessage(content="", tool_calls=[call("run_saved_query", {"query": "churn", **extra}, "c1")]),
            AIMessage(content="", tool_calls=[call("run_sql", {"query": "churn", **extra}, "c2")]),
            AIMessage(content="done"),
        ],
    )
    interceptor = ToolErrorInterceptor()
    async with servers.connect(servers.make_server()) as session:
        tools = await load_mcp_tools(session, tool_interceptors=[interceptor])
        interceptor.learn_tools(tools)
        await create_agent(model, tools).ainvoke({"messages": [{"role": "user", "content": "churn"}]})
    saved, sql = model.calls[1][-1], model.calls[2][-1]
    assert isinstance(saved, ToolMessage) and isinstance(sql, ToolMessage)
    assert saved.status == sql.status == "error"
    shown = (
        f"MCP error -32603: {servers.LITERAL_TEXT}"
        if rpc
        else f"Error executing tool run_saved_query: {servers.LITERAL_TEXT}"
    )
    assert text_of(saved) == [shown]
    assert text_of(sql) == [shown.replace("run_saved_query", "run_sql"), toolerr.adapters.GUIDANCE["fixable"]]


# -- runs sharing one interceptor (issue 18) ---------------------------------------------


def _isolation_script(second_unit: str) -> list[AIMessage]:
    """Every run numbers its calls call_0, call_1: a failing convert, then another convert."""
    return [
        AIMessage(content="", tool_calls=[call("convert", {"value": 1, "unit": "kelvins"}, "call_0")]),
        AIMessage(content="", tool_calls=[call("convert", {"value": 1, "unit": second_unit}, "call_1")]),
        AIMessage(content="done"),
    ]


def _seen(calls: list[list[BaseMessage]]) -> list[list[tuple[Any, ...]]]:
    def one(message: BaseMessage) -> tuple[Any, ...]:
        if isinstance(message, ToolMessage):
            return ("tool", text_of(message), message.tool_call_id, message.status)
        return (message.type, message.content)

    return [[one(message) for message in call] for call in calls]


async def _agent_run(interceptor: ToolErrorInterceptor, session: Any, second_unit: str) -> Any:
    from langchain.agents import create_agent

    model = ScriptedChatModel(script=_isolation_script(second_unit))
    tools = await load_mcp_tools(session, tool_interceptors=[interceptor])
    await create_agent(model, tools).ainvoke({"messages": [{"role": "user", "content": "convert"}]})
    return _seen(model.calls)


@pytest.mark.parametrize("loop_action", ["block", "note"])
async def test_runs_sharing_one_interceptor_see_only_their_own_failures(loop_action: str) -> None:
    """Run A repeats its failed call (blocked); run B makes the same first call: B's call
    must reach the server and B's model input must be what B alone gets."""
    import anyio

    async with servers.connect(servers.make_server()) as session:
        alone = {
            unit: await _agent_run(ToolErrorInterceptor(loop_action=loop_action), session, unit)
            for unit in ("kelvins", "celsius")
        }
        shared = ToolErrorInterceptor(loop_action=loop_action)
        for unit in ("kelvins", "celsius", "kelvins", "celsius"):  # one after another
            assert await _agent_run(shared, session, unit) == alone[unit]
        results: dict[int, Any] = {}

        async def task(n: int, unit: str) -> None:
            results[n] = (unit, await _agent_run(shared, session, unit))

        async with anyio.create_task_group() as group:  # concurrent asyncio tasks
            for n in range(6):
                group.start_soon(task, n, "kelvins" if n % 2 else "celsius")
    assert len(results) == 6
    for unit, seen in results.values():
        assert seen == alone[unit]
    if loop_action == "block":
        assert "not executed" in str(alone["kelvins"][-1][-1])
        assert "not executed" not in str(alone["celsius"])
