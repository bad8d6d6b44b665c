"""A gateway's failing step resumed by content (``toolerr._wire_resume``, issue 29): only the
tail converted and replayed from a compact checkpoint found by the digest of the raw
prefix, with the very answer of the same gateway converting each request whole; the paths
where it could differ go the full way."""

from __future__ import annotations

import copy
import json
import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_shared_state import DictStore, settle, sharing
from toolerr import ToolErrorLayer, ToolLoopError, _wire_base, rewrite_wire
from toolerr._wire_resume import ResumeStore

LONG = (
    "Traceback (most recent call last):\n" + "  File 'x.py', line 1, in f\n" * 400 + "ValueError: bad row\n"
)
RESULTS: list[Any] = [
    "ok: 3 items",
    "Error: ReadTimeout: the service timed out",
    "Error: HTTP 429 Too Many Requests",
    "Error: Invalid arguments: item must be a positive integer",
    "Error: PermissionError: [Errno 13] Permission denied: '/etc/x'",
    "done",
    LONG,  # over the quarantine limit
    [{"type": "text", "text": "Error: HTTP 503 Service Unavailable"}],  # content parts
]
CALLS = [
    ("lookup", {"item": 1}),
    ("lookup", {"item": 2}),
    ("fetch", {"url": "a"}),
    ("fetch", {"url": "b"}),
    ("read_file", {"path": "src/x.py"}),
]

step = st.lists(
    st.tuples(st.sampled_from(range(len(CALLS))), st.sampled_from(range(len(RESULTS)))),
    min_size=1,
    max_size=3,
)


def wire_step(number: int, picks: list[tuple[int, int]], ids: str) -> list[dict[str, Any]]:
    # ``ids``: "own" (unique), "colliding" (call_0 each turn, as agents do)
    calls = []
    for i, (c, _) in enumerate(picks):
        call_id = f"call_{i}" if ids == "colliding" else f"c{number}_{i}"
        name, arguments = CALLS[c]
        calls.append(
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        )
    out: list[dict[str, Any]] = [{"role": "assistant", "content": None, "tool_calls": calls}]
    for call, (_, r) in zip(calls, picks, strict=True):
        out.append({"role": "tool", "tool_call_id": call["id"], "content": copy.deepcopy(RESULTS[r])})
    return out


def whole(**options: Any) -> ToolErrorLayer:
    """A layer that never resumes by content: it converts each request whole."""
    layer = ToolErrorLayer(**options)
    layer._resume_store = ResumeStore(0)
    return layer


def answer(layer: ToolErrorLayer, request: list[Any]) -> Any:
    """What a gateway sends on: the request, whether it changed, the records; or the loop error."""
    try:
        done = rewrite_wire("openai-chat", json.loads(json.dumps(request)), layer=layer)
    except ToolLoopError as error:
        return ("stop", str(error))
    return (
        json.dumps(done.request, sort_keys=True),
        done.changed,
        [json.dumps(r.to_dict(), sort_keys=True, default=str) for r in done.records],
        done.error,
    )


OPTIONS = st.fixed_dictionaries(
    {
        "form": st.sampled_from(["c0", "c1", "c2", "c3", "c4", "abstract"]),
        "retry_budget": st.integers(1, 4),
        "loop_action": st.sampled_from(["note", "block", "stop"]),
        "error_detail": st.sampled_from(["full", "safe", "none"]),
        "same_result_repeats": st.sampled_from([0, 2, 3]),
        "quarantine_chars": st.sampled_from([0, 2_000, 8_000]),
    }
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(
    st.lists(step, min_size=18, max_size=40),
    st.lists(step, min_size=1, max_size=12),
    OPTIONS,
    st.sampled_from(["own", "colliding"]),
    st.integers(0, 3),
    st.lists(st.integers(0, 60), max_size=4),
)
def test_a_gateway_answers_each_request_as_a_fresh_layer_does(
    steps: list[Any], branch: list[Any], options: dict[str, Any], ids: str, clear_every: int, again: list[int]
) -> None:
    gateway, reference = ToolErrorLayer(**options), whole(**options)
    trunk: list[dict[str, Any]] = [{"role": "user", "content": "Check the items."}]
    requests = []
    for number, picks in enumerate(steps):
        trunk = [*trunk, *wire_step(number, picks, ids)]
        requests.append(trunk)
    other = requests[len(requests) // 2]  # a conversation that diverges from the trunk's prefix
    for number, picks in enumerate(branch, start=100):
        other = [*other, {"role": "user", "content": f"and {number}"}, *wire_step(number, picks, ids)]
        requests.append(other)
    # then earlier requests again (a client that rolled its conversation back, a retry): the
    # newest checkpoints lie beyond their end or leave fewer calls after them than a replay needs
    requests += [requests[(len(requests) - 1) * n // 60] for n in again]
    for position, request in enumerate(requests):
        if clear_every and position % clear_every == 0:
            _wire_base.CACHE.clear()  # the conversion cache evicted: checkpoints by identity gone
        got = answer(gateway, request)
        assert got == answer(reference, request), position
        if not options["same_result_repeats"] and not options["quarantine_chars"]:
            # without the same-result check and the quarantine (whose cheap pre-checks for a
            # step that did not fail read what the layer saw before: the results seen, a
            # result quarantined) a fresh layer gives the same answer: nothing is kept across
            # requests for correctness
            assert got == answer(ToolErrorLayer(**options), request), position


def long_conversation(turns: int, failing_every: int = 3) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Fix the failing test."}]
    for turn in range(turns):
        failed = turn % failing_every == 1 or turn == turns - 1
        messages += wire_step(turn, [(turn % 4, 2 if failed else 0)], "colliding")
    return messages


def test_a_failing_step_resumes_from_the_checkpoint_of_its_prefix_without_the_conversion_cache() -> None:
    gateway = ToolErrorLayer()
    for turns in range(30, 60):
        _wire_base.CACHE.clear()  # as when 10,000 conversations outgrow it
        request = long_conversation(turns)
        assert answer(gateway, request) == answer(ToolErrorLayer(), request)
    store = gateway._resume_store
    assert store is not None
    assert store.stats["resumed"] == 29  # every failing step after the first sight
    assert store.stats["full"] == 1
    assert len(store) == 1  # each checkpoint replaces the one it extends
    assert store.weight < 8_000


def test_a_prefix_that_differs_by_one_byte_finds_no_checkpoint() -> None:
    gateway = ToolErrorLayer()
    request = long_conversation(40)
    answer(gateway, request)
    edited = json.loads(json.dumps(long_conversation(41)))
    assert edited[4]["role"] == "tool"
    edited[4]["content"] += " "  # an earlier result, changed in place by the client
    assert answer(gateway, edited) == answer(ToolErrorLayer(), edited)
    assert gateway._resume_store is not None and gateway._resume_store.stats["resumed"] == 0


def test_checkpoints_are_bounded_by_bytes() -> None:
    gateway = ToolErrorLayer()
    for conv in range(40):
        request = long_conversation(30 + conv % 3)
        request[0] = {"role": "user", "content": f"conversation {conv}"}
        answer(gateway, request)
    store = gateway._resume_store
    assert store is not None and len(store) == 40
    store.budget = store.weight // 2
    request = long_conversation(30)
    request[0] = {"role": "user", "content": "one more"}
    answer(gateway, request)
    assert store.weight <= store.budget and 15 <= len(store) <= 25  # the least recent went


def test_a_long_failed_result_before_the_checkpoint_is_quarantined_as_the_full_path_does(
    tmp_path: Any,
) -> None:
    options = {"quarantine_chars": 2_000, "result_store": str(tmp_path)}
    gateway, reference = ToolErrorLayer(**options), whole(**options)
    for turns in range(30, 40):
        request = long_conversation(turns)
        request[4]["content"] = LONG  # a failed result far back (a traceback)
        request[6]["content"] = "x" * 3_000  # and a long success: neither cut nor resumed past
        request[8]["content"] = [{"type": "text", "text": "Error: HTTP 503 Service Unavailable"}]
        got = answer(gateway, request)
        assert got == answer(reference, request)
        sent = json.loads(got[0])
        assert len(sent[4]["content"]) < len(LONG) and "ValueError: bad row" in sent[4]["content"]
        assert sent[6]["content"] == "x" * 3_000
    assert gateway._resume_store is not None and gateway._resume_store.stats["resumed"] == 9


@pytest.mark.parametrize("case", ["probes", "remembered", "success at the step"])
def test_the_paths_that_could_differ_go_the_full_way(case: str, tmp_path: Any) -> None:
    options: dict[str, Any] = {}
    if case == "probes":
        options["progress"] = lambda: "same"
    gateway = ToolErrorLayer(**options)
    fresh = ToolErrorLayer(**options)
    for turns in range(30, 34):
        request = long_conversation(turns)
        if case == "success at the step":
            request = [*request, *wire_step(99, [(0, 2), (1, 0)], "own")]
        if case == "remembered":
            for layer in (gateway, fresh):
                layer.remember("call_0", fresh.inspect_tool_result("lookup", "Error: HTTP 404 Not Found"))
        assert answer(gateway, request) == answer(fresh, request)
    store = gateway._resume_store
    assert store is None or store.stats["resumed"] == 0


def test_a_corrupt_checkpoint_is_ignored_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    gateway = ToolErrorLayer()
    answer(gateway, long_conversation(40))
    store = gateway._resume_store
    assert store is not None
    for digest in list(store._items):
        store._items[digest] = b'{"format": "nonsense"'
    request = long_conversation(41)
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        assert answer(gateway, request) == answer(ToolErrorLayer(), request)
    assert store.stats["resumed"] == 0


def test_a_rolled_back_conversation_replays_the_calls_at_its_end_in_full() -> None:
    # successful calls of a tool that never failed are replayed only near the end (where
    # cycles are looked for): a checkpoint that leaves fewer calls after it must not be used
    def conversation(turns: int) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Look the items up."}]
        for turn in range(turns):
            # lookup 1 (never fails), fetch a (a 429), lookup 1, fetch a ...: a cycle
            messages += wire_step(turn, [(2, 2)] if turn % 2 else [(0, 0)], "own")
        return [*messages, *wire_step(turns, [(2, 2)], "own")]

    for action in ("note", "block", "stop"):
        gateway, reference = ToolErrorLayer(loop_action=action), whole(loop_action=action)
        for turns in [*range(30, 50), 40, 36, 47, 33]:
            request = conversation(turns)
            assert answer(gateway, request) == answer(reference, request), (action, turns)
        resumed = gateway._resume_store.stats["resumed"] if gateway._resume_store is not None else 0
        assert resumed >= 19 or action == "stop"  # stop: the first failing step ends the run


def test_with_a_shared_store_the_first_sight_writes_it_and_later_steps_resume() -> None:
    backend = DictStore()
    first, second = sharing(backend), sharing(backend)  # two gateway instances, one Redis
    reference = whole()
    for turns in range(30, 40):
        request = long_conversation(turns)
        instance = first if turns % 2 else second  # the requests alternate between them
        assert answer(instance, request) == answer(reference, request)
        settle(instance)
        if turns == 30:
            assert backend.values  # the first sight wrote its checkpoint
    # the other instance's first sight continued from it; every later step resumed
    assert first.shared_checkpoints is not None and first.shared_checkpoints.stats["hits"] == 1
    for layer in (first, second):
        assert layer._resume_store is not None and layer._resume_store.stats["resumed"] == 4


def test_junk_items_in_a_request_are_read_as_the_full_path_reads_them(
    caplog: pytest.LogCaptureFixture,
) -> None:
    gateway, reference = ToolErrorLayer(), whole()
    for turns in range(30, 34):
        request: list[Any] = long_conversation(turns)
        request.insert(1, None)  # not a message: the conversion reads it as an empty system turn
        with caplog.at_level(logging.WARNING, logger="toolerr"):
            assert answer(gateway, request) == answer(reference, request)
    assert not [r for r in caplog.records if "resuming by content failed" in r.getMessage()]
