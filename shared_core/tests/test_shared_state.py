"""Replay checkpoints shared between processes (``toolerr.adapters.SharedCheckpoints``):
a layer that sees a conversation for the first time continues from a checkpoint another
layer kept (a gateway's other process), with the same ledger, reports and rewrite as a
replay from the start; a store that fails, is slow, or holds garbage changes nothing but
the cost, and is logged."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_replay_checkpoints import exchange, step
from test_replay_tail import CountingLayer, grow, state
from toolerr import FailureLedger, Message, ToolErrorLayer
from toolerr._shared_state import chain_digests, message_digest
from toolerr.adapters import SharedCheckpoints


class DictStore:
    """A store in a dict (what ``redis`` is to processes, to layers here)."""

    def __init__(self) -> None:
        self.values: dict[str, bytes] = {}
        self.reads: list[list[str]] = []

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        self.reads.append(list(keys))
        return [self.values.get(k) for k in keys]

    def set(self, key: str, value: bytes, ttl: int) -> None:
        assert ttl == 3600
        self.values[key] = value


def sharing(store: Any, layer_type: type[ToolErrorLayer] = ToolErrorLayer, **options: Any) -> Any:
    layer = layer_type(**options)
    shared = store if isinstance(store, SharedCheckpoints) else SharedCheckpoints(store, min_calls=1)
    layer.shared_checkpoints = shared
    return layer


def settle(layer: ToolErrorLayer) -> None:
    assert layer.shared_checkpoints is not None
    layer.shared_checkpoints.flush()


def test_a_first_sight_continues_from_another_layers_checkpoint() -> None:
    store = DictStore()
    first, second = sharing(store), sharing(store, CountingLayer)
    messages = grow(60)
    first.replay(messages[:-4])  # the conversation's earlier request, on the other process
    settle(first)
    assert store.values
    assert state(second, messages) == state(ToolErrorLayer(), messages)
    assert second.shared_checkpoints.stats["hits"] == 1
    # only the calls after the shared checkpoint were inspected (the tail and the new ones)
    assert 16 <= len(second.inspected) <= 16 + 6
    # and the checkpoint is now its own: the next request does not read the store again
    reads = len(store.reads)
    grown = [*messages, *exchange(61, [(0, 1)])]
    assert state(second, grown) == state(ToolErrorLayer(), grown)
    assert len(store.reads) == reads


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(step, min_size=18, max_size=45), st.integers(1, 4), st.data())
def test_alternating_layers_replay_as_from_the_start(
    steps: list[Any], budget: int, data: st.DataObject
) -> None:
    store = DictStore()
    layers = [sharing(store, retry_budget=budget) for _ in range(3)]
    messages = [Message("user", "Check the items.")]
    for number, picks in enumerate(steps):
        messages = [*messages, *exchange(number, picks)]
        layer = layers[data.draw(st.integers(0, 2))]
        result = layer.rewrite(messages)
        settle(layer)
        expected = ToolErrorLayer(retry_budget=budget).rewrite(messages)
        assert (result.messages, result.records, result.changed) == (
            expected.messages,
            expected.records,
            expected.changed,
        )
        assert state(layer, messages) == state(ToolErrorLayer(retry_budget=budget), messages)


def test_a_ledger_survives_its_state_round_trip() -> None:
    layer = ToolErrorLayer(retry_budget=1)
    messages = grow(40)
    ledger, _ = layer.replay(messages)
    again = FailureLedger.from_state(json.loads(json.dumps(ledger.to_state())))
    assert again.to_state() == ledger.to_state()
    assert (again.snapshot(), again.banned_calls(), again.step) == (
        ledger.snapshot(),
        ledger.banned_calls(),
        ledger.step,
    )
    call = messages[-2].tool_calls[0]
    assert again.check(call.name, call.arguments) == ledger.check(call.name, call.arguments)


def test_another_policy_never_reads_a_checkpoint_it_did_not_write() -> None:
    store = DictStore()
    writer = sharing(store, retry_budget=2)
    writer.replay(grow(50))
    settle(writer)
    reader = sharing(store, tool_safety={"lookup": "read_only"}, retry_budget=2)
    reader.replay(grow(50))
    assert reader.shared_checkpoints.stats["hits"] == 0
    assert store.reads[-1] and not set(store.reads[-1]) & set(store.values)


def test_digests_are_the_same_in_another_process() -> None:
    messages = grow(5)
    digest = chain_digests(messages, len(messages))
    assert digest is not None
    script = (
        "import sys; sys.path[:0] = sys.argv[1:]\n"
        "from test_replay_tail import grow\n"
        "from toolerr._shared_state import chain_digests\n"
        "m = grow(5); print(chain_digests(m, len(m)).hex())"
    )
    here = str(__import__("pathlib").Path(__file__).parent)
    out = subprocess.run(
        [sys.executable, "-c", script, here],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "7"},
    )
    assert out.stdout.strip() == digest.hex()


def test_a_message_holding_objects_has_no_digest_and_shares_nothing() -> None:
    assert message_digest(Message("tool", "boom", tool_call_id="c", exception=ValueError("boom"))) is None
    assert message_digest(Message("tool", [{"type": "text", "text": object()}], tool_call_id="c")) is None
    store = DictStore()
    layer = sharing(store)
    messages = grow(40)
    messages[3] = Message("tool", "x", tool_call_id=messages[3].tool_call_id, exception=OSError("x"))
    layer.replay(messages)
    settle(layer)
    assert store.values == {}


def test_a_remembered_verdict_keeps_the_scope_to_itself() -> None:
    store = DictStore()
    layer = sharing(store)
    messages = grow(40)
    layer.remember("c3_0", layer.inspect(messages[-1]), "anything")
    layer.replay(messages)
    settle(layer)
    assert store.values == {} and store.reads == []


class Failing:
    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    def set(self, key: str, value: bytes, ttl: int) -> None:
        raise ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


class Slow(DictStore):
    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        self.release.wait(10)
        return super().get_many(keys)


def test_a_failing_store_fails_open_logged_and_is_paused(caplog: pytest.LogCaptureFixture) -> None:
    shared = SharedCheckpoints(Failing(), pause=60, min_calls=1)
    layer = sharing(shared)
    messages = grow(50)
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        assert state(layer, messages) == state(ToolErrorLayer(), messages)
        settle(layer)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("shared checkpoint store failed (read: ConnectionError" in w for w in warnings)
    assert shared.stats["failures"] == 1 and not shared.available
    # paused: the next first sight does not try the store at all
    other = sharing(shared)
    assert state(other, messages) == state(ToolErrorLayer(), messages)
    assert shared.stats["failures"] == 1 and shared.stats["skipped"] >= 1


def test_a_slow_store_delays_a_replay_by_the_timeout_at_most(caplog: pytest.LogCaptureFixture) -> None:
    slow = Slow()
    shared = SharedCheckpoints(slow, timeout=0.05, pause=60, min_calls=1)
    layer = sharing(shared)
    messages = grow(50)
    try:
        with caplog.at_level(logging.WARNING, logger="toolerr"):
            started = time.monotonic()
            assert state(layer, messages) == state(ToolErrorLayer(), messages)
            waited = time.monotonic() - started
    finally:
        slow.release.set()
    assert waited < 5  # the store answers after 10 s: the replay did not wait for it
    assert any("failed (read: timed out)" in r.getMessage() for r in caplog.records)


def test_garbage_in_the_store_is_replayed_over(caplog: pytest.LogCaptureFixture) -> None:
    store = DictStore()
    writer = sharing(store)
    messages = grow(50)
    writer.replay(messages[:-4])
    settle(writer)
    for key in store.values:
        store.values[key] = b'{"format": 1, "end": "x"'
    reader = sharing(store)
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        assert state(reader, messages) == state(ToolErrorLayer(), messages)
    assert reader.shared_checkpoints.stats["hits"] == 0
    assert any("shared checkpoint could not be read" in r.getMessage() for r in caplog.records)


def test_a_checkpoint_for_another_conversation_under_the_key_is_not_used() -> None:
    """A value whose prefix does not match where it is looked up (a collision, or a store
    written by hand) is not taken."""
    store = DictStore()
    writer = sharing(store)
    writer.replay(grow(50))
    settle(writer)
    values = list(store.values.values())
    other = grow(50, first=100)
    reader = sharing(store)
    reader.replay(other[:-4])  # writes its own keys
    settle(reader)
    for key in store.values:
        document = json.loads(values[0])
        document["end"] = -1
        store.values[key] = json.dumps(document).encode()
    fresh = sharing(store)
    assert state(fresh, other) == state(ToolErrorLayer(), other)
    assert fresh.shared_checkpoints.stats["hits"] == 0


def test_a_short_conversation_is_replayed_not_fetched() -> None:
    store = DictStore()
    writer = ToolErrorLayer()
    writer.shared_checkpoints = SharedCheckpoints(store, min_calls=40)
    writer.replay(grow(45))  # its checkpoint holds fewer than 40 calls (the tail is replayed)
    writer.shared_checkpoints.flush()
    assert store.values == {} and store.reads == []
    writer.replay(grow(70))
    writer.shared_checkpoints.flush()
    assert store.values and all(json.loads(v)["calls"] >= 40 for v in store.values.values())


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="ttl and timeout"):
        SharedCheckpoints(DictStore(), ttl=0)
    with pytest.raises(ValueError, match="ttl and timeout"):
        SharedCheckpoints(DictStore(), timeout=-1)
