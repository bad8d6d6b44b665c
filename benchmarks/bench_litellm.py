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
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packages" / "litellm" / "tests"))

import conftest  # noqa: E402  (the tests' upstream and proxy launcher)
from toolerr import _wire  # noqa: E402
from toolerr_litellm import ToolErrorCallback  # noqa: E402

RATE = "Error: HTTP 429 Too Many Requests"
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
    handler = ToolErrorCallback()
    times = []
    for _ in range(repeats + 1):
        data = json.loads(body)
        data["metadata"] = {}
        start = time.perf_counter()
        handler.rewrite(data, "acompletion")
        times.append(time.perf_counter() - start)
    return times[0], statistics.median(times[1:])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    serving = conftest.serve_upstream()
    upstream = serving.__enter__()
    base = Path(tempfile.mkdtemp(prefix="bench_litellm_"))
    with_hook = conftest.launch_proxy(base / "with", upstream.url, hook=True)
    without = conftest.launch_proxy(base / "without", upstream.url, hook=False)
    rows: list[dict[str, Any]] = []
    try:
        conftest.wait_ready(with_hook)
        conftest.wait_ready(without)
        connections = {
            name: http.client.HTTPConnection(proxy.url.split("//")[1], timeout=60)
            for name, proxy in (("with", with_hook), ("without", without))
        }
        for n in SIZES:
            for failed in (True, False):
                messages = conversation(n, failed=failed)
                body = json.dumps({"model": "gpt-test", "messages": messages}).encode()
                for name in connections:  # warm up each proxy with this size
                    for _ in range(5):
                        post(connections[name], body)
                pairs = []
                for round_ in range(args.rounds):
                    order = ("with", "without") if round_ % 2 == 0 else ("without", "with")
                    times = {name: post(connections[name], body) for name in order}
                    pairs.append((times["with"], times["without"]))
                upstream.clear()
                _wire._CACHE.clear()  # first sight: nothing of this conversation converted before
                cold, warm = in_process(body)
                row = {
                    "messages": len(messages),
                    "decision_step": "failed" if failed else "no failure",
                    "median_with_ms": round(statistics.median(p[0] for p in pairs) * 1000, 2),
                    "median_without_ms": round(statistics.median(p[1] for p in pairs) * 1000, 2),
                    "added_ms": round(statistics.median(p[0] - p[1] for p in pairs) * 1000, 2),
                    "hook_in_process_first_ms": round(cold * 1000, 3),
                    "hook_in_process_ms": round(warm * 1000, 3),
                    "rounds": args.rounds,
                }
                rows.append(row)
                print(json.dumps(row), flush=True)
    finally:
        conftest.stop(with_hook)
        conftest.stop(without)
        serving.__exit__(None, None, None)
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "rows": rows,
    }
    (args.out / "bench_litellm.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
