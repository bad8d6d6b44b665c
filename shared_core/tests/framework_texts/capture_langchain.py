"""LangChain's ToolRetryMiddleware: the ToolMessage its ``on_failure='continue'`` sends
the model once the retries are spent, captured from a ``create_agent`` loop driven by a
scripted chat model (a ``BaseChatModel`` subclass, no network)."""

from __future__ import annotations

from typing import Any

import _cases
from _cases import Case

FRAMEWORK = "langchain"
DIST = "langchain"
IMPORTS = ("langchain.agents", "langchain.agents.middleware")


def collect() -> list[dict[str, Any]]:
    from langchain.agents import create_agent
    from langchain.agents.middleware import ToolRetryMiddleware
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import tool

    seen: list[str] = []

    class Scripted(BaseChatModel):
        city: str

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def bind_tools(self, tools: Any, **kwargs: Any) -> Scripted:
            return self

        def _generate(
            self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any
        ) -> ChatResult:
            last = messages[-1]
            if isinstance(last, ToolMessage):
                seen.append(last.content if isinstance(last.content, str) else str(last.content))
                msg = AIMessage(content="done")
            else:
                call = {"name": _cases.TOOL, "args": {"city": self.city}, "id": "call_1", "type": "tool_call"}
                msg = AIMessage(content="", tool_calls=[call])
            return ChatResult(generations=[ChatGeneration(message=msg)])

    @tool(_cases.TOOL)
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return _cases.raise_case(city)

    def run(case: Case) -> str:
        seen.clear()
        retry = ToolRetryMiddleware(max_retries=2, initial_delay=0.0, backoff_factor=0.0, jitter=False)
        agent = create_agent(Scripted(city=case.id), tools=[get_weather], middleware=[retry])
        agent.invoke({"messages": [{"role": "user", "content": f"Weather in {case.id}?"}]})
        assert len(seen) == 1, seen
        return seen[0]

    return _cases.capture(FRAMEWORK, DIST, run)


if __name__ == "__main__":
    _cases.main(FRAMEWORK, collect)
