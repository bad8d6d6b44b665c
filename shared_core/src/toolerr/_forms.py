"""Delivery forms C0-C4 and abstract over the neutral conversation (the contract's "Delivery forms").

Pure functions: the input list and its messages are never modified. Messages that do not
change are returned as the very same objects.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ._notes import has_note, holds_written_note
from ._types import Form, Kind, Message, ToolCall, Verdict, content_text


@dataclass(frozen=True)
class ExchangeResult:
    """One tool result of the decision step, paired with its call (``None`` when orphan)."""

    index: int
    message: Message
    call: ToolCall | None
    call_index: int | None = None
    """Position of the call in the assistant message's ``tool_calls``."""
    duplicate_of: int | None = None
    """For a result whose call id names a call that already has its result (a result sent
    twice): the position of that call. Such a result is an orphan (``call`` is ``None``):
    it gets no note of its own and goes with its call when a form removes the call."""

    @property
    def name(self) -> str:
        if self.message.name:
            return self.message.name
        return self.call.name if self.call is not None else "unknown_tool"

    @property
    def arguments(self) -> Any:
        return self.call.arguments if self.call is not None else None

    @property
    def raw_arguments(self) -> str | None:
        return self.call.raw_arguments if self.call is not None else None


@dataclass(frozen=True)
class DecisionStep:
    """The last assistant message and the tool results that follow it."""

    assistant_index: int
    results: tuple[ExchangeResult, ...]
    rewritten: bool
    """A toolerr note already sits after the exchange: applying a form again changes nothing."""


def pair_results(messages: Sequence[Message], assistant_index: int) -> tuple[ExchangeResult, ...]:
    """Tool results after ``assistant_index`` paired with the assistant's calls.

    By call id first (duplicate ids are consumed in order), then, for results without an
    id, with the first unpaired call in order. A result that matches no call is an orphan;
    one whose id names calls that all have their result already is a duplicate of the last
    of them (``duplicate_of``).
    """
    calls = list(messages[assistant_index].tool_calls)
    used = [False] * len(calls)
    # Linear in calls + results: the unused calls of each id in order, and the first unused
    # call overall (both only move forward).
    by_id: dict[str | None, deque[int]] = {}
    for i, call in enumerate(calls):
        by_id.setdefault(call.id, deque()).append(i)
    first_free = 0
    last: dict[str, int] = {}  # per id, the latest of its calls paired
    paired: list[ExchangeResult] = []
    for index in range(assistant_index + 1, len(messages)):
        message = messages[index]
        if message.role == "assistant":
            break
        if message.role != "tool":
            continue
        match: int | None = None
        duplicate: int | None = None
        if message.tool_call_id is not None:
            queue = by_id.get(message.tool_call_id)
            while queue and used[queue[0]]:
                last[message.tool_call_id] = queue.popleft()
            match = queue.popleft() if queue else None
            if match is None:
                duplicate = last.get(message.tool_call_id)
            else:
                last[message.tool_call_id] = match
        else:
            while first_free < len(calls) and used[first_free]:
                first_free += 1
            match = first_free if first_free < len(calls) else None
        if match is not None:
            used[match] = True
        paired.append(
            ExchangeResult(index, message, calls[match] if match is not None else None, match, duplicate)
        )
    return tuple(paired)


def find_decision_step(messages: Sequence[Message]) -> DecisionStep | None:
    """The decision step's exchange, or ``None`` when the conversation has none
    (no assistant message, or no tool result after the last one)."""
    assistant_index = next(
        (i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "assistant"), None
    )
    if assistant_index is None:
        return None
    results = pair_results(messages, assistant_index)
    if not results:
        return None
    rewritten = any(
        m.role == "user" and has_note(content_text(m.content)) for m in messages[assistant_index + 1 :]
    )
    return DecisionStep(assistant_index, results, rewritten)


@dataclass(frozen=True)
class Delivery:
    """What to deliver for one failed result: set by the layer from verdict, ledger and policy."""

    result: ExchangeResult
    verdict: Verdict
    kind: Kind | None
    guidance: str | None
    note: str | None
    """The full note (runtime note, abstract description or loop note) for C2-C4/abstract."""
    suffix: str | None
    """What C1 appends to the tool message after a line break (guidance, or loop reason and guidance)."""
    form: Form | None = None
    """The form of this failure (its kind's form); ``None``: the form given to :func:`apply_form`."""

    @property
    def actionable(self) -> bool:
        return self.note is not None or self.suffix is not None


def append_text(content: Any, text: str, separator: str) -> Any:
    """Content with ``separator + text`` appended; ``None`` when it cannot be appended
    without changing the content's type (then the caller leaves it as it is)."""
    if isinstance(content, str):
        return content + separator + text
    if isinstance(content, list):
        return [*content, {"type": "text", "text": text}]
    return None


def _append_note(content: Any, notes: str) -> Any:
    """A user message's content with the notes appended after two line breaks, as
    :func:`append_text` does; an empty text becomes exactly the notes (two line breaks
    separate the note from text, and there is none)."""
    if isinstance(content, str) and not content:
        return notes
    return append_text(content, notes, "\n\n")


def _ends_with(content: Any, text: str) -> bool:
    return content_text(content).endswith(text)


_REMOVING: tuple[Form, ...] = ("c2", "c4", "abstract")


def _notes_present(
    messages: Sequence[Message], step: DecisionStep, active: Sequence[Delivery], form: Form
) -> bool:
    """Whether the step was rewritten before, given that a user message after the exchange
    holds a note (``step.rewritten``). With the failed calls kept (C1, C3) the very notes
    these deliveries would add must sit there: a user message that merely imitates a note
    (a page a tool put in a user turn) does not keep this step's failures from their notes.
    A removing form (C2, C4, abstract) leaves the notes of calls that are gone, which
    cannot be checked against the calls that remain: a note as toolerr writes one (for a
    failure a removing form took away, here or at a later step) counts, and with a removing
    form now the note prefix decides. A note is matched without its guidance sentence:
    another layer (an app's and a gateway's, with different tool safety) may have noted the
    same failure with other guidance."""
    if any((d.form or form) in _REMOVING for d in active):
        return True
    notes = [
        d.note.removesuffix(f"\n\n{d.guidance}") if d.guidance else d.note
        for d in active
        if (d.form or form) != "c1" and d.note
    ]
    if not notes:
        return True  # C1 only: its own check keeps it from appending twice
    texts = [content_text(m.content) for m in messages[step.assistant_index + 1 :] if m.role == "user"]
    if any(holds_written_note(text) for text in texts):
        return True
    return all(any(note in text for text in texts) for note in notes)


def apply_form(
    messages: Sequence[Message], step: DecisionStep, deliveries: Sequence[Delivery], form: Form
) -> tuple[list[Message], set[int]]:
    """Apply the forms to the decision step: each delivery's own ``form`` (its kind's form),
    else ``form``. Returns the new list and the indices (in the input) of the results whose
    delivery changed the conversation.

    The rule for a step whose failures have different forms (the contract's "Delivery forms"): a
    failure in ``c0`` is left as it is; one in ``c1`` gets its guidance appended to its own
    tool result; one in ``c2``, ``c4`` or ``abstract`` has its call and result removed (the
    other calls of the assistant message stay, each paired with its result); one in ``c3``
    keeps its call and result. The notes of every failure in ``c2``, ``c3``, ``c4`` and
    ``abstract``, each rendered in its own form, are joined in message order into one user
    turn: placed as C3 places it when no failure is removed, as C2 does when every removed
    failure is in ``c2``, else as C4 does (a new user message at the end). With one form for
    every failure this is exactly that form.
    """
    out = list(messages)
    active = [d for d in deliveries if d.actionable and (d.form or form) != "c0"]
    if not active or (step.rewritten and _notes_present(messages, step, active, form)):
        return out, set()

    changed: set[int] = set()
    for delivery in active:
        if (delivery.form or form) != "c1":
            continue
        message = delivery.result.message
        if delivery.suffix is None or _ends_with(message.content, delivery.suffix):
            continue
        content = append_text(message.content, delivery.suffix, "\n")
        if content is None:
            continue
        out[delivery.result.index] = replace(message, content=content)
        changed.add(delivery.result.index)

    noted = [d for d in active if (d.form or form) != "c1" and d.note]
    if not noted:
        return out, changed
    notes = "\n\n".join(d.note for d in noted if d.note)
    removing = [d for d in noted if (d.form or form) in _REMOVING]
    touched = changed | {d.result.index for d in noted}

    if not removing:  # C3: the exchange kept, the notes in the next user turn
        last_result = max(r.index for r in step.results)
        user_index = next(
            (i for i in range(step.assistant_index + 1, len(out)) if out[i].role == "user"), None
        )
        if user_index is not None:
            content = _append_note(out[user_index].content, notes)
            if content is not None:
                out[user_index] = replace(out[user_index], content=content)
                return out, touched
        out.insert(last_result + 1, Message(role="user", content=notes))
        return out, touched

    # c2, c4, abstract: the failed calls and their results are removed, pairs kept intact.
    removed_calls = {d.result.call_index for d in removing if d.result.call_index is not None}
    removed_results = {d.result.index for d in removing} | {
        r.index for r in step.results if r.duplicate_of is not None and r.duplicate_of in removed_calls
    }
    assistant = out[step.assistant_index]
    kept_calls = tuple(c for i, c in enumerate(assistant.tool_calls) if i not in removed_calls)
    new_out: list[Message] = []
    for index, message in enumerate(out):
        if index in removed_results:
            continue
        if index == step.assistant_index and len(kept_calls) != len(assistant.tool_calls):
            if not kept_calls and not content_text(assistant.content).strip():
                continue
            new_out.append(replace(assistant, tool_calls=kept_calls))
            continue
        new_out.append(message)
    all_c2 = all((d.form or form) == "c2" for d in removing)
    if all_c2 and new_out and new_out[-1].role == "user":
        content = _append_note(new_out[-1].content, notes)
        if content is not None:
            new_out[-1] = replace(new_out[-1], content=content)
            return new_out, touched
    new_out.append(Message(role="user", content=notes))
    return new_out, touched
