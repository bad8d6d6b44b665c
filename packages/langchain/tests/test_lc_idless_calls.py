"""A tool call without id (some providers' models send ``"id": None``) on the real
create_agent loop. LangChain's ToolMessage needs a string id, so the middleware's error
result carries ``""``; toolerr pairs it with the id-less call it answers, so the note
restates that call and the ledger sees it."""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, ToolMessage
from lc_support import TOOLS, TRANSIENT, ai, note
from toolerr import DetectionRecord
from toolerr_langchain import ToolErrorMiddleware, to_toolerr
from toolerr_langchain.testing import ScriptedChatModel

URL = "https://api.example.com/down"
DOWN = (
    f"Error: HTTPStatusError: Server error '503 Service Unavailable' for url '{URL}'\n"
    "For more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/503"
)


def idless(name: str, **args: Any) -> Any:
    return {"name": name, "args": args, "id": None, "type": "tool_call"}


def run(script: list[Any], records: list[DetectionRecord]) -> tuple[ScriptedChatModel, Any]:
    model = ScriptedChatModel(script=script)
    agent = create_agent(model, TOOLS, middleware=[ToolErrorMiddleware(form="c3", on_record=records.append)])
    return model, agent.invoke({"messages": [("user", "Fetch it.")]})


def test_the_error_result_of_an_idless_call_is_paired_with_it() -> None:
    records: list[DetectionRecord] = []
    model, state = run([ai(idless("fetch", url=URL)), "done"], records)
    result = state["messages"][2]
    assert isinstance(result, ToolMessage) and result.status == "error"
    assert result.tool_call_id == ""  # the only id a ToolMessage can carry for it (None is refused)
    # the model saw the note for that very call: its arguments, not "no arguments"
    seen = model.calls[-1]
    assert seen[-1].type == "human"
    assert seen[-1].content == note("fetch", f'url="{URL}"', DOWN, TRANSIENT)
    assert [(r.tool, r.kind, r.changed) for r in records] == [("fetch", "transient", True)]


def test_repeats_of_an_idless_failed_call_reach_the_ledger() -> None:
    records: list[DetectionRecord] = []
    run([ai(idless("fetch", url=URL)), ai(idless("fetch", url=URL)), "done"], records)
    assert [(r.tool, r.repeat) for r in records] == [("fetch", None), ("fetch", "exact")]


def test_an_idless_call_and_its_result_pair_in_the_neutral_conversation() -> None:
    call = to_toolerr(AIMessage("", tool_calls=[idless("fetch", url=URL)])).tool_calls[0]
    result = to_toolerr(ToolMessage(DOWN, tool_call_id="", name="fetch", status="error"))
    assert call.id == result.tool_call_id
