"""A gateway's failing step at ~1,000 messages, cold (first sight) and warm, through
``toolerr.rewrite_wire`` alone (no LiteLLM), and the progress check's share of it.

The conversations are ``bench_gateway_scale.py``'s (each request a freshly parsed JSON
body; the decision step fails with a 429 that earlier results repeat, so the same-result
check runs). Cold: a conversation's first request in the process; warm: its request two
exchanges later (the checkpoint of the first is continued). ``assess``: the progress
check alone on one converted conversation (``ToolErrorLayer._assess``, no probes). CPU
time of the thread, medians. Run the trees to compare alternately:

    PYTHONPATH=TREE/shared_core/src python benchmarks/bench_gateway_cold.py [--messages 1000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import toolerr
from bench_gateway_scale import body
from toolerr._wire_chat import chat_in


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=1000)
    parser.add_argument("--conversations", type=int, default=20)
    args = parser.parse_args()
    base = args.messages // 2 - 5
    layer = toolerr.ToolErrorLayer()
    evens = list(range(0, 2 * (args.conversations + 5), 2))  # their first request fails
    first = {c: json.loads(body(c, base, 0))["messages"] for c in evens}
    for c in evens[:5]:  # warm the interpreter and the rules
        toolerr.rewrite_wire("openai-chat", first[c], layer=layer)
    cold, warm = [], []
    for c in evens[5:]:
        start = time.thread_time()
        changed = toolerr.rewrite_wire("openai-chat", first[c], layer=layer).changed
        cold.append(time.thread_time() - start)
        assert changed
    for c in evens[5:]:
        request = json.loads(body(c, base, 2))["messages"]
        start = time.thread_time()
        changed = toolerr.rewrite_wire("openai-chat", request, layer=layer).changed
        warm.append(time.thread_time() - start)
        assert changed
    messages = chat_in(first[evens[0]], "generic", 0).messages
    assess = []
    for _ in range(60):
        start = time.thread_time()
        layer._assess(messages, None, probe=False)
        assess.append(time.thread_time() - start)
    print(
        json.dumps(
            {
                "toolerr": str(Path(toolerr.__file__).parent),
                "messages": len(first[evens[0]]),
                "cold_ms": round(statistics.median(cold) * 1000, 2),
                "warm_ms": round(statistics.median(warm) * 1000, 2),
                "assess_ms": round(statistics.median(assess) * 1000, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
