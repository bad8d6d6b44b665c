"""Replay: the failed-call ledger of a conversation rebuilt from its calls, and the
checkpoints that let a conversation that only grew continue from where the previous model
call left off (the calls at the end, where cycles are looked for, always replayed).
"""

from __future__ import annotations

import hashlib
import operator
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._forms import ExchangeResult, pair_results
from ._ledger import FailureLedger, RepeatReport
from ._lru import budget_bytes
from ._runs import Fingerprint, RunState, content_fingerprint
from ._shared_state import (
    CORE_VERSION,
    SharedCheckpoints,
    chain_digests,
    decode_checkpoint,
    encode_checkpoint,
)
from ._types import Message, Verdict, result_text

if TYPE_CHECKING:
    from ._layer import ToolErrorLayer
    from ._progress import Assessment

# Calls at the end of a conversation that are always replayed (cycles are looked for there).
_REPLAY_TAIL = 16
# Replay checkpoints kept per run scope (one per conversation that grows; its branches).
_CHECKPOINTS = 8
# ... and in the shared scope (``run=None``), where a gateway serves all its conversations:
# as many as fit in this estimate of their memory (least recently used dropped first; see
# :func:`checkpoint_weight`), found by an index, so that the cost of a replay does not grow
# with the number of conversations kept (``TOOLERR_CHECKPOINT_MB``, 256 MiB by default).
SHARED_CHECKPOINT_BYTES = budget_bytes("TOOLERR_CHECKPOINT_MB", 256)
# Exchange boundaries looked up in a shared store (``SharedCheckpoints``) at a first sight:
# the latest ones that leave the tail to replay (where the conversation's earlier requests,
# served by other processes, kept theirs).
_SHARED_CANDIDATES = 6

_deref: Callable[[weakref.ref[Message]], Message | None] = weakref.ref.__call__


@dataclass(frozen=True)
class Checkpoint:
    """The replay state after every call of ``messages[:end]``, where ``messages[end]`` is an
    assistant message (no exchange crosses ``end``). Reused by a replay in the same run
    scope of a conversation that starts with the very same message objects (it only grew)
    when no verdict remembered in the run since then concerns their results: then the
    calls it covers are neither paired nor inspected again. The messages are referred to
    weakly, so that a checkpoint keeps no conversation alive (a message gone matches none)."""

    end: int
    refs: tuple[weakref.ref[Message], ...]
    """``messages[:end]``."""
    call_ids: frozenset[str]
    """The call ids of the tool results in ``messages[:end]``."""
    calls: int
    """Calls replayed (the pairs of ``messages[:end]``)."""
    serial: int
    """The run's verdict serial when their verdicts were read (see :meth:`RunState.changes_since`)."""
    retry_budget: int
    ledger: FailureLedger
    """Never recorded into: a replay continues from a copy."""
    reports: dict[int, RepeatReport]
    failed_tools: frozenset[str]
    digest: bytes | None = None
    """The content digest of ``messages[:end]`` (:func:`~toolerr._shared_state.chain_digests`),
    where the layer shares its checkpoints with other processes."""

    @property
    def key(self) -> int:
        """The index key: the identity of ``messages[end - 1]``, the prefix's last message."""
        return id(self.refs[-1]()) if self.refs else 0

    def starts(self, messages: Sequence[Message]) -> bool:
        """Whether ``messages`` starts with this checkpoint's messages (the same objects)."""
        return len(messages) >= self.end and all(map(operator.is_, map(_deref, self.refs), messages))

    def unchanged(
        self, messages: Sequence[Message], changes: Sequence[tuple[str, Fingerprint | None]]
    ) -> bool:
        """Whether none of the verdict changes (remembered or forgotten, by call id and
        content fingerprint) concerns a result of ``messages[:end]``: recall looks a
        verdict up by (call id, fingerprint), then (call id, ``None``); content ``None`` by id."""
        for call_id, fingerprint in changes:
            if call_id not in self.call_ids:
                continue
            if fingerprint is None:
                return False
            for message in messages[: self.end]:  # a colliding id (call_0 each turn): its contents
                if (
                    message.role == "tool"
                    and message.tool_call_id == call_id
                    and (message.content is None or content_fingerprint(message.content) == fingerprint)
                ):
                    return False
        return True


@dataclass(frozen=True)
class Resume:
    """A replay told where to start and where to hand its next checkpoint, by a caller that
    keeps checkpoints of its own by content (the wire path, :mod:`toolerr._wire_resume`).

    ``base``: the state after every call of ``messages[:end]`` -- (end, calls before it,
    the ledger there, the tools that had failed) -- which the replay continues from instead
    of a checkpoint of the run (``messages[:end]`` is then never read: it may be stand-ins);
    ``None``: the replay is as without it. ``save(end, calls, ledger, failed_tools)`` is
    called where the replay would keep its next checkpoint, with the state there (the
    ledger goes on being recorded into after the call: read it then). The repeat reports of
    ``messages[:end]`` are not returned from a ``base`` (only the decision step's are read
    on that path)."""

    base: tuple[int, int, FailureLedger, frozenset[str]] | None
    save: Callable[[int, int, FailureLedger, frozenset[str]], None]


def replay_conversation(
    state: RunState,
    messages: Sequence[Message],
    budget: int,
    inspect: Callable[[Message, Any], Verdict],
    *,
    shared: bool,
    store: SharedCheckpoints | None = None,
    tag: str = "",
    resume: Resume | None = None,
) -> tuple[FailureLedger, dict[int, RepeatReport]]:
    """The failed-call ledger and repeat reports of :meth:`ToolErrorLayer.replay` (see
    there), for run scope ``state``: ``inspect`` gives each result's verdict; ``shared``:
    ``state`` is the layer's shared scope (``run=None``), which keeps more checkpoints;
    ``store``: where that scope's checkpoints are also kept for other processes, under
    ``tag`` (what else the replay depends on: the policy); ``resume``: see :class:`Resume`."""
    if resume is not None and resume.base is not None:
        return _replay_from(messages, budget, inspect, resume.base, resume.save)
    checkpoint, results, boundaries, serial = _resume(state, messages, budget)
    # Shared only while no verdict is remembered in the scope (a gateway remembers none):
    # then a checkpoint depends on the messages' content and ``tag`` alone.
    if not shared or (store is not None and len(state.verdicts)):
        store = None
    known = None  # a prefix's digest computed on the way (for the checkpoint kept next)
    if checkpoint is None and store is not None:
        found, known = _load(store, tag, messages, budget, (results, boundaries), serial)
        if found is not None:
            checkpoint, results, boundaries = found
    if checkpoint is None:
        start, ledger, reports = 0, FailureLedger(retry_budget=budget), {}
        failed_tools: set[str] = set()
    else:
        start = checkpoint.calls
        ledger = checkpoint.ledger.copy()
        failed_tools = set(checkpoint.failed_tools)
        reports = dict(checkpoint.reports)
    verdicts = [inspect(result.message, result.arguments) for result in results]
    total = start + len(results)
    tail, keep = _tail_and_next(boundaries, start, total)
    for position in range(start, total):
        if keep is not None and position == keep[1]:
            found_at = (keep, serial)
            sharing = (store, tag, known)
            _keep(state, checkpoint, messages, found_at, ledger, reports, failed_tools, shared, sharing)
            if resume is not None:
                resume.save(keep[0], keep[1], ledger, frozenset(failed_tools))
        _record(
            ledger,
            reports,
            failed_tools,
            results[position - start],
            verdicts[position - start],
            position < tail,
        )
    return ledger, reports


def _tail_and_next(
    boundaries: list[tuple[int, int]], start: int, total: int
) -> tuple[int, tuple[int, int] | None]:
    """Where the calls at the end start (every call from there is replayed), and the next
    checkpoint: the last exchange boundary with only calls before the tail before it
    (those are replayed as any longer conversation replays them)."""
    tail = max(total - _REPLAY_TAIL, 0)
    keep = None
    for end, count in boundaries:
        if start < count <= tail:
            keep = (end, count)
    return tail, keep


def _record(
    ledger: FailureLedger,
    reports: dict[int, RepeatReport],
    failed_tools: set[str],
    result: ExchangeResult,
    verdict: Verdict,
    early: bool,
) -> None:
    """Replay one call into ``ledger``: a success of a tool that never failed is skipped
    ``early`` (before the calls at the end, where cycles are looked for)."""
    call = result.call
    assert call is not None
    if verdict.failed:
        failed_tools.add(call.name)
    elif early and call.name not in failed_tools:
        return
    reports[result.index] = ledger.record(
        call.name,
        call.arguments,
        verdict,
        raw=call.raw_arguments,
        call_id=call.id,
        diagnosis=result_text(result.message.content) if verdict.failed else None,
    )


def _replay_from(
    messages: Sequence[Message],
    budget: int,
    inspect: Callable[[Message, Any], Verdict],
    base: tuple[int, int, FailureLedger, frozenset[str]],
    save: Callable[[int, int, FailureLedger, frozenset[str]], None],
) -> tuple[FailureLedger, dict[int, RepeatReport]]:
    """:func:`replay_conversation` from a :class:`Resume` base: the calls after it replayed
    as a replay from a checkpoint of the run replays them (the same ledger), nothing kept in
    the run scope; the next checkpoint handed to ``save``."""
    end, start, ledger, failed = base
    results, boundaries = _pairs(messages, end, start)
    failed_tools = set(failed)
    reports: dict[int, RepeatReport] = {}
    total = start + len(results)
    tail, keep = _tail_and_next(boundaries, start, total)
    for position in range(start, total):
        if keep is not None and position == keep[1]:
            save(keep[0], keep[1], ledger, frozenset(failed_tools))
        result = results[position - start]
        _record(
            ledger, reports, failed_tools, result, inspect(result.message, result.arguments), position < tail
        )
    return ledger, reports


def replay_in_scope(
    layer: ToolErrorLayer,
    messages: Sequence[Message],
    run: object | None,
    assessment: Assessment | None,
    resume: Resume | None = None,
) -> tuple[FailureLedger, dict[int, RepeatReport]]:
    """A layer's replay of a conversation in run scope ``run`` (its remembered verdicts and
    checkpoints; the shared scope's also in ``layer.shared_checkpoints``): from the latest
    fingerprint epoch of the progress ``assessment`` (calls before it repeat nothing), the
    ledger told whether a call about to run starts a fresh epoch and which progress
    decision blocks it."""
    state = layer._runs.get(run)
    assert state is not None
    start = assessment.epoch_start if assessment is not None else 0
    ledger, reports = replay_conversation(
        state,
        messages[start:] if start else messages,
        layer.policy.retry_budget,
        lambda message, arguments: layer.inspect(message, run=run, arguments=arguments),
        shared=state is layer._runs.default,
        store=layer.shared_checkpoints,
        tag=(layer._shared_tag or _tag(layer)) if layer.shared_checkpoints is not None else "",
        resume=resume,
    )
    if start:  # calls before the latest fingerprint epoch repeat nothing
        reports = {index + start: report for index, report in reports.items()}
    if assessment is not None:
        ledger.next_epoch = assessment.fresh_next
        decision = assessment.decision
        ledger.progress_block = decision if decision is not None and decision.action == "block" else None
    return ledger, reports


def _tag(layer: ToolErrorLayer) -> str:
    """What a shared checkpoint depends on besides the messages: the version and the
    policy (a policy holding objects writes differently in each process: then nothing
    is shared between processes, as it must not be)."""
    text = f"{CORE_VERSION}\x1f{layer.policy!r}"
    layer._shared_tag = hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).hexdigest()
    return layer._shared_tag


def _resume(
    state: RunState, messages: Sequence[Message], budget: int
) -> tuple[Checkpoint | None, list[ExchangeResult], list[tuple[int, int]], int]:
    """Where the replay of ``messages`` starts: the latest checkpoint of the run that
    they start with, whose verdicts still hold and that leaves the calls at the end to
    replay (at least ``_REPLAY_TAIL``), else the start. Returns it, the calls after it
    (paired, not inspected), the exchange boundaries after it (message index, calls
    before it) and the run's verdict serial the replay reads its verdicts at."""
    with state.lock:
        serial = state.serial
        index = state.checkpoint_index
        if not index:
            candidates: list[Checkpoint] = []
        elif len(state.checkpoints) <= 8:  # a few: as before, latest end first
            candidates = sorted(state.checkpoints.values(), key=lambda c: c.end, reverse=True)
        else:  # many (a gateway's shared scope): those whose last message is one of these
            candidates = []
            for end in range(len(messages) - 1, 0, -1):
                if messages[end].role == "assistant":
                    bucket = index.get(id(messages[end - 1]))
                    if bucket:
                        candidates.extend(c for c in bucket if c.end == end)
    for candidate in candidates:
        if candidate.retry_budget != budget or not candidate.starts(messages):
            continue
        end = candidate.end
        if end >= len(messages) or messages[end].role != "assistant":
            continue  # a result more for the exchange before ``end``: it crosses
        if candidate.serial != serial:
            changes = state.changes_since(candidate.serial)
            if changes is None or not candidate.unchanged(messages, changes[: serial - candidate.serial]):
                continue
        results, boundaries = _pairs(messages, end, candidate.calls)
        if len(results) >= _REPLAY_TAIL:
            state.touch_checkpoint(candidate)
            return candidate, results, boundaries, serial
    results, boundaries = _pairs(messages, 0, 0)
    return None, results, boundaries, serial


def _keep(
    state: RunState,
    base: Checkpoint | None,
    messages: Sequence[Message],
    found_at: tuple[tuple[int, int], int],
    ledger: FailureLedger,
    reports: dict[int, RepeatReport],
    failed_tools: set[str],
    shared: bool,
    sharing: tuple[SharedCheckpoints | None, str, tuple[int, bytes] | None] = (None, "", None),
) -> None:
    (end, calls), serial = found_at
    store, tag, known = sharing
    begin = base.end if base is not None else 0
    try:
        new = tuple(weakref.ref(m) for m in messages[begin:end])
    except TypeError:  # messages that cannot be referred to weakly: no checkpoint
        return
    ids = {m.tool_call_id for m in messages[begin:end] if m.role == "tool" and m.tool_call_id is not None}
    kept = Checkpoint(
        end=end,
        refs=base.refs + new if base is not None else new,
        call_ids=base.call_ids | ids if base is not None else frozenset(ids),
        calls=calls,
        serial=serial,
        retry_budget=ledger.retry_budget,
        ledger=ledger.copy(),
        reports=dict(reports),
        failed_tools=frozenset(failed_tools),
    )
    if store is not None and calls >= store.min_calls:
        _share(store, tag, kept, messages, base if base is not None and base.digest is not None else known)
    with state.lock:
        # A checkpoint that the new one extends is no longer needed.
        if base is not None:
            state.drop_checkpoint(base)
        if len(state.checkpoints) <= 8:
            extended = [c for c in state.checkpoints.values() if c.end <= end and c.starts(messages)]
        else:  # by the index: those whose last message is one of the prefix's
            extended = []
            index = state.checkpoint_index
            for boundary in range(end, 0, -1):
                if messages[boundary].role == "assistant":
                    bucket = index.get(id(messages[boundary - 1]))
                    if bucket:
                        extended.extend(c for c in bucket if c.end == boundary and c.starts(messages))
        for old in extended:
            state.drop_checkpoint(old)
        state.add_checkpoint(kept, checkpoint_weight(kept))
        if shared:
            while state.checkpoint_bytes > SHARED_CHECKPOINT_BYTES and len(state.checkpoints) > 1:
                state.drop_checkpoint(next(iter(state.checkpoints.values())))
        else:
            while len(state.checkpoints) > _CHECKPOINTS:
                state.drop_checkpoint(next(iter(state.checkpoints.values())))
        if state.changes and (len(state.checkpoints) <= 8 or len(state.changes) > 256):
            oldest = min(c.serial for c in state.checkpoints.values())
            if oldest > state.changes_base:  # the changes no checkpoint needs
                del state.changes[: oldest - state.changes_base]
                state.changes_base = oldest


def _share(
    store: SharedCheckpoints,
    tag: str,
    kept: Checkpoint,
    messages: Sequence[Message],
    known: Checkpoint | tuple[int, bytes] | None,
) -> None:
    """Write ``kept`` to the store (encoded and written in the background) under the
    digest of its prefix, chained on from ``known`` (a checkpoint it extends, or a
    prefix's (end, digest)) where it is a prefix of it; sets ``kept.digest``."""
    if isinstance(known, Checkpoint):
        known = (known.end, known.digest) if known.digest is not None else None
    if known is not None and known[0] <= kept.end:
        digest = chain_digests(messages, kept.end, known[0], known[1])
    else:
        digest = chain_digests(messages, kept.end)
    if digest is None:
        return
    object.__setattr__(kept, "digest", digest)  # frozen: set once, before it is kept
    # a checkpoint's ledger is never recorded into: encoded later, in the store's thread
    k = kept
    store.save(
        store.key(tag, digest),
        lambda: encode_checkpoint(k.end, k.calls, k.call_ids, k.ledger, k.reports, k.failed_tools),
    )


def _load(
    store: SharedCheckpoints,
    tag: str,
    messages: Sequence[Message],
    budget: int,
    paired: tuple[list[ExchangeResult], list[tuple[int, int]]],
    serial: int,
) -> tuple[tuple[Checkpoint, list[ExchangeResult], list[tuple[int, int]]] | None, tuple[int, bytes] | None]:
    """A checkpoint another process kept for a prefix of ``messages``, at one of the
    latest exchange boundaries that leave the calls at the end to replay: the checkpoint
    (the messages its prefix holds referred to weakly, as a checkpoint of this process),
    the calls after it and the boundaries after it; ``None`` when the store has none.
    Also the latest prefix (end, digest) computed, ``None`` where none was."""
    results, boundaries = paired  # the whole conversation's, from ``_resume``
    tail = len(results) - _REPLAY_TAIL
    least = max(store.min_calls, 1)
    ends = [(end, count) for end, count in boundaries if least <= count <= tail][-_SHARED_CANDIDATES:]
    digests: list[bytes] = []
    digest, start = b"", 0
    for end, _ in ends:
        chained = chain_digests(messages, end, start, digest)
        if chained is None:
            return None, None
        digest, start = chained, end
        digests.append(digest)
    if not digests:
        return None, None
    known = (start, digest)
    values = store.load([store.key(tag, d) for d in digests])
    for (end, count), digest, value in reversed(list(zip(ends, digests, values, strict=True))):
        decoded = decode_checkpoint(value) if value is not None else None
        if decoded is None:
            continue
        at, calls, call_ids, ledger, reports, failed_tools = decoded
        if at != end or calls != count or ledger.retry_budget != budget:
            continue
        try:
            refs = tuple(weakref.ref(m) for m in messages[:end])
        except TypeError:
            return None, known
        store.stats["hits"] += 1
        checkpoint = Checkpoint(
            end=end,
            refs=refs,
            call_ids=call_ids,
            calls=count,
            serial=serial,
            retry_budget=budget,
            ledger=ledger,
            reports=reports,
            failed_tools=failed_tools,
            digest=digest,
        )
        # the calls and boundaries after the checkpoint: the tail of the pairing already made
        after = [(index, calls) for index, calls in boundaries if index >= end]
        return (checkpoint, results[count:], after), known
    return None, known


def checkpoint_weight(checkpoint: Checkpoint) -> int:
    """An estimate of the bytes a checkpoint holds: a weak reference and a tuple slot per
    message of its prefix (the references are shared with the checkpoint it extends, which
    goes), and its ledger's entries and recent calls."""
    ledger = checkpoint.ledger
    return 1024 + 80 * checkpoint.end + 512 * len(ledger._entries) + 160 * len(checkpoint.reports)


def _pairs(
    messages: Sequence[Message], begin: int, before: int
) -> tuple[list[ExchangeResult], list[tuple[int, int]]]:
    """The calls of ``messages[begin:]`` paired with their results (``messages[begin]`` an
    assistant message, or ``begin`` 0) and the exchange boundaries: (index of each assistant
    message, calls before it, counting ``before`` calls before ``begin``)."""
    results: list[ExchangeResult] = []
    boundaries: list[tuple[int, int]] = []
    for index in range(begin, len(messages)):
        message = messages[index]
        if message.role != "assistant":
            continue
        boundaries.append((index, before + len(results)))
        if message.tool_calls:
            results.extend(r for r in pair_results(messages, index) if r.call is not None)
    return results, boundaries
