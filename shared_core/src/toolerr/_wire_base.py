"""What the wire formats share: the converted request, the one conversion cache, copies
that hold none of the request's objects, the tail of a request and the readers of plain
values."""

from __future__ import annotations

import copy
import dataclasses
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from ._lru import budget_bytes
from ._types import Message, ToolCall

# Where a neutral message came from: (wire index, part) -- part is None for a whole wire
# message, an int for one block of an Anthropic user turn, "rest" for its other blocks,
# or a tuple of wire indices for a Responses assistant group.
_Origin = tuple[int, Any]


class WireCache:
    """A content-keyed cache of converted pieces of a request (an optimisation only: a hit
    is what the conversion would build). Requests of one conversation repeat its earlier
    messages; handing the layer the same objects lets its replay continue from a
    checkpoint instead of replaying the whole conversation. Keyed by every field the
    conversion reads (each format's keys differ in shape from the others'); bounded by an
    estimate of the bytes it holds (``budget``; :func:`weigh`) and by ``size`` entries: a
    hit makes an entry the most recent, and the least recently used go first (a gateway's
    conversations each keep their whole history, however many it serves, while they fit)."""

    __slots__ = ("_items", "_lock", "_size", "_weights", "budget", "weight")

    def __init__(self, size: int, budget: int = 1 << 62) -> None:
        self._items: OrderedDict[Any, Any] = OrderedDict()
        self._weights: dict[Any, int] = {}
        self._size = size
        self.budget = budget
        """The estimate of bytes kept at most."""
        self.weight = 0
        """The estimate of bytes kept now."""
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Any) -> Any:
        """The cached value for a key (now the most recent), or ``None``."""
        value = self._items.get(key)
        if value is not None:
            try:
                self._items.move_to_end(key)
            except KeyError:  # dropped meanwhile by another thread
                pass
        return value

    def put(self, key: Any, value: Any) -> None:
        weight = weigh(value)
        with self._lock:
            items, weights = self._items, self._weights
            old = weights.pop(key, None)
            if old is not None:
                self.weight -= old
            items[key] = value
            items.move_to_end(key)
            weights[key] = weight
            self.weight += weight
            while len(items) > 1 and (self.weight > self.budget or len(items) > self._size):
                stale, _ = items.popitem(last=False)
                self.weight -= weights.pop(stale)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._weights.clear()
            self.weight = 0


def weigh(value: Any) -> int:
    """An estimate of the bytes a cached value and its key hold (the key holds the same
    strings as the value: they are counted once)."""
    if isinstance(value, Message):
        content = value.content
        weight = 480 + (len(content) if isinstance(content, str) else 2048)
        for call in value.tool_calls or ():
            weight += weigh(call)
        return weight
    if isinstance(value, ToolCall):
        return 320 + len(value.raw_arguments or "")
    if isinstance(value, tuple):
        return 64 + sum(map(weigh, value))
    return 480


CACHE = WireCache(1 << 24, budget_bytes("TOOLERR_WIRE_CACHE_MB", 1024))
"""The one conversion cache of the three wire formats (``TOOLERR_WIRE_CACHE_MB``: the
estimate of megabytes it keeps at most, 1024 by default)."""


def text_blocks(blocks: Any) -> str:
    if isinstance(blocks, str):
        return blocks
    if not isinstance(blocks, list):
        return ""
    return "\n".join(b["text"] for b in blocks if isinstance(b, Mapping) and isinstance(b.get("text"), str))


def bool_or_none(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def copy_json(value: Any, depth: int = 0) -> Any:
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
            return {key: copy_json(item, depth + 1) for key, item in value.items()}
        if kind is list:
            return [copy_json(item, depth + 1) for item in value]
        if kind is tuple:
            return tuple(copy_json(item, depth + 1) for item in value)
    return copy.deepcopy(value)


def own_message(message: Message) -> Message:
    """A message to keep in a conversion cache: holding none of the request's objects,
    so that what a caller later does to its own objects (compacting its history in
    place) never reaches another request that hits the cache. The message itself where
    it holds none (string content, arguments parsed from their text)."""
    content = message.content
    owned = copy_json(content)
    calls = message.tool_calls
    owned_calls = tuple(map(own_call, calls)) if calls else calls
    if owned is content and all(a is b for a, b in zip(owned_calls, calls, strict=True)):
        return message
    return dataclasses.replace(message, content=owned, tool_calls=owned_calls)


def own_call(call: ToolCall) -> ToolCall:
    # arguments parsed from the model's text (``raw_arguments``) are already a fresh object
    if call.raw_arguments is not None:
        return call
    owned = copy_json(call.arguments)
    return call if owned is call.arguments else dataclasses.replace(call, arguments=owned)


class Converted:
    """A request converted to neutral messages, with what it takes to convert back."""

    __slots__ = ("calls", "messages")

    def __init__(self) -> None:
        self.messages: list[Message] = []
        # identity of each neutral ToolCall -> the wire object (a tool_call dict, a
        # tool_use block or a Responses item index) it came from
        self.calls: dict[int, Any] = {}


def json_key(kind: str, client: str, index: int, item: Any) -> tuple[Any, ...] | None:
    """A cache key for a wire item of any shape: its canonical JSON text."""
    if type(item) is not dict:
        return None
    try:
        return (kind, client, index, json.dumps(item, sort_keys=True, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError):
        return None


def assistant_tail(items: Sequence[Any]) -> int:
    """Where the tail of a chat or Anthropic request starts: its last assistant message
    (``len(items)`` when there is none)."""
    for index in range(len(items) - 1, -1, -1):
        item = items[index]
        if isinstance(item, Mapping) and item.get("role") == "assistant":
            return index
    return len(items)


def str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
