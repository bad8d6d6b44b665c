"""Scripted models and tools for the pydantic-ai tests (the framework's own FunctionModel)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from toolerr.adapters import NOTE_PREFIX

Step = list[tuple[str, dict[str, Any], str]] | str
"""One scripted model turn: tool calls ``(name, args, call id)`` or a final text."""


class Script:
    """A FunctionModel that answers from a list of turns and records every request it got
    (the messages as the model received them)."""

    def __init__(self, *turns: Step) -> None:
        self.turns = list(turns)
        self.requests: list[list[ModelMessage]] = []
        self.model = FunctionModel(self._answer, stream_function=self._stream)

    def _next(self, messages: list[ModelMessage]) -> Step:
        self.requests.append(list(messages))
        index = len(self.requests) - 1
        return self.turns[index] if index < len(self.turns) else "done"

    def _answer(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turn = self._next(messages)
        if isinstance(turn, str):
            return ModelResponse(parts=[TextPart(turn)])
        return ModelResponse(parts=[ToolCallPart(name, args, tool_call_id=cid) for name, args, cid in turn])

    async def _stream(
        self, messages: list[ModelMessage], info: AgentInfo
    ) -> AsyncIterator[str | DeltaToolCalls]:
        turn = self._next(messages)
        if isinstance(turn, str):
            yield turn
            return
        import json

        calls: DeltaToolCalls = {
            i: DeltaToolCall(name=name, json_args=json.dumps(args), tool_call_id=cid)
            for i, (name, args, cid) in enumerate(turn)
        }
        yield calls


def parts(message: ModelMessage) -> list[tuple[Any, ...]]:
    """The parts of one message as plain tuples (what the model is shown)."""
    out: list[tuple[Any, ...]] = []
    for part in message.parts:
        if isinstance(part, ToolReturnPart):
            out.append(("tool-return", part.tool_name, part.tool_call_id, part.content, part.outcome))
        elif isinstance(part, UserPromptPart):
            out.append(("user", part.content))
        elif isinstance(part, SystemPromptPart):
            out.append(("system", part.content))
        elif isinstance(part, ToolCallPart):
            out.append(("call", part.tool_name, part.tool_call_id, part.args))
        elif isinstance(part, TextPart):
            out.append(("text", part.content))
        elif isinstance(part, RetryPromptPart):
            out.append(("retry", part.tool_name, part.content))
        else:
            out.append((type(part).__name__,))
    return out


def shown(messages: Sequence[ModelMessage]) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """A whole request as plain data: (``request``/``response``, its parts)."""
    return [("request" if isinstance(m, ModelRequest) else "response", parts(m)) for m in messages]


def notes_in(messages: Sequence[ModelMessage]) -> list[str]:
    """Every text in the messages that carries a toolerr note."""
    found = []
    for message in messages:
        for part in message.parts:
            content = getattr(part, "content", None)
            if isinstance(content, str) and NOTE_PREFIX.strip() in content:
                found.append(content)
    return found


def read_file_agent(
    script: Script, capability: AbstractCapability[Any] | None = None
) -> tuple[Agent[None, str], list[str]]:
    """An agent on ``script`` with one tool, ``read_file(path)``: a path under ``/etc/``
    raises a real ``PermissionError``; the list records every execution."""
    executed: list[str] = []
    agent = Agent(script.model, capabilities=[capability] if capability is not None else [])

    @agent.tool_plain
    def read_file(path: str) -> str:
        executed.append(path)
        if path.startswith("/etc/"):
            raise PermissionError(13, "Permission denied", path)
        return f"contents of {path}"

    return agent, executed


def plan(*paths: str) -> list[Any]:
    """One model turn per path, each a ``read_file`` call (ids ``c1``, ``c2`` ...)."""
    return [[("read_file", {"path": p}, f"c{n}")] for n, p in enumerate(paths, 1)]
