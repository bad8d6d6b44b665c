"""Overhead of toolerr_pydantic_ai.ToolErrors on a real pydantic-ai Agent run.

The real Agent loop with the framework's scripted ``FunctionModel`` (no network, no model
time: what is left is pydantic-ai's own work plus toolerr's) and a real tool. A run of N
steps is N tool calls and a final answer. Scenarios:

* ``ok``: every call succeeds. Run without and with ``capabilities=[ToolErrors()]``,
  interleaved, ``--repeats`` times; figures: the median of the per-pair ratios (with /
  without) and the median extra time per step.
* ``pass-through``: a capability with the same hooks doing nothing, interleaved with the
  two above: what pydantic-ai itself costs for running a capability.
* ``failing``: every other call raises ``PermissionError`` (with different arguments each
  time). Without toolerr the first exception ends the run, so this one is measured with the
  capability only.

In both, the time spent inside the capability's hooks (``prepare_tools``,
``before_model_request``, ``wrap_tool_execute`` less the tool's own execution,
``on_tool_execute_error``) is summed per run and divided by its steps (model requests).

    python benchmarks/bench_pydantic_ai.py [--repeats 21] [--steps 10 100] [--out benchmarks/out]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import pydantic_ai
import toolerr
from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import UsageLimits
from toolerr_pydantic_ai import ToolErrors


class TimedToolErrors(ToolErrors):
    """ToolErrors that adds the time spent in its hooks to ``self.spent`` (the per-run
    copies share the one list)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.spent = [0.0]

    async def prepare_tools(self, ctx: Any, tool_defs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await super().prepare_tools(ctx, tool_defs)
        finally:
            self.spent[0] += time.perf_counter() - start

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        start = time.perf_counter()
        try:
            return await super().before_model_request(ctx, request_context)
        finally:
            self.spent[0] += time.perf_counter() - start

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
        inner = [0.0]

        async def timed(a: Any) -> Any:
            s = time.perf_counter()
            try:
                return await handler(a)
            finally:
                inner[0] += time.perf_counter() - s

        start = time.perf_counter()
        try:
            return await super().wrap_tool_execute(
                ctx, call=call, tool_def=tool_def, args=args, handler=timed
            )
        finally:
            self.spent[0] += time.perf_counter() - start - inner[0]

    async def on_tool_execute_error(
        self, ctx: Any, *, call: Any, tool_def: Any, args: Any, error: Exception
    ) -> Any:
        start = time.perf_counter()
        try:
            return await super().on_tool_execute_error(
                ctx, call=call, tool_def=tool_def, args=args, error=error
            )
        finally:
            # it runs inside wrap_tool_execute's handler, whose time is not counted there
            self.spent[0] += time.perf_counter() - start


class PassThrough(AbstractCapability[Any]):
    """A capability with the same hooks as ToolErrors that does nothing in them: what
    pydantic-ai itself costs for running a capability's hooks."""

    async def for_run(self, ctx: Any) -> AbstractCapability[Any]:
        return PassThrough()

    async def prepare_tools(self, ctx: Any, tool_defs: Any) -> Any:
        return tool_defs

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        return request_context

    async def wrap_tool_execute(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, handler: Any) -> Any:
        return await handler(args)

    async def on_tool_execute_error(
        self, ctx: Any, *, call: Any, tool_def: Any, args: Any, error: Exception
    ) -> Any:
        raise error


def _model(steps: int, failing: bool) -> FunctionModel:
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        step = sum(isinstance(m, ModelResponse) for m in messages)
        if step >= steps:
            return ModelResponse(parts=[TextPart("done")])
        prefix = "/etc/" if failing and step % 2 == 0 else "/tmp/"
        return ModelResponse(
            parts=[ToolCallPart("read_file", {"path": f"{prefix}f{step}"}, tool_call_id=f"c{step}")]
        )

    return FunctionModel(answer)


def _agent(steps: int, failing: bool, capability: AbstractCapability[Any] | None) -> Agent[None, str]:
    agent = Agent(_model(steps, failing), capabilities=[capability] if capability is not None else [])

    @agent.tool_plain
    def read_file(path: str) -> str:
        if path.startswith("/etc/"):
            raise PermissionError(13, "Permission denied", path)
        return f"contents of {path}"

    return agent


async def _time(agent: Agent[None, str]) -> float:
    start = time.perf_counter()
    result = await agent.run("go", usage_limits=UsageLimits(request_limit=None))
    elapsed = time.perf_counter() - start
    assert result.output == "done"
    return elapsed


async def _bench(steps: int, repeats: int) -> dict[str, Any]:
    plain = _agent(steps, False, None)
    noop = _agent(steps, False, PassThrough())
    timed = TimedToolErrors()
    with_cap = _agent(steps, False, timed)
    failing_cap = TimedToolErrors()
    failing = _agent(steps, True, failing_cap)
    for agent in (plain, noop, with_cap, failing):  # warm up
        await _time(agent)
    timed.spent[0] = failing_cap.spent[0] = 0.0
    without: list[float] = []
    passthrough: list[float] = []
    with_: list[float] = []
    hooks: list[float] = []
    failing_runs: list[float] = []
    failing_hooks: list[float] = []
    for _ in range(repeats):
        without.append(await _time(plain))
        passthrough.append(await _time(noop))
        timed.spent[0] = 0.0
        with_.append(await _time(with_cap))
        hooks.append(timed.spent[0])
        failing_cap.spent[0] = 0.0
        failing_runs.append(await _time(failing))
        failing_hooks.append(failing_cap.spent[0])
    requests = steps + 1
    ratios = [w / o for w, o in zip(with_, without, strict=True)]
    extra = [(w - o) / requests for w, o in zip(with_, without, strict=True)]
    framework = [(p - o) / requests for p, o in zip(passthrough, without, strict=True)]
    return {
        "steps": steps,
        "model_requests": requests,
        "run_without_ms": statistics.median(without) * 1e3,
        "run_with_ms": statistics.median(with_) * 1e3,
        "ratio_median": statistics.median(ratios),
        "extra_per_step_ms": statistics.median(extra) * 1e3,
        "passthrough_extra_per_step_ms": statistics.median(framework) * 1e3,
        "hooks_per_step_ms": statistics.median(hooks) / requests * 1e3,
        "failing_run_ms": statistics.median(failing_runs) * 1e3,
        "failing_hooks_per_step_ms": statistics.median(failing_hooks) / requests * 1e3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--steps", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--out", type=Path, default=Path("benchmarks/out"))
    args = parser.parse_args()
    rows = [asyncio.run(_bench(steps, args.repeats)) for steps in args.steps]
    report = {
        "python": platform.python_version(),
        "pydantic_ai": pydantic_ai.__version__,
        "toolerr": toolerr.__version__,
        "repeats": args.repeats,
        "rows": rows,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "bench_pydantic_ai.json").write_text(json.dumps(report, indent=2) + "\n")
    print(
        "steps | run without (ms) | run with (ms) | ratio | extra per step (ms) | "
        "pass-through capability: extra per step (ms) | hooks per step (ms) | "
        "failing: run (ms) | failing: hooks per step (ms)"
    )
    for r in rows:
        print(
            f"{r['steps']} | {r['run_without_ms']:.1f} | {r['run_with_ms']:.1f} | {r['ratio_median']:.3f} | "
            f"{r['extra_per_step_ms']:.3f} | {r['passthrough_extra_per_step_ms']:.3f} | "
            f"{r['hooks_per_step_ms']:.3f} | {r['failing_run_ms']:.1f} | "
            f"{r['failing_hooks_per_step_ms']:.3f}"
        )


if __name__ == "__main__":
    main()
