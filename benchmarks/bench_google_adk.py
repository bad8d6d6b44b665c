"""Overhead of toolerr_google_adk.ToolErrorPlugin on a real ADK run.

The real InMemoryRunner with a scripted ``BaseLlm`` (no network, no model time: what is
left is ADK's own work plus toolerr's) and a real function tool that raises on every other
call. Each scenario is run on an ``App`` without plugins and on one with
``plugins=[ToolErrorPlugin()]``, interleaved, ``--repeats`` times (with failing calls the
baseline is ADK's own ReflectAndRetryToolPlugin: without a plugin ADK ends the run at the
first exception); the figure is the median of the per-pair ratios (with / without).
Also: ``before_model_callback`` alone per model call, by conversation length.

    python benchmarks/bench_google_adk.py [--repeats 21] [--out benchmarks/out]
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
from pathlib import Path
from typing import Any

import google.adk
import toolerr
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins import ReflectAndRetryToolPlugin
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import PrivateAttr
from toolerr_google_adk import ToolErrorPlugin

logging.getLogger("google_adk").setLevel(logging.ERROR)


def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    if city.startswith("fail"):
        raise PermissionError(13, "Permission denied")
    return {"city": city, "temperature_c": 18}


class Scripted(BaseLlm):
    model: str = "scripted"
    _turns: int = PrivateAttr(default=1)
    _failing: bool = PrivateAttr(default=False)
    _calls: int = PrivateAttr(default=0)

    def __init__(self, turns: int, failing: bool) -> None:
        super().__init__()
        self._turns, self._failing = turns, failing

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        turn = self._calls
        self._calls += 1
        if turn >= self._turns:
            part = types.Part(text="done")
        else:
            city = f"fail{turn}" if self._failing and turn % 2 == 0 else f"city{turn}"
            part = types.Part(function_call=types.FunctionCall(name="get_weather", args={"city": city}))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


async def _one(turns: int, failing: bool, plugin: BasePlugin | None) -> float:
    agent = LlmAgent(name="weather", model=Scripted(turns, failing), tools=[get_weather])
    runner = InMemoryRunner(app=App(name="bench", root_agent=agent, plugins=[plugin] if plugin else []))
    session = await runner.session_service.create_session(app_name="bench", user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="Weather?")])
    start = time.perf_counter()
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
        pass
    return time.perf_counter() - start


def _baseline(failing: bool) -> BasePlugin | None:
    """Without toolerr: no plugin; with failing calls ADK would re-raise the tool's
    exception and end the run, so there the baseline is ADK's own error plugin,
    ReflectAndRetryToolPlugin, on the same script (retry limit out of reach)."""
    return ReflectAndRetryToolPlugin(max_retries=100) if failing else None


async def _scenario(turns: int, failing: bool, repeats: int) -> dict[str, Any]:
    plugin = ToolErrorPlugin()
    plain: list[float] = []
    wired: list[float] = []
    await _one(turns, failing, _baseline(failing))  # warm-up
    await _one(turns, failing, plugin)
    for _ in range(repeats):
        plain.append(await _one(turns, failing, _baseline(failing)))
        wired.append(await _one(turns, failing, plugin))
    base, with_plugin = statistics.median(plain), statistics.median(wired)
    # Runs are interleaved in pairs; the median of the per-pair ratios is the figure.
    paired = statistics.median(w / p for p, w in zip(plain, wired, strict=True))
    return {
        "turns": turns,
        "model_calls": turns + 1,
        "failing_calls": (turns + 1) // 2 if failing else 0,
        "baseline": "ReflectAndRetryToolPlugin" if failing else "no plugin",
        "median_s_without": round(base, 6),
        "median_s_with": round(with_plugin, 6),
        "overhead_ratio": round(paired, 4),
        "ratio_of_medians": round(with_plugin / base, 4),
        "overhead_ms_per_model_call": round((with_plugin - base) * 1000 / (turns + 1), 4),
    }


class _Context:
    """What before_model_callback reads of a CallbackContext: the session and its ids."""

    def __init__(self, events: list[Any]) -> None:
        self.invocation_id = "i"
        self.agent_name = "weather"
        self.session = type("S", (), {"app_name": "bench", "user_id": "u", "id": "s", "events": events})()


async def _callback_alone(length: int, repeats: int) -> dict[str, Any]:
    """before_model_callback on one request of ``length`` exchanges whose last result failed."""
    contents = [types.Content(role="user", parts=[types.Part(text="Weather?")])]
    for n in range(length):
        call = types.FunctionCall(name="get_weather", args={"city": f"city{n}"})
        failed = n == length - 1
        error = "PermissionError: [Errno 13] Permission denied"
        response = {"error": error} if failed else {"temperature_c": 18}
        contents.append(types.Content(role="model", parts=[types.Part(function_call=call)]))
        result = types.FunctionResponse(name="get_weather", response=response)
        contents.append(types.Content(role="user", parts=[types.Part(function_response=result)]))
    plugin = ToolErrorPlugin()
    context: Any = _Context([])
    times = []
    for _ in range(repeats):
        request = LlmRequest(contents=list(contents))
        start = time.perf_counter()
        await plugin.before_model_callback(callback_context=context, llm_request=request)
        times.append(time.perf_counter() - start)
    median_us = round(statistics.median(times) * 1e6, 1)
    return {"exchanges": length, "contents": len(contents), "median_us": median_us}


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
    alone = [asyncio.run(_callback_alone(n, max(args.repeats, 51))) for n in (1, 10, 100)]
    report = {
        "benchmark": "bench_google_adk",
        "what": "InMemoryRunner.run_async wall time with vs without ToolErrorPlugin; scripted BaseLlm",
        "figure": "overhead_ratio = median over interleaved pairs of (time with / time without)",
        "note": "failing scenarios: without a plugin ADK re-raises the tool's exception and the run "
        "ends, so their baseline is ReflectAndRetryToolPlugin on the same script",
        "repeats": args.repeats,
        "statistic": "median",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "google_adk": google.adk.__version__,
        "toolerr": getattr(toolerr, "__version__", None),
        "runs": scenarios,
        "before_model_callback_alone": alone,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "bench_google_adk.json"
    path.write_text(json.dumps(report, indent=2) + "\n")
    for row in scenarios:
        print(
            f"turns={row['turns']:>2} failing={row['failing_calls']:>2} vs {row['baseline']:<25}"
            f"  without {row['median_s_without'] * 1e3:7.2f} ms"
            f"  with {row['median_s_with'] * 1e3:7.2f} ms  ratio {row['overhead_ratio']:.3f}"
        )
    for row in alone:
        print(f"before_model_callback alone, {row['exchanges']:>3} exchanges: {row['median_us']:8.1f} us")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
