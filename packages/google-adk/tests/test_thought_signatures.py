"""Gemini thought signatures through the real ADK Runner, for every delivery form.

Google's rule (https://ai.google.dev/gemini-api/docs/thought-signatures, "Signatures in
function calling parts"): in a model turn with parallel calls only the FIRST function-call
part carries the signature; it must go back in the exact part it came in; the API validates
only the CURRENT turn (the model contents after the most recent user content with standard
content, not a function response), where the first function-call part of every step must hold
its signature (Gemini 3: a 400 otherwise); earlier turns are not validated.

What these tests pin: a form that removes the failed call (C2, C4, abstract) drops that
call's part, signature and all, and never moves it or makes one up (the kept parts are the
session's own, byte for byte); the note it adds is a user text content at the END of the
request, so the current turn starts there and holds no model content: the request passes
Google's check, which it would fail without that last content when the removed call was the
signed one. C0, C1 and C3 leave every model content as the model made it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from adk_support import ScriptedLlm, dump
from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.runners import InMemoryRunner
from google.genai import types
from toolerr.adapters import NOTE_PREFIX
from toolerr_google_adk import ToolErrorPlugin

QUESTION = "What is the weather?"
SIG_A = b"\x12\x0bsignature-A\x00\xff"
SIG_B = b"\x12\x0bsignature-B\x01\xfe"


def call(city: str, signature: bytes | None = None) -> types.Part:
    return types.Part(
        function_call=types.FunctionCall(name="get_weather", args={"city": city}),
        thought_signature=signature,
    )


def get_weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    if not city:
        raise ValueError("city must not be empty")
    return {"city": city, "temperature_c": 12}


def run_script(script: Sequence[list[types.Part]], form: str) -> list[types.Content]:
    """One invocation through the real Runner; the contents the model got at the step after
    the last planned call (the decision step)."""
    model = ScriptedLlm(script, model="gemini-3-scripted")  # parts as Gemini sends them
    agent = LlmAgent(name="assistant", model=model, tools=[get_weather])
    runner = InMemoryRunner(app=App(name="app", root_agent=agent, plugins=[ToolErrorPlugin(form=form)]))

    async def go() -> None:
        session = await runner.session_service.create_session(app_name="app", user_id="u")
        message = types.Content(role="user", parts=[types.Part(text=QUESTION)])
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            pass

    asyncio.run(go())
    assert len(model.requests) == len(script) + 1
    return model.requests[len(script)]


def unsigned_steps(contents: Sequence[types.Content]) -> list[int]:
    """Google's documented validation: the indices of the model contents of the current turn
    (after the most recent user content holding anything but function responses) whose first
    function-call part has no thought signature."""
    start = 0
    for index in range(len(contents) - 1, -1, -1):
        content = contents[index]
        if content.role == "user" and any(p.function_response is None for p in content.parts or ()):
            start = index
            break
    bad = []
    for index in range(start + 1, len(contents)):
        content = contents[index]
        calls = [p for p in content.parts or () if p.function_call is not None]
        if content.role == "model" and calls and not calls[0].thought_signature:
            bad.append(index)
    return bad


def model_parts(contents: Sequence[types.Content]) -> list[list[dict[str, Any]]]:
    return [d["parts"] for d in dump(contents) if d["role"] == "model"]


def signed(parts: Sequence[types.Part]) -> list[dict[str, Any]]:
    return [p.model_dump(mode="json", exclude_none=True) for p in parts]


def is_note(content: types.Content) -> bool:
    parts = content.parts or ()
    return (
        content.role == "user"
        and bool(parts)
        and all(p.text is not None and p.function_response is None for p in parts)
        and NOTE_PREFIX in "".join(p.text or "" for p in parts)
    )


@pytest.mark.parametrize("form", ["c2", "c4", "abstract"])
def test_removing_the_signed_first_of_parallel_calls(form: str) -> None:
    """The signed first call fails and is removed: the kept call stays as the model sent it
    (no signature carried over or made up); the note after it starts a new turn, so Google's
    check holds, and it would not hold without the note."""
    sent = run_script([[call("", SIG_A), call("Paris")]], form)
    assert model_parts(sent) == [signed([call("Paris")])]
    assert all(not p.thought_signature for c in sent for p in c.parts or ())
    assert is_note(sent[-1])
    assert unsigned_steps(sent) == []
    assert unsigned_steps(sent[:-1]) == [1]  # the check can fail: the note is what makes it hold


@pytest.mark.parametrize("form", ["c2", "c4", "abstract"])
def test_removing_an_unsigned_later_parallel_call_keeps_the_signature_in_place(form: str) -> None:
    sent = run_script([[call("Paris", SIG_A), call("")]], form)
    assert model_parts(sent) == [signed([call("Paris", SIG_A)])]
    assert sent[1].parts is not None and sent[1].parts[0].thought_signature == SIG_A
    assert is_note(sent[-1])
    assert unsigned_steps(sent) == [] and unsigned_steps(sent[:-1]) == []


@pytest.mark.parametrize("form", ["c2", "c4", "abstract"])
def test_removing_a_whole_step_leaves_earlier_steps_signed(form: str) -> None:
    """Sequential steps (each signed): the failed step goes entirely, with its signature; no
    call of it is left to need one; the earlier step keeps its own, byte for byte."""
    script = [[call("Paris", SIG_A)], [call("", SIG_B)]]
    sent = run_script(script, form)
    assert model_parts(sent) == [signed([call("Paris", SIG_A)])]
    assert is_note(sent[-1])
    assert unsigned_steps(sent) == [] and unsigned_steps(sent[:-1]) == []


@pytest.mark.parametrize("form", ["c2", "c4", "abstract"])
def test_removing_every_call_of_a_step_with_text(form: str) -> None:
    """All calls of a step fail: its text stays, no function call (so no signature) is left."""
    script = [[types.Part(text="Let me look."), call("", SIG_A), call("", None)]]
    sent = run_script(script, form)
    assert model_parts(sent) == [[{"text": "Let me look."}]]
    assert is_note(sent[-1])
    assert unsigned_steps(sent) == []


@pytest.mark.parametrize("form", ["c0", "c1", "c3"])
def test_forms_that_keep_the_call_keep_every_signature(form: str) -> None:
    script = [[call("Paris", SIG_A)], [call("", SIG_B), call("Oslo")]]
    sent = run_script(script, form)
    assert model_parts(sent) == [signed(script[0]), signed(script[1])]
    assert unsigned_steps(sent) == []
