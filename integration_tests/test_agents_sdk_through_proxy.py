"""An MCP client toolerr cannot change, end to end: the OpenAI Agents SDK's own MCP
support talks to ``toolerr-mcp proxy`` over stdio, which runs the real file server as its
upstream. The SDK itself has no toolerr in it: what the model sees comes from the proxy.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from agents import Agent, Runner, set_tracing_disabled
from agents.mcp import MCPServerStdio
from agents.testing import ScriptedModel, assistant_message, function_call
from toolerr_openai_agents import ToolErrorRecovery

set_tracing_disabled(True)

# The stdio MCP server the adapters' tests start too.
SERVER = Path(__file__).resolve().parents[1] / "tests" / "_shared" / "mcp_files_server.py"
ERROR = "Error executing tool read_file: EACCES: permission denied, open '/root/secret.txt'"
UNRECOVERABLE = "This cannot be fixed by retrying or by changing the arguments. Tell the user what happened."


def _proxy_params() -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": ["-m", "toolerr_mcp", "proxy", "--", sys.executable, str(SERVER)],
    }


def _run(path: str, **run_kwargs: Any) -> ScriptedModel:
    model = ScriptedModel(
        [
            [function_call("read_file", json.dumps({"path": path}), call_id="c1")],
            [assistant_message("done")],
        ]
    )

    async def main() -> None:
        async with MCPServerStdio(params=_proxy_params(), cache_tools_list=True, name="files") as server:
            agent = Agent(name="files", model=model, mcp_servers=[server])
            await Runner.run(agent, f"Show {path}", **run_kwargs)

    asyncio.run(main())
    return model


def _tool_output(model: ScriptedModel) -> Any:
    decision = model.calls[1].input
    (output,) = [
        item for item in decision if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    return output["output"]


def test_a_failure_reaches_an_unchanged_client_with_the_guidance_appended() -> None:
    model = _run("/root/secret.txt")
    assert _tool_output(model) == [
        {"type": "input_text", "text": ERROR},
        {"type": "input_text", "text": UNRECOVERABLE},
    ]


def test_a_success_passes_through_the_proxy_unchanged() -> None:
    model = _run("/tmp/notes.txt")
    assert _tool_output(model) == [{"type": "input_text", "text": "contents of /tmp/notes.txt"}]


def test_proxy_c1_and_the_sdk_adapter_c3_together_give_one_note() -> None:
    model = _run("/root/secret.txt", run_config=ToolErrorRecovery().run_config())
    decision = model.calls[1].input
    notes = [
        item
        for item in decision
        if isinstance(item, dict)
        and item.get("role") == "user"
        and "Note from the tool runtime" in str(item.get("content"))
    ]
    assert len(notes) == 1
    assert notes[0]["content"].endswith("\n\n" + UNRECOVERABLE)
