"""Whole runs: sync and async, streaming, a checkpointer across two invocations, and
ToolRetryMiddleware stacked before and after ours."""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware import ToolRetryMiddleware
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from lc_support import (
    CHECK_FIRST,
    EXECUTED,
    TOOLS,
    TRANSIENT_AFTER_2,
    UNRECOVERABLE,
    ai,
    holds_note,
    note,
    shown,
)
from pydantic import Field
from toolerr import FailureLedger
from toolerr_langchain import ToolErrorMiddleware, verdict_of
from toolerr_langchain.testing import ScriptedChatModel, ScriptExhaustedError, tool_call

ASK = "Please do it."
SYSTEM = "Be brief."
PERMISSION = "Error: PermissionError: [Errno 13] Permission denied: '/etc/app.conf'"
WRITE = tool_call("write_file", "c1", path="/etc/app.conf", text="x=1")
WRITE_NOTE = note("write_file", 'path="/etc/app.conf", text="x=1"', PERMISSION, UNRECOVERABLE)
DECISION = [
    ("system", SYSTEM),
    ("human", ASK),
    ("ai", ""),
    ("tool", PERMISSION),
    ("human", WRITE_NOTE),
]


def agent_for(model: ScriptedChatModel, **kwargs: Any) -> Any:
    return create_agent(model, TOOLS, system_prompt=SYSTEM, middleware=[ToolErrorMiddleware()], **kwargs)


def test_async_invoke() -> None:
    model = ScriptedChatModel(script=[ai(WRITE), "done"])
    state = asyncio.run(agent_for(model).ainvoke({"messages": [("user", ASK)]}))
    assert shown(model.calls[1]) == DECISION
    assert not holds_note(state["messages"])
    assert verdict_of(state["messages"][2]) is not None


def test_stream_updates_and_messages() -> None:
    model = ScriptedChatModel(script=[ai(WRITE), "done"])
    chunks = list(agent_for(model).stream({"messages": [("user", ASK)]}, stream_mode=["updates", "messages"]))

    assert shown(model.calls[1]) == DECISION
    streamed = [chunk for mode, chunk in chunks if mode == "messages"]
    updates = [chunk for mode, chunk in chunks if mode == "updates"]
    assert streamed
    assert not any(holds_note([message]) for message, _meta in streamed)
    tool_updates = [
        m for update in updates for node in update.values() for m in (node or {}).get("messages", [])
    ]
    assert any(isinstance(m, ToolMessage) and m.content == PERMISSION for m in tool_updates)
    assert not holds_note(tool_updates)


def test_async_stream() -> None:
    model = ScriptedChatModel(script=[ai(WRITE), "done"])

    async def go() -> list[Any]:
        return [
            chunk
            async for chunk in agent_for(model).astream({"messages": [("user", ASK)]}, stream_mode="values")
        ]

    values = asyncio.run(go())
    assert shown(model.calls[1]) == DECISION
    assert not any(holds_note(value["messages"]) for value in values)


def test_checkpointer_across_two_invocations() -> None:
    """The checkpoint never holds a note; the second invocation (a new middleware, as in a
    new process) still uses the classification kept on the checkpointed message."""
    saver = InMemorySaver()
    config = {"configurable": {"thread_id": "t1"}}
    first = ScriptedChatModel(script=[ai(WRITE), "I could not write the file."])
    agent_for(first, checkpointer=saver).invoke({"messages": [("user", ASK)]}, config)

    stored = saver.get(config)
    assert stored is not None
    messages = stored["channel_values"]["messages"]
    assert not holds_note(messages)
    verdict = verdict_of(messages[2])
    assert verdict is not None
    assert verdict.kind == "unrecoverable"

    slow = tool_call("fetch", "c2", url="https://api.example.com/slow")
    second = ScriptedChatModel(script=[ai(slow), "The site is slow."])
    state = agent_for(second, checkpointer=saver).invoke({"messages": [("user", "Fetch it.")]}, config)

    timeout = "Error: ReadTimeout: timed out"
    assert shown(second.calls[1]) == [
        ("system", SYSTEM),
        ("human", ASK),
        ("ai", ""),
        ("tool", PERMISSION),
        ("ai", "I could not write the file."),
        ("human", "Fetch it."),
        ("ai", ""),
        ("tool", timeout),
        ("human", note("fetch", 'url="https://api.example.com/slow"', timeout, CHECK_FIRST)),
    ]
    assert not holds_note(state["messages"])
    final = saver.get(config)
    assert final is not None
    assert not holds_note(final["channel_values"]["messages"])


def _retry(on_failure: Any) -> ToolRetryMiddleware:
    return ToolRetryMiddleware(max_retries=2, initial_delay=0, jitter=False, on_failure=on_failure)


def test_retry_middleware_inside_ours_retries_then_we_classify() -> None:
    """ToolRetryMiddleware after ours (inner): it retries; the exception it re-raises
    (on_failure="error") reaches us with its type."""
    model = ScriptedChatModel(
        script=[ai(tool_call("fetch", "c1", url="https://api.example.com/busy")), "done"]
    )
    agent = create_agent(model, TOOLS, middleware=[ToolErrorMiddleware(), _retry("error")])
    state = agent.invoke({"messages": [("user", ASK)]})

    assert len(EXECUTED) == 3
    result = state["messages"][2]
    verdict = verdict_of(result)
    assert verdict is not None
    assert (result.status, verdict.kind, verdict.detection) == ("error", "transient", "exception")
    assert model.calls[1][-1].content.endswith(TRANSIENT_AFTER_2)  # the 429 says Retry-After: 2


def test_retry_middleware_inside_ours_with_its_own_message() -> None:
    """on_failure="continue": the retry middleware answers with its own error text, which
    we classify and deliver."""
    model = ScriptedChatModel(
        script=[ai(tool_call("fetch", "c1", url="https://api.example.com/slow")), "done"]
    )
    agent = create_agent(model, TOOLS, middleware=[ToolErrorMiddleware(), _retry("continue")])
    state = agent.invoke({"messages": [("user", ASK)]})

    assert len(EXECUTED) == 3
    result = state["messages"][2]
    assert (
        result.content
        == "Tool 'fetch' failed after 3 attempts with ReadTimeout: timed out. Please try again."
    )
    verdict = verdict_of(result)
    assert verdict is not None
    assert verdict.kind == "transient"
    last = model.calls[1][-1]
    assert isinstance(last, HumanMessage)
    assert last.content == note("fetch", 'url="https://api.example.com/slow"', result.content, CHECK_FIRST)


def test_retry_middleware_outside_ours_sees_a_result_not_an_exception() -> None:
    """ToolRetryMiddleware before ours (outer): we turn the exception into a result, so it
    does not retry (as with LangChain's ToolErrorMiddleware); the run goes on."""
    model = ScriptedChatModel(
        script=[ai(tool_call("fetch", "c1", url="https://api.example.com/busy")), "done"]
    )
    agent = create_agent(model, TOOLS, middleware=[_retry("error"), ToolErrorMiddleware()])
    state = agent.invoke({"messages": [("user", ASK)]})

    assert len(EXECUTED) == 1
    assert state["messages"][-1].content == "done"
    assert model.calls[1][-1].content.endswith(TRANSIENT_AFTER_2)  # the 429 says Retry-After: 2
    assert not holds_note(state["messages"])


def test_classification_survives_a_restart_through_the_checkpoint() -> None:
    """The run stops after the tool step; a new process (new middleware, new model)
    resumes from the checkpoint. The on_error text alone says nothing about the kind; the
    classification kept on the checkpointed message still gives the right guidance."""
    saver = InMemorySaver()
    config = {"configurable": {"thread_id": "t2"}}
    refuse = ToolErrorMiddleware(lambda exc, request: "Refused.")
    broken = ScriptedChatModel(script=[ai(WRITE)])  # no step for the decision call
    with pytest.raises(ScriptExhaustedError):
        create_agent(broken, TOOLS, middleware=[refuse], checkpointer=saver).invoke(
            {"messages": [("user", ASK)]}, config
        )

    model = ScriptedChatModel(script=["I cannot write that file."])
    agent = create_agent(model, TOOLS, middleware=[ToolErrorMiddleware()], checkpointer=saver)
    state = agent.invoke(None, config)

    assert shown(model.calls[0]) == [
        ("human", ASK),
        ("ai", ""),
        ("tool", "Refused."),
        ("human", note("write_file", 'path="/etc/app.conf", text="x=1"', "Refused.", UNRECOVERABLE)),
    ]
    assert not holds_note(state["messages"])


class _BanningModel(ScriptedChatModel):
    """A scripted model that, like toolerr_hf.ChatLocalModel, declares that it takes the
    failed-call ledger as a model setting; it records the settings of every call."""

    toolerr_accepts_failed_calls: ClassVar[bool] = True
    settings: list[dict[str, Any]] = Field(default_factory=list)

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        super().bind_tools(tools, tool_choice=tool_choice)
        return self.bind(**kwargs)

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
        self.settings.append(dict(kwargs))
        return super()._generate(messages, stop, run_manager)


@pytest.mark.parametrize("form", ["c3", "abstract"])
def test_a_model_that_takes_failed_calls_gets_the_ledger(form: str) -> None:
    model = _BanningModel(script=[ai(WRITE), ai(tool_call("fetch", "c2", url="https://example.com")), "done"])
    agent = create_agent(model, TOOLS, middleware=[ToolErrorMiddleware(form=form)])
    agent.invoke({"messages": [("user", ASK)]})
    first, decision, last = model.settings
    assert "failed_calls" not in first and "failed_calls" not in last  # no failure at those steps
    ledger = decision["failed_calls"]
    assert isinstance(ledger, FailureLedger)
    banned = ledger.banned_calls()
    assert [(c.name, json.loads(c.exact)) for c in banned] == [
        ("write_file", {"path": "/etc/app.conf", "text": "x=1"})
    ]
    if form == "abstract":  # the model does not see the call it is banned from writing
        assert not any(getattr(m, "tool_calls", None) for m in model.calls[1])


def test_a_model_without_the_marker_gets_no_settings() -> None:
    model = ScriptedChatModel(script=[ai(WRITE), "done"])
    seen: list[dict[str, Any]] = []

    class Spy(ToolErrorMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            def inner(changed: Any) -> Any:
                seen.append(dict(changed.model_settings))
                return handler(changed)

            return super().wrap_model_call(request, inner)

    create_agent(model, TOOLS, middleware=[Spy(form="abstract")]).invoke({"messages": [("user", ASK)]})
    assert seen == [{}, {}]
