"""Runs sharing one ToolErrorRecovery never see each other's failures (issue 18, part 1).

Every run numbers its calls ``call_0``, ``call_1`` ... (as local models and scripted tests
do). Each run's model input, and the tools it executes, must be exactly what the run gets
alone: runs one after another (in one asyncio task and in separate ones), concurrent
asyncio tasks and threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from typing import Any

import pytest
from agents import Agent, Runner, trace
from oa_support import Tools, call, done, inputs, scripted
from toolerr_openai_agents import ToolErrorRecovery

FAILING, FINE = "Oslo", "Paris"  # get_weather raises PermissionError for Oslo
OPTIONS = [
    {"loop_action": "block"},
    {"loop_action": "note"},
    {"form": "c1", "loop_action": "block"},
    {"form": "c1", "loop_action": "note"},
]
Seen = tuple[list[list[dict[str, Any]]], list[tuple[str, dict[str, Any]]]]


async def _run(recovery: ToolErrorRecovery, city: str) -> Seen:
    """Two calls to get_weather for ``city`` (a legitimate second call for Paris, a repeat
    of a failure for Oslo), then an answer."""
    tools = Tools({FAILING: PermissionError(13, "Permission denied")})
    model = scripted(
        [call("get_weather", {"city": city}, "call_0")],
        [call("get_weather", {"city": city}, "call_1")],
        [done()],
    )
    agent = Agent(name="weather", model=model, tools=[tools.weather()])
    await Runner.run(agent, "Weather?", run_config=recovery.run_config())
    return inputs(model), tools.executed


def _alone(options: dict[str, Any]) -> dict[str, Seen]:
    return {city: asyncio.run(_run(ToolErrorRecovery(**options), city)) for city in (FAILING, FINE)}


def test_an_all_success_run_gets_no_note_after_a_failed_run() -> None:
    shared = ToolErrorRecovery()
    asyncio.run(_run(shared, FAILING))
    seen, executed = asyncio.run(_run(shared, FINE))
    assert len(executed) == 2
    assert not any("Note from the tool runtime" in str(item) for items in seen for item in items)


def test_block_of_a_failed_call_does_not_block_another_runs_call() -> None:
    shared = ToolErrorRecovery(loop_action="block")

    async def both() -> tuple[Seen, Seen]:  # one after the other in the same asyncio task
        return await _run(shared, FAILING), await _run(shared, FINE)

    (_, failing), (seen, fine) = asyncio.run(both())
    assert len(failing) == 1  # the repeat of the failed call is blocked
    assert len(fine) == 2  # both legitimate calls run
    assert [i["output"] for i in seen[-1] if i.get("type") == "function_call_output"] == [
        "Paris: 18 C, cloudy",
        "Paris: 18 C, cloudy",
    ]


@pytest.mark.parametrize("options", OPTIONS)
def test_sequential_runs(options: dict[str, Any]) -> None:
    alone = _alone(options)
    shared = ToolErrorRecovery(**options)
    order = [FAILING, FINE, FAILING, FINE, FINE, FAILING]
    for city in order:  # each in its own asyncio.run
        assert asyncio.run(_run(shared, city)) == alone[city]

    async def in_one_task() -> list[Seen]:
        return [await _run(shared, city) for city in order]

    assert asyncio.run(in_one_task()) == [alone[city] for city in order]


@pytest.mark.parametrize("options", OPTIONS)
def test_concurrent_asyncio_tasks(options: dict[str, Any]) -> None:
    alone = _alone(options)
    shared = ToolErrorRecovery(**options)
    order = [FAILING, FINE] * 4

    async def all_at_once() -> list[Seen]:
        return list(await asyncio.gather(*(_run(shared, city) for city in order)))

    assert asyncio.run(all_at_once()) == [alone[city] for city in order]


@pytest.mark.parametrize("options", OPTIONS)
def test_threads(options: dict[str, Any]) -> None:
    alone = _alone(options)
    shared = ToolErrorRecovery(**options)
    barrier = threading.Barrier(6)
    results: dict[int, tuple[str, Seen]] = {}
    errors: list[BaseException] = []

    def go(n: int) -> None:
        city = FAILING if n % 2 else FINE
        try:
            barrier.wait()
            results[n] = (city, asyncio.run(_run(shared, city)))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(results) == 6
    for city, seen in results.values():
        assert seen == alone[city]


class UpstreamError(Exception):
    """Its text says nothing of the kind; its HTTP status does (503 transient, 404 ambiguous)."""

    def __init__(self, status_code: int) -> None:
        super().__init__("the upstream said no")
        self.status_code = status_code


@pytest.mark.parametrize("one_trace", [False, True])
def test_a_run_after_a_longer_failed_run_in_the_same_task(one_trace: bool) -> None:
    """Run A in a task: Paris, then Oslo fails with a 503. Run B, next in the same task
    (and in the same trace of the user's): Paris and Oslo at once, Oslo failing with a 404
    of the same text and call ids. B gets what it gets alone (no retry advice for its
    404), not A's classification."""

    async def run_b_alone_or_after_a(after_a: bool) -> list[list[dict[str, Any]]]:
        with trace("conversation") if one_trace else contextlib.nullcontext():
            return await runs(after_a)

    async def runs(after_a: bool) -> list[list[dict[str, Any]]]:
        if after_a:
            tools_a = Tools({FAILING: UpstreamError(503)})
            model_a = scripted(
                [call("get_weather", {"city": FINE}, "call_0")],
                [call("get_weather", {"city": FAILING}, "call_1")],
                [done()],
            )
            agent_a = Agent(name="weather", model=model_a, tools=[tools_a.weather()])
            await Runner.run(agent_a, "Weather?", run_config=shared.run_config())
            assert model_a.calls[2].input[-1]["content"].startswith("Note from the tool runtime")
        tools_b = Tools({FAILING: UpstreamError(404)})
        model_b = scripted(
            [call("get_weather", {"city": FINE}, "call_0"), call("get_weather", {"city": FAILING}, "call_1")],
            [done()],
        )
        agent_b = Agent(name="weather", model=model_b, tools=[tools_b.weather()])
        await Runner.run(agent_b, "Weather?", run_config=shared.run_config())
        return inputs(model_b)

    shared = ToolErrorRecovery()
    alone = asyncio.run(run_b_alone_or_after_a(False))
    assert "Note from the tool runtime" not in str(alone)
    assert asyncio.run(run_b_alone_or_after_a(True)) == alone


async def _upstream_run(recovery: ToolErrorRecovery, status: int) -> list[list[dict[str, Any]]]:
    """Paris, then Oslo failing with an UpstreamError of ``status`` (same text for every
    status), then an answer."""
    tools = Tools({FAILING: UpstreamError(status)})
    model = scripted(
        [call("get_weather", {"city": FINE}, "call_0")],
        [call("get_weather", {"city": FAILING}, "call_1")],
        [done()],
    )
    agent = Agent(name="weather", model=model, tools=[tools.weather()])
    await Runner.run(agent, "Weather?", run_config=recovery.run_config())
    return inputs(model)


def test_runs_under_one_trace_of_the_users() -> None:
    """The user opens one trace around many runs (all runs then share it): concurrent and
    one-after-the-other runs, whose failures have the same text and call ids but not the
    same kind (503, 404), still get what each gets alone."""
    alone = {status: asyncio.run(_upstream_run(ToolErrorRecovery(), status)) for status in (503, 404)}
    assert alone[503] != alone[404]
    shared = ToolErrorRecovery()
    order = [503, 404] * 6  # more runs than the snapshots kept per trace

    async def all_at_once() -> list[list[list[dict[str, Any]]]]:
        with trace("batch"):
            return list(await asyncio.gather(*(_upstream_run(shared, status) for status in order)))

    async def one_by_one() -> list[list[list[dict[str, Any]]]]:
        with trace("batch"):
            return [await _upstream_run(shared, status) for status in order]

    assert asyncio.run(all_at_once()) == [alone[status] for status in order]
    assert asyncio.run(one_by_one()) == [alone[status] for status in order]


def test_a_trace_collected_while_the_trace_registry_is_locked_does_not_hang() -> None:
    """A trace left started (a streamed run abandoned) is in a reference cycle with its
    context, so the cyclic GC frees it, at whatever allocation triggers a collection: also
    while the registry of traces holds its lock. Its weakref callback then takes that lock
    in the same thread: with a plain lock every later model call of the process hung."""
    import contextvars
    import gc

    from agents.tracing.traces import NoOpTrace
    from toolerr import ToolErrorLayer
    from toolerr.adapters import RunSnapshot, RunTrail

    class CollectingLock:
        """The registry's own lock, with a collection while it is held."""

        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __enter__(self) -> None:
            self.inner.acquire()
            gc.collect()

        def __exit__(self, *exc: object) -> None:
            self.inner.release()

    runs = RunTrail()  # the adapter's registry of traces
    runs._lock = CollectingLock(runs._lock)  # type: ignore[assignment]
    abandoned = NoOpTrace()
    context = contextvars.copy_context()
    context.run(abandoned.start, mark_as_current=True)  # never finished: trace <-> context
    enabled = gc.isenabled()
    gc.disable()
    try:
        runs.keep(abandoned, RunSnapshot(ToolErrorLayer(), []))
        del context, abandoned
        finished = threading.Event()

        def next_model_call() -> None:
            runs.keep(NoOpTrace(), RunSnapshot(ToolErrorLayer(), []))
            finished.set()

        threading.Thread(target=next_model_call, daemon=True).start()
        assert finished.wait(10)
    finally:
        if enabled:
            gc.enable()
