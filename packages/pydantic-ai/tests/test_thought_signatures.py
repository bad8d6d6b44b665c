"""Gemini thought signatures through the real pydantic-ai Agent, for every delivery form, and
the request pydantic-ai's own GoogleModel would build from what the model was given.

Google's rule (https://ai.google.dev/gemini-api/docs/thought-signatures, "Signatures in
function calling parts"): in a model turn with parallel calls only the FIRST function-call
part carries the signature; it goes back in the exact part it came in; the API validates
only the CURRENT turn (after the most recent user content with standard content, not a
function response): the first function-call part of every step must hold a signature
(Gemini 3: a 400 otherwise). pydantic-ai keeps a Gemini signature on the part it came with
(``ToolCallPart.provider_details["thought_signature"]``) and, mapping a response back, puts
Google's documented placeholder ``skip_thought_signature_validator`` on a response's first
call when it has none (``pydantic_ai/models/google.py``, ``_function_call_part_dict``).

What these tests pin: a form that removes the failed call (C2, C4, abstract) removes that
call's part with its signature, moves none and makes none up (the kept parts are the
history's own objects); GoogleModel's mapping then gives the kept first call pydantic-ai's
placeholder, never the removed call's signature, and ends the request with the note as a
user text content of its own (a new turn by Google's rule). C0, C1 and C3 leave every
response as the model made it, signatures byte for byte.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Sequence
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.google import GoogleModel
from pydantic_ai.providers.google import GoogleProvider
from toolerr.adapters import NOTE_PREFIX
from toolerr_pydantic_ai import ToolErrors

SIG_A = b"\x12\x0bsignature-A\x00\xff"
SIG_B = b"\x12\x0bsignature-B\x01\xfe"
PLACEHOLDER = b"skip_thought_signature_validator"

Call = tuple[str, bytes | None]
"""A planned call: its ``x`` argument (empty fails) and its signature."""


def call_part(x: str, call_id: str, signature: bytes | None) -> ToolCallPart:
    """A tool call part as GoogleModel makes it from a Gemini function-call part."""
    if signature is None:
        return ToolCallPart("act", {"x": x}, tool_call_id=call_id)
    details = {"thought_signature": base64.b64encode(signature).decode()}
    return ToolCallPart(
        "act", {"x": x}, tool_call_id=call_id, provider_name="google", provider_details=details
    )


def run_script(steps: Sequence[Sequence[Call]], form: str) -> tuple[list[ModelMessage], list[ModelMessage]]:
    """The real Agent loop; returns the messages the model got at the decision step (the step
    after the last planned one) and the run's own history."""
    requests: list[list[ModelMessage]] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        requests.append(list(messages))
        index = len(requests) - 1
        if index >= len(steps):
            return ModelResponse(parts=[TextPart("done")])
        parts = [call_part(x, f"s{index}c{i}", sig) for i, (x, sig) in enumerate(steps[index])]
        return ModelResponse(parts=parts, provider_name="google")

    agent = Agent(FunctionModel(answer), capabilities=[ToolErrors(form=form)])

    @agent.tool_plain
    def act(x: str) -> str:
        if not x:
            raise ValueError("x must not be empty")
        return f"done {x}"

    result = agent.run_sync("go")
    assert len(requests) == len(steps) + 1
    return requests[len(steps)], result.all_messages()


def gemini_contents(messages: list[ModelMessage]) -> list[Any]:
    """The contents pydantic-ai's GoogleModel sends to Gemini for these messages (its own
    message mapping, offline: the client is never called)."""
    model = GoogleModel("gemini-3-flash-preview", provider=GoogleProvider(api_key="offline"))
    _, contents = asyncio.run(model._map_messages(messages, ModelRequestParameters()))
    return list(contents)


def unsigned_steps(contents: Sequence[Any]) -> list[int]:
    """Google's documented validation: the indices of the model contents of the current turn
    (after the most recent user content holding anything but function responses) whose first
    function-call part has no thought signature."""
    start = 0
    for index in range(len(contents) - 1, -1, -1):
        content = contents[index]
        if content["role"] == "user" and any("function_response" not in p for p in content["parts"]):
            start = index
            break
    bad = []
    for index in range(start + 1, len(contents)):
        content = contents[index]
        calls = [p for p in content["parts"] if "function_call" in p]
        if content["role"] == "model" and calls and not calls[0].get("thought_signature"):
            bad.append(index)
    return bad


def model_calls(contents: Sequence[Any]) -> list[list[tuple[Any, bytes | None]]]:
    """Each model content's function calls as ``(x, thought_signature)``."""
    return [
        [
            (p["function_call"]["args"]["x"], p.get("thought_signature"))
            for p in c["parts"]
            if "function_call" in p
        ]
        for c in contents
        if c["role"] == "model"
    ]


def signatures(contents: Sequence[Any]) -> list[bytes]:
    """Every thought signature in the contents, on whatever part."""
    return [p["thought_signature"] for c in contents for p in c["parts"] if p.get("thought_signature")]


def history_calls(history: Sequence[ModelMessage]) -> dict[str, ToolCallPart]:
    return {
        p.tool_call_id: p
        for m in history
        if isinstance(m, ModelResponse)
        for p in m.parts
        if isinstance(p, ToolCallPart)
    }


def sent_calls(messages: Sequence[ModelMessage]) -> list[ToolCallPart]:
    return [
        p for m in messages if isinstance(m, ModelResponse) for p in m.parts if isinstance(p, ToolCallPart)
    ]


def ends_with_note(contents: Sequence[Any]) -> bool:
    last = contents[-1]
    return (
        last["role"] == "user"
        and all(set(p) == {"text"} for p in last["parts"])
        and NOTE_PREFIX in "".join(p["text"] for p in last["parts"])
    )


@pytest.mark.parametrize("form", ["c2", "c4", "abstract"])
def test_removing_the_signed_first_of_parallel_calls(form: str) -> None:
    sent, history = run_script([[("", SIG_A), ("a", None)]], form)
    own = history_calls(history)
    # the kept call is the history's own part (nothing carried onto it); the signed one is gone
    assert [p.tool_call_id for p in sent_calls(sent)] == ["s0c1"]
    assert sent_calls(sent)[0] is own["s0c1"] and own["s0c1"].provider_details is None
    contents = gemini_contents(sent)
    # GoogleModel gives the kept first call Google's placeholder, not the removed call's signature
    assert model_calls(contents) == [[("a", PLACEHOLDER)]]
    assert SIG_A not in signatures(contents)
    assert ends_with_note(contents)
    assert unsigned_steps(contents) == []


@pytest.mark.parametrize("form", ["c2", "c4", "abstract"])
def test_removing_an_unsigned_later_parallel_call_keeps_the_signature_in_place(form: str) -> None:
    sent, history = run_script([[("a", SIG_A), ("", None)]], form)
    assert sent_calls(sent) == [history_calls(history)["s0c0"]]
    contents = gemini_contents(sent)
    assert model_calls(contents) == [[("a", SIG_A)]]
    assert ends_with_note(contents) and unsigned_steps(contents) == []


@pytest.mark.parametrize("form", ["c2", "c4", "abstract"])
def test_removing_a_whole_step_leaves_earlier_steps_signed(form: str) -> None:
    """Sequential steps, each signed: the failed step goes entirely, with its signature (no
    call of it is left to need one); the earlier step keeps its own."""
    sent, _ = run_script([[("a", SIG_A)], [("", SIG_B)]], form)
    contents = gemini_contents(sent)
    assert model_calls(contents) == [[("a", SIG_A)]]
    assert SIG_B not in signatures(contents)
    assert ends_with_note(contents) and unsigned_steps(contents) == []


@pytest.mark.parametrize("form", ["c0", "c1", "c3"])
def test_forms_that_keep_the_call_keep_every_signature(form: str) -> None:
    steps: list[list[Call]] = [[("a", SIG_A)], [("", SIG_B), ("b", None)]]
    sent, history = run_script(steps, form)
    responses = [m for m in history if isinstance(m, ModelResponse)][:2]
    assert [m for m in sent if isinstance(m, ModelResponse)] == responses
    assert all(any(m is r for m in sent) for r in responses)  # the very objects
    contents = gemini_contents(sent)
    assert model_calls(contents) == [[("a", SIG_A)], [("", SIG_B), ("b", None)]]
    assert unsigned_steps(contents) == []
