"""The adapter kit, run following: :class:`RunTrail` finds a run's latest conversation
across the model calls of a placement that sees only the conversation (a model-input
filter). Exported from :mod:`toolerr.adapters`."""

from __future__ import annotations

import contextvars
import threading
import weakref
from collections.abc import Sequence
from typing import Any, cast

from ._kit import RunSnapshot
from ._layer import ToolErrorLayer
from ._reuse import ConversionCache
from ._runs import ConversationRun
from ._types import Message

__all__ = ["RunTrail"]


class _TrailRun(ConversationRun):
    """A run followed by :class:`RunTrail`: its own conversion cache and its latest key."""

    __slots__ = ("conversions", "key")

    def __init__(self, results: tuple[str | None, ...] = ()) -> None:
        super().__init__(results)
        self.conversions = ConversionCache()
        self.key: weakref.ref[Any] | None = None


def _continues(messages: Sequence[Message], earlier: RunSnapshot) -> bool:
    """Whether ``messages`` starts with the ``earlier`` snapshot's (the same or equal ones)."""
    before = earlier.messages
    pairs = zip(before, messages, strict=False)
    return len(before) <= len(messages) and all(a is b or a == b for a, b in pairs)


class RunTrail:
    """Each conversation run followed across the model calls of a placement that sees only
    the conversation (a model-input filter): a run's latest :class:`RunSnapshot` is kept in
    the caller's context (a ``ContextVar``: concurrent tasks and threads each have theirs)
    and, where the framework gives all turns of a run a key (a trace) but may run them in
    other tasks, by that key (held weakly; the latest snapshots of ``size`` runs per key).
    Each run has a conversion cache of its own (one for all runs would keep the tool
    results of every finished run alive). Reentrant: the cyclic GC may free a key while
    the lock is held.

    Args:
        size: the runs whose latest snapshots are kept per key.
    """

    def __init__(self, size: int = 8) -> None:
        self._size = size
        self._current: contextvars.ContextVar[RunSnapshot | None] = contextvars.ContextVar(
            f"toolerr_trail_{id(self):x}", default=None
        )
        self._items: weakref.WeakKeyDictionary[Any, list[RunSnapshot]] = weakref.WeakKeyDictionary()
        self._lock = threading.RLock()

    def current(self) -> RunSnapshot | None:
        """The snapshot of this context's latest model call (``None``: none yet)."""
        return self._current.get()

    def snapshots(self, key: object) -> list[RunSnapshot] | None:
        """The key's snapshots (latest last); ``None`` when the key cannot be followed."""
        with self._lock:
            try:
                return list(self._items.get(key, ()))
            except TypeError:  # no weak reference to it
                return None

    def keep(self, key: object, snapshot: RunSnapshot) -> None:
        """Keep ``snapshot`` as its run's latest under ``key``."""
        with self._lock:
            kept = [s for s in self._items.get(key, ()) if s.run is not snapshot.run]
            self._items[key] = [*kept, snapshot][-self._size :]

    def _latest(
        self, key: object | None
    ) -> tuple[RunSnapshot | None, RunSnapshot | None, list[RunSnapshot] | None]:
        """(this context's snapshot where it was taken under ``key``, the latest, the key's)."""
        kept = self.snapshots(key) if key is not None else None
        own = self._current.get()
        ref = cast(_TrailRun, own.run).key if own is not None else None
        if kept is not None and (ref is None or ref() is not key):
            return None, (kept[-1] if kept else None), kept
        return own, own, kept

    def conversions(self, key: object | None = None) -> ConversionCache | None:
        """The conversion cache of the run a model call under ``key`` most likely continues
        (``None``: no run yet)."""
        own, latest, kept = self._latest(key)
        if own is None and kept is not None and len({id(s.run) for s in kept}) > 1:
            # several runs under the key, and which one this call continues is known only
            # after the conversion: a cache of another run would give its conversions of
            # items equal to this run's (same call ids and texts, other failures)
            return None
        return cast(_TrailRun, latest.run).conversions if latest is not None else None

    def advance(
        self, layer: ToolErrorLayer, messages: Sequence[Message], key: object | None = None
    ) -> RunSnapshot:
        """The snapshot of a model call, kept as this context's (for the tools of the turn)
        and as its run's latest under ``key``.

        Its run is this context's where it was taken under ``key`` and the conversation
        continues it; else the run of the key's snapshots that the conversation continues,
        where that is one run's (runs of one key that begin alike cannot be told apart:
        each then starts a scope of its own); else :meth:`ConversationRun.follow`'s.

        Args:
            layer: the adapter's layer.
            messages: the model call's neutral conversation.
            key: the framework's object for all turns of the run (``None``: none).

        Returns:
            The snapshot.
        """
        own, previous, kept = self._latest(key)
        if kept is not None and not (own and _continues(messages, own)):
            continued = [s for s in kept if _continues(messages, s)]
            unique = len({id(s.run) for s in continued}) == 1
            previous = max(reversed(continued), key=lambda s: len(s.messages)) if unique else None
        run = cast(_TrailRun, _TrailRun.follow(cast(_TrailRun, previous.run) if previous else None, messages))
        run.key = weakref.ref(key) if kept is not None else None
        snapshot = RunSnapshot(layer, messages, run)
        self._current.set(snapshot)
        if kept is not None:
            self.keep(key, snapshot)
        return snapshot
