"""The LiteLLM SDK with ``litellm.callbacks = [ToolErrorCallback()]`` against the local
upstream: acompletion and aresponses are rewritten by the deployment hook; the sync
completion runs no request-rewriting hook (``rewrite_kwargs`` is the way there)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import litellm
import pytest
import toolerr
import toolerr_litellm
from conftest import Upstream
from toolerr_litellm import ToolErrorCallback

RATE = "Error: HTTP 429 Too Many Requests"


def messages() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "read the file"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": RATE},
    ]


@pytest.fixture
def handler(upstream: Upstream) -> Iterator[ToolErrorCallback]:
    upstream.clear()
    callback = ToolErrorCallback(model_groups={"openai/c1": {"form": "c1"}})
    saved = list(litellm.callbacks)
    litellm.callbacks = [callback]
    try:
        yield callback
    finally:
        litellm.callbacks = saved


def options(upstream: Upstream) -> dict[str, Any]:
    return {"api_base": f"{upstream.url}/v1", "api_key": "sk-up", "num_retries": 0}


def test_acompletion_is_rewritten(handler: ToolErrorCallback, upstream: Upstream) -> None:
    conversation = messages()
    answer = asyncio.run(
        litellm.acompletion(model="openai/gpt-test", messages=conversation, **options(upstream))
    )
    assert answer.choices[0].message.content == "done"
    assert upstream.last().json["messages"] == toolerr.rewrite_openai_chat(messages())
    assert conversation == messages()  # the caller's list is not modified


def test_acompletion_stream_is_rewritten(handler: ToolErrorCallback, upstream: Upstream) -> None:
    async def main() -> str:
        stream = await litellm.acompletion(
            model="openai/gpt-test", messages=messages(), stream=True, **options(upstream)
        )
        return "".join([chunk.choices[0].delta.content or "" async for chunk in stream])

    assert asyncio.run(main()) == "done"
    assert upstream.last().json["stream"] is True
    assert upstream.last().json["messages"] == toolerr.rewrite_openai_chat(messages())


def test_acompletion_model_group_form(handler: ToolErrorCallback, upstream: Upstream) -> None:
    asyncio.run(litellm.acompletion(model="openai/c1", messages=messages(), **options(upstream)))
    assert upstream.last().json["messages"] == toolerr.rewrite_openai_chat(messages(), "c1")


def test_router_model_group_form(handler: ToolErrorCallback, upstream: Upstream) -> None:
    """Through a ``litellm.Router`` the deployment hook gets the deployment's model
    (``openai/gpt-test``); the options of the model group the caller asked for apply."""
    deployment = {"model": "openai/gpt-test", "api_base": f"{upstream.url}/v1", "api_key": "sk-up"}
    router = litellm.Router(
        model_list=[{"model_name": "openai/c1", "litellm_params": deployment}], num_retries=0
    )
    asyncio.run(router.acompletion(model="openai/c1", messages=messages()))
    assert upstream.last().json["messages"] == toolerr.rewrite_openai_chat(messages(), "c1")


def test_aresponses_is_rewritten(handler: ToolErrorCallback, upstream: Upstream) -> None:
    items: list[dict[str, Any]] = [
        {"role": "user", "content": "read it"},
        {"type": "function_call", "call_id": "call_1", "name": "read_file", "arguments": '{"path": "a"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": RATE},
    ]
    asyncio.run(litellm.aresponses(model="openai/gpt-test", input=items, **options(upstream)))
    assert upstream.last().json["input"] == toolerr.rewrite_responses(items)


def test_sync_completion_runs_no_rewriting_hook(handler: ToolErrorCallback, upstream: Upstream) -> None:
    """LiteLLM's sync completion calls no hook that can change the request: the
    conversation goes as it is. The documented way: ``rewrite_kwargs``."""
    litellm.completion(model="openai/gpt-test", messages=messages(), **options(upstream))
    assert upstream.last().json["messages"] == messages()
    litellm.completion(
        **handler.rewrite_kwargs({"model": "openai/gpt-test", "messages": messages(), **options(upstream)})
    )
    assert upstream.last().json["messages"] == toolerr.rewrite_openai_chat(messages())


def test_response_objects_appended_to_the_conversation(
    handler: ToolErrorCallback, upstream: Upstream
) -> None:
    """The tool loop of LiteLLM's and OpenAI's docs appends the response's own objects
    (``messages.append(response.choices[0].message)``, ``input += response.output``): a
    failure after them is found as after dicts, on the sync way (``rewrite_kwargs``) and
    on ``aresponses``; the objects themselves go on unchanged."""
    from openai.types.responses import ResponseFunctionToolCall

    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "read_file", "arguments": '{"path": "a"}'},
    }
    first = asyncio.run(
        litellm.acompletion(
            model="openai/gpt-test", messages=messages()[:1], mock_tool_calls=[call], **options(upstream)
        )
    )
    assistant = first.choices[0].message
    assert not isinstance(assistant, dict)
    conversation = [messages()[0], assistant, messages()[2]]
    sent = handler.rewrite_kwargs({"model": "openai/gpt-test", "messages": conversation, **options(upstream)})
    assert sent["messages"][1] is assistant and len(sent["messages"]) == 4
    litellm.completion(**sent)
    assert upstream.last().json["messages"][3] == toolerr.rewrite_openai_chat(messages())[3]
    output = ResponseFunctionToolCall(
        type="function_call", id="fc_1", call_id="call_1", name="read_file", arguments='{"path": "a"}'
    )
    items: list[Any] = [
        {"role": "user", "content": "read it"},
        output,
        {"type": "function_call_output", "call_id": "call_1", "output": RATE},
    ]
    asyncio.run(litellm.aresponses(model="openai/gpt-test", input=items, **options(upstream)))
    received = upstream.last().json["input"]
    assert len(received) == 4 and received[1]["call_id"] == "call_1"
    assert received[3]["content"][0]["text"].startswith(
        "Note from the tool runtime: the last attempt called read_file"
    )
    assert items[1] is output and len(items) == 3  # the caller's list is not modified
    # Anthropic's loop: {"role": "assistant", "content": response.content} (the SDK's blocks)
    from anthropic.types import TextBlock, ToolUseBlock

    blocks = [
        TextBlock(type="text", text="Reading."),
        ToolUseBlock(type="tool_use", id="toolu_1", name="read_file", input={"path": "a"}),
    ]
    turns: list[dict[str, Any]] = [
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": blocks},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": RATE}]},
    ]
    sent = handler.rewrite_kwargs({"model": "claude", "messages": turns}, "anthropic_messages")
    assert sent["messages"][1] is turns[1] and sent["messages"][1]["content"] is blocks
    assert sent["messages"][2]["content"][1]["text"].startswith(
        'Note from the tool runtime: the last attempt called read_file with path="a"'
    )
    c4 = {"model": "claude", "messages": turns, "metadata": {"toolerr": {"form": "c4"}}}
    removed = handler.rewrite_kwargs(c4, "anthropic_messages")["messages"]
    assert [block["type"] for block in removed[1]["content"]] == ["text"]  # the tool_use goes with its result


def test_fails_open(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(ToolErrorCallback):
        def _resolve(self, data: Any, headers: Any) -> Any:
            raise RuntimeError("boom")

    data: dict[str, Any] = {"model": "m", "messages": messages()}
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        out = asyncio.run(Broken().async_pre_call_deployment_hook(data, "acompletion"))
    assert out is data and data["messages"] == messages()
    assert "passes unchanged" in caplog.text


def test_no_conversation_passes() -> None:
    data: dict[str, Any] = {"model": "m", "input": "embed me"}
    assert ToolErrorCallback().rewrite(data, "aembedding") == (data, None)
    assert toolerr_litellm.wire_of("anthropic_messages", {"messages": []}) == ("anthropic", "messages")
    assert toolerr_litellm.wire_of("aresponses", {"input": []}) == ("responses", "input")
    assert toolerr_litellm.wire_of("acompletion", {"messages": []}) == ("openai-chat", "messages")


def test_bad_model_group_fails_early() -> None:
    with pytest.raises(ValueError, match="model group 'x'"):
        ToolErrorCallback(model_groups={"x": {"form": "c9"}})


def test_public_api() -> None:
    assert sorted(toolerr_litellm.__all__) == sorted(
        [
            "CLIENT_HEADER",
            "FORM_HEADER",
            "HEADER",
            "METADATA_KEY",
            "ToolErrorCallback",
            "__version__",
            "default_callback",
            "header_for",
            "wire_of",
        ]
    )
    for name in toolerr_litellm.__all__:
        assert hasattr(toolerr_litellm, name)
    assert isinstance(toolerr_litellm.default_callback, litellm.integrations.custom_logger.CustomLogger)


def test_loop_action_stop_refuses_the_request(upstream: Upstream) -> None:
    """The one deliberate refusal: a repeated failing call with loop_action="stop" is not
    sent to the model; the caller gets an error naming the loop."""
    denied = "Error: EACCES: permission denied, open '/etc/shadow'"
    conversation: list[dict[str, Any]] = [{"role": "user", "content": "read it"}]
    for turn in range(3):
        call = {
            "id": f"c{turn}",
            "type": "function",
            "function": {"name": "read", "arguments": '{"path": "/s"}'},
        }
        conversation += [
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{turn}", "content": denied},
        ]
    saved = list(litellm.callbacks)
    litellm.callbacks = [ToolErrorCallback(loop_action="stop")]
    upstream.clear()
    try:
        with pytest.raises(Exception, match="toolerr stopped the run"):
            asyncio.run(
                litellm.acompletion(model="openai/gpt-test", messages=conversation, **options(upstream))
            )
    finally:
        litellm.callbacks = saved
    assert upstream.posts() == []
