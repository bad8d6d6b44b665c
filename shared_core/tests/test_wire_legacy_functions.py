"""OpenAI Chat's legacy function calling (assistant ``function_call``, ``function`` results),
as LiteLLM and older OpenAI clients still send it: read as a call and its result."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import toolerr
from edge_support import NOTE, RATE, dump
from toolerr import rewrite_openai_chat, rewrite_wire
from toolerr.adapters import GUIDANCE


def legacy(result: str = RATE, text: str | None = None) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "read a"},
        {
            "role": "assistant",
            "content": text,
            "function_call": {"name": "read", "arguments": '{"path": "a"}'},
        },
        {"role": "function", "name": "read", "content": result},
    ]


def test_legacy_function_call_and_result_are_read_as_a_pair() -> None:
    messages = toolerr.adapters.openai_chat_to_messages(legacy())
    assert [m.role for m in messages] == ["system", "user", "assistant", "tool"]
    (call,) = messages[2].tool_calls
    assert (call.id, call.name, call.arguments, call.raw_arguments) == (
        None,
        "read",
        {"path": "a"},
        '{"path": "a"}',
    )
    assert (messages[3].name, messages[3].tool_call_id, messages[3].content) == ("read", None, RATE)
    (record,) = toolerr.ToolErrorLayer(form="c0").rewrite(messages).records
    assert (record.tool, record.kind) == ("read", "transient")


def test_legacy_c3_adds_the_user_note_after_the_function_result() -> None:
    request = legacy()
    before = copy.deepcopy(request)
    out = rewrite_openai_chat(request, "c3")
    assert request == before
    assert all(a is b for a, b in zip(out, request, strict=False))
    assert dump(out) == dump([*before, {"role": "user", "content": NOTE}])
    assert rewrite_openai_chat(out, "c3") is out  # applying it again changes nothing


def test_legacy_c4_removes_the_function_call_and_its_result() -> None:
    out = rewrite_openai_chat(legacy(), "c4")
    assert dump(out) == dump(
        [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "read a"},
            {"role": "user", "content": NOTE},
        ]
    )
    # an assistant message with text keeps it, without its function_call
    out = rewrite_openai_chat(legacy(text="Reading a."), "c4")
    assert dump(out) == dump(
        [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "read a"},
            {"role": "assistant", "content": "Reading a."},
            {"role": "user", "content": NOTE},
        ]
    )
    assert rewrite_openai_chat(out, "c4") is out


def test_legacy_c1_appends_the_guidance_to_the_function_message() -> None:
    out = rewrite_openai_chat(legacy(), "c1")
    assert dump(out[3]) == dump(
        {"role": "function", "name": "read", "content": f"{RATE}\n{GUIDANCE['transient']}"}
    )


def test_legacy_success_passes_as_the_same_object() -> None:
    request = legacy("a b c")
    assert rewrite_openai_chat(request) is request


@pytest.mark.parametrize("form", ["c3", "c4"])
def test_legacy_repeats_reach_the_ledger(form: str) -> None:
    """The legacy calls before the decision step are replayed: a third identical failure
    past the retry budget of 2 is unrecoverable."""
    request = [*legacy(), *legacy()[2:], *legacy()[2:]]
    result = rewrite_wire("openai-chat", request, form=form, retry_budget=2)
    (record,) = result.records
    assert record.kind == "unrecoverable"
    assert record.repeat == "exact"


def test_legacy_function_results_are_cached_by_name() -> None:
    first = toolerr.adapters.openai_chat_to_messages(legacy())
    other = legacy()
    other[3]["name"] = "list"
    assert toolerr.adapters.openai_chat_to_messages(other)[3].name == "list"
    other = legacy()
    other[2]["function_call"] = {"name": "list", "arguments": "{}"}
    assert toolerr.adapters.openai_chat_to_messages(other)[2].tool_calls[0].name == "list"
    assert toolerr.adapters.openai_chat_to_messages(legacy())[3] is first[3]
