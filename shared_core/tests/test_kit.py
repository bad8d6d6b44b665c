"""The adapter kit (toolerr.adapters): fail_open, failure_of, guard_call, RunSnapshot,
Layers and ConversionCache.get_object, each on the real layer."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
from typing import Any

import pytest
from toolerr import Message, Policy, ToolCall, ToolErrorLayer, ToolLoopError
from toolerr._failopen import forget_causes
from toolerr.adapters import (
    Blocked,
    ConversionCache,
    Layers,
    RunSnapshot,
    fail_open,
    failure_of,
    guard_call,
)


@pytest.fixture(autouse=True)
def _fresh_causes() -> None:
    forget_causes()


def _failed_run(
    content: str = "PermissionError: [Errno 13] Permission denied: '/etc/shadow'",
) -> list[Message]:
    return [
        Message(role="user", content="read it"),
        Message(
            role="assistant",
            content="",
            tool_calls=(ToolCall("c1", "read_file", {"path": "/etc/shadow"}),),
        ),
        Message(role="tool", content=content, tool_call_id="c1", name="read_file", is_error=True),
    ]


# -- fail_open -------------------------------------------------------------------------


def _swallow(where: str, error: BaseException) -> fail_open:
    with fail_open(where) as guard:
        raise error
    return guard


def test_fail_open_swallows_logs_a_warning_with_the_traceback_and_says_what_happens(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="toolerr")
    guard = _swallow("rewriting the request", KeyError("boom"))
    assert guard.failed and isinstance(guard.error, KeyError)
    [record] = [r for r in caplog.records if r.name == "toolerr"]
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(
        "toolerr: rewriting the request failed (KeyError); it passes unchanged"
    )
    assert record.exc_info is not None and record.exc_info[1] is guard.error


def test_fail_open_logs_a_cause_once_and_a_new_cause_again(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="toolerr")
    for _ in range(3):
        _swallow("one place", ValueError("x"))
    _swallow("another place", ValueError("x"))
    messages = [r.getMessage() for r in caplog.records if r.name == "toolerr"]
    assert len(messages) == 2 and "one place" in messages[0] and "another place" in messages[1]


def test_fail_open_lets_a_loop_stop_cancellation_and_reraise_types_leave() -> None:
    with pytest.raises(ToolLoopError), fail_open("x"):
        raise ToolLoopError.__new__(ToolLoopError)
    with pytest.raises(asyncio.CancelledError), fail_open("x"):
        raise asyncio.CancelledError
    with pytest.raises(LookupError), fail_open("x", reraise=(LookupError,)):
        raise KeyError("k")


def test_fail_open_without_an_error_is_not_failed(caplog: pytest.LogCaptureFixture) -> None:
    with fail_open("x") as guard:
        value = 1
    assert value == 1 and not guard.failed and guard.error is None
    assert not [r for r in caplog.records if r.name == "toolerr"]


# -- failure_of ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (ConnectionRefusedError(111, "Connection refused"), "transient"),
        (PermissionError(13, "Permission denied"), "unrecoverable"),
        (ValueError("city must not be empty"), "fixable"),
    ],
)
def test_failure_of_renders_once_and_classifies_from_the_object(error: BaseException, kind: str) -> None:
    layer = ToolErrorLayer()
    failure = failure_of(layer, error, tool="weather")
    assert failure.text == f"{type(error).__name__}: {error}"
    assert failure.verdict.failed and failure.verdict.kind == kind
    assert failure.verdict == layer.inspect_exception(error, tool="weather")


def test_failure_of_caps_and_cleans_the_shown_text() -> None:
    layer = ToolErrorLayer(max_error_chars=80)
    failure = failure_of(layer, RuntimeError("x\u202e" * 500))
    assert failure.text.startswith("RuntimeError: xxx") and "\u202e" not in failure.text
    assert failure.text.endswith("cut by toolerr]") and len(failure.text) < 130


# -- guard_call ------------------------------------------------------------------------


def test_guard_call_with_loop_action_note_and_no_idempotency_guard_checks_nothing() -> None:
    layer = ToolErrorLayer(idempotency_guard=False)
    calls: list[int] = []

    def ledger() -> Any:
        calls.append(1)
        raise AssertionError("not built")

    assert guard_call(layer, "read_file", {"path": "/etc/shadow"}, "c2", ledger=ledger) is None
    assert calls == []


def test_guard_call_blocks_an_exact_repeat_and_remembers_its_verdict_for_the_shown_content() -> None:
    layer = ToolErrorLayer(loop_action="block")
    run = object()
    snapshot = RunSnapshot(layer, _failed_run(), run=run)
    blocked = guard_call(
        layer,
        "read_file",
        {"path": "/etc/shadow"},
        "c2",
        ledger=snapshot.ledger,
        run=run,
        shown=lambda text: f'{{"error": {text!r}}}',
    )
    assert isinstance(blocked, Blocked)
    assert blocked.text.startswith("Error: this call was not executed.") and "/etc/shadow" not in blocked.text
    assert blocked.verdict.kind == "unrecoverable" and blocked.verdict.rule == "ledger:blocked-repeat"
    assert layer.recall("c2", blocked.text, run=run) == blocked.verdict
    assert layer.recall("c2", f'{{"error": {blocked.text!r}}}', run=run) == blocked.verdict
    assert layer.recall("c2", blocked.text, run=object()) is None  # another run sees nothing
    # another argument runs
    assert guard_call(layer, "read_file", {"path": "/tmp/x"}, "c3", ledger=snapshot.ledger, run=run) is None


def test_guard_call_with_loop_action_stop_raises() -> None:
    layer = ToolErrorLayer(loop_action="stop")
    with pytest.raises(ToolLoopError):
        guard_call(layer, "read_file", {"path": "/etc/shadow"}, "c2", messages=_failed_run())


def test_guard_call_fails_open_when_the_ledger_cannot_be_built(caplog: pytest.LogCaptureFixture) -> None:
    layer = ToolErrorLayer(loop_action="block")

    def ledger() -> Any:
        raise RuntimeError("toolerr bug")

    assert guard_call(layer, "read_file", {}, "c2", ledger=ledger) is None
    assert any(
        r.levelno == logging.WARNING
        and "the call runs" in r.getMessage()
        and "toolerr bug" in (r.exc_text or "")
        for r in caplog.records
    )


def test_guard_call_without_a_conversation_lets_the_call_run() -> None:
    layer = ToolErrorLayer(loop_action="block")
    assert guard_call(layer, "read_file", {}, "c2", ledger=lambda: None) is None


# -- RunSnapshot -----------------------------------------------------------------------


def test_run_snapshot_builds_its_ledger_once_for_concurrent_callers() -> None:
    layer = ToolErrorLayer()
    replays: list[int] = []
    replay = layer.replay

    def counted(messages: Any, *, run: object | None = None) -> Any:
        replays.append(1)
        return replay(messages, run=run)

    layer.replay = counted  # type: ignore[method-assign]
    snapshot = RunSnapshot(layer, _failed_run())
    ledgers: list[Any] = []
    threads = [threading.Thread(target=lambda: ledgers.append(snapshot.ledger())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert replays == [1] and all(ledger is ledgers[0] for ledger in ledgers)
    assert [f.name for f in ledgers[0].failures] == ["read_file"]


# -- Layers ----------------------------------------------------------------------------


def test_layers_derive_one_layer_per_policy_and_declared_safety() -> None:
    records: list[Any] = []
    base = ToolErrorLayer(Policy(tool_safety={"pay": "unsafe"}), on_record=records.append)
    layers = Layers(base)
    assert layers.get() is base and layers.get(safety={}) is base
    read_only = layers.get(safety={"search": "read_only", "pay": "read_only"})
    assert read_only is layers.get(safety={"pay": "read_only", "search": "read_only"})
    assert read_only.policy.tool_safety["search"] == "read_only"
    assert read_only.policy.tool_safety["pay"] == "unsafe"  # the user's explicit safety wins
    assert read_only.on_record is base.on_record
    assert base.policy.tool_safety == {"pay": "unsafe"}  # never merged into the adapter's policy
    c0 = layers.get(Policy.coerce(form="c0"))
    assert c0.policy.form == "c0" and c0 is layers.get(Policy.coerce(form="c0"))
    base.policy = Policy.coerce(form="c1")  # the adapter's policy changed: derived again
    assert layers.get(safety={"search": "read_only"}).policy.form == "c1"


# -- ConversionCache.get_object ---------------------------------------------------------


class _Item:
    def __init__(self, text: str) -> None:
        self.text = text


def test_conversion_cache_by_object_converts_each_live_object_once() -> None:
    cache = ConversionCache()
    made: list[str] = []

    def make(item: _Item) -> Message:
        made.append(item.text)
        return Message(role="user", content=item.text)

    first, second = _Item("a"), _Item("b")
    one = cache.get_object(first, make)
    assert cache.get_object(first, make) is one and cache.get_object(second, make) is not one
    assert made == ["a", "b"]
    # a changed object is converted again when the caller says so
    first.text = "c"
    assert cache.get_object(first, make, lambda item, m: m.content == item.text).content == "c"
    del first, second
    gc.collect()
    assert len(cache) == 0  # dead objects leave the cache
    assert ConversionCache(0).get_object(_Item("x"), make) is not None and made[-1] == "x"


# -- a verdict carried by the message ----------------------------------------------------


def test_a_verdict_the_message_carries_wins_over_detection_and_memory() -> None:
    layer = ToolErrorLayer()
    carried = failure_of(layer, ConnectionRefusedError(111, "Connection refused")).verdict
    plain = Message(role="tool", content="all good: 3 rows", tool_call_id="c1", name="q")
    assert not layer.inspect(plain).failed
    message = Message(role="tool", content="all good: 3 rows", tool_call_id="c1", name="q", verdict=carried)
    assert message == plain and hash(message) == hash(plain)  # not part of equality
    assert layer.inspect(message) is carried
    messages = [*_failed_run()[:2], Message(role="tool", content="ok", tool_call_id="c1", verdict=carried)]
    [record] = layer.rewrite(messages).records
    assert record.kind == "transient"
