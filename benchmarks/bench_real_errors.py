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


def bounds(rs: list[evaluate.Result], twins: dict[int, set[str]]) -> str:
    """What any rule on the same text can reach, per text path (the exception path reads
    more than its text: bodies, headers, codes).

    *Shared* texts are those that cases with different labels give word for word. A rule
    that keeps the contract's published word lists (DELIVERY.md section 3: "the floor, not
    the ceiling") gives a shared text the floor's kind wherever the floor has one, so every
    case of another label there is a wrong answer whatever else the rule does: the *floor
    bound* is the fewest wrong answers such a rule can give. The other row gives every
    shared text no guidance and keeps every other answer as it is now (the fewest wrong
    answers, breaking the floor)."""
    lines = [
        "\n| path | inputs | shared texts (cases) | wrong now | fewest wrong keeping the floor "
        "| no guidance on shared texts: correct / wrong |",
        "|---|---|---|---|---|---|",
    ]
    for path in ("framework", "flagged"):
        sub = [r for r in rs if r.path == path]
        shared = [r for r in sub if len(twins[id(r)]) > 1]
        floor_wrong = 0
        for r in shared:
            floor = evaluate.baseline_kind(r.text)
            if floor != "ambiguous" and floor != r.case.kind:
                floor_wrong += 1
        wrong = sum(r.score == "wrong" for r in sub)
        keep = [r for r in sub if len(twins[id(r)]) == 1]
        correct_then = sum(r.score == "correct" for r in keep)
        correct_then += sum(r.case.kind == "ambiguous" for r in shared)
        wrong_then = sum(r.score == "wrong" for r in keep)
        n = len(sub)
        texts = len({(r.framework, evaluate._cause_free(r.text)) for r in shared})
        lines.append(
            f"| {path} | {n} | {texts} ({len(shared)}) | {wrong} ({wrong / n:.1%}) "
            f"| {floor_wrong} ({floor_wrong / n:.1%}) "
            f"| {correct_then / n:.1%} / {wrong_then / n:.1%} |"
        )
    return "\n".join(lines)


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
    print(bounds(rs, twins))
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
