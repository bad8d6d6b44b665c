"""Edge shapes of the decision step: a call answered twice, an empty user turn."""

from __future__ import annotations

from typing import Any

import pytest
from edge_support import NOTE, RATE, dump
from toolerr import Message, ToolCall, ToolErrorLayer, rewrite_openai_chat


def duplicated(second: str = RATE) -> list[Message]:
    call = ToolCall(id="c1", name="read", arguments={"path": "a"})
    return [
        Message("user", "read a"),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", RATE, tool_call_id="c1"),
        Message("tool", second, tool_call_id="c1"),  # the same call's result again
    ]


@pytest.mark.parametrize("second", [RATE, "Error: HTTP 503 Service Unavailable", "a b"])
def test_a_duplicated_result_gets_no_note_of_its_own_c3(second: str) -> None:
    messages = duplicated(second)
    result = ToolErrorLayer(form="c3").rewrite(messages)
    assert [r.tool for r in result.records] == ["read"]
    assert [r.position for r in result.records] == [2]
    assert result.messages[:4] == messages
    assert all(a is b for a, b in zip(result.messages, messages, strict=False))  # duplicate unchanged
    assert result.messages[4:] == [Message("user", NOTE)]
    assert "unknown_tool" not in result.messages[4].content
    assert ToolErrorLayer(form="c3").rewrite(result.messages).changed is False


def test_a_duplicated_result_goes_with_its_call_in_a_removing_form() -> None:
    result = ToolErrorLayer(form="c4").rewrite(duplicated())
    assert [r.tool for r in result.records] == ["read"]
    # no result is left without its call: both results of c1 go with it
    assert result.messages == [Message("user", "read a"), Message("user", NOTE)]


def test_a_duplicated_result_is_not_counted_twice_in_the_ledger() -> None:
    layer = ToolErrorLayer()
    ledger, reports = layer.replay(duplicated())
    assert sorted(reports) == [2]
    assert ledger.step == 1
    assert [(f.name, f.count) for f in ledger.failures] == [("read", 1)]


def chat_duplicated() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "read a"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path": "a"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": RATE},
        {"role": "tool", "tool_call_id": "c1", "content": RATE},
    ]


def test_a_duplicated_result_over_the_openai_chat_wire() -> None:
    request = chat_duplicated()
    out = rewrite_openai_chat(request, "c3")
    assert all(a is b for a, b in zip(out, request, strict=False))
    assert dump(out[4:]) == dump([{"role": "user", "content": NOTE}])
    out = rewrite_openai_chat(chat_duplicated(), "c4")
    assert dump(out) == dump([{"role": "user", "content": "read a"}, {"role": "user", "content": NOTE}])


# -- an empty user turn after the exchange ---------------------------------------------


def test_c3_note_in_an_empty_user_message_is_exactly_the_note() -> None:
    call = ToolCall(id="c1", name="read", arguments={"path": "a"})
    messages = [
        Message("user", "read a"),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", RATE, tool_call_id="c1"),
        Message("user", ""),
    ]
    out = ToolErrorLayer(form="c3").rewrite(messages).messages
    assert out[:3] == messages[:3]
    assert out[3:] == [Message("user", NOTE)]
    assert ToolErrorLayer(form="c3").rewrite(out).changed is False


def test_c2_note_in_an_empty_last_user_message_is_exactly_the_note() -> None:
    call = ToolCall(id="c1", name="read", arguments={"path": "a"})
    messages = [
        Message("user", ""),
        Message("assistant", "", tool_calls=(call,)),
        Message("tool", RATE, tool_call_id="c1"),
    ]
    out = ToolErrorLayer(form="c2").rewrite(messages).messages
    assert out == [Message("user", NOTE)]


def test_empty_user_message_over_the_openai_chat_wire() -> None:
    request = [*chat_duplicated()[:3], {"role": "user", "content": ""}]
    out = rewrite_openai_chat(request, "c3")
    assert dump(out[3]) == dump({"role": "user", "content": NOTE})
