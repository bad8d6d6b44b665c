"""What each adapter adds per model call, before and after a change, in one run.

Each framework's real loop runs a scripted model for ``--steps`` tool-calling steps, with
the adapter and without it (LangChain ``create_agent``, the Agents SDK ``Runner``,
pydantic-ai ``Agent``, ADK ``InMemoryRunner``; LiteLLM: the hook on one request of 100
messages, as the proxy calls it). The figure: the time spent in the adapter's own hook
code (its public hooks, timed by a subclass, minus the framework handlers they call) per
model call; the difference of the whole runs with and without it is reported beside it
(noisier: a model call of these loops costs milliseconds, the adapter tens of µs).
Two source trees are measured side by side: ``--before`` (a checkout of an
older commit) and this one, each in a child process whose ``PYTHONPATH`` puts that tree's
``shared_core/src`` and ``packages/<name>/src`` first. Children of the two trees alternate
(ABBA order), ``--repeats`` rounds; each child times ``--runs`` interleaved pairs after a
warm-up and reports their medians. Two scenarios: no call fails; every other call (one in
five for LangChain) fails.

Usage::

    git worktree add /tmp/toolerr-before <commit>
    python benchmarks/bench_adapter_overhead.py --before /tmp/toolerr-before
    # writes benchmarks/out/bench_adapter_overhead.json and prints a table

The scripted loops come from this tree's ``bench_<framework>.py`` modules (they use only
the adapters' public names, which both trees have).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out" / "bench_adapter_overhead.json"
PACKAGES = {
    "langchain": "langchain",
    "openai_agents": "openai-agents",
    "pydantic_ai": "pydantic-ai",
    "google_adk": "google-adk",
    "litellm": "litellm",
}


# -- children: one framework, one tree -------------------------------------------------
#
# Each child returns, per run: the time spent in the adapter's own hook code (the hooks
# minus the framework handlers they call, as the adapters' own benchmarks measure it), the
# whole run with and without the adapter, and the number of model calls.


def _median_runs(
    run: Callable[[], tuple[float, float]], plain: Callable[[], float], runs: int
) -> dict[str, float]:
    run(), plain()  # warm-up: imports, caches, first compilation
    own, with_, without = [], [], []
    for index in range(runs):
        gc.collect()
        if index % 2:
            without.append(plain())
            spent, wall = run()
        else:
            spent, wall = run()
            without.append(plain())
        own.append(spent)
        with_.append(wall)
    return {
        "own": statistics.median(own),
        "with": statistics.median(with_),
        "without": statistics.median(without),
    }


def _langchain(steps: int, failing: bool, runs: int) -> tuple[dict[str, float], int]:
    import bench_langchain as b

    every = 5 if failing else 0

    def run() -> tuple[float, float]:
        middleware = b.Timed()
        wall = b.one_run(steps, every, [middleware])[0]
        return middleware.spent, wall

    return _median_runs(run, lambda: b.one_run(steps, every, [])[0], runs), steps + 1


def _openai_agents(steps: int, failing: bool, runs: int) -> tuple[dict[str, float], int]:
    import bench_openai_agents as b
    from agents import RunConfig
    from toolerr_openai_agents import ToolErrorRecovery

    class Timed(ToolErrorRecovery):
        spent = 0.0

        def call_model_input_filter(self, data: Any) -> Any:
            start = time.perf_counter()
            try:
                return super().call_model_input_filter(data)
            finally:
                self.spent += time.perf_counter() - start

        def tool_error_formatter(self, args: Any) -> Any:
            start = time.perf_counter()
            try:
                return super().tool_error_formatter(args)
            finally:
                self.spent += time.perf_counter() - start

    b.set_tracing_disabled(True)

    def run() -> tuple[float, float]:
        recovery = Timed()
        wall = asyncio.run(b._one(steps, failing, recovery.run_config()))
        return recovery.spent, wall

    return _median_runs(run, lambda: asyncio.run(b._one(steps, failing, RunConfig())), runs), steps + 1


def _pydantic_ai(steps: int, failing: bool, runs: int) -> tuple[dict[str, float], int]:
    import bench_pydantic_ai as b

    def run() -> tuple[float, float]:
        capability = b.TimedToolErrors()
        wall = asyncio.run(b._time(b._agent(steps, failing, capability)))
        return capability.spent[0], wall

    # without toolerr a raising tool ends the run: the baseline is the script with no failure
    return _median_runs(run, lambda: asyncio.run(b._time(b._agent(steps, False, None))), runs), steps + 1


def _google_adk(steps: int, failing: bool, runs: int) -> tuple[dict[str, float], int]:
    import bench_google_adk as b
    from toolerr_google_adk import ToolErrorPlugin

    class Timed(ToolErrorPlugin):
        spent = 0.0

        async def before_model_callback(self, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await super().before_model_callback(**kwargs)
            finally:
                self.spent += time.perf_counter() - start

        async def on_tool_error_callback(self, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await super().on_tool_error_callback(**kwargs)
            finally:
                self.spent += time.perf_counter() - start

        async def before_tool_callback(self, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await super().before_tool_callback(**kwargs)
            finally:
                self.spent += time.perf_counter() - start

    def run() -> tuple[float, float]:
        plugin = Timed()
        wall = asyncio.run(b._one(steps, failing, plugin))
        return plugin.spent, wall

    return _median_runs(
        run, lambda: asyncio.run(b._one(steps, failing, b._baseline(failing))), runs
    ), steps + 1


def _litellm(steps: int, failing: bool, runs: int) -> tuple[dict[str, float], int]:
    from toolerr_litellm import ToolErrorCallback

    body = json.dumps({"model": "m", "messages": _chat(100, failing)})
    handler = ToolErrorCallback()

    def run() -> tuple[float, float]:
        total = 0.0
        for _ in range(steps):
            data = json.loads(body)  # parsed afresh, as the proxy does
            start = time.perf_counter()
            handler.rewrite(data, "acompletion")
            total += time.perf_counter() - start
        return total, total

    return _median_runs(run, lambda: 0.0, runs), steps


def _chat(n: int, failed: bool) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Fix the failing test in src/app.py."}]
    turn = 0
    while len(messages) < n - 1:
        call = {
            "id": f"call_{turn}",
            "type": "function",
            "function": {"name": "read_file", "arguments": "{}"},
        }
        messages.append({"role": "assistant", "tool_calls": [call]})
        rate = turn % 9 == 4 or (failed and len(messages) >= n - 2)
        text = "Error: HTTP 429 Too Many Requests" if rate else f"def f_{turn}():\n    return {turn}\n" * 20
        messages.append({"role": "tool", "tool_call_id": f"call_{turn}", "content": text})
        turn += 1
    return messages


CHILDREN: dict[str, Callable[[int, bool, int], tuple[dict[str, float], int]]] = {
    "langchain": _langchain,
    "openai_agents": _openai_agents,
    "pydantic_ai": _pydantic_ai,
    "google_adk": _google_adk,
    "litellm": _litellm,
}


def child(framework: str, steps: int, runs: int) -> None:
    import logging

    logging.getLogger("toolerr").setLevel(logging.ERROR)  # records are logged at INFO
    out = {}
    for failing in (False, True):
        figures, calls = CHILDREN[framework](steps, failing, runs)
        out["failing" if failing else "clean"] = {**figures, "calls": calls}
    print(json.dumps(out))


# -- the parent: both trees, alternating ------------------------------------------------


def _run_child(tree: Path, framework: str, steps: int, runs: int) -> dict[str, Any]:
    paths = [
        str(tree / "shared_core" / "src"),
        str(tree / "packages" / PACKAGES[framework] / "src"),
        str(HERE),
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYTHONHASHSEED": "0"}
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    args = [sys.executable, __file__, "--child", framework, "--steps", str(steps), "--runs", str(runs)]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{framework} on {tree}: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", type=Path, help="an older checkout (git worktree add ...)")
    parser.add_argument("--frameworks", default=",".join(CHILDREN))
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--runs", type=int, default=5, help="timed pairs per child")
    parser.add_argument("--repeats", type=int, default=4, help="children per tree and framework")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.steps, args.runs)
        return
    trees = {"after": ROOT} if args.before is None else {"before": args.before.resolve(), "after": ROOT}
    report: dict[str, Any] = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "steps": args.steps,
        "runs": args.runs,
        "repeats": args.repeats,
        "frameworks": {},
    }
    for framework in args.frameworks.split(","):
        rounds: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        for index in range(args.repeats):
            names = list(trees) if index % 2 == 0 else list(reversed(trees))
            for name in names:
                rounds[name].append(_run_child(trees[name], framework, args.steps, args.runs))
        row: dict[str, Any] = {}
        for name, results in rounds.items():
            for scenario in ("clean", "failing"):
                figures = [r[scenario] for r in results]
                own = [f["own"] / f["calls"] for f in figures]
                diff = [(f["with"] - f["without"]) / f["calls"] for f in figures]
                row.setdefault(scenario, {})[name] = {
                    "own_us_per_model_call": round(statistics.median(own) * 1e6, 1),
                    "own_runs_us": [round(x * 1e6, 1) for x in own],
                    "run_difference_us_per_model_call": round(statistics.median(diff) * 1e6, 1),
                }
        report["frameworks"][framework] = row
        for scenario, values in row.items():
            cells = "  ".join(f"{name} {v['own_us_per_model_call']:>8.1f} us" for name, v in values.items())
            print(f"{framework:14} {scenario:8} {cells}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
