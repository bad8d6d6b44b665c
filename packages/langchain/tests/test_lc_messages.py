"""Conversion between LangChain messages and the neutral conversation, and the message
list the rewrite returns (pairs intact, originals untouched, unchanged objects reused)."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from toolerr import Verdict
from toolerr_langchain import METADATA_KEY, rewrite_messages, to_toolerr, verdict_of
from toolerr_langchain._messages import (
    _CONVERSIONS,
    neutral,
    origin_of,
    verdict_from_metadata,
    verdict_to_metadata,
    with_verdict,
)

NOTE_PREFIX = "Note from the tool runtime: "


def test_tool_message_conversion() -> None:
    failed = to_toolerr(ToolMessage("Error: boom", tool_call_id="c1", name="t", status="error"))
    ok = to_toolerr(ToolMessage([{"type": "text", "text": "fine"}], tool_call_id="c2"))
    assert (failed.role, failed.tool_call_id, failed.name, failed.is_error, failed.client) == (
        "tool",
        "c1",
        "t",
        True,
        "langchain",
    )
    assert (ok.is_error, ok.content) == (False, [{"type": "text", "text": "fine"}])


def test_assistant_conversion_keeps_valid_and_invalid_calls_and_raw_arguments() -> None:
    message = AIMessage(
        content="",
        tool_calls=[{"name": "a", "args": {"x": 1}, "id": "c1"}],
        invalid_tool_calls=[
            {"type": "invalid_tool_call", "name": None, "args": '{"y": ', "id": "c2", "error": None}
        ],
        additional_kwargs={
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "a", "arguments": '{"x":1}'}}
            ]
        },
    )
    converted = to_toolerr(message)
    assert converted.origin is message
    assert [(c.id, c.name, c.arguments, c.raw_arguments) for c in converted.tool_calls] == [
        ("c1", "a", {"x": 1}, '{"x":1}'),
        ("c2", "unknown", '{"y": ', '{"y": '),
    ]


def test_other_roles() -> None:
    assert to_toolerr(HumanMessage("hi")).role == "user"
    assert to_toolerr(SystemMessage("sys")).role == "system"
    assert to_toolerr(ChatMessage(role="assistant", content="x")).role == "assistant"
    assert to_toolerr(ChatMessage(role="critic", content="x")).role == "system"  # opaque: never changed


def test_verdict_metadata_round_trip_and_bad_data() -> None:
    verdict = Verdict(
        failed=True, kind="transient", rule="http:429", detection="exception", status=429, retry_after=2.0
    )
    assert verdict_from_metadata(verdict_to_metadata(verdict)) == verdict
    message = with_verdict(
        ToolMessage("x", tool_call_id="c", status="error", response_metadata={"a": 1}), verdict
    )
    assert verdict_of(message) == verdict
    assert message.response_metadata["a"] == 1
    for bad in (
        None,
        "x",
        {"failed": "yes"},
        {"failed": True, "kind": "weird"},
        {"failed": True, "outcome": 3},
    ):
        assert verdict_from_metadata(bad) is None
    assert verdict_of(ToolMessage("x", tool_call_id="c", response_metadata={METADATA_KEY: []})) is None


def test_removing_forms_keep_every_provider_field_paired() -> None:
    """C4 removes the failed call from an assistant message with parallel calls: its
    parsed call, the provider's raw call and its content block all go; the rest stay."""
    assistant = AIMessage(
        content=[
            {"type": "text", "text": "Working on it."},
            {"type": "tool_use", "id": "c1", "name": "write_file", "input": {"path": "/etc/x"}},
            {"type": "tool_use", "id": "c2", "name": "get_weather", "input": {"city": "Oslo"}},
        ],
        tool_calls=[
            {"name": "write_file", "args": {"path": "/etc/x"}, "id": "c1"},
            {"name": "get_weather", "args": {"city": "Oslo"}, "id": "c2"},
        ],
        additional_kwargs={
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "write_file", "arguments": '{"path": "/etc/x"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                },
            ]
        },
        id="ai-1",
    )
    failed = ToolMessage(
        "Error: PermissionError: [Errno 13] Permission denied: '/etc/x'", tool_call_id="c1", status="error"
    )
    ok = ToolMessage("Oslo: sunny", tool_call_id="c2")
    user = HumanMessage("Write it and check the weather.")
    messages: list[BaseMessage] = [user, assistant, failed, ok]

    out = rewrite_messages(messages, form="c4")

    assert out[0] is user
    assert out[2] is ok
    rebuilt = out[1]
    assert isinstance(rebuilt, AIMessage)
    assert rebuilt.id == "ai-1"
    assert [c["id"] for c in rebuilt.tool_calls] == ["c2"]
    assert [c["id"] for c in rebuilt.additional_kwargs["tool_calls"]] == ["c2"]
    assert [b.get("id") for b in rebuilt.content if isinstance(b, dict)] == [None, "c2"]
    assert isinstance(out[3], HumanMessage)
    assert out[3].content.startswith(NOTE_PREFIX)
    # The input is untouched.
    assert messages == [user, assistant, failed, ok]
    assert len(assistant.tool_calls) == 2


RESULTS = [
    ("Error: PermissionError: [Errno 13] Permission denied: '/x'", "error"),
    ("Error: ReadTimeout: timed out", "error"),
    ("Error: x is not a valid tool, try one of [a, b].", "error"),
    ("Error: HTTPStatusError: Client error '404 Not Found' for url 'https://e.com'", "error"),
    ("42", "success"),
    ("Error: something happened", "success"),
    ('{"error": null, "rows": 1}', "success"),
]


@st.composite
def conversations(draw: Any) -> list[BaseMessage]:
    messages: list[BaseMessage] = []
    if draw(st.booleans()):
        messages.append(SystemMessage("sys"))
    messages.append(HumanMessage("go"))
    counter = 0
    for _ in range(draw(st.integers(1, 4))):
        calls = []
        for _ in range(draw(st.integers(1, 3))):
            counter += 1
            calls.append(
                {
                    "name": draw(st.sampled_from(["a", "b"])),
                    "args": {"v": draw(st.integers(0, 2))},
                    "id": f"c{counter}",
                }
            )
        messages.append(AIMessage(content=draw(st.sampled_from(["", "thinking"])), tool_calls=calls))
        for call in calls:
            text, status = draw(st.sampled_from(RESULTS))
            messages.append(ToolMessage(text, tool_call_id=call["id"], name=call["name"], status=status))
        if draw(st.booleans()):
            messages.append(HumanMessage("and then?"))
    return messages


def _paired(messages: list[Any]) -> bool:
    open_calls: set[str] = set()
    for message in messages:
        if isinstance(message, AIMessage):
            if open_calls:
                return False
            open_calls = {c["id"] for c in message.tool_calls}
        elif isinstance(message, ToolMessage):
            if message.tool_call_id not in open_calls:
                return False
            open_calls.discard(message.tool_call_id)
    return True


@settings(max_examples=150, deadline=None)
@given(conversations(), st.sampled_from(["c0", "c1", "c2", "c3", "c4", "abstract"]))
def test_rewrite_properties(messages: list[BaseMessage], form: str) -> None:
    snapshot = [m.model_dump() for m in messages]
    out = rewrite_messages(messages, form=form)

    assert [m.model_dump() for m in messages] == snapshot  # the input is never changed
    assert _paired(out)
    originals = {id(m) for m in messages}
    for message in out:
        if id(message) not in originals:
            # only user notes, changed tool results and trimmed assistant messages are new
            assert isinstance(message, (HumanMessage, ToolMessage, AIMessage))
        if isinstance(message, SystemMessage):
            assert NOTE_PREFIX not in str(message.content)
    again = rewrite_messages(out, form=form)
    # applying the form again changes nothing more
    assert [m.model_dump() for m in again] == [m.model_dump() for m in out]
    if form == "c0":
        assert all(a is b for a, b in zip(out, messages, strict=True))


def test_conversion_cache_reuses_neutral_messages_and_keeps_nothing_alive() -> None:
    message = ToolMessage("Error: boom", tool_call_id="c9", status="error")
    first = neutral(message)
    assert neutral(message) is first  # identity-stable while the message lives
    assert origin_of(first) is message
    message.content = "fine now"  # reassigned: converted again
    second = neutral(message)
    assert second is not first
    assert second.content == "fine now"
    ref = weakref.ref(message)
    del message, first, second
    gc.collect()
    assert ref() is None
    assert all(origin_of(m) is not None for m in _CONVERSIONS._items.values())
