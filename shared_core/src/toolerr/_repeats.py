"""What a call is with respect to the failed calls before it (the contract's "Repeats and
loops"): :class:`FailedCall`, :class:`RepeatReport`, the cause of a loop, and both types as
plain JSON values (the state a checkpoint shared between processes holds).

The :class:`~toolerr._ledger.FailureLedger` makes these reports; ``_loop`` decides on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ._types import Kind

__all__ = ["FailedCall", "RepeatReport"]


# -- reports ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FailedCall:
    """A failed call in the ledger (the latest failure of its canonical call)."""

    name: str
    arguments: Any
    exact: str
    canonical: str
    kind: Kind
    family: str | None
    step: int
    """The step of the latest failure (1 = the first call recorded)."""
    call_id: str | None
    count: int
    """Times this canonical call failed since its last success."""

    @property
    def signature(self) -> str:
        return f"{self.name}({self.canonical})"


@dataclass(frozen=True)
class RepeatReport:
    """What a call is with respect to the failed calls before it."""

    exact: bool = False
    """Identical surface form to a failed call of the same tool."""
    canonical: bool = False
    """Same tool and canonical arguments as a failed call."""
    same_family: bool = False
    """Same (tool, error family) as an earlier failure, with arguments not canonical-equal."""
    cycle: tuple[str, ...] | None = None
    """The repeating period as signatures ``name(canonical)``, when the call sequence ends
    with it repeated twice and it holds a failing call."""
    previous: FailedCall | None = None
    """The failed call this repeats: the canonical match, else the family's latest failure."""
    retry_allowed: bool = False
    """An identical retry of a transient failure within the retry budget: the correct action."""
    budget_exhausted: bool = False
    """An identical retry of a transient failure beyond the retry budget."""
    family_count: int = 0
    """Failures of the same (tool, family) before this call (set when ``same_family``)."""

    @property
    def is_repeat(self) -> bool:
        return self.exact or self.canonical

    @property
    def is_loop(self) -> bool:
        return _loop_cause(self, self.previous.kind if self.previous is not None else None) is not None


_LoopCause = Literal["repeat", "budget", "cycle", "family"]


def _loop_cause(report: RepeatReport, kind: Kind | None) -> _LoopCause | None:
    if report.is_repeat and report.budget_exhausted:
        return "budget"
    if report.is_repeat and kind is not None and kind != "transient":
        return "repeat"
    if report.cycle is not None:
        return "cycle"
    if report.same_family and kind is not None and kind != "transient" and report.family_count >= 2:
        return "family"
    return None


_NO_REPEAT = RepeatReport()


def failed_call_state(call: FailedCall) -> list[Any]:
    """A failed call as plain JSON values (:func:`failed_call_from_state`)."""
    return [
        *(call.name, call.arguments, call.exact, call.canonical, call.kind),
        *(call.family, call.step, call.call_id, call.count),
    ]


def failed_call_from_state(state: list[Any]) -> FailedCall:
    name, arguments, exact, canonical, kind, family, step, call_id, count = state
    return FailedCall(name, arguments, exact, canonical, kind, family, int(step), call_id, int(count))


def report_state(report: RepeatReport) -> list[Any]:
    """A repeat report as plain JSON values (:func:`report_from_state`)."""
    previous = failed_call_state(report.previous) if report.previous is not None else None
    cycle = list(report.cycle) if report.cycle is not None else None
    return [
        report.exact,
        report.canonical,
        report.same_family,
        cycle,
        previous,
        report.retry_allowed,
        report.budget_exhausted,
        report.family_count,
    ]


def report_from_state(state: list[Any]) -> RepeatReport:
    exact, canonical, same_family, cycle, previous, retry_allowed, budget_exhausted, family_count = state
    return RepeatReport(
        exact=bool(exact),
        canonical=bool(canonical),
        same_family=bool(same_family),
        cycle=tuple(map(str, cycle)) if cycle is not None else None,
        previous=failed_call_from_state(previous) if previous is not None else None,
        retry_allowed=bool(retry_allowed),
        budget_exhausted=bool(budget_exhausted),
        family_count=int(family_count),
    )
