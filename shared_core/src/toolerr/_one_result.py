"""One tool result delivered on its own (``ToolErrorLayer.deliver_result``), for a placement
that can change only that result: detected and classified, recorded in the run's ledger
(successes too), and for a failure its effective kind, guidance, loop decision, C1 content,
C3 note and detection record.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ._forms import ExchangeResult
from ._ledger import FailureLedger
from ._loop import decide_loop
from ._records import ResultDelivery, detection_record, emit_record
from ._runs import content_fingerprint
from ._types import ToolCall, Verdict, parse_arguments, result_text

if TYPE_CHECKING:
    from ._layer import ToolErrorLayer

__all__ = ["deliver_one"]


def deliver_one(
    layer: ToolErrorLayer,
    name: str,
    arguments: Any,
    content: Any,
    exception: BaseException | None,
    is_error: bool | None,
    call_id: str | None,
    raw: str | None,
    run: object | None,
    given: FailureLedger | None,
    emit: bool,
    known: Verdict | None,
) -> ResultDelivery:
    """:meth:`ToolErrorLayer.deliver_result <toolerr.ToolErrorLayer.deliver_result>` without
    its fail-open: ``raw`` is the argument text, ``given`` a ledger the adapter keeps, ``emit``
    whether the record is emitted, ``known`` a verdict the adapter already holds."""
    policy = layer.policy
    if arguments is None and raw is not None:
        arguments = parse_arguments(raw)
    message = layer._result_message(name, content, exception, is_error, call_id)
    verdict = known if known is not None else layer.inspect(message, run=run, arguments=arguments)
    state = layer._runs.get(run)
    assert state is not None
    with state.lock:
        if not verdict.failed:
            if given is not None:
                given.record(name, arguments, verdict, raw=raw, call_id=call_id)
            elif state.ledger is None or not state.ledger.failures:
                state.pending.append((name, arguments, raw, call_id))
            else:
                state.run_ledger(policy.retry_budget).record(
                    name, arguments, verdict, raw=raw, call_id=call_id
                )
            return ResultDelivery(verdict, content, False)
        if call_id is not None:
            state.remember(call_id, content_fingerprint(content), verdict)
        ledger = given if given is not None else state.run_ledger(policy.retry_budget)
        report = ledger.record(
            name, arguments, verdict, raw=raw, call_id=call_id, diagnosis=result_text(message.content)
        )
        result = ExchangeResult(0, message, ToolCall(call_id, name, arguments, raw), 0)
        delivery = layer._delivery(result, verdict, ledger, report)
    loop = decide_loop(report, loop_action=policy.loop_action) if report.is_loop else None
    out = ResultDelivery(
        verdict,
        content,
        False,
        kind=delivery.kind,
        guidance=delivery.guidance,
        suffix=delivery.suffix,
        note=delivery.note,
        loop=loop,
        report=report,
    )
    form = policy.form_for(delivery.kind)
    delivered = out.c1_content if form == "c1" else content
    changed = delivered is not content
    if changed and call_id is not None:  # the delivered result is the same failure
        state.remember(call_id, content_fingerprint(delivered), verdict)
    if emit:
        record = emit_record(delivery, form, changed, report, layer.on_record)
    else:
        record = detection_record(delivery, form, changed, report)
    return dataclasses.replace(out, content=delivered, changed=changed, record=record)
