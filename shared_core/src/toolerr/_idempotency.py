"""The idempotency guard (the behaviour contract: "Repeats and loops"): after a failure
whose outcome is unknown (a read timeout after the request was sent: the call may have
taken effect), an identical resend (same tool, same canonical arguments) to a tool not
declared ``read_only`` or ``idempotent`` is not executed; the model is told to check
whether the first call took effect. Any other call recorded in between lifts it. It
applies whatever the loop action (it is not the loop rule) and goes through the
blocked-call path (:meth:`ToolErrorLayer.check_call` ->
:func:`toolerr.adapters.guard_call` -> ``Blocked``); ``Policy(idempotency_guard=False)``
turns it off.
"""

from __future__ import annotations

from typing import Any

from ._ledger import FailureLedger, RepeatReport
from ._loop import LoopDecision
from ._policy import Policy
from ._types import Verdict

__all__ = ["RESEND_REASON", "RESEND_RULE", "resend_decision"]

RESEND_REASON = (
    "The same call failed just before with an unknown outcome and may already have taken effect; "
    "check whether it did before sending it again."
)
"""The sentence after ``Error: this call was not executed. `` in the blocked answer, byte-exact."""

RESEND_RULE = "toolerr:unknown-outcome-resend"
"""The ``rule`` of the blocked answer's verdict."""


def resend_decision(
    policy: Policy, ledger: FailureLedger, name: str, arguments: Any, raw: str | None = None
) -> LoopDecision | None:
    """``block`` for an identical resend of a call whose outcome is unknown to a tool the
    policy does not declare ``read_only`` or ``idempotent``; ``None`` otherwise (and with
    ``idempotency_guard`` off).

    Args:
        policy: The policy (``idempotency_guard``, ``tool_safety``).
        ledger: The run's earlier calls.
        name: The tool's name.
        arguments: The parsed arguments.
        raw: The argument text the model wrote, when there is one.

    Returns:
        The decision (its ``verdict``: a transient failure with an unknown outcome, so
        that a second identical resend is blocked too), or ``None``.
    """
    if not policy.idempotency_guard or policy.tool_safety.get(name) in ("read_only", "idempotent"):
        return None
    previous = ledger.unknown_outcome(name, arguments, raw)
    if previous is None:
        return None
    verdict = Verdict(
        failed=True,
        kind="transient",
        rule=RESEND_RULE,
        detection="toolerr:blocked",
        outcome="unknown_outcome",
        family=previous.family,
    )
    report = RepeatReport(canonical=True, previous=previous)
    return LoopDecision("block", RESEND_REASON, report, verdict=verdict)
