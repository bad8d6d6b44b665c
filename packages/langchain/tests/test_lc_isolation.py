"""Runs sharing one ToolErrorMiddleware never see each other's failures (issue 18, part 1).

Every run numbers its tool calls ``call_0``, ``call_1`` ... as local models and scripted
tests do. Each run's model input, and the tools it executes, must be exactly what the run
gets alone, for runs one after another, in threads and in asyncio tasks.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from lc_support import CHECK_FIRST, TRANSIENT, fetch
from toolerr_langchain import ToolErrorMiddleware
from toolerr_langchain.testing import ScriptedChatModel, tool_call

_WRITES: contextvars.ContextVar[list[str]] = contextvars.ContextVar("writes")


@tool
def write_file(path: str, text: str) -> str:
    """Write text to a file."""
    _WRITES.get().append(path)
    if path.startswith("/etc/"):
        raise PermissionError(13, "Permission denied", path)
    return f"wrote {len(text)} bytes to {path}"


def _script(path: str) -> list[Any]:
    """Write, write again (a legitimate rewrite in B, a repeat of a failure in A), answer."""
    return [
        AIMessage("", tool_calls=[tool_call("write_file", "call_0", path=path, text="x=1")]),
        AIMessage("", tool_calls=[tool_call("write_file", "call_1", path=path, text="x=1")]),
        "done",
    ]


RUN_A, RUN_B = "/etc/a.conf", "/tmp/b.txt"


def _seen(calls: Sequence[Sequence[BaseMessage]]) -> list[list[tuple[Any, ...]]]:
    """What the model was sent, without LangChain's random message ids."""

    def one(message: BaseMessage) -> tuple[Any, ...]:
        if isinstance(message, ToolMessage):
            return ("tool", message.content, message.tool_call_id, message.status)
        if isinstance(message, AIMessage):
            return ("ai", message.content, [(c["id"], c["name"], c["args"]) for c in message.tool_calls])
        return (message.type, message.content)

    return [[one(message) for message in call] for call in calls]


def _run(middleware: ToolErrorMiddleware, path: str) -> tuple[list[list[tuple[Any, ...]]], list[str]]:
    writes: list[str] = []
    _WRITES.set(writes)
    model = ScriptedChatModel(script=_script(path))
    create_agent(model, [write_file], middleware=[middleware]).invoke({"messages": [("user", "Write it.")]})
    return _seen(model.calls), writes


async def _arun(middleware: ToolErrorMiddleware, path: str) -> list[list[tuple[Any, ...]]]:
    model = ScriptedChatModel(script=_script(path))
    agent = create_agent(model, [write_file], middleware=[middleware])
    _WRITES.set([])
    await agent.ainvoke({"messages": [("user", "Write it.")]})
    return _seen(model.calls)


OPTIONS = [{"loop_action": "block"}, {"loop_action": "note"}, {"form": "c1", "loop_action": "block"}]


def _alone(options: dict[str, Any], path: str) -> tuple[list[list[tuple[Any, ...]]], list[str]]:
    return _run(ToolErrorMiddleware(**options), path)


@pytest.mark.parametrize("options", OPTIONS)
def test_sequential_runs_with_colliding_call_ids(options: dict[str, Any]) -> None:
    alone_a, alone_b = _alone(options, RUN_A), _alone(options, RUN_B)
    shared = ToolErrorMiddleware(**options)
    for path, alone in [(RUN_A, alone_a), (RUN_B, alone_b), (RUN_A, alone_a), (RUN_B, alone_b)]:
        assert _run(shared, path) == alone


def test_an_all_success_run_gets_no_note_after_a_failed_run() -> None:
    shared = ToolErrorMiddleware()
    _run(shared, RUN_A)
    seen, writes = _run(shared, RUN_B)
    assert writes == [RUN_B, RUN_B]
    assert not any("Note from the tool runtime" in str(m[1]) for call in seen for m in call)


def test_block_of_a_failed_write_does_not_block_another_runs_write() -> None:
    shared = ToolErrorMiddleware(loop_action="block")
    _, writes_a = _run(shared, RUN_A)
    assert writes_a == [RUN_A]  # A's repeat of its failed write is blocked
    seen_b, writes_b = _run(shared, RUN_B)
    assert writes_b == [RUN_B, RUN_B]  # B's legitimate writes both run
    assert [m for m in seen_b[-1] if m[0] == "tool"] == [
        ("tool", "wrote 3 bytes to /tmp/b.txt", "call_0", "success"),
        ("tool", "wrote 3 bytes to /tmp/b.txt", "call_1", "success"),
    ]


@pytest.mark.parametrize("options", OPTIONS)
def test_runs_in_threads_share_one_middleware(options: dict[str, Any]) -> None:
    expected = {RUN_A: _alone(options, RUN_A), RUN_B: _alone(options, RUN_B)}
    shared = ToolErrorMiddleware(**options)
    barrier = threading.Barrier(8)
    results: dict[int, tuple[str, Any]] = {}
    errors: list[BaseException] = []

    def go(n: int) -> None:
        path = RUN_A if n % 2 else RUN_B
        try:
            barrier.wait()
            results[n] = (path, _run(shared, path))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert len(results) == 8
    for path, got in results.values():
        assert got == expected[path]


@pytest.mark.parametrize("options", OPTIONS)
def test_runs_in_asyncio_tasks_share_one_middleware(options: dict[str, Any]) -> None:
    expected = {RUN_A: _alone(options, RUN_A)[0], RUN_B: _alone(options, RUN_B)[0]}
    shared = ToolErrorMiddleware(**options)
    paths = [RUN_A, RUN_B] * 4

    async def main() -> list[list[list[tuple[Any, ...]]]]:
        return await asyncio.gather(*(_arun(shared, path) for path in paths))

    for path, got in zip(paths, asyncio.run(main()), strict=True):
        assert got == expected[path]


def test_tool_safety_declared_by_one_agents_tool_does_not_reach_another_agent() -> None:
    """Two agents share one middleware and each has its own tool named ``fetch``: A's is
    read-only (MCP hint in its metadata), B's is not. B's timeout may have taken effect, so
    B is told to check before retrying, whichever agent ran first."""
    read_only = fetch.model_copy(update={"metadata": {"readOnlyHint": True}})
    writing = fetch.model_copy(update={"metadata": {"destructiveHint": True}})
    shared = ToolErrorMiddleware()

    def guidance(tool: Any) -> str:
        model = ScriptedChatModel(
            script=[AIMessage("", tool_calls=[tool_call("fetch", "c1", url="https://a.example/slow")]), "ok"]
        )
        create_agent(model, [tool], middleware=[shared]).invoke({"messages": [("user", "Fetch it.")]})
        return str(model.calls[1][-1].content).rsplit("\n\n", 1)[-1]

    assert guidance(read_only) == TRANSIENT
    assert guidance(fetch) == CHECK_FIRST
    assert guidance(writing) == CHECK_FIRST
    assert guidance(read_only) == TRANSIENT
