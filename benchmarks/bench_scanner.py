"""The one-pass scanner (``toolerr._scanner``) against the two plain ways to find the rules' words.

    python benchmarks/bench_scanner.py [--quick]

Every entry the classifier looks for (words, errno and gRPC names, JSON-RPC codes, markers:
the entries of ``toolerr._classify._SCANNER``) is found in realistic tool texts three ways:

* ``scanner``: the anchored trie regex, one pass (what the core uses);
* ``alternation``: one regex of every entry's text, longest first, ``finditer``;
* ``in``: a ``text in window`` test per entry (finds presence only, no positions).

Texts: the core's test corpora (``shared_core/tests/data``: real tool error strings and the
developer corpus), the live library failures (``tests/real_errors/live_corpus.jsonl``) and
successful results (JSON rows, prose, source code, logs) up to 4 KB. The variants run
interleaved (order rotated each round); figures are medians. Writes
benchmarks/out/scanner.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolerr._classify import _SCANNER, _entries

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "shared_core" / "tests" / "data"
LIVE = ROOT / "shared_core" / "tests" / "real_errors" / "live_corpus.jsonl"
WINDOW = 4096


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _successes(rng: random.Random, count: int) -> list[str]:
    """Successful results of the usual shapes (JSON rows, prose, source code, a log), 100
    bytes to 4 KB."""
    cities = ["Paris", "Lisbon", "Osaka", "Denver", "Nairobi", "Lima"]

    def rows(n: int) -> str:
        found = [
            {"id": k, "city": rng.choice(cities), "temp_c": rng.randint(-5, 35), "ok": True} for k in range(n)
        ]
        return json.dumps({"results": found, "next": None})

    def prose(n: int) -> str:
        return " ".join(
            f"{rng.choice(cities)} has {rng.randint(1, 90)} hotels listed; the cheapest is "
            f"{rng.randint(40, 300)} EUR a night and most have free cancellation."
            for _ in range(n)
        )

    def code(n: int) -> str:
        body = "def handler_{0}(event, context):\n    value = event.get('key_{0}', {0})\n    return value * 2"
        return "\n".join(body.format(k) for k in range(n))

    def log(n: int) -> str:
        line = "2026-12-01T10:{:02d}:00Z INFO worker-{} processed batch {} in {} ms"
        return "\n".join(line.format(k % 60, k % 4, k, rng.randint(3, 900)) for k in range(n))

    shapes = (rows, prose, code, log)
    out = []
    for i in range(count):
        n = rng.choice([2, 8, 30, 60])
        out.append(shapes[i % len(shapes)](n)[:WINDOW])
    return out


def texts(rng: random.Random) -> list[str]:
    failed = [row["content"] for row in _jsonl(DATA / "real_error_strings.jsonl")]
    failed += [row["content"] for row in _jsonl(DATA / "error_corpus.jsonl")]
    if LIVE.exists():
        failed += [row["str"] for row in _jsonl(LIVE)]
    failed = [t[:WINDOW] for t in failed if isinstance(t, str)]
    return failed + _successes(rng, len(failed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=str(Path(__file__).parent / "out" / "scanner.json"))
    args = parser.parse_args()
    corpus = texts(random.Random(0))
    rounds = 5 if args.quick else 15
    entry_texts = sorted({e.text for e in _entries()}, key=lambda t: (-len(t), t))

    start = time.perf_counter()
    alternation = re.compile("|".join(re.escape(t) for t in entry_texts))
    build_alternation = time.perf_counter() - start
    start = time.perf_counter()
    _entries_again = _entries()
    type(_SCANNER)(_entries_again)
    build_scanner = time.perf_counter() - start

    def run_scanner() -> int:
        return sum(len(_SCANNER.hits(t)) for t in corpus)

    def run_alternation() -> int:
        return sum(len(alternation.findall(t)) for t in corpus)

    def run_in() -> int:
        return sum(1 for t in corpus for e in entry_texts if e in t)

    # What each finds: the set of entry texts present in each text (``in`` is the truth).
    truth = [{e for e in entry_texts if e in t} for t in corpus]
    by_scanner = [{e.text for _, e in _SCANNER.hits(t)} for t in corpus]
    by_alternation = [set(alternation.findall(t)) for t in corpus]
    scanner_agrees = sum(a == b for a, b in zip(truth, by_scanner, strict=True))
    alternation_agrees = sum(a == b for a, b in zip(truth, by_alternation, strict=True))

    variants: dict[str, Callable[[], int]] = {
        "scanner": run_scanner,
        "alternation": run_alternation,
        "in": run_in,
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    names = list(variants)
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            start = time.perf_counter()
            variants[name]()
            times[name].append(time.perf_counter() - start)
    chars = sum(len(t) for t in corpus)
    med = {name: statistics.median(ts) for name, ts in times.items()}
    results: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "processor": platform.machine()},
        "rounds": rounds,
        "texts": len(corpus),
        "chars": chars,
        "entries": len(entry_texts),
        "us_per_text": {name: m / len(corpus) * 1e6 for name, m in med.items()},
        "ratio_to_scanner": {name: m / med["scanner"] for name, m in med.items()},
        "texts_where_all_entries_found": {
            "scanner": scanner_agrees,
            "alternation": alternation_agrees,
            "in": len(corpus),
        },
        "build_ms": {"scanner": build_scanner * 1e3, "alternation": build_alternation * 1e3},
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2))
    print(f"{len(corpus)} texts ({chars:,} chars), {len(entry_texts)} entries, {rounds} interleaved rounds")
    print("\n".join(_table(results, names, len(corpus))))


def _table(results: dict[str, Any], names: list[str], texts: int) -> list[str]:
    """The markdown table of RESULTS.md."""
    lines = [
        "| variant | per text (median) | x scanner | texts where every entry present is found | build |",
        "|---|---|---|---|---|",
    ]
    for name in names:
        build = results["build_ms"].get(name)
        lines.append(
            f"| {name} | {results['us_per_text'][name]:.1f} µs | {results['ratio_to_scanner'][name]:.1f}x | "
            f"{results['texts_where_all_entries_found'][name]} / {texts} | "
            f"{'' if build is None else f'{build:.0f} ms'} |"
        )
    return lines


if __name__ == "__main__":
    main()
