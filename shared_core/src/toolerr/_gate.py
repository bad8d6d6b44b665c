"""Before a call runs (``ToolErrorLayer.check_call``): the loop decision against the run's
ledger (the conversation's, a ledger the adapter keeps, or the one ``deliver_result``
keeps for the run scope) and the idempotency guard over it (``_idempotency``); ``stop``
raises, ``block`` is logged, any other internal error fails open to ``allow``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from ._idempotency import resend_decision
from ._ledger import FailureLedger
from ._loop import ALLOW, LoopDecision, ToolLoopError, decide_loop
from ._policy import Policy
from ._progress import call_on_loop
from ._types import Message

if TYPE_CHECKING:
    from ._layer import ToolErrorLayer

__all__ = ["decide_call"]

logger = logging.getLogger("toolerr")


def decide_call(
    layer: ToolErrorLayer,
    name: str,
    arguments: Any,
    raw: str | None,
    messages: Sequence[Message] | None,
    ledger: FailureLedger | None,
    run: object | None,
) -> LoopDecision:
    """:meth:`ToolErrorLayer.check_call <toolerr.ToolErrorLayer.check_call>`: the decision
    for a call about to run (``ToolLoopError`` for ``stop``)."""
    try:
        policy = layer.policy
        if ledger is None and messages is None:
            state = layer._runs.get(run, create=False)
            with state.lock if state is not None else nullcontext():
                if state is None or state.ledger is None or not state.ledger.failures:
                    return ALLOW  # no failure in the run: nothing to repeat
                ledger = state.run_ledger(policy.retry_budget)
                decision = decide_loop(ledger.check(name, arguments, raw=raw), loop_action=policy.loop_action)
                decision = _guarded(policy, decision, ledger, name, arguments, raw)
        else:
            if ledger is None:
                ledger = layer.replay(messages or (), run=run)[0]
            if ledger.progress_block is not None:  # a stall or a same result: the next call
                return _decided(policy, name, ledger.progress_block)
            if ledger.next_epoch:  # the environment changed since those calls: no repeat,
                # but a resend of an unknown outcome stays guarded (the change may be its effect)
                return _decided(policy, name, _guarded(policy, ALLOW, ledger, name, arguments, raw))
            decision = decide_loop(ledger.check(name, arguments, raw=raw), loop_action=policy.loop_action)
            decision = _guarded(policy, decision, ledger, name, arguments, raw)
    except Exception:
        logger.warning("toolerr: check_call failed; the call runs unchanged", exc_info=True)
        return ALLOW
    return _decided(policy, name, decision)


def _guarded(
    policy: Policy, decision: LoopDecision, ledger: FailureLedger, name: str, arguments: Any, raw: str | None
) -> LoopDecision:
    """The idempotency guard (``_idempotency``) over the loop decision: a call the loop
    rule lets run (or notes) is blocked when it resends a call of unknown outcome."""
    if decision.action in ("block", "stop"):
        return decision
    return resend_decision(policy, ledger, name, arguments, raw) or decision


def _decided(policy: Policy, name: str, decision: LoopDecision) -> LoopDecision:
    if decision.action == "stop":
        logger.warning("toolerr: stopping the run: %s", decision.reason)
        error = ToolLoopError(decision)
        call_on_loop(policy, error)
        raise error
    if decision.action == "block":
        guarded = decision.verdict is not None
        what = "resend of a call of unknown outcome" if guarded else "repeat of a failed call"
        logger.info("toolerr: blocked a %s to %s", what, name)
    return decision
