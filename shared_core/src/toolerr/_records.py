"""What the layer gives back: detection records, one result's delivery, a rewrite."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from ._forms import Delivery, append_text
from ._ledger import FailureLedger, RepeatReport
from ._loop import LoopDecision
from ._types import Form, Kind, Message, Verdict, content_text

logger = logging.getLogger("toolerr")


@dataclass(frozen=True)
class DetectionRecord:
    """One detected failure (the contract's "Visibility and safety"). Emitted for every failure at the
    decision step, whether or not the conversation was changed."""

    position: int
    tool: str
    call_id: str | None
    failed: bool
    kind: Kind | None
    rule: str | None
    detection: str | None
    outcome: str | None
    form: Form
    changed: bool
    guidance: str | None = None
    loop: str | None = None
    repeat: str | None = None
    """``exact``, ``canonical``, ``family`` or ``None``: how this failure repeats an earlier one."""
    note: str | None = None
    """The note rendered for this failure (runtime note, abstract description or loop note),
    whatever the form: a client that cannot apply the form itself (an MCP server result)
    can hand it on."""
    verdict: Verdict | None = field(default=None, compare=False, repr=False)
    """The verdict detection gave (``kind`` above is the kind after the retry budget)."""
    hidden_retries: int = 0
    """Attempts of this call re-run hidden (``auto_retry``) before the failure the model
    sees; in :meth:`to_dict` only when not 0."""

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-able dict: :meth:`Verdict.to_dict`'s keys (``kind`` the
        effective kind) followed by the record's own fields. The one serialised shape of a
        failure (MCP's ``_meta["toolerr"]``, JSON logs); :meth:`from_dict` reads it back."""
        verdict = self.verdict or Verdict(
            failed=self.failed, kind=self.kind, rule=self.rule, detection=self.detection
        )
        data = verdict.to_dict()
        for item in fields(self):
            if item.name != "verdict" and (item.name != "hidden_retries" or self.hidden_retries):
                data[item.name] = getattr(self, item.name)
        return data

    @classmethod
    def from_dict(cls, data: Any) -> DetectionRecord:
        """The record :meth:`to_dict` wrote. Raises :class:`ValueError` when it is not one."""
        verdict = Verdict.from_dict(data)
        tool, form = data.get("tool"), data.get("form")
        if not isinstance(tool, str) or form not in ("c0", "c1", "c2", "c3", "c4", "abstract"):
            raise ValueError("not a toolerr detection record: 'tool' and 'form' are required")
        position = data.get("position")

        def text(name: str) -> str | None:
            value = data.get(name)
            return value if isinstance(value, str) else None

        return cls(
            position=position if isinstance(position, int) and not isinstance(position, bool) else 0,
            tool=tool,
            call_id=text("call_id"),
            failed=verdict.failed,
            kind=verdict.kind,
            rule=verdict.rule,
            detection=verdict.detection,
            outcome=text("outcome"),
            form=form,
            changed=data.get("changed") is True,
            guidance=text("guidance"),
            loop=text("loop"),
            repeat=text("repeat"),
            note=text("note"),
            verdict=verdict,
            hidden_retries=hidden if isinstance(hidden := data.get("hidden_retries"), int) else 0,
        )


@dataclass(frozen=True)
class ResultDelivery:
    """What :meth:`ToolErrorLayer.deliver_result` gives for one tool result: all a placement
    that can change only that result needs, derived by the core.

    For a success: ``verdict.failed`` is false, ``content`` is the input content and every
    other field is ``None``.
    """

    verdict: Verdict
    content: Any
    """The content to deliver: in form ``c1``, the input content with :attr:`suffix`
    appended as form C1 renders it (a line break and the text for a string, a text block for
    a list of blocks); in every other form (or when nothing is appended) the input content."""
    changed: bool
    """Whether :attr:`content` differs from the input content."""
    kind: Kind | None = None
    """The effective kind (a transient failure past its retry budget is ``unrecoverable``)."""
    guidance: str | None = None
    suffix: str | None = None
    """What form C1 appends: the guidance, or the loop note for a repeat or cycle."""
    note: str | None = None
    """The note form C3 would put in a user turn (runtime note, abstract description or
    loop note), for clients that place it themselves."""
    loop: LoopDecision | None = None
    """The loop decision when this call repeats a failed call or closes a cycle."""
    report: RepeatReport | None = None
    record: DetectionRecord | None = None
    """The detection record of this failure (also given to ``on_record``)."""
    error: str | None = None
    """Set when toolerr failed internally and let the result pass unchanged."""

    @property
    def failed(self) -> bool:
        return self.verdict.failed

    @property
    def repeats(self) -> bool:
        """Whether this failed call repeats an earlier failed call of the run (exactly,
        canonically or by family) or closes a cycle."""
        report = self.report
        return report is not None and (report.previous is not None or report.cycle is not None)

    @property
    def c1_content(self) -> Any:
        """The content form C1 gives, whatever the policy's form (the input when nothing is appended)."""
        if self.suffix is None or content_text(self.content).endswith(self.suffix):
            return self.content
        appended = append_text(self.content, self.suffix, "\n")
        return self.content if appended is None else appended

    @property
    def text(self) -> str:
        """:attr:`content` as text."""
        return content_text(self.content)

    def to_dict(self) -> dict[str, Any]:
        """The serialised shape of this delivery: the record's dict (the verdict's for a success)."""
        return self.record.to_dict() if self.record is not None else self.verdict.to_dict()


@dataclass(frozen=True)
class Rewrite:
    """The result of :meth:`ToolErrorLayer.rewrite` for one model call."""

    messages: list[Message]
    changed: bool
    records: tuple[DetectionRecord, ...] = ()
    error: str | None = None
    """Set when toolerr failed internally and let the conversation pass unchanged."""
    ledger: FailureLedger | None = field(default=None, repr=False, compare=False)


def detection_record(
    delivery: Delivery, form: Form, changed: bool, report: RepeatReport | None
) -> DetectionRecord:
    """The detection record of one failure's delivery in form ``form`` (``changed``: applied)."""
    verdict = delivery.verdict
    repeat = None
    if report is not None:
        repeat = (
            "exact"
            if report.exact
            else "canonical"
            if report.canonical
            else "family"
            if report.same_family
            else None
        )
    loop = None
    if report is not None and report.is_loop:
        loop = "cycle" if report.cycle else "repeat"
    record = DetectionRecord(
        position=delivery.result.index,
        tool=delivery.result.name,
        call_id=delivery.result.message.tool_call_id,
        failed=verdict.failed,
        kind=delivery.kind,
        rule=verdict.rule,
        detection=verdict.detection,
        outcome=verdict.outcome,
        form=form,
        changed=changed,
        guidance=delivery.guidance,
        loop=loop,
        repeat=repeat,
        note=delivery.note,
        verdict=verdict,
        hidden_retries=verdict.hidden_retries,
    )
    return record


def emit_record(
    delivery: Delivery,
    form: Form,
    changed: bool,
    report: RepeatReport | None,
    on_record: Callable[[DetectionRecord], None] | None,
) -> DetectionRecord:
    """The detection record of a delivery, logged on logger ``toolerr`` and given to
    ``on_record`` (a callback that raises is logged and ignored)."""
    record = detection_record(delivery, form, changed, report)
    logger.info(
        "toolerr: %s failed (%s, rule %s, detected by %s) at message %d; form %s %s",
        record.tool,
        record.kind,
        record.rule,
        record.detection,
        record.position,
        form,
        "applied" if changed else "not applied",
    )
    if on_record is not None:
        try:
            on_record(record)
        except Exception:
            logger.warning("toolerr: on_record callback raised; ignored", exc_info=True)
    return record


def emit_records(
    deliveries: Sequence[Delivery],
    form_for: Callable[[Kind | None], Form],
    changed: set[int],
    reports: Mapping[int, RepeatReport],
    on_record: Callable[[DetectionRecord], None] | None,
) -> tuple[DetectionRecord, ...]:
    """The records of a rewrite's deliveries, each emitted (:func:`emit_record`): in the
    delivery's own form, else the policy's for its kind (``form_for``); applied when its
    result is among the messages the rewrite ``changed``."""
    return tuple(
        emit_record(
            d,
            d.form or form_for(d.kind),
            d.result.index in changed,
            reports.get(d.result.index),
            on_record,
        )
        for d in deliveries
    )
