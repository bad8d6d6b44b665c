"""A LangGraph graph built by hand: ToolNode with ``handle_tool_errors`` (or the
middleware's ``wrap_tool_call``) and a model node that rewrites its messages."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import toolerr
from langchain_core.messages import BaseMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from lc_support import FIXABLE, TOOLS, TRANSIENT, UNRECOVERABLE, ai, holds_note, note, shown
from toolerr_langchain import ToolErrorMiddleware, handle_tool_errors, rewrite_messages, verdict_of
from toolerr_langchain.testing import ScriptedChatModel, tool_call

ASK = "Please do it."
PERMISSION = "Error: PermissionError: [Errno 13] Permission denied: '/etc/app.conf'"
WRITE = tool_call("write_file", "c1", path="/etc/app.conf", text="x=1")


def graph(
    model: ScriptedChatModel,
    tool_node: ToolNode,
    rewrite: Callable[[Sequence[BaseMessage]], list[BaseMessage]],
) -> Any:
    bound = model.bind_tools(tool_node.tools_by_name.values())

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(rewrite(state["messages"]))]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model)
    builder.add_node("tools", tool_node)
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition, ["tools", END])
    builder.add_edge("tools", "model")
    return builder.compile()


def test_tool_node_handle_tool_errors_and_rewrite_messages() -> None:
    model = ScriptedChatModel(script=[ai(WRITE), "done"])
    app = graph(model, ToolNode(TOOLS, handle_tool_errors=handle_tool_errors), rewrite_messages)
    state = app.invoke({"messages": [("user", ASK)]})

    assert shown(model.calls[1]) == [
        ("human", ASK),
        ("ai", ""),
        ("tool", PERMISSION),
        ("human", note("write_file", 'path="/etc/app.conf", text="x=1"', PERMISSION, UNRECOVERABLE)),
    ]
    assert not holds_note(state["messages"])
    assert state["messages"][2].status == "error"


def test_handle_tool_errors_keeps_the_classification_of_the_exception() -> None:
    """The text names no kind; the exception's HTTP status does (503: the request was
    turned away, so a retry is safe)."""

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        request = httpx.Request("GET", "https://search.example.com")
        response = httpx.Response(503, request=request)
        raise httpx.HTTPStatusError("upstream said no", request=request, response=response)

    model = ScriptedChatModel(script=[ai(tool_call("lookup", "c1", query="x")), "done"])
    app = graph(model, ToolNode([lookup], handle_tool_errors=handle_tool_errors), rewrite_messages)
    app.invoke({"messages": [("user", ASK)]})

    text = "Error: HTTPStatusError: upstream said no"
    assert shown(model.calls[1])[2:] == [
        ("tool", text),
        ("human", note("lookup", 'query="x"', text, TRANSIENT)),
    ]
    # Without the classification kept from the exception, the text alone is ambiguous.
    assert toolerr.inspect_result(text, is_error=True, client="langchain").kind == "ambiguous"


def test_tool_node_with_the_middleware_wrappers_sync_and_async() -> None:
    for run_async in (False, True):
        middleware = ToolErrorMiddleware(form="c1")
        model = ScriptedChatModel(script=[ai(WRITE), "done"])
        node = ToolNode(
            TOOLS, wrap_tool_call=middleware.wrap_tool_call, awrap_tool_call=middleware.awrap_tool_call
        )
        app = graph(model, node, middleware.rewrite)
        request = {"messages": [("user", ASK)]}
        state = asyncio.run(app.ainvoke(request)) if run_async else app.invoke(request)

        assert shown(model.calls[1]) == [
            ("human", ASK),
            ("ai", ""),
            ("tool", f"{PERMISSION}\n{UNRECOVERABLE}"),
        ]
        assert state["messages"][2].content == PERMISSION
        verdict = verdict_of(state["messages"][2])
        assert verdict is not None
        assert verdict.kind == "unrecoverable"


def test_rewrite_messages_without_failure_is_a_plain_copy() -> None:
    model = ScriptedChatModel(script=[ai(tool_call("get_weather", "c1", city="Oslo", days=1)), "done"])
    app = graph(model, ToolNode(TOOLS, handle_tool_errors=handle_tool_errors), rewrite_messages)
    state = app.invoke({"messages": [("user", ASK)]})
    assert all(a is b for a, b in zip(model.calls[1], state["messages"][:3], strict=True))


def test_handle_tool_errors_keeps_langchain_argument_error_text() -> None:
    bad = tool_call("get_weather", "c1", city="Paris", days="three")
    model = ScriptedChatModel(script=[ai(bad), "done"])
    app = graph(model, ToolNode(TOOLS, handle_tool_errors=handle_tool_errors), rewrite_messages)
    app.invoke({"messages": [("user", ASK)]})

    text = (
        "Error invoking tool 'get_weather' with kwargs {'city': 'Paris', 'days': 'three'} with error:\n"
        " days: Input should be a valid integer, unable to parse string as an integer\n"
        " Please fix the error and try again."
    )
    assert shown(model.calls[1])[2:] == [
        ("tool", text),
        ("human", note("get_weather", 'city="Paris", days="three"', text, FIXABLE)),
    ]
