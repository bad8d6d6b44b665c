"""Delivery: what a failed tool result tells the model under a policy (the effective kind,
the guidance, the runtime note, the abstract description or the loop note)."""

from __future__ import annotations

from ._detail import note_error
from ._forms import Delivery, ExchangeResult
from ._ledger import FailureLedger, RepeatReport
from ._loop import ToolLoopError, decide_loop
from ._policy import Policy
from ._render import guidance_for, render_abstract, render_loop_note, render_note
from ._types import Verdict, result_text


def delivery_for(
    policy: Policy,
    result: ExchangeResult,
    verdict: Verdict,
    ledger: FailureLedger,
    report: RepeatReport | None,
) -> Delivery:
    """What the failure of ``result`` delivers under ``policy``: its effective kind (after
    the retry budget of ``ledger``), its form, guidance and note (the runtime note, the
    abstract description or, for a repeat or cycle, the loop note). Raises
    :class:`ToolLoopError` when the loop action is ``stop`` and ``report`` is a loop."""
    if not verdict.failed:
        return Delivery(result, verdict, None, None, None, None)
    kind = verdict.kind
    if result.call is not None and verdict.kind is not None:
        kind = ledger.effective_kind(result.call.name, result.call.arguments, verdict)
    form = policy.form_for(kind)
    guidance = guidance_for(kind, verdict, retry_safe=policy.retry_safe(result.name, verdict))
    loop = decide_loop(report, loop_action=policy.loop_action) if report is not None else None
    if loop is not None and loop.action == "stop":
        raise ToolLoopError(loop)
    if loop is not None and loop.action in ("note", "block"):
        text = render_loop_note(loop.reason, guidance)
        return Delivery(result, verdict, kind, guidance, text, text, form)
    if guidance is None:
        return Delivery(result, verdict, kind, None, None, None, form)
    error = result_text(result.message.content)
    if policy.error_detail != "full":  # the type and safe fields, or nothing (``_detail``)
        error = note_error(policy.error_detail, error, verdict, result.message.exception)
        if policy.error_detail == "none" and form == "abstract":
            error = ""  # the abstract form then gives no diagnosis
    if form == "abstract":
        note = render_abstract(
            result.name,
            result.arguments,
            kind or "ambiguous",
            error,
            guidance,
            raw=result.raw_arguments,
            max_chars=policy.max_error_chars,
        )
    else:
        note = render_note(
            result.name,
            result.arguments,
            error,
            guidance,
            raw=result.raw_arguments,
            max_chars=policy.max_error_chars,
        )
    return Delivery(result, verdict, kind, guidance, note, guidance, form)
