"""Resume by content: a gateway's failing step converts and replays only the tail.

A gateway sees each conversation again at every model call, as a freshly parsed body
(new objects each time), and may serve thousands at once. The replay checkpoints of the
shared run scope find a conversation by the identity of its converted messages, so they
hold only while the conversion cache still holds every message of it: past that budget
each failing step converted and replayed the whole conversation again (a gateway of 10,000
conversations of 1,000 messages paid 3-4x the cost of one conversation).

Here the checkpoint is found by content instead. One pass over the raw request hashes each
item's conversion key (what the conversion reads of it, :func:`toolerr._wire_chat._chat_key`)
into a chain: the chain's value before each assistant message is the digest of the prefix
that ends there. A checkpoint (the replay's state at that prefix: the ledger, the calls
before it, the tools that had failed) is kept per layer as compact bytes under the prefix's
digest, in an LRU bounded by bytes (``TOOLERR_RESUME_MB``, 64 by default, 0 turns it off;
2.5-4 KB per conversation of 1,000 messages). A failing step whose prefix has one converts
only the items after it, stands one placeholder object in for each item before it, replays
from the checkpoint and splices the rewritten tail back behind the request's own prefix
items (a tool result before the checkpoint that the quarantine could cut, over
``quarantine_chars`` or made of content parts, is converted in its place, so that it is
quarantined as the full path does). The answer is the full path's, byte for byte (a
property test holds the two equal); where it could differ the request takes the full path:

- the format is not OpenAI Chat, the request holds objects other than dicts, or an item
  has no conversion key;
- progress probes, or verdicts remembered in the run scope;
- a result of the decision step that did not fail (the same-result check counts the
  earlier results).

A store shared with other processes (``shared_state``, the LiteLLM hook's Redis) is read and
written by the full path as before (an instance's first sight of a conversation continues
from another's checkpoint); a resumed step neither reads nor writes it. The full path keeps
a checkpoint too (so the next failing step of the conversation finds one). Digests are the
interpreter's 64-bit hashes (keyed at random per process, kept in memory only); a false
match needs two different prefixes with one digest (about n / 2^64 for n checkpoints kept)
and also the same end and budget.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._ledger import FailureLedger
from ._lru import budget_bytes
from ._replay import _REPLAY_TAIL, Resume, _pairs
from ._shared_state import decode_checkpoint, encode_checkpoint
from ._types import Message
from ._wire_chat import _chat_key, chat_in, chat_out

if TYPE_CHECKING:
    from ._layer import ToolErrorLayer
    from ._records import Rewrite

RESUME_BYTES = budget_bytes("TOOLERR_RESUME_MB", 64)
"""The bytes of compact checkpoints one layer keeps at most (``TOOLERR_RESUME_MB``)."""

# Exchange boundaries looked up, latest first (the conversation's newest checkpoint is at
# one of the latest: each failing step keeps one; an instance of several sees every n-th).
_CANDIDATES = 32
# A stand-in for each message before the checkpoint: nothing of it is read.
_STAND_IN = Message(role="system", content="")


class ResumeStore:
    """Compact checkpoints by prefix digest, least recently used dropped first past
    ``budget`` bytes (the bytes of the values plus 100 per entry)."""

    __slots__ = ("_items", "_lock", "budget", "stats", "weight")

    def __init__(self, budget: int = RESUME_BYTES) -> None:
        self._items: OrderedDict[int, bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.budget = budget
        self.weight = 0
        self.stats = {"resumed": 0, "saved": 0, "full": 0}

    def __len__(self) -> int:
        return len(self._items)

    def get(self, digest: int) -> bytes | None:
        with self._lock:
            value = self._items.get(digest)
            if value is not None:
                self._items.move_to_end(digest)
            return value

    def put(self, digest: int, value: bytes, replaces: int | None = None) -> None:
        """Keep ``value`` under ``digest``; ``replaces``: a checkpoint of the same
        conversation that this one extends (dropped)."""
        with self._lock:
            items = self._items
            if replaces is not None and replaces != digest:
                old = items.pop(replaces, None)
                if old is not None:
                    self.weight -= len(old) + 100
            old = items.pop(digest, None)
            if old is not None:
                self.weight -= len(old) + 100
            items[digest] = value
            self.weight += len(value) + 100
            while self.weight > self.budget and len(items) > 1:
                _, stale = items.popitem(last=False)
                self.weight -= len(stale) + 100

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.weight = 0


def store_of(layer: ToolErrorLayer) -> ResumeStore | None:
    """The layer's store (made on first use); ``None`` where resuming by content could give
    another answer than the full path (see the module's list)."""
    policy = layer.policy
    if policy.progress is not None:
        return None
    store = layer._resume_store
    if store is None:
        store = layer._resume_store = ResumeStore()
    return store if store.budget > 0 else None


class _Chain:
    """The prefix digests of a chat request: ``digests[i]`` for each assistant item ``i``
    (the digest of ``request[:i]``), up to the first item without a conversion key;
    ``long``: the indices of the tool results the quarantine could cut (over ``limit``, or
    content parts), which a resumed rewrite converts in place of their stand-ins."""

    __slots__ = ("digests", "long")

    def __init__(self, request: Sequence[Any], client: str, limit: int) -> None:
        digests: dict[int, int] = {}
        long: list[int] = []
        chain = hash(("toolerr-chat", client))
        for index, item in enumerate(request):
            key = _chat_key(client, index, item)
            if key is None:
                break
            role = key[2]
            if role == "assistant":
                digests[index] = chain
            elif (role == "tool" or role == "function") and limit:
                content = key[3]
                if type(content) is not str or len(content) > limit:
                    long.append(index)
            chain = hash((chain, key))
        self.digests = digests
        self.long = long


def _saver(store: ResumeStore, chain: _Chain, base: int | None) -> Any:
    def save(end: int, calls: int, ledger: FailureLedger, failed_tools: frozenset[str]) -> None:
        digest = chain.digests.get(end)
        if digest is None:
            return
        value = encode_checkpoint(end, calls, frozenset(), ledger, {}, failed_tools)
        if value is not None:
            store.put(digest, value, replaces=base)
            store.stats["saved"] += 1

    return save


def _usable(layer: ToolErrorLayer, run: object | None) -> ResumeStore | None:
    store = store_of(layer)
    if store is None:
        return None
    state = layer._runs.get(run)
    if state is None or len(state.verdicts):
        return None
    return store


def resumed_rewrite(
    layer: ToolErrorLayer, request: list[Any], client: str, run: object | None, tail_start: int
) -> tuple[tuple[Rewrite, list[Any] | None] | None, Resume | None]:
    """The rewrite of a chat request from a compact checkpoint of its prefix: the layer's
    :class:`~toolerr._records.Rewrite` and the new request (``None`` where unchanged); else
    ``None`` (the caller takes the full path) and what the full path passes to the layer so
    that it keeps a compact checkpoint (a :class:`~toolerr._replay.Resume` without a base;
    ``None`` where resuming by content does not apply)."""
    store = _usable(layer, run)
    if store is None:
        return None, None
    chain = _Chain(request, client, layer.policy.quarantine_chars or 0)
    resumed = _resumed(layer, request, client, run, tail_start, store, chain)
    if resumed is not None:
        return resumed, None
    store.stats["full"] += 1
    return None, Resume(None, _saver(store, chain, None))


def _resumed(
    layer: ToolErrorLayer,
    request: list[Any],
    client: str,
    run: object | None,
    tail_start: int,
    store: ResumeStore,
    chain: _Chain,
) -> tuple[Rewrite, list[Any] | None] | None:
    found = _find(store, chain, request, tail_start, layer.policy.retry_budget)
    if found is None:
        return None
    end, calls, ledger, failed_tools, digest = found
    conv = chat_in(request[end:], client, end)
    tail = conv.messages
    # the decision step's results must all fail (else the same-result check reads the prefix)
    if not _all_failed(layer, tail, run):
        return None
    messages = [_STAND_IN] * end + tail
    for index in chain.long:  # where the quarantine may cut: the real message
        if index >= end:
            break
        messages[index] = chat_in(request[index : index + 1], client, index).messages[0]
    # a replay from a checkpoint replays at least the calls at the end (as ``_replay`` does)
    if len(_pairs(messages, end, calls)[0]) < _REPLAY_TAIL:
        return None
    conv.messages = messages  # indexed by request index (the conversion back reads it so)
    resume = Resume((end, calls, ledger, failed_tools), _saver(store, chain, digest))
    result = layer._guarded_rewrite(messages, run, resume)
    store.stats["resumed"] += 1
    if result.error is not None or not result.changed:
        return result, None
    out = result.messages
    if len(out) < end:  # never: forms change the tail, the quarantine a message in place
        raise RuntimeError("a resumed rewrite removed messages before its checkpoint")
    sent = request[:end]
    for index in chain.long:  # a long result before the checkpoint, quarantined
        if index >= end:
            break
        if out[index] is not messages[index]:
            sent[index] = chat_out(request, conv, out[index : index + 1])[0]
    if any(out[i] is not messages[i] for i in range(end) if messages[i] is _STAND_IN):
        raise RuntimeError("a resumed rewrite changed the conversation before its checkpoint")
    return result, sent + chat_out(request, conv, out[end:])


def _find(
    store: ResumeStore, chain: _Chain, request: Sequence[Any], tail_start: int, budget: int
) -> tuple[int, int, FailureLedger, frozenset[str], int] | None:
    """The latest checkpoint of a prefix of ``request`` that leaves at least
    ``_REPLAY_TAIL`` calls after it (counted on the raw items) and before the request's tail."""
    calls_after = 0
    tried = 0
    for index in range(len(request) - 1, -1, -1):
        item = request[index]
        if type(item) is not dict or item.get("role") != "assistant":
            continue
        if calls_after >= _REPLAY_TAIL and index < tail_start:
            tried += 1
            if tried > _CANDIDATES:
                return None
            digest = chain.digests.get(index)
            if digest is not None:
                value = store.get(digest)
                if value is not None:
                    decoded = decode_checkpoint(value)
                    if decoded is not None:
                        end, calls, _, ledger, _, failed_tools = decoded
                        if end == index and ledger.retry_budget == budget:
                            return end, calls, ledger, failed_tools, digest
        calls_after += len(item.get("tool_calls") or ())
    return None


def _all_failed(layer: ToolErrorLayer, tail: list[Message], run: object | None) -> bool:
    """Whether every tool result after the last assistant message failed."""
    last = len(tail) - 1
    while last >= 0 and tail[last].role != "assistant":
        last -= 1
    results = [m for m in tail[last + 1 :] if m.role == "tool"]
    return bool(results) and last >= 0 and all(layer.inspect(m, run=run).failed for m in results)
