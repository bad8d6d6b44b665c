"""Wire formats: the request bodies a gateway or a raw SDK user holds, as plain JSON dicts.

Three shapes, each converted to the neutral conversation and back:

- OpenAI Chat Completions ``messages`` (assistant ``tool_calls``, ``tool`` messages,
  content as text or parts; the legacy assistant ``function_call`` and its ``function``
  message, read as a call without id and its result);
- Anthropic Messages ``messages`` (``tool_use`` blocks in assistant turns, ``tool_result``
  blocks with ``is_error`` in user turns; one user turn holds several results);
- OpenAI Responses ``input`` items (``function_call`` / ``function_call_output`` and the
  built-in ``custom_tool_call``, ``local_shell_call``, ``shell_call``,
  ``apply_patch_call`` items with their outputs).

A one-call rewrite (:func:`rewrite_openai_chat`, :func:`rewrite_anthropic`,
:func:`rewrite_responses`) applies a :class:`~toolerr.ToolErrorLayer` to one request:

- passthrough is the very same object: when nothing failed at the decision step (checked
  on the request's tail, without converting the rest) or nothing changed;
- a rewritten request stays valid for its API: every call keeps its result (forms C2, C4
  and abstract remove a failed call with its result), Anthropic turns still alternate
  (a note joins the user turn after the ``tool_result`` blocks as a text block);
- dicts that did not change are the same objects in the new list;
- the ledger is rebuilt from the request itself: nothing is kept across requests for
  correctness.

SDK objects in a request (pydantic models: a response's message or output items, an
Anthropic response's content blocks, appended as the SDKs return them) are read as the
dicts they dump to; those that do not change go on as they are.

Stdlib only; the input is never modified. Fails open: an internal error returns the
request unchanged and logs on logger ``toolerr``.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._detect import normalise_client
from ._forms import find_decision_step
from ._layer import ToolErrorLayer
from ._loop import ToolLoopError
from ._records import DetectionRecord
from ._types import Form, Message, Role, ToolCall, content_text, parse_arguments

logger = logging.getLogger("toolerr")

WIRE_FORMATS: tuple[str, ...] = ("openai-chat", "anthropic", "responses")


@dataclass(frozen=True)
class WireRewrite:
    """The result of rewriting one request body.

    ``request``: the messages (or Responses input) to send: the very input object when
    ``changed`` is false. ``records``: one per failure at the decision step.
    ``error``: set when toolerr failed internally and let the request pass unchanged.
    """

    request: Any
    changed: bool
    records: tuple[DetectionRecord, ...] = ()
    error: str | None = None


# Where a neutral message came from: (wire index, part) -- part is None for a whole wire
# message, an int for one block of an Anthropic user turn, "rest" for its other blocks,
# or a tuple of wire indices for a Responses assistant group.
_Origin = tuple[int, Any]


def _text_blocks(blocks: Any) -> str:
    if isinstance(blocks, str):
        return blocks
    if not isinstance(blocks, list):
        return ""
    return "\n".join(b["text"] for b in blocks if isinstance(b, Mapping) and isinstance(b.get("text"), str))


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _copy(value: Any, depth: int = 0) -> Any:
    """A container value as a deep copy of its own (strings and numbers as they are).

    The JSON shapes of a request (dicts, lists, tuples of plain values) are copied by a
    walk of their own, several times faster than ``copy.deepcopy`` (no memo); anything
    else, and anything nested deeper than 64 levels (where a cycle would be), by
    ``copy.deepcopy``."""
    if value is None or isinstance(value, (str, int, float)):
        return value
    kind = type(value)
    if depth < 64:
        if kind is dict:
            return {key: _copy(item, depth + 1) for key, item in value.items()}
        if kind is list:
            return [_copy(item, depth + 1) for item in value]
        if kind is tuple:
            return tuple(_copy(item, depth + 1) for item in value)
    return copy.deepcopy(value)


def _own(message: Message) -> Message:
    """A message to keep in a conversion cache: holding none of the request's objects,
    so that what a caller later does to its own objects (compacting its history in
    place) never reaches another request that hits the cache. The message itself where
    it holds none (string content, arguments parsed from their text)."""
    content = message.content
    owned = _copy(content)
    calls = message.tool_calls
    owned_calls = tuple(map(_own_call, calls)) if calls else calls
    if owned is content and all(a is b for a, b in zip(owned_calls, calls, strict=True)):
        return message
    return dataclasses.replace(message, content=owned, tool_calls=owned_calls)


def _own_call(call: ToolCall) -> ToolCall:
    # arguments parsed from the model's text (``raw_arguments``) are already a fresh object
    if call.raw_arguments is not None:
        return call
    owned = _copy(call.arguments)
    return call if owned is call.arguments else dataclasses.replace(call, arguments=owned)


class _Converted:
    """A request converted to neutral messages, with what it takes to convert back."""

    __slots__ = ("calls", "messages")

    def __init__(self) -> None:
        self.messages: list[Message] = []
        # identity of each neutral ToolCall -> the wire object (a tool_call dict, a
        # tool_use block or a Responses item index) it came from
        self.calls: dict[int, Any] = {}


# ---------------------------------------------------------------------------------------
# OpenAI Chat Completions
# ---------------------------------------------------------------------------------------


def openai_chat_to_messages(
    messages: Sequence[Mapping[str, Any]], client: str | None = None
) -> list[Message]:
    """OpenAI Chat ``messages`` -> neutral messages (one for one; ``origin`` is
    ``(index, None)``). ``client`` names whose templates produced the tool results."""
    return _chat_in(messages, normalise_client(client), 0).messages


def _chat_in(items: Sequence[Any], client: str, offset: int) -> _Converted:
    out = _Converted()
    append = out.messages.append
    cache = _CACHE
    for index, item in enumerate(items, offset):
        key = _chat_key(client, index, item)
        message = cache.get(key) if key is not None else None
        if message is None:
            message = _chat_message(item, client, index)
            if key is not None:
                message = _own(message)
                _remember(key, message)
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
                    id=_str(wire_call.get("id")),
                    name=_str(function.get("name")) or "unknown_tool",
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
                    name=_str(legacy.get("name")) or "unknown_tool",
                    arguments=parse_arguments(raw),
                    raw_arguments=raw if isinstance(raw, str) else None,
                )
            )
        return Message(role="assistant", content=content or "", tool_calls=tuple(calls), origin=origin)
    if role == "function":  # its result: paired with the assistant's call, which has no id
        return Message(
            role="tool",
            content=content if content is not None else "",
            name=_str(item.get("name")),
            client=client,
            origin=origin,
        )
    if role == "tool":
        return Message(
            role="tool",
            content=content if content is not None else "",
            tool_call_id=_str(item.get("tool_call_id")),
            name=_str(item.get("name")),
            is_error=_flag(item.get("is_error")),
            client=client,
            origin=origin,
        )
    if role == "user":
        return Message(role="user", content=content, origin=origin)
    return Message(role="system", content=content, origin=origin)  # system, developer ...


# A content-keyed cache of converted messages (an optimisation only: a hit is the message
# the conversion would build). Requests of one conversation repeat its earlier messages;
# handing the layer the same objects lets its replay continue from a checkpoint instead of
# replaying the whole conversation. Keyed by client, position and every field the
# conversion reads; bounded.
_CACHE: dict[tuple[Any, ...], Message] = {}
_CACHE_SIZE = 65_536
_CACHE_LOCK = threading.Lock()


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
                call_id if type(call_id) is str else None,  # what _str() gives the conversion
                name if type(name) is str else None,
                flag if flag is True or flag is False else None,  # what _flag() gives it
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


def _remember(key: tuple[Any, ...], message: Message) -> None:
    with _CACHE_LOCK:
        if len(_CACHE) >= _CACHE_SIZE:
            for stale in list(_CACHE)[: _CACHE_SIZE // 8]:
                del _CACHE[stale]
        _CACHE[key] = message


def _chat_out(items: Sequence[Any], conv: _Converted, new: Sequence[Message]) -> list[Any]:
    originals = {id(m) for m in conv.messages}
    out: list[Any] = []
    for message in new:
        origin = message.origin
        if origin is None:  # a note toolerr added
            out.append({"role": "user", "content": _copy(message.content)})
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
            out.append({**item, "content": _copy(message.content)})
    return out


def _chat_tail(items: Sequence[Any]) -> int:
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if isinstance(item, Mapping) and item.get("role") == "assistant":
            return index
    return len(items)


# ---------------------------------------------------------------------------------------
# Anthropic Messages
# ---------------------------------------------------------------------------------------


def anthropic_to_messages(messages: Sequence[Mapping[str, Any]], client: str | None = None) -> list[Message]:
    """Anthropic ``messages`` -> neutral messages: an assistant turn is one message (its
    text, its ``tool_use`` blocks as calls); a user turn is one ``tool`` message per
    ``tool_result`` block, then one user message for its other blocks."""
    return _anthropic_in(messages, normalise_client(client), 0).messages


def _json_key(kind: str, client: str, index: int, item: Any) -> tuple[Any, ...] | None:
    """A cache key for a wire item of any shape: its canonical JSON text."""
    if type(item) is not dict:
        return None
    try:
        return (kind, client, index, json.dumps(item, sort_keys=True, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        return None


_TURNS: dict[tuple[Any, ...], tuple[Message, ...]] = {}
_PIECES: dict[Any, Any] = {}


def _remember_piece(key: Any, value: Any) -> None:
    with _CACHE_LOCK:
        if len(_PIECES) >= _CACHE_SIZE:
            for stale in list(_PIECES)[: _CACHE_SIZE // 8]:
                del _PIECES[stale]
        _PIECES[key] = value


def _anthropic_in(items: Sequence[Any], client: str, offset: int) -> _Converted:
    out = _Converted()
    for index, item in enumerate(items, offset):
        key = _json_key("anthropic", client, index, item)
        cached = _TURNS.get(key) if key is not None else None
        if cached is None:
            cached = tuple(_anthropic_turn(item, client, index))
            if key is not None:
                cached = tuple(map(_own, cached))
                _remember_turn(key, cached)
        out.messages.extend(cached)
    return out


def _remember_turn(key: tuple[Any, ...], messages: tuple[Message, ...]) -> None:
    with _CACHE_LOCK:
        if len(_TURNS) >= _CACHE_SIZE:
            for stale in list(_TURNS)[: _CACHE_SIZE // 8]:
                del _TURNS[stale]
        _TURNS[key] = messages


def _anthropic_turn(item: Any, client: str, index: int) -> list[Message]:
    """The neutral messages of one Anthropic turn."""
    out = _Converted()
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
                        id=_str(block.get("id")),
                        name=_str(block.get("name")) or "unknown_tool",
                        arguments=block.get("input", {}),
                    )
                    calls.append(call)
        out.messages.append(
            Message(
                role="assistant",
                content=_text_blocks(content),
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
                        tool_call_id=_str(block.get("tool_use_id")),
                        is_error=_flag(block.get("is_error")),
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


def _anthropic_out(items: Sequence[Any], conv: _Converted, new: Sequence[Message]) -> list[Any]:
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


def _anthropic_blocks(items: Sequence[Any], conv: _Converted, part: Message, original: bool) -> list[Any]:
    if part.origin is None:
        return _as_blocks(_copy(part.content))
    index, position = part.origin
    content = items[index].get("content")
    if part.role == "tool":
        block = content[position]
        return [block] if original else [{**block, "content": _copy(part.content)}]
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
    return _as_blocks(_copy(part.content))


def _anthropic_tail(items: Sequence[Any]) -> int:
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if isinstance(item, Mapping) and item.get("role") == "assistant":
            return index
    return len(items)


# ---------------------------------------------------------------------------------------
# OpenAI Responses
# ---------------------------------------------------------------------------------------

# call item type -> (output item type, tool name when the item has none)
_RESPONSES_CALLS: dict[str, tuple[str, str | None]] = {
    "function_call": ("function_call_output", None),
    "custom_tool_call": ("custom_tool_call_output", None),
    "local_shell_call": ("local_shell_call_output", "local_shell"),
    "shell_call": ("shell_call_output", "shell"),
    "apply_patch_call": ("apply_patch_call_output", "apply_patch"),
}
_RESPONSES_OUTPUTS = frozenset(kind for kind, _ in _RESPONSES_CALLS.values())


def responses_to_messages(items: Sequence[Mapping[str, Any]], client: str | None = None) -> list[Message]:
    """Responses ``input`` items -> neutral messages: each run of assistant-side items
    (assistant messages, reasoning, call items) is one assistant message whose calls are
    the call items; each call output is a ``tool`` message; user, system and developer
    messages are messages of their own."""
    return _responses_in(items, normalise_client(client), 0).messages


def _responses_call(item: Mapping[str, Any], kind: str) -> ToolCall:
    default_name = _RESPONSES_CALLS[kind][1]
    call_id = _str(item.get("call_id"))
    if kind == "function_call":
        raw = item.get("arguments")
        return ToolCall(
            id=call_id,
            name=_str(item.get("name")) or "unknown_tool",
            arguments=parse_arguments(raw),
            raw_arguments=raw if isinstance(raw, str) else None,
        )
    if kind == "custom_tool_call":
        raw = item.get("input")
        return ToolCall(
            id=call_id,
            name=_str(item.get("name")) or "unknown_tool",
            arguments=raw,
            raw_arguments=raw if isinstance(raw, str) else None,
        )
    argument_key = "operation" if kind == "apply_patch_call" else "action"
    return ToolCall(id=call_id, name=default_name or kind, arguments=item.get(argument_key, {}))


def _shell_output(output: Any) -> tuple[Any, bool | None]:
    """A ``shell_call_output``'s chunks -> (content the detectors read, error flag)."""
    if not isinstance(output, list):
        return output, None
    texts: list[str] = []
    failed: bool | None = None
    for chunk in output:
        if not isinstance(chunk, Mapping):
            continue
        texts.extend(t for key in ("stdout", "stderr") if isinstance(t := chunk.get(key), str) and t)
        outcome = chunk.get("outcome")
        if isinstance(outcome, Mapping):
            if outcome.get("type") == "timeout":
                failed = True
            elif outcome.get("type") == "exit" and isinstance(outcome.get("exit_code"), int):
                failed = bool(failed) or outcome["exit_code"] != 0
    # A mapping (not text): C1 cannot append to it, so the item is never changed in place.
    return {
        "output": "\n".join(texts),
        "outcome": [c.get("outcome") for c in output if isinstance(c, Mapping)],
    }, failed


def _responses_in(items: Sequence[Any], client: str, offset: int) -> _Converted:
    out = _Converted()
    group: list[int] = []
    calls: list[ToolCall] = []
    texts: list[str] = []
    local_ids: dict[str, str] = {}

    keys: list[Any] = []  # the group's item keys (None: not cacheable)

    def close() -> None:
        if group:
            group_key = ("responses-group", client, tuple(keys)) if None not in keys else None
            message = _PIECES.get(group_key) if group_key is not None else None
            if message is None:
                message = Message(
                    role="assistant",
                    content="\n".join(texts),
                    tool_calls=tuple(calls),
                    origin=(group[0], tuple(group)),
                )
                if group_key is not None:
                    _remember_piece(group_key, message)
            out.messages.append(message)
            group.clear()
            calls.clear()
            texts.clear()
            keys.clear()

    for index, item in enumerate(items, offset):
        item_key = _json_key("responses", client, index, item)
        if not isinstance(item, Mapping):
            close()
            out.messages.append(Message(role="system", content="", origin=(index, None)))
            continue
        kind = item.get("type")
        role = item.get("role")
        if kind in (None, "message") and role is not None:
            if role == "assistant":
                group.append(index)
                keys.append(item_key)
                texts.append(content_text(item.get("content")))
                continue
            close()
            message = _PIECES.get(item_key) if item_key is not None else None
            if message is None:
                neutral_role: Role = "user" if role == "user" else "system"
                message = Message(role=neutral_role, content=item.get("content"), origin=(index, None))
                if item_key is not None:
                    message = _own(message)
                    _remember_piece(item_key, message)
            out.messages.append(message)
        elif kind in _RESPONSES_CALLS:
            # the same call object for the same item: the layer's replay checkpoints apply
            call = _PIECES.get(item_key) if item_key is not None else None
            if call is None:
                call = _responses_call(item, kind)
                if item_key is not None:
                    call = _own_call(call)
                    _remember_piece(item_key, call)
            if kind == "local_shell_call" and isinstance(item.get("id"), str) and call.id is not None:
                local_ids[item["id"]] = call.id
            out.calls[id(call)] = index
            group.append(index)
            keys.append(item_key)
            calls.append(call)
        elif kind in _RESPONSES_OUTPUTS:
            close()
            output_key = (
                (item_key, local_ids.get(_str(item.get("id")) or "")) if item_key is not None else None
            )
            cached = _PIECES.get(output_key) if output_key is not None else None
            if cached is not None:
                out.messages.append(cached)
                continue
            flag: bool | None = None
            if kind == "local_shell_call_output":
                item_id = _str(item.get("id"))
                call_id = (
                    local_ids.get(item_id, item_id) if item_id is not None else _str(item.get("call_id"))
                )
                content: Any = item.get("output", "")
            else:
                call_id = _str(item.get("call_id"))
                content = item.get("output", "")
                if kind == "shell_call_output":
                    content, flag = _shell_output(content)
                elif kind == "apply_patch_call_output":
                    flag = True if item.get("status") == "failed" else None
            message = Message(
                role="tool",
                content=content if content is not None else "",
                tool_call_id=call_id,
                is_error=flag,
                client=client,
                origin=(index, None),
            )
            if output_key is not None:
                message = _own(message)
                _remember_piece(output_key, message)
            out.messages.append(message)
        elif isinstance(kind, str) and kind.endswith("_output"):
            close()  # outputs of tools toolerr does not read (computer use ...): inert
            out.messages.append(Message(role="system", content="", origin=(index, None)))
        else:  # reasoning, web search, MCP calls with inline outputs, item references ...
            group.append(index)
            keys.append(item_key)
    close()
    return out


def _input_text(content: Any, before: Any) -> Any:
    """Blocks toolerr appended as ``{"type": "text"}`` -> Responses ``input_text``."""
    if not isinstance(content, list):
        return content
    kept = {id(b) for b in before} if isinstance(before, list) else set()
    return [
        {"type": "input_text", "text": b["text"]}
        if id(b) not in kept and isinstance(b, Mapping) and b.get("type") == "text"
        else b
        for b in content
    ]


def _responses_out(items: Sequence[Any], conv: _Converted, new: Sequence[Message]) -> list[Any]:
    originals = {id(m) for m in conv.messages}
    sources = {m.origin: m for m in conv.messages if m.origin is not None}
    out: list[Any] = []
    for message in new:
        origin = message.origin
        if origin is None:
            out.append(
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": message.content}],
                }
                if isinstance(message.content, str)
                else {"type": "message", "role": "user", "content": _copy(_input_text(message.content, None))}
            )
            continue
        index, part = origin
        if isinstance(part, tuple):  # an assistant group
            if id(message) in originals:
                out.extend(items[i] for i in part)
            else:
                call_items = {i for i in part if items[i].get("type") in _RESPONSES_CALLS}
                kept = {conv.calls[id(c)] for c in message.tool_calls}
                out.extend(items[i] for i in part if i not in call_items or i in kept)
            continue
        item = items[index]
        if id(message) in originals:
            out.append(item)
            continue
        # the blocks of the content converted (a conversion cache's own): kept as they are
        before = sources[origin].content if origin in sources else None
        field = "output" if message.role == "tool" else "content"
        out.append({**item, field: _copy(_input_text(message.content, before))})
    return out


def _responses_tail(items: Sequence[Any]) -> int:
    index = len(items) - 1
    while index >= 0:  # the outputs and messages after the last assistant group
        item = items[index]
        if not isinstance(item, Mapping):
            index -= 1
            continue
        kind = item.get("type")
        if kind in _RESPONSES_CALLS or (kind in (None, "message") and item.get("role") == "assistant"):
            break
        if kind in (None, "message") or (isinstance(kind, str) and kind.endswith("_output")):
            index -= 1
            continue
        break
    while index > 0:  # back to the group's first item
        item = items[index - 1]
        if not isinstance(item, Mapping):
            break
        kind = item.get("type")
        if kind in (None, "message"):
            if item.get("role") != "assistant":
                break
        elif isinstance(kind, str) and kind.endswith("_output"):
            break
        index -= 1
    return max(index, 0)


# ---------------------------------------------------------------------------------------
# The one-call rewrites
# ---------------------------------------------------------------------------------------

_Converter = Callable[[Sequence[Any], str, int], _Converted]
_Back = Callable[[Sequence[Any], _Converted, Sequence[Message]], list[Any]]
_FORMATS: dict[str, tuple[_Converter, _Back, Callable[[Sequence[Any]], int]]] = {
    "openai-chat": (_chat_in, _chat_out, _chat_tail),
    "anthropic": (_anthropic_in, _anthropic_out, _anthropic_tail),
    "responses": (_responses_in, _responses_out, _responses_tail),
}


def rewrite_wire(
    wire: str,
    request: Any,
    *,
    layer: ToolErrorLayer | None = None,
    client: str | None = None,
    **options: Any,
) -> WireRewrite:
    """Rewrite one request body of format ``wire`` (``openai-chat``, ``anthropic`` or
    ``responses``): the messages list (or Responses ``input``).

    ``layer``: the :class:`~toolerr.ToolErrorLayer` to apply (its policy decides the form);
    else one is made from ``options`` (``form``, ``retry_budget``, ``loop_action`` ...).
    ``client``: whose templates produced the tool results (``codex``, ``qwen-code`` ...;
    a User-Agent string works too), ``generic`` by default. Never raises but
    :class:`~toolerr.ToolLoopError` (loop action ``stop``) and errors in the arguments.
    """
    if wire not in _FORMATS:
        raise ValueError(f"unknown wire format {wire!r}; expected one of {', '.join(WIRE_FORMATS)}")
    if layer is None:
        layer = ToolErrorLayer(**options)
    elif options:
        raise TypeError("give either a layer or policy options, not both")
    name = normalise_client(client if client is not None else layer.policy.client)
    if not isinstance(request, list) or not request:
        return WireRewrite(request, False)
    try:
        return _rewrite(wire, request, layer, name)
    except ToolLoopError:
        raise
    except Exception as exc:
        logger.warning("toolerr: %s rewrite failed; the request passes unchanged", wire, exc_info=True)
        return WireRewrite(request, False, (), f"{type(exc).__name__}: {exc}")


def _rewrite(
    wire: str, request: list[Any], layer: ToolErrorLayer, name: str, plain: bool = False
) -> WireRewrite:
    convert, back, tail = _FORMATS[wire]
    start = tail(request)
    recent_items = request[start:]
    # SDK objects in the request (``plain``: none) are read as the dicts they stand for:
    # for the fast path, those of the tail only (a long run's earlier messages not again).
    if not plain and _has_objects(recent_items if start < len(request) else request, wire):
        start, recent_items = _plain_tail(request, wire, tail)
    if start >= len(request) - 1:
        return WireRewrite(request, False)
    # Fast path: nothing failed at the decision step -> the same object, unconverted.
    recent = convert(recent_items, name, start).messages
    step = find_decision_step(recent)
    if step is None or not any(
        r.duplicate_of is None and layer.inspect(r.message).failed for r in step.results
    ):
        return WireRewrite(request, False)
    if not plain:
        view = _plain_view(request, wire)
        if view is not None:
            viewed = _rewrite(wire, view[0], layer, name, plain=True)
            if not viewed.changed:
                return WireRewrite(request, False, viewed.records, viewed.error)
            originals = view[1]
            out = [originals.get(id(item), item) for item in viewed.request]
            return WireRewrite(out, True, viewed.records)
    conv = convert(request, name, 0)
    result = layer.rewrite(conv.messages)
    if result.error is not None:
        return WireRewrite(request, False, result.records, result.error)
    if not result.changed:
        return WireRewrite(request, False, result.records)
    return WireRewrite(back(request, conv, result.messages), True, result.records)


def _has_objects(items: Sequence[Any], wire: str) -> bool:
    """Whether items (or an Anthropic turn's blocks) are other than dicts."""
    for item in items:
        if type(item) is not dict:
            return True
        if wire == "anthropic":
            content = item.get("content")
            if type(content) is list and any(type(block) is not dict for block in content):
                return True
    return False


def _dumped(value: Any) -> Any:
    """A pydantic model (an SDK's message, output item or content block) as its JSON dict."""
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if not callable(dump):
        return value
    plain = dump(mode="json", exclude_none=True)
    return plain if isinstance(plain, Mapping) else value


def _plain_tail(request: list[Any], wire: str, tail: Callable[[Sequence[Any]], int]) -> tuple[int, list[Any]]:
    """Where the tail of the request's plain view starts, and that tail: the objects of
    as many last items dumped as it takes to find it."""
    size = 16
    while True:
        begin = max(len(request) - size, 0)
        view = _plain_view(request[begin:], wire)
        items = view[0] if view is not None else request[begin:]
        start = tail(items)
        if begin == 0 or 0 < start < len(items):
            return begin + start, items[start:]
        size *= 4


def _plain_view(request: list[Any], wire: str) -> tuple[list[Any], dict[int, Any]] | None:
    """The request with the SDK objects callers append as they got them
    (``messages.append(response.choices[0].message)``, ``input += response.output``,
    Anthropic's ``{"role": "assistant", "content": response.content}``) as dicts, and the
    original of each dict made, by identity; ``None`` when it holds none."""
    view: list[Any] = []
    originals: dict[int, Any] = {}
    for item in request:
        plain = _dumped(item)
        content = plain.get("content") if wire == "anthropic" and isinstance(plain, Mapping) else None
        if isinstance(content, list) and any(type(block) is not dict for block in content):
            plain = {**plain, "content": [_dumped(block) for block in content]}
        if plain is not item:
            originals[id(plain)] = item
        view.append(plain)
    return (view, originals) if originals else None


def rewrite_openai_chat(
    messages: Any, form: Form | str | None = None, *, client: str | None = None, **options: Any
) -> Any:
    """OpenAI Chat Completions ``messages`` with toolerr's delivery applied (C3 by default):
    ``client.chat.completions.create(messages=toolerr.rewrite_openai_chat(messages), ...)``.
    The very same list when nothing failed."""
    return rewrite_wire("openai-chat", messages, client=client, form=form, **options).request


def rewrite_anthropic(
    messages: Any, form: Form | str | None = None, *, client: str | None = None, **options: Any
) -> Any:
    """Anthropic Messages ``messages`` with toolerr's delivery applied (C3 by default):
    ``client.messages.create(messages=toolerr.rewrite_anthropic(messages), ...)``."""
    return rewrite_wire("anthropic", messages, client=client, form=form, **options).request


def rewrite_responses(
    input: Any, form: Form | str | None = None, *, client: str | None = None, **options: Any
) -> Any:
    """OpenAI Responses ``input`` items with toolerr's delivery applied (C3 by default):
    ``client.responses.create(input=toolerr.rewrite_responses(items), ...)``. A string
    input passes as it is."""
    return rewrite_wire("responses", input, client=client, form=form, **options).request


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
