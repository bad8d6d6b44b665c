"""pydantic-ai's MCPToolset on a real MCP server over stdio: an ``isError`` result is a
failure, classified from its text; MCP annotations give the tools' retry safety."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import pytest
from fastmcp.client.transports import StdioTransport
from pa_support import Script, Step, notes_in, shown
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from shared_support import MCP_FILES_SERVER
from toolerr import DetectionRecord
from toolerr_pydantic_ai import ToolErrors

SERVER = MCP_FILES_SERVER
EACCES = "Error executing tool read_file: EACCES: permission denied, open '/root/secret.txt'"
STOP = "This cannot be fixed by retrying or by changing the arguments. Tell the user what happened."
RETRY = "This is a temporary failure. Retrying the same call is expected to succeed."
CHECK_FIRST = (
    "This may be a temporary failure, but the call may already have taken effect. "
    "Check whether it did before calling the tool again."
)
FIX = (
    "This call cannot succeed as written. The error says what to change; call the tool again with "
    "the corrected value."
)

pytestmark = pytest.mark.slow


def _run(*turns: Step, **options: Any) -> tuple[Script, Any, list[DetectionRecord]]:
    records: list[DetectionRecord] = []
    script = Script(*turns, "done")
    toolset: MCPToolset[Any] = MCPToolset(StdioTransport(command=sys.executable, args=[str(SERVER)]))
    agent = Agent(
        script.model, toolsets=[toolset], capabilities=[ToolErrors(on_record=records.append, **options)]
    )

    async def main() -> Any:
        async with agent:
            return await agent.run("go")

    result = asyncio.run(main())
    return script, result, records


def _note(name: str, args: str, error: str, guidance: str) -> str:
    return f"Note from the tool runtime: the last attempt called {name} with {args} and it failed with: {error}\n\n{guidance}"


def test_is_error_result_is_a_failure_with_the_note() -> None:
    script, result, records = _run(
        [("read_file", {"path": "/root/secret.txt"}, "c1")],
        [("fetch", {"url": "http://example.test/"}, "c2")],
        [("book", {"date": "2026-01-01"}, "c3")],
    )

    assert result.output == "done"
    assert shown(script.requests[1])[2] == (
        "request",
        [
            ("tool-return", "read_file", "c1", EACCES, "failed"),
            ("user", _note("read_file", 'path="/root/secret.txt"', EACCES, STOP)),
        ],
    )
    # a transient failure: retry guidance on the read-only tool (readOnlyHint), check first
    # on the destructive one (destructiveHint)
    timeout = "Error executing tool fetch: Read timed out: http://example.test/"
    assert shown(script.requests[2])[4][1][1] == (
        "user",
        _note("fetch", 'url="http://example.test/"', timeout, RETRY),
    )
    booked = "Error executing tool book: Read timed out"
    assert shown(script.requests[3])[6][1][1] == (
        "user",
        _note("book", 'date="2026-01-01"', booked, CHECK_FIRST),
    )
    assert [(r.tool, r.kind, r.detection) for r in records] == [
        ("read_file", "unrecoverable", "flag:is_error"),
        ("fetch", "transient", "flag:is_error"),
        ("book", "transient", "flag:is_error"),
    ]
    assert notes_in(result.all_messages()) == []


def test_fixable_is_error_keeps_the_retry_and_past_it_the_run_goes_on() -> None:
    """pydantic-ai raises ModelRetry for every isError result (one retry, then the run
    ends); toolerr keeps the retry for a fixable one only, and past max_retries the result
    stays a failed tool result the model sees."""
    script, result, records = _run(
        [("read_file", {"path": "/root/a"}, "c1")],
        [("book", {"date": "5 May"}, "c2")],
        [("book", {"date": "5 May"}, "c3")],
    )

    assert result.output == "done"
    outcomes = [p[4] for m in shown(result.all_messages()) for p in m[1] if p[0] == "tool-return"]
    # the unrecoverable failure spent no retry: the fixable one still gets the framework's
    assert outcomes == ["failed", "retried", "failed"]
    error = "Error executing tool book: invalid date format '5 May': expected YYYY-MM-DD"
    assert shown(script.requests[2])[4][1] == [
        ("tool-return", "book", "c2", error, "retried"),
        ("user", _note("book", 'date="5 May"', error, FIX)),
    ]
    assert [(r.tool, r.kind, r.repeat) for r in records] == [
        ("read_file", "unrecoverable", None),
        ("book", "fixable", None),
        ("book", "fixable", "exact"),
    ]


def test_block_keeps_an_identical_repeat_from_reaching_the_server() -> None:
    script, result, records = _run(
        [("read_file", {"path": "/root/secret.txt"}, "c1")],
        [("read_file", {"path": "/root/secret.txt"}, "c2")],
        loop_action="block",
    )

    assert result.output == "done"
    blocked = shown(script.requests[2])[4][1][0]
    assert blocked[:3] == ("tool-return", "read_file", "c2")
    assert blocked[3].startswith("Error: this call was not executed.")
    assert records[-1].rule == "ledger:blocked-repeat"
