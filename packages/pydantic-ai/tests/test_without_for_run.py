"""Hooks that reach the shared instance without ``for_run`` (defensive): each run keeps
its own run scope, by its run id."""

from __future__ import annotations

import asyncio
from typing import Any

from pa_support import Script, notes_in, plan, read_file_agent
from pydantic_ai.capabilities import AbstractCapability
from toolerr_pydantic_ai import ToolErrors


class _Shared(ToolErrors):
    async def for_run(self, ctx: Any) -> AbstractCapability[Any]:
        return self


def test_runs_without_for_run_are_isolated_and_block_their_own_repeats() -> None:
    shared = _Shared(loop_action="block")
    failing = Script(*plan("/etc/shadow", "/etc/shadow"), "done")
    fine = Script(*plan("/tmp/a", "/tmp/a"), "done")
    agent_a, executed_a = read_file_agent(failing, shared)
    agent_b, executed_b = read_file_agent(fine, shared)

    async def main() -> None:
        await asyncio.gather(agent_a.run("go"), agent_b.run("go"))

    asyncio.run(main())
    assert executed_a == ["/etc/shadow"]  # its own repeat was blocked
    assert executed_b == ["/tmp/a", "/tmp/a"]
    assert all(notes_in(r) == [] for r in fine.requests)
    assert len(notes_in(failing.requests[-1])) == 1
