"""Run isolation, single-result delivery and the serialised shape of verdicts and records."""

from __future__ import annotations

import gc
import threading

import pytest
from toolerr import (
    DetectionRecord,
    Message,
    Policy,
    ToolCall,
    ToolErrorLayer,
    ToolLoopError,
    Verdict,
    rewrite,
)

TIMEOUT = Verdict(failed=True, kind="transient", rule="exception:TimeoutError", detection="exception")


class Run:
    """A framework's per-run object (weakly referable)."""


def _conversation(content: str, call_id: str = "call_0") -> list[Message]:
    return [
        Message(role="user", content="go"),
        Message(role="assistant", tool_calls=(ToolCall(call_id, "read_file", {"path": "/a"}),)),
        Message(role="tool", content=content, tool_call_id=call_id, name="read_file"),
    ]


def test_a_verdict_is_only_recalled_in_its_run() -> None:
    layer = ToolErrorLayer()
    run_a, run_b = Run(), Run()
    layer.remember("call_0", TIMEOUT, "TimeoutError", run=run_a)
    assert layer.recall("call_0", "TimeoutError", run=run_a) == TIMEOUT
    assert layer.recall("call_0", "TimeoutError", run=run_b) is None
    assert layer.recall("call_0", "TimeoutError") is None  # the shared scope is a scope too
    assert layer.recall("call_0", "TimeoutError", run="thread-1") is None


def test_a_remembered_verdict_must_match_its_content() -> None:
    layer = ToolErrorLayer()
    layer.remember("call_0", TIMEOUT, "TimeoutError: read timed out")
    assert layer.recall("call_0", "TimeoutError: read timed out") == TIMEOUT
    assert layer.recall("call_0", "42 files") is None
    # an all-success run B with a colliding id gets no note
    assert rewrite(_conversation("42 files")) == _conversation("42 files")
    assert not layer.rewrite(_conversation("42 files")).changed


def test_a_remembered_verdict_matches_the_whole_content() -> None:
    layer = ToolErrorLayer()
    head = "x" * 10_000
    layer.remember("call_0", TIMEOUT, head + "TimeoutError: read timed out")
    assert layer.recall("call_0", head + "TimeoutError: read timed out") == TIMEOUT
    same_length = head + "200 OK, 15 rows returned."
    assert len(same_length) == len(head + "TimeoutError: read timed out") - 3
    assert layer.recall("call_0", same_length + "...") is None


def test_a_run_reusing_an_id_does_not_evict_another_runs_evidence() -> None:
    layer = ToolErrorLayer()
    run_a, run_b = Run(), Run()
    layer.remember("call_0", TIMEOUT, "boom", run=run_a)
    other = Verdict(failed=True, kind="fixable", rule="errno:ENOENT", detection="exception")
    layer.remember("call_0", other, "boom", run=run_b)
    assert layer.recall("call_0", "boom", run=run_a) == TIMEOUT
    assert layer.recall("call_0", "boom", run=run_b) == other
    # the same run reusing the id for other content keeps both
    layer.remember("call_0", other, "second", run=run_a)
    assert layer.recall("call_0", "boom", run=run_a) == TIMEOUT
    assert layer.recall("call_0", "second", run=run_a) == other


def test_a_run_object_takes_its_state_with_it() -> None:
    layer = ToolErrorLayer()
    run = Run()
    layer.remember("call_0", TIMEOUT, "x", run=run)
    assert len(layer._runs._objects) == 1
    del run
    gc.collect()
    assert layer._runs._objects == {}
    layer.remember("call_0", TIMEOUT, "x", run="key")
    layer.forget_run("key")
    assert layer.recall("call_0", "x", run="key") is None


def test_rewrite_uses_the_runs_own_verdicts() -> None:
    layer = ToolErrorLayer(form="c1")
    run_a, run_b = Run(), Run()
    # run A learned from an exception that "done" was a failure (a tool that printed it and raised)
    layer.remember("call_0", TIMEOUT, "done", run=run_a)
    assert layer.rewrite(_conversation("done"), run=run_a).changed
    assert not layer.rewrite(_conversation("done"), run=run_b).changed


def test_deliver_result_success_passes_through() -> None:
    layer = ToolErrorLayer(form="c1")
    content = [{"type": "text", "text": "42 files"}]
    delivery = layer.deliver_result("list", {"dir": "/"}, content, call_id="c1", run="r")
    assert not delivery.failed and delivery.content is content and not delivery.changed
    assert delivery.record is None and delivery.to_dict()["failed"] is False


def test_deliver_result_c1_is_what_form_c1_gives_in_a_conversation() -> None:
    records: list[DetectionRecord] = []
    layer = ToolErrorLayer(form="c1", on_record=records.append)
    text = "Error: HTTP 400 Bad Request: missing field id"
    delivery = layer.deliver_result("get_user", {"id": 7}, text, call_id="call_0", run="r")
    conversation = [
        Message(role="user", content="go"),
        Message(role="assistant", tool_calls=(ToolCall("call_0", "get_user", {"id": 7}),)),
        Message(role="tool", content=text, tool_call_id="call_0", name="get_user"),
    ]
    expected = ToolErrorLayer(form="c1").rewrite(conversation)
    assert delivery.changed and delivery.content == expected.messages[-1].content
    assert delivery.content == f"{text}\n{delivery.guidance}"
    assert delivery.record is not None and records == [delivery.record]
    assert {**delivery.record.to_dict(), "position": 2} == expected.records[0].to_dict()
    assert delivery.note == expected.records[0].note
    blocks = [{"type": "text", "text": text}]
    listed = ToolErrorLayer(form="c1").deliver_result("get_user", {"id": 7}, blocks, call_id="x")
    assert listed.content == [*blocks, {"type": "text", "text": listed.guidance}]
    c0 = ToolErrorLayer(form="c0").deliver_result("get_user", {"id": 7}, text, call_id="x")
    assert c0.failed and c0.content is text and not c0.changed and c0.c1_content == delivery.content


def test_deliver_result_keeps_the_runs_ledger_for_loops() -> None:
    layer = ToolErrorLayer(form="c1", loop_action="block")
    error = "Error: [Errno 13] Permission denied: '/etc/a.conf'"
    args = {"path": "/etc/a.conf"}
    first = layer.deliver_result("write_file", args, error, call_id="call_0", run="A")
    assert first.failed and first.loop is None
    # run A repeats it: blocked; run B's legitimate write is not, nor B's identical call
    assert layer.check_call("write_file", args, run="A").action == "block"
    assert layer.check_call("write_file", {"path": "/tmp/b.txt"}, run="B").action == "allow"
    assert layer.check_call("write_file", args, run="B").action == "allow"
    # a repeat that ran anyway (loop action note elsewhere) is reported as a loop
    second = layer.deliver_result("write_file", args, error, call_id="call_1", run="A")
    assert second.loop is not None and second.loop.action == "block"
    assert second.record is not None and second.record.repeat == "exact"
    stop = ToolErrorLayer(form="c1", loop_action="stop")
    stop.deliver_result("write_file", args, error, call_id="call_0", run="A")
    with pytest.raises(ToolLoopError):
        stop.check_call("write_file", args, run="A")


def test_deliver_result_retry_budget_and_success_clearing() -> None:
    layer = ToolErrorLayer(form="c1", retry_budget=1)
    timeout = "Error: TimeoutError: the read timed out"
    kinds = [
        layer.deliver_result("fetch", {"u": 1}, timeout, call_id=f"c{i}", run="A").kind for i in range(3)
    ]
    assert kinds[0] == "transient" and kinds[-1] == "unrecoverable"
    # another run starts with its own budget
    assert layer.deliver_result("fetch", {"u": 1}, timeout, call_id="c0", run="B").kind == "transient"
    layer.deliver_result("fetch", {"u": 1}, "ok", call_id="c9", run="A")
    assert layer.deliver_result("fetch", {"u": 1}, timeout, call_id="c10", run="A").kind == "transient"


def test_deliver_result_concurrent_runs_are_independent() -> None:
    layer = ToolErrorLayer(form="c1", loop_action="block")
    alone = ToolErrorLayer(form="c1", loop_action="block")
    expected = [
        alone.deliver_result(
            "t", {"i": i % 2}, f"Error: HTTP 429 Too Many Requests {i % 2}", call_id=f"call_{i}", run="solo"
        ).content
        for i in range(20)
    ]
    results: dict[int, list[object]] = {}
    barrier = threading.Barrier(8)

    def run(n: int) -> None:
        scope = Run()
        barrier.wait()
        results[n] = [
            layer.deliver_result(
                "t",
                {"i": i % 2},
                f"Error: HTTP 429 Too Many Requests {i % 2}",
                call_id=f"call_{i}",
                run=scope,
            ).content
            for i in range(20)
        ]

    threads = [threading.Thread(target=run, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(result == expected for result in results.values())


def test_serialised_shape_round_trips() -> None:
    verdict = Verdict(
        failed=True,
        kind="transient",
        rule="http:429",
        detection="flag:is_error",
        outcome="not_executed",
        family="http.429",
        retry_after=2.0,
        status=429,
    )
    assert Verdict.from_dict(verdict.to_dict()) == verdict
    assert list(verdict.to_dict()) == [
        "failed",
        "kind",
        "rule",
        "detection",
        "outcome",
        "family",
        "retry_after",
        "status",
    ]
    with pytest.raises(ValueError):
        Verdict.from_dict({"kind": "fixable"})
    with pytest.raises(ValueError):
        Verdict.from_dict({"failed": True, "kind": "weird"})
    delivery = ToolErrorLayer(form="c1").deliver_result(
        "get", {}, "Error: HTTP 429 Too Many Requests", call_id="a"
    )
    assert delivery.record is not None
    data = delivery.record.to_dict()
    assert set(verdict.to_dict()) <= set(data) and data["guidance"] == delivery.guidance
    back = DetectionRecord.from_dict(data)
    assert back == delivery.record and back.verdict == delivery.verdict


def test_policy_options_are_typed_once() -> None:
    from toolerr import PolicyOptions
    from toolerr.adapters import POLICY_OPTIONS

    assert set(POLICY_OPTIONS) == {
        "form",
        "profile",
        "retry_budget",
        "loop_action",
        "tool_safety",
        "max_error_chars",
        "error_detail",
        "idempotency_guard",
        "auto_retry",
        "max_wait",
        "quarantine_chars",
        "quarantine_lines",
        "result_store",
        "quarantine_successes",
        "progress",
        "progress_cwd",
        "progress_window",
        "same_result_repeats",
        "on_loop",
    }
    options: PolicyOptions = {"form": "c1", "loop_action": "block"}
    layer = ToolErrorLayer(Policy(retry_budget=1), **options)
    assert (layer.policy.form, layer.policy.loop_action, layer.policy.retry_budget) == ("c1", "block", 1)


def test_conversation_run_follows_one_conversation() -> None:
    from toolerr.adapters import ConversationRun

    first = _conversation("Error: HTTP 400 Bad Request", "call_0")
    start = ConversationRun.follow(None, first[:1])
    run = ConversationRun.follow(start, first)
    assert run is start  # the conversation grew: the same run
    grown = [*first, Message(role="assistant", tool_calls=(ToolCall("call_1", "read_file", {}),))]
    grown.append(Message(role="tool", content="ok", tool_call_id="call_1"))
    assert ConversationRun.follow(run, grown) is run
    other = _conversation("fine", "call_1")  # another run in the same context
    assert ConversationRun.follow(run, other) is not run
    assert ConversationRun.follow(run, first[:1]) is not run  # no tool result: a new run


def test_deliver_result_parses_raw_arguments_and_reports_repeats() -> None:
    layer = ToolErrorLayer(form="c1")
    error = "Error: HTTP 400 Bad Request: missing field id"
    first = layer.deliver_result("get", None, error, raw_arguments='{"a": 1}', call_id="c0", run="r")
    again = layer.deliver_result("get", {"a": 1}, error, call_id="c1", run="r")
    assert not first.repeats and again.repeats and again.record is not None
    assert again.record.repeat == "exact"


def test_conversion_cache_reuses_by_content() -> None:
    from toolerr.adapters import ConversionCache

    cache = ConversionCache(size=3)
    made: list[int] = []

    def make(n: int) -> Message:
        made.append(n)
        return Message(role="user", content=str(n))

    first = cache.get((0, {"content": [{"text": "a"}]}), make, 1)
    assert cache.get((0, {"content": [{"text": "a"}]}), make, 2) is first
    assert cache.get((0, {"content": [{"text": "b"}]}), make, 3) is not first
    assert cache.get((0, {"x": 1}), make, 4) is not cache.get((0, {"x": True}), make, 5)
    assert cache.get((0, object.__new__(type("Unhashable", (), {"__hash__": None}))), make, 6).content == "6"
    assert made == [1, 3, 4, 5, 6] and len(cache) <= 3
