"""Hooks that reach the shared instance without ``for_run`` (defensive): each run keeps
its own run scope, by its run id."""

from __future__ import annotations

import asyncio
from typing import Any

from pa_support import Script, notes_in
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from toolerr_pydantic_ai import ToolErrors


class _Shared(ToolErrors):
    async def for_run(self, ctx: Any) -> AbstractCapability[Any]:
        return self


def _agent(script: Script, capability: ToolErrors) -> tuple[Agent[None, str], list[str]]:
    executed: list[str] = []
    agent = Agent(script.model, capabilities=[capability])

    @agent.tool_plain
    def read_file(path: str) -> str:
        executed.append(path)
        if path.startswith("/etc/"):
            raise PermissionError(13, "Permission denied", path)
        return f"contents of {path}"

    return agent, executed


def _plan(*paths: str) -> list[Any]:
    return [[("read_file", {"path": p}, f"c{n}")] for n, p in enumerate(paths, 1)]


def test_runs_without_for_run_are_isolated_and_block_their_own_repeats() -> None:
    shared = _Shared(loop_action="block")
    failing = Script(*_plan("/etc/shadow", "/etc/shadow"), "done")
    fine = Script(*_plan("/tmp/a", "/tmp/a"), "done")
    agent_a, executed_a = _agent(failing, shared)
    agent_b, executed_b = _agent(fine, shared)

    async def main() -> None:
        await asyncio.gather(agent_a.run("go"), agent_b.run("go"))

    asyncio.run(main())
    assert executed_a == ["/etc/shadow"]  # its own repeat was blocked
    assert executed_b == ["/tmp/a", "/tmp/a"]
    assert all(notes_in(r) == [] for r in fine.requests)
    assert len(notes_in(failing.requests[-1])) == 1
