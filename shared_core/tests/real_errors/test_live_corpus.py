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
import servers

# The corpus keeps the exceptions the libraries raised, and with them their responses and
# sockets (closed when collected): not this suite's leak.
pytestmark = pytest.mark.filterwarnings(
    "ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning"
)


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


def test_every_dns_case_was_answered_locally(cases: list[generate.Case]) -> None:
    dns_cases = [c for c in cases if "dns" in c.id]
    assert len(dns_cases) >= 9
    # every client asked the patched resolver (none resolved on its own)
    assert len(generate.DNS_ANSWERED) >= len(dns_cases)
    assert len(set(generate.DNS_ANSWERED)) >= 3
    assert all(name.endswith(".invalid") for name in generate.DNS_ANSWERED)


def test_dns_failures_never_leave_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Any] = []
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: asked.append(a))
    with generate.offline_dns(), pytest.raises(socket.gaierror) as info:
        socket.getaddrinfo("api.example.invalid", 443)
    assert info.value.errno == socket.EAI_NONAME
    assert asked == []


def _pct(rs: list[evaluate.Result], path: str, key: str, carried: bool) -> float:
    chosen = [r for r in rs if r.path == path and (evaluate.carries_cause(r) or not carried)]
    return 100.0 * sum(r.score == key for r in chosen) / len(chosen)


# Issue 11's targets, on the cases whose input carries the cause; and floors on every case
# (the figures of benchmarks/RESULTS.md, so that a regression fails here). The framework
# floor on every case allows the wrong answers on texts that another case with another label
# shares word for word (a bare "429 Too Many Requests" whose quota body the message dropped,
# a GitHub rate limit sent as "403 Forbidden"): see ``test_wrong_text_answers_are_on_shared_texts``.
@pytest.mark.parametrize(
    ("path", "carried", "correct", "wrong"),
    [
        ("exception", True, 95.0, 1.0),
        ("framework", True, 90.0, 1.0),
        ("exception", False, 98.0, 1.0),
        ("framework", False, 90.0, 5.5),
    ],
)
def test_guidance_targets(
    results: list[evaluate.Result], path: str, carried: bool, correct: float, wrong: float
) -> None:
    misses = [
        m
        for m, r in zip(
            evaluate.misses(results, (path,)), [r for r in results if r.path == path and r.score != "correct"]
        )
        if evaluate.carries_cause(r) or not carried
    ]
    detail = "\n".join(f"{m['id']} {m['path']} {m['label']} -> {m['got']} ({m['rule']})" for m in misses)
    assert _pct(results, path, "correct", carried) >= correct, detail
    assert _pct(results, path, "wrong", carried) <= wrong, detail


def test_turned_away_is_not_executed_and_timeouts_are_unknown(results: list[evaluate.Result]) -> None:
    for r in results:
        if r.path == "exception" and r.case.kind == "transient" and r.verdict.kind == "transient":
            if r.case.id.startswith("urllib3-retries-rest_"):
                # MaxRetryError of 429/503 answers: also a retry chain of attempts that were
                # sent; unknown is the safe side (listed in RESULTS.md)
                assert r.verdict.outcome == "unknown_outcome"
                continue
            assert r.verdict.outcome == r.case.outcome, (r.case.id, r.verdict)
        if r.case.outcome == "unknown_outcome" and r.verdict.kind == "transient":
            assert r.verdict.outcome == "unknown_outcome", (
                r.case.id,
                r.path,
                r.verdict,
            )  # never a duplicate write


def test_verdict_status_is_plain(results: list[evaluate.Result]) -> None:
    for r in results:
        assert r.verdict.status is None or type(r.verdict.status) in (int, str), (r.case.id, r.verdict.status)


def test_no_url_names_the_cause(cases: list[generate.Case]) -> None:
    # The scenario a case was sent to is not in any text the classifier reads (an URL such
    # as ``/s/oai_insufficient_quota`` told the text path the label).
    names = [name for name in servers.SCENARIOS if len(name) > 4]
    for case in cases:
        texts = [str(case.exc), *generate.framework_texts(case).values()]
        for name in names:
            assert not any(name in text for text in texts), (case.id, name)


def test_wrong_text_answers_are_on_shared_texts(results: list[evaluate.Result]) -> None:
    # Every wrong answer from the text alone is on a text that a case with another label
    # shares (after the opaque route and the body length), but for the aiohttp repr whose
    # headers LangChain prints (listed in RESULTS.md): no text rule can be right for both.
    # And the repr of a group whose members are a 403 and a refused connection: the status
    # is read as the fallback, so the refusal's words decide from that text (the exception
    # path reads the members and is right).
    twins = evaluate.twins(results)
    for r in results:
        if r.path in ("framework", "flagged") and r.score == "wrong":
            shared = len(twins[id(r)]) > 1
            assert shared or (
                r.framework == "langchain"
                and r.case.id.startswith(("aiohttp-", "group-quota", "group-mixed"))
            ), (
                r.case.id,
                r.path,
                r.framework,
            )


def test_urllib_body_is_peeked_not_consumed() -> None:
    # The quota body of a urllib HTTPError is read from its buffer: the caller still reads
    # every byte of it afterwards, and a body that has not arrived is not waited for long.
    import select
    import time
    import urllib.error
    import urllib.request

    from toolerr import ToolErrorLayer

    with servers.http_server() as port:
        url = f"http://127.0.0.1:{port}/s/{servers.route('oai_insufficient_quota')}"
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(url, timeout=5)
        exc = info.value
        # the body has reached this end (the server writes it just after the headers): the
        # case of a body that arrived with the headers, not a race with the server's thread
        select.select([exc.fp.fp.raw._sock], [], [], 5.0)  # type: ignore[union-attr]
        started = time.perf_counter()
        verdict = ToolErrorLayer().inspect_exception(exc)
        assert time.perf_counter() - started < 2.5  # it did not block until the 5 s timeout
        assert verdict.kind == "unrecoverable"
        assert exc.read() == json.dumps(servers.SCENARIOS["oai_insufficient_quota"].body).encode()
