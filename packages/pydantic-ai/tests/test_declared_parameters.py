"""The tool's declared parameters (``ToolDefinition.parameters_json_schema``) classify its
failure with the call's arguments, on the real Agent loop: a value rejected for a parameter
declared as a reference to stored data ("Name of a saved query") came from the data the
tool read (ambiguous: a failed result, no note, no retry spent); the same value for a
parameter the model writes ("SQL query to run") is the model's to fix (fixable: the
framework's retry path and the note with the fixable guidance)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

import pytest
import toolerr_pydantic_ai._capability
from pa_support import Script, shown
from pydantic_ai import Agent, Tool
from pydantic_ai.tools import ToolDefinition
from toolerr import DetectionRecord
from toolerr_pydantic_ai import ToolErrors

SAVED = "Name of a saved query"
PLAIN = "SQL query to run"
ERROR = "ValueError: invalid literal for int() with base 10: 'forty'"
FIX = (
    "This call cannot succeed as written. The error says what to change; call the tool again with "
    "the corrected value."
)
NOTE = (
    'Note from the tool runtime: the last attempt called run_query with name="churn_by_plan" '
    f"and it failed with: {ERROR}\n\n{FIX}"
)


def saved_query(name: str) -> str:
    """Run a query.

    Args:
        name: Name of a saved query
    """
    raise ValueError("invalid literal for int() with base 10: 'forty'")


def sql_query(name: str) -> str:
    """Run a query.

    Args:
        name: SQL query to run
    """
    raise ValueError("invalid literal for int() with base 10: 'forty'")


FUNCTIONS = {SAVED: saved_query, PLAIN: sql_query}


def _run(description: str, mode: str = "run_sync") -> tuple[Script, list[DetectionRecord]]:
    records: list[DetectionRecord] = []
    script = Script([("run_query", {"name": "churn_by_plan"}, "c1")], "done")
    tool = Tool(FUNCTIONS[description], name="run_query")
    agent = Agent(script.model, tools=[tool], capabilities=[ToolErrors(on_record=records.append)])
    if mode == "run_sync":
        result = agent.run_sync("Churn by plan?")
    else:

        async def streamed() -> str:
            async with agent.run_stream("Churn by plan?") as run:
                return await run.get_output()

        result = None
        assert asyncio.run(streamed()) == "done"
    assert result is None or result.output == "done"
    return script, records


def test_the_schema_is_what_pydantic_ai_declares() -> None:
    schema = Tool(saved_query, name="run_query").tool_def.parameters_json_schema
    assert schema["properties"]["name"]["description"] == SAVED


@pytest.mark.parametrize("mode", ["run_sync", "run_stream"])
def test_a_parameter_the_model_writes_is_its_to_fix(mode: str) -> None:
    script, records = _run(PLAIN, mode)
    assert shown(script.requests[1])[2] == (
        "request",
        [("tool-return", "run_query", "c1", ERROR, "retried"), ("user", NOTE)],
    )
    assert [(r.tool, r.kind) for r in records] == [("run_query", "fixable")]


@pytest.mark.parametrize("mode", ["run_sync", "run_stream"])
def test_a_parameter_declared_as_stored_data_is_not(mode: str) -> None:
    script, records = _run(SAVED, mode)
    assert shown(script.requests[1])[2] == ("request", [("tool-return", "run_query", "c1", ERROR, "failed")])
    assert [(r.tool, r.kind, r.changed) for r in records] == [("run_query", "ambiguous", False)]


class _Unreadable:
    """A tool definition whose schema raises when read."""

    @property
    def parameters_json_schema(self) -> dict[str, Any]:
        raise RuntimeError("injected failure")


def test_a_schema_that_cannot_be_read_fails_open(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        assert (
            toolerr_pydantic_ai._capability.declared_parameters(cast(ToolDefinition, _Unreadable())) is None
        )
    assert [r for r in caplog.records if "declared parameters" in r.getMessage()]
