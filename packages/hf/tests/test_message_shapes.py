"""LangChain messages of the shapes a user's own loop holds, and generate options that
would give more than one reply per conversation."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from conftest import WEATHER_TOOLS, ScriptedTurns
from langchain_core.messages import AIMessageChunk, ChatMessage, HumanMessage, ToolMessage
from toolerr import Message
from toolerr_hf import ChatLocalModel, LocalToolModel
from toolerr_hf._langchain import from_langchain_messages

CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
FIXABLE = "Error: Invalid arguments: city must be 'City, CC', e.g. 'Paris, FR'."


def test_a_reply_gathered_from_stream_chunks_is_the_assistants_turn(tiny_model: Any, tokenizer: Any) -> None:
    backend = LocalToolModel(tiny_model, tokenizer)
    # what a user's streaming loop keeps: the sum of the chunks, an AIMessageChunk
    pieces = ['{"city": ', '"Paris"}']
    gathered = AIMessageChunk(
        content="", tool_call_chunks=[{"name": "get_weather", "args": pieces[0], "id": "c1", "index": 0}]
    ) + AIMessageChunk(content="", tool_call_chunks=[{"args": pieces[1], "index": 0}])
    assert gathered.tool_calls[0]["args"] == {"city": "Paris"}
    history = [
        HumanMessage("Weather in Paris?"),
        gathered,
        ToolMessage(FIXABLE, tool_call_id="c1", name="get_weather", status="error"),
    ]
    neutral = from_langchain_messages(history)
    assert [m.role for m in neutral] == ["user", "assistant", "tool"]
    assert [(c.id, c.name, c.arguments) for c in neutral[1].tool_calls] == [
        ("c1", "get_weather", {"city": "Paris"})
    ]
    turns = backend.chat_messages(neutral, WEATHER_TOOLS)
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "user"]
    assert turns[2]["content"] == "<tool_call>\n" + CALL + "\n</tool_call>"
    assert CALL in backend.banned_calls(neutral)  # the failed call is banned from the next reply


def test_a_chat_message_keeps_its_role() -> None:
    roles = [
        m.role
        for m in from_langchain_messages(
            [ChatMessage(role=r, content="x") for r in ("system", "assistant", "user", "critic")]
        )
    ]
    assert roles == ["system", "assistant", "user", "user"]


def test_more_than_one_reply_per_conversation_is_refused(tiny_model: Any, tokenizer: Any) -> None:
    backend = LocalToolModel(tiny_model, tokenizer, max_new_tokens=4)
    conversations = [[Message(role="user", content="hi")], [Message(role="user", content="Weather?")]]
    # each Generation is one conversation's reply: a second sequence would be taken as
    # the next conversation's
    with pytest.raises(ValueError, match="num_return_sequences"):
        backend.generate_batch(conversations, WEATHER_TOOLS, num_return_sequences=2, do_sample=True)
    with pytest.raises(ValueError, match="num_return_sequences"):
        LocalToolModel(tiny_model, tokenizer, num_return_sequences=2).generate(conversations[0])
    (reply,) = backend.generate_batch(conversations[:1], num_beams=2, num_return_sequences=1)
    assert reply.prompt.endswith("<|im_start|>assistant\n")


def test_a_tool_choice_that_names_no_given_tool_is_a_clear_error(tiny_model: Any, tokenizer: Any) -> None:
    backend = LocalToolModel(tiny_model, tokenizer, max_new_tokens=4)
    conversation = [Message(role="user", content="Weather?")]
    # the prompt would force a call to a tool the caller never gave
    with pytest.raises(ValueError, match=r"'get_wether' names no given tool.*get_weather"):
        backend.generate(conversation, WEATHER_TOOLS, tool_choice="get_wether")
    assert backend.render(conversation, WEATHER_TOOLS, tool_choice="get_weather").endswith('"arguments": ')
    assert backend.render(conversation, None, tool_choice="get_wether").endswith(
        "assistant\n"
    )  # no tools shown
    chat = ChatLocalModel(backend=backend).bind_tools(WEATHER_TOOLS, tool_choice=False)  # type: ignore[arg-type]
    message = chat.invoke("Weather?")
    assert message.tool_calls == [] and message.invalid_tool_calls == []  # False: no call forced


def test_a_reply_the_parser_fails_on_reaches_the_caller_as_prose(
    tiny_model: Any, tokenizer: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    backend = LocalToolModel(tiny_model, tokenizer, max_new_tokens=6)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr(backend.format, "parse", broken)
    caplog.set_level(logging.WARNING, logger="toolerr")
    reply = backend.generate([Message(role="user", content="Weather?")], WEATHER_TOOLS)
    assert reply.calls == () and reply.content == reply.text.strip() and reply.text
    assert reply.finish_reason in ("stop", "length")
    assert [r.levelno for r in caplog.records if r.name == "toolerr"] == [logging.WARNING]


def test_one_call_string_given_as_banned_is_one_call_not_its_characters(
    tiny_model: Any, tokenizer: Any
) -> None:
    other = '{"name": "get_weather", "arguments": {"city": "Paris, FR"}}'
    script = list(
        tokenizer("<tool_call>\n" + other + "\n</tool_call>", add_special_tokens=False)["input_ids"]
    )
    conversation = [Message(role="user", content="Weather in Paris?")]
    backend = LocalToolModel(tiny_model, tokenizer, max_new_tokens=40)
    reply = backend.generate(
        conversation, WEATHER_TOOLS, banned=CALL, logits_processor=[ScriptedTurns([script])]
    )
    assert reply.banned == frozenset({CALL})
    assert [(c.name, c.arguments) for c in reply.calls] == [("get_weather", {"city": "Paris, FR"})]
    (row,) = backend.generate_batch([conversation], banned=[CALL], max_new_tokens=2)
    assert row.banned == frozenset({CALL})
    for setting in ({"banned": CALL}, {"failed_calls": CALL}):
        scripted = LocalToolModel(
            tiny_model, tokenizer, max_new_tokens=40, logits_processor=[ScriptedTurns([script])]
        )
        message = (
            ChatLocalModel(backend=scripted).bind_tools(WEATHER_TOOLS, **setting).invoke("Weather in Paris?")
        )
        assert message.response_metadata["toolerr_banned"] == 1, setting
        assert message.tool_calls[0]["args"] == {"city": "Paris, FR"}


def test_an_image_in_a_tool_result_is_named_in_the_prompt_not_pasted_as_text(
    tiny_model: Any, tokenizer: Any
) -> None:
    payload = "iVBORw0KGgo" + "A" * 200_000  # a screenshot tool's PNG, base64
    image = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{payload}"}}
    history = [
        HumanMessage(content=[{"type": "text", "text": "What is on the screen?"}, image]),
        AIMessageChunk(
            content="", tool_call_chunks=[{"name": "screenshot", "args": "{}", "id": "c1", "index": 0}]
        ),
        ToolMessage(content=[{"type": "text", "text": "Screenshot taken."}, image], tool_call_id="c1"),
    ]
    backend = LocalToolModel(tiny_model, tokenizer)
    prompt = backend.render(from_langchain_messages(history), WEATHER_TOOLS)
    assert payload[:40] not in prompt and len(prompt) < 5_000  # a text model cannot read it
    assert "What is on the screen?\n[image_url]" in prompt
    assert "<tool_response>\nScreenshot taken.\n[image_url]\n</tool_response>" in prompt
