"""The Agents SDK's model input (Responses input items, plain dicts) <-> the neutral
conversation. Consecutive model-side items (assistant messages, calls, reasoning) are one
assistant message; each ``function_call_output`` a ``tool`` message; any other item an
empty ``system`` placeholder that keeps its place. On the way back a message the core left
untouched gives back its very items, so an unchanged request is the one the SDK built."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolerr import Message, ToolCall
from toolerr.adapters import ConversionCache, input_text_parts

CLIENT = "openai-agents"
_NO_CACHE = ConversionCache(0)

_MODEL_SIDE_TYPES = frozenset(
    {"function_call", "reasoning", "mcp_list_tools", "mcp_approval_request", "program"}
)


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
        """The input items for a rewritten neutral conversation: a message the core kept
        (the same object) gives back its original items, a changed one changed copies
        (an assistant message without the calls it dropped), a new one (the runtime note)
        a new user item."""
        out: list[Any] = []
        items, groups = self.items, self.groups
        for message in messages:
            origin = message.origin  # a converted message's position
            if not (isinstance(origin, int) and 0 <= origin < len(groups)):
                if message.role != "user":
                    raise ValueError(
                        f"toolerr returned a new {message.role} message; only user notes are expected"
                    )
                out.append({"role": "user", "content": input_text_parts(message.content)})
            elif self.messages[origin] is message:
                out += [items[i] for i in groups[origin]]
            elif message.role == "assistant":
                kept = {self.call_items.get(id(call)) for call in message.tool_calls}
                calls = [i for i in groups[origin] if as_mapping(items[i]).get("type") == "function_call"]
                out += [items[i] for i in groups[origin] if i not in calls or i in kept]
            elif message.role in ("tool", "user"):
                item = dict(as_mapping(items[groups[origin][0]]))
                item["output" if message.role == "tool" else "content"] = input_text_parts(message.content)
                out.append(item)
            else:
                raise ValueError(
                    f"toolerr changed a {message.role} message; only tool and user messages are expected"
                )
        return out


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
            item, group = mappings[index], (index,)
            call_id = _str(item.get("call_id"))
            name = names.get(call_id) if call_id is not None else None
            message = get(_item_key(item, name, position), _single, item, name, position)
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
    calls = tuple(_tool_call(i) for i in items if i.get("type") == "function_call")
    texts = (
        _assistant_text(i) for i in items if i.get("type") != "function_call" and i.get("role") == "assistant"
    )
    return Message(
        role="assistant", content="\n".join(t for t in texts if t), tool_calls=calls, origin=position
    )


def _tool_call(item: Mapping[str, Any]) -> ToolCall:
    name = _str(item.get("name"))
    return ToolCall.from_raw(
        _str(item.get("call_id")), "unknown_tool" if name is None else name, _str(item.get("arguments")) or ""
    )


def _single(item: Mapping[str, Any], name: str | None, position: int) -> Message:
    """A result as a ``tool`` message, a user, system or developer message as itself; any
    other item (hosted tool outputs, references, approvals) as a placeholder."""
    kind, role = item.get("type"), item.get("role")
    if kind == "function_call_output":
        call_id = _str(item.get("call_id"))
        output = item.get("output")
        return Message(
            role="tool", content=output, tool_call_id=call_id, name=name, client=CLIENT, origin=position
        )
    if kind in (None, "message") and role in ("user", "system", "developer"):
        return Message(
            role="user" if role == "user" else "system", content=item.get("content"), origin=position
        )
    return Message(role="system", content="", origin=position)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
