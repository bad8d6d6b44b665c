"""Runs in threads sharing one ToolErrors never see each other's failures (issue 18,
part 1; ``test_runs.py`` has the asyncio tasks and the sequential runs).

Every run numbers its calls ``c1``, ``c2`` and reads the same kind of path twice;
the failing runs' reads raise, the others' succeed. Each run's model input, and the
tools it executes, must be exactly what the run gets alone.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from pa_support import Script, shown
from pydantic_ai import Agent
from toolerr.adapters import NOTE_PREFIX
from toolerr_pydantic_ai import ToolErrors

FAILING, FINE = "/etc/shadow", "/tmp/a"


def _run(capability: ToolErrors, path: str) -> tuple[list[Any], list[str]]:
    script = Script(
        [("read_file", {"path": path}, "c1")],
        [("read_file", {"path": path}, "c2")],
        "done",
    )
    executed: list[str] = []
    agent = Agent(script.model, capabilities=[capability])

    @agent.tool_plain
    def read_file(path: str) -> str:
        executed.append(path)
        if path.startswith("/etc/"):
            raise PermissionError(13, "Permission denied", path)
        return f"contents of {path}"

    # Each thread runs its own event loop (run_sync leaves a thread's loop open).
    asyncio.run(agent.run("go"))
    return [shown(request) for request in script.requests], executed


@pytest.mark.parametrize("options", [{"loop_action": "block"}, {"loop_action": "note"}, {"form": "c1"}])
def test_runs_in_threads_share_one_capability(options: dict[str, Any]) -> None:
    alone = {path: _run(ToolErrors(**options), path) for path in (FAILING, FINE)}
    assert NOTE_PREFIX not in repr(alone[FINE][0])  # the fine run alone sees no note
    shared = ToolErrors(**options)
    paths = [FAILING, FINE] * 4
    barrier = threading.Barrier(len(paths))
    results: dict[int, tuple[list[Any], list[str]]] = {}
    errors: list[BaseException] = []

    def go(n: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[n] = _run(shared, paths[n])
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(n,)) for n in range(len(paths))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for n, path in enumerate(paths):
        assert results[n] == alone[path], path
    assert alone[FINE][1] == [FINE, FINE]
