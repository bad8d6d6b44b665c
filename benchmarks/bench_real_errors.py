"""Classification of real library failures: the live corpus, per library and per path.

    .nox/real_errors/bin/python benchmarks/bench_real_errors.py [--no-postgres] [--out FILE]

Triggers every case of shared_core/tests/real_errors/generate.py live (127.0.0.1 servers,
botocore's Stubber, SQLite, a local PostgreSQL where one starts; about 15 s plus the
server's start), classifies each through four paths and prints the markdown tables of
benchmarks/RESULTS.md, the published word lists of DELIVERY.md section 3 as the baseline
column, and every remaining miss. Needs the ``real_errors`` nox environment (the libraries).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shared_core" / "tests" / "real_errors"))

import evaluate
import generate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--out", default=str(Path(__file__).parent / "out" / "real_errors.json"))
    args = parser.parse_args()
    cases = generate.generate(with_postgres=not args.no_postgres)
    rs = evaluate.results(cases)
    kinds = Counter(c.kind for c in cases)
    print(f"{len(cases)} cases, {len({c.library for c in cases})} libraries; labels {dict(kinds)}\n")
    print(evaluate.report(rs))
    misses = evaluate.misses(rs, ("exception", "framework", "flagged"))
    twins = evaluate.twins(rs)
    missed = [r for r in rs if r.path in ("exception", "framework", "flagged") and r.score != "correct"]
    for path in ("exception", "framework", "flagged"):
        wrong = [r for r in missed if r.path == path and r.score == "wrong"]
        same = [r for r in wrong if len(twins[id(r)]) > 1]
        print(f"\n{path}: {len(wrong)} wrong, {len(same)} on a text another label shares")
    print("\nMisses (exception, framework, flagged paths):\n")
    print("| case | path | label | got | rule | cause carried by | labels of the same text |")
    print("|---|---|---|---|---|---|---|")
    for m, r in zip(misses, missed, strict=True):
        print(
            f"| {m['id']} | {m['path']} | {m['label']} | {m['got']} | {m['rule'] or '-'} "
            f"| {generate.evidence(r.case)} | {', '.join(sorted(twins[id(r)]))} |"
        )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"cases": len(cases), "misses": misses}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
