"""The ledger replay continues from a checkpoint when a conversation only grew: the same
ledger and reports as a replay from the start, whatever the conversation does next."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolerr import Message, ToolCall, ToolErrorLayer

RESULTS = [
    "ok: 3 items",
    "Error: ReadTimeout: the service timed out",
    "Error: 429 Too Many Requests",
    "Error: Invalid arguments: item must be a positive integer",
    "Error: PermissionError: [Errno 13] Permission denied: '/etc/x'",
    "done",
]
CALLS = [("lookup", {"item": 1}), ("lookup", {"item": 2}), ("fetch", {"url": "a"}), ("fetch", {"url": "b"})]

step = st.lists(
    st.tuples(st.sampled_from(range(len(CALLS))), st.sampled_from(range(len(RESULTS)))),
    min_size=1,
    max_size=2,
)


def exchange(number: int, picks: list[tuple[int, int]]) -> list[Message]:
    calls = [ToolCall(f"c{number}_{i}", CALLS[c][0], dict(CALLS[c][1])) for i, (c, _) in enumerate(picks)]
    out = [Message("assistant", "", tool_calls=tuple(calls))]
    for call, (_, r) in zip(calls, picks, strict=True):
        out.append(Message("tool", RESULTS[r], tool_call_id=call.id, name=call.name))
    return out


def state(layer: ToolErrorLayer, messages: list[Message]) -> tuple[Any, ...]:
    ledger, reports = layer.replay(messages)
    return reports, ledger.snapshot(), ledger.banned_calls(), ledger.step


def fresh(messages: list[Message], **options: Any) -> tuple[Any, ...]:
    return state(ToolErrorLayer(**options), messages)


common = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@common
@given(st.lists(step, min_size=1, max_size=45), st.integers(1, 4))
def test_a_growing_conversation_replays_as_from_the_start(steps: list[Any], budget: int) -> None:
    layer = ToolErrorLayer(retry_budget=budget)
    messages = [Message("user", "Check the items.")]
    for number, picks in enumerate(steps):
        messages = [*messages, *exchange(number, picks)]  # the same objects, one exchange more
        assert state(layer, messages) == fresh(messages, retry_budget=budget)


@common
@given(st.lists(step, min_size=20, max_size=40), st.data())
def test_an_edited_or_branched_conversation_is_not_mistaken_for_the_old_one(
    steps: list[Any], data: st.DataObject
) -> None:
    layer = ToolErrorLayer()
    messages = [Message("user", "Check the items.")]
    for number, picks in enumerate(steps):
        messages = [*messages, *exchange(number, picks)]
        state(layer, messages)
    # another conversation from the same start: a result replaced in the middle
    edited = list(messages)
    tools = [i for i, m in enumerate(edited) if m.role == "tool"]
    position = data.draw(st.sampled_from(tools[: len(tools) // 2]))
    old = edited[position]
    edited[position] = Message(
        "tool", data.draw(st.sampled_from(RESULTS)), tool_call_id=old.tool_call_id, name=old.name
    )
    assert state(layer, edited) == fresh(edited)
    # a branch that drops the last exchanges and goes another way, then the first again
    branch = [*messages[: len(messages) // 2], *exchange(999, data.draw(step))]
    assert state(layer, branch) == fresh(branch)
    assert state(layer, messages) == fresh(messages)
    # the same conversation with a message before it: indices moved
    shifted = [Message("system", "Be brief."), *messages]
    assert state(layer, shifted) == fresh(shifted)


def test_a_changed_verdict_is_not_reused() -> None:
    """A verdict an adapter remembers later for a replayed call id wins over the checkpoint."""
    from toolerr import Verdict

    layer = ToolErrorLayer()
    messages = [Message("user", "go")]
    for number in range(30):
        messages += exchange(number, [(0, 0)])  # the same call succeeding, 30 times
    state(layer, messages)
    layer.remember("c3_0", Verdict(failed=True, kind="fixable", rule="test"))
    reports, snapshot, banned, _ = state(layer, messages)
    assert [c.call_id for c in banned] == []  # a success after it cleared the entry
    assert (reports, snapshot) == fresh_with(messages, "c3_0")[:2]


def fresh_with(messages: list[Message], call_id: str) -> tuple[Any, ...]:
    from toolerr import Verdict

    layer = ToolErrorLayer()
    layer.remember(call_id, Verdict(failed=True, kind="fixable", rule="test"))
    return state(layer, messages)


def test_checkpoints_are_bounded_and_reused() -> None:
    layer = ToolErrorLayer()
    messages = [Message("user", "go")]
    for number in range(60):
        messages = [*messages, *exchange(number, [(number % 4, 1 if number % 3 else 0)])]
        state(layer, messages)
    assert len(layer._checkpoints) == 1  # each new one extends the last
    assert layer._checkpoints[0].calls == 60 - 16
    runs = []
    for run in range(70):  # concurrent conversations in the shared scope (a gateway's): all kept
        conversation = [Message("user", f"run {run}")]
        for number in range(20):
            conversation = [*conversation, *exchange(number, [(number % 4, 1)])]
            state(layer, conversation)
        runs.append(conversation)
    assert len(layer._checkpoints) == 71  # bounded by memory, not by 64 (issue 29)
    for run in range(12):  # conversations of one run scope: at most 8
        conversation = [Message("user", f"run {run}")]
        for number in range(20):
            conversation = [*conversation, *exchange(number, [(number % 4, 1)])]
            layer.replay(conversation, run="thread-1")
    assert len(layer._runs.get("thread-1").checkpoints) == 8  # type: ignore[union-attr]


def test_checkpoints_keep_no_conversation_alive() -> None:
    import gc
    import weakref

    layer = ToolErrorLayer()
    messages = [Message("user", "go")]
    for number in range(30):
        messages = [*messages, *exchange(number, [(0, 1)])]
    state(layer, messages)
    assert layer._checkpoints
    probe = weakref.ref(messages[3])
    del messages
    gc.collect()
    assert probe() is None
    # a checkpoint whose conversation is gone matches nothing
    again = [Message("user", "go")]
    for number in range(30):
        again = [*again, *exchange(number, [(0, 1)])]
    assert state(layer, again) == fresh(again)
