"""The live corpus: regenerated through the real libraries, compared with the committed
JSONL, and the classification targets of issue 11 on it.

Regenerate the JSONL after a deliberate change: ``nox -s real_errors -- --regenerate`` is not
a pytest flag; run ``.nox/real_errors/bin/python shared_core/tests/real_errors/generate.py``.
"""

from __future__ import annotations

import json
import socket
from typing import Any

import evaluate
import generate
import pytest


@pytest.fixture(scope="session")
def cases() -> list[generate.Case]:
    return generate.generate()


@pytest.fixture(scope="session")
def results(cases: list[generate.Case]) -> list[evaluate.Result]:
    return evaluate.results(cases)


def _committed() -> dict[str, dict[str, Any]]:
    with generate.CORPUS.open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return {row["id"]: row for row in rows}


def test_corpus_is_large_and_labelled(cases: list[generate.Case]) -> None:
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids))
    assert len(cases) >= 250
    assert {c.kind for c in cases} == {"transient", "fixable", "unrecoverable", "ambiguous"}
    for c in cases:
        assert (c.outcome is not None) == (c.kind == "transient"), c.id
    libraries = {c.library for c in cases}
    assert {
        "httpx",
        "requests",
        "urllib3",
        "aiohttp",
        "urllib.request",
        "openai",
        "anthropic",
        "botocore",
        "google-api-core",
        "grpcio",
        "pydantic",
        "jsonschema",
        "sqlite3",
        "builtins",
        "asyncio",
    } <= libraries


def test_regenerated_corpus_matches_the_committed_one(cases: list[generate.Case]) -> None:
    committed = _committed()
    fresh = {c.id: generate.record(c) for c in cases}
    missing = set(committed) - set(fresh)
    if "psycopg-syntax" not in fresh:  # no PostgreSQL server could be started here
        missing = {i for i in missing if not i.startswith("psycopg-")}
    assert not missing, f"cases no longer generated: {sorted(missing)}"
    assert set(fresh) <= set(committed), f"new cases: {sorted(set(fresh) - set(committed))}"
    changed = [i for i in fresh if fresh[i] != committed[i]]
    assert not changed, "\n".join(f"{i}:\n  now {fresh[i]}\n  was {committed[i]}" for i in changed[:5])


def test_dns_failures_never_leave_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Any] = []
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: asked.append(a))
    with generate.offline_dns(), pytest.raises(socket.gaierror) as info:
        socket.getaddrinfo("api.example.invalid", 443)
    assert info.value.errno == socket.EAI_NONAME
    assert asked == []


def _pct(rs: list[evaluate.Result], path: str, key: str) -> float:
    chosen = [r for r in rs if r.path == path]
    return 100.0 * sum(r.score == key for r in chosen) / len(chosen)


@pytest.mark.parametrize(("path", "correct", "wrong"), [("exception", 95.0, 1.0), ("framework", 90.0, 1.0)])
def test_guidance_targets(results: list[evaluate.Result], path: str, correct: float, wrong: float) -> None:
    misses = list(evaluate.misses(results, (path,)))
    detail = "\n".join(f"{m['id']} {m['path']} {m['label']} -> {m['got']} ({m['rule']})" for m in misses)
    assert _pct(results, path, "correct") >= correct, detail
    assert _pct(results, path, "wrong") <= wrong, detail


def test_turned_away_is_not_executed_and_timeouts_are_unknown(results: list[evaluate.Result]) -> None:
    for r in results:
        if r.path == "exception" and r.case.kind == "transient" and r.verdict.kind == "transient":
            assert r.verdict.outcome == r.case.outcome, (r.case.id, r.verdict)


def test_verdict_status_is_plain(results: list[evaluate.Result]) -> None:
    for r in results:
        assert r.verdict.status is None or type(r.verdict.status) in (int, str), (r.case.id, r.verdict.status)
