"""The per-run ledger of failed tool calls: repeats, reworded repeats, cycles (the
contract's "Repeats and loops").

A :class:`FailureLedger` is fed every executed call of one run with :meth:`FailureLedger.record`
(after its result is known) and asked about a call that is about to run with
:meth:`FailureLedger.check`. It reports

* **exact** repeats: the same tool and the same surface form of the arguments (the text the
  model wrote) as a failed call;
* **canonical** repeats: the same tool and the same :func:`canonical_arguments` (key order,
  white space, quoting and number formats do not matter);
* **same family** repeats: the same tool failing with the same error family
  (:attr:`toolerr.Verdict.family`) with reworded arguments;
* **cycles**: the recent call sequence ends with a period of 2 to ``max_cycle_len`` calls
  repeated twice (``A B A B``, ``A B C A B C``) that contains a failing call.

Counting conventions (all per canonical call ``(tool, canonical arguments)``):

* ``step`` counts the calls recorded, the first recorded call is step 1.
* :attr:`FailedCall.count` is the number of failures of that call since its last success
  (a success of the same canonical call clears its entry).
* Retry budget ``B`` (default 3): after ``n`` failures an identical call is retry number
  ``n``. Retries ``1..B`` of a transient failure are allowed (``retry_allowed``: attempts
  2 to ``B + 1``); retry ``B + 1`` (attempt ``B + 2``) is over the budget
  (``budget_exhausted``, a loop). Equivalently, once a transient call has failed ``B + 1``
  times its failure counts as unrecoverable: :meth:`FailureLedger.effective_kind` (called
  *after* :meth:`FailureLedger.record` of that failure) answers ``"unrecoverable"`` and
  :meth:`FailureLedger.banned_calls` bans it. Budget 0: no retry at all.
* A same-family repeat is a loop from the second reworded repeat on: when the
  ``(tool, family)`` pair has already failed at least twice (``family_count >= 2``) with a
  non-transient kind. A success of the tool (any arguments) resets its family counts: the
  model recovered. The family of a call is known only from its result, so ``check()``
  reports same-family repeats only when given ``family=``; ``record()`` passes its verdict's.
  When the caller gives the failure's text (``diagnosis=``), a family repeat also needs the
  same diagnosis (the text with quoted values, paths and numbers taken out): three
  different validation errors in a row are three fixes that each changed the error, not a
  loop.
* A cycle counts only when one of its calls' latest result is a failure that is not a
  transient one within its budget (a retry/wait pattern is not a loop).
"""

from __future__ import annotations

import re
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any

from ._canonical import canonical_arguments, exact_arguments
from ._cycles import Signature as _Signature
from ._cycles import find_cycle
from ._lru import LRUCache
from ._repeats import (
    _NO_REPEAT,
    FailedCall,
    RepeatReport,
    failed_call_from_state,
    failed_call_state,
)
from ._types import Kind, Verdict

__all__ = ["FailedCall", "FailureLedger", "RepeatReport"]


# -- the ledger ------------------------------------------------------------------------


class _Entry:
    __slots__ = ("arguments", "call_id", "canonical", "count", "exacts", "family", "kind", "name", "step")

    def __init__(self, name: str, canonical: str) -> None:
        self.name = name
        self.canonical = canonical
        self.arguments: Any = None
        self.exacts: dict[str, None] = {}
        self.kind: Kind = "ambiguous"
        self.family: str | None = None
        self.step = 0
        self.call_id: str | None = None
        self.count = 0

    def frozen(self, exact: str | None = None) -> FailedCall:
        if exact is None:
            exact = next(reversed(self.exacts)) if self.exacts else ""
        return FailedCall(
            name=self.name,
            arguments=self.arguments,
            exact=exact,
            canonical=self.canonical,
            kind=self.kind,
            family=self.family,
            step=self.step,
            call_id=self.call_id,
            count=self.count,
        )


def _entry_state(e: _Entry) -> list[Any]:
    return [e.name, e.canonical, e.arguments, list(e.exacts), e.kind, e.family, e.step, e.call_id, e.count]


@dataclass
class _Family:
    count: int
    latest: FailedCall


_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`")
_PATHLIKE = re.compile(r"\S*[/\\]\S*")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SPACES = re.compile(r"\s+")
_DIAGNOSIS_CHARS = 300


def diagnosis_key(text: str) -> str:
    """What a failure's text says is wrong, without the values that change with the
    arguments: quoted values, paths and numbers taken out, white space and case folded.
    Two failures of a family with the same key have the same diagnosis."""
    text = _QUOTED.sub("_", text[: 4 * _DIAGNOSIS_CHARS])
    text = _PATHLIKE.sub("_", text)
    text = _NUMBER.sub("#", text)
    return _SPACES.sub(" ", text).strip().lower()[:_DIAGNOSIS_CHARS]


def _family_key(family: str | None, diagnosis: str | None) -> str | None:
    if family is None or diagnosis is None:
        return family
    return f"{family}\x1f{diagnosis_key(diagnosis)}"


def _int_option(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


def _check_name(name: Any) -> None:
    if not isinstance(name, str):
        raise TypeError(f"tool name must be a str, not {type(name).__name__}")


def _cap(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


class FailureLedger:
    """The failed calls of one run, for repeat and loop detection. Thread-safe.

    Memory is bounded: at most ``history`` recent call signatures (for cycles), at most
    ``max_failures`` failure entries (the least recently failed dropped), at most 16 surface
    forms per entry, and bounded family counters.
    """

    MAX_EXACTS = 16
    MAX_TOOLS = 1000
    MAX_FAMILIES_PER_TOOL = 64

    def __init__(
        self, retry_budget: int = 3, max_cycle_len: int = 3, history: int = 64, *, max_failures: int = 1000
    ) -> None:
        self.retry_budget = _int_option("retry_budget", retry_budget)
        self.max_cycle_len = _int_option("max_cycle_len", max_cycle_len)
        self.history = _int_option("history", history)
        self._entries: LRUCache[_Signature, _Entry] = LRUCache(_int_option("max_failures", max_failures))
        self._lock = threading.Lock()
        self._families: LRUCache[str, LRUCache[str, _Family]] = LRUCache(self.MAX_TOOLS)
        # (name, canonical, failed-for-cycles): a failure that is not a transient within budget
        self._recent: deque[tuple[str, str, bool]] = deque(maxlen=self.history)
        self._step = 0
        self._dropped = 0
        # the latest call recorded, when it failed with an unknown outcome (the idempotency guard)
        self._unknown: _Signature | None = None
        self.next_epoch = False
        """Set by a replay with progress probes: the environment changed after the last
        call recorded, so a call about to run repeats none of them."""
        self.progress_block: Any = None
        """Set by a replay with progress (loop action ``block``): the ``LoopDecision`` of a
        stall or same result that keeps the next call from running."""

    def __repr__(self) -> str:
        return (
            f"FailureLedger(step={self._step}, failures={len(self._entries)}, "
            f"retry_budget={self.retry_budget})"
        )

    @property
    def max_failures(self) -> int:
        """Failure entries kept at the most (the least recently failed dropped)."""
        return self._entries.size

    @max_failures.setter
    def max_failures(self, value: int) -> None:
        self._entries.size = value

    @property
    def step(self) -> int:
        """Calls recorded so far."""
        return self._step

    # -- queries -------------------------------------------------------------------

    def check(
        self,
        name: str,
        arguments: Any,
        raw: str | None = None,
        *,
        family: str | None = None,
        diagnosis: str | None = None,
    ) -> RepeatReport:
        """What this call would be, before executing it. Pure: the ledger does not change.

        ``family``: the error family the call failed with, when known (``record`` passes its
        verdict's); without it same-family repeats cannot be told and are not reported.
        ``diagnosis``: the failure's text, when known: a family repeat then also needs the
        same diagnosis (see :func:`diagnosis_key`).
        """
        _check_name(name)
        canonical = canonical_arguments(arguments if arguments is not None or raw is None else raw)
        exact = exact_arguments(arguments, raw)
        with self._lock:
            return self._report(name, canonical, exact, _family_key(family, diagnosis))

    def _report(self, name: str, canonical: str, exact: str, family: str | None) -> RepeatReport:
        cycle = self._cycle((name, canonical))
        entry = self._entries.get((name, canonical))
        if entry is not None:
            transient = entry.kind == "transient"
            is_exact = exact in entry.exacts
            return RepeatReport(
                exact=is_exact,
                canonical=True,
                cycle=cycle,
                previous=entry.frozen(exact if is_exact else None),
                retry_allowed=transient and entry.count <= self.retry_budget,
                budget_exhausted=transient and entry.count > self.retry_budget,
            )
        if family is not None:
            families = self._families.get(name)
            fam = families.get(family) if families is not None else None
            if fam is not None:
                return RepeatReport(
                    same_family=True, cycle=cycle, previous=fam.latest, family_count=fam.count
                )
        if cycle is not None:
            return RepeatReport(cycle=cycle)
        return _NO_REPEAT

    def _cycle(self, candidate: _Signature) -> tuple[str, ...] | None:
        return find_cycle(self._recent, self.max_cycle_len, candidate)

    def effective_kind(self, name: str, arguments: Any, verdict: Verdict) -> Kind | None:
        """The kind to act on for this failure: ``"unrecoverable"`` for a transient failure of
        a call that has now failed more than ``retry_budget`` times (the first attempt and
        every allowed retry failed); else ``verdict.kind``.

        Call it after :meth:`record` of the failure being classified (its count includes
        it); a call the ledger does not hold counts as failed once.
        """
        _check_name(name)
        if not isinstance(verdict, Verdict):
            raise TypeError(f"verdict must be a toolerr.Verdict, not {type(verdict).__name__}")
        if not verdict.failed or verdict.kind != "transient":
            return verdict.kind
        canonical = canonical_arguments(arguments)
        with self._lock:
            entry = self._entries.get((name, canonical))
            count = entry.count if entry is not None else 1
        return "unrecoverable" if count > self.retry_budget else "transient"

    def unknown_outcome(self, name: str, arguments: Any, raw: str | None = None) -> FailedCall | None:
        """The failed call this call resends, when the latest call recorded is the same call
        (same tool, same canonical arguments) and it failed with an unknown outcome (a read
        timeout after sending: it may have taken effect); else ``None``. Any other call
        recorded after it (a success or a failure) clears it. Pure."""
        _check_name(name)
        canonical = canonical_arguments(arguments if arguments is not None or raw is None else raw)
        with self._lock:
            if self._unknown != (name, canonical):
                return None
            entry = self._entries.get((name, canonical))
            return entry.frozen() if entry is not None else None

    @property
    def failures(self) -> tuple[FailedCall, ...]:
        """The current failed calls, least recently failed first."""
        with self._lock:
            return tuple(entry.frozen() for entry in self._entries.values())

    def banned_calls(self) -> list[FailedCall]:
        """Failed calls whose exact strings a decoder should ban: every surface form of a
        failed fixable, unrecoverable or ambiguous call, and of a transient one once its
        budget is exhausted (``count > retry_budget``). One item per surface form."""
        with self._lock:
            return [
                entry.frozen(exact)
                for entry in self._entries.values()
                if entry.kind != "transient" or entry.count > self.retry_budget
                for exact in entry.exacts
            ]

    def snapshot(self) -> dict[str, Any]:
        """A JSON-able summary (long texts cut) for records and logs."""
        with self._lock:
            return {
                "step": self._step,
                "retry_budget": self.retry_budget,
                "max_cycle_len": self.max_cycle_len,
                "history": self.history,
                "dropped": self._dropped,
                "failures": [
                    {
                        "name": entry.name,
                        "exact": _cap(next(reversed(entry.exacts), "")),
                        "canonical": _cap(entry.canonical),
                        "kind": entry.kind,
                        "family": entry.family,
                        "step": entry.step,
                        "call_id": entry.call_id,
                        "count": entry.count,
                        "forms": len(entry.exacts),
                    }
                    for entry in self._entries.values()
                ],
                "recent": [
                    {"call": _cap(f"{name}({canonical})", 120), "failed": failed}
                    for name, canonical, failed in self._recent
                ],
            }

    # -- updates -------------------------------------------------------------------

    def record(
        self,
        name: str,
        arguments: Any,
        verdict: Verdict | None,
        *,
        raw: str | None = None,
        call_id: str | None = None,
        diagnosis: str | None = None,
    ) -> RepeatReport:
        """Record an executed call and its result; returns the report :meth:`check` would
        have given before recording (with the verdict's family, for same-family repeats).

        ``verdict`` ``None`` or not failed is a success: it clears the failure entry of the
        same canonical call and the tool's family counts. ``diagnosis``: the failure's text,
        when known (a family repeat then also needs the same diagnosis).
        """
        _check_name(name)
        if verdict is not None and not isinstance(verdict, Verdict):
            raise TypeError(f"verdict must be a toolerr.Verdict or None, not {type(verdict).__name__}")
        failed = verdict is not None and verdict.failed
        family = verdict.family if verdict is not None and failed else None
        counted = _family_key(family, diagnosis)
        canonical = canonical_arguments(arguments if arguments is not None or raw is None else raw)
        exact = exact_arguments(arguments, raw)
        key = (name, canonical)
        with self._lock:
            report = self._report(name, canonical, exact, counted)
            self._step += 1
            unknown = failed and verdict is not None and verdict.outcome == "unknown_outcome"
            self._unknown = key if unknown else None
            if verdict is None or not verdict.failed:
                self._entries.pop(key, None)
                self._families.pop(name, None)
                self._recent.append((name, canonical, False))
                return report
            entry = self._entries.touch(key)
            if entry is None:
                entry = _Entry(name, canonical)
                self._dropped += len(self._entries.put(key, entry))
            entry.arguments = arguments
            entry.exacts.pop(exact, None)
            entry.exacts[exact] = None
            while len(entry.exacts) > self.MAX_EXACTS:
                del entry.exacts[next(iter(entry.exacts))]
            entry.kind = verdict.kind or "ambiguous"
            entry.family = family
            entry.step = self._step
            entry.call_id = call_id
            entry.count += 1 + max(verdict.hidden_retries, 0)  # auto_retry's hidden attempts count
            if counted is not None:
                self._count_family(name, counted, entry.frozen(exact))
            counts = entry.kind != "transient" or entry.count > self.retry_budget
            self._recent.append((name, canonical, counts))
            return report

    def _count_family(self, name: str, family: str, latest: FailedCall) -> None:
        families = self._families.touch(name)
        if families is None:
            families = LRUCache(self.MAX_FAMILIES_PER_TOOL)
            self._families.put(name, families)
        state = families.touch(family)
        if state is None:
            families.put(family, _Family(1, latest))
        else:
            state.count += 1
            state.latest = latest

    def copy(self) -> FailureLedger:
        """An independent ledger in the same state (same options, entries, families and
        recent calls): recording into one does not change the other."""
        other = FailureLedger(
            self.retry_budget, self.max_cycle_len, self.history, max_failures=self.max_failures
        )
        with self._lock:
            for key, entry in self._entries.items():
                twin = _Entry(entry.name, entry.canonical)
                twin.arguments = entry.arguments
                twin.exacts = dict(entry.exacts)
                twin.kind = entry.kind
                twin.family = entry.family
                twin.step = entry.step
                twin.call_id = entry.call_id
                twin.count = entry.count
                other._entries.put(key, twin)
            for name, families in self._families.items():
                twin_families: LRUCache[str, _Family] = LRUCache(families.size)
                for family, state in families.items():
                    twin_families.put(family, _Family(state.count, state.latest))
                other._families.put(name, twin_families)
            other._recent.extend(self._recent)
            other._step = self._step
            other._dropped = self._dropped
            other._unknown = self._unknown
        return other

    def to_state(self) -> dict[str, Any]:
        """The ledger as plain JSON values (:meth:`from_state` makes it again): what a
        checkpoint shared between processes holds (``_shared_state``)."""
        with self._lock:
            return {
                "options": [self.retry_budget, self.max_cycle_len, self.history, self.max_failures],
                "entries": [_entry_state(e) for e in self._entries.values()],
                "families": [
                    [name, kept.size, [[f, s.count, failed_call_state(s.latest)] for f, s in kept.items()]]
                    for name, kept in self._families.items()
                ],
                "recent": [list(item) for item in self._recent],
                "step": self._step,
                "dropped": self._dropped,
                "unknown": list(self._unknown) if self._unknown is not None else None,
            }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> FailureLedger:
        """The ledger :meth:`to_state` gave (``KeyError``, ``TypeError`` or ``ValueError``
        for anything else)."""
        retry_budget, max_cycle_len, history, max_failures = state["options"]
        ledger = cls(retry_budget, max_cycle_len, history, max_failures=max_failures)
        for name, canonical, arguments, exacts, kind, family, step, call_id, count in state["entries"]:
            entry = _Entry(str(name), str(canonical))
            entry.arguments = arguments
            entry.exacts = dict.fromkeys(map(str, exacts))
            entry.kind, entry.family, entry.call_id = kind, family, call_id
            entry.step, entry.count = int(step), int(count)
            ledger._entries.put((entry.name, entry.canonical), entry)
        for name, size, families in state["families"]:
            kept: LRUCache[str, _Family] = LRUCache(int(size))
            for family, count, latest in families:
                kept.put(str(family), _Family(int(count), failed_call_from_state(latest)))
            ledger._families.put(str(name), kept)
        ledger._recent.extend((str(a), str(b), bool(c)) for a, b, c in state["recent"])
        ledger._step, ledger._dropped = int(state["step"]), int(state["dropped"])
        unknown = state["unknown"]
        ledger._unknown = (str(unknown[0]), str(unknown[1])) if unknown is not None else None
        return ledger

    def reset(self) -> None:
        """Forget everything (a new run)."""
        with self._lock:
            self._entries.clear()
            self._families.clear()
            self._recent.clear()
            self._step = 0
            self._dropped = 0
            self._unknown = None
