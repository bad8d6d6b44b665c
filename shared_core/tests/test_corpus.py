"""The labelled corpus and the real error strings from public tool sources."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from toolerr import inspect_result

DATA = Path(__file__).parent / "data"


def _load(name: str) -> list[dict[str, Any]]:
    with (DATA / name).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


CORPUS = _load("error_corpus.jsonl")
REAL = _load("real_error_strings.jsonl")


def test_corpus_is_large_enough_and_well_formed() -> None:
    ids = [case["id"] for case in CORPUS]
    assert len(ids) == len(set(ids))
    assert len(CORPUS) >= 55 + 60
    own = [case for case in CORPUS if case["id"].startswith("ext-")]
    assert len(own) >= 60
    assert all(case.get("source") for case in own)
    for case in CORPUS:
        assert isinstance(case["failed"], bool)
        assert (case["kind"] is None) == (not case["failed"])
        assert case["kind"] in (None, "transient", "fixable", "unrecoverable", "ambiguous")
    kinds = {case["kind"] for case in own}
    assert kinds == {None, "transient", "fixable", "unrecoverable", "ambiguous"}
    clients = {case.get("client", "generic") for case in own}
    assert {
        "langchain",
        "openai-agents",
        "mcp",
        "qwen-code",
        "codex",
        "kilo-code",
        "opencode",
        "cline",
    } <= clients


@pytest.mark.parametrize("case", CORPUS, ids=[case["id"] for case in CORPUS])
def test_labelled_case(case: dict[str, Any]) -> None:
    verdict = inspect_result(case["content"], is_error=case.get("is_error"), client=case.get("client"))
    assert (verdict.failed, verdict.kind) == (case["failed"], case["kind"]), case.get("note")
    if verdict.failed:
        assert verdict.detection
        assert (verdict.rule is None) == (verdict.kind == "ambiguous")
        assert (verdict.outcome is not None) == (verdict.kind == "transient")
    else:
        assert verdict.rule is None and verdict.detection is None


def test_corpus_accuracy_summary() -> None:
    right = sum(
        inspect_result(c["content"], is_error=c.get("is_error"), client=c.get("client")).kind == c["kind"]
        for c in CORPUS
    )
    print(f"\ncorpus: {right}/{len(CORPUS)} labelled cases right ({right / len(CORPUS):.1%})")
    assert right == len(CORPUS)


def test_recall_on_real_error_strings() -> None:
    assert len(REAL) >= 150
    assert all(case["failed"] for case in REAL)
    detected = [case for case in REAL if inspect_result(case["content"]).failed]
    recall = len(detected) / len(REAL)
    print(f"\nreal error strings: detection recall {recall:.1%} ({len(detected)}/{len(REAL)})")
    assert recall >= 0.98


def test_real_error_strings_get_no_wrong_guidance_for_business_conditions() -> None:
    # Spot checks on the unlabelled real strings: business conditions stay ambiguous.
    by_content = {case["content"]: inspect_result(case["content"]) for case in REAL}
    for content, verdict in by_content.items():
        if "not found" in content or "Insufficient funds" in content or "not authenticated" in content:
            assert verdict.kind == "ambiguous", content
