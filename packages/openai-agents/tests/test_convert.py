"""Responses input items <-> the neutral conversation: the way back keeps every item the
core did not change as the very same object, and every function_call paired."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from toolerr import ToolErrorLayer
from toolerr_openai_agents._convert import to_conversation

USER = {"role": "user", "content": "Read both files."}
REASONING = {"type": "reasoning", "id": "rs_1", "summary": []}
SAY = {
    "type": "message",
    "role": "assistant",
    "id": "msg_1",
    "content": [{"type": "output_text", "text": "Reading.", "annotations": []}],
}
CALL_A = {"type": "function_call", "call_id": "a", "name": "read_file", "arguments": '{"path":"/root/a"}'}
CALL_B = {"type": "function_call", "call_id": "b", "name": "read_file", "arguments": '{"path":"/tmp/b"}'}
OUT_A = {
    "type": "function_call_output",
    "call_id": "a",
    "output": "PermissionError: [Errno 13] Permission denied",
}
OUT_B = {"type": "function_call_output", "call_id": "b", "output": "contents of b"}
HOSTED = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
REFERENCE = {"type": "item_reference", "id": "msg_0"}
APPROVAL = {"type": "mcp_approval_response", "approval_request_id": "apr_1", "approve": True}


def test_groups_model_side_items_into_one_assistant_message() -> None:
    items = [{"role": "developer", "content": "rules"}, USER, REASONING, SAY, CALL_A, CALL_B, OUT_A, OUT_B]
    conversation = to_conversation(items)
    roles = [m.role for m in conversation.messages]
    assert roles == ["system", "user", "assistant", "tool", "tool"]
    assistant = conversation.messages[2]
    assert assistant.content == "Reading."
    assert [(c.id, c.name, c.arguments) for c in assistant.tool_calls] == [
        ("a", "read_file", {"path": "/root/a"}),
        ("b", "read_file", {"path": "/tmp/b"}),
    ]
    assert [m.name for m in conversation.messages[3:]] == ["read_file", "read_file"]
    assert all(m.client == "openai-agents" for m in conversation.messages[3:])
    back = conversation.to_items(conversation.messages)
    assert all(x is y for x, y in zip(back, items, strict=True))


def test_c3_inserts_a_user_item_after_the_results_and_keeps_everything_else() -> None:
    items = [USER, REASONING, CALL_A, CALL_B, OUT_A, OUT_B]
    conversation = to_conversation(items)
    result = ToolErrorLayer(form="c3", client="openai-agents").rewrite(conversation.messages)
    assert result.changed
    back = conversation.to_items(result.messages)
    assert all(x is y for x, y in zip(back[:6], items, strict=True))
    assert back[6]["role"] == "user"
    assert back[6]["content"].startswith("Note from the tool runtime")
    assert len(back) == 7


def test_c2_removes_the_failed_pair_only() -> None:
    items = [USER, REASONING, CALL_A, CALL_B, HOSTED, OUT_A, OUT_B]
    conversation = to_conversation(items)
    result = ToolErrorLayer(form="c2", client="openai-agents").rewrite(conversation.messages)
    back = conversation.to_items(result.messages)
    assert back[:5] == [USER, REASONING, CALL_B, HOSTED, OUT_B]
    assert [back[0], back[2], back[4]] == [USER, CALL_B, OUT_B]
    assert all(x is y for x, y in zip([back[0], back[2], back[4]], [USER, CALL_B, OUT_B], strict=True))
    # The note goes in a new user item: the last item is not a user message.
    assert back[5]["role"] == "user"
    assert len(back) == 6


def test_c2_appends_to_a_trailing_user_message_with_content_parts() -> None:
    follow_up = {"role": "user", "content": [{"type": "input_text", "text": "Go on."}]}
    items = [USER, CALL_A, OUT_A, follow_up]
    conversation = to_conversation(items)
    result = ToolErrorLayer(form="c2", client="openai-agents").rewrite(conversation.messages)
    back = conversation.to_items(result.messages)
    assert back[0] is USER
    assert back[1]["content"][0] == {"type": "input_text", "text": "Go on."}
    assert back[1]["content"][1]["type"] == "input_text"
    assert back[1]["content"][1]["text"].startswith("Note from the tool runtime")
    assert follow_up["content"] == [{"type": "input_text", "text": "Go on."}]  # not modified


def test_unknown_items_keep_their_place() -> None:
    items = [USER, REFERENCE, CALL_A, OUT_A, APPROVAL]
    conversation = to_conversation(items)
    assert [m.role for m in conversation.messages] == ["user", "system", "assistant", "tool", "system"]
    result = ToolErrorLayer(form="c3", client="openai-agents").rewrite(conversation.messages)
    back = conversation.to_items(result.messages)
    assert back[:4] == [USER, REFERENCE, CALL_A, OUT_A]
    assert back[4]["role"] == "user"
    assert back[5] is APPROVAL


def test_unparseable_arguments_are_kept_raw() -> None:
    bad = {"type": "function_call", "call_id": "x", "name": "read_file", "arguments": '{"path": '}
    conversation = to_conversation([USER, bad])
    (call,) = conversation.messages[1].tool_calls
    assert call.arguments == '{"path": '
    assert call.raw_arguments == '{"path": '


@st.composite
def _inputs(draw: st.DrawFn) -> list[Any]:
    """Model inputs as the SDK builds them: user turns and exchanges (model-side items,
    then one output per call), with unique call ids and failed or good outputs."""
    items: list[Any] = []
    for turn in range(draw(st.integers(0, 5))):
        segment = draw(st.sampled_from(["user", "exchange", "other"]))
        if segment == "user":
            items.append(
                draw(
                    st.sampled_from(
                        [USER, {"role": "user", "content": [{"type": "input_text", "text": "Go on."}]}]
                    )
                )
            )
        elif segment == "other":
            items.append(draw(st.sampled_from([REFERENCE, APPROVAL])))
        else:
            if draw(st.booleans()):
                items.append(REASONING)
            if draw(st.booleans()):
                items.append(SAY)
            ids = [f"t{turn}c{n}" for n in range(draw(st.integers(0, 3)))]
            for call_id in ids:
                items.append({**CALL_A, "call_id": call_id})
            if draw(st.booleans()):
                items.append(HOSTED)
            for call_id in ids:
                failed = draw(st.booleans())
                items.append({**(OUT_A if failed else OUT_B), "call_id": call_id})
    return items


@settings(max_examples=300, deadline=None)
@given(_inputs(), st.sampled_from(["c0", "c1", "c2", "c3", "c4", "abstract"]))
def test_any_input_round_trips_and_keeps_calls_paired(items: list[Any], form: str) -> None:
    conversation = to_conversation(items)
    result = ToolErrorLayer(form=form, client="openai-agents").rewrite(conversation.messages)
    back = conversation.to_items(result.messages)
    if not result.changed:
        assert len(back) == len(items)
        assert all(x is y for x, y in zip(back, items, strict=True))
    original_ids = {id(item) for item in items}
    # Items that survive are the original objects, or changed copies of results and user messages.
    for item in back:
        if id(item) not in original_ids:
            assert item.get("type") == "function_call_output" or item.get("role") == "user"
    # Every call keeps its output and every output its call, in that order.
    seen_calls: set[str] = set()
    outputs: set[str] = set()
    for item in back:
        if item.get("type") == "function_call":
            seen_calls.add(item["call_id"])
        elif item.get("type") == "function_call_output":
            assert item["call_id"] in seen_calls
            outputs.add(item["call_id"])
    assert seen_calls == outputs


def test_a_grown_input_converts_to_the_same_messages_with_a_cache() -> None:
    from toolerr.adapters import ConversionCache

    cache = ConversionCache()
    first_items = [USER, SAY, CALL_A, CALL_B, OUT_A, OUT_B]
    first = to_conversation([dict(item) for item in first_items], cache)  # fresh dicts, same content
    grown = to_conversation([dict(item) for item in [*first_items, CALL_A, OUT_A]], cache)
    assert all(a is b for a, b in zip(first.messages, grown.messages[: len(first.messages)], strict=True))
    assert grown.messages == to_conversation([*first_items, CALL_A, OUT_A]).messages
    # the way back still gives the items of this input, and every call maps to its own item
    assert grown.to_items(grown.messages) == grown.items
    assert sorted(grown.call_items.values()) == [2, 3, 6]
    # the same content at another position is another message (origin is the position)
    moved = to_conversation([{"role": "user", "content": "first"}, *first_items], cache)
    assert moved.messages[1] is not first.messages[0] and moved.messages[1].origin == 1


def test_layer_replay_continues_from_the_previous_call_with_a_cache() -> None:
    from toolerr import Message, Verdict
    from toolerr.adapters import ConversionCache

    class CountingLayer(ToolErrorLayer):
        """Counts the tool results inspected (the replay inspects each result it pairs)."""

        inspected = 0

        def inspect(self, message: Message, *, run: object | None = None, arguments: Any = None) -> Verdict:
            self.inspected += 1
            return super().inspect(message, run=run, arguments=arguments)

    cache = ConversionCache()
    layer = CountingLayer()
    items: list[Any] = [USER]
    for n in range(40):
        items += [dict(CALL_B, call_id=f"b{n}"), dict(OUT_B, call_id=f"b{n}")]
    items += [CALL_A, OUT_A]
    counts, results = [], []
    for _ in range(2):
        conversation = to_conversation([dict(item) for item in items], cache)  # fresh dicts
        layer.inspected = 0
        results.append(layer.rewrite(conversation.messages))
        counts.append(layer.inspected)
    # the second replay found the first one's checkpoint (same message objects): besides the
    # decision step's result, only the last 16 calls are inspected again, not all 41
    assert counts == [1 + 41, 1 + 16]
    assert results[0].messages == results[1].messages and results[0].records == results[1].records
    assert len(_pairs(conversation.messages)) == 41


def _pairs(messages: Any) -> list[Any]:
    from toolerr.adapters import pair_results

    return [
        result
        for index, message in enumerate(messages)
        if message.role == "assistant" and message.tool_calls
        for result in pair_results(messages, index)
        if result.call is not None
    ]


def test_cached_conversions_key_every_field_the_conversion_reads() -> None:
    from toolerr.adapters import ConversionCache

    cache = ConversionCache()

    def convert(*items: Any) -> list[Any]:
        return to_conversation([USER, *items], cache).messages

    base = convert(CALL_A, dict(OUT_A, output="42"))
    # fields the conversion does not read (an item id, a status) give the same messages
    same = convert(dict(CALL_A, id="fc_1", status="completed"), dict(OUT_A, output="42", id="out_1"))
    assert all(a is b for a, b in zip(base, same, strict=True))
    # every field it reads makes another message, and a value of another type too
    for call, output in [
        (dict(CALL_A, arguments='{"path":"/root/b"}'), dict(OUT_A, output="42")),
        (dict(CALL_A, name="write_file"), dict(OUT_A, output="42")),
        (CALL_A, dict(OUT_A, output=42)),
        (CALL_A, dict(OUT_A, output=[{"type": "input_text", "text": "42"}])),
        (CALL_A, dict(OUT_A, output="43")),
    ]:
        other = convert(call, output)
        assert other == to_conversation([USER, call, output]).messages  # as converted afresh
        assert other[1] is not base[1] or other[2] is not base[2]
    assert convert(CALL_A, dict(OUT_A, output=42))[2].content == 42
