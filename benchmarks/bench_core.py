"""Core speed: classification throughput and the time to rewrite a conversation.

    python benchmarks/bench_core.py [--quick]

Writes benchmarks/out/core.json. Figures are medians of several runs on one core.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from pathlib import Path
from typing import Any

from toolerr import Message, ToolCall, ToolErrorLayer, inspect_result
from toolerr._forms import apply_form, find_decision_step

SHORT = [
    "Error: 503 Service Unavailable",
    "Error: HTTP 429 Too Many Requests (retry after 3s)",
    "TypeError: send_email() got an unexpected keyword argument 'recipient'",
    "Error: 403 Forbidden: token lacks scope 'repo:write'",
    "Temperature in Paris: 12C, light rain",
    '{"error": "Invalid date format. Use YYYY-MM-DD."}',
    "Error: 404 Not Found",
    "Found 2 results: 'Handling Timeout errors in Python', 'Permission denied FAQ'",
    "httpx.ReadTimeout: timed out",
    '{"error": null, "result": "ok"}',
]


def _four_kb(rng: random.Random, failed: bool) -> str:
    words = ["alpha", "beta", "result", "row", "value", "id", "status", "ok", "count", "name", "city"]
    body = " ".join(rng.choice(words) for _ in range(900))[:4000]
    return (
        ("Traceback (most recent call last):\n  " + body + "\nConnectionResetError: reset")[:4096]
        if failed
        else body[:4096]
    )


def bench_classify(texts: list[str], repeats: int, rounds: int) -> float:
    """Median results per second over ``rounds`` runs of ``repeats`` passes over ``texts``."""
    rates = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeats):
            for text in texts:
                inspect_result(text)
        elapsed = time.perf_counter() - start
        rates.append(repeats * len(texts) / elapsed)
    return statistics.median(rates)


def distinct(texts: list[str], count: int) -> list[str]:
    """``count`` distinct variants of ``texts`` (a request number added): every one misses
    the verdict cache, so the uncached classifier is what is measured."""
    return [f"{texts[i % len(texts)]} (request {i})" for i in range(count)]


def conversation(size: int = 200, failures: int = 3, seed: int = 0) -> list[Message]:
    rng = random.Random(seed)
    messages = [Message("system", "You are a helpful assistant."), Message("user", "Plan my trip.")]
    step = 0
    failure_steps = set(rng.sample(range(size // 2 - 2), failures - 1))  # the last failure ends the list
    while len(messages) < size - 2:
        call = ToolCall(
            f"call_{step}", rng.choice(["search", "book", "weather"]), {"q": f"item {step}", "n": step}
        )
        messages.append(Message("assistant", "", tool_calls=(call,)))
        result = "Error: 503 Service Unavailable" if step in failure_steps else f"result {step}: " + "x" * 200
        messages.append(Message("tool", result, tool_call_id=call.id, name=call.name))
        step += 1
    call = ToolCall("call_last", "search", {"q": "last"})
    messages.append(Message("assistant", "", tool_calls=(call,)))
    messages.append(Message("tool", "Error: 403 Forbidden", tool_call_id="call_last", name="search"))
    return messages


def bench_rewrite(messages: list[Message], repeats: int, rounds: int) -> dict[str, float]:
    """Median time of one rewrite: cold (the layer has replayed nothing of this
    conversation before), warm (it replayed the conversation one exchange shorter at the
    previous model call, as in a running agent), and the form alone."""
    layer = ToolErrorLayer(form="c3")
    layer.rewrite(messages[:-2])  # the previous model call: keeps a replay checkpoint
    previous = list(layer._checkpoints)
    cold, warm, pure = [], [], []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeats):
            layer._checkpoints.clear()
            layer.rewrite(messages)
        cold.append((time.perf_counter() - start) / repeats)
        start = time.perf_counter()
        for _ in range(repeats):
            layer._checkpoints[:] = previous
            layer.rewrite(messages)
        warm.append((time.perf_counter() - start) / repeats)
        result = layer.rewrite(messages)
        step = find_decision_step(messages)
        assert step is not None
        deliveries = [layer._delivery(r, layer.inspect(r.message), result.ledger, None) for r in step.results]  # type: ignore[arg-type]
        start = time.perf_counter()
        for _ in range(repeats):
            apply_form(messages, step, deliveries, "c3")
        pure.append((time.perf_counter() - start) / repeats)
    return {
        "rewrite_ms": statistics.median(cold) * 1e3,
        "rewrite_warm_ms": statistics.median(warm) * 1e3,
        "apply_form_ms": statistics.median(pure) * 1e3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=str(Path(__file__).parent / "out" / "core.json"))
    args = parser.parse_args()
    rounds = 3 if args.quick else 7
    rng = random.Random(0)
    big = [_four_kb(rng, i % 2 == 0) for i in range(20)]
    assert all(len(t) <= 4096 for t in big)
    short_uncached = distinct(SHORT, 20_000)
    big_uncached = distinct(big, 4_000)
    assert all(len(t) < 200 for t in short_uncached)
    results: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "processor": platform.machine()},
        "classify_short_per_s": bench_classify(short_uncached, 1, rounds),
        "classify_4kb_per_s": bench_classify(big_uncached, 1, rounds),
        "classify_short_cached_per_s": bench_classify(SHORT, 200 if args.quick else 2000, rounds),
        "classify_4kb_cached_per_s": bench_classify(big, 20 if args.quick else 200, rounds),
    }
    messages = conversation()
    results["conversation_messages"] = len(messages)
    results.update(bench_rewrite(messages, 20 if args.quick else 200, rounds))
    huge = "Error: 403 Forbidden " + "x" * 10_000_000
    start = time.perf_counter()
    inspect_result(huge)
    results["classify_10mb_ms"] = (time.perf_counter() - start) * 1e3
    print(
        f"classify short (<200 chars): {results['classify_short_per_s']:,.0f}/s uncached, "
        f"{results['classify_short_cached_per_s']:,.0f}/s repeated texts   (target >= 100,000/s)"
    )
    print(
        f"classify 4 KB:               {results['classify_4kb_per_s']:,.0f}/s uncached, "
        f"{results['classify_4kb_cached_per_s']:,.0f}/s repeated texts   (target >= 20,000/s)"
    )
    print(f"classify one 10 MB result:   {results['classify_10mb_ms']:.2f} ms")
    print(
        f"rewrite {len(messages)} messages, 3 failures: {results['rewrite_ms']:.3f} ms with ledger replay, "
        f"{results['rewrite_warm_ms']:.3f} ms when the previous call replayed all but the last exchange, "
        f"{results['apply_form_ms']:.3f} ms form only   (target < 1 ms)"
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
