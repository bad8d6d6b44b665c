"""OpenAI Responses ``input`` items to the neutral conversation and back
(``function_call`` / ``function_call_output`` and the built-in ``custom_tool_call``,
``local_shell_call``, ``shell_call``, ``apply_patch_call`` items with their outputs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._detect import normalise_client
from ._types import Message, Role, ToolCall, content_text, parse_arguments
from ._wire_base import CACHE, Converted, copy_json, json_key, own_call, own_message, str_or_none

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
    return responses_in(items, normalise_client(client), 0).messages


def _responses_call(item: Mapping[str, Any], kind: str) -> ToolCall:
    default_name = _RESPONSES_CALLS[kind][1]
    call_id = str_or_none(item.get("call_id"))
    if kind == "function_call":
        raw = item.get("arguments")
        return ToolCall(
            id=call_id,
            name=str_or_none(item.get("name")) or "unknown_tool",
            arguments=parse_arguments(raw),
            raw_arguments=raw if isinstance(raw, str) else None,
        )
    if kind == "custom_tool_call":
        raw = item.get("input")
        return ToolCall(
            id=call_id,
            name=str_or_none(item.get("name")) or "unknown_tool",
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


def responses_in(items: Sequence[Any], client: str, offset: int) -> Converted:
    out = Converted()
    group: list[int] = []
    calls: list[ToolCall] = []
    texts: list[str] = []
    local_ids: dict[str, str] = {}

    keys: list[Any] = []  # the group's item keys (None: not cacheable)

    def close() -> None:
        if group:
            group_key = ("responses-group", client, tuple(keys)) if None not in keys else None
            message = CACHE.get(group_key) if group_key is not None else None
            if message is None:
                message = Message(
                    role="assistant",
                    content="\n".join(texts),
                    tool_calls=tuple(calls),
                    origin=(group[0], tuple(group)),
                )
                if group_key is not None:
                    CACHE.put(group_key, message)
            out.messages.append(message)
            group.clear()
            calls.clear()
            texts.clear()
            keys.clear()

    for index, item in enumerate(items, offset):
        item_key = json_key("responses", client, index, item)
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
            message = CACHE.get(item_key) if item_key is not None else None
            if message is None:
                neutral_role: Role = "user" if role == "user" else "system"
                message = Message(role=neutral_role, content=item.get("content"), origin=(index, None))
                if item_key is not None:
                    message = own_message(message)
                    CACHE.put(item_key, message)
            out.messages.append(message)
        elif kind in _RESPONSES_CALLS:
            # the same call object for the same item: the layer's replay checkpoints apply
            call = CACHE.get(item_key) if item_key is not None else None
            if call is None:
                call = _responses_call(item, kind)
                if item_key is not None:
                    call = own_call(call)
                    CACHE.put(item_key, call)
            if kind == "local_shell_call" and isinstance(item.get("id"), str) and call.id is not None:
                local_ids[item["id"]] = call.id
            out.calls[id(call)] = index
            group.append(index)
            keys.append(item_key)
            calls.append(call)
        elif kind in _RESPONSES_OUTPUTS:
            close()
            output_key = (
                (item_key, local_ids.get(str_or_none(item.get("id")) or "")) if item_key is not None else None
            )
            cached = CACHE.get(output_key) if output_key is not None else None
            if cached is not None:
                out.messages.append(cached)
                continue
            flag: bool | None = None
            if kind == "local_shell_call_output":
                item_id = str_or_none(item.get("id"))
                call_id = (
                    local_ids.get(item_id, item_id)
                    if item_id is not None
                    else str_or_none(item.get("call_id"))
                )
                content: Any = item.get("output", "")
            else:
                call_id = str_or_none(item.get("call_id"))
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
                message = own_message(message)
                CACHE.put(output_key, message)
            out.messages.append(message)
        elif isinstance(kind, str) and kind.endswith("_output"):
            close()  # outputs of tools toolerr does not read (computer use ...): inert
            out.messages.append(Message(role="system", content="", origin=(index, None)))
        else:  # reasoning, web search, MCP calls with inline outputs, item references ...
            group.append(index)
            keys.append(item_key)
    close()
    return out


def input_text_parts(content: Any, before: Any = None) -> Any:
    """Neutral content -> Responses input content: its ``{"type": "text"}`` blocks (those
    toolerr appended: not in ``before``, the content converted) become ``input_text``
    parts; everything else (a string, other blocks) is kept."""
    if not isinstance(content, list):
        return content
    kept = {id(b) for b in before} if isinstance(before, list) else set()
    return [
        {"type": "input_text", "text": b["text"]}
        if id(b) not in kept
        and isinstance(b, Mapping)
        and b.get("type") == "text"
        and isinstance(b.get("text"), str)
        else b
        for b in content
    ]


def responses_out(items: Sequence[Any], conv: Converted, new: Sequence[Message]) -> list[Any]:
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
                else {
                    "type": "message",
                    "role": "user",
                    "content": copy_json(input_text_parts(message.content, None)),
                }
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
        out.append({**item, field: copy_json(input_text_parts(message.content, before))})
    return out


def responses_tail(items: Sequence[Any]) -> int:
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
