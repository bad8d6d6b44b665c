"""A gateway's one layer serving many conversations at once (issue 29): its replay
checkpoints and conversion cache are bounded by memory, not by a count of 64, and what it
keeps for one conversation is never applied to another, whatever their prefixes and ids."""

from __future__ import annotations

import json
from typing import Any

import pytest
import toolerr
from test_replay_checkpoints import exchange, state
from toolerr import Message, ToolErrorLayer, _replay, _wire_base

RATE = "Error: HTTP 429 Too Many Requests"


def wire_exchange(conv: int, turn: int, failed: bool) -> list[dict[str, Any]]:
    call_id = f"call_{turn}"  # the same ids in every conversation
    arguments = json.dumps({"path": f"src/file_{(turn + conv) % 5}.py"})
    result = RATE if failed else f"# conversation {conv}\nline {turn}\n"
    return [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": "read_file", "arguments": arguments}}
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]


def wire_conversation(conv: int, turns: int) -> list[dict[str, Any]]:
    """Conversation ``conv`` after ``turns`` exchanges; conversations ``conv`` and
    ``conv + 1`` share their first half when ``conv`` is even (a common prefix, then they
    diverge), and some results repeat the same failure (the ledger has entries)."""
    family = conv - conv % 2
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": f"Fix the failing test in src/app_{family}.py."},
    ]
    for turn in range(turns):
        own = conv if turn >= 12 else family
        messages += wire_exchange(own, turn, turn % 3 == 1 or turn == turns - 1)
    return messages


def serve(layer: ToolErrorLayer, messages: list[dict[str, Any]]) -> str:
    # a fresh body each time, as a proxy parses it
    request = json.loads(json.dumps(messages))
    return json.dumps(toolerr.rewrite_wire("openai-chat", request, layer=layer).request, sort_keys=True)


def test_many_interleaved_conversations_get_the_rewrites_of_each_alone() -> None:
    k, turns = 200, range(20, 30)
    alone: dict[tuple[int, int], str] = {}
    for conv in range(k):
        layer = ToolErrorLayer()
        _wire_base.CACHE.clear()
        for t in turns:
            alone[conv, t] = serve(layer, wire_conversation(conv, t))
    _wire_base.CACHE.clear()
    gateway = ToolErrorLayer()
    for t in turns:  # round-robin: K > the old bound of 64 checkpoints
        for conv in range(k):
            assert serve(gateway, wire_conversation(conv, t)) == alone[conv, t], (conv, t)
    assert len(gateway._checkpoints) > 64  # all conversations kept their checkpoint


def test_a_conversation_edited_in_the_middle_is_replayed_from_before_the_edit() -> None:
    gateway = ToolErrorLayer()
    prefix = [Message("user", "go")]
    for number in range(40):
        prefix = [*prefix, *exchange(number, [(number % 4, 1 if number % 3 else 0)])]
    for run in range(20):  # many checkpoints: the indexed lookup
        other = [Message("user", f"run {run}")]
        for number in range(20):
            other = [*other, *exchange(number, [(number % 4, 1)])]
            state(gateway, other)
    state(gateway, prefix)
    edited = list(prefix)
    edited[41] = Message("tool", "ok: 3 items", tool_call_id=edited[41].tool_call_id, name=edited[41].name)
    edited += exchange(40, [(0, 1)])
    assert state(gateway, edited) == state(ToolErrorLayer(), edited)
    # diverging from a common prefix: the same objects, then different exchanges
    left = [*prefix, *exchange(40, [(0, 1)]), *exchange(41, [(1, 1)])]
    right = [*prefix, *exchange(40, [(2, 0)]), *exchange(41, [(3, 2)])]
    for conversation in (left, right, left, right):
        assert state(gateway, conversation) == state(ToolErrorLayer(), conversation)


def test_shared_checkpoints_are_bounded_by_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_replay, "SHARED_CHECKPOINT_BYTES", 40_000)
    gateway = ToolErrorLayer()
    conversations = []
    for run in range(30):
        conversation = [Message("user", f"run {run}")]
        for number in range(25):
            conversation = [*conversation, *exchange(number, [(number % 4, 1)])]
        conversations.append(conversation)
    for conversation in conversations:
        state(gateway, conversation)
    shared = gateway._runs.default
    assert 1 <= len(shared.checkpoints) < 30
    assert shared.checkpoint_bytes <= 40_000
    assert shared.checkpoint_bytes == sum(_replay.checkpoint_weight(c) for c in shared.checkpoints.values())
    assert sum(len(bucket) for bucket in shared.checkpoint_index.values()) == len(shared.checkpoints)
    for conversation in conversations:  # evicted or kept: the same replay as alone
        longer = [*conversation, *exchange(25, [(0, 1)])]
        assert state(gateway, longer) == state(ToolErrorLayer(), longer)


def test_the_conversion_cache_is_a_memory_bounded_lru() -> None:
    cache = _wire_base.WireCache(1000, budget=3000)
    messages = [Message("tool", "x" * 500, tool_call_id=f"c{i}") for i in range(10)]
    cache.put("a", messages[0])
    cache.put("b", messages[1])
    cache.put("c", messages[2])  # three fit in 3,000 bytes (980 each)
    assert cache.get("a") is messages[0]  # a hit: now the most recent
    cache.put("d", messages[3])
    assert cache.get("b") is None  # the least recently used went first
    assert cache.get("a") is messages[0] and cache.get("d") is messages[3]
    for i in range(4, 10):
        cache.put(i, messages[i])
        assert cache.weight <= cache.budget
    assert cache.weight == sum(_wire_base.weigh(m) for m in (cache.get(k) for k in list(cache._items)))
    cache.clear()
    assert len(cache) == 0 and cache.weight == 0
