"""Uncached short-text classification of two source trees, alternated (old, new, old, new ...).

    python benchmarks/bench_classify_pairs.py --old OLD/shared_core/src [--new shared_core/src] [--pairs 5]

Each run is a fresh interpreter with ``PYTHONPATH=TREE`` that measures
``bench_core.bench_classify`` on 20,000 distinct short texts (every one misses the verdict
cache: ``classify_short_per_s`` of ``bench_core.py --quick``, 3 rounds, median of the wall
clock), and the same 60,000 classifications by the process's CPU time (what other work on a
loaded machine disturbs less). The ratio of neighbouring runs is the figure, not the rate.
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
    "import sys, time; sys.path.insert(0, {here!r});"
    "from bench_core import SHORT, bench_classify, distinct;"
    "texts = distinct(SHORT, 20_000); cpu = time.process_time();"
    "wall = bench_classify(texts, 1, 3); cpu = time.process_time() - cpu;"
    "print(wall, 3 * len(texts) / cpu)"
)


def rates(src: str) -> tuple[float, float]:
    """(wall-clock rate, CPU-time rate) of one run, texts per second."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    command = [sys.executable, "-c", RUN.format(here=str(HERE))]
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    wall, cpu = out.stdout.split()
    return float(wall), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--old", required=True, help="the old tree's shared_core/src")
    parser.add_argument("--new", default=str(HERE.parent / "shared_core" / "src"))
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    wall_ratios: list[float] = []
    cpu_ratios: list[float] = []
    old_walls: list[float] = []
    new_walls: list[float] = []
    for i in range(args.pairs):
        old_wall, old_cpu = rates(args.old)
        new_wall, new_cpu = rates(args.new)
        old_walls.append(old_wall)
        new_walls.append(new_wall)
        wall_ratios.append(new_wall / old_wall)
        cpu_ratios.append(new_cpu / old_cpu)
        print(
            f"pair {i + 1}: wall old {old_wall:,.0f}/s new {new_wall:,.0f}/s ratio {wall_ratios[-1]:.2f};"
            f" CPU old {old_cpu:,.0f}/s new {new_cpu:,.0f}/s ratio {cpu_ratios[-1]:.2f}",
            flush=True,
        )
    print(
        f"medians: wall old {statistics.median(old_walls):,.0f}/s new {statistics.median(new_walls):,.0f}/s;"
        f" ratio per pair: wall {statistics.median(wall_ratios):.2f}, CPU {statistics.median(cpu_ratios):.2f}"
    )


if __name__ == "__main__":
    main()
