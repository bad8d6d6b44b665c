"""The adapter contract (tests/_shared/adapter_contract.py) on the real create_agent loop
with toolerr-langchain's scripted model: ToolErrorMiddleware serving the runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from adapter_contract import ASK, TOOL, AdapterContract, Entry, Step, Transcript, call_ids
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from toolerr import DetectionRecord
from toolerr_langchain import ToolErrorMiddleware
from toolerr_langchain.testing import ScriptedChatModel, tool_call


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(block if isinstance(block, str) else str(block.get("text", "")) for block in content)


def entries(messages: Sequence[BaseMessage]) -> list[Entry]:
    out: list[Entry] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            continue
        if isinstance(message, AIMessage):
            if _text(message.content):
                out.append(("assistant", _text(message.content)))
            out.extend(("call", call["name"], call["args"]) for call in message.tool_calls)
        elif isinstance(message, ToolMessage):
            out.append(("tool", _text(message.content)))
        else:
            out.append(("user", _text(message.content)))
    return out


def prior_messages(prior: Sequence[Entry]) -> list[BaseMessage]:
    messages: list[BaseMessage] = []
    ids: list[str] = []
    for n, entry in enumerate(prior):
        if entry[0] == "call":
            ids.append(f"prior_{n}")
            messages.append(AIMessage("", tool_calls=[tool_call(entry[1], ids[-1], **entry[2])]))
        elif entry[0] == "tool":
            messages.append(ToolMessage(entry[1], tool_call_id=ids.pop(0), status="error"))
        elif entry[0] == "assistant":
            messages.append(AIMessage(entry[1]))
        else:
            messages.append(HumanMessage(entry[1]))
    return messages


class TestContract(AdapterContract):
    # LangGraph's handle_tool_errors text, which the middleware keeps
    shown_error = staticmethod(lambda exception: f"Error: {type(exception).__name__}: {exception}")

    def make_adapter(self, on_record: Callable[[DetectionRecord], None], **policy: Any) -> Any:
        return ToolErrorMiddleware(on_record=on_record, **policy)

    async def run(
        self,
        transcript: Transcript,
        adapter: Any,
        script: Sequence[Step],
        *,
        prior: Sequence[Entry] = (),
        ask: str = ASK,
    ) -> None:
        @tool
        def get_weather(city: str) -> str:
            """The weather in a city."""
            return transcript.execute(city)

        assert get_weather.name == TOOL
        steps: list[Any] = [
            step
            if isinstance(step, str)
            else AIMessage(
                "", tool_calls=[tool_call(TOOL, i, city=c) for c, i in zip(step, ids, strict=True)]
            )
            for step, ids in zip(script, call_ids(script), strict=True)
        ]
        model = ScriptedChatModel(script=steps)
        agent = create_agent(model, [get_weather], middleware=[adapter] if adapter is not None else [])
        try:
            state = await agent.ainvoke({"messages": [*prior_messages(prior), HumanMessage(ask)]})
        finally:
            transcript.seen = [entries(call) for call in model.calls]
            transcript.raw = [[m.model_dump(exclude={"id"}) for m in call] for call in model.calls]
        transcript.history = entries(state["messages"])
