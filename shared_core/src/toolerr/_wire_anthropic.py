"""Anthropic Messages ``messages`` to the neutral conversation and back (``tool_use``
blocks in assistant turns, ``tool_result`` blocks with ``is_error`` in user turns; one
user turn holds several results, and a note joins the user turn after them as a text
block, so that turns still alternate)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._detect import normalise_client
from ._types import Message, ToolCall
from ._wire_base import (
    CACHE,
    Converted,
    bool_or_none,
    copy_json,
    json_key,
    own_message,
    str_or_none,
    text_blocks,
)


def anthropic_to_messages(messages: Sequence[Mapping[str, Any]], client: str | None = None) -> list[Message]:
    """Anthropic ``messages`` -> neutral messages: an assistant turn is one message (its
    text, its ``tool_use`` blocks as calls); a user turn is one ``tool`` message per
    ``tool_result`` block, then one user message for its other blocks."""
    return anthropic_in(messages, normalise_client(client), 0).messages


def anthropic_in(items: Sequence[Any], client: str, offset: int) -> Converted:
    out = Converted()
    for index, item in enumerate(items, offset):
        key = json_key("anthropic", client, index, item)
        cached: tuple[Message, ...] | None = CACHE.get(key) if key is not None else None
        if cached is None:
            cached = tuple(_anthropic_turn(item, client, index))
            if key is not None:
                cached = tuple(map(own_message, cached))
                CACHE.put(key, cached)
        out.messages.extend(cached)
    return out


def _anthropic_turn(item: Any, client: str, index: int) -> list[Message]:
    """The neutral messages of one Anthropic turn."""
    out = Converted()
    if not isinstance(item, Mapping):
        return [Message(role="system", content="", origin=(index, None))]
    role = item.get("role")
    content = item.get("content")
    if role == "assistant":
        calls: list[ToolCall] = []
        if isinstance(content, list):
            for block in content:
                if isinstance(block, Mapping) and block.get("type") == "tool_use":
                    call = ToolCall(
                        id=str_or_none(block.get("id")),
                        name=str_or_none(block.get("name")) or "unknown_tool",
                        arguments=block.get("input", {}),
                    )
                    calls.append(call)
        out.messages.append(
            Message(
                role="assistant",
                content=text_blocks(content),
                tool_calls=tuple(calls),
                origin=(index, None),
            )
        )
    elif role == "user" and isinstance(content, list):
        rest: list[Any] = []
        for position, block in enumerate(content):
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                result = block.get("content", "")
                out.messages.append(
                    Message(
                        role="tool",
                        content=result if result is not None else "",
                        tool_call_id=str_or_none(block.get("tool_use_id")),
                        is_error=bool_or_none(block.get("is_error")),
                        client=client,
                        origin=(index, position),
                    )
                )
            else:
                rest.append(block)
        if rest:
            out.messages.append(Message(role="user", content=rest, origin=(index, "rest")))
    elif role == "user":
        out.messages.append(Message(role="user", content=content, origin=(index, "rest")))
    else:
        out.messages.append(Message(role="system", content=content, origin=(index, None)))
    return out.messages


def _as_blocks(content: Any) -> list[Any]:
    if isinstance(content, list):
        return list(content)
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return [content]


class _Turn:
    __slots__ = ("last", "parts", "role", "sources")

    def __init__(self, role: str) -> None:
        self.role = role
        self.parts: list[Message] = []
        self.sources: list[int] = []
        self.last: int | None = None


def anthropic_out(items: Sequence[Any], conv: Converted, new: Sequence[Message]) -> list[Any]:
    originals = {id(m) for m in conv.messages}
    per_source: dict[int, int] = {}
    for message in conv.messages:
        per_source[message.origin[0]] = per_source.get(message.origin[0], 0) + 1
    turns: list[_Turn] = []
    for message in new:
        role = "assistant" if message.role == "assistant" else "user"
        source = message.origin[0] if message.origin is not None else None
        turn = turns[-1] if turns else None
        # Join the previous turn when the roles are the same, unless the input itself had
        # two consecutive turns of that role (then they stay as they were).
        if (
            turn is None
            or turn.role != role
            or message.role == "system"
            or (source is not None and turn.last is not None and source == turn.last + 1)
        ):
            turn = _Turn(role)
            turns.append(turn)
        turn.parts.append(message)
        if source is not None:
            turn.last = source
            if source not in turn.sources:
                turn.sources.append(source)
    out: list[Any] = []
    for turn in turns:
        if (
            len(turn.sources) == 1
            and all(id(p) in originals for p in turn.parts)
            and len(turn.parts) == per_source[turn.sources[0]]
        ):
            out.append(items[turn.sources[0]])
            continue
        if len(turn.parts) == 1 and turn.parts[0].origin is not None and turn.parts[0].role != "tool":
            part = turn.parts[0]
            item = items[part.origin[0]]
            if id(part) in originals or part.role == "system":
                out.append(item)
                continue
            if isinstance(part.content, str) and isinstance(item.get("content"), str):
                out.append({**item, "content": part.content})
                continue
        blocks: list[Any] = []
        for part in turn.parts:
            blocks.extend(_anthropic_blocks(items, conv, part, id(part) in originals))
        base = items[turn.sources[0]] if turn.sources else {"role": turn.role}
        out.append({**base, "content": blocks})
    return out


def _anthropic_blocks(items: Sequence[Any], conv: Converted, part: Message, original: bool) -> list[Any]:
    if part.origin is None:
        return _as_blocks(copy_json(part.content))
    index, position = part.origin
    content = items[index].get("content")
    if part.role == "tool":
        block = content[position]
        return [block] if original else [{**block, "content": copy_json(part.content)}]
    if part.role == "assistant":
        if original or not isinstance(content, list):
            return _as_blocks(content)
        source = next(m for m in conv.messages if m.origin == (index, None) and m.role == "assistant")
        uses = [b for b in content if isinstance(b, Mapping) and b.get("type") == "tool_use"]
        by_call = {id(c): b for c, b in zip(source.tool_calls, uses, strict=False)}
        kept = {id(by_call[id(c)]) for c in part.tool_calls}
        return [
            b
            for b in content
            if not (isinstance(b, Mapping) and b.get("type") == "tool_use" and id(b) not in kept)
        ]
    if original:
        if isinstance(content, list):
            return [b for b in content if not (isinstance(b, Mapping) and b.get("type") == "tool_result")]
        return _as_blocks(content)
    return _as_blocks(copy_json(part.content))
