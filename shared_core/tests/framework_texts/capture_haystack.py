"""Haystack's Agent (``raise_on_tool_invocation_failure=False``, the default): the tool
message built from ``ToolInvocationError`` ("Failed to invoke Tool `x` with parameters
{...}. Error: ..."), captured from the messages the Agent sends its shipped
``MockChatGenerator`` (a ``response_fn`` script, no network)."""

from __future__ import annotations

import os
from typing import Any

import _cases
from _cases import Case

FRAMEWORK = "haystack"
DIST = "haystack-ai"
IMPORTS = ("haystack.components.agents", "haystack.components.generators.chat.mock")


def collect() -> list[dict[str, Any]]:
    os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
    from haystack.components.agents import Agent
    from haystack.components.generators.chat.mock import MockChatGenerator
    from haystack.dataclasses import ChatMessage, ToolCall
    from haystack.tools import Tool

    seen: list[str] = []
    parameters = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    tool = Tool(
        name=_cases.TOOL, description=_cases.TOOL_DOC, parameters=parameters, function=_cases.raise_case
    )

    def run(case: Case) -> str:
        seen.clear()

        def respond(messages: list[ChatMessage]) -> ChatMessage | str:
            last = messages[-1]
            if last.tool_call_result is not None:
                seen.append(last.tool_call_result.result)
                return "done"
            return ChatMessage.from_assistant(
                tool_calls=[ToolCall(tool_name=_cases.TOOL, arguments={"city": case.id})]
            )

        agent = Agent(chat_generator=MockChatGenerator(response_fn=respond), tools=[tool])
        agent.warm_up()
        agent.run(messages=[ChatMessage.from_user(f"Weather in {case.id}?")])
        assert len(seen) == 1, seen
        return seen[0]

    return _cases.capture(FRAMEWORK, DIST, run)


if __name__ == "__main__":
    _cases.main(FRAMEWORK, collect)
