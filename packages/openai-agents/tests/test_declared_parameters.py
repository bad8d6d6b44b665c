"""The tool's declared parameters (its ``params_json_schema``) classify its failure with the
call's arguments: a value rejected for a parameter declared as a reference to stored data
("Name of a saved query") came from the data the tool read (ambiguous: no note in C3), the
same value for a parameter the model writes ("SQL query to run") is the model's to fix
(fixable: the note with the fixable guidance)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from agents import Agent, FunctionTool, function_tool
from agents.tool_context import ToolContext
from oa_support import call, done, note, run_agent, scripted
from shared_support import FIXABLE
from toolerr import DetectionRecord
from toolerr_openai_agents import ToolErrorRecovery

LITERAL = "invalid literal for int() with base 10: 'forty'"
SHOWN = f"ValueError: {LITERAL}"
SAVED = "Name of a saved query"
PLAIN = "SQL query to run"


def _run_query(description: str, **options: Any) -> FunctionTool:
    def run_query(name: str) -> str:
        raise ValueError(LITERAL)

    run_query.__doc__ = f"Run a query.\n\nArgs:\n    name: {description}\n"
    return function_tool(run_query, **options)


def _decision(
    tool: FunctionTool, mode: str = "run", recovery: ToolErrorRecovery | None = None
) -> tuple[list[dict[str, Any]], list[DetectionRecord]]:
    records: list[DetectionRecord] = []
    recovery = recovery or ToolErrorRecovery(on_record=records.append)
    model = scripted([call("run_query", {"name": "churn_by_plan"}, "c1")], [done()])
    agent = Agent(name="analyst", model=model, tools=[tool])
    run_agent(mode, agent, "Churn by plan?", run_config=recovery.run_config())
    return list(model.calls[1].input), records


def test_the_schema_is_what_the_sdk_declares() -> None:
    assert _run_query(SAVED).params_json_schema["properties"]["name"]["description"] == SAVED


@pytest.mark.parametrize("description", [SAVED, PLAIN])
def test_the_declared_parameters_decide_the_note(mode: str, description: str) -> None:
    decision, records = _decision(_run_query(description), mode)

    assert decision[2] == {"call_id": "c1", "output": SHOWN, "type": "function_call_output"}
    if description == SAVED:  # ambiguous: the result as the tool answered, no note
        assert len(decision) == 3
        assert [(r.tool, r.kind, r.changed) for r in records] == [("run_query", "ambiguous", False)]
    else:
        assert decision[3] == {
            "role": "user",
            "content": note("run_query", 'name="churn_by_plan"', SHOWN, FIXABLE),
        }
        assert [(r.tool, r.kind, r.changed) for r in records] == [("run_query", "fixable", True)]


@pytest.mark.parametrize("description", [SAVED, PLAIN])
def test_the_tools_own_failure_function_reads_them_too(description: str) -> None:
    records: list[DetectionRecord] = []
    recovery = ToolErrorRecovery(on_record=records.append)
    tool = _run_query(description, failure_error_function=recovery.failure_error_function)

    decision, _ = _decision(tool, recovery=recovery)

    assert decision[2]["output"] == SHOWN
    notes = [item["content"] for item in decision[3:]]
    assert notes == (
        [] if description == SAVED else [note("run_query", 'name="churn_by_plan"', SHOWN, FIXABLE)]
    )


class _BrokenAgent:
    @property
    def tools(self) -> list[Any]:
        raise RuntimeError("no tools here")


def test_a_schema_that_cannot_be_read_fails_open(caplog: pytest.LogCaptureFixture) -> None:
    """An agent whose tools cannot be read: the failure is classified without the schema."""
    recovery = ToolErrorRecovery()
    context = ToolContext(
        None, tool_name="run_query", tool_call_id="c1", tool_arguments='{"name": "churn_by_plan"}'
    )
    context.agent = _BrokenAgent()  # type: ignore[assignment]

    with caplog.at_level(logging.WARNING, logger="toolerr"):
        text = recovery.failure_error_function(context, ValueError(LITERAL))

    assert text == SHOWN
    assert "reading the tool's declared parameters failed" in caplog.text


def test_a_tool_not_on_the_agent_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """No schema to read (the tool is not among the agent's, as an MCP tool): the failure is
    classified without it, and that is not worth a log line."""
    context = ToolContext(None, tool_name="run_query", tool_call_id="c1", tool_arguments="{}")
    context.agent = Agent(name="empty")

    with caplog.at_level(logging.DEBUG, logger="toolerr"):
        assert ToolErrorRecovery().failure_error_function(context, ValueError(LITERAL)) == SHOWN

    assert "declared parameters" not in caplog.text
