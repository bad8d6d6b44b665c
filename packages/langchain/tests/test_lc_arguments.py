"""The call's arguments in classification, on the real agent loop: the same ``ValueError``
is the model's to fix when it passed the value, and not when the tool read the value from a
file the model only named (the model is not told to correct what it did not write)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langchain_core.tools import tool
from lc_support import FIXABLE, ai
from toolerr_langchain import ToolErrorMiddleware, verdict_of
from toolerr_langchain.testing import ScriptedChatModel, tool_call


@tool
def set_age(age: str) -> str:
    """Set the user's age."""
    return f"age set to {int(age)}"


@tool
def import_contacts(path: str) -> str:
    """Import the contacts of a CSV file (name, age)."""
    with open(path, newline="") as f:
        ages = [int(row["age"]) for row in csv.DictReader(f)]
    return f"imported {len(ages)} contacts"


def _run(call: Any) -> tuple[ScriptedChatModel, ToolMessage]:
    model = ScriptedChatModel(script=[ai(call), "done"])
    agent = create_agent(model, [set_age, import_contacts], middleware=[ToolErrorMiddleware()])
    state = agent.invoke({"messages": [("user", "Please do it.")]})
    result = state["messages"][2]
    assert isinstance(result, ToolMessage) and result.status == "error"
    return model, result


def test_a_value_the_model_passed_is_its_to_fix() -> None:
    model, result = _run(tool_call("set_age", "c1", age="forty"))
    assert "invalid literal for int() with base 10: 'forty'" in str(result.content)
    verdict = verdict_of(result)
    assert verdict is not None and verdict.kind == "fixable"
    assert FIXABLE in str(model.calls[1][-1].content)  # the model was told to correct its value


def test_the_same_error_from_a_file_the_model_named_is_not(tmp_path: Path) -> None:
    contacts = tmp_path / "contacts.csv"
    contacts.write_text("name,age\nAda,36\nBob,forty\n")
    model, result = _run(tool_call("import_contacts", "c1", path=str(contacts)))
    assert "invalid literal for int() with base 10: 'forty'" in str(result.content)
    verdict = verdict_of(result)
    assert verdict is not None
    assert (verdict.kind, verdict.family) == ("ambiguous", "tool_input")
    assert not any(FIXABLE in str(m.content) for m in model.calls[1])  # nothing to correct


def test_a_path_the_model_got_wrong_stays_its_to_fix(tmp_path: Path) -> None:
    missing = tmp_path / "contacts.csv"
    _, result = _run(tool_call("import_contacts", "c1", path=str(missing)))
    verdict = verdict_of(result)
    assert "No such file or directory" in str(result.content)
    assert verdict is not None and verdict.family != "tool_input"  # not about data it read
