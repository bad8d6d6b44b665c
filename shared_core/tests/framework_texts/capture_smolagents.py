"""smolagents: the tool-response message its memory gives the model after a failed step,
for a ``ToolCallingAgent`` (``Error executing tool 'x' with arguments {...}: Type: ...``)
and a ``CodeAgent`` whose code called the tool (``Code execution failed at line '...'
due to: Type: ...``), both framed as ``ActionStep.to_messages`` frames an error
(``Error:\\n...\\nNow let's retry: ...``). Captured from the messages each agent sends a
scripted model (a ``smolagents.Model`` subclass, no network)."""

from __future__ import annotations

from typing import Any

import _cases
from _cases import Case

FRAMEWORK = "smolagents"
DIST = "smolagents"
IMPORTS = ("smolagents",)


def _text(message: Any) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content or () if isinstance(block, dict))


def collect() -> list[dict[str, Any]]:
    from smolagents import CodeAgent, Tool, ToolCallingAgent
    from smolagents.models import (
        ChatMessage,
        ChatMessageToolCall,
        ChatMessageToolCallFunction,
        MessageRole,
        Model,
    )

    seen: list[str] = []

    class Scripted(Model):
        def __init__(self, city: str, code: bool) -> None:
            super().__init__(model_id="scripted")
            self.city, self.code, self.calls = city, code, 0

        def generate(
            self,
            messages: list[Any],
            stop_sequences: Any = None,
            response_format: Any = None,
            tools_to_call_from: Any = None,
            **kwargs: Any,
        ) -> ChatMessage:
            self.calls += 1
            if self.calls > 1:
                last = messages[-1]
                role = last.role if not isinstance(last, dict) else last["role"]
                assert role in (MessageRole.TOOL_RESPONSE, MessageRole.USER, "tool-response", "user"), role
                seen.append(_text(last) if not isinstance(last, dict) else _text(ChatMessage(**last)))
            if self.code:
                code = f'get_weather(city="{self.city}")' if self.calls == 1 else 'final_answer("unknown")'
                return ChatMessage(
                    role=MessageRole.ASSISTANT, content=f"Thought: Look it up.\n<code>\n{code}\n</code>"
                )
            name, args = (
                (_cases.TOOL, {"city": self.city})
                if self.calls == 1
                else ("final_answer", {"answer": "unknown"})
            )
            call = ChatMessageToolCall(
                id=f"call_{self.calls}",
                type="function",
                function=ChatMessageToolCallFunction(name=name, arguments=args),
            )
            return ChatMessage(role=MessageRole.ASSISTANT, content=None, tool_calls=[call])

    class GetWeather(Tool):
        name = _cases.TOOL
        description = _cases.TOOL_DOC
        inputs = {"city": {"type": "string", "description": "The city"}}  # noqa: RUF012 - smolagents' API
        output_type = "string"

        def forward(self, city: str) -> str:
            return _cases.raise_case(city)

    def run(case: Case, code: bool) -> str:
        seen.clear()
        kind = CodeAgent if code else ToolCallingAgent
        agent = kind(tools=[GetWeather()], model=Scripted(case.id, code), max_steps=3, verbosity_level=-1)
        agent.run(f"Weather in {case.id}?")
        assert seen, "the scripted model was not called again"
        return seen[0]

    rows = []
    for agent, code in (("tool-calling", False), ("code", True)):
        for row in _cases.capture(FRAMEWORK, DIST, lambda case, code=code: run(case, code)):
            row["id"] = row["id"].replace(f"{FRAMEWORK}:", f"{FRAMEWORK}:{agent}:", 1)
            rows.append(row)
    return rows


if __name__ == "__main__":
    _cases.main(FRAMEWORK, collect)
