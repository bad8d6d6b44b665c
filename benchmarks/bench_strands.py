"""Overhead of toolerr_strands.ToolErrorPlugin on a real strands Agent run.

Strands' real Agent loop (``invoke_async``) with a scripted ``Model`` (no network, no model
time: what is left is strands' own work plus toolerr's) and a real ``@tool`` that raises
``PermissionError`` on every other call in the failing scenarios. Each scenario runs on an
agent without plugins and on one with ``plugins=[ToolErrorPlugin()]``, interleaved,
``--repeats`` times (strands answers a tool's exception itself, so the baseline is strands
alone in every scenario); the figures are the medians, the median of the per-pair ratios
(with / without) and the time added per model call. Also: the ``InvokeModelStage.Input``
handler alone per model call, by conversation length.

    python benchmarks/bench_strands.py [--repeats 21] [--out benchmarks/out]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import platform
import statistics
import time
from collections.abc import AsyncGenerator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import toolerr
from strands import Agent, tool
from strands.middleware import InvokeModelContext
from strands.models.model import Model
from toolerr_strands import ToolErrorPlugin

logging.getLogger("strands").setLevel(logging.CRITICAL)


@tool
def get_weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: The city.
    """
    if city.startswith("fail"):
        raise PermissionError(13, "Permission denied")
    return f"{city}: 18 C"


class Scripted(Model):
    """``turns`` tool calls (every other one failing when ``failing``), then a text."""

    def __init__(self, turns: int, failing: bool) -> None:
        self.turns, self.failing, self.calls = turns, failing, 0

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> dict[str, Any]:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[dict[str, Any], None]:
        raise NotImplementedError
        yield {}

    async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        turn = self.calls
        self.calls += 1
        yield {"messageStart": {"role": "assistant"}}
        if turn >= self.turns:
            yield {"contentBlockDelta": {"delta": {"text": "done"}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        city = f"fail{turn}" if self.failing and turn % 2 == 0 else f"city{turn}"
        yield {
            "contentBlockStart": {"start": {"toolUse": {"toolUseId": f"call_{turn}", "name": "get_weather"}}}
        }
        yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps({"city": city})}}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


async def _one(turns: int, failing: bool, plugin: ToolErrorPlugin | None) -> float:
    agent = Agent(
        model=Scripted(turns, failing),
        tools=[get_weather],
        plugins=[plugin] if plugin is not None else [],
        callback_handler=None,
    )
    start = time.perf_counter()
    await agent.invoke_async("Weather?")
    return time.perf_counter() - start


async def _scenario(turns: int, failing: bool, repeats: int) -> dict[str, Any]:
    plugin = ToolErrorPlugin()
    plain: list[float] = []
    wired: list[float] = []
    await _one(turns, failing, None)  # warm-up
    await _one(turns, failing, plugin)
    for _ in range(repeats):
        plain.append(await _one(turns, failing, None))
        wired.append(await _one(turns, failing, plugin))
    base, with_plugin = statistics.median(plain), statistics.median(wired)
    paired = statistics.median(w / p for p, w in zip(plain, wired, strict=True))
    return {
        "turns": turns,
        "model_calls": turns + 1,
        "failing_calls": (turns + 1) // 2 if failing else 0,
        "median_s_without": round(base, 6),
        "median_s_with": round(with_plugin, 6),
        "overhead_ratio": round(paired, 4),
        "ratio_of_medians": round(with_plugin / base, 4),
        "overhead_ms_per_model_call": round((with_plugin - base) * 1000 / (turns + 1), 4),
    }


def _handler_alone(length: int, repeats: int) -> dict[str, Any]:
    """The Input handler on one model call of ``length`` exchanges whose last result failed."""
    messages: list[Any] = [{"role": "user", "content": [{"text": "Weather?"}]}]
    for n in range(length):
        failed = n == length - 1
        text = "PermissionError: [Errno 13] Permission denied" if failed else f"city{n}: 18 C"
        use = {"toolUseId": f"call_{n}", "name": "get_weather", "input": {"city": f"city{n}"}}
        result = {
            "toolUseId": f"call_{n}",
            "status": "error" if failed else "success",
            "content": [{"text": text}],
        }
        messages.append({"role": "assistant", "content": [{"toolUse": use}]})
        messages.append({"role": "user", "content": [{"toolResult": result}]})
    plugin = ToolErrorPlugin()
    agent = type("Run", (), {})()  # the run scope: any object the plugin can hold weakly
    times = []
    for _ in range(repeats):
        context: Any = InvokeModelContext(
            agent=agent,  # type: ignore[arg-type]
            messages=messages,
            system_prompt=None,
            tool_specs=[],
            tool_choice=None,
            invocation_state={},
            model=None,  # type: ignore[arg-type]
        )
        start = time.perf_counter()
        out = plugin.before_model_call(context)
        times.append(time.perf_counter() - start)
        assert out is not context  # the note was added
    return {
        "exchanges": length,
        "messages": len(messages),
        "median_us": round(statistics.median(times) * 1e6, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "out")
    args = parser.parse_args()

    scenarios = []
    for turns, failing in ((1, False), (1, True), (10, False), (10, True)):
        scenarios.append(asyncio.run(_scenario(turns, failing, args.repeats)))
    alone = [_handler_alone(n, max(args.repeats, 51)) for n in (1, 10, 100)]
    report = {
        "benchmark": "bench_strands",
        "what": "Agent.invoke_async wall time with vs without ToolErrorPlugin; scripted strands Model",
        "figure": "overhead_ratio = median over interleaved pairs of (time with / time without)",
        "repeats": args.repeats,
        "statistic": "median",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "strands_agents": version("strands-agents"),
        "toolerr": getattr(toolerr, "__version__", None),
        "runs": scenarios,
        "input_handler_alone": alone,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "bench_strands.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    for row in scenarios:
        print(
            f"turns={row['turns']:>2} failing={row['failing_calls']:>2}"
            f"  without {row['median_s_without'] * 1e3:7.2f} ms"
            f"  with {row['median_s_with'] * 1e3:7.2f} ms  ratio {row['overhead_ratio']:.3f}"
            f"  +{row['overhead_ms_per_model_call']:.3f} ms/model call"
        )
    for row in alone:
        print(f"Input handler alone, {row['exchanges']:>3} exchanges: {row['median_us']:8.1f} us")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
