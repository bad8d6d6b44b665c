"""Latency that toolerr_litellm.ToolErrorCallback adds to a request through the LiteLLM proxy.

Two real proxy processes on 127.0.0.1 (the same config, one with the callback, one
without) in front of a local upstream that answers at once; requests sent alternately to
each (interleaved, one client, keep-alive), at 10, 100 and 1,000 messages, for a request
with a failure at the decision step (converted and rewritten: the worst case) and one
without (the fast path). Figures: median latency per proxy, the median of the per-pair
differences (with - without). Also the hook's own time in-process on the same request
parsed afresh each time: the first time a conversation is seen, and after (an agent's
next request repeats its conversation: the converted messages are reused and the layer's
replay continues from its checkpoint).

    LITELLM_LOCAL_MODEL_COST_MAP=True python benchmarks/bench_litellm.py [--rounds 60]

``--noop``: a proxy with two callbacks that do nothing (what LiteLLM's callback machinery
itself costs). ``--before TREE``: a third proxy whose hook imports toolerr from an older source tree (e.g.
``git archive <commit> shared_core packages | tar -x -C TREE``), interleaved with the other
two (before and after in the same run). ``--in-process-only``: only the hook's own time, with
whatever toolerr is on the path (``PYTHONPATH=TREE/shared_core/src:TREE/packages/litellm/src``).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packages" / "litellm" / "tests"))

import conftest  # noqa: E402  (the tests' upstream and proxy launcher)
from toolerr import _wire_base  # noqa: E402
from toolerr_litellm import ToolErrorCallback  # noqa: E402

RATE = "Error: HTTP 429 Too Many Requests"
NOOP_HOOK = """
from litellm.integrations.custom_logger import CustomLogger


class Noop(CustomLogger):
    async def async_pre_call_hook(self, user_api_key_dict, cache, data, call_type):
        return data


handler = Noop()
recorder = Noop()
"""
SIZES = (10, 100, 1000)


def conversation(n: int, *, failed: bool) -> list[dict[str, Any]]:
    """``n`` messages: a user task, then exchanges (assistant call + tool result), some
    earlier results failed; the last result failed or not."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    messages.append({"role": "user", "content": "Fix the failing test in src/app.py."})
    turn = 0
    while len(messages) < n:
        call_id = f"call_{turn}"
        path = f"src/file_{turn % 37}.py"
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": "read_file", "arguments": json.dumps({"path": path})},
                    }
                ],
            }
        )
        result = RATE if turn % 9 == 4 else f"def f_{turn}():\n    return {turn}\n" * 20
        messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
        turn += 1
    messages = messages[:n]
    if messages[-1]["role"] != "tool":
        messages.pop()
    messages[-1] = {**messages[-1], "content": RATE if failed else "ok: 3 lines"}
    return messages


def post(conn: http.client.HTTPConnection, body: bytes) -> float:
    try:
        return _post(conn, body)
    except (OSError, http.client.HTTPException):  # the server closed an idle keep-alive
        conn.close()
        return _post(conn, body)


def _post(conn: http.client.HTTPConnection, body: bytes) -> float:
    start = time.perf_counter()
    conn.request(
        "POST",
        "/v1/chat/completions",
        body=body,
        headers={"content-type": "application/json", "authorization": f"Bearer {conftest.MASTER_KEY}"},
    )
    answer = conn.getresponse()
    answer.read()
    elapsed = time.perf_counter() - start
    if answer.status != 200:
        raise RuntimeError(f"proxy answered {answer.status}")
    return elapsed


def in_process(body: bytes, repeats: int = 40) -> tuple[float, float]:
    """The hook's own time on a request parsed afresh each time (as the proxy does):
    (first sight of the conversation, median of the repeats after it)."""
    first, _, warm, _ = in_process_times(body, repeats)
    return first, warm


def in_process_times(body: bytes, repeats: int = 40) -> tuple[float, float, float, float]:
    """:func:`in_process` as (first, first CPU, median, median CPU): the CPU time of the
    thread does not count the time other processes of a busy machine took the core."""
    handler = ToolErrorCallback()
    times, cpu = [], []
    for _ in range(repeats + 1):
        data = json.loads(body)
        data["metadata"] = {}
        start, start_cpu = time.perf_counter(), time.thread_time()
        handler.rewrite(data, "acompletion")
        cpu.append(time.thread_time() - start_cpu)
        times.append(time.perf_counter() - start)
    return times[0], cpu[0], statistics.median(times[1:]), statistics.median(cpu[1:])


def in_process_rows(sizes: Sequence[int], repeats: int) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        for failed in (True, False):
            messages = conversation(n, failed=failed)
            body = json.dumps({"model": "gpt-test", "messages": messages}).encode()
            _wire_base.CACHE.clear()
            first, first_cpu, warm, warm_cpu = in_process_times(body, repeats)
            rows.append(
                {
                    "messages": len(messages),
                    "decision_step": "failed" if failed else "no failure",
                    "hook_in_process_first_ms": round(first * 1000, 3),
                    "hook_in_process_first_cpu_ms": round(first_cpu * 1000, 3),
                    "hook_in_process_ms": round(warm * 1000, 3),
                    "hook_in_process_cpu_ms": round(warm_cpu * 1000, 3),
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--before", type=Path, help="an older source tree, for a third proxy")
    parser.add_argument("--in-process-only", action="store_true")
    parser.add_argument(
        "--noop", action="store_true", help="a fourth proxy with two callbacks that do nothing"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.in_process_only:
        print(json.dumps({"toolerr": toolerr_path(), "load": os.getloadavg()}), flush=True)
        in_process_rows(args.sizes, 40)
        return

    serving = conftest.serve_upstream()
    upstream = serving.__enter__()
    base = Path(tempfile.mkdtemp(prefix="bench_litellm_"))
    proxies = {
        "with": conftest.launch_proxy(base / "with", upstream.url, hook=True),
        "without": conftest.launch_proxy(base / "without", upstream.url, hook=False),
    }
    if args.before is not None:
        old = args.before.resolve()
        paths = [str(old / "shared_core" / "src"), str(old / "packages" / "litellm" / "src")]
        proxies["before"] = conftest.launch_proxy(base / "before", upstream.url, hook=True, pythonpath=paths)
    if args.noop:  # what registering callbacks costs in LiteLLM itself
        proxies["noop"] = conftest.launch_proxy(base / "noop", upstream.url, hook=True, hook_source=NOOP_HOOK)
    names = list(proxies)
    rows: list[dict[str, Any]] = []
    try:
        for proxy in proxies.values():
            conftest.wait_ready(proxy)
        connections = {
            name: http.client.HTTPConnection(proxy.url.split("//")[1], timeout=120)
            for name, proxy in proxies.items()
        }
        for n in args.sizes:
            for failed in (True, False):
                messages = conversation(n, failed=failed)
                body = json.dumps({"model": "gpt-test", "messages": messages}).encode()
                for name in connections:  # warm up each proxy with this size
                    for _ in range(5):
                        post(connections[name], body)
                times: dict[str, list[float]] = {name: [] for name in names}
                for round_ in range(args.rounds):
                    shift = round_ % len(names)  # each proxy first, second ... in turn
                    for name in names[shift:] + names[:shift]:
                        times[name].append(post(connections[name], body))
                upstream.clear()
                _wire_base.CACHE.clear()  # first sight: nothing of this conversation converted before
                first, _, warm, warm_cpu = in_process_times(body)
                row: dict[str, Any] = {
                    "messages": len(messages),
                    "decision_step": "failed" if failed else "no failure",
                    "load": round(os.getloadavg()[0], 2),
                }
                for name in names:
                    row[f"median_{name}_ms"] = round(statistics.median(times[name]) * 1000, 2)
                for name in names:
                    if name != "without":
                        pairs = zip(times[name], times["without"], strict=True)
                        added = statistics.median(a - b for a, b in pairs)
                        row["added_ms" if name == "with" else f"added_{name}_ms"] = round(added * 1000, 2)
                row.update(
                    {
                        "hook_in_process_first_ms": round(first * 1000, 3),
                        "hook_in_process_ms": round(warm * 1000, 3),
                        "hook_in_process_cpu_ms": round(warm_cpu * 1000, 3),
                        "rounds": args.rounds,
                    }
                )
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        for proxy in proxies.values():
            conftest.stop(proxy)
        serving.__exit__(None, None, None)
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "before": str(args.before) if args.before is not None else None,
        "rows": rows,
    }
    (args.out / "bench_litellm.json").write_text(json.dumps(result, indent=2))


def toolerr_path() -> str:
    import toolerr

    return str(Path(toolerr.__file__).parent)


if __name__ == "__main__":
    main()
