"""The layer every adapter drives: ``ToolErrorLayer``, the facade over detection,
classification, delivery, the ledger and run scopes (``docs/ARCHITECTURE.md``).

Runs are isolated: every verdict remembered and every ledger and replay checkpoint kept
belongs to a *run scope* (``run=``), the framework's per-run object or a key. Nothing
remembered in one scope is seen from another, whatever the call ids.
"""

from __future__ import annotations

import dataclasses
import logging
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ._classify import inspect_message, inspect_result
from ._delivery import delivery_for
from ._detail import shown_results
from ._exceptions import exception_text
from ._forms import (
    Delivery,
    ExchangeResult,
    apply_form,
    find_decision_step,
)
from ._gate import decide_call
from ._kit_retry import hidden_retries_of
from ._ledger import FailureLedger, RepeatReport
from ._loop import LoopDecision, ToolLoopError, blocked_verdict
from ._loop_notes import note_text, with_loop_note, with_note
from ._one_result import deliver_one
from ._policy import FormSpec, Policy, PolicyOptions
from ._progress import Assessment, Progress, call_on_loop
from ._quarantine import Quarantine, resolve_store
from ._records import DetectionRecord, ResultDelivery, Rewrite, emit_records
from ._replay import Checkpoint, Resume, replay_in_scope
from ._runs import RunScopes, content_fingerprint
from ._shared_state import SharedCheckpoints
from ._types import NOT_FAILED, Message, Verdict

if TYPE_CHECKING:
    from ._wire_resume import ResumeStore

    if sys.version_info >= (3, 11):
        from typing import Unpack
    else:
        from typing_extensions import Unpack

logger = logging.getLogger("toolerr")


class ToolErrorLayer:
    """Detection, classification and delivery of failed tool results for one agent.

    The failed-call ledger of a model call is rebuilt from its conversation (so
    concurrent runs, retries and checkpointed threads are all correct), and a few replay
    checkpoints per run scope let a conversation that only grew (the same message objects
    first) be replayed from where the previous model call left off, with the same result as
    a replay from the start. What the layer keeps between calls (verdicts adapters learned from
    exception objects; the ledger of :meth:`deliver_result`) belongs to a run scope, given
    as ``run=``: the framework's per-run object (held weakly, its state goes with it) or a
    key (a thread id; the latest 1,024 are kept). ``run=None`` is one shared scope, for
    callers that hold one layer per run.

    Args:
        policy: A ready :class:`Policy`; ``options`` override its fields.
        on_record: Called with every :class:`DetectionRecord` (they are also logged on
            logger ``toolerr``).
        client: The client whose templates produced the tool results (``generic``,
            ``langchain``, ``codex`` ...).
        **options: :class:`Policy` fields: ``form``, ``retry_budget``, ``loop_action``,
            ``tool_safety``, ``max_error_chars``, ``profile``, ``quarantine_chars``,
            ``quarantine_lines``, ``result_store``, ``quarantine_successes``.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        on_record: Callable[[DetectionRecord], None] | None = None,
        client: str | None = None,
        **options: Unpack[PolicyOptions],
    ) -> None:
        self.policy = Policy.coerce(policy, client=client, **options)
        self.on_record = on_record
        self._runs = RunScopes()
        self._quarantine_of = Quarantine(
            resolve_store(self.policy.result_store),
            lines=self.policy.quarantine_lines,
            limit=self.policy.quarantine_chars or 0,
        )
        self.quarantined_any = False
        """Whether a rewrite of this layer quarantined a result (see :meth:`may_quarantine`)."""
        policy = self.policy
        self._progress = (
            Progress(policy) if policy.progress is not None or policy.same_result_repeats else None
        )
        self.shared_checkpoints: SharedCheckpoints | None = None
        """Where the shared run scope (``run=None``) also keeps its replay checkpoints for
        other processes (a gateway run as several; see :class:`toolerr.adapters.SharedCheckpoints`)."""
        self._shared_tag: str | None = None
        self._resume_store: ResumeStore | None = None
        """The wire path's compact checkpoints by content (:mod:`toolerr._wire_resume`)."""

    @property
    def watches_progress(self) -> bool:
        """Whether every model call's conversation must reach :meth:`rewrite`, not only one
        whose decision step failed (progress probes, same-result repeats)."""
        return self._progress is not None

    def wants_whole(self, tail: Sequence[Message], length: int, *, run: object | None = None) -> bool:
        """For an adapter that converts only a model call's tail when its decision step did
        not fail: whether progress (probes, same-result repeats) needs the whole conversation
        at :meth:`rewrite` all the same. ``length``: the framework's list length."""
        if self._progress is None:
            return False
        return self._progress.wants_whole(tail, length, lambda message: self.inspect(message, run=run))

    def _assess(self, messages: Sequence[Message], run: object | None, probe: bool) -> Assessment | None:
        if self._progress is None:
            return None
        prints = self._runs.progress_prints(run, self._progress.prints)
        return self._progress.assess(
            messages, lambda message: self.inspect(message, run=run), probe=probe, prints=prints
        )

    # -- verdicts ---------------------------------------------------------------

    def remember(
        self, call_id: str | None, verdict: Verdict, content: Any = None, *, run: object | None = None
    ) -> None:
        """Keep the verdict an adapter derived for a call (from its exception object), so
        the next model call of the same run classifies the result with the strongest
        evidence.

        ``run``: the run scope (the framework's per-run object or key); a verdict is only
        recalled in the scope it was remembered in. Give the result's ``content`` when you
        have it: the verdict is then only used for a result with that content, so a call id
        reused in the run (some models number calls ``call_0``, ``call_1`` ... per turn)
        never inherits it; a verdict for the same id and other content is kept beside it.

        Args:
            call_id: The call the result answers (``None``: nothing is kept).
            verdict: The verdict, e.g. ``failure_of(layer, exc).verdict``.
            content: The result's content the model will be shown.
            run: The run scope.
        """
        if call_id is None:
            return
        state = self._runs.get(run)
        assert state is not None
        state.remember(call_id, content_fingerprint(content) if content is not None else None, verdict)

    def recall(
        self, call_id: str | None, content: Any = None, *, run: object | None = None
    ) -> Verdict | None:
        """The verdict remembered in run scope ``run`` for a call id and this ``content``
        (or remembered without content); without ``content``, the latest for the id."""
        if call_id is None:
            return None
        state = self._runs.get(run, create=False)
        return state.recall(call_id, content) if state is not None else None

    def forget_run(self, run: object | None) -> None:
        """Drop what was kept for a run scope (a run given by object is dropped with it)."""
        self._runs.forget(run)

    def inspect(
        self, message: Message, *, run: object | None = None, arguments: Any = None, parameters: Any = None
    ) -> Verdict:
        """The verdict for one tool message: one remembered in the run scope for its call id
        and content, else detection and classification of the message itself (a
        ``verdict`` the message carries wins). ``arguments``: its call's, when known;
        ``parameters``: its tool's declared JSON schema, when known (see
        :func:`~toolerr.inspect_result`)."""
        if message.verdict is not None:
            return message.verdict
        remembered = self.recall(message.tool_call_id, message.content, run=run)
        if remembered is not None:
            return remembered
        return inspect_message(message, arguments, parameters)

    def inspect_tool_result(
        self,
        name: str,
        content: Any,
        *,
        exception: BaseException | None = None,
        is_error: bool | None = None,
        call_id: str | None = None,
        run: object | None = None,
        arguments: Any = None,
        parameters: Any = None,
    ) -> Verdict:
        """The verdict for one tool result given by its parts (see :meth:`inspect`)."""
        message = self._result_message(name, content, exception, is_error, call_id)
        return self.inspect(message, run=run, arguments=arguments, parameters=parameters)

    def _result_message(
        self,
        name: str,
        content: Any,
        exception: BaseException | None,
        is_error: bool | None,
        call_id: str | None,
    ) -> Message:
        return Message(
            role="tool",
            content=content,
            tool_call_id=call_id,
            name=name,
            is_error=is_error,
            exception=exception,
            client=self.policy.client,
        )

    def inspect_exception(
        self,
        exception: BaseException,
        *,
        text: str | None = None,
        tool: str | None = None,
        arguments: Any = None,
        parameters: Any = None,
    ) -> Verdict:
        """Classify an exception a tool raised (adapters that catch it call this).

        Args:
            exception: The exception object (its class, attributes and chain are read).
            text: The text it is shown as (default: :func:`exception_text`).
            tool: The tool's name.
            arguments: The arguments of the call that raised it, when known: a rejected
                value the model did not write (it gave only a path, a URL, an id) came from
                the data the tool read (ambiguous, not fixable).
            parameters: The tool's declared JSON schema of its parameters, when known: an
                argument it describes as a reference to stored data ("Name of a saved
                query", a ``uuid``) counts as where to read, not as a value the model wrote.

        Returns:
            The verdict (``failed`` is always true).
        """
        content = text if text is not None else exception_text(exception)
        verdict = inspect_result(
            content,
            is_error=True,
            exception=exception,
            client=self.policy.client,
            tool=tool,
            arguments=arguments,
            parameters=parameters,
        )
        hidden = hidden_retries_of(exception)  # auto_retry re-ran the call before it
        return dataclasses.replace(verdict, hidden_retries=hidden) if hidden else verdict

    # -- ledger -----------------------------------------------------------------

    @property
    def _checkpoints(self) -> list[Checkpoint]:
        """The replay checkpoints of the shared run scope (``run=None``)."""
        return list(self._runs.default.checkpoints.values())

    def replay(
        self, messages: Sequence[Message], *, run: object | None = None
    ) -> tuple[FailureLedger, dict[int, RepeatReport]]:
        """A failed-call ledger rebuilt from the conversation; also the repeat report of
        each recorded tool result (by message index). Linear: successes of other tools long
        before the decision step are skipped, and a conversation that only grew since an
        earlier replay in the same run scope (the same message objects first) continues
        from that replay's checkpoint (``_replay`` says how; the result is the same as a
        replay from the start). A call's ``arguments`` must not be changed in place once
        replayed. ``run``: the run scope of remembered verdicts and of the checkpoints.
        """
        needed = self.policy.progress is not None or self.policy.loop_action == "block"
        return replay_in_scope(
            self, messages, run, self._assess(messages, run, probe=False) if needed else None
        )

    def check_call(
        self,
        name: str,
        arguments: Any,
        *,
        raw: str | None = None,
        messages: Sequence[Message] | None = None,
        ledger: FailureLedger | None = None,
        run: object | None = None,
    ) -> LoopDecision:
        """Before executing a call: is it a loop, and what does the policy do about it?
        Also the idempotency guard (``_idempotency``): an identical resend of a call whose
        outcome is unknown, to a tool not declared safe, is ``block`` whatever the loop action.

        Give the conversation so far (``messages``), a ledger the adapter keeps, or neither:
        then the ledger that :meth:`deliver_result` keeps for run scope ``run`` is used.

        Args:
            name: The tool's name.
            arguments: The parsed arguments.
            raw: The argument text the model wrote, when there is one.
            messages: The conversation so far.
            ledger: A ledger of the run's earlier calls.
            run: The run scope.

        Returns:
            The decision: ``allow``, ``note`` or ``block`` (with the reason for the model).

        Raises:
            ToolLoopError: The call repeats a failure and the loop action is ``stop``.
            Any other internal error fails open to ``allow`` (logged).
        """
        return decide_call(self, name, arguments, raw, messages, ledger, run)

    def blocked_result(
        self, call_id: str | None, decision: LoopDecision, *, run: object | None = None
    ) -> str:
        """The runtime result for a call that ``block`` kept from running; its verdict is
        remembered (in run scope ``run``) so the next model call treats it as the failure
        it repeats."""
        text = f"Error: this call was not executed. {decision.reason}"
        self.remember(call_id, blocked_verdict(decision), content=text, run=run)
        return text

    # -- single results ---------------------------------------------------------

    def deliver_result(
        self,
        name: str,
        arguments: Any,
        content: Any,
        *,
        exception: BaseException | None = None,
        is_error: bool | None = None,
        call_id: str | None = None,
        raw_arguments: str | None = None,
        run: object | None = None,
        ledger: FailureLedger | None = None,
        record: bool = True,
        verdict: Verdict | None = None,
    ) -> ResultDelivery:
        """The delivery of one tool result, for a placement that can change only that result
        (an MCP result, a function tool's output, a gateway or capability hook).

        ``arguments``: the parsed arguments (``None`` with ``raw_arguments``: parsed from
        them). The result is detected and classified (a verdict remembered in ``run`` for this
        call id and content wins; the ``exception`` object is the strongest evidence),
        recorded in the run's failed-call ledger (successes too: they clear a tool's
        failures and take part in cycles) and, for a failure, given its effective kind,
        guidance, loop decision, C1 content, C3 note and detection record (passed to
        ``on_record``). The failure's verdict is remembered in ``run`` for its content.

        ``run``: the run scope (the framework's per-run object or key); its ledger is the one
        :meth:`check_call` uses when given no conversation. ``ledger``: a ledger of the run's
        earlier calls that the adapter derived itself (it is recorded into) instead.
        ``verdict``: the verdict of :meth:`inspect_tool_result` for this result when the
        adapter already asked for it. ``record``: emit the detection record (``on_record``,
        the log); ``False`` for an adapter whose model-call :meth:`rewrite` records this
        failure again.

        Returns:
            The :class:`ResultDelivery`: ``content`` to give the framework (the C1 content
            where the policy says so), ``verdict``, ``note``, ``record``, ``loop``. On an
            internal error the content passes unchanged with ``error`` set (logged).

        Raises:
            ToolLoopError: The call repeats a failure and the loop action is ``stop``.
        """
        try:
            return deliver_one(
                self,
                name,
                arguments,
                content,
                exception,
                is_error,
                call_id,
                raw_arguments,
                run,
                ledger,
                record,
                verdict,
            )
        except ToolLoopError:
            raise
        except Exception as exc:
            logger.warning("toolerr: delivering a tool result failed; it passes unchanged", exc_info=True)
            return ResultDelivery(NOT_FAILED, content, False, error=f"{type(exc).__name__}: {exc}")

    # -- delivery ---------------------------------------------------------------

    def _delivery(
        self, result: ExchangeResult, verdict: Verdict, ledger: FailureLedger, report: RepeatReport | None
    ) -> Delivery:
        return delivery_for(self.policy, result, verdict, ledger, report)

    def rewrite(self, messages: Sequence[Message], *, run: object | None = None) -> Rewrite:
        """Apply the policy's form to the messages of one model call; a long failed result
        (over ``quarantine_chars``) is shown as its excerpt, its full text saved to the
        result store (``docs/DELIVERY.md`` 7.1).

        The input is never modified; the result's ``messages`` is a new list whose
        unchanged messages are the same objects.

        Args:
            messages: The neutral conversation of the model call.
            run: The run scope whose remembered verdicts apply.

        Returns:
            The :class:`Rewrite`: ``messages``, ``changed``, ``records`` (one per failure at
            the decision step), ``ledger``. On an internal error the messages pass
            unchanged with ``error`` set (logged).

        Raises:
            TypeError: ``messages`` is not a sequence of :class:`Message`.
            ToolLoopError: The loop action is ``stop`` and the decision step repeats a failure.
        """
        candidate: Any = messages
        if isinstance(candidate, (str, bytes)) or not isinstance(candidate, Sequence):
            raise TypeError(f"messages must be a sequence of toolerr.Message, got {type(messages).__name__}")
        for message in messages:
            if not isinstance(message, Message):
                raise TypeError(f"messages must hold toolerr.Message objects, got {type(message).__name__}")
        return self._guarded_rewrite(messages, run, None)

    def _guarded_rewrite(
        self, messages: Sequence[Message], run: object | None, resume: Resume | None
    ) -> Rewrite:
        """:meth:`rewrite` of checked messages; ``resume``: the wire path's replay base and
        the hand-off of its next checkpoint (:class:`~toolerr._replay.Resume`)."""
        try:
            return self._rewrite(messages, run, resume)
        except ToolLoopError as error:
            call_on_loop(self.policy, error)
            raise
        except Exception as exc:
            logger.warning("toolerr: rewrite failed; the conversation passes unchanged", exc_info=True)
            return Rewrite(list(messages), False, (), error=f"{type(exc).__name__}: {exc}")

    def may_quarantine(self) -> bool:
        """Whether :meth:`rewrite` may change a conversation whose decision step holds no
        failure: this layer quarantined a result before (it is shown as its excerpt at every
        model call) or it quarantines long successes. A caller that skips the rewrite of
        such a step (the kit's :func:`~toolerr.adapters.rewrite_tail`, the wire rewrite)
        rewrites every model call once this is true."""
        policy = self.policy
        return bool(policy.quarantine_chars) and (self.quarantined_any or policy.quarantine_successes)

    def _quarantine(self, messages: Sequence[Message], run: object | None) -> tuple[list[Message], set[int]]:
        """The messages with each long failed result (each long result with
        ``quarantine_successes``) quarantined for this model call (:mod:`toolerr._quarantine`)."""
        policy = self.policy
        if not policy.quarantine_chars:
            return list(messages), set()
        out, changed = self._quarantine_of.messages(
            messages,
            failed=lambda message: self.inspect(message, run=run).failed,
            successes=policy.quarantine_successes,
        )
        if changed:
            self.quarantined_any = True
        return out, changed

    def _rewrite(
        self, messages: Sequence[Message], run: object | None, resume: Resume | None = None
    ) -> Rewrite:
        shown, quarantined = self._quarantine(messages, run)
        step = find_decision_step(messages)
        if step is None:
            return Rewrite(shown, bool(quarantined))
        assessment = self._assess(messages, run, probe=True)
        loop = assessment.decision if assessment is not None else None
        if loop is not None:
            logger.info("toolerr: progress loop (%s): %s", loop.action, loop.reason)
            if loop.action == "stop" and self._progress is not None and assessment is not None:
                raise self._progress.stop(assessment)
            if loop.action == "note" and self.policy.form_for(None) == "c0":
                loop = None  # C0 detects and records only: no note
        failed = [
            (result, verdict)
            for result in step.results
            if result.duplicate_of is None
            and (verdict := self.inspect(result.message, run=run, arguments=result.arguments)).failed
        ]
        if not failed:
            if loop is None:
                return Rewrite(shown, bool(quarantined))
            noted = with_note(shown, step.assistant_index, note_text(loop))
            return Rewrite(noted if noted is not None else shown, noted is not None or bool(quarantined))
        try:
            ledger, reports = replay_in_scope(self, messages, run, assessment, resume)
        except ToolLoopError as error:
            if assessment is not None and not error.fingerprints:
                error.fingerprints = assessment.history
            raise
        if quarantined:  # the notes restate the excerpt the model is shown
            step = dataclasses.replace(
                step, results=tuple(dataclasses.replace(r, message=shown[r.index]) for r in step.results)
            )
            failed = [(dataclasses.replace(r, message=shown[r.index]), v) for r, v in failed]
        policy = self.policy
        detailed: set[int] = set()
        if policy.error_detail != "full":  # the failed results as the model is to see them
            shown, failed, detailed = shown_results(shown, failed, policy.error_detail)
        deliveries = [
            self._delivery(result, verdict, ledger, reports.get(result.index)) for result, verdict in failed
        ]
        out, changed = apply_form(shown, step, deliveries, policy.form_for(None))
        changed |= detailed
        if loop is not None:
            noted = with_loop_note(out, len(messages), step.assistant_index, note_text(loop))
            if noted is not None:
                out, changed = noted, changed | {step.assistant_index}
        records = emit_records(deliveries, policy.form_for, changed, reports, self.on_record)
        return Rewrite(out, bool(changed or quarantined), records, ledger=ledger)


def rewrite(messages: Sequence[Message], form: FormSpec = "c3", **options: Any) -> list[Message]:
    """Rewrite a message list with a one-off layer: the plain-function entry point.

    Args:
        messages: The neutral conversation of one model call.
        form: The delivery form (``c3`` default, ``c0``-``c4``, ``abstract``, a profile).
        **options: Other :class:`Policy` fields.

    Returns:
        The messages the model should see (the input's unchanged messages are the same objects).
    """
    return ToolErrorLayer(Policy.coerce(form=form, **options)).rewrite(messages).messages


def records_of(messages: Sequence[Message], **options: Any) -> tuple[DetectionRecord, ...]:
    """Detection records for a conversation without rewriting it (form C0)."""
    return ToolErrorLayer(Policy.coerce(form="c0", **options)).rewrite(messages).records
