"""The idempotency guard (DELIVERY.md section 5, issue 27 item 5): after a failure whose
outcome is unknown, an identical resend to a tool not declared read-only or idempotent is
not executed, whatever the loop action; a different call in between lifts it."""

from __future__ import annotations

from typing import Any

import pytest
from toolerr import FailureLedger, Message, Policy, ToolCall, ToolErrorLayer, Verdict
from toolerr.adapters import guard_call

RESEND = (
    "Error: this call was not executed. The same call failed just before with an unknown outcome "
    "and may already have taken effect; check whether it did before sending it again."
)
PAY = {"to": "bob", "amount": 10}


def _exchange(call_id: str, name: str, arguments: Any, error: BaseException | None) -> list[Message]:
    content = f"{type(error).__name__}: {error}" if error is not None else "ok"
    return [
        Message("assistant", "", tool_calls=(ToolCall(call_id, name, arguments),)),
        Message(
            "tool", content, tool_call_id=call_id, name=name, exception=error, is_error=error is not None
        ),
    ]


def _timed_out(*more: list[Message]) -> list[Message]:
    """transfer_money timed out (a read timeout: sent, the outcome unknown)."""
    messages = [
        Message("user", "pay bob"),
        *_exchange("c1", "transfer_money", PAY, TimeoutError("timed out")),
    ]
    for extra in more:
        messages.extend(extra)
    return messages


UNKNOWN = Verdict(failed=True, kind="transient", outcome="unknown_outcome", family="timeout")
TURNED_AWAY = Verdict(failed=True, kind="transient", outcome="not_executed", family="unavailable")


# -- the ledger ----------------------------------------------------------------------------


def test_the_ledger_knows_the_latest_call_of_unknown_outcome_by_its_canonical_arguments() -> None:
    ledger = FailureLedger()
    ledger.record("transfer_money", PAY, UNKNOWN, raw='{"to": "bob", "amount": 10}')
    found = ledger.unknown_outcome("transfer_money", None, raw='{"amount":10.0,"to":"bob"}')
    assert found is not None and (found.name, found.kind, found.count) == ("transfer_money", "transient", 1)
    assert ledger.unknown_outcome("transfer_money", {"to": "bob", "amount": 11}) is None
    assert ledger.unknown_outcome("send_money", PAY) is None
    twin = ledger.copy()
    ledger.record("get_balance", {}, None)  # any other call lifts it
    assert ledger.unknown_outcome("transfer_money", PAY) is None
    assert twin.unknown_outcome("transfer_money", PAY) is not None
    twin.reset()
    assert twin.unknown_outcome("transfer_money", PAY) is None


def test_a_turned_away_failure_is_not_of_unknown_outcome() -> None:
    ledger = FailureLedger()
    ledger.record("transfer_money", PAY, TURNED_AWAY)
    assert ledger.unknown_outcome("transfer_money", PAY) is None


# -- check_call ----------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["note", "block", "stop"])
def test_the_resend_is_blocked_whatever_the_loop_action(action: str) -> None:
    layer = ToolErrorLayer(loop_action=action)  # type: ignore[arg-type]
    decision = layer.check_call("transfer_money", {"amount": 10, "to": "bob"}, messages=_timed_out())
    assert decision.action == "block"
    assert f"Error: this call was not executed. {decision.reason}" == RESEND
    assert decision.report.previous is not None and decision.report.previous.name == "transfer_money"


@pytest.mark.parametrize("safety", ["read_only", "idempotent"])
def test_a_tool_declared_safe_is_resent(safety: str) -> None:
    layer = ToolErrorLayer(tool_safety={"transfer_money": safety})  # type: ignore[dict-item]
    assert layer.check_call("transfer_money", PAY, messages=_timed_out()).action == "allow"


def test_unsafe_is_guarded_as_undeclared() -> None:
    layer = ToolErrorLayer(tool_safety={"transfer_money": "unsafe"})
    assert layer.check_call("transfer_money", PAY, messages=_timed_out()).action == "block"


def test_off_with_idempotency_guard_false() -> None:
    layer = ToolErrorLayer(Policy(idempotency_guard=False))
    assert layer.check_call("transfer_money", PAY, messages=_timed_out()).action == "allow"
    assert not Policy(idempotency_guard=False).checks_calls
    assert Policy().checks_calls and Policy(idempotency_guard=False, loop_action="block").checks_calls


def test_other_arguments_and_other_failures_run() -> None:
    layer = ToolErrorLayer()
    assert layer.check_call("transfer_money", {"to": "bob", "amount": 12}, messages=_timed_out()).action == (
        "allow"
    )
    refused = [
        Message("user", "pay"),
        *_exchange("c1", "transfer_money", PAY, ConnectionRefusedError(111, "x")),
    ]
    assert layer.check_call("transfer_money", PAY, messages=refused).action == "allow"


@pytest.mark.parametrize("between", [None, ConnectionRefusedError(111, "Connection refused")])
def test_a_different_call_in_between_lifts_it(between: BaseException | None) -> None:
    messages = _timed_out(_exchange("c2", "get_balance", {"account": "bob"}, between))
    assert ToolErrorLayer().check_call("transfer_money", PAY, messages=messages).action == "allow"


def test_a_loop_block_or_stop_wins() -> None:
    """A call the loop rule blocks (past its retry budget) keeps the loop's reason."""
    layer = ToolErrorLayer(loop_action="block", retry_budget=0)
    decision = layer.check_call("transfer_money", PAY, messages=_timed_out())
    assert decision.action == "block" and "retry budget" in decision.reason


# -- the layer's own ledger and guard_call ---------------------------------------------------


def test_guard_call_answers_the_resend_and_a_second_resend_too() -> None:
    layer = ToolErrorLayer()  # loop action note
    run = object()
    layer.deliver_result(
        "transfer_money",
        PAY,
        "TimeoutError: timed out",
        exception=TimeoutError("timed out"),
        call_id="c1",
        run=run,
    )
    blocked = guard_call(layer, "transfer_money", dict(PAY), "c2", run=run)
    assert blocked is not None and blocked.text == RESEND
    assert (blocked.verdict.kind, blocked.verdict.outcome) == ("transient", "unknown_outcome")
    assert layer.recall("c2", RESEND, run=run) == blocked.verdict
    # the answer goes back as the call's result: the next identical resend is answered too
    delivered = layer.deliver_result("transfer_money", PAY, blocked.text, call_id="c2", run=run)
    assert delivered.verdict == blocked.verdict
    again = guard_call(layer, "transfer_money", dict(PAY), "c3", run=run)
    assert again is not None and again.text == RESEND
    # another run never sees it
    assert guard_call(layer, "transfer_money", dict(PAY), "c2", run=object()) is None
    # a different call lifts it
    layer.deliver_result("get_balance", {}, "100", call_id="c4", run=run)
    assert guard_call(layer, "transfer_money", dict(PAY), "c5", run=run) is None


def test_policy_rejects_a_guard_that_is_not_a_bool() -> None:
    with pytest.raises(ValueError, match="idempotency_guard"):
        Policy(idempotency_guard="yes")  # type: ignore[arg-type]


def test_guard_call_on_a_snapshot_replays_only_when_the_latest_result_is_of_unknown_outcome() -> None:
    """Loop action note: only the guard can answer, so a snapshot's ledger is built only when
    the conversation's latest result is a failure of unknown outcome of the tool."""
    from toolerr.adapters import RunSnapshot

    layer = ToolErrorLayer()
    snapshot = RunSnapshot(layer, _timed_out(), run=object())
    blocked = guard_call(layer, "transfer_money", dict(PAY), "c2", ledger=snapshot.ledger, run=snapshot.run)
    assert blocked is not None and blocked.text == RESEND
    for messages in (
        _timed_out(_exchange("c2", "get_balance", {"account": "bob"}, None)),
        [Message("user", "pay"), *_exchange("c1", "transfer_money", PAY, PermissionError(13, "denied"))],
    ):
        snapshot = RunSnapshot(layer, messages, run=object())
        assert guard_call(layer, "transfer_money", dict(PAY), "c3", ledger=snapshot.ledger) is None
        assert snapshot._ledger is None  # not replayed
