"""How well toolerr reads a tool's declared parameters: which ones point at stored data.

    PYTHONPATH=shared_core/src python benchmarks/bench_references.py

On 399 parameters of 173 real tools (MCP servers, LangChain and crewAI tools, GitHub's,
Stripe's, Notion's, Atlassian's, Grafana's, Supabase's and Playwright's MCP tools:
``shared_core/tests/data/tool_schemas.jsonl``, labelled ``reference`` / ``value`` /
``unclear`` by a helper session that did not see the reader), prints the precision and
recall of :func:`toolerr._arguments.declared_references`, of the argument-name test that
works without a schema, and of the two together, per source and overall, then every
parameter read wrongly.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from toolerr._arguments import _is_locator_name, declared_references

DATA = Path(__file__).resolve().parent.parent / "shared_core" / "tests" / "data" / "tool_schemas.jsonl"


def readers(row: dict[str, Any]) -> dict[str, bool]:
    schema = {"type": "object", "properties": {row["name"]: row["schema"]}}
    declared = row["name"] in declared_references(schema)
    named = _is_locator_name(row["name"])
    return {"schema": declared, "name": named, "either": declared or named}


def figures(counts: Counter[tuple[str, bool]]) -> str:
    tp, fp, fn = counts["reference", True], counts["value", True], counts["reference", False]
    precision = tp / (tp + fp) if tp + fp else float("nan")
    read = tp + fp + counts["unclear", True]
    return f"{read} read as references, precision {precision:.3f}, recall {tp / (tp + fn):.3f}"


def main() -> None:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    labels = Counter(row["label"] for row in rows)
    tools = len({(r["source"], r["tool"]) for r in rows})
    print(f"{len(rows)} parameters, {tools} tools; labels {dict(labels)}\n")
    overall: dict[str, Counter[tuple[str, bool]]] = defaultdict(Counter)
    per_source: dict[str, Counter[tuple[str, bool]]] = defaultdict(Counter)
    wrong = []
    for row in rows:
        got = readers(row)
        for name, value in got.items():
            overall[name][row["label"], value] += 1
        source = " ".join(
            row["source"].split("github.com/")[-1].split("/tree/")[0].split("/blob/")[0].split()[:1]
        )
        per_source[source][row["label"], got["schema"]] += 1
        if row["label"] != "unclear" and got["schema"] != (row["label"] == "reference"):
            wrong.append((row["label"], row["name"], row["schema"].get("description", ""), source))
    print("| reader | figures |\n|---|---|")
    for name in ("schema", "name", "either"):
        print(f"| {name} | {figures(overall[name])} |")
    print("\n| source (schema reader) | figures |\n|---|---|")
    for source, counts in sorted(per_source.items()):
        print(f"| {source} | {figures(counts)} |")
    print("\nRead wrongly by the schema reader (label, parameter, description, source):\n")
    for label, name, description, source in wrong:
        print(f"- {label}: `{name}`: {str(description)[:90]!r} ({source})")


if __name__ == "__main__":
    main()
