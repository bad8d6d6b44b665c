"""Reuse of converted messages across the model calls of a conversation."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ._types import Message

_M = TypeVar("_M", bound=Message)
_T = TypeVar("_T")


class ConversionCache:
    """Neutral messages by the content they were converted from, for an adapter that gets
    each model call's input anew (plain dicts, a gateway request) and converts it.

    A conversation that only grew then converts to the same message objects for the same
    items: conversion is a key lookup per item, and :meth:`ToolErrorLayer.replay`
    continues from the previous call's checkpoint instead of starting over. Key the
    content with everything the message depends on (its position in the conversation, the
    names it borrows from other items). Bounded: emptied when full. Thread-safe for
    concurrent lookups (a race converts an item twice, with equal results).
    """

    def __init__(self, size: int = 8192) -> None:
        self._size = size
        self._items: dict[Any, Message] = {}
        self._objects: dict[int, tuple[weakref.ref[Any], Any]] = {}

    def get(self, key: tuple[Any, ...], make: Callable[..., _M], *args: Any) -> _M:
        """The message converted for ``key`` (mappings and lists in it count by their
        content), else ``make(*args)``, kept for the next call. Content that cannot be
        hashed (an arbitrary object) is never kept; nothing is with ``size=0``."""
        if not self._size:
            return make(*args)
        try:
            parts = _freeze(key)
            found = self._items.get(parts)
        except (TypeError, RecursionError):
            return make(*args)
        if found is not None:
            return found  # type: ignore[return-value]  # kept by make, of its type
        if len(self._items) >= self._size:
            self._items.clear()
        message = self._items[parts] = make(*args)
        return message

    def get_object(
        self, obj: Any, make: Callable[[Any], _T], valid: Callable[[Any, _T], bool] | None = None
    ) -> _T:
        """What ``make(obj)`` made for this very object (by identity, while it lives and
        ``valid(obj, made)`` holds), else ``make(obj)``, kept for the next call: for a
        framework whose conversation is a list of live message objects. Objects are held
        weakly (one that cannot be is converted every time); bounded like :meth:`get`."""
        key = id(obj)
        entry = self._objects.get(key)
        if entry is not None and entry[0]() is obj and (valid is None or valid(obj, entry[1])):
            return entry[1]  # type: ignore[no-any-return]  # made by make, of its type
        made = make(obj)
        if not self._size:
            return made
        objects = self._objects

        def forget(ref: weakref.ref[Any]) -> None:
            current = objects.get(key)
            if current is not None and current[0] is ref:
                del objects[key]

        try:
            ref = weakref.ref(obj, forget)
        except TypeError:
            return made
        if len(objects) >= self._size:
            objects.clear()
        objects[key] = (ref, made)
        return made

    def __len__(self) -> int:
        return len(self._items) + len(self._objects)


_SCALARS = frozenset({int, float, bool, type(None)})


def _freeze(value: Any) -> Any:
    """A hashable value equal for equal JSON-like content (type-tagged containers)."""
    kind = type(value)
    if kind is str:
        return value
    if kind in _SCALARS:
        return (kind, value)
    # strings (most values) inline: no call per value
    if kind is dict or (kind is not list and kind is not tuple and isinstance(value, Mapping)):
        return (dict, tuple([(k, v if type(v) is str else _freeze(v)) for k, v in value.items()]))
    if kind is list or kind is tuple:
        return (list, tuple([v if type(v) is str else _freeze(v) for v in value]))
    hash(value)
    return (kind, value)  # 1, 1.0 and True stay apart
