"""The layer every adapter drives: detection records, the policy, the ledger, fail-open.

An adapter converts its framework's messages to the neutral conversation and calls
:meth:`ToolErrorLayer.rewrite` before each model call, :meth:`ToolErrorLayer.check_call`
before executing a tool call (loop action ``block``/``stop``), and
:meth:`ToolErrorLayer.remember` when it holds the exception object of a failed call.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ._classify import inspect_message, inspect_result
from ._forms import Delivery, ExchangeResult, apply_form, find_decision_step, pair_results
from ._ledger import FailureLedger, LoopDecision, RepeatReport, decide_loop
from ._policy import Policy
from ._render import guidance_for, render_abstract, render_loop_note, render_note
from ._types import Form, Kind, Message, ToolCall, Verdict, content_text

logger = logging.getLogger("toolerr")

_CACHE_SIZE = 4096
# Calls at the end of a conversation that are always replayed (cycles are looked for there).
_REPLAY_TAIL = 16
# Replay checkpoints kept per layer (one per conversation that grows; concurrent runs).
_CHECKPOINTS = 8


_Replayed = tuple[int, "weakref.ref[Message]", "weakref.ref[ToolCall]", Verdict]
"""(message index, tool result, call, verdict) of one replayed call; the messages are
referred to weakly, so that a checkpoint keeps no conversation alive."""


@dataclass
class _Checkpoint:
    """The replay state after the first ``len(pairs)`` calls of a conversation: reused by
    the next replay of a conversation that starts with the same objects (it only grew)."""

    pairs: list[_Replayed]
    """Each replayed call, in order."""
    ledger: FailureLedger
    """Never recorded into: a replay continues from a copy."""
    reports: dict[int, RepeatReport]
    failed_tools: frozenset[str]

    def matches(self, pairs: Sequence[tuple[ExchangeResult, Verdict]], retry_budget: int) -> bool:
        if len(self.pairs) > len(pairs) or self.ledger.retry_budget != retry_budget:
            return False
        for (index, message, call, verdict), (result, now) in zip(self.pairs, pairs, strict=False):
            if (
                result.index != index
                or result.message is not message()
                or result.call is not call()
                or (now is not verdict and now != verdict)
            ):
                return False
        return True


class ToolLoopError(RuntimeError):
    """Raised with loop action ``stop`` when the agent repeats a failing call or cycle."""

    def __init__(self, decision: LoopDecision) -> None:
        super().__init__(f"toolerr stopped the run: {decision.reason}")
        self.decision = decision


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

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Rewrite:
    """The result of :meth:`ToolErrorLayer.rewrite` for one model call."""

    messages: list[Message]
    changed: bool
    records: tuple[DetectionRecord, ...] = ()
    error: str | None = None
    """Set when toolerr failed internally and let the conversation pass unchanged."""
    ledger: FailureLedger | None = field(default=None, repr=False, compare=False)


class ToolErrorLayer:
    """Detection, classification and delivery of failed tool results for one agent.

    Stateless across runs by design: the failed-call ledger is rebuilt from the
    conversation on every model call (so concurrent runs, retries and checkpointed
    threads are all correct); a small cache keeps verdicts that adapters learned from
    exception objects, keyed by tool call id, and a few replay checkpoints let a
    conversation that only grew (the same message objects first) be replayed from where
    the previous model call left off, with the same result as a replay from the start.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        on_record: Callable[[DetectionRecord], None] | None = None,
        **options: Any,
    ) -> None:
        self.policy = Policy.coerce(policy, **options)
        self.on_record = on_record
        self._verdicts: OrderedDict[str, tuple[tuple[int, int] | None, Verdict]] = OrderedDict()
        self._checkpoints: list[_Checkpoint] = []
        self._lock = threading.Lock()

    # -- verdicts ---------------------------------------------------------------

    def remember(self, call_id: str | None, verdict: Verdict, content: Any = None) -> None:
        """Keep the verdict an adapter derived for a call (from its exception object), so
        the next model call classifies the result with the strongest evidence.

        Give the result's ``content`` when you have it: the verdict is then only used for
        a result with that content, so a call id reused by another conversation (some
        local servers number calls ``call_0``, ``call_1`` ...) never inherits it.
        """
        if call_id is None:
            return
        with self._lock:
            self._verdicts[call_id] = (_fingerprint(content) if content is not None else None, verdict)
            self._verdicts.move_to_end(call_id)
            while len(self._verdicts) > _CACHE_SIZE:
                self._verdicts.popitem(last=False)

    def recall(self, call_id: str | None, content: Any = None) -> Verdict | None:
        """The remembered verdict for a call id (and, when it was remembered with one,
        only for the same content)."""
        if call_id is None:
            return None
        with self._lock:
            entry = self._verdicts.get(call_id)
        if entry is None:
            return None
        fingerprint, verdict = entry
        if fingerprint is not None and content is not None and fingerprint != _fingerprint(content):
            return None
        return verdict

    def inspect(self, message: Message) -> Verdict:
        """The verdict for one tool message: a remembered one for its call id, else
        detection and classification of the message itself."""
        remembered = self.recall(message.tool_call_id, message.content)
        if remembered is not None:
            return remembered
        return inspect_message(message)

    def inspect_exception(
        self, exception: BaseException, *, text: str | None = None, tool: str | None = None
    ) -> Verdict:
        """Classify an exception a tool raised (adapters that catch it call this)."""
        content = text if text is not None else exception_text(exception)
        return inspect_result(
            content, is_error=True, exception=exception, client=self.policy.client, tool=tool
        )

    # -- ledger -----------------------------------------------------------------

    def replay(self, messages: Sequence[Message]) -> tuple[FailureLedger, dict[int, RepeatReport]]:
        """A failed-call ledger rebuilt from the conversation; also the repeat report of
        each recorded tool result (by message index).

        Every failure is recorded, and so is every call of a tool that has failed before
        (a success clears its entries) and every call near the end, where cycles are
        looked for. Successes of other tools long before the decision step cannot change
        any report at the decision step, so they are skipped: the replay stays linear and
        cheap on long conversations.

        A conversation that only grew since an earlier replay (the same message and call
        objects first, as adapters that cache their conversions give) continues from that
        replay's checkpoint instead of starting over: the same ledger and reports as a
        replay from the start, for the cost of the new calls. A call's ``arguments`` must
        not be changed in place once replayed.
        """
        budget = self.policy.retry_budget
        pairs = [
            (result, self.inspect(result.message))
            for index, message in enumerate(messages)
            if message.role == "assistant" and message.tool_calls
            for result in pair_results(messages, index)
            if result.call is not None
        ]
        tail = max(len(pairs) - _REPLAY_TAIL, 0)
        checkpoint = self._checkpoint(pairs, tail, budget)
        if checkpoint is None:
            start = 0
            ledger = FailureLedger(retry_budget=budget)
            failed_tools: set[str] = set()
            reports: dict[int, RepeatReport] = {}
        else:
            start = len(checkpoint.pairs)
            ledger = checkpoint.ledger.copy()
            failed_tools = set(checkpoint.failed_tools)
            reports = dict(checkpoint.reports)
        for position in range(start, len(pairs)):
            if position == tail and tail > start:
                # Every call before the tail is replayed as any longer conversation would.
                self._keep(pairs[:tail], ledger, reports, failed_tools)
            result, verdict = pairs[position]
            call = result.call
            assert call is not None
            if verdict.failed:
                failed_tools.add(call.name)
            elif position < tail and call.name not in failed_tools:
                continue
            reports[result.index] = ledger.record(
                call.name, call.arguments, verdict, raw=call.raw_arguments, call_id=call.id
            )
        return ledger, reports

    def _checkpoint(
        self, pairs: Sequence[tuple[ExchangeResult, Verdict]], tail: int, budget: int
    ) -> _Checkpoint | None:
        """The longest kept checkpoint this conversation starts with (within its tail)."""
        with self._lock:
            candidates = sorted(
                (c for c in self._checkpoints if len(c.pairs) <= tail),
                key=lambda c: len(c.pairs),
                reverse=True,
            )
        for candidate in candidates:
            if candidate.matches(pairs, budget):
                return candidate
        return None

    def _keep(
        self,
        pairs: Sequence[tuple[ExchangeResult, Verdict]],
        ledger: FailureLedger,
        reports: dict[int, RepeatReport],
        failed_tools: set[str],
    ) -> None:
        try:
            replayed = [
                (r.index, weakref.ref(r.message), weakref.ref(r.call), v)
                for r, v in pairs
                if r.call is not None
            ]
        except TypeError:  # messages that cannot be referred to weakly: no checkpoint
            return
        kept = _Checkpoint(replayed, ledger.copy(), dict(reports), frozenset(failed_tools))
        with self._lock:
            # A checkpoint that the new one extends is no longer needed.
            self._checkpoints = [
                c
                for c in self._checkpoints
                if not (len(c.pairs) <= len(kept.pairs) and _prefix(c.pairs, kept.pairs))
            ]
            self._checkpoints.append(kept)
            del self._checkpoints[:-_CHECKPOINTS]

    def check_call(
        self,
        name: str,
        arguments: Any,
        *,
        raw: str | None = None,
        messages: Sequence[Message] | None = None,
        ledger: FailureLedger | None = None,
    ) -> LoopDecision:
        """Before executing a call: is it a loop, and what does the policy do about it?

        Give the conversation so far (``messages``) or a ledger the adapter keeps. Raises
        :class:`ToolLoopError` when the policy's loop action is ``stop``. Fails open to
        ``allow`` on an internal error.
        """
        try:
            if ledger is None:
                ledger = self.replay(messages or ())[0]
            decision = decide_loop(
                ledger.check(name, arguments, raw=raw), loop_action=self.policy.loop_action
            )
        except Exception:
            logger.exception("toolerr: check_call failed; the call runs unchanged")
            return LoopDecision(action="allow", reason="", report=_EMPTY_REPORT)
        if decision.action == "stop":
            logger.warning("toolerr: stopping the run: %s", decision.reason)
            raise ToolLoopError(decision)
        if decision.action == "block":
            logger.info("toolerr: blocked a repeat of a failed call to %s", name)
        return decision

    def blocked_result(self, call_id: str | None, decision: LoopDecision) -> str:
        """The runtime result for a call that ``block`` kept from running; its verdict is
        remembered so the next model call treats it as the failure it repeats."""
        previous = decision.report.previous
        kind: Kind = previous.kind if previous is not None else "fixable"
        text = f"Error: this call was not executed. {decision.reason}"
        self.remember(
            call_id,
            Verdict(
                failed=True,
                kind=kind,
                rule="ledger:blocked-repeat",
                detection="toolerr:blocked",
                family=previous.family if previous is not None else None,
            ),
            content=text,
        )
        return text

    # -- delivery ---------------------------------------------------------------

    def _delivery(
        self, result: ExchangeResult, verdict: Verdict, ledger: FailureLedger, report: RepeatReport | None
    ) -> Delivery:
        policy = self.policy
        if not verdict.failed:
            return Delivery(result, verdict, None, None, None, None)
        kind = verdict.kind
        if result.call is not None and verdict.kind is not None:
            kind = ledger.effective_kind(result.call.name, result.call.arguments, verdict)
        guidance = guidance_for(kind, verdict, retry_safe=policy.retry_safe(result.name, verdict))
        loop = decide_loop(report, loop_action=policy.loop_action) if report is not None else None
        if loop is not None and loop.action == "stop":
            raise ToolLoopError(loop)
        if loop is not None and loop.action in ("note", "block"):
            text = render_loop_note(loop.reason, guidance)
            return Delivery(result, verdict, kind, guidance, text, text)
        if guidance is None:
            return Delivery(result, verdict, kind, None, None, None)
        error = content_text(result.message.content)
        if policy.form == "abstract":
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
        return Delivery(result, verdict, kind, guidance, note, guidance)

    def rewrite(self, messages: Sequence[Message]) -> Rewrite:
        """Apply the policy's form to the messages of one model call.

        The input is never modified; the result's ``messages`` is a new list whose
        unchanged messages are the same objects. Fails open: on an internal error the
        messages pass unchanged and the error is logged. :class:`ToolLoopError` (loop
        action ``stop``) is the one exception that leaves.
        """
        candidate: Any = messages
        if isinstance(candidate, (str, bytes)) or not isinstance(candidate, Sequence):
            raise TypeError(f"messages must be a sequence of toolerr.Message, got {type(messages).__name__}")
        for message in messages:
            if not isinstance(message, Message):
                raise TypeError(f"messages must hold toolerr.Message objects, got {type(message).__name__}")
        try:
            return self._rewrite(messages)
        except ToolLoopError:
            raise
        except Exception as exc:
            logger.exception("toolerr: rewrite failed; the conversation passes unchanged")
            return Rewrite(list(messages), False, (), error=f"{type(exc).__name__}: {exc}")

    def _rewrite(self, messages: Sequence[Message]) -> Rewrite:
        step = find_decision_step(messages)
        if step is None:
            return Rewrite(list(messages), False)
        failed = [
            (result, verdict) for result in step.results if (verdict := self.inspect(result.message)).failed
        ]
        if not failed:
            return Rewrite(list(messages), False)
        ledger, reports = self.replay(messages)
        deliveries = [
            self._delivery(result, verdict, ledger, reports.get(result.index)) for result, verdict in failed
        ]
        form = self.policy.form
        out, changed = apply_form(messages, step, deliveries, form)
        records = tuple(
            self._record(d, form, d.result.index in changed, reports.get(d.result.index)) for d in deliveries
        )
        return Rewrite(out, bool(changed), records, ledger=ledger)

    def _record(
        self, delivery: Delivery, form: Form, changed: bool, report: RepeatReport | None
    ) -> DetectionRecord:
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
        )
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
        if self.on_record is not None:
            try:
                self.on_record(record)
            except Exception:
                logger.exception("toolerr: on_record callback raised; ignored")
        return record


_EMPTY_REPORT = RepeatReport(
    exact=False,
    canonical=False,
    same_family=False,
    cycle=None,
    previous=None,
    retry_allowed=False,
    budget_exhausted=False,
)


def _prefix(short: Sequence[_Replayed], long: Sequence[_Replayed]) -> bool:
    return all(a[1]() is b[1]() is not None for a, b in zip(short, long, strict=False))


def _fingerprint(content: Any) -> tuple[int, int]:
    text = content_text(content)
    return len(text), hash(text[:4096])


def exception_text(exception: BaseException) -> str:
    """``Type: message`` of an exception (just ``Type`` when the message is empty or its
    ``__str__`` raises): the text adapters show for a tool that raised."""
    try:
        message = str(exception)
    except Exception:  # noqa: BLE001 - a broken __str__
        message = ""
    name = type(exception).__name__
    return f"{name}: {message}" if message else name


def rewrite(messages: Sequence[Message], form: Form | str = "c3", **options: Any) -> list[Message]:
    """Rewrite a message list with a one-off layer: the plain-function entry point."""
    return ToolErrorLayer(form=form, **options).rewrite(messages).messages


def records_of(messages: Sequence[Message], **options: Any) -> tuple[DetectionRecord, ...]:
    """Detection records for a conversation without rewriting it (form C0)."""
    return ToolErrorLayer(form="c0", **options).rewrite(messages).records


def iter_failures(messages: Iterable[Message]) -> Iterable[tuple[int, Verdict]]:
    """Every tool message of a conversation that is a failure, with its verdict."""
    for index, message in enumerate(messages):
        if message.role == "tool":
            verdict = inspect_message(message)
            if verdict.failed:
                yield index, verdict
