"""DSPy ReAct: the observation ``Execution error in {tool}: <traceback>`` that
``dspy.ReAct.forward`` puts in the trajectory when a tool raises, captured from the next
prompt DSPy sends its shipped ``DummyLM`` (no network)."""

from __future__ import annotations

from typing import Any

import _cases
from _cases import Case

FRAMEWORK = "dspy"
DIST = "dspy"
IMPORTS = ("dspy", "dspy.utils.dummies")
_FIELD = "[[ ## observation_0 ## ]]\n"
# What ChatAdapter writes after a field's value: the next field, or the closing instruction.
_STOPS = ("\n\n[[ ## ", "\n\nRespond with the corresponding output fields")


def collect() -> list[dict[str, Any]]:
    import dspy
    from dspy.utils.dummies import DummyLM

    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return _cases.raise_case(city)

    def run(case: Case) -> str:
        lm = DummyLM(
            [
                {
                    "next_thought": "Look it up.",
                    "next_tool_name": _cases.TOOL,
                    "next_tool_args": {"city": case.id},
                },
                {"next_thought": "It failed.", "next_tool_name": "finish", "next_tool_args": {}},
                {"reasoning": "The tool failed.", "answer": "unknown"},
            ]
        )
        with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
            dspy.ReAct("question -> answer", tools=[get_weather], max_iters=3)(
                question=f"Weather in {case.id}?"
            )
        # The second request is the first one that carries the tool's observation.
        prompt = lm.history[1]["messages"][-1]["content"]
        start = prompt.index(_FIELD) + len(_FIELD)
        ends = [i for i in (prompt.find(stop, start) for stop in _STOPS) if i >= 0]
        return prompt[start : min(ends, default=len(prompt))]

    return _cases.capture(FRAMEWORK, DIST, run)


if __name__ == "__main__":
    _cases.main(FRAMEWORK, collect)
