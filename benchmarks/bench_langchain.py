"""Overhead of toolerr_langchain.ToolErrorMiddleware on a long create_agent run.

A scripted chat model (toolerr_langchain.testing.ScriptedChatModel) drives the real
LangChain v1 ``create_agent`` loop for ``--steps`` tool-calling steps (default 200) and a
final answer. In three scenarios no call, one call in 50 or one call in 5 fails (a
``ToolException`` the tool itself turns into an error result, so the run without the
middleware goes on too; each failure is a decision step the middleware rewrites). The
same run is timed with no middleware, with ``ToolErrorMiddleware()`` (defaults: C3, loop
action note) and with ``ToolErrorMiddleware(loop_action="block")`` (a loop check before
every tool call), interleaved, ``--repeats`` times after a warm-up; the figure is the ratio of the median
wall times (target: at most 1.05 for the default). Process CPU times are recorded too
(steadier on a shared machine), and a pass-through middleware shows what any wrapping
middleware costs in LangChain itself.

Usage::

    python benchmarks/bench_langchain.py            # writes benchmarks/out/bench_langchain.json
    python benchmarks/bench_langchain.py --quick    # a smoke run
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import langchain
import langchain_core
import langgraph.version
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import AIMessage
from langchain_core.tools import StructuredTool, ToolException
from toolerr_langchain import ToolErrorMiddleware
from toolerr_langchain.testing import ScriptedChatModel

OUT = Path(__file__).resolve().parent / "out" / "bench_langchain.json"
SCENARIOS = {"no_failures": 0, "one_in_50_fails": 50, "one_in_5_fails": 5}
"""Scenario -> every how many calls one fails (0: never)."""


def _tool(fail_every: int) -> StructuredTool:
    def lookup(item: int) -> str:
        if fail_every and item % fail_every == fail_every - 1:
            raise ToolException(f"ReadTimeout: the inventory service timed out for item {item}")
        return f"item {item}: 12 in stock"

    return StructuredTool.from_function(
        lookup, name="lookup", description="Stock of an item.", handle_tool_error=True
    )


def script(steps: int) -> list[Any]:
    calls: list[Any] = [
        AIMessage(content="", tool_calls=[{"name": "lookup", "args": {"item": i}, "id": f"call_{i}"}])
        for i in range(steps)
    ]
    return [*calls, "All items checked."]


def one_run(steps: int, fail_every: int, middleware: list[Any]) -> tuple[float, float, ScriptedChatModel]:
    """Wall time and process CPU time of one run, and its model."""
    model = ScriptedChatModel(script=script(steps))
    tools = [_tool(fail_every)]
    agent = create_agent(model, tools, system_prompt="You check stock.", middleware=middleware)
    gc.collect()
    start, start_cpu = time.perf_counter(), time.process_time()
    state = agent.invoke({"messages": [("user", "Check every item.")]}, {"recursion_limit": 4 * steps + 10})
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    assert len(state["messages"]) == 2 * steps + 2, len(state["messages"])
    return elapsed, cpu, model


class PassThrough(AgentMiddleware):  # type: ignore[type-arg]
    """A middleware that only calls the handlers: LangChain's own cost of wrapping."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request)

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return handler(request)


class Timed(ToolErrorMiddleware):  # type: ignore[type-arg]
    """ToolErrorMiddleware that adds up the time spent in its own code (the hooks minus
    the handlers they call): a figure that machine noise shifts far less than a ratio of
    two wall times."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.spent = 0.0

    def _timed(self, hook: Callable[[Any, Any], Any], request: Any, handler: Any) -> Any:
        inner = 0.0

        def timed_handler(req: Any) -> Any:
            nonlocal inner
            start = time.perf_counter()
            try:
                return handler(req)
            finally:
                inner += time.perf_counter() - start

        start = time.perf_counter()
        try:
            return hook(request, timed_handler)
        finally:
            self.spent += time.perf_counter() - start - inner

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return self._timed(super().wrap_model_call, request, handler)

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return self._timed(super().wrap_tool_call, request, handler)


VARIANTS: dict[str, Callable[[], list[Any]]] = {
    "without": list,
    "pass_through": lambda: [PassThrough()],
    "with_default": lambda: [Timed()],
    "with_block": lambda: [Timed(loop_action="block")],
}


def scenario(steps: int, fail_every: int, repeats: int) -> dict[str, Any]:
    # Warm-up, and a check that the middleware delivered a note at each failing step.
    model = one_run(steps, fail_every, VARIANTS["with_default"]())[2]
    noted = sum(1 for call in model.calls if "Note from the tool runtime: " in str(call[-1].content))
    for variant in VARIANTS.values():
        one_run(steps, fail_every, variant())
    wall: dict[str, list[float]] = {name: [] for name in VARIANTS}
    cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
    spent: dict[str, list[float]] = {"with_default": [], "with_block": []}
    order = list(VARIANTS)
    shuffle = random.Random(fail_every).shuffle
    for _ in range(repeats):  # interleaved in a new order each round: drifts hit every variant
        shuffle(order)
        for name in order:
            middleware = VARIANTS[name]()
            elapsed, used, _ = one_run(steps, fail_every, middleware)
            wall[name].append(elapsed)
            cpu[name].append(used)
            if name in spent:
                spent[name].append(middleware[0].spent)
    median = {name: statistics.median(values) for name, values in wall.items()}
    median_cpu = {name: statistics.median(values) for name, values in cpu.items()}
    fastest = {name: min(values) for name, values in wall.items()}
    own = {name: statistics.median(values) for name, values in spent.items()}
    return {
        "fail_every": fail_every,
        "failing_steps": steps // fail_every if fail_every else 0,
        "model_calls_with_a_note": noted,
        "median_wall_s": median,
        "min_wall_s": fastest,
        "median_cpu_s": median_cpu,
        "ratio_default": median["with_default"] / median["without"],
        "ratio_block": median["with_block"] / median["without"],
        "ratio_pass_through": median["pass_through"] / median["without"],
        "ratio_default_min": fastest["with_default"] / fastest["without"],
        "ratio_block_min": fastest["with_block"] / fastest["without"],
        "ratio_default_cpu": median_cpu["with_default"] / median_cpu["without"],
        "ratio_block_cpu": median_cpu["with_block"] / median_cpu["without"],
        "own_time_s": own,
        "own_time_fraction_default": own["with_default"] / median["without"],
        "own_time_fraction_block": own["with_block"] / median["without"],
        "own_time_per_step_ms_default": 1000 * own["with_default"] / steps,
        "runs_wall_s": wall,
        "runs_cpu_s": cpu,
        "runs_own_time_s": spent,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="20 steps, 3 repeats")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    steps, repeats = (20, 3) if args.quick else (args.steps, args.repeats)

    results = {}
    for name, fail_every in SCENARIOS.items():
        results[name] = found = scenario(steps, fail_every, repeats)
        wall = found["median_wall_s"]
        print(
            f"{name}: {steps} steps, median of {repeats}: without {wall['without']:.3f} s, "
            f"with {wall['with_default']:.3f} s (ratio {found['ratio_default']:.3f}, of minima "
            f"{found['ratio_default_min']:.3f}, CPU {found['ratio_default_cpu']:.3f}; own time "
            f"{100 * found['own_time_fraction_default']:.1f}%), block ratio {found['ratio_block']:.3f} "
            f"(own time {100 * found['own_time_fraction_block']:.1f}%), pass-through ratio "
            f"{found['ratio_pass_through']:.3f}; {found['model_calls_with_a_note']} model calls got a note"
        )
    report = {
        "benchmark": "langchain_middleware_overhead",
        "steps": steps,
        "repeats": repeats,
        "target_ratio": 1.05,
        "scenarios": results,
        "environment": {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "langchain": langchain.__version__,
            "langchain_core": langchain_core.__version__,
            "langgraph": langgraph.version.__version__,
        },
        "command": " ".join(["python", "benchmarks/bench_langchain.py", *sys.argv[1:]]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
