"""The replay continues from the longest checkpointed prefix and pairs and inspects only the
calls after it: the same ledger, reports and rewrite as a replay from the start, in every
run scope, however the conversation changed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_replay_checkpoints import RESULTS, exchange, step
from toolerr import Message, ToolCall, ToolErrorLayer, Verdict

TAIL = 16  # calls at the end of a conversation that every replay replays (the layer's _REPLAY_TAIL)


class CountingLayer(ToolErrorLayer):
    """A layer that counts the tool results it inspects (the replay asks ``inspect`` for
    every result it pairs)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.inspected: list[str | None] = []

    def inspect(self, message: Message, *, run: object | None = None, arguments: Any = None) -> Verdict:
        self.inspected.append(message.tool_call_id)
        return super().inspect(message, run=run, arguments=arguments)


class Run:
    """A framework's per-run object."""


def state(layer: ToolErrorLayer, messages: list[Message], run: object | None = None) -> tuple[Any, ...]:
    ledger, reports = layer.replay(messages, run=run)
    return reports, ledger.snapshot(), ledger.banned_calls(), ledger.step


def rewritten(layer: ToolErrorLayer, messages: list[Message], run: object | None = None) -> tuple[Any, ...]:
    result = layer.rewrite(messages, run=run)
    return result.messages, result.records, result.changed


def cold(
    messages: list[Message], remembered: Sequence[tuple[str, Verdict, str]] = (), run: object | None = None
) -> tuple[Any, ...]:
    """The state of a replay from the start: a new layer with only these verdicts remembered."""
    layer = ToolErrorLayer()
    for call_id, verdict, content in remembered:
        layer.remember(call_id, verdict, content, run=run)
    return state(layer, messages, run=run)


def grow(count: int, picks: list[tuple[int, int]] | None = None, first: int = 0) -> list[Message]:
    messages = [Message("user", "Check the items.")]
    for number in range(first, first + count):
        messages += exchange(number, picks or [(number % 4, 1 if number % 3 else 0)])
    return messages


def warm(layer: ToolErrorLayer, messages: list[Message], run: object | None = None) -> None:
    """Replay every prefix that ends with an exchange, as an agent's model calls would."""
    ends = [i for i in range(1, len(messages) + 1) if i == len(messages) or messages[i].role == "assistant"]
    for end in ends:
        layer.replay(messages[:end], run=run)


common = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- (a) the same output as a cold replay ----------------------------------------------


@common
@given(st.lists(step, min_size=18, max_size=40), st.data(), st.integers(1, 4))
def test_truncated_and_regrown_conversations_replay_as_from_the_start(
    steps: list[Any], data: st.DataObject, budget: int
) -> None:
    layer = ToolErrorLayer(retry_budget=budget, form="c1")
    messages = [Message("user", "Check the items.")]
    for number, picks in enumerate(steps):
        messages = [*messages, *exchange(number, picks)]
        layer.replay(messages)
    # the agent's state restored to an earlier point (a retry, a checkpointed thread), then on
    cut = data.draw(st.integers(2, len(messages) - 1))
    truncated = messages[:cut]
    assert state(layer, truncated) == state(ToolErrorLayer(retry_budget=budget), truncated)
    assert rewritten(layer, truncated) == rewritten(ToolErrorLayer(retry_budget=budget, form="c1"), truncated)
    regrown = [*truncated, *exchange(500, data.draw(step)), *exchange(501, data.draw(step))]
    assert state(layer, regrown) == state(ToolErrorLayer(retry_budget=budget), regrown)
    assert rewritten(layer, regrown) == rewritten(ToolErrorLayer(retry_budget=budget, form="c1"), regrown)
    # the original again: still the same as from the start
    assert state(layer, messages) == state(ToolErrorLayer(retry_budget=budget), messages)


@common
@given(st.lists(step, min_size=18, max_size=40), st.data())
def test_reordered_or_edited_conversations_replay_as_from_the_start(
    steps: list[Any], data: st.DataObject
) -> None:
    layer = ToolErrorLayer(form="c3")
    messages = [Message("user", "Check the items.")]
    for number, picks in enumerate(steps):
        messages = [*messages, *exchange(number, picks)]
        layer.replay(messages)
    starts = [i for i, m in enumerate(messages) if m.role == "assistant"]
    # two exchanges swapped (the same objects, in another order)
    a, b = sorted(data.draw(st.lists(st.sampled_from(starts[:-1]), min_size=2, max_size=2, unique=True)))
    a_end = starts[starts.index(a) + 1]
    b_end = starts[starts.index(b) + 1]
    swapped = [*messages[:a], *messages[b:b_end], *messages[a_end:b], *messages[a:a_end], *messages[b_end:]]
    assert state(layer, swapped) == state(ToolErrorLayer(), swapped)
    assert rewritten(layer, swapped) == rewritten(ToolErrorLayer(form="c3"), swapped)
    # a result of an early exchange replaced by another (same call id, other content)
    tools = [i for i, m in enumerate(messages) if m.role == "tool"]
    position = data.draw(st.sampled_from(tools[: len(tools) // 2]))
    edited = list(messages)
    old = edited[position]
    content = data.draw(st.sampled_from(RESULTS))
    edited[position] = Message("tool", content, tool_call_id=old.tool_call_id, name=old.name)
    assert state(layer, edited) == state(ToolErrorLayer(), edited)
    assert rewritten(layer, edited) == rewritten(ToolErrorLayer(form="c3"), edited)
    # an early result moved after the next assistant message: it no longer pairs there
    after = next(i for i in starts if i > position)
    moved = [
        *messages[:position],
        *messages[position + 1 : after + 1],
        messages[position],
        *messages[after + 1 :],
    ]
    assert state(layer, moved) == state(ToolErrorLayer(), moved)


def test_a_result_added_to_the_exchange_before_a_checkpoint_is_replayed() -> None:
    """The exchange just before a checkpoint's end gets its missing result: that exchange
    now crosses the end, so the checkpoint does not cover the conversation."""
    layer = CountingLayer()
    messages = [Message("user", "go")]
    for number in range(40):  # two calls per exchange, the second one's result still missing
        calls = (
            ToolCall(f"a{number}", "lookup", {"item": number}),
            ToolCall(f"b{number}", "fetch", {"n": number}),
        )
        messages += [
            Message("assistant", "", tool_calls=calls),
            Message("tool", "ok: 3 items", tool_call_id=f"a{number}", name="lookup"),
        ]
    warm(layer, messages)
    end = layer._checkpoints[-1].end
    before = max(i for i in range(end) if messages[i].role == "assistant")
    late = Message("tool", "Error: 429 Too Many Requests", tool_call_id=messages[before].tool_calls[1].id)
    crossing = [*messages[:end], late, *messages[end:]]
    assert state(layer, crossing) == state(ToolErrorLayer(), crossing)
    assert state(layer, crossing)[1]["failures"]


def test_equal_but_new_message_objects_are_replayed_from_the_start() -> None:
    """A checkpoint is found by the identity of the messages (frozen, so the same object is
    the same content); equal copies are replayed in full, with the same result."""
    layer = CountingLayer()
    messages = grow(60)
    warm(layer, messages)
    copies = [Message(m.role, m.content, m.tool_calls, m.tool_call_id, m.name) for m in messages]
    layer.inspected.clear()
    assert state(layer, copies) == state(ToolErrorLayer(), copies)
    assert len(layer.inspected) == 60


# -- (b) only the tail is paired and inspected -----------------------------------------


@pytest.mark.parametrize("length", [40, 400])
def test_a_growing_conversation_inspects_only_the_new_tail(length: int) -> None:
    layer = CountingLayer()
    messages = grow(length)
    warm(layer, messages)
    counts = []
    for number in range(length, length + 5):  # the next model calls, one exchange more each
        messages = [*messages, *exchange(number, [(number % 4, 1)])]
        layer.inspected.clear()
        assert state(layer, messages) == state(ToolErrorLayer(), messages)
        counts.append(len(layer.inspected))
    # the previous call's checkpoint sits TAIL calls before its end: TAIL + 1 calls after it
    assert counts == [TAIL + 1] * 5
    assert set(layer.inspected) == {f"c{n}_0" for n in range(length + 4 - TAIL, length + 5)}


def test_a_decision_step_with_parallel_calls_inspects_only_the_tail() -> None:
    layer = CountingLayer(form="c3")
    messages = grow(100, [(0, 0), (2, 2)])  # two calls per exchange, the second one a 429
    warm(layer, messages)
    messages = [*messages, *exchange(100, [(1, 1), (3, 3)])]
    layer.inspected.clear()
    result = layer.rewrite(messages)
    assert result.changed
    assert rewritten(ToolErrorLayer(form="c3"), messages) == (result.messages, result.records, True)
    # the decision step's two results, then the replay: the calls after the checkpoint (16 + 2)
    assert len(layer.inspected) == 2 + TAIL + 2


def test_a_short_conversation_is_replayed_in_full() -> None:
    layer = CountingLayer()
    messages = grow(TAIL)
    warm(layer, messages)
    layer.inspected.clear()
    layer.replay(messages)
    assert len(layer.inspected) == TAIL  # no checkpoint leaves TAIL calls after it


def test_a_verdict_remembered_for_an_earlier_result_resumes_from_the_start() -> None:
    layer = CountingLayer()
    messages = grow(60, [(0, 0)])  # the same call succeeding 60 times
    warm(layer, messages)
    verdict = Verdict(failed=True, kind="fixable", rule="test")
    layer.remember("c10_0", verdict, "ok: 3 items")  # what c10_0 returned: it concerns the prefix
    layer.inspected.clear()
    remembered = [("c10_0", verdict, "ok: 3 items")]
    assert state(layer, messages) == cold(messages, remembered)
    assert len(layer.inspected) == 60
    # the checkpoint made now holds the verdict: the next call is warm again
    messages = [*messages, *exchange(60, [(0, 0)])]
    layer.inspected.clear()
    assert state(layer, messages) == cold(messages, remembered)
    assert len(layer.inspected) == TAIL + 1


def test_a_colliding_id_with_other_content_keeps_the_checkpoint() -> None:
    """Models that number calls ``call_0`` each turn: a verdict remembered for this turn's
    ``call_0`` (other content) does not concern the earlier ones; one for the same
    content does."""
    layer = CountingLayer()
    messages = [Message("user", "go")]
    for number in range(40):
        call = ToolCall("call_0", "lookup", {"item": number})
        messages += [
            Message("assistant", "", tool_calls=(call,)),
            Message("tool", f"item {number}: 3 rows", tool_call_id="call_0", name="lookup"),
        ]
    warm(layer, messages)
    verdict = Verdict(failed=True, kind="transient", rule="test")
    layer.remember("call_0", verdict, "TimeoutError: read timed out")  # this turn's failure
    layer.inspected.clear()
    grown = [
        *messages,
        Message("assistant", "", tool_calls=(ToolCall("call_0", "lookup", {"item": 99}),)),
        Message("tool", "TimeoutError: read timed out", tool_call_id="call_0", name="lookup"),
    ]
    remembered = [("call_0", verdict, "TimeoutError: read timed out")]
    assert state(layer, grown) == cold(grown, remembered)
    assert len(layer.inspected) == TAIL + 1
    layer.remember("call_0", verdict, "item 7: 3 rows")  # now an earlier result's content
    remembered.append(("call_0", verdict, "item 7: 3 rows"))
    layer.inspected.clear()
    assert state(layer, grown) == cold(grown, remembered)
    assert state(layer, grown)[1]["failures"]  # item 7's call is in the ledger
    assert len(layer.inspected) > TAIL + 1


def test_many_verdicts_remembered_since_a_checkpoint_make_it_unusable() -> None:
    layer = CountingLayer()
    messages = grow(40)
    warm(layer, messages)
    for number in range(5000):  # more changes than a run logs
        layer.remember(f"other_{number}", Verdict(failed=True, kind="fixable"), "x")
    messages = [*messages, *exchange(40, [(0, 1)])]
    layer.inspected.clear()
    assert state(layer, messages) == state(ToolErrorLayer(), messages)
    assert len(layer.inspected) == 41


# -- (c) runs stay isolated ------------------------------------------------------------


def test_a_checkpoint_of_one_run_is_never_used_by_another() -> None:
    """Two runs with the very same message objects (an adapter's conversion cache shares
    them) and colliding call ids; run A learned from an exception that an early result
    was a failure. Each run's replay is its own cold replay, whatever ran before."""
    layer = CountingLayer()
    run_a, run_b = Run(), Run()
    messages = grow(60, [(0, 0)])
    verdict = Verdict(failed=True, kind="fixable", rule="exception:ValueError", detection="exception")
    layer.remember("c5_0", verdict, "ok: 3 items", run=run_a)
    warm(layer, messages, run=run_a)
    remembered = [("c5_0", verdict, "ok: 3 items")]
    expected_a = cold(messages, remembered, run_a)
    expected_b = state(ToolErrorLayer(), messages, run=run_b)
    assert expected_a != expected_b
    layer.inspected.clear()
    assert state(layer, messages, run=run_b) == expected_b
    assert len(layer.inspected) == 60  # run A's checkpoints are not run B's
    assert state(layer, messages, run=run_a) == expected_a
    assert state(layer, messages, run="thread-b") == expected_b  # a keyed run
    assert state(layer, messages) == expected_b  # the shared scope is a run scope too
    # a verdict run B remembers later for the same id and content does not reach run A
    layer.remember("c6_0", verdict, "ok: 3 items", run=run_b)
    grown = [*messages, *exchange(60, [(0, 0)])]
    layer.inspected.clear()
    assert state(layer, grown, run=run_a) == cold(grown, remembered, run_a)
    assert len(layer.inspected) == TAIL + 1  # and does not invalidate run A's checkpoint


def test_a_forgotten_run_takes_its_checkpoints_with_it() -> None:
    layer = CountingLayer()
    messages = grow(40)
    warm(layer, messages, run="thread-1")
    assert layer._runs.get("thread-1", create=False).checkpoints  # type: ignore[union-attr]
    layer.forget_run("thread-1")
    layer.inspected.clear()
    assert state(layer, messages, run="thread-1") == state(ToolErrorLayer(), messages)
    assert len(layer.inspected) == 40


def test_a_remembered_verdict_evicted_since_a_checkpoint_makes_it_unusable() -> None:
    """A run keeps its latest 4,096 remembered verdicts: one evicted after a checkpoint used
    it no longer applies (a replay from the start does not see it), so neither does the
    checkpoint (the eviction is a change of that call's verdict)."""
    layer = CountingLayer()
    messages = grow(60, [(0, 0)])
    verdict = Verdict(failed=True, kind="fixable", rule="test")
    layer.remember("c10_0", verdict, "ok: 3 items")  # the oldest of the run's verdicts
    for number in range(4095):  # the run's verdicts are full
        layer.remember(f"other_{number}", verdict, "x")
    warm(layer, messages)
    assert state(layer, messages) == cold(messages, [("c10_0", verdict, "ok: 3 items")])
    layer.remember("other_4095", verdict, "x")  # evicts c10_0's verdict
    assert layer.recall("c10_0", "ok: 3 items") is None
    grown = [*messages, *exchange(60, [(0, 0)])]
    assert state(layer, grown) == cold(grown)


def test_a_gateways_interleaved_conversations_each_inspect_only_their_tail() -> None:
    """Forty conversations served alternately in the shared scope (a gateway's hook): each
    request of each one resumes from its own checkpoint."""
    layer = CountingLayer()
    conversations = [grow(30, first=100 * c) for c in range(40)]
    for conversation in conversations:
        warm(layer, conversation)
    for turn in range(3):
        for c, conversation in enumerate(conversations):
            number = 100 * c + 30 + turn
            conversations[c] = conversation = [*conversation, *exchange(number, [(number % 4, 1)])]
            layer.inspected.clear()
            assert state(layer, conversation) == state(ToolErrorLayer(), conversation)
            assert len(layer.inspected) == TAIL + 1
