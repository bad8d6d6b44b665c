"""The tool's declared parameters in classification, on the real agent loop: the same
``ValueError`` for the same value is the model's to fix when the parameter is one the model
writes ("SQL query to run"), and not when the tool declares it a reference to stored data
("Name of a saved query": the stored thing is not as expected, ambiguous, no note)."""

from __future__ import annotations

import asyncio
import logging
from typing import Annotated, Any

import pytest
import toolerr_langchain._parameters
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware import ToolErrorMiddleware as LangChainToolErrorMiddleware
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool, tool
from lc_support import FIXABLE, ai, note, shown
from pydantic import Field
from toolerr_langchain import ToolErrorMiddleware, verdict_of
from toolerr_langchain._parameters import declared_parameters
from toolerr_langchain.testing import ScriptedChatModel, tool_call

SAVED = "Name of a saved query"
PLAIN = "SQL query to run"
LITERAL = "invalid literal for int() with base 10: 'forty'"
ERROR = f"Error: ValueError: {LITERAL}"
ASK = "Churn by plan?"
CALL = tool_call("run_query", "c1", name="churn_by_plan")
FIXABLE_NOTE = note("run_query", 'name="churn_by_plan"', ERROR, FIXABLE)


def _raise(name: str) -> str:
    raise ValueError(LITERAL)


@tool("run_query")
def _saved_query(name: Annotated[str, Field(description=SAVED)]) -> str:
    """Run a query."""
    return _raise(name)


@tool("run_query")
def _plain_query(name: Annotated[str, Field(description=PLAIN)]) -> str:
    """Run a query."""
    return _raise(name)


def _annotated(description: str) -> BaseTool:
    """``@tool``: a pydantic ``args_schema`` with the parameter's description."""
    return _saved_query if description == SAVED else _plain_query


def _declared_by_dict(description: str) -> BaseTool:
    """A JSON-schema ``args_schema``, as langchain-mcp-adapters declares an MCP tool."""
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "description": description}},
        "required": ["name"],
    }
    return StructuredTool(name="run_query", description="Run a query.", args_schema=schema, func=_raise)


MAKERS = {"annotated": _annotated, "dict": _declared_by_dict}


def _run(
    run_query: BaseTool, *, invoke: str = "invoke", inner: AgentMiddleware[Any, Any, Any] | None = None
) -> tuple[ScriptedChatModel, ToolMessage]:
    model = ScriptedChatModel(script=[ai(CALL), "done"])
    middleware = [ToolErrorMiddleware(), *([] if inner is None else [inner])]
    agent = create_agent(model, [run_query], middleware=middleware)
    state: Any = {"messages": [("user", ASK)]}
    state = agent.invoke(state) if invoke == "invoke" else asyncio.run(agent.ainvoke(state))
    result = state["messages"][2]
    assert isinstance(result, ToolMessage) and result.status == "error"
    return model, result


@pytest.mark.parametrize("invoke", ["invoke", "ainvoke"])
@pytest.mark.parametrize("maker", list(MAKERS))
def test_a_parameter_the_model_writes_is_its_to_fix(maker: str, invoke: str) -> None:
    model, result = _run(MAKERS[maker](PLAIN), invoke=invoke)
    assert shown(model.calls[1]) == [("human", ASK), ("ai", ""), ("tool", ERROR), ("human", FIXABLE_NOTE)]
    verdict = verdict_of(result)
    assert verdict is not None and verdict.kind == "fixable"


@pytest.mark.parametrize("invoke", ["invoke", "ainvoke"])
@pytest.mark.parametrize("maker", list(MAKERS))
def test_a_parameter_declared_as_stored_data_is_not(maker: str, invoke: str) -> None:
    model, result = _run(MAKERS[maker](SAVED), invoke=invoke)
    assert shown(model.calls[1]) == [("human", ASK), ("ai", ""), ("tool", ERROR)]  # no note
    verdict = verdict_of(result)
    assert verdict is not None and (verdict.kind, verdict.family) == ("ambiguous", "tool_input")


@pytest.mark.parametrize("description", [SAVED, PLAIN])
def test_an_error_result_an_inner_middleware_built(description: str) -> None:
    """LangChain's own ToolErrorMiddleware inside toolerr's turns the exception into the
    error result: toolerr classifies that result with the tool's parameters too."""
    inner = LangChainToolErrorMiddleware(lambda exc, request: f"Error: {type(exc).__name__}: {exc}")
    model, result = _run(_annotated(description), inner=inner)
    verdict = verdict_of(result)
    assert verdict is not None
    if description == SAVED:
        assert shown(model.calls[1]) == [("human", ASK), ("ai", ""), ("tool", ERROR)]
        assert verdict.kind == "ambiguous"
    else:
        assert shown(model.calls[1])[-1] == ("human", FIXABLE_NOTE)
        assert verdict.kind == "fixable"


def test_the_schema_is_read_once_per_tool() -> None:
    annotated, by_dict = _annotated(SAVED), _declared_by_dict(SAVED)
    schema = declared_parameters(annotated)
    assert schema is not None and schema["properties"]["name"]["description"] == SAVED
    assert declared_parameters(annotated) is schema  # the same object: the core's cache holds
    assert declared_parameters(by_dict) is by_dict.args_schema
    assert declared_parameters(None) is None


def test_a_schema_that_cannot_be_read_fails_open(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def boom(tool: Any) -> dict[str, Any]:
        raise RuntimeError("injected failure")

    monkeypatch.setattr(toolerr_langchain._parameters, "_json_schema", boom)
    monkeypatch.setattr(toolerr_langchain._parameters, "_by_tool", {})  # not read yet
    with caplog.at_level(logging.WARNING, logger="toolerr"):
        model, _ = _run(_annotated(SAVED))
    assert shown(model.calls[1])[-1] == ("human", FIXABLE_NOTE)  # classified without it
    assert [r for r in caplog.records if "declared parameters" in r.getMessage()]
