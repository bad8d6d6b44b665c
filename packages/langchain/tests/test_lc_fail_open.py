"""An internal toolerr error never breaks the agent: the model sees the conversation as
LangChain built it and the error is logged on logger ``toolerr``."""

from __future__ import annotations

import logging
from typing import Any, NoReturn

import pytest
import toolerr._layer
import toolerr_langchain._messages
import toolerr_langchain._middleware
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from lc_support import TOOLS, UNRECOVERABLE, ai, shown
from toolerr_langchain import ToolErrorMiddleware, verdict_of
from toolerr_langchain.testing import ScriptedChatModel, tool_call

ASK = "Please do it."
PERMISSION = "Error: PermissionError: [Errno 13] Permission denied: '/etc/app.conf'"
WRITE = tool_call("write_file", "c1", path="/etc/app.conf", text="x=1")
AS_LANGCHAIN_BUILT_IT = [("human", ASK), ("ai", ""), ("tool", PERMISSION)]


def _boom(*args: Any, **kwargs: Any) -> NoReturn:
    raise RuntimeError("injected failure")


def _errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "toolerr" and r.levelno == logging.WARNING]


def run(middleware: ToolErrorMiddleware) -> tuple[ScriptedChatModel, Any]:
    model = ScriptedChatModel(script=[ai(WRITE), "done"])
    state = create_agent(model, TOOLS, middleware=[middleware]).invoke({"messages": [("user", ASK)]})
    return model, state


def test_failure_inside_the_core_rewrite(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(toolerr._layer, "apply_form", _boom)
    model, state = run(ToolErrorMiddleware())
    assert shown(model.calls[1]) == AS_LANGCHAIN_BUILT_IT
    assert state["messages"][-1].content == "done"
    assert any("injected failure" in (r.exc_text or "") for r in _errors(caplog))


def test_failure_in_the_adapter_conversion(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(toolerr_langchain._messages, "neutral", _boom)
    model, _ = run(ToolErrorMiddleware())
    assert shown(model.calls[1]) == AS_LANGCHAIN_BUILT_IT
    assert _errors(caplog)


def test_failure_in_the_back_conversion(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(toolerr_langchain._messages, "from_toolerr", _boom)
    model, _ = run(ToolErrorMiddleware())
    assert shown(model.calls[1]) == AS_LANGCHAIN_BUILT_IT
    assert _errors(caplog)


def test_failure_while_classifying_an_exception_still_returns_the_error_result(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    middleware = ToolErrorMiddleware()
    monkeypatch.setattr(middleware.layer, "inspect_exception", _boom)
    model, state = run(middleware)
    result = state["messages"][2]
    assert isinstance(result, ToolMessage)
    assert (result.content, result.status) == (PERMISSION, "error")
    assert verdict_of(result) is None
    assert _errors(caplog)
    # The model call still classifies the result from its text and flag.
    assert model.calls[1][-1].content.endswith(UNRECOVERABLE)


def test_failure_in_the_loop_check_lets_the_call_run(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(toolerr_langchain._middleware, "neutral", _boom)
    model = ScriptedChatModel(
        script=[ai(WRITE), ai(tool_call("write_file", "c2", path="/etc/app.conf", text="x=1")), "d"]
    )
    agent = create_agent(model, TOOLS, middleware=[ToolErrorMiddleware(loop_action="block")])
    state = agent.invoke({"messages": [("user", ASK)]})
    assert state["messages"][4].content == PERMISSION  # executed, not blocked
    assert _errors(caplog)


def test_a_raising_on_record_callback_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    model, state = run(ToolErrorMiddleware(on_record=_boom))
    assert model.calls[1][-1].content.endswith(UNRECOVERABLE)
    assert state["messages"][-1].content == "done"
    assert _errors(caplog)


def test_failure_while_answering_a_blocked_repeat_lets_the_call_run(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    middleware = ToolErrorMiddleware(loop_action="block")
    monkeypatch.setattr(middleware.layer, "blocked_result", _boom)
    model = ScriptedChatModel(
        script=[ai(WRITE), ai(tool_call("write_file", "c2", path="/etc/app.conf", text="x=1")), "d"]
    )
    state = create_agent(model, TOOLS, middleware=[middleware]).invoke({"messages": [("user", ASK)]})
    assert state["messages"][4].content == PERMISSION  # executed, as without toolerr
    assert state["messages"][-1].content == "d"
    assert any("injected failure" in (r.exc_text or "") for r in _errors(caplog))
