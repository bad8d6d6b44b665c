"""One assistant message with N parallel tool calls: the cost of one rewrite.

The conversation: a user turn, one assistant message with N calls (ids ``call_0`` ...
``call_{N-1}``), N tool results, every 10th one a failure (``Error: 503 Service
Unavailable``). Each form is timed on a fresh layer per run (no replay checkpoint), the
sizes interleaved; the median of the runs is reported with the ratio of each size to the
smallest (linear: 4,000 calls cost about 4x 1,000). Also the two parts that used to be
quadratic alone: pairing the results with their calls (:func:`toolerr.adapters.pair_results`) and
the ledger replay.

Usage::

    python benchmarks/bench_parallel_calls.py            # 1,000 / 2,000 / 4,000 calls, 7 runs
    python benchmarks/bench_parallel_calls.py --quick    # 2 runs
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from toolerr import Message, ToolCall, ToolErrorLayer
from toolerr.adapters import pair_results


def conversation(n: int, *, ids: bool = True) -> list[Message]:
    calls = tuple(ToolCall(f"call_{i}" if ids else None, "get_weather", {"city": f"c{i}"}) for i in range(n))
    out = [Message("user", "weather everywhere"), Message("assistant", "", tool_calls=calls)]
    for i, call in enumerate(calls):
        text = "Error: 503 Service Unavailable" if i % 10 == 0 else f"sunny in c{i}"
        out.append(Message("tool", text, tool_call_id=call.id, name=call.name))
    return out


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sizes", default="1000,2000,4000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    runs = 2 if args.quick else 7
    convs = {n: conversation(n) for n in sizes}
    no_ids = {n: conversation(n, ids=False) for n in sizes}
    cases: dict[str, Callable[[int], Callable[[], object]]] = {
        "pair_results (ids)": lambda n: lambda: pair_results(convs[n], 1),
        "pair_results (no ids)": lambda n: lambda: pair_results(no_ids[n], 1),
        "replay": lambda n: lambda: ToolErrorLayer().replay(convs[n]),
    }
    for form in ("c0", "c1", "c3", "c4", "abstract"):
        cases[f"rewrite {form}"] = lambda n, form=form: lambda: ToolErrorLayer(form=form).rewrite(convs[n])
    times: dict[tuple[str, int], list[float]] = {}
    for _ in range(runs):
        for name, make in cases.items():
            for n in sizes:  # interleaved: every size in every round
                times.setdefault((name, n), []).append(timed(make(n)))
    header = " | ".join(f"{n:,} calls" for n in sizes)
    ratios = " | ".join(f"{n // sizes[0]}x size" for n in sizes[1:])
    print(f"| case | {header} | {ratios} |")
    print("|---|" + "---|" * (2 * len(sizes) - 1))
    for name in cases:
        medians = [statistics.median(times[(name, n)]) for n in sizes]
        cells = " | ".join(f"{m * 1000:.1f} ms" for m in medians)
        rel = " | ".join(f"{m / medians[0]:.1f}x" for m in medians[1:])
        print(f"| {name} | {cells} | {rel} |")


if __name__ == "__main__":
    main()
