"""pydantic-ai messages <-> the neutral toolerr conversation.

Each request part becomes one neutral message (a ``ToolReturnPart`` a ``tool`` message,
``failed``/``retried`` its error flag; a part toolerr has no use for an empty ``system``
placeholder), each response one ``assistant`` message with its tool calls. On the way
back, untouched neutral messages give back their original parts (an unchanged request is
the one pydantic-ai built); a new one (a note) becomes a ``UserPromptPart`` of the request
it follows. A user prompt part toolerr did not make (a ``ToolReturn``'s ``content``) never
passes for a note: what a form appends to it follows its own content.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, cast

from pydantic_ai.messages import (
    BaseToolReturnPart,
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponse,
    ModelResponsePart,
    RetryFeedbackPart,
    RetryPromptPart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from toolerr import Message, ToolCall
from toolerr.adapters import ConversionCache, NoteParts, appended_text, same_objects

CLIENT = "generic"

_ERROR_OUTCOMES = frozenset({"failed", "retried"})

_Origin = tuple[ModelMessage, int | None]
"""(the model message, index of the part in a request; ``None`` for a response)."""

_Converted = tuple[tuple[Any, ...], list[Message], dict[int, int]]
"""A model message's parts when converted, its neutral messages and their calls."""


_NOTES: NoteParts[UserPromptPart] = NoteParts()
"""The user prompt parts this adapter made to carry toolerr's text (notes)."""


def tool_return_text(part: BaseToolReturnPart[Any]) -> str:
    """The text of a tool return as the core sees it (no ``{"error": ...}`` wrapper)."""
    return part.model_response_str(wrap_if_error=False)


def _user_content(part: UserPromptPart) -> Any:
    content: Any = part.content
    if isinstance(content, str):
        return _NOTES.text(part, content)
    if isinstance(content, Sequence):
        return [
            {"type": "text", "text": _NOTES.text(part, c)} if isinstance(c, str) else {"type": "file"}
            for c in content
        ]
    return ""


def _part_message(part: ModelRequestPart, origin: _Origin) -> Message:
    if isinstance(part, RetryPromptPart) and part.tool_name is None:
        return Message(role="user", content=part.model_response(), origin=origin)
    if isinstance(part, (ToolReturnPart, RetryPromptPart)):
        failed = isinstance(part, RetryPromptPart) or part.outcome in _ERROR_OUTCOMES
        return Message(
            role="tool",
            content=part.model_response() if isinstance(part, RetryPromptPart) else tool_return_text(part),
            tool_call_id=part.tool_call_id,
            name=part.tool_name,
            is_error=True if failed else None,
            client=CLIENT,
            origin=origin,
        )
    if isinstance(part, UserPromptPart):
        return Message(role="user", content=_user_content(part), origin=origin)
    if isinstance(part, SystemPromptPart):
        return Message(role="system", content=part.content, origin=origin)
    if isinstance(part, RetryFeedbackPart):
        content = part.content if isinstance(part.content, str) else ""
        return Message(role="user", content=content, origin=origin)
    return Message(role="system", content="", origin=origin)


def call_of(part: ToolCallPart) -> ToolCall:
    """The neutral call of a tool call part (what the ledger checks a new call by)."""
    args = part.args
    if isinstance(args, str):
        return ToolCall.from_raw(part.tool_call_id, part.tool_name, args)
    return ToolCall(id=part.tool_call_id, name=part.tool_name, arguments=dict(args or {}))


@dataclass
class Conversation:
    """The neutral view of one model request, with the way back to pydantic-ai messages."""

    source: Sequence[ModelMessage]
    messages: list[Message] = field(default_factory=list)
    calls: dict[int, int] = field(default_factory=dict)
    """``id(ToolCall)`` -> index of its ``ToolCallPart`` in its response."""
    index_of: dict[int, int] = field(default_factory=dict)
    """``id(model message)`` -> its index in ``source``."""

    def to_model_messages(self, messages: Sequence[Message]) -> list[ModelMessage]:
        """The model messages for a rewritten neutral conversation (see the module doc)."""
        originals = {id(m) for m in self.messages}
        groups: list[tuple[int | None, list[Any]]] = []
        """(index of the original model message or None for a new request, its new parts)."""
        used: set[int] = set()
        for message in messages:
            origin: _Origin | None = message.origin if isinstance(message.origin, tuple) else None
            if origin is None or id(origin[0]) not in self.index_of:
                # A new message (the note): a user prompt part of the request it follows.
                note = _NOTES.made(UserPromptPart(message.text))
                last = groups[-1][0] if groups else None
                if groups and (last is None or isinstance(self.source[last], ModelRequest)):
                    groups[-1][1].append(note)
                    continue
                base = self._next_request(groups, used)
                if base is not None:
                    used.add(base)
                groups.append((base, [note]))
                continue
            model_message, part_index = origin
            index = self.index_of[id(model_message)]
            original = self.source[index]
            if not groups or groups[-1][0] != index:
                groups.append((index, []))
                used.add(index)
            if isinstance(original, ModelResponse):
                groups[-1][1].extend(self._response_parts(original, message))
            else:
                assert part_index is not None
                kept = original.parts[part_index]
                groups[-1][1].append(kept if id(message) in originals else _changed_part(kept, message))
        out: list[ModelMessage] = []
        for source_index, parts in groups:
            if source_index is None:
                out.append(ModelRequest(parts=parts))
                continue
            source: Any = self.source[source_index]
            out.append(source if same_objects(parts, source.parts) else replace(source, parts=parts))
        return out

    def _next_request(self, groups: list[tuple[int | None, list[Any]]], used: set[int]) -> int | None:
        """An original request after the last emitted message that gave no part (its tool
        returns were all removed): the note's request keeps its fields (instructions ...)."""
        last = max((i for i, _ in groups if i is not None), default=-1)
        for index in range(last + 1, len(self.source)):
            if index not in used and isinstance(self.source[index], ModelRequest):
                return index
        return None

    def _response_parts(self, original: ModelResponse, message: Message) -> list[ModelResponsePart]:
        kept = {self.calls[id(call)] for call in message.tool_calls if id(call) in self.calls}
        return [
            part
            for position, part in enumerate(original.parts)
            if not isinstance(part, ToolCallPart) or position in kept
        ]


def _changed_part(part: ModelRequestPart, message: Message) -> ModelRequestPart:
    """The part for a neutral message the core changed (C1's guidance, C2's note)."""
    if type(part) is ToolReturnPart or isinstance(part, RetryPromptPart):
        # (typed tool parts, a subclass of ToolReturnPart, keep their typed content)
        generic: Any = part
        return cast(ModelRequestPart, replace(generic, content=message.text))
    if isinstance(part, UserPromptPart):
        if isinstance(part.content, str):
            # what the form appended, after the part's own text
            added = appended_text(_NOTES.text(part, part.content), message.text)
            text = part.content + added if added is not None else message.text
            return _NOTES.made(replace(part, content=text))
        content = list(part.content)
        extra = message.content[len(content) :] if isinstance(message.content, list) else []
        texts = [block.get("text", "") for block in extra if isinstance(block, dict)]
        return _NOTES.made(replace(part, content=[*content, *texts]))
    return part


def to_conversation(messages: Sequence[ModelMessage], cache: ConversionCache) -> Conversation:
    """The neutral conversation of a model request's messages. A model message converted
    before (the same object, its parts unchanged) gives the same neutral messages again
    from ``cache``: a history that only grew is replayed from the core's checkpoint."""
    conversation = Conversation(messages)
    out = conversation.messages
    for index, message in enumerate(messages):
        conversation.index_of[id(message)] = index
        entry = cache.get_object(message, _convert, lambda m, e: same_objects(m.parts, e[0]))
        out.extend(entry[1])
        conversation.calls.update(entry[2])
    return conversation


def _convert(message: ModelMessage) -> _Converted:
    parts = tuple(message.parts)
    if isinstance(message, ModelResponse):
        calls = {i: call_of(part) for i, part in enumerate(parts) if isinstance(part, ToolCallPart)}
        text = "".join(part.content for part in parts if isinstance(part, TextPart))
        neutral = Message("assistant", text, tool_calls=tuple(calls.values()), origin=(message, None))
        return parts, [neutral], {id(call): i for i, call in calls.items()}
    return parts, [_part_message(part, (message, i)) for i, part in enumerate(message.parts)], {}
