"""The real create_agent loop: what the model saw at the decision step, byte for byte, for
each kind of failure and each form; the agent's state never holds a note."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from lc_support import (
    CHECK_FIRST,
    FIXABLE,
    FORBIDDEN_TEXT,
    NOTE_PREFIX,
    TOOLS,
    TRANSIENT,
    TRANSIENT_AFTER_2,
    UNRECOVERABLE,
    ai,
    holds_note,
    note,
    shown,
)
from toolerr import DetectionRecord
from toolerr_langchain import ToolErrorMiddleware, verdict_of
from toolerr_langchain.testing import ScriptedChatModel, tool_call

SYSTEM = "You are a careful assistant."
ASK = "Please do it."


@dataclass(frozen=True)
class Case:
    call: dict[str, Any]
    content: str
    """The tool result LangChain (or the middleware) produced."""
    kind: str | None
    guidance: str | None
    arguments: str
    diagnosis: str
    safety: dict[str, Any] = field(default_factory=dict)


CASES = {
    "timeout": Case(
        tool_call("fetch", "c1", url="https://api.example.com/slow"),
        "Error: ReadTimeout: timed out",
        "transient",
        CHECK_FIRST,
        'url="https://api.example.com/slow"',
        "Error: ReadTimeout: timed out",
    ),
    "timeout-read-only": Case(
        tool_call("fetch", "c1", url="https://api.example.com/slow"),
        "Error: ReadTimeout: timed out",
        "transient",
        TRANSIENT,
        'url="https://api.example.com/slow"',
        "Error: ReadTimeout: timed out",
        {"fetch": "read_only"},
    ),
    "rate-limited": Case(
        tool_call("fetch", "c1", url="https://api.example.com/busy"),
        "Error: HTTPStatusError: Client error '429 Too Many Requests' for url 'https://api.example.com/busy'\n"
        "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/429",
        "transient",
        TRANSIENT_AFTER_2,
        'url="https://api.example.com/busy"',
        "Error: HTTPStatusError: Client error '429 Too Many Requests' for url 'https://api.example.com/busy'\n"
        "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/429",
    ),
    "http-403": Case(
        tool_call("fetch", "c1", url="https://api.example.com/forbidden"),
        FORBIDDEN_TEXT,
        "unrecoverable",
        UNRECOVERABLE,
        'url="https://api.example.com/forbidden"',
        FORBIDDEN_TEXT,
    ),
    "permission": Case(
        tool_call("write_file", "c1", path="/etc/app.conf", text="x=1"),
        "Error: PermissionError: [Errno 13] Permission denied: '/etc/app.conf'",
        "unrecoverable",
        UNRECOVERABLE,
        'path="/etc/app.conf", text="x=1"',
        "Error: PermissionError: [Errno 13] Permission denied: '/etc/app.conf'",
    ),
    "validation": Case(
        tool_call("get_weather", "c1", city="Paris", days="three"),
        "Error invoking tool 'get_weather' with kwargs {'city': 'Paris', 'days': 'three'} with error:\n"
        " days: Input should be a valid integer, unable to parse string as an integer\n"
        " Please fix the error and try again.",
        "fixable",
        FIXABLE,
        'city="Paris", days="three"',
        "days: Input should be a valid integer, unable to parse string as an integer",
    ),
    "unknown-tool": Case(
        tool_call("get_wether", "c1", city="Paris"),
        "Error: get_wether is not a valid tool, try one of [fetch, write_file, get_weather].",
        "fixable",
        FIXABLE,
        'city="Paris"',
        "Error: get_wether is not a valid tool, try one of [fetch, write_file, get_weather].",
    ),
    "ambiguous-404": Case(
        tool_call("fetch", "c1", url="https://api.example.com/gone"),
        "Error: HTTPStatusError: Client error '404 Not Found' for url 'https://api.example.com/gone'\n"
        "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/404",
        None,
        None,
        'url="https://api.example.com/gone"',
        "",
    ),
}

FORMS = ["c0", "c1", "c2", "c3", "c4", "abstract"]


def expected(case: Case, form: str) -> list[tuple[str, Any]]:
    base = [("system", SYSTEM), ("human", ASK), ("ai", ""), ("tool", case.content)]
    if case.guidance is None or form == "c0":
        return base
    name = case.call["name"]
    if form == "c1":
        return [*base[:3], ("tool", f"{case.content}\n{case.guidance}")]
    runtime_note = note(name, case.arguments, case.content, case.guidance)
    if form == "c2":
        return [("system", SYSTEM), ("human", f"{ASK}\n\n{runtime_note}")]
    if form == "c3":
        return [*base, ("human", runtime_note)]
    if form == "c4":
        return [("system", SYSTEM), ("human", ASK), ("human", runtime_note)]
    names = ", ".join(case.call["args"])
    article = "an" if case.kind == "unrecoverable" else "a"
    abstract = (
        f"{NOTE_PREFIX}a call to {name} (arguments: {names}) failed with {article} {case.kind} error. "
        f"Diagnosis: {case.diagnosis}\n\n{case.guidance}"
    )
    return [("system", SYSTEM), ("human", ASK), ("human", abstract)]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", list(CASES))
def test_decision_step_bytes_for_each_kind_and_form(name: str, form: str) -> None:
    case = CASES[name]
    records: list[DetectionRecord] = []
    model = ScriptedChatModel(script=[ai(case.call), "I am done."])
    middleware = ToolErrorMiddleware(form=form, tool_safety=case.safety, on_record=records.append)
    agent = create_agent(model, TOOLS, system_prompt=SYSTEM, middleware=[middleware])

    state = agent.invoke({"messages": [("user", ASK)]})

    assert shown(model.calls[0]) == [("system", SYSTEM), ("human", ASK)]
    assert shown(model.calls[1]) == expected(case, form)
    # The agent's state holds the failure as LangChain built it, and no note.
    assert shown(state["messages"]) == [
        ("human", ASK),
        ("ai", ""),
        ("tool", case.content),
        ("ai", "I am done."),
    ]
    assert not holds_note(state["messages"])
    result = state["messages"][2]
    assert isinstance(result, ToolMessage)
    assert result.status == "error"
    verdict = verdict_of(result)
    assert verdict is not None
    assert verdict.failed
    assert verdict.kind == (case.kind or "ambiguous")
    # One detection record per failure at the decision step.
    assert [(r.tool, r.call_id, r.kind, r.form) for r in records] == [
        (case.call["name"], "c1", case.kind or "ambiguous", form)
    ]
    assert records[0].changed is (form != "c0" and case.guidance is not None)


def test_the_note_is_for_one_model_call_only() -> None:
    """The next model call sees the earlier failure in LangChain's form again."""
    call = tool_call("write_file", "c1", path="/etc/app.conf", text="x=1")
    model = ScriptedChatModel(
        script=[ai(call), ai(tool_call("get_weather", "c2", city="Oslo", days=2)), "ok"]
    )
    agent = create_agent(model, TOOLS, middleware=[ToolErrorMiddleware()])

    agent.invoke({"messages": [("user", ASK)]})

    assert holds_note(model.calls[1])
    assert not holds_note(model.calls[2])
    assert shown(model.calls[2]) == [
        ("human", ASK),
        ("ai", ""),
        ("tool", "Error: PermissionError: [Errno 13] Permission denied: '/etc/app.conf'"),
        ("ai", ""),
        ("tool", "Oslo: sunny for 2 days"),
    ]


def test_no_failure_passes_the_request_unchanged() -> None:
    model = ScriptedChatModel(script=[ai(tool_call("get_weather", "c1", city="Oslo", days=2)), "ok"])
    plain = ScriptedChatModel(script=[ai(tool_call("get_weather", "c1", city="Oslo", days=2)), "ok"])
    create_agent(model, TOOLS, middleware=[ToolErrorMiddleware()]).invoke({"messages": [("user", ASK)]})
    create_agent(plain, TOOLS).invoke({"messages": [("user", ASK)]})

    assert [[m.model_dump(exclude={"id"}) for m in call] for call in model.calls] == [
        [m.model_dump(exclude={"id"}) for m in call] for call in plain.calls
    ]
