"""Wire formats: OpenAI Chat, Anthropic Messages, OpenAI Responses request bodies.

Byte-exact outputs per form, and properties: passthrough identity, unchanged dicts kept
by identity, every call paired with its result, Anthropic roles alternating, idempotence.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
import toolerr
from hypothesis import given, settings
from hypothesis import strategies as st
from toolerr import rewrite_anthropic, rewrite_openai_chat, rewrite_responses, rewrite_wire

RATE = "Error: HTTP 429 Too Many Requests"
DENIED = "ls: x: Permission denied"
NOTE_429 = (
    'Note from the tool runtime: the last attempt called read with path="a" and it failed with: '
    "Error: HTTP 429 Too Many Requests\n\nThis is a temporary failure. Retrying the same call is "
    "expected to succeed."
)
GUIDE_429 = "This is a temporary failure. Retrying the same call is expected to succeed."


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


# ---------------------------------------------------------------------------------------
# OpenAI Chat
# ---------------------------------------------------------------------------------------


def chat(result: Any = RATE) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "read a"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path": "a"}'}},
                {"id": "c2", "type": "function", "function": {"name": "list", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": result},
        {"role": "tool", "tool_call_id": "c2", "content": "a b"},
    ]


def test_chat_c3_appends_a_user_note_after_the_results() -> None:
    messages = chat()
    before = copy.deepcopy(messages)
    out = rewrite_openai_chat(messages)
    assert messages == before  # the input is never modified
    assert out[:5] == messages and all(a is b for a, b in zip(out, messages, strict=False))
    assert dump(out[5]) == dump({"role": "user", "content": NOTE_429})


def test_chat_c1_appends_guidance_to_the_tool_message_text_and_parts() -> None:
    out = rewrite_openai_chat(chat(), "c1")
    assert dump(out[3]) == dump({"role": "tool", "tool_call_id": "c1", "content": f"{RATE}\n{GUIDE_429}"})
    assert [a is b for a, b in zip(out, chat(), strict=False)] == [False] * 5  # fresh input each call
    parts = chat([{"type": "text", "text": RATE}])
    out = rewrite_openai_chat(parts, "c1")
    assert out[3]["content"] == [{"type": "text", "text": RATE}, {"type": "text", "text": GUIDE_429}]
    assert out[4] is parts[4] and out[2] is parts[2]


def test_chat_c4_removes_the_failed_call_and_its_result_only() -> None:
    messages = chat()
    out = rewrite_openai_chat(messages, "c4")
    assert dump(out) == dump(
        [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "read a"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c2", "type": "function", "function": {"name": "list", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c2", "content": "a b"},
            {"role": "user", "content": NOTE_429},
        ]
    )
    assert out[2]["tool_calls"][0] is messages[2]["tool_calls"][1]
    assert out[3] is messages[4]


def test_chat_passthrough_is_the_same_object() -> None:
    messages = chat("all good")
    assert rewrite_openai_chat(messages) is messages
    assert rewrite_openai_chat([]) == []
    ambiguous = chat("Exit code: 1\nWall time: 0.1 seconds\nOutput:\n")
    result = rewrite_wire("openai-chat", ambiguous, client="codex")
    assert result.request is ambiguous and not result.changed
    assert [(r.kind, r.detection, r.changed) for r in result.records] == [("ambiguous", "codex:exit", False)]
    # generic templates do not read Codex's shell output as a failure
    assert rewrite_wire("openai-chat", ambiguous).records == ()


# ---------------------------------------------------------------------------------------
# Anthropic Messages
# ---------------------------------------------------------------------------------------


def anthropic(
    result: Any = RATE, *, is_error: bool | None = True, text: str | None = None
) -> list[dict[str, Any]]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": "t1", "content": result}
    if is_error is not None:
        block["is_error"] = is_error
    user: list[dict[str, Any]] = [block, {"type": "tool_result", "tool_use_id": "t2", "content": "a b"}]
    if text is not None:
        user.append({"type": "text", "text": text})
    return [
        {"role": "user", "content": "read a"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a"}},
                {"type": "tool_use", "id": "t2", "name": "list", "input": {}},
            ],
        },
        {"role": "user", "content": user},
    ]


def test_anthropic_c3_puts_the_note_in_the_user_turn_after_the_results() -> None:
    messages = anthropic()
    out = rewrite_anthropic(messages)
    assert len(out) == 3 and out[0] is messages[0] and out[1] is messages[1]
    assert dump(out[2]) == dump(
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": RATE, "is_error": True},
                {"type": "tool_result", "tool_use_id": "t2", "content": "a b"},
                {"type": "text", "text": NOTE_429},
            ],
        }
    )
    assert out[2]["content"][0] is messages[2]["content"][0]


def test_anthropic_c3_joins_the_turns_own_text() -> None:
    out = rewrite_anthropic(anthropic(text="go on"))
    assert out[2]["content"][2:] == [{"type": "text", "text": "go on"}, {"type": "text", "text": NOTE_429}]


def test_anthropic_c1_and_c4_stay_valid() -> None:
    out = rewrite_anthropic(anthropic(), "c1")
    assert out[2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": f"{RATE}\n{GUIDE_429}",
        "is_error": True,
    }
    messages = anthropic()
    out = rewrite_anthropic(messages, "c4")
    assert dump(out) == dump(
        [
            {"role": "user", "content": "read a"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "t2", "name": "list", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t2", "content": "a b"},
                    {"type": "text", "text": NOTE_429},
                ],
            },
        ]
    )


def test_anthropic_c4_of_a_lone_call_merges_the_user_turns() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "read a"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a"}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": RATE, "is_error": True}],
        },
    ]
    out = rewrite_anthropic(messages, "c4")
    assert dump(out) == dump(
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "read a"}, {"type": "text", "text": NOTE_429}],
            }
        ]
    )


def test_anthropic_flag_without_text_rule() -> None:
    result = rewrite_wire("anthropic", anthropic(DENIED))
    assert [(r.kind, r.detection, r.changed) for r in result.records] == [
        ("unrecoverable", "flag:is_error", True)
    ]
    messages = anthropic("fine", is_error=False)
    assert rewrite_anthropic(messages) is messages


# ---------------------------------------------------------------------------------------
# OpenAI Responses
# ---------------------------------------------------------------------------------------


def responses(output: Any = RATE) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": [{"type": "input_text", "text": "read a"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "f1", "name": "read", "arguments": '{"path": "a"}'},
        {"type": "function_call", "call_id": "f2", "name": "list", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "f1", "output": output},
        {"type": "function_call_output", "call_id": "f2", "output": "a b"},
    ]


def test_responses_c3_adds_an_input_message() -> None:
    items = responses()
    out = rewrite_responses(items)
    assert all(a is b for a, b in zip(out, items, strict=False)) and len(out) == 7
    assert dump(out[6]) == dump(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": NOTE_429}]}
    )
    assert rewrite_responses("just text") == "just text"


def test_responses_c1_parts_become_input_text() -> None:
    out = rewrite_responses(responses([{"type": "input_text", "text": RATE}]), "c1")
    assert out[4]["output"] == [
        {"type": "input_text", "text": RATE},
        {"type": "input_text", "text": GUIDE_429},
    ]


def test_responses_c4_removes_the_call_item_and_its_output() -> None:
    items = responses()
    out = rewrite_responses(items, "c4")
    assert [item.get("call_id") or item.get("id") or item["role"] for item in out] == [
        "user",
        "rs_1",
        "f2",
        "f2",
        "user",
    ]
    assert out[2] is items[3] and out[3] is items[5]


def test_responses_builtin_items() -> None:
    shell: list[dict[str, Any]] = [
        {"role": "user", "content": "build"},
        {"type": "shell_call", "call_id": "s1", "action": {"commands": ["make"]}, "status": "completed"},
        {
            "type": "shell_call_output",
            "call_id": "s1",
            "output": [{"stdout": "", "stderr": DENIED, "outcome": {"type": "exit", "exit_code": 2}}],
        },
    ]
    result = rewrite_wire("responses", shell)
    assert [(r.tool, r.kind, r.changed) for r in result.records] == [("shell", "unrecoverable", True)]
    assert result.request[:3] == shell and result.request[3]["role"] == "user"
    # C1 cannot append to structured shell output: the item stays, nothing is claimed
    c1 = rewrite_wire("responses", shell, form="c1")
    assert c1.request is shell and [r.changed for r in c1.records] == [False]
    patch: list[dict[str, Any]] = [
        {"role": "user", "content": "fix"},
        {
            "type": "apply_patch_call",
            "call_id": "p1",
            "status": "completed",
            "operation": {"type": "update_file", "path": "a.py", "diff": "@@"},
        },
        {"type": "apply_patch_call_output", "call_id": "p1", "status": "failed", "output": DENIED},
    ]
    assert rewrite_wire("responses", patch).records[0].tool == "apply_patch"
    local: list[dict[str, Any]] = [
        {"role": "user", "content": "ls"},
        {
            "type": "local_shell_call",
            "id": "lsh_1",
            "call_id": "call_1",
            "status": "completed",
            "action": {"type": "exec", "command": ["ls"], "env": {}},
        },
        {"type": "local_shell_call_output", "id": "lsh_1", "output": RATE},
        {"type": "custom_tool_call", "call_id": "x1", "name": "grep", "input": "a"},
        {"type": "custom_tool_call_output", "call_id": "x1", "output": "Error: " + DENIED},
    ]
    records = rewrite_wire("responses", local).records
    assert [(r.tool, r.call_id, r.kind) for r in records] == [("grep", "x1", "unrecoverable")]
    records = rewrite_wire("responses", local[:3]).records
    assert [(r.tool, r.call_id, r.kind) for r in records] == [("local_shell", "call_1", "transient")]


# ---------------------------------------------------------------------------------------
# Shared behaviour
# ---------------------------------------------------------------------------------------


def test_idempotent_on_every_format_and_form() -> None:
    for wire, build in (("openai-chat", chat), ("anthropic", anthropic), ("responses", responses)):
        for form in toolerr.FORMS:
            once = rewrite_wire(wire, build(), form=form).request
            again = rewrite_wire(wire, once, form=form)
            assert again.request is once, (wire, form)


def test_fails_open(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(dict[str, Any]):
        def get(self, *args: Any) -> Any:
            raise RuntimeError("boom")

    messages: list[Any] = [*chat()[:4], Broken(role="tool")]
    with caplog.at_level("WARNING", logger="toolerr"):
        result = rewrite_wire("openai-chat", messages)
    assert result.request is messages and result.error == "RuntimeError: boom"
    assert "passes unchanged" in caplog.text
    with pytest.raises(ValueError, match="unknown wire format"):
        rewrite_wire("gemini", messages)


def test_client_from_user_agent() -> None:
    out = rewrite_wire(
        "openai-chat",
        chat("Exit code: 1\nWall time: 0.1 seconds\nOutput:\n"),
        client="codex_cli_rs/0.50.0 (Linux)",
    )
    assert [r.detection for r in out.records] == ["codex:exit"]


# ---------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------

RESULTS = st.sampled_from([RATE, DENIED, "ok", "File not found: /a. Did you mean /b?", "done"])


@st.composite
def chat_conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "task"}]
    for turn in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 3))
        calls = [
            {"id": f"c{turn}_{i}", "type": "function", "function": {"name": f"t{i}", "arguments": '{"x": 1}'}}
            for i in range(n)
        ]
        messages.append(
            {
                "role": "assistant",
                "content": draw(st.sampled_from([None, "", "thinking"])),
                "tool_calls": calls,
            }
        )
        messages.extend({"role": "tool", "tool_call_id": c["id"], "content": draw(RESULTS)} for c in calls)
        if draw(st.booleans()):
            messages.append({"role": "user", "content": "more"})
    return messages


def chat_to_anthropic(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if m["role"] == "assistant":
            blocks: list[Any] = [{"type": "text", "text": m["content"]}] if m["content"] else []
            blocks += [
                {"type": "tool_use", "id": c["id"], "name": c["function"]["name"], "input": {"x": 1}}
                for c in m["tool_calls"]
            ]
            out.append({"role": "assistant", "content": blocks})
        elif m["role"] == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": m["tool_call_id"],
                "content": m["content"],
                "is_error": m["content"] in (RATE, DENIED),
            }
            if out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        elif out and out[-1]["role"] == "user" and isinstance(out[-1]["content"], list):
            out[-1]["content"].append({"type": "text", "text": m["content"]})
        else:
            out.append({"role": "user", "content": m["content"]})
    return out


def chat_to_responses(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if m["role"] == "assistant":
            if m["content"]:
                out.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": m["content"]}],
                    }
                )
            out += [
                {
                    "type": "function_call",
                    "call_id": c["id"],
                    "name": c["function"]["name"],
                    "arguments": c["function"]["arguments"],
                }
                for c in m["tool_calls"]
            ]
        elif m["role"] == "tool":
            out.append({"type": "function_call_output", "call_id": m["tool_call_id"], "output": m["content"]})
        else:
            out.append({"role": "user", "content": m["content"]})
    return out


def calls_and_results(wire: str, request: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    calls: list[str] = []
    results: list[str] = []
    for item in request:
        if wire == "openai-chat":
            calls += [c["id"] for c in item.get("tool_calls") or ()]
            if item["role"] == "tool":
                results.append(item["tool_call_id"])
        elif wire == "anthropic":
            for block in item["content"] if isinstance(item["content"], list) else ():
                if block["type"] == "tool_use":
                    calls.append(block["id"])
                elif block["type"] == "tool_result":
                    results.append(block["tool_use_id"])
        else:
            if item.get("type") == "function_call":
                calls.append(item["call_id"])
            elif item.get("type") == "function_call_output":
                results.append(item["call_id"])
    return calls, results


@settings(max_examples=150, deadline=None)
@given(
    chat_conversations(),
    st.sampled_from(toolerr.FORMS),
    st.sampled_from(["openai-chat", "anthropic", "responses"]),
)
def test_properties(messages: list[dict[str, Any]], form: str, wire: str) -> None:
    request = {
        "openai-chat": messages,
        "anthropic": chat_to_anthropic(messages),
        "responses": chat_to_responses(messages),
    }[wire]
    before = copy.deepcopy(request)
    result = rewrite_wire(wire, request, form=form)
    out = result.request
    assert request == before
    assert result.error is None
    if not result.changed:
        assert out is request  # passthrough identity
    # every call paired with its result, in both directions
    calls, results = calls_and_results(wire, out)
    assert sorted(calls) == sorted(results)
    # unchanged dicts are the same objects
    ids = {id(item) for item in request}
    kept = [item for item in out if id(item) in ids]
    assert all(item in before for item in kept)
    if wire == "anthropic":
        roles = [item["role"] for item in out]
        assert roles[0] == "user"
        original_pairs = {(a["role"], b["role"]) for a, b in itertools.pairwise(request)}
        for a, b in itertools.pairwise(out):
            assert a["role"] != b["role"] or ("user", "user") in original_pairs
    # idempotence
    assert rewrite_wire(wire, out, form=form).request is out
    # the same decision as the neutral conversation rewritten directly
    converters = {
        "openai-chat": toolerr.adapters.openai_chat_to_messages,
        "anthropic": toolerr.adapters.anthropic_to_messages,
        "responses": toolerr.adapters.responses_to_messages,
    }
    direct = toolerr.ToolErrorLayer(form=form).rewrite(converters[wire](request))
    assert [(r.tool, r.kind, r.changed) for r in direct.records] == [
        (r.tool, r.kind, r.changed) for r in result.records
    ]


def test_cache_keys_every_field_the_conversion_reads() -> None:
    """The content-keyed cache of converted messages never hands one request's message
    to a request that differs in any field read (flag types included)."""
    base = chat()
    seen = []
    for flag in (True, False, 1, "true", None):
        request = copy.deepcopy(base)
        if flag is not None:
            request[3]["is_error"] = flag
        seen.append(toolerr.adapters.openai_chat_to_messages(request)[3].is_error)
    assert seen == [True, False, None, None, None]
    listed = copy.deepcopy(base)
    listed[3]["content"] = [{"type": "text", "text": RATE}]
    assert toolerr.adapters.openai_chat_to_messages(listed)[3].content == [{"type": "text", "text": RATE}]
    assert toolerr.adapters.openai_chat_to_messages(base)[3].content == RATE
    assert toolerr.adapters.openai_chat_to_messages(base, client="codex")[3].client == "codex"
    first = toolerr.adapters.openai_chat_to_messages(copy.deepcopy(base))
    again = toolerr.adapters.openai_chat_to_messages(copy.deepcopy(base))
    assert all(a is b for a, b in zip(first, again, strict=True))  # reused: the layer's checkpoints apply


def test_cache_reuses_responses_and_anthropic_objects() -> None:
    for convert, build in (
        (toolerr.adapters.responses_to_messages, responses),
        (toolerr.adapters.anthropic_to_messages, anthropic),
    ):
        first = convert(build())
        again = convert(build())
        assert all(a is b for a, b in zip(first, again, strict=True))
        assert all(a.tool_calls == b.tool_calls for a, b in zip(first, again, strict=True))
    other = toolerr.adapters.responses_to_messages(responses("Error: other"))
    assert other[-2].content == "Error: other"


def test_a_call_without_arguments_says_so_whatever_the_wire() -> None:
    """A tool without parameters is called with ``"{}"`` on the OpenAI wires and ``{}``
    on Anthropic's: the note says "no arguments" for both, never "with  and"."""
    chat_request: list[dict[str, Any]] = [
        {"role": "user", "content": "list"},
        {
            "role": "assistant",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "list", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": RATE},
    ]
    anthropic_request: list[dict[str, Any]] = [
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "list", "input": {}}]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": RATE, "is_error": True}],
        },
    ]
    responses_request: list[dict[str, Any]] = [
        {"role": "user", "content": "list"},
        {"type": "function_call", "call_id": "f1", "name": "list", "arguments": " { } "},
        {"type": "function_call_output", "call_id": "f1", "output": RATE},
    ]
    expected = NOTE_429.replace('read with path="a"', "list with no arguments")
    assert rewrite_openai_chat(chat_request)[-1]["content"] == expected
    assert rewrite_anthropic(anthropic_request)[-1]["content"][-1]["text"] == expected
    assert rewrite_responses(responses_request)[-1]["content"][0]["text"] == expected


def test_requests_share_no_objects_through_the_conversion_cache() -> None:
    """Two runs whose requests hold equal content (lists of blocks) at the same positions:
    what one run does to its own objects after its request (a framework compacting its
    history in place, a client adding ``cache_control`` to what it sends) reaches neither
    the other run's verdicts nor its objects, on every wire format."""
    builders = {
        "openai-chat": lambda: chat([{"type": "text", "text": RATE}]),
        "anthropic": lambda: anthropic([{"type": "text", "text": RATE}], text="go on"),
        "responses": lambda: responses([{"type": "input_text", "text": RATE}]),
    }
    for wire, build in builders.items():
        for form in ("c1", "c3"):
            first = build()
            sent_first = rewrite_wire(wire, first, form=form).request
            for item in first:  # run A edits its history in place
                for blocks in (item.get("content"), item.get("output")):
                    for block in blocks if isinstance(blocks, list) else ():
                        block["text"] = "[removed]" if "text" in block else None
                        for inner in block.get("content") or ():
                            if isinstance(inner, dict):
                                inner["text"] = "[removed]"
            second = build()
            sent_second = rewrite_wire(wire, second, form=form).request
            assert sent_second == rewrite_wire(wire, build(), form=form).request != second, (wire, form)
            assert "[removed]" not in json.dumps(sent_second), (wire, form)
            # what run B sends holds none of run A's objects (nor of its own sent request)
            seen: set[int] = set()

            def walk(value: Any, into: set[int]) -> None:
                if isinstance(value, (dict, list)):
                    into.add(id(value))
                    for inner in value.values() if isinstance(value, dict) else value:
                        walk(inner, into)

            walk(first, seen)
            walk(sent_first, seen)
            mine: set[int] = set()
            walk(sent_second, mine)
            walk_second: set[int] = set()
            walk(second, walk_second)
            assert not (mine - walk_second) & seen, (wire, form)


class _SdkMessage:
    """An SDK's message object (a pydantic model's ``model_dump``), counting its dumps."""

    dumps = 0

    def __init__(self, value: dict[str, Any]) -> None:
        self.value = value

    def model_dump(self, **_: Any) -> dict[str, Any]:
        type(self).dumps += 1
        return json.loads(json.dumps(self.value))


def test_a_long_conversation_of_sdk_objects_reads_only_its_tail_when_nothing_failed() -> None:
    """``messages.append(response.choices[0].message)`` every turn: a request in which the
    decision step did not fail dumps the objects of its tail, not of the whole conversation
    (each request of a long run would dump every earlier message again); a failure after
    them is still delivered."""
    request: list[Any] = [{"role": "user", "content": "go"}]
    for i in range(200):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        request += [
            _SdkMessage({"role": "assistant", "content": None, "tool_calls": [call]}),
            {"role": "tool", "tool_call_id": f"c{i}", "content": f"line {i}"},
        ]
    _SdkMessage.dumps = 0
    assert rewrite_openai_chat(request) is request
    assert _SdkMessage.dumps <= 16
    request[-1] = {**request[-1], "content": RATE}
    out = rewrite_openai_chat(request)
    assert out[-1]["content"].startswith("Note from the tool runtime: the last attempt called read")
    assert out[:-1] == request and all(a is b for a, b in zip(out[:-2], request, strict=False))


def test_a_verdict_remembered_for_one_run_applies_to_that_runs_rewrite_only() -> None:
    """``rewrite_wire(..., run=)``: a relay that knows the session (the Claude Agent SDK's)
    remembers a verdict from the exception object under that session; another session
    with the same call id and the same text classifies the text alone."""
    text = "it did not work"
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "read a"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a"}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": text, "is_error": True}],
        },
    ]
    layer = toolerr.ToolErrorLayer()
    verdict = layer.inspect_exception(PermissionError(text), text=f"PermissionError: {text}", tool="read")
    assert verdict.kind == "unrecoverable"
    layer.remember("t1", verdict, text, run="session-a")
    mine = rewrite_wire("anthropic", copy.deepcopy(messages), layer=layer, run="session-a")
    other = rewrite_wire("anthropic", copy.deepcopy(messages), layer=layer, run="session-b")
    shared = rewrite_wire("anthropic", copy.deepcopy(messages), layer=layer)
    assert mine.changed and "Tell the user what happened." in json.dumps(mine.request)
    assert "Tell the user what happened." not in json.dumps(other.request)
    assert json.dumps(other.request) == json.dumps(shared.request)
