"""OpenAI Chat Completions ``messages`` to the neutral conversation and back (assistant
``tool_calls``, ``tool`` messages, content as text or parts; the legacy assistant
``function_call`` and its ``function`` message, read as a call without id and its result)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ._detect import normalise_client
from ._types import Message, ToolCall, parse_arguments
from ._wire_base import CACHE, Converted, bool_or_none, copy_json, own_message, str_or_none


def openai_chat_to_messages(
    messages: Sequence[Mapping[str, Any]], client: str | None = None
) -> list[Message]:
    """OpenAI Chat ``messages`` -> neutral messages (one for one; ``origin`` is
    ``(index, None)``). ``client`` names whose templates produced the tool results."""
    return chat_in(messages, normalise_client(client), 0).messages


def chat_in(items: Sequence[Any], client: str, offset: int) -> Converted:
    out = Converted()
    append = out.messages.append
    get = CACHE.get
    for index, item in enumerate(items, offset):
        key = _chat_key(client, index, item)
        message: Message | None = get(key) if key is not None else None
        if message is None:
            message = _chat_message(item, client, index)
            if key is not None:
                message = own_message(message)
                CACHE.put(key, message)
        append(message)
    return out


def _chat_message(item: Any, client: str, index: int) -> Message:
    origin = (index, None)
    if not isinstance(item, Mapping):
        return Message(role="system", content="", origin=origin)
    role = item.get("role")
    content = item.get("content")
    if role == "assistant":
        calls: list[ToolCall] = []
        for wire_call in item.get("tool_calls") or ():
            if not isinstance(wire_call, Mapping):
                continue
            function = wire_call.get("function")
            function = function if isinstance(function, Mapping) else {}
            raw = function.get("arguments")
            calls.append(
                ToolCall(
                    id=str_or_none(wire_call.get("id")),
                    name=str_or_none(function.get("name")) or "unknown_tool",
                    arguments=parse_arguments(raw),
                    raw_arguments=raw if isinstance(raw, str) else None,
                )
            )
        legacy = item.get("function_call")
        if not calls and isinstance(legacy, Mapping):  # legacy function calling: a call without id
            raw = legacy.get("arguments")
            calls.append(
                ToolCall(
                    id=None,
                    name=str_or_none(legacy.get("name")) or "unknown_tool",
                    arguments=parse_arguments(raw),
                    raw_arguments=raw if isinstance(raw, str) else None,
                )
            )
        return Message(role="assistant", content=content or "", tool_calls=tuple(calls), origin=origin)
    if role == "function":  # its result: paired with the assistant's call, which has no id
        return Message(
            role="tool",
            content=content if content is not None else "",
            name=str_or_none(item.get("name")),
            client=client,
            origin=origin,
        )
    if role == "tool":
        return Message(
            role="tool",
            content=content if content is not None else "",
            tool_call_id=str_or_none(item.get("tool_call_id")),
            name=str_or_none(item.get("name")),
            is_error=bool_or_none(item.get("is_error")),
            client=client,
            origin=origin,
        )
    if role == "user":
        return Message(role="user", content=content, origin=origin)
    return Message(role="system", content=content, origin=origin)  # system, developer ...


def _chat_key(client: str, index: int, item: Any) -> tuple[Any, ...] | None:
    """Every field the conversion reads, hashable; a string stays itself and any other
    value becomes a tagged JSON text (so ``"1"``, ``1`` and ``True`` differ)."""
    if type(item) is not dict:
        return None
    try:
        content = item.get("content")
        if content is not None and type(content) is not str:
            content = ("json", json.dumps(content, sort_keys=True, ensure_ascii=False))
        role = item.get("role")
        if role == "tool":  # most items of a long conversation: no intermediate objects
            call_id, name, flag = item.get("tool_call_id"), item.get("name"), item.get("is_error")
            return (
                client,
                index,
                "tool",
                content,
                call_id if type(call_id) is str else None,  # what str_or_none() gives the conversion
                name if type(name) is str else None,
                flag if flag is True or flag is False else None,  # what bool_or_none() gives it
            )
        if role == "assistant":
            wire_calls = item.get("tool_calls")
            calls: Any = None
            if wire_calls:
                parts = []
                for wire_call in wire_calls:
                    function, call_id = wire_call["function"], wire_call.get("id")
                    name, arguments = function["name"], function["arguments"]
                    if type(name) is not str or type(arguments) is not str:
                        return None
                    parts.append((call_id if type(call_id) is str else None, name, arguments))
                calls = tuple(parts)
            legacy = item.get("function_call")
            if legacy is not None and not calls:
                name, arguments = legacy["name"], legacy["arguments"]
                if type(name) is not str or type(arguments) is not str:
                    return None
                calls = ("function_call", name, arguments)
            return (client, index, "assistant", content, calls)
        if role == "function":
            name = item.get("name")
            return (client, index, "function", content, name if type(name) is str else None)
        if role is None or type(role) is str:
            return (client, index, role, content)
        return None
    except (TypeError, ValueError, KeyError, AttributeError, RecursionError):
        return None  # an odd shape: converted without the cache


def chat_out(items: Sequence[Any], conv: Converted, new: Sequence[Message]) -> list[Any]:
    originals = {id(m) for m in conv.messages}
    out: list[Any] = []
    for message in new:
        origin = message.origin
        if origin is None:  # a note toolerr added
            out.append({"role": "user", "content": copy_json(message.content)})
            continue
        item = items[origin[0]]
        if id(message) in originals:
            out.append(item)
        elif message.role == "assistant":
            original = conv.messages[origin[0]]
            wire_calls = [c for c in item.get("tool_calls") or () if isinstance(c, Mapping)]
            if not wire_calls and original.tool_calls:  # a legacy function_call
                changed = {k: v for k, v in item.items() if k != "function_call"}
                if message.tool_calls:
                    changed["function_call"] = item["function_call"]
                out.append(changed)
                continue
            by_call = {id(c): w for c, w in zip(original.tool_calls, wire_calls, strict=False)}
            kept = [by_call[id(c)] for c in message.tool_calls]
            changed = {k: v for k, v in item.items() if k != "tool_calls"}
            if kept:
                changed["tool_calls"] = kept
            out.append(changed)
        else:  # a copy: the content may come from a conversion cache
            out.append({**item, "content": copy_json(message.content)})
    return out
