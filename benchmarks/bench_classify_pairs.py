"""Uncached short-text classification of two source trees, alternated (old, new, old, new ...).

    python benchmarks/bench_classify_pairs.py --old OLD/shared_core/src [--new shared_core/src] [--pairs 5]

Each run is a fresh interpreter with ``PYTHONPATH=TREE`` that measures
``bench_core.bench_classify`` on 20,000 distinct short texts (every one misses the verdict
cache: ``classify_short_per_s`` of ``bench_core.py --quick``, 3 rounds, median). On a machine
that other work loads, the ratio of neighbouring runs is the figure, not the absolute rate.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUN = (
    "import sys; sys.path.insert(0, {here!r});"
    "from bench_core import SHORT, bench_classify, distinct;"
    "print(bench_classify(distinct(SHORT, 20_000), 1, 3))"
)


def rate(src: str) -> float:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    command = [sys.executable, "-c", RUN.format(here=str(HERE))]
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--old", required=True, help="the old tree's shared_core/src")
    parser.add_argument("--new", default=str(HERE.parent / "shared_core" / "src"))
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    old: list[float] = []
    new: list[float] = []
    for i in range(args.pairs):
        old.append(rate(args.old))
        new.append(rate(args.new))
        print(f"pair {i + 1}: old {old[-1]:,.0f}/s  new {new[-1]:,.0f}/s  ratio {new[-1] / old[-1]:.2f}")
    old_median, new_median = statistics.median(old), statistics.median(new)
    print(f"medians: old {old_median:,.0f}/s  new {new_median:,.0f}/s  ratio {new_median / old_median:.2f}")


if __name__ == "__main__":
    main()
