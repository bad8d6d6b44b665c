"""Per-call overhead of ``ToolErrorServerMiddleware`` on a FastMCP server.

Two FastMCP servers built alike, one with the middleware, each on FastMCP's in-memory
client (one connection each, opened once); calls alternate between the two so drift
cancels out. Per round: the median time of a call on each, for a success (``echo``) and a
failure (a tool raising ``PermissionError``, through FastMCP's ``ToolError``); the figure
is the median over the rounds, with the ratio of the medians and the time added.

Usage (an environment with ``toolerr-mcp[fastmcp]``)::

    python benchmarks/bench_mcp_server.py            # writes benchmarks/out/bench_mcp_server.json
    python benchmarks/bench_mcp_server.py --quick    # a fast smoke run
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import anyio

OUT = Path(__file__).resolve().parent / "out" / "bench_mcp_server.json"


def make_server(middleware: Any) -> Any:
    from fastmcp import FastMCP

    server = FastMCP("bench")
    if middleware is not None:
        server.add_middleware(middleware)

    @server.tool
    def echo(text: str) -> str:
        return text

    @server.tool
    def read_secret(path: str) -> str:
        raise PermissionError(13, "Permission denied", path)

    return server


async def measure(calls: int, rounds: int) -> dict[str, Any]:
    from fastmcp import Client
    from toolerr_mcp import ToolErrorServerMiddleware

    plans = {
        "success": ("echo", {"text": "hello"}),
        "failure": ("read_secret", {"path": "/etc/shadow"}),
    }
    results: dict[str, Any] = {}
    async with (
        Client(make_server(None)) as bare,
        Client(make_server(ToolErrorServerMiddleware())) as wrapped,
    ):
        for label, (name, args) in plans.items():
            for client in (bare, wrapped):  # warm up: first-call imports and caches
                for _ in range(20):
                    await client.call_tool_mcp(name, args)
            per_round: list[tuple[float, float]] = []
            for _ in range(rounds):
                times: dict[str, list[float]] = {"bare": [], "wrapped": []}
                for _ in range(calls):
                    for key, client in (("bare", bare), ("wrapped", wrapped)):
                        start = time.perf_counter()
                        await client.call_tool_mcp(name, args)
                        times[key].append(time.perf_counter() - start)
                per_round.append((statistics.median(times["bare"]), statistics.median(times["wrapped"])))
            bare_ms = statistics.median(r[0] for r in per_round) * 1000
            wrapped_ms = statistics.median(r[1] for r in per_round) * 1000
            results[label] = {
                "bare_ms": round(bare_ms, 3),
                "middleware_ms": round(wrapped_ms, 3),
                "added_ms": round(wrapped_ms - bare_ms, 3),
                "ratio": round(wrapped_ms / bare_ms, 3),
                "rounds": [[round(b * 1000, 3), round(w * 1000, 3)] for b, w in per_round],
            }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run")
    parser.add_argument("--calls", type=int, default=200, help="calls per round and server")
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    calls, rounds = (20, 2) if options.quick else (options.calls, options.rounds)
    import fastmcp  # configures its loggers on import: quieten them after

    # FastMCP logs each failed call with its traceback (both servers): keep it off the clock
    logging.getLogger(fastmcp.__name__).setLevel(logging.CRITICAL)
    logging.getLogger("toolerr").setLevel(logging.WARNING)
    results = anyio.run(measure, calls, rounds)
    from importlib.metadata import version

    report = {
        "python": platform.python_version(),
        "fastmcp": version("fastmcp"),
        "mcp": version("mcp"),
        "cpus": os.cpu_count(),
        "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "calls": calls,
        "rounds": rounds,
        "results": results,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"{'call':8} {'bare ms':>9} {'middleware ms':>14} {'added ms':>9} {'ratio':>6}")
    for label, row in results.items():
        cells = f"{row['bare_ms']:9.3f} {row['middleware_ms']:14.3f} {row['added_ms']:9.3f}"
        print(f"{label:8} {cells} {row['ratio']:6.2f}")
    print(f"load {report['load']}; written to {OUT}")


if __name__ == "__main__":
    main()
