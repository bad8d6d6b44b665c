"""The loop decision: what the policy's loop action makes of one call's repeat report
(the contract's "Repeats and loops")."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Literal

from ._ledger import _cap
from ._repeats import RepeatReport, _loop_cause
from ._types import LOOP_ACTIONS, Kind, LoopAction, ToolCall, Verdict

__all__ = ["LoopDecision", "ToolLoopError", "decide_loop"]


@dataclass(frozen=True)
class LoopDecision:
    """What to do about a call given its repeat report and the policy's loop action."""

    action: Literal["allow"] | LoopAction
    reason: str
    """A short runtime sentence for the model; it never quotes the call's arguments."""
    report: RepeatReport
    verdict: Verdict | None = field(default=None, repr=False, compare=False)
    """The verdict of the blocked call's answer when it is not the repeated failure's
    (the idempotency guard's: an unknown outcome, see ``_idempotency``)."""


def _display_name(name: str) -> str:
    cleaned = "".join(ch for ch in name if ch.isprintable())
    return _cap(cleaned, 80) or "the tool"


def _cycle_names(cycle: tuple[str, ...]) -> str:
    return ", ".join(_display_name(sig.split("(", 1)[0]) for sig in cycle)


def decide_loop(
    report: RepeatReport, *, loop_action: LoopAction, previous_kind: Kind | None = None
) -> LoopDecision:
    """The policy's answer for one call.

    ``allow`` when the call is not a loop (a transient retry within the budget is allowed);
    on a loop, ``note`` and ``stop`` as the loop action says, and ``block`` only for an
    identical (exact or canonical) repeat of a fixable or unrecoverable failure or of a
    transient one over its budget (other loops, and every repeat of an ambiguous failure,
    get ``note``). ``previous_kind`` overrides the kind of
    the repeated failure (e.g. its :meth:`FailureLedger.effective_kind`).
    """
    if loop_action not in LOOP_ACTIONS:
        raise ValueError(f"loop_action must be one of {', '.join(LOOP_ACTIONS)}, got {loop_action!r}")
    if not isinstance(report, RepeatReport):
        raise TypeError(f"report must be a RepeatReport, not {type(report).__name__}")
    previous = report.previous
    kind = previous_kind if previous_kind is not None else previous.kind if previous is not None else None
    name = _display_name(previous.name) if previous is not None else "the tool"
    cause = _loop_cause(report, kind)
    if cause is None:
        if report.retry_allowed:
            reason = f"{name} failed with a temporary error; retrying the same call is expected."
        else:
            reason = "This call does not repeat a failed call."
        return LoopDecision("allow", reason, report)
    count = previous.count if previous is not None else 0
    if cause == "budget":
        reason = (
            f"{name} was already called with these arguments and failed {count} times with a temporary "
            "error; the retry budget is used up, so the failure now counts as unrecoverable."
        )
    elif cause == "repeat":
        times = "" if count <= 1 else f" {count} times"
        reason = (
            f"{name} was already called with these arguments and failed{times} ({kind}); "
            "the same call will fail again."
        )
    elif cause == "cycle":
        reason = f"The last calls repeat a cycle ({_cycle_names(report.cycle or ())}) that keeps failing."
    else:
        family = previous.family if previous is not None else None
        what = f"the same error ({_cap(family, 60)})" if family else "the same error"
        reason = f"{name} keeps failing with {what} even with changed arguments."
    if loop_action == "block":
        # Only a call that will fail again is blocked: never the repeat of an ambiguous
        # failure (a missing file may exist now: the call must reach the tool).
        blockable = cause == "budget" or (cause == "repeat" and kind != "ambiguous")
        action: LoopAction = "block" if blockable else "note"
    else:
        action = loop_action
    return LoopDecision(action, reason, report)


_EMPTY_REPORT = RepeatReport(
    exact=False,
    canonical=False,
    same_family=False,
    cycle=None,
    previous=None,
    retry_allowed=False,
    budget_exhausted=False,
)


ALLOW = LoopDecision(action="allow", reason="", report=_EMPTY_REPORT)
"""The decision for a call that repeats no failure."""


class ToolLoopError(RuntimeError):
    """Raised with loop action ``stop`` when the agent repeats a failing call or cycle."""

    def __init__(
        self,
        decision: LoopDecision,
        *,
        calls: tuple[ToolCall, ...] = (),
        fingerprints: tuple[Hashable | None, ...] = (),
    ) -> None:
        super().__init__(f"toolerr stopped the run: {decision.reason}")
        self.decision = decision
        self.calls = calls
        """The calls of the loop (for a stall: those of its unchanged steps; for a same
        result: the repeated calls); empty where the stop came from a tool-call check."""
        self.fingerprints = fingerprints
        """The environment's fingerprint after each tool step of the run (``None``:
        unknown), when ``Policy.progress`` probes it; else empty."""


def blocked_verdict(decision: LoopDecision) -> Verdict:
    """The verdict of a blocked repeat: the kind and family of the failure it repeats
    (or the decision's own ``verdict``)."""
    if decision.verdict is not None:
        return decision.verdict
    previous = decision.report.previous
    return Verdict(
        failed=True,
        kind=previous.kind if previous is not None else "fixable",
        rule="ledger:blocked-repeat",
        detection="toolerr:blocked",
        family=previous.family if previous is not None else None,
    )
