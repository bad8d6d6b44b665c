"""The request the model received at the decision step, byte for byte, for each kind and
form: the real pydantic-ai Agent loop with a scripted FunctionModel and a real tool that
raises a real exception."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest
from pa_support import Script, notes_in, shown
from pydantic_ai import Agent
from toolerr import DetectionRecord
from toolerr_pydantic_ai import ToolErrors

PERMISSION = "PermissionError: [Errno 13] Permission denied: '/etc/shadow'"
TIMEOUT = "TimeoutError: read timed out"
VALIDATION = (
    "ValidationError: 1 validation error for Order\nquantity\n  Input should be a valid integer, unable to "
    "parse string as an integer [type=int_parsing, input_value='a', input_type=str]\n    For further "
    "information visit https://errors.pydantic.dev/2.14/v/int_parsing"
)
STOP = "This cannot be fixed by retrying or by changing the arguments. Tell the user what happened."
CHECK_FIRST = (
    "This may be a temporary failure, but the call may already have taken effect. "
    "Check whether it did before calling the tool again."
)
RETRY = "This is a temporary failure. Retrying the same call is expected to succeed."
FIX = (
    "This call cannot succeed as written. The error says what to change; call the tool again with "
    "the corrected value."
)
CALL = ("response", [("call", "act", "c1", {"x": "a"})])


class Order(pydantic.BaseModel):
    quantity: int


def _run(form: str, error: str, **options: Any) -> tuple[Script, Any, list[DetectionRecord]]:
    records: list[DetectionRecord] = []
    script = Script([("act", {"x": "a"}, "c1")], "done")
    agent = Agent(script.model, capabilities=[ToolErrors(form=form, on_record=records.append, **options)])

    @agent.tool_plain
    def act(x: str) -> str:
        if error == "validation":
            Order.model_validate({"quantity": x})
        if error == "timeout":
            raise TimeoutError("read timed out")
        raise PermissionError(13, "Permission denied", "/etc/shadow")

    result = agent.run_sync("go")
    return script, result, records


def _note(error: str, guidance: str) -> str:
    return f'Note from the tool runtime: the last attempt called act with x="a" and it failed with: {error}\n\n{guidance}'


@pytest.mark.parametrize(
    ("error", "text", "outcome", "guidance", "kind"),
    [
        ("permission", PERMISSION, "failed", STOP, "unrecoverable"),
        ("timeout", TIMEOUT, "failed", CHECK_FIRST, "transient"),
        ("validation", VALIDATION, "retried", FIX, "fixable"),
    ],
)
def test_c3_each_kind(error: str, text: str, outcome: str, guidance: str, kind: str) -> None:
    script, result, records = _run("c3", error)

    assert result.output == "done"
    assert shown(script.requests[1]) == [
        ("request", [("user", "go")]),
        CALL,
        ("request", [("tool-return", "act", "c1", text, outcome), ("user", _note(text, guidance))]),
    ]
    assert [(r.tool, r.kind, r.changed, r.form) for r in records] == [("act", kind, True, "c3")]
    # the run's history never holds the note
    assert notes_in(result.all_messages()) == []
    assert shown(result.all_messages())[2] == ("request", [("tool-return", "act", "c1", text, outcome)])


@pytest.mark.parametrize(
    ("error", "text", "outcome", "guidance"),
    [
        ("permission", PERMISSION, "failed", STOP),
        ("timeout", TIMEOUT, "failed", CHECK_FIRST),
        ("validation", VALIDATION, "retried", FIX),
    ],
)
def test_c1_appends_the_guidance_to_the_tool_return(
    error: str, text: str, outcome: str, guidance: str
) -> None:
    script, result, _ = _run("c1", error)

    assert shown(script.requests[1])[2] == (
        "request",
        [("tool-return", "act", "c1", f"{text}\n{guidance}", outcome)],
    )
    assert shown(result.all_messages())[2] == ("request", [("tool-return", "act", "c1", text, outcome)])


def test_c0_records_and_changes_nothing() -> None:
    script, result, records = _run("c0", "permission")

    assert shown(script.requests[1]) == [
        ("request", [("user", "go")]),
        CALL,
        ("request", [("tool-return", "act", "c1", PERMISSION, "failed")]),
    ]
    assert script.requests[1] == result.all_messages()[:3]
    assert [(r.kind, r.changed, r.rule) for r in records] == [
        ("unrecoverable", False, "exception:PermissionError")
    ]


def test_c2_appends_the_note_to_the_last_user_message() -> None:
    script, result, _ = _run("c2", "permission")

    assert shown(script.requests[1]) == [("request", [("user", f"go\n\n{_note(PERMISSION, STOP)}")])]
    assert notes_in(result.all_messages()) == []
    assert len(result.all_messages()) == 4


@pytest.mark.parametrize(
    ("form", "note"),
    [
        ("c4", _note(PERMISSION, STOP)),
        (
            "abstract",
            "Note from the tool runtime: a call to act (arguments: x) failed with an unrecoverable error. "
            f"Diagnosis: {PERMISSION}\n\n{STOP}",
        ),
    ],
)
def test_c4_and_abstract_replace_the_failed_exchange(form: str, note: str) -> None:
    script, result, _ = _run(form, "permission")

    assert shown(script.requests[1]) == [("request", [("user", "go"), ("user", note)])]
    # the history still holds the real exchange, without the note
    assert shown(result.all_messages())[:3] == [
        ("request", [("user", "go")]),
        CALL,
        ("request", [("tool-return", "act", "c1", PERMISSION, "failed")]),
    ]
    assert notes_in(result.all_messages()) == []


def test_transient_on_a_read_only_tool_is_safe_to_retry() -> None:
    script, _, _ = _run("c3", "timeout", tool_safety={"act": "read_only"})

    assert shown(script.requests[1])[2][1][1] == ("user", _note(TIMEOUT, RETRY))


def test_the_diagnosis_is_capped() -> None:
    script = Script([("act", {}, "c1")], "done")
    agent = Agent(script.model, capabilities=[ToolErrors(form="c0", max_error_chars=120)])

    @agent.tool_plain
    def act() -> str:
        raise PermissionError("Permission denied: " + "x" * 5000)

    agent.run_sync("go")
    content = shown(script.requests[1])[2][1][0][3]
    assert content.startswith("PermissionError: Permission denied: xxx")
    assert len(content) < 200


def test_tool_metadata_declares_retry_safety() -> None:
    script = Script([("act", {"x": "a"}, "c1")], "done")
    agent = Agent(script.model, capabilities=[ToolErrors()])

    @agent.tool_plain(metadata={"toolerr_safety": "idempotent"})
    def act(x: str) -> str:
        raise TimeoutError("read timed out")

    agent.run_sync("go")
    assert shown(script.requests[1])[2][1][1] == ("user", _note(TIMEOUT, RETRY))


def test_explicit_tool_safety_wins_over_metadata() -> None:
    script = Script([("act", {"x": "a"}, "c1")], "done")
    agent = Agent(script.model, capabilities=[ToolErrors(tool_safety={"act": "unsafe"})])

    @agent.tool_plain(metadata={"toolerr_safety": "read_only"})
    def act(x: str) -> str:
        raise TimeoutError("read timed out")

    agent.run_sync("go")
    assert shown(script.requests[1])[2][1][1] == ("user", _note(TIMEOUT, CHECK_FIRST))
