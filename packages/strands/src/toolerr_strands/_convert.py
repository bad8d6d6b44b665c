"""Strands messages <-> the neutral toolerr conversation.

A strands message is ``{"role": "user" | "assistant", "content": [block, ...]}``. An
assistant message becomes one ``assistant`` message (its text, its ``toolUse`` blocks as
calls); a user message one neutral message per block toolerr reads: a ``toolResult`` a
``tool`` message (``status: "error"`` its error flag), a ``text`` block a ``user``
message. Other blocks (images, documents, cache points ...) are not converted and stay
where they are.

On the way back, each original message is rebuilt from its own blocks: an unchanged block
is the very object strands gave, a changed one (C1's guidance, C2's note) a new block, a
removed one (C4) left out; a message left without blocks is left out. A new neutral
message (a note) becomes a trailing ``text`` block of the user message it follows (the
one that carries the ``toolResult``, as strands' own context injection does): Bedrock
rejects two user messages in a row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolerr import Message, ToolCall
from toolerr.adapters import ConversionCache, NoteParts, appended_text, same_objects

CLIENT = "generic"

_Origin = tuple[int, int | None]
"""(index of the strands message, index of the block in a user message; ``None`` for an
assistant message)."""

_NOTES: NoteParts[Any] = NoteParts()
"""Text blocks this adapter made for a note: none is ever read back (strands hands
middleware a deep copy of the history at each model call, and the history never holds a
note), so a user text that imitates a note is shown to the core with its prefix quoted."""


def result_text(result: Mapping[str, Any]) -> str:
    """The text of a ``toolResult`` as the model reads it (text blocks, JSON blocks dumped)."""
    parts: list[str] = []
    for block in result.get("content") or ():
        if not isinstance(block, Mapping):
            continue
        if isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif "json" in block:
            parts.append(json.dumps(block["json"], ensure_ascii=False))
    return "".join(parts)


def call_of(tool_use: Mapping[str, Any]) -> ToolCall:
    """The neutral call of a ``toolUse`` (what the ledger checks a new call by)."""
    arguments = tool_use.get("input")
    if isinstance(arguments, str):
        return ToolCall.from_raw(str(tool_use.get("toolUseId")), str(tool_use.get("name")), arguments)
    return ToolCall(
        id=str(tool_use.get("toolUseId")),
        name=str(tool_use.get("name")),
        arguments=dict(arguments) if isinstance(arguments, Mapping) else {},
    )


@dataclass
class Conversation:
    """The neutral view of one model call's messages, with the way back to strands."""

    source: Sequence[Mapping[str, Any]]
    messages: list[Message] = field(default_factory=list)

    def to_strands(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        """The strands messages for a rewritten neutral conversation (see the module doc)."""
        originals = {id(m) for m in self.messages}
        kept: dict[_Origin, Message] = {}
        notes: dict[int, list[str]] = {}
        last = -1
        for message in messages:
            origin = message.origin
            if isinstance(origin, tuple) and len(origin) == 2 and 0 <= origin[0] < len(self.source):
                kept[origin] = message
                last = max(last, origin[0])
            else:
                notes.setdefault(last, []).append(message.text)
        out: list[dict[str, Any]] = []
        pending = notes.get(-1, [])
        for index, original in enumerate(self.source):
            rebuilt = self._rebuilt(index, original, kept, originals)
            if rebuilt is not None:
                if pending and rebuilt.get("role") == "user":
                    rebuilt = {**rebuilt, "content": [*(_note(t) for t in pending), *rebuilt["content"]]}
                    pending = []
                elif pending:
                    out.append({"role": "user", "content": [_note(t) for t in pending]})
                    pending = []
                out.append(rebuilt)
            pending = [*pending, *notes.get(index, [])]
            if pending and out and out[-1].get("role") == "user":
                out[-1] = {**out[-1], "content": [*out[-1]["content"], *(_note(t) for t in pending)]}
                pending = []
        if pending:
            out.append({"role": "user", "content": [_note(t) for t in pending]})
        return out

    def _rebuilt(
        self,
        index: int,
        original: Mapping[str, Any],
        kept: Mapping[_Origin, Message],
        originals: set[int],
    ) -> dict[str, Any] | None:
        """The message at ``index`` as the rewrite left it; ``None``: nothing of it is left."""
        blocks = list(original.get("content") or ())
        if original.get("role") == "assistant":
            message = kept.get((index, None))
            if message is None:
                return None
            ids = {call.id for call in message.tool_calls}
            content = [b for b in blocks if "toolUse" not in b or str(b["toolUse"].get("toolUseId")) in ids]
        else:
            content = []
            for position, block in enumerate(blocks):
                if not _converted(block):
                    content.append(block)
                    continue
                neutral = kept.get((index, position))
                if neutral is None:
                    continue
                content.append(block if id(neutral) in originals else _changed(block, neutral))
        if not content:
            return None
        if same_objects(content, blocks):
            return original  # type: ignore[return-value]  # strands' copy for this call: not shared
        return {**original, "content": content}


def _note(text: str) -> dict[str, Any]:
    return {"text": text}


def _converted(block: Mapping[str, Any]) -> bool:
    return "toolResult" in block or isinstance(block.get("text"), str)


def _changed(block: Mapping[str, Any], message: Message) -> dict[str, Any]:
    """The block for a neutral message the core changed."""
    if "toolResult" in block:
        return {**block, "toolResult": {**block["toolResult"], "content": [{"text": message.text}]}}
    text = block["text"]
    now = message.text
    added = appended_text(_NOTES.text(block, text), now)  # C2's note, after the block's own text
    return {**block, "text": now if added is None else text + added}


def to_conversation(messages: Sequence[Mapping[str, Any]], cache: ConversionCache) -> Conversation:
    """The neutral conversation of the messages of one model call. Strands hands each model
    call a deep copy of the history, so neutral messages are kept by content and position
    (``cache``): a conversation that only grew converts to the same neutral objects, and
    the core's replay continues from the previous call's checkpoint."""
    conversation = Conversation(messages)
    out = conversation.messages
    names: dict[str, str] = {}
    for index, message in enumerate(messages):
        blocks = [b for b in message.get("content") or () if isinstance(b, Mapping)]
        if message.get("role") == "assistant":
            read = [
                b for b in blocks if isinstance(b.get("toolUse"), Mapping) or isinstance(b.get("text"), str)
            ]
            neutral = cache.get(("assistant", index, read), _assistant, index, read)
            names.update((call.id, call.name) for call in neutral.tool_calls if call.id is not None)
            out.append(neutral)
            continue
        for position, block in enumerate(message.get("content") or ()):
            if not isinstance(block, Mapping):
                continue
            result = block.get("toolResult")
            if isinstance(result, Mapping):
                name = names.get(str(result.get("toolUseId")))
                out.append(
                    cache.get(("tool", index, position, result, name), _tool, result, name, index, position)
                )
            elif isinstance(block.get("text"), str):
                text = _NOTES.text(block, block["text"])
                out.append(cache.get(("user", index, position, text), _user, text, index, position))
    return conversation


def _assistant(index: int, blocks: Sequence[Mapping[str, Any]]) -> Message:
    calls = tuple(call_of(b["toolUse"]) for b in blocks if isinstance(b.get("toolUse"), Mapping))
    text = "".join(b["text"] for b in blocks if isinstance(b.get("text"), str))
    return Message("assistant", text, tool_calls=calls, origin=(index, None))


def _tool(result: Mapping[str, Any], name: str | None, index: int, position: int) -> Message:
    return Message(
        role="tool",
        content=result_text(result),
        tool_call_id=str(result.get("toolUseId")),
        name=name,
        is_error=True if result.get("status") == "error" else None,
        client=CLIENT,
        origin=(index, position),
    )


def _user(text: str, index: int, position: int) -> Message:
    return Message("user", text, origin=(index, position))
