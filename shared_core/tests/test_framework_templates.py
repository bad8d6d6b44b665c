"""The frameworks' failure texts (``framework_texts/data/*.jsonl``, each produced live by
the framework's own agent loop: ``framework_texts/capture_<fw>.py``) detected from the
text alone, with the framework's client name and without any, and classified against the
label of the exception the tool raised. No framework is needed here."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from toolerr import inspect_result

DATA = Path(__file__).resolve().parent / "framework_texts" / "data"
# The client name of each framework (toolerr's _rules.detection.FRAMEWORK_CLIENTS).
CLIENTS = {
    "dspy": "dspy",
    "haystack": "haystack",
    "semantic-kernel": "semantic-kernel",
    "crewai": "crewai",
    "smolagents": "smolagents",
    "langchain": "langchain",
    # ADK's reflection JSON is read where it arrives as text (a gateway, `toolerr classify`);
    # inside ADK, toolerr's plugin (client "google-adk") leaves ADK's own answer as it is
    "google-adk": "generic",
}
# What each case's exception says by itself (str(exc), as framework_texts/_cases.py raises
# it). A framework text must get its label's kind wherever this bare text, flagged as an
# error, gets it: the template must lose nothing of the exception. Where the bare text
# does not (no rule reads it), the framework text's kind is reported, not asserted.
BARE = {
    "permission": "[Errno 13] Permission denied: '/srv/weather/api_key.txt'",
    "http503": "Server error '503 Service Unavailable' for url 'http://127.0.0.1:8000/v1/current?q=Paris'\n"
    "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/503",
    "refused": "[Errno 111] Connection refused",
    "12345": "city must be a city name, got '12345'",
    "timeout": "timed out",
    "keyerror": "'forecast'",
}


def _case(row: dict[str, Any]) -> str:
    return str(row["id"]).rsplit(":", 1)[1]


def _bare_gets_label(row: dict[str, Any]) -> bool:
    return inspect_result(BARE[_case(row)], is_error=True).kind == row["kind"]


def _rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(DATA.glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            rows.extend(json.loads(line) for line in f if line.strip())
    return rows


ROWS = _rows()
IDS = [r["id"] for r in ROWS]


def test_every_framework_has_texts() -> None:
    assert {r["framework"] for r in ROWS} == set(CLIENTS)
    assert {_case(r) for r in ROWS} == set(BARE)


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_detected_with_the_framework_client(row: dict[str, Any]) -> None:
    verdict = inspect_result(row["text"], client=CLIENTS[row["framework"]])
    assert verdict.failed, row["id"]
    assert verdict.detection is not None and not verdict.detection.startswith("generic:"), (
        row["id"],
        verdict.detection,
    )


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_detected_without_a_client(row: dict[str, Any]) -> None:
    assert inspect_result(row["text"]).failed, row["id"]


@pytest.mark.parametrize("row", ROWS, ids=IDS)
def test_kind_matches_the_label(row: dict[str, Any]) -> None:
    for client in (CLIENTS[row["framework"]], None):
        verdict = inspect_result(row["text"], client=client)
        if not _bare_gets_label(row):
            bare = inspect_result(BARE[_case(row)], is_error=True).kind
            pytest.skip(
                f"{row['id']}: the bare exception text is {bare}, not {row['kind']} (got {verdict.kind})"
            )
        assert verdict.kind == row["kind"], (row["id"], client, verdict)


def test_report_kinds_per_framework(capsys: pytest.CaptureFixture[str]) -> None:
    table: dict[str, Counter[str]] = {}
    for row in ROWS:
        for label, client in (("client", CLIENTS[row["framework"]]), ("generic", None)):
            verdict = inspect_result(row["text"], client=client)
            count = table.setdefault(f"{row['framework']} ({label})", Counter())
            count["detected" if verdict.failed else "missed"] += 1
            count["right kind" if verdict.kind == row["kind"] else "wrong kind"] += 1
            if verdict.kind != row["kind"] and _bare_gets_label(row):
                count["wrong, bare right"] += 1
    with capsys.disabled():
        print()
        for name, count in sorted(table.items()):
            print(
                f"  {name:32} "
                + ", ".join(
                    f"{k} {count[k]}"
                    for k in ("detected", "missed", "right kind", "wrong kind", "wrong, bare right")
                )
            )


def test_adk_plugin_leaves_adks_own_reflection_as_it_is() -> None:
    rows = [r for r in ROWS if r["framework"] == "google-adk"]
    assert rows
    for row in rows:
        assert not inspect_result(row["text"], client="google-adk").failed, row["id"]
