"""An MCP server run through the SDK's own MCP support (``MCPServerStdio``) returning
``isError``: the SDK hands the model the error text as a list of content items with no
error flag; the recovery detects it by text."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest
from agents import Agent, Runner
from agents.mcp import MCPServerStdio
from oa_support import call, done, note, scripted
from shared_support import MCP_FILES_SERVER, UNRECOVERABLE
from toolerr import DetectionRecord
from toolerr_openai_agents import ToolErrorRecovery

SERVER = MCP_FILES_SERVER
ERROR = "Error executing tool read_file: EACCES: permission denied, open '/root/secret.txt'"

pytestmark = pytest.mark.slow


def _run(form: str, loop_action: str = "note", steps: int = 1) -> tuple[Any, list[DetectionRecord], Any]:
    records: list[DetectionRecord] = []
    recovery = ToolErrorRecovery(form=form, loop_action=loop_action, on_record=records.append)
    plan = [[call("read_file", {"path": "/root/secret.txt"}, f"c{n}")] for n in range(1, steps + 1)]
    model = scripted(*plan, [done("I may not read that file.")])

    async def main() -> Any:
        params = {"command": sys.executable, "args": [str(SERVER)]}
        async with MCPServerStdio(params=params, cache_tools_list=True, name="files") as server:
            agent = Agent(name="files", model=model, mcp_servers=[server])
            return await Runner.run(agent, "Show /root/secret.txt", run_config=recovery.run_config())

    result = asyncio.run(main())
    return model, records, result


def test_mcp_is_error_result_gets_the_note() -> None:
    model, records, result = _run("c3")

    decision = model.calls[1].input
    assert decision[2] == {
        "call_id": "c1",
        "output": [{"type": "input_text", "text": ERROR}],
        "type": "function_call_output",
    }
    assert decision[3] == {
        "role": "user",
        "content": note("read_file", 'path="/root/secret.txt"', ERROR, UNRECOVERABLE),
    }
    assert [(r.tool, r.kind, r.changed) for r in records] == [("read_file", "unrecoverable", True)]
    assert "Note from the tool runtime" not in json.dumps(result.to_input_list())


def test_mcp_is_error_result_in_c1() -> None:
    model, _, _ = _run("c1")

    assert model.calls[1].input[2]["output"] == [
        {"type": "input_text", "text": ERROR},
        {"type": "input_text", "text": UNRECOVERABLE},
    ]


def test_mcp_tools_are_guarded_too() -> None:
    model, _, _ = _run("c3", loop_action="block", steps=2)

    blocked = model.calls[2].input[4]
    assert blocked["call_id"] == "c2"
    assert blocked["output"].startswith("Error: this call was not executed.")
