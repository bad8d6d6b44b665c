"""The kit's additions for the pydantic-ai adapter: framework_verdict (a failure a
framework's own signal declares, with the rule id the core owns for it) and
declared_safety (the retry safety a tool's metadata declares)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from toolerr import Message, ToolErrorLayer, Verdict
from toolerr.adapters import declared_safety, framework_verdict


def test_pydantic_ai_model_retry_is_fixable_with_its_rule() -> None:
    verdict = framework_verdict("pydantic-ai", "ModelRetry")
    assert verdict == Verdict(
        failed=True, kind="fixable", rule="pydantic-ai:ModelRetry", detection="exception"
    )
    assert framework_verdict("pydantic-ai", "ModelRetry") is verdict


def test_an_unknown_signal_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        framework_verdict("pydantic-ai", "NoSuchSignal")


def test_the_verdict_decides_whatever_the_words() -> None:
    """Remembered for a result whose words read as another kind, it is what the layer sees."""
    layer = ToolErrorLayer()
    text = "Permission denied: ask again with a path under /tmp"
    verdict = framework_verdict("pydantic-ai", "ModelRetry")
    layer.remember("c1", verdict, content=text, run="r")
    message = Message(role="tool", content=text, tool_call_id="c1", name="read_file", is_error=True)
    assert layer.inspect(message, run="r") is verdict
    assert layer.inspect(dataclasses.replace(message, verdict=verdict)) is verdict


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"toolerr_safety": "read_only"}, "read_only"),
        ({"toolerr_safety": "unsafe", "annotations": {"readOnlyHint": True}}, "unsafe"),
        ({"toolerr_safety": "bogus", "annotations": {"idempotentHint": True}}, "idempotent"),
        ({"annotations": {"destructiveHint": True}}, "unsafe"),
        ({"annotations": None}, None),
        ({}, None),
        (None, None),
        ("read_only", None),
    ],
)
def test_declared_safety_from_a_tools_metadata(metadata: Any, expected: str | None) -> None:
    assert declared_safety(metadata) == expected
