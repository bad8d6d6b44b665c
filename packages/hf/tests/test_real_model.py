"""On the real embedded model (SmolLM2-135M-Instruct, loaded once per session): the ban, and a
LangChain agent end to end. No network."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
import torch
from conftest import WEATHER_CALL as CALL
from conftest import WEATHER_TOOLS as TOOLS
from conftest import Script, token_ids, weather_tool
from langchain.agents import create_agent
from langchain.agents.middleware import ToolCallLimitMiddleware
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from toolerr import Message
from toolerr._json_text import canonical_json_text
from toolerr_hf import ChatLocalModel, FailedCallBan, LocalToolModel, TokenTexts
from transformers import LogitsProcessorList

pytestmark = pytest.mark.slow

QUESTION = "What is the weather in Paris?"


@pytest.fixture(scope="module")
def backend(real_model: tuple[Any, Any]) -> LocalToolModel:
    model, tokenizer = real_model
    return LocalToolModel(model, tokenizer, max_new_tokens=32)


def texts_of(tokenizer: Any, ids: list[int]) -> str:
    return TokenTexts.of(tokenizer).text(ids)


def greedy(real_model: tuple[Any, Any], prompt: str, processors: list[Any], n: int = 18) -> str:
    model, tokenizer = real_model
    ids = tokenizer(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        out = model.generate(
            ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=n,
            do_sample=False,
            logits_processor=LogitsProcessorList(processors),
        )
    return str(tokenizer.decode(out[0, ids.shape[1] :], skip_special_tokens=True))


def test_a_banned_call_is_not_produced_where_greedy_decoding_produces_it(
    real_model: Any, backend: LocalToolModel
) -> None:
    prompt = backend.render([Message(role="user", content=QUESTION)], TOOLS, tool_choice="required")
    assert greedy(real_model, prompt, []).startswith(CALL)  # unconstrained: the call
    ban = FailedCallBan(real_model[1], [CALL])
    out = greedy(real_model, prompt, [ban])
    assert CALL not in out and CALL[:-1] not in out  # not even the same arguments with more after them
    # the model tried to close the arguments at one step and again at the next
    assert 1 <= ban.interventions <= 3


def test_the_same_string_by_another_tokenisation_is_blocked(real_model: Any, backend: LocalToolModel) -> None:
    tokenizer = real_model[1]
    prompt = backend.render([Message(role="user", content=QUESTION)], TOOLS, tool_choice="required")
    # Part of the call written one character per token (not how the tokenizer or the model
    # split it); the model then completes the call by itself.
    prefix = [
        *tokenizer('{"name": "get_weather", "', add_special_tokens=False)["input_ids"],
        *token_ids(tokenizer, [*'arguments": {"city": "', "Paris"]),
    ]
    assert texts_of(tokenizer, prefix) == CALL[:-3]
    assert prefix != tokenizer(CALL[:-3], add_special_tokens=False)["input_ids"]
    assert greedy(real_model, prompt, [Script([prefix])], n=len(prefix) + 6).startswith(CALL)
    ban = FailedCallBan(tokenizer, [CALL])
    out = greedy(real_model, prompt, [Script([prefix]), ban], n=len(prefix) + 6)
    assert out.startswith(CALL[:-3])
    assert ban.interventions == 1
    assert CALL not in out


def test_prose_containing_the_banned_text_is_not_blocked(real_model: Any, backend: LocalToolModel) -> None:
    prompt = (
        backend.render([Message(role="user", content=QUESTION)], TOOLS)
        + 'I would call {"name": "get_weather", "arguments": {"city": "Paris'
    )
    free = greedy(real_model, prompt, [], n=8)
    assert free.startswith('"}}')  # the model completes the banned text, in prose
    ban = FailedCallBan(real_model[1], [CALL])
    assert greedy(real_model, prompt, [ban], n=8) == free
    assert ban.blocked_steps == 0


def test_a_langchain_agent_on_the_local_model_gets_a_failure_and_continues(backend: LocalToolModel) -> None:
    calls: list[str] = []
    get_weather = weather_tool(calls)
    agent = create_agent(
        ChatLocalModel(backend=backend, tool_choice="required"),
        [get_weather],
        middleware=[ToolCallLimitMiddleware(run_limit=2, exit_behavior="end")],
    )
    state = agent.invoke({"messages": [HumanMessage(QUESTION)]})
    messages = state["messages"]
    results = [m for m in messages if isinstance(m, ToolMessage)]
    assert calls[0] == "Paris"
    assert results[0].status == "error"
    replies = [m for m in messages if isinstance(m, AIMessage)]
    assert len(replies) >= 2  # the model was called again after the failure
    second = replies[1]
    assert second.response_metadata["toolerr_banned"] >= 1
    first_text = next(iter(replies[0].response_metadata["toolerr_call_texts"].values()))
    second_texts = list(second.response_metadata.get("toolerr_call_texts", {}).values())
    # The failed call cannot be written again: not the same string, not with more keys
    # after its arguments, and not a white space variant of it (this model used to escape
    # the exact-string ban with `{"city": "Paris" }`) nor another key order. (It now writes
    # `{"city": "Paris","type": "string"}`: other arguments, which the ban allows.)
    failed = canonical_json_text(first_text.strip()[:-1])[0]
    assert second_texts
    assert all(failed not in canonical_json_text(text)[0] for text in second_texts)


def test_toolerr_middleware_on_the_local_model(backend: LocalToolModel) -> None:
    middleware = importlib.import_module("toolerr_langchain")  # installed by the hf session: never skip
    calls: list[str] = []

    @tool
    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        calls.append(city)
        if "," not in city:
            raise ValueError("Invalid arguments: city must be 'City, CC', e.g. 'Paris, FR'.")
        return "18 C, cloudy"

    seen: list[Any] = []
    agent = create_agent(
        ChatLocalModel(backend=backend, tool_choice="required"),
        [get_weather],
        middleware=[
            middleware.ToolErrorMiddleware(on_record=seen.append),
            ToolCallLimitMiddleware(run_limit=2, exit_behavior="end"),
        ],
    )
    state = agent.invoke({"messages": [HumanMessage(QUESTION)]})
    assert calls[0] == "Paris"
    assert any(isinstance(m, ToolMessage) and m.status == "error" for m in state["messages"])
    assert seen and seen[0].kind == "fixable" and seen[0].changed
    replies = [m for m in state["messages"] if isinstance(m, AIMessage)]
    assert len(replies) >= 2
