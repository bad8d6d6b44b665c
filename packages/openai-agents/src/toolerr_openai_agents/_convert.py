"""Responses API input items <-> the neutral toolerr conversation.

The Agents SDK sends the model a list of Responses input items (plain dicts):
``{"role": "user", "content": ...}`` messages, assistant output messages,
``{"type": "function_call", "call_id", "name", "arguments"}`` calls,
``{"type": "function_call_output", "call_id", "output"}`` results, reasoning items and
the items of hosted tools. Consecutive model-side items (assistant messages, calls,
reasoning) become one neutral assistant message; each ``function_call_output`` becomes a
``tool`` message; every other item becomes an empty ``system`` placeholder that keeps
its place. On the way back, every neutral message the core left untouched (the same
object) is replaced by its original items, the very same objects, so an unchanged
request is byte for byte the one the SDK built.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolerr import Message, ToolCall
from toolerr.adapters import ConversionCache

CLIENT = "openai-agents"
_NO_CACHE = ConversionCache(0)

_MODEL_SIDE_TYPES = frozenset(
    {"function_call", "reasoning", "mcp_list_tools", "mcp_approval_request", "program"}
)
_SYSTEM_ROLES = frozenset({"system", "developer"})


def as_mapping(item: Any) -> Mapping[str, Any]:
    """An input item as a read-only mapping (the SDK uses dicts; pydantic models are dumped)."""
    if type(item) is dict or isinstance(item, Mapping):
        return item
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        dumped = dump(exclude_unset=True)
        if isinstance(dumped, Mapping):
            return dumped
    return {}


def _is_model_side(item: Mapping[str, Any]) -> bool:
    kind = item.get("type")
    if kind in _MODEL_SIDE_TYPES:
        return True
    if kind in (None, "message"):
        return item.get("role") == "assistant"
    return isinstance(kind, str) and kind.endswith("_call")


def _assistant_text(item: Mapping[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [part.get("text") for part in content if isinstance(part, Mapping)]
        return "".join(part for part in parts if isinstance(part, str))
    return ""


@dataclass
class Conversation:
    """The neutral view of one model input, with the way back to the items."""

    items: Sequence[Any]
    messages: list[Message] = field(default_factory=list)
    groups: list[tuple[int, ...]] = field(default_factory=list)
    """For each neutral message (by position), the indices of the items it stands for."""
    call_items: dict[int, int] = field(default_factory=dict)
    """``id(ToolCall)`` -> index of the ``function_call`` item it came from."""

    def to_items(self, messages: Sequence[Message]) -> list[Any]:
        """The input items for a rewritten neutral conversation.

        Messages the core kept (same objects) give back their original items; changed
        ones give changed copies; new ones (the runtime note) give new user items.
        """
        out: list[Any] = []
        converted, groups, items = self.messages, self.groups, self.items
        for message in messages:
            origin = message.origin  # a converted message's position
            if isinstance(origin, int) and 0 <= origin < len(converted) and converted[origin] is message:
                group = groups[origin]
                if len(group) == 1:
                    out.append(items[group[0]])
                else:
                    out.extend(items[i] for i in group)
                continue
            if isinstance(origin, int) and 0 <= origin < len(self.groups):
                out.extend(self._changed(origin, message))
            elif message.role == "user":
                out.append({"role": "user", "content": to_input_content(message.content)})
            else:
                raise ValueError(
                    f"toolerr returned a new {message.role} message; only user notes are expected"
                )
        return out

    def _changed(self, position: int, message: Message) -> list[Any]:
        group = self.groups[position]
        if message.role == "assistant":
            kept = {self.call_items[id(call)] for call in message.tool_calls if id(call) in self.call_items}
            return [
                self.items[i]
                for i in group
                if as_mapping(self.items[i]).get("type") != "function_call" or i in kept
            ]
        (index,) = group
        original = dict(as_mapping(self.items[index]))
        if message.role == "tool":
            original["output"] = to_input_content(message.content)
        elif message.role == "user":
            original["content"] = to_input_content(message.content)
        else:
            raise ValueError(
                f"toolerr changed a {message.role} message; only tool and user messages are expected"
            )
        return [original]


def to_input_content(content: Any) -> Any:
    """Neutral content -> Responses input content: text blocks the core appended
    (``{"type": "text"}``) become ``input_text`` parts; everything else is kept."""
    if isinstance(content, list):
        return [
            {"type": "input_text", "text": block["text"]}
            if isinstance(block, Mapping)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
            else block
            for block in content
        ]
    return content


def to_conversation(items: Sequence[Any], cache: ConversionCache | None = None) -> Conversation:
    """The neutral conversation of a model input (see the module docstring); with a
    ``cache`` kept across model calls, the same message objects for the same items."""
    conversation = Conversation(items)
    messages, groups, call_items = conversation.messages, conversation.groups, conversation.call_items
    names: dict[str, str] = {}
    mappings = [as_mapping(item) for item in items]
    model_side = [_is_model_side(item) for item in mappings]
    get = (cache if cache is not None else _NO_CACHE).get
    count = len(mappings)
    index = 0
    while index < count:
        position, end = len(messages), index + 1
        if model_side[index]:
            while end < count and model_side[end]:
                end += 1
            group = tuple(range(index, end))
            message = get(_group_key(mappings, group, position), _assistant, mappings, group, position)
            if message.tool_calls:
                calls = [i for i in group if mappings[i].get("type") == "function_call"]
                for call, call_index in zip(message.tool_calls, calls, strict=True):
                    call_items[id(call)] = call_index
                    if call.id is not None:
                        names[call.id] = call.name
        else:
            item = mappings[index]
            group = (index,)
            call_id = item.get("call_id")
            name = names.get(call_id) if isinstance(call_id, str) else None
            message = get(_item_key(item, name, position), _single, item, names, position)
        messages.append(message)
        groups.append(group)
        index = end
    return conversation


# Cache keys: every field the conversion reads. The common items (calls and results with
# text fields) get a flat key of those fields, tagged with a string (a generic key starts
# with the position); any other item is keyed by its whole content.


def _group_key(
    mappings: Sequence[Mapping[str, Any]], group: tuple[int, ...], position: int
) -> tuple[Any, ...]:
    fields: list[Any] = ["calls", position]
    for i in group:
        item = mappings[i]
        call_id, name, arguments = item.get("call_id"), item.get("name"), item.get("arguments")
        if (
            item.get("type") != "function_call"
            or type(name) is not str
            or type(arguments) is not str
            or not (call_id is None or type(call_id) is str)
        ):
            return (position, *(mappings[i] for i in group))
        fields += (call_id, name, arguments)
    return tuple(fields)


def _item_key(item: Mapping[str, Any], name: str | None, position: int) -> tuple[Any, ...]:
    call_id, output = item.get("call_id"), item.get("output")
    if (
        item.get("type") == "function_call_output"
        and type(output) is str
        and (call_id is None or type(call_id) is str)
    ):
        return ("output", position, name, call_id, output)
    return (position, name, item)


def _assistant(mappings: Sequence[Mapping[str, Any]], group: tuple[int, ...], position: int) -> Message:
    """Consecutive model-side items as one assistant message."""
    items = [mappings[i] for i in group]
    calls = tuple(_tool_call(item) for item in items if item.get("type") == "function_call")
    texts = [
        _assistant_text(i) for i in items if i.get("type") != "function_call" and i.get("role") == "assistant"
    ]
    content = "\n".join(t for t in texts if t)
    return Message(role="assistant", content=content, tool_calls=calls, origin=position)


def _tool_call(item: Mapping[str, Any]) -> ToolCall:
    call_id = item.get("call_id")
    raw = item.get("arguments")
    name = item.get("name")
    return ToolCall.from_raw(
        call_id if isinstance(call_id, str) else None,
        name if isinstance(name, str) else "unknown_tool",
        raw if isinstance(raw, str) else "",
    )


def _single(item: Mapping[str, Any], names: Mapping[str, str], position: int) -> Message:
    kind = item.get("type")
    if kind == "function_call_output":
        call_id = item.get("call_id")
        call_id = call_id if isinstance(call_id, str) else None
        return Message(
            role="tool",
            content=item.get("output"),
            tool_call_id=call_id,
            name=names.get(call_id) if call_id is not None else None,
            client=CLIENT,
            origin=position,
        )
    if kind in (None, "message"):
        role = item.get("role")
        if role == "user":
            return Message(role="user", content=item.get("content"), origin=position)
        if role in _SYSTEM_ROLES:
            return Message(role="system", content=item.get("content"), origin=position)
    # Any other item (hosted tool outputs, references, approvals): a placeholder that keeps its place.
    return Message(role="system", content="", origin=position)
