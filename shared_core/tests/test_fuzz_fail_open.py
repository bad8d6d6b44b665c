"""Fail open, never silently: every swallowed internal error is logged on logger
``toolerr`` at WARNING with its traceback, once per distinct cause (issue 18, part 3)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fuzz_support import fuzz
from hypothesis import given
from hypothesis import strategies as st
from toolerr import Message, ToolCall, ToolErrorLayer, _canonical, _classify, _detect, inspect_result
from toolerr._failopen import forget_causes
from toolerr.adapters import canonical_arguments


@pytest.fixture(autouse=True)
def fresh_causes() -> Iterator[None]:
    forget_causes()
    _classify._inspect_text.cache_clear()
    yield
    forget_causes()
    _classify._inspect_text.cache_clear()


def _records(caplog: pytest.LogCaptureFixture, level: int = logging.WARNING) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "toolerr" and r.levelno == level]


def _conversation(text: str) -> list[Message]:
    return [
        Message("user", "task"),
        Message("assistant", "", tool_calls=(ToolCall("c1", "f", {"a": 1}),)),
        Message("tool", text, tool_call_id="c1", name="f"),
    ]


def test_a_classification_error_is_logged_once_with_its_traceback(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any) -> Any:
        raise ZeroDivisionError("injected classification bug")

    monkeypatch.setattr(_classify, "_classify", broken)
    caplog.set_level(logging.WARNING, logger="toolerr")
    for text in ("Error: 403 Forbidden", "Error: 503 Service Unavailable", "Error: 400 Bad Request"):
        verdict = inspect_result(text)
        assert verdict.failed and verdict.kind == "ambiguous"
    (record,) = _records(caplog)
    assert "classification" in record.getMessage()
    assert record.exc_info is not None and "injected classification bug" in (record.exc_text or "")

    def other(*args: Any) -> Any:
        raise KeyError("another cause")

    monkeypatch.setattr(_classify, "_classify", other)
    inspect_result("Error: 429 Too Many Requests")
    assert len(_records(caplog)) == 2


def test_a_detection_error_is_logged_and_the_conversation_passes(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(det: Any, content: Any) -> None:
        raise RuntimeError("injected detection bug")

    monkeypatch.setattr(_detect, "_analyse_content", broken)
    caplog.set_level(logging.WARNING, logger="toolerr")
    messages = _conversation("Error: 403 Forbidden")
    for _ in range(3):
        result = ToolErrorLayer(form="c3").rewrite(messages)
        assert not result.changed and result.messages == messages
    (record,) = _records(caplog)
    assert "detection" in record.getMessage() and "injected detection bug" in (record.exc_text or "")


def test_a_ledger_error_is_logged(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def broken(self: Any, value: Any, depth: int) -> str:
        raise ValueError("injected ledger bug")

    monkeypatch.setattr(_canonical._Canonicaliser, "emit", broken)
    caplog.set_level(logging.WARNING, logger="toolerr")
    assert canonical_arguments({"a": 1}).startswith("#unrepresentable")
    assert canonical_arguments({"a": 2}).startswith("#unrepresentable")
    (record,) = _records(caplog)
    assert "injected ledger bug" in (record.exc_text or "")


def test_a_foreign_objects_own_error_is_logged_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    class Hostile(Exception):
        def __str__(self) -> str:
            raise RuntimeError("hostile __str__")

    caplog.set_level(logging.DEBUG, logger="toolerr")
    verdict = inspect_result("Hostile", exception=Hostile())
    assert verdict.failed
    debug = _records(caplog, logging.DEBUG)
    assert any("__str__" in r.getMessage() and "hostile __str__" in (r.exc_text or "") for r in debug)
    assert not _records(caplog)  # not toolerr's error: no warning


def test_logging_that_fails_never_breaks_the_agent(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("cannot print")

    def broken(*args: Any) -> Any:
        raise Unprintable

    monkeypatch.setattr(_classify, "_classify", broken)
    caplog.set_level(logging.WARNING, logger="toolerr")
    assert inspect_result("Error: 403 Forbidden").kind == "ambiguous"


@fuzz(60)
@given(
    st.sampled_from([ZeroDivisionError, KeyError, ValueError, RecursionError, MemoryError]), st.integers(1, 5)
)
def test_one_record_per_cause_whatever_the_number_of_calls(error: type[Exception], calls: int) -> None:
    forget_causes()
    _classify._inspect_text.cache_clear()
    handler = _Collect()
    logger = logging.getLogger("toolerr")
    logger.addHandler(handler)
    original = _classify._classify

    def broken(*args: Any) -> Any:
        raise error("injected")

    _classify._classify = broken  # type: ignore[assignment]
    try:
        for i in range(calls):
            assert inspect_result(f"Error: 403 Forbidden {i}").kind == "ambiguous"
    finally:
        _classify._classify = original  # type: ignore[assignment]
        logger.removeHandler(handler)
    assert len([r for r in handler.records if r.levelno == logging.WARNING]) == 1


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
