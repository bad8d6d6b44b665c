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
from collections.abc import Callable
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


# Libraries added in the fifteenth session by helpers who did not read the rules, with the
# call's arguments recorded from the start; measured once.
FRESH_15 = ("babel_", "xmltodict_", "tomlkit_", "gitlab_", "hvac_", "icalendar_")
# ... and nine more, built while the rules with the arguments were written, measured once
# against the rules as they stood when the nine were done (c53b91e).
FRESH_15B = (
    "shapely_",
    "networkx_",
    "msgspec_",
    "minio_",
    "google_cloud_storage_",
    "simple_salesforce_",
    "pygit2_",
    "peewee_",
    "pendulum_",
)
# ... and seven more, measured once against the rules of 95bff59 (an accidental run had shown
# meilisearch_ and tinydb_ against the rules of the commit before it).
FRESH_15C = (
    "jsonpath_ng_",
    "cerberus_",
    "python_docx_",
    "meilisearch_",
    "asana_",
    "tinydb_",
    "sqlite_utils_",
)

# Libraries added in the sixteenth session by helpers who did not read the rules (arguments
# recorded), measured once against the rules of that session. geopy_, googlemaps_, hcloud_ and
# simpleeval_ had their misses at an earlier step of those rules printed once by a mistaken
# run over every module; no rule was written after it.
FRESH_16 = (
    "hcloud_",
    "googlemaps_",
    "clickhouse_connect_",
    "polars_",
    "simpleeval_",
    "pyjwt_",
    "geopy_",
    "atlassian_",
    "pymysql_",
    "jsonpatch_",
    "pycountry_",
)

# ... and nine more, built while set D was measured and read, measured once against the rules
# of efabe56 (words added after reading set D included).
FRESH_16E = (
    "zenpy_",
    "spotipy_",
    "opensearch_py",
    "influxdb_client_",
    "ruamel_yaml_",
    "lark_",
    "dateparser_",
    "nats_py",
    "psutil_",
)


# Built in the seventeenth session by four helper sessions that did not read the rules, measured
# once with the rules of 8d8b08d and of that session.
FRESH_17 = (
    "ldap3_",
    "greenstalk_",
    "pika_",
    "mysql_connector_",
    "cloudflare_",
    "mastodon_",
    "todoist_",
    "mako_",
    "soupsieve_",
    "protobuf_",
)


# Built in the eighteenth session by four helper sessions that did not read the rules, each case
# with the tool's declared parameters (its JSON schema); measured once with the rules of fc263cd
# (the schema rule written before any of these cases existed).
FRESH_18 = (
    "gitpython_",
    "caldav_",
    "pyarrow_",
    "xlsxwriter_",
    "google_api_client_",
    "hubspot_",
    "typesense_",
    "ollama_",
    "praw_",
    "webdav4_",
)


def held_out(module: str) -> bool:
    """The test split: modules never looked at while rules were written (a third of the
    modules, chosen by a hash of the name before any of their cases was read)."""
    return int(hashlib.sha1(module.encode()).hexdigest(), 16) % 3 == 0


def group_of(module: str) -> str:
    for name, modules in GROUPS.items():
        if module in modules:
            return name
    return "parsers fed the model's arguments"


def split_of(module: str) -> str:
    if module in FRESH:
        return "fresh (session 10)"
    if module in FRESH_12:
        return "fresh (session 12)"
    if module in FRESH_15:
        return "fresh (session 15)"
    if module in FRESH_15B:
        return "fresh (session 15, second set)"
    if module in FRESH_15C:
        return "fresh (session 15, third set)"
    if module in FRESH_16:
        return "fresh (session 16)"
    if module in FRESH_16E:
        return "fresh (session 16, second set)"
    if module in FRESH_17:
        return "fresh (session 17)"
    if module in FRESH_18:
        return "fresh (session 18)"
    return "test (held out)" if held_out(module) else "dev"


def _cells(rs: list[evaluate.Result]) -> list[str]:
    t = evaluate.tally(rs)
    return [f"{t[(p, '*')].pct('correct'):.1f}% / {t[(p, '*')].pct('wrong'):.1f}%" for p in evaluate.PATHS]


def compare_arguments(
    without: list[evaluate.Result],
    given: list[evaluate.Result],
    module_of: dict[str, str],
    columns: tuple[str, str] = ("without", "with"),
) -> None:
    """Correct / wrong per path without and with the call's arguments (or with them, and
    with the tools' declared parameters too): all, per split, per library where anything
    changed; then every case whose verdict changed."""
    with_args = [r for r in given if r.case.arguments is not None]
    ids = {r.case.id for r in with_args}
    print(f"{len(ids)} of {len({r.case.id for r in given})} cases record their call's arguments\n")
    print(
        "| scope | cases | arguments | " + " | ".join(f"{p} correct / wrong" for p in evaluate.PATHS) + " |"
    )
    print("|---|---|---|" + "---|" * len(evaluate.PATHS))

    def rows(scope: str, keep: Callable[[evaluate.Result], bool], always: bool = False) -> None:
        before = [r for r in without if keep(r)]
        after = [r for r in given if keep(r)]
        cb, ca = _cells(before), _cells(after)
        if cb == ca and not always:
            return
        n = len({r.case.id for r in before})
        print(f"| {scope} | {n} | {columns[0]} | " + " | ".join(cb) + " |")
        print(f"| {scope} | {n} | {columns[1]} | " + " | ".join(ca) + " |")

    rows("all", lambda r: True, always=True)
    for split in sorted({split_of(m) for m in module_of.values()}):
        rows(split, lambda r, split=split: split_of(module_of[r.case.id]) == split, always=True)
    for module in sorted(set(module_of.values())):
        rows(module, lambda r, module=module: module_of[r.case.id] == module)
    print(f"\nVerdicts changed ({columns[0]} -> {columns[1]}):\n")
    print(f"| case | path | label | {columns[0]} | {columns[1]} | text |")
    print("|---|---|---|---|---|---|")
    for a, b in zip(without, given, strict=True):
        ka = a.verdict.kind if a.verdict.failed else None
        kb = b.verdict.kind if b.verdict.failed else None
        if ka != kb:
            text = a.text.replace("\n", " ").replace("|", "/")[:100]
            print(
                f"| {a.case.id} | {a.path}{':' + a.framework if a.framework else ''} | {a.case.kind} "
                f"| {ka} | {kb} | {text} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("names", nargs="*", help="modules of libraries/ (default: all)")
    parser.add_argument("--out", default="benchmarks/out/held_out_misses.json")
    parser.add_argument(
        "--arguments",
        action="store_true",
        help="also classify with each case's recorded call arguments and print both side by side",
    )
    parser.add_argument(
        "--parameters",
        action="store_true",
        help="classify with the recorded arguments, then also with the tools' declared parameters "
        "(where the cases record them), and print both side by side",
    )
    args = parser.parse_args()
    cases = []
    module_of: dict[str, str] = {}
    for name, generated in libraries.generate_all(args.names or None):
        for case in generated:
            module_of[case.id] = name
        cases.extend(generated)
    if args.parameters:
        given = evaluate.results(cases, with_arguments=True)
        declared = evaluate.results(cases, with_arguments=True, with_parameters=True)
        compare_arguments(given, declared, module_of, ("arguments", "arguments and parameters"))
        return
    rs = evaluate.results(cases)
    if args.arguments:
        compare_arguments(rs, evaluate.results(cases, with_arguments=True), module_of)
        return
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
        split = split_of(module)
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
