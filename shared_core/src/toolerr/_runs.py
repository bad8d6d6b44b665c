"""Run scopes: what a layer keeps for one run (remembered verdicts, the ledger of
one-result deliveries, replay checkpoints), found by the framework's per-run object or key.

Nothing remembered in one scope is seen from another, whatever the call ids.
"""

from __future__ import annotations

import threading
import weakref
from collections import deque
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

from ._ledger import FailureLedger
from ._lru import LRUCache
from ._types import NOT_FAILED, Message, Verdict, content_text

if TYPE_CHECKING:
    from ._replay import Checkpoint

_CACHE_SIZE = 4096
# Run scopes kept per layer (runs given by key; runs given by object go with their object).
_RUNS = 1024
# Successes of a run kept back while its ledger holds no failure (they only matter for cycles).
_PENDING = 64
# Environment fingerprints a run keeps (one per tool step: ``_progress``).
_PRINTS = 4096
# Verdict changes a run logs for its checkpoints (older checkpoints of the run are dropped).
_CHANGES = 4096

Fingerprint = tuple[int, int]


class ConversationRun:
    """A run scope for a placement that sees each model call's conversation but no per-run
    object (a model-input filter, a gateway hook). Keep the latest in the run's own context
    (a ``ContextVar``: concurrent tasks and threads each have theirs) and pass it to
    :meth:`follow` at each model call: the same scope is kept while the conversation
    continues (its tool results start with those seen before), and a new one starts with
    a conversation that holds no tool result or others (another run in the same context).
    """

    __slots__ = ("__weakref__", "_results")

    def __init__(self, results: tuple[str | None, ...] = ()) -> None:
        self._results = results

    @classmethod
    def follow(cls, previous: ConversationRun | None, messages: Sequence[Message]) -> ConversationRun:
        """The run scope of ``messages``: ``previous`` when they continue its run, else a new one."""
        results = tuple(m.tool_call_id for m in messages if m.role == "tool")
        if previous is not None and results and results[: len(previous._results)] == previous._results:
            previous._results = results
            return previous
        return cls(results)


class RunState:
    """What a layer keeps for one run: verdicts learned from exception objects (by call id
    and the content they were learned for) and the failed-call ledger of
    :meth:`ToolErrorLayer.deliver_result`."""

    __slots__ = (
        "_checkpoint_slots",
        "changes",
        "changes_base",
        "checkpoint_bytes",
        "checkpoint_index",
        "checkpoints",
        "latest",
        "ledger",
        "lock",
        "pending",
        "prints",
        "verdicts",
    )

    def __init__(self) -> None:
        self.verdicts: LRUCache[tuple[str, tuple[int, int] | None], Verdict] = LRUCache(_CACHE_SIZE)
        self.latest: dict[str, tuple[int, int] | None] = {}
        self.ledger: FailureLedger | None = None
        self.pending: deque[tuple[str, Any, str | None, str | None]] = deque(maxlen=_PENDING)
        self.lock = threading.RLock()
        # The run's replay checkpoints, and the verdict keys remembered or evicted since the
        # oldest of them (change ``changes_base + i + 1`` is ``changes[i]``).
        # (by identity, least recently used first; indexed by the identity of the last
        # message of their prefix, with the estimate of their bytes)
        self.checkpoints: dict[int, Checkpoint] = {}
        self.checkpoint_index: dict[int, list[Checkpoint]] = {}
        self.checkpoint_bytes = 0
        self._checkpoint_slots: dict[int, tuple[int, int]] = {}
        self.changes: list[tuple[str, Fingerprint | None]] = []
        self.changes_base = 0
        self.prints: LRUCache[Hashable, Hashable | None] | None = None

    def progress_prints(self) -> LRUCache[Hashable, Hashable | None]:
        """The environment fingerprint taken after each tool step of the run, by step
        (progress probes; made at the first use)."""
        with self.lock:
            if self.prints is None:
                self.prints = LRUCache(_PRINTS)
            return self.prints

    def add_checkpoint(self, checkpoint: Checkpoint, weight: int) -> None:
        """Keep ``checkpoint`` (the most recently used), of about ``weight`` bytes (under the lock)."""
        key = checkpoint.key
        self.checkpoints[id(checkpoint)] = checkpoint
        self.checkpoint_index.setdefault(key, []).append(checkpoint)
        self._checkpoint_slots[id(checkpoint)] = (key, weight)
        self.checkpoint_bytes += weight

    def drop_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Forget ``checkpoint`` if kept (under the lock)."""
        if self.checkpoints.pop(id(checkpoint), None) is None:
            return
        key, weight = self._checkpoint_slots.pop(id(checkpoint))
        self.checkpoint_bytes -= weight
        bucket = self.checkpoint_index[key]
        bucket.remove(checkpoint)
        if not bucket:
            del self.checkpoint_index[key]

    def touch_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Make ``checkpoint`` the most recently used, if still kept."""
        with self.lock:
            if self.checkpoints.pop(id(checkpoint), None) is not None:
                self.checkpoints[id(checkpoint)] = checkpoint

    @property
    def serial(self) -> int:
        """Verdict changes so far (a checkpoint keeps the serial its verdicts were read at)."""
        return self.changes_base + len(self.changes)

    def changes_since(self, serial: int) -> list[tuple[str, Fingerprint | None]] | None:
        """The verdict keys changed after ``serial`` (``None``: no longer known)."""
        with self.lock:
            if serial < self.changes_base:
                return None
            return self.changes[serial - self.changes_base :]

    def _changed(self, key: tuple[str, Fingerprint | None]) -> None:
        self.changes.append(key)
        if len(self.changes) > _CHANGES:
            drop = len(self.changes) // 2
            del self.changes[:drop]
            self.changes_base += drop

    def remember(self, call_id: str, fingerprint: tuple[int, int] | None, verdict: Verdict) -> None:
        key = (call_id, fingerprint)
        with self.lock:
            dropped = self.verdicts.put(key, verdict)
            self.latest[call_id] = fingerprint
            self._changed(key)
            for (old_id, old_print), _ in dropped:
                self._changed((old_id, old_print))
                if self.latest.get(old_id, 0) == old_print:
                    del self.latest[old_id]

    def recall(self, call_id: str, content: Any) -> Verdict | None:
        with self.lock:
            if not self.verdicts:
                return None
            if content is not None:
                verdict = self.verdicts.get((call_id, content_fingerprint(content)))
                return verdict if verdict is not None else self.verdicts.get((call_id, None))
            if call_id not in self.latest:
                return None
            return self.verdicts.get((call_id, self.latest[call_id]))

    def run_ledger(self, retry_budget: int, flush: bool = True) -> FailureLedger:
        """The run's ledger; with ``flush``, the successes kept back recorded first."""
        if self.ledger is None:
            self.ledger = FailureLedger(retry_budget=retry_budget)
        if flush:
            while self.pending:
                name, arguments, raw, call_id = self.pending.popleft()
                self.ledger.record(name, arguments, NOT_FAILED, raw=raw, call_id=call_id)
        return self.ledger


class RunScopes:
    """Run scopes: an object (a session, a run context) is referred to weakly, by identity,
    and its state goes with it; a key (a string, a tuple ...) is kept in a bounded LRU."""

    def __init__(self) -> None:
        self.default = RunState()
        self._objects: dict[int, tuple[weakref.ref[Any], RunState]] = {}
        self._keys: LRUCache[Hashable, RunState] = LRUCache(_RUNS)
        self._lock = threading.RLock()

    def get(self, run: object | None, create: bool = True) -> RunState | None:
        if run is None:
            return self.default
        if isinstance(run, (str, bytes, int, float, tuple, frozenset)):
            return self._keyed(run, create)
        with self._lock:
            entry = self._objects.get(id(run))
            if entry is not None and entry[0]() is run:
                return entry[1]
            if not create:  # an object without weak references is kept by itself
                return self._keys.touch(run) if isinstance(run, Hashable) else None
            key = id(run)

            def forget(_ref: weakref.ref[Any], key: int = key) -> None:
                with self._lock:
                    current = self._objects.get(key)
                    if current is not None and current[0] is _ref:
                        del self._objects[key]

            try:
                ref = weakref.ref(run, forget)
            except TypeError:  # an object without weak references: keyed by itself
                return self._keyed(run, create)
            state = RunState()
            self._objects[key] = (ref, state)
            return state

    def _keyed(self, run: Hashable, create: bool) -> RunState | None:
        with self._lock:
            state = self._keys.touch(run)
            if state is not None or not create:
                return state
            state = RunState()
            self._keys.put(run, state)
            return state

    def forget(self, run: object | None) -> None:
        with self._lock:
            if run is None:
                self.default = RunState()
            elif not _by_identity(run):
                self._keys.pop(run, None)
            else:
                entry = self._objects.get(id(run))
                if entry is not None and entry[0]() is run:
                    del self._objects[id(run)]
                elif isinstance(run, Hashable):
                    self._keys.pop(run, None)

    def progress_prints(
        self, run: object | None, shared: LRUCache[Hashable, Hashable | None]
    ) -> LRUCache[Hashable, Hashable | None]:
        """The fingerprints progress probes keep for run scope ``run``. A run of its own keeps
        its fingerprints; the shared scope and a conversation's throwaway scope
        (``ConversationRun``: each model call may make a new one) keep them layer-wide
        (``shared``), where a step's key (everything before it) tells runs apart."""
        if run is None or isinstance(run, ConversationRun):
            return shared
        state = self.get(run)
        assert state is not None
        return state.progress_prints()


def _by_identity(run: object) -> bool:
    return not isinstance(run, (str, bytes, int, float, tuple, frozenset))


def content_fingerprint(content: Any) -> tuple[int, int]:
    # The whole text: two results of one run that share an id, a length and a long head
    # (a log, a listing) must not share a verdict.
    text = content_text(content)
    return len(text), hash(text)
