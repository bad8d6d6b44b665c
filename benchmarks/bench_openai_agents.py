"""Overhead of toolerr_openai_agents.ToolErrorRecovery on a real Agents SDK run.

The real Runner with the SDK's scripted model (no network, no model time: what is left is
the SDK's own work plus toolerr's) and real function tools, one of which raises. Each
scenario is run with a plain ``RunConfig`` and with ``ToolErrorRecovery().run_config()``,
interleaved, ``--repeats`` times; the figure is the median of the per-pair ratios (with /
without). Also: the time
of the input filter alone per model call, by conversation length.

    python benchmarks/bench_openai_agents.py [--repeats 31] [--out benchmarks/out]
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

import agents
import toolerr
from agents import Agent, RunConfig, Runner, function_tool, set_tracing_disabled
from agents.run_config import CallModelData, ModelInputData
from agents.testing import ScriptedModel, assistant_message, function_call
from toolerr_openai_agents import ToolErrorRecovery

set_tracing_disabled(True)


@function_tool
def get_weather(city: str) -> str:
    """Current weather for a city."""
    if city.startswith("fail"):
        raise PermissionError(13, "Permission denied")
    return f"{city}: 18 C, cloudy"


def _steps(turns: int, failing: bool) -> list[Any]:
    steps: list[Any] = []
    for turn in range(turns):
        city = f"fail{turn}" if failing and turn % 2 == 0 else f"city{turn}"
        steps.append([function_call("get_weather", {"city": city}, call_id=f"c{turn}")])
    steps.append([assistant_message("done")])
    return steps


async def _one(turns: int, failing: bool, config: RunConfig) -> float:
    model = ScriptedModel(_steps(turns, failing))
    agent = Agent(name="weather", model=model, tools=[get_weather])
    start = time.perf_counter()
    await Runner.run(agent, "Weather?", run_config=config, max_turns=turns + 2)
    return time.perf_counter() - start


async def _scenario(turns: int, failing: bool, repeats: int) -> dict[str, Any]:
    recovery = ToolErrorRecovery()
    plain: list[float] = []
    wired: list[float] = []
    await _one(turns, failing, RunConfig())  # warm-up
    await _one(turns, failing, recovery.run_config())
    for _ in range(repeats):
        plain.append(await _one(turns, failing, RunConfig()))
        wired.append(await _one(turns, failing, recovery.run_config()))
    base, with_recovery = statistics.median(plain), statistics.median(wired)
    # Runs are interleaved in pairs; the median of the per-pair ratios is the figure (it is
    # robust to drift in machine load, which the ratio of two medians is not).
    paired = statistics.median(w / p for p, w in zip(plain, wired, strict=True))
    return {
        "turns": turns,
        "model_calls": turns + 1,
        "failing_calls": (turns + 1) // 2 if failing else 0,
        "median_s_without": round(base, 6),
        "median_s_with": round(with_recovery, 6),
        "overhead_ratio": round(paired, 4),
        "ratio_of_medians": round(with_recovery / base, 4),
        "overhead_ms_per_model_call": round((with_recovery - base) * 1000 / (turns + 1), 4),
    }


def _filter_alone(length: int, repeats: int) -> dict[str, Any]:
    """The filter on one model input of ``length`` exchanges whose last result failed."""
    items: list[Any] = [{"role": "user", "content": "Weather?"}]
    for n in range(length):
        arguments = json.dumps({"city": f"city{n}"})
        items.append(
            {"type": "function_call", "call_id": f"c{n}", "name": "get_weather", "arguments": arguments}
        )
        failed = n == length - 1
        output = "PermissionError: [Errno 13] Permission denied" if failed else f"city{n}: 18 C"
        items.append({"type": "function_call_output", "call_id": f"c{n}", "output": output})
    recovery = ToolErrorRecovery()
    agent = Agent(name="weather")
    times, cpu = [], []
    for _ in range(repeats):
        data = CallModelData(
            model_data=ModelInputData(input=list(items), instructions=None), agent=agent, context=None
        )
        start, start_cpu = time.perf_counter(), time.thread_time()
        recovery.call_model_input_filter(data)
        cpu.append(time.thread_time() - start_cpu)  # without the time other processes took the core
        times.append(time.perf_counter() - start)
    return {
        "exchanges": length,
        "items": len(items),
        "median_us": round(statistics.median(times) * 1e6, 1),
        "median_cpu_us": round(statistics.median(cpu) * 1e6, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    args = parser.parse_args()

    scenarios = []
    for turns, failing in ((1, False), (1, True), (10, False), (10, True)):
        scenarios.append(asyncio.run(_scenario(turns, failing, args.repeats)))
    filters = [_filter_alone(n, max(args.repeats, 51)) for n in (1, 10, 100)]
    report = {
        "benchmark": "bench_openai_agents",
        "what": "Runner.run wall time with vs without ToolErrorRecovery().run_config(); scripted model",
        "figure": "overhead_ratio = median over interleaved pairs of (time with / time without)",
        "repeats": args.repeats,
        "statistic": "median",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "openai_agents": getattr(agents, "__version__", None),
        "toolerr": getattr(toolerr, "__version__", None),
        "runs": scenarios,
        "filter_alone": filters,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "bench_openai_agents.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    for row in scenarios:
        print(
            f"turns={row['turns']:>2} failing={row['failing_calls']:>2}"
            f"  without {row['median_s_without'] * 1e3:7.2f} ms"
            f"  with {row['median_s_with'] * 1e3:7.2f} ms  ratio {row['overhead_ratio']:.3f}"
        )
    for row in filters:
        print(f"filter alone, {row['exchanges']:>3} exchanges: {row['median_us']:8.1f} us")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
