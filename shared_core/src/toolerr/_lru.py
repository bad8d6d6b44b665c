"""One bounded cache for the core and the adapters: :class:`LRUCache`; and the memory
budgets of the caches bounded by bytes, read from the environment (:func:`budget_bytes`)."""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar, overload

__all__ = ["LRUCache", "budget_bytes"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
D = TypeVar("D")


class LRUCache(Generic[K, V]):
    """A mapping of at most ``size`` entries that drops the least recently *stored* ones.

    :meth:`put` (a new or a replaced value) and :meth:`touch` make an entry the most
    recent; :meth:`get` only looks (a lookup does not keep an entry alive). When a
    :meth:`put` takes the cache over ``size``, the oldest entries go, and :meth:`put`
    returns them (a cache that indexes its keys elsewhere forgets them there). ``size`` 0
    keeps nothing.

    Each method is atomic (a lock of its own): a plain get or put needs no lock of the
    caller's. A read-then-write (get, else make and put) that must happen once needs the
    caller's lock around it. Iteration (``iter``, :meth:`keys`, :meth:`values`,
    :meth:`items`) is a snapshot, oldest first.
    """

    __slots__ = ("_items", "_lock", "size")

    def __init__(self, size: int) -> None:
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"size must be an int, not {type(size).__name__}")
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LRUCache(size={self.size}, entries={len(self._items)})"

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __iter__(self) -> Iterator[K]:
        """The keys, oldest first (a snapshot: the cache may change meanwhile)."""
        return iter(self.keys())

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: D) -> V | D: ...
    def get(self, key: K, default: object = None) -> object:
        """The value kept for ``key``, else ``default``; the entry's age does not change."""
        return self._items.get(key, default)

    def put(self, key: K, value: V) -> list[tuple[K, V]]:
        """Keep ``value`` for ``key`` as the most recent entry; returns the entries dropped
        to stay within ``size``, oldest first (usually none)."""
        with self._lock:
            items = self._items
            items[key] = value
            items.move_to_end(key)
            dropped: list[tuple[K, V]] = []
            while len(items) > self.size:
                dropped.append(items.popitem(last=False))
            return dropped

    def touch(self, key: K) -> V | None:
        """Make ``key`` the most recent entry and return its value; ``None`` (and nothing
        changes) when it is not kept."""
        with self._lock:
            value = self._items.get(key)
            if value is not None or key in self._items:
                self._items.move_to_end(key)
            return value

    @overload
    def pop(self, key: K) -> V | None: ...
    @overload
    def pop(self, key: K, default: D) -> V | D: ...
    def pop(self, key: K, default: object = None) -> object:
        """Remove ``key``; its value, else ``default``."""
        with self._lock:
            return self._items.pop(key, default)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def keys(self) -> list[K]:
        with self._lock:
            return list(self._items)

    def values(self) -> list[V]:
        with self._lock:
            return list(self._items.values())

    def items(self) -> list[tuple[K, V]]:
        with self._lock:
            return list(self._items.items())


def budget_bytes(variable: str, default_mb: int) -> int:
    """The bytes of a memory budget given in MiB by environment ``variable`` (a whole
    number, 0 or more), ``default_mb`` when it is unset; a bad value is logged and the
    default used."""
    value = os.environ.get(variable, str(default_mb))
    try:
        return max(int(value), 0) * 2**20
    except ValueError:
        logging.getLogger("toolerr").warning(
            "toolerr: %s=%r is not a whole number of MiB; using %d", variable, value, default_mb
        )
        return default_mb * 2**20
