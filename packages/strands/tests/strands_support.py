"""A scripted strands ``Model`` for the real Agent loop: it answers a script of tool calls
and texts as the stream events a provider yields, and records exactly what it was sent."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from strands.models.model import Model

Turn = Sequence[tuple[str, str, dict[str, Any]]] | str
"""One model turn: its tool calls ``(id, name, input)``, or a final text."""


class ScriptedModel(Model):
    """Answers ``turns`` in order (``"done"`` past the end); ``sent`` holds a deep copy of
    the messages of each call and ``requests`` each call's messages, system prompt and
    tool specs, as the model got them."""

    def __init__(self, turns: Sequence[Turn]) -> None:
        self.turns = list(turns)
        self.sent: list[list[dict[str, Any]]] = []
        self.requests: list[dict[str, Any]] = []

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> dict[str, Any]:
        return {"model_id": "scripted"}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[dict[str, Any], None]:
        raise NotImplementedError
        yield {}  # pragma: no cover

    async def stream(
        self,
        messages: Any,
        tool_specs: Any = None,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[Any, None]:
        self.sent.append(copy.deepcopy(list(messages)))
        self.requests.append(
            json.loads(
                json.dumps(
                    {
                        "messages": list(messages),
                        "system_prompt": system_prompt,
                        "tool_specs": tool_specs,
                        "tool_choice": kwargs.get("tool_choice"),
                    },
                    default=repr,
                )
            )
        )
        turn = self.turns[len(self.sent) - 1] if len(self.sent) <= len(self.turns) else "done"
        yield {"messageStart": {"role": "assistant"}}
        if isinstance(turn, str):
            yield {"contentBlockDelta": {"delta": {"text": turn}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        for call_id, name, arguments in turn:
            yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": call_id, "name": name}}}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(arguments)}}}}
            yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


def result_text(result: dict[str, Any]) -> str:
    parts: list[str] = []
    for block in result.get("content") or ():
        if "text" in block:
            parts.append(block["text"])
        elif "json" in block:
            parts.append(json.dumps(block["json"], ensure_ascii=False))
    return "".join(parts)


def entries(messages: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Neutral entries of strands messages: each text block its own entry (a note is a
    text block of its own, after the tool results of the user message that carries it)."""
    out: list[tuple[Any, ...]] = []
    for message in messages:
        role = message["role"]
        for block in message.get("content") or ():
            if "text" in block:
                out.append((role, block["text"]))
            elif "toolUse" in block:
                out.append(("call", block["toolUse"]["name"], dict(block["toolUse"]["input"] or {})))
            elif "toolResult" in block:
                out.append(("tool", result_text(block["toolResult"])))
    return out
