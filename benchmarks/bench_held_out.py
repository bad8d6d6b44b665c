"""Classification of the held-out live corpus (issue 24): libraries the rules were not
written against, per library and per path, with the published word lists as the baseline.

    .nox/real_errors/bin/python benchmarks/bench_held_out.py [NAME ...] [--out FILE]

Triggers every case of shared_core/tests/real_errors/libraries/ live (127.0.0.1 servers it
starts, a local redis-server and PostgreSQL, real git; about a minute), classifies each
through the four paths of ``evaluate`` (exception, framework texts, flagged, unflagged) and
prints the markdown tables of benchmarks/RESULTS.md, the figures per group of libraries,
and every miss. Needs the ``real_errors`` nox environment.

To score the same cases with another tree's rules (the rules before a change), put that
tree's ``shared_core/src`` first on ``PYTHONPATH``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "shared_core" / "tests" / "real_errors"))

import evaluate
import libraries

# The three groups of the held-out corpus, by who built them and what they exercise.
GROUPS = {
    "protocols and stores": (
        "redis_py",
        "smtp",
        "ftp",
        "git_cli",
        "dns_dnspython",
        "websockets_",
        "sqlalchemy_",
        "sqlalchemy_pg",
        "ssh_paramiko",
        "duckdb_",
        "asyncpg_",
        "pymemcache_",
        "dulwich_",
        "paho_mqtt",
    ),
    "SaaS and cloud SDKs": (
        "slack_sdk_",
        "stripe_sdk",
        "github_pygithub",
        "docker_sdk",
        "kubernetes_client",
        "elasticsearch_py",
        "huggingface_hub_",
        "twilio_sdk",
        "boto3_services",
        "notion_client_",
        "sendgrid_sdk",
        "azure_storage_blob_",
        "qdrant_client_",
        "jira_",
        "telegram_bot",
        "dropbox_sdk",
        "pyairtable_",
        "algoliasearch_",
    ),
}

# Libraries added in the tenth session and measured once, before any of their cases was read,
# against the rules written that session (the issue 24 held-out figure of RESULTS.md).
FRESH = (
    "azure_storage_blob_",
    "qdrant_client_",
    "jira_",
    "telegram_bot",
    "dropbox_sdk",
    "packaging_",
    "croniter_",
    "marshmallow_",
    "sympy_",
    "email_validator_",
    "pint_",
    "duckdb_",
    "asyncpg_",
    "pymemcache_",
    "dulwich_",
    "paho_mqtt",
)

# Libraries added in the twelfth session by helpers who did not read the rules, measured once
# against the rules as they stood (no rule was written that session): the third clean set.
FRESH_12 = ("pyairtable_", "algoliasearch_", "openpyxl_", "pypdf_", "phonenumbers_", "arrow_")


def held_out(module: str) -> bool:
    """The test split: modules never looked at while rules were written (a third of the
    modules, chosen by a hash of the name before any of their cases was read)."""
    return int(hashlib.sha1(module.encode()).hexdigest(), 16) % 3 == 0


def group_of(module: str) -> str:
    for name, modules in GROUPS.items():
        if module in modules:
            return name
    return "parsers fed the model's arguments"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="modules of libraries/ (default: all)")
    parser.add_argument("--out", default="benchmarks/out/held_out_misses.json")
    args = parser.parse_args()
    cases = []
    module_of: dict[str, str] = {}
    for name, generated in libraries.generate_all(args.names or None):
        for case in generated:
            module_of[case.id] = name
        cases.extend(generated)
    rs = evaluate.results(cases)
    labels: dict[str, int] = defaultdict(int)
    for case in cases:
        labels[case.kind] += 1
    print(f"{len(cases)} cases, {len({c.library for c in cases})} libraries; labels {dict(labels)}\n")
    print(evaluate.report(rs))
    print("\n| group | cases | " + " | ".join(f"{p} correct / wrong" for p in evaluate.PATHS) + " |")
    print("|---|---|" + "---|" * len(evaluate.PATHS))
    by_group: dict[str, list[evaluate.Result]] = defaultdict(list)
    for r in rs:
        by_group[group_of(module_of[r.case.id])].append(r)
    for group in sorted(by_group):
        t = evaluate.tally(by_group[group])
        cells = [
            f"{t[(p, '*')].pct('correct'):.1f}% / {t[(p, '*')].pct('wrong'):.1f}%" for p in evaluate.PATHS
        ]
        print(f"| {group} | {t[('exception', '*')].n} | " + " | ".join(cells) + " |")
    print("\n| split | cases | " + " | ".join(f"{p} correct / wrong" for p in evaluate.PATHS) + " |")
    print("|---|---|" + "---|" * len(evaluate.PATHS))
    by_split: dict[str, list[evaluate.Result]] = defaultdict(list)
    for r in rs:
        module = module_of[r.case.id]
        split = (
            "fresh (session 10)"
            if module in FRESH
            else "fresh (session 12)"
            if module in FRESH_12
            else "test (held out)"
            if held_out(module)
            else "dev"
        )
        by_split[split].append(r)
    for split in sorted(by_split):
        t = evaluate.tally(by_split[split])
        cells = [
            f"{t[(p, '*')].pct('correct'):.1f}% / {t[(p, '*')].pct('wrong'):.1f}%" for p in evaluate.PATHS
        ]
        print(f"| {split} | {t[('exception', '*')].n} | " + " | ".join(cells) + " |")
    bare = [r for r in rs if r.path == "unflagged"]
    found = sum(r.verdict.failed for r in bare)
    print(
        f"\nDetection from the bare exception string, no flag (unflagged): {found} of {len(bare)} "
        f"({100.0 * found / len(bare):.1f}%)"
    )
    misses = evaluate.misses(rs, ("exception", "framework", "flagged"))
    print("\nMisses (exception, framework, flagged paths):\n")
    print("| case | path | label | got | rule | text |")
    print("|---|---|---|---|---|---|")
    for m in misses:
        text = m["text"].replace("\n", " ").replace("|", "/")[:120]
        print(f"| {m['id']} | {m['path']} | {m['label']} | {m['got']} | {m['rule'] or '-'} | {text} |")
    for m in misses:
        m["module"] = module_of[m["id"]]
        m["held_out"] = held_out(m["module"])
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"cases": len(cases), "misses": misses}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
