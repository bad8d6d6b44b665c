"""crewAI's ReAct path (a model without native function calling): the observation
``I encountered an error while trying to use the tool. This was the error: ...`` that
``ToolUsage`` gives the agent when the tool raises, captured from the messages the crew
sends a scripted model (a ``BaseLLM`` subclass answering in crewAI's Thought/Action
format, no network)."""

from __future__ import annotations

import os
from typing import Any

import _cases
from _cases import Case

FRAMEWORK = "crewai"
DIST = "crewai"
IMPORTS = ("crewai", "crewai.llms.base_llm")
_OBSERVATION = "\nObservation: "


def _quiet() -> None:
    for name in (
        "CREWAI_DISABLE_TELEMETRY",
        "CREWAI_DISABLE_TRACKING",
        "OTEL_SDK_DISABLED",
        "CREWAI_TRACING_ENABLED",
    ):
        os.environ.setdefault(name, "true" if name != "CREWAI_TRACING_ENABLED" else "false")


def collect() -> list[dict[str, Any]]:
    _quiet()
    from crewai import Agent, Crew, Task
    from crewai.llms.base_llm import BaseLLM
    from crewai.tools import tool

    seen: list[str] = []

    class Scripted(BaseLLM):
        city: str = ""

        def call(
            self,
            messages: Any,
            tools: Any = None,
            callbacks: Any = None,
            available_functions: Any = None,
            from_task: Any = None,
            from_agent: Any = None,
            response_model: Any = None,
        ) -> str:
            contents = (
                [messages] if isinstance(messages, str) else [str(m.get("content", "")) for m in messages]
            )
            calls = getattr(self, "_calls", 0)
            object.__setattr__(self, "_calls", calls + 1)
            if calls == 0:
                return (
                    "Thought: I should look the weather up.\n"
                    f"Action: {_cases.TOOL}\n"
                    f'Action Input: {{"city": "{self.city}"}}'
                )
            # ReAct: crewAI appends the tool result to the model's own last turn after
            # "Observation: " (then a user turn asks it to go on).
            turn = next(c for c in reversed(contents) if _OBSERVATION in c)
            seen.append(turn.split(_OBSERVATION, 1)[1])
            return "Thought: The tool failed.\nFinal Answer: unknown"

        def supports_function_calling(self) -> bool:
            return False

        def supports_stop_words(self) -> bool:
            return False

        def get_context_window_size(self) -> int:
            return 8192

    @tool(_cases.TOOL)
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return _cases.raise_case(city)

    def run(case: Case) -> str:
        seen.clear()
        agent = Agent(
            role="Weather reporter",
            goal="Report the weather",
            backstory="You report the weather.",
            llm=Scripted(model="scripted", city=case.id),
            tools=[get_weather],
            max_iter=3,
            verbose=False,
        )
        task = Task(description=f"Weather in {case.id}?", expected_output="The weather", agent=agent)
        Crew(agents=[agent], tasks=[task], verbose=False).kickoff()
        assert seen, "the scripted model was not called again"
        return seen[0]

    return _cases.capture(FRAMEWORK, DIST, run)


if __name__ == "__main__":
    _cases.main(FRAMEWORK, collect)
