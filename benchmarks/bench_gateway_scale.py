"""A gateway serving K conversations at once: the cost of a failing step against K (issue 29).

One ``toolerr_litellm.ToolErrorCallback`` (one ``ToolErrorLayer``, the shared run scope, as the
LiteLLM proxy keeps it) serves K interleaved conversations (round-robin: each request the
next conversation's), each request a freshly built JSON body as the proxy gives it (new dict
and string objects each time), each conversation one exchange longer at each of its
requests, every other request of a conversation with a failed result at the decision step
(``Error: HTTP 429 ...``: converted and rewritten, the worst case; every 9th earlier result a
429 too). Conversations differ in content (their task, their results) but use the same call
ids (``call_0`` ...), as agents do. The hook's in-process rewrite path is timed
(``ToolErrorCallback.rewrite``, as ``bench_litellm.py --in-process-only`` does).

Each configuration (K, messages): a warm-up round (every conversation's first request: its
first sight), then measured rounds. Figures: median and p99 of the failing-step time (CPU
time of the thread, ``time.thread_time``, beside wall), the first-sight time (a
conversation's first failing step: its first replay, whatever K; until this was counted
apart, K = 64, where half the conversations pass their first request, put 32 first
sights among its 128 failing steps), and the process's resident memory grown over the
configuration per conversation served. For K large, the measured rounds visit a sample of
the K conversations (``--sample``, spread evenly), which the warm-up round visits first:
between two requests of a sampled conversation the other K - 1 conversations have all been
served, as in a full round.

    PYTHONPATH=TREE/shared_core/src:TREE/packages/litellm/src LITELLM_LOCAL_MODEL_COST_MAP=True \\
        /work/wt/kit-api/.nox/litellm/bin/python benchmarks/bench_gateway_scale.py \\
        [--ks 1 64 512 10000] [--sizes 100 1000] [--rounds 4] [--sample 128]

Each configuration runs in a process of its own (``--one K N``), so that memory and caches
start from nothing. Each also reports the interpreter's full collections (generation 2)
during it, their median pause and the objects they walk; ``--gc-freeze`` (with ``--one``)
moves what start-up made (LiteLLM's import) out of their reach first, as a long-running
server may (``gc.freeze()``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")

RATE = "Error: HTTP 429 Too Many Requests"


def exchange(conv: int, turn: int, failed: bool) -> list[dict[str, Any]]:
    call_id = f"call_{turn}"  # the same ids in every conversation
    arguments = json.dumps({"path": f"src/file_{(turn + conv) % 37}.py"})
    result = RATE if failed else f"# conversation {conv}\n" + f"def f_{turn}():\n    return {turn}\n" * 20
    return [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": "read_file", "arguments": arguments}}
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]


def body(conv: int, base: int, request: int) -> bytes:
    """Conversation ``conv``'s ``request``-th request: ``base`` exchanges then one per request
    before it; its last result (the decision step) failed on every other request."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": f"Fix the failing test in src/app_{conv}.py."},
    ]
    last = base + request
    for turn in range(last + 1):
        failed = turn % 9 == 4 if turn < base else (turn - base + conv) % 2 == 0
        messages += exchange(conv, turn, failed)
    return json.dumps({"model": "gpt-test", "messages": messages}).encode()


def failed_at(conv: int, request: int) -> bool:
    return (request + conv) % 2 == 0


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def one(k: int, size: int, rounds: int, sample: int, freeze: bool = False) -> dict[str, Any]:
    from toolerr_litellm import ToolErrorCallback

    handler = ToolErrorCallback()
    if freeze:  # what a long-running server may do after start-up: LiteLLM's import left out of GC passes
        gc.collect()
        gc.freeze()
    passes: list[float] = []
    started_pass = [0.0]

    def timed(phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") == 2:
            if phase == "start":
                started_pass[0] = time.perf_counter()
            else:
                passes.append(time.perf_counter() - started_pass[0])

    gc.callbacks.append(timed)
    base = max((size - 2) // 2 - 1, 0)  # exchanges before the first request's last one
    sampled = sorted(set(range(0, k, max(k // sample, 1)))) if k > sample else list(range(k))
    order = sampled + [c for c in range(k) if c not in set(sampled)]
    gc.collect()
    start_rss = rss()

    def serve(conv: int, request: int) -> tuple[float, float, int]:
        data = json.loads(body(conv, base, request))
        data["metadata"] = {}
        n = len(data["messages"])
        start, start_cpu = time.perf_counter(), time.thread_time()
        handler.rewrite(data, "acompletion")
        return time.perf_counter() - start, time.thread_time() - start_cpu, n

    first_wall, first_cpu, messages = [], [], 0
    failed_before: set[int] = set()  # conversations with a failing step served (replayed) already
    started = time.perf_counter()
    for conv in order:  # the warm-up round: each conversation's first sight
        wall, cpu, messages = serve(conv, 0)
        if failed_at(conv, 0):
            first_wall.append(wall)
            first_cpu.append(cpu)
            failed_before.add(conv)
    warmup_s = time.perf_counter() - started
    grown = rss() - start_rss
    fail_wall: list[float] = []
    fail_cpu: list[float] = []
    ok_cpu: list[float] = []
    for request in range(1, rounds + 1):
        for conv in sampled if k > sample else order:
            wall, cpu, messages = serve(conv, request)
            if failed_at(conv, request) and conv not in failed_before:
                # a conversation's first failing step is its first replay whatever K is (a
                # passing step is never replayed): a first sight, not a failing step's cost
                first_cpu.append(cpu)
                failed_before.add(conv)
            elif failed_at(conv, request):
                fail_wall.append(wall)
                fail_cpu.append(cpu)
            else:
                ok_cpu.append(cpu)
    grown = max(grown, rss() - start_rss)

    def p99(values: list[float]) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]

    stats = getattr(handler._layers.get(handler.policy), "memory_stats", None)
    return {
        "K": k,
        "messages": messages,
        "failing_steps": len(fail_cpu),
        "fail_cpu_median_ms": round(statistics.median(fail_cpu) * 1000, 3),
        "fail_cpu_p99_ms": round(p99(fail_cpu) * 1000, 3),
        "fail_wall_median_ms": round(statistics.median(fail_wall) * 1000, 3),
        "fail_wall_p99_ms": round(p99(fail_wall) * 1000, 3),
        "ok_cpu_median_ms": round(statistics.median(ok_cpu) * 1000, 3) if ok_cpu else None,
        "first_sight_cpu_median_ms": round(statistics.median(first_cpu) * 1000, 3) if first_cpu else None,
        "rss_grown_mb": round(grown / 2**20, 1),
        "rss_per_conversation_kb": round(grown / k / 1024, 1),
        "layer_memory": stats() if callable(stats) else None,
        "warmup_s": round(warmup_s, 1),
        "gc_frozen": freeze,
        "gc_full_passes": len(passes),
        "gc_full_pass_median_ms": round(statistics.median(passes) * 1000, 1) if passes else None,
        "gc_tracked_objects": len(gc.get_objects()),
        "gc_frozen_objects": gc.get_freeze_count(),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ks", type=int, nargs="+", default=[1, 64, 512, 10_000])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--rounds", type=int, default=4, help="measured requests per conversation")
    parser.add_argument("--sample", type=int, default=128, help="conversations measured when K is larger")
    parser.add_argument("--one", type=int, nargs=2, metavar=("K", "MESSAGES"))
    parser.add_argument("--gc-freeze", action="store_true", help="gc.freeze() after start-up (--one only)")
    args = parser.parse_args()
    if args.one is not None:
        k, size = args.one
        rounds = args.rounds if k > 1 else max(args.rounds, 60)
        print(json.dumps(one(k, size, rounds, args.sample, args.gc_freeze)), flush=True)
        return
    import toolerr

    print(json.dumps({"toolerr": str(Path(toolerr.__file__).parent), "load": os.getloadavg()}), flush=True)
    for size in args.sizes:
        for k in args.ks:
            command = [sys.executable, __file__, "--one", str(k), str(size)]
            command += ["--rounds", str(args.rounds), "--sample", str(args.sample)]
            subprocess.run(command, check=True)


if __name__ == "__main__":
    main()
