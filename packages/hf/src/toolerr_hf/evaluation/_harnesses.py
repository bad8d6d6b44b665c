"""The harnesses compared: what the model is shown after a failed call, and what it may not write.

Each harness turns the client's own history (a neutral ``list[toolerr.Message]``) into a
:class:`View`: the messages the model reads and the call strings the decoder bans. The
forms (C0-C4, abstract) and the ban's failed calls come from the core
(:class:`toolerr.ToolErrorLayer`, its failed-call ledger); the harness-specific bits
(the "do not repeat" instruction, clean restart, the reflect-and-retry checklist) live here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from toolerr import (
    Message,
    ToolErrorLayer,
    ToolSafety,
    clean_text,
    content_text,
    find_decision_step,
    format_arguments,
    inspect_message,
    pair_results,
)

from toolerr_hf._format import HermesFormat

__all__ = [
    "HARNESSES",
    "INSTRUCTION",
    "LABELS",
    "Harness",
    "View",
    "build_view",
    "reflection_text",
]

Harness = Literal[
    "c0",
    "c1",
    "c2",
    "c3",
    "c4",
    "abstract",
    "ban",
    "abstract+ban",
    "c3+ban",
    "instruction",
    "clean-restart",
    "reflect",
    "small-local",
]

HARNESSES: tuple[Harness, ...] = get_args(Harness)

LABELS: Mapping[str, str] = {
    "c0": "standard (C0)",
    "c1": "C1 guidance in tool msg",
    "c2": "C2 note, exchange removed",
    "c3": "C3 note in new turn (toolerr default)",
    "c4": "C4 new turn, exchange removed",
    "abstract": "abstract description",
    "ban": "C0 + decoder ban",
    "abstract+ban": "abstract + decoder ban",
    "c3+ban": "C3 + decoder ban",
    "instruction": "C0 + 'do not repeat' instruction",
    "clean-restart": "clean restart (failed attempt deleted)",
    "reflect": "reflect-and-retry checklist",
    "small-local": "per kind: transient C3, others abstract, + ban (toolerr local default)",
}

INSTRUCTION = "Do not repeat the call that failed."
"""The explicit prohibition of Feedback That Backfires (measured not to help)."""

_FORMS: Mapping[str, str] = {
    "c0": "c0",
    "c1": "c1",
    "c2": "c2",
    "c3": "c3",
    "c4": "c4",
    "abstract": "abstract",
    "ban": "c0",
    "abstract+ban": "abstract",
    "c3+ban": "c3",
    "instruction": "c0",
    "clean-restart": "c0",
    "reflect": "c0",
    "small-local": "small-local",
}
_BANNING = frozenset({"ban", "abstract+ban", "c3+ban", "small-local"})


@dataclass(frozen=True)
class View:
    """What one harness gives the model for one call: the messages and the banned call strings."""

    messages: list[Message]
    banned: tuple[str, ...] = ()


def _failed_at_decision_step(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """``(assistant index, tool index)`` of each failed result at the decision step."""
    step = find_decision_step(messages)
    if step is None:
        return []
    out = []
    for result in step.results:
        if inspect_message(result.message).failed:
            out.append((step.assistant_index, result.index))
    return out


def reflection_text(messages: Sequence[Message], failed: Sequence[tuple[int, int]]) -> str:
    """The reflect-and-retry turn: each failed call restated with its arguments and error,
    then a do-not-repeat checklist (the pattern of reflection plugins of agent frameworks)."""
    lines = ["Reflect on the failed tool call before your next step."]
    for assistant_index, tool_index in failed:
        result = messages[tool_index]
        call = next(
            (c for c in messages[assistant_index].tool_calls if c.id == result.tool_call_id),
            None,
        )
        if call is None:
            continue
        lines.append(f"Failed call: {call.name}({format_arguments(call.arguments, call.raw_arguments)})")
        lines.append(f"Error: {clean_text(content_text(result.content), 600)}")
    lines.append("Checklist:")
    lines.append("- Do not repeat the failed call with the same arguments.")
    lines.append("- Check each argument against what the error says and correct it.")
    lines.append("- If changing the arguments cannot fix the error, stop and tell the user.")
    return "\n".join(lines)


def _clean_restart(messages: Sequence[Message]) -> list[Message]:
    """The history with every failed exchange deleted (assistant calls whose results all failed)."""
    drop: set[int] = set()
    for index, message in enumerate(messages):
        if message.role != "assistant" or not message.tool_calls:
            continue
        results = [r for r in pair_results(messages, index) if r.call is not None]
        if results and all(inspect_message(r.message).failed for r in results):
            drop.add(index)
            drop.update(r.index for r in results)
    return [m for i, m in enumerate(messages) if i not in drop]


def banned_calls(
    messages: Sequence[Message], layer: ToolErrorLayer, format: HermesFormat | None = None
) -> tuple[str, ...]:
    """The call strings a decoder ban holds for the next reply: what the core's ledger says
    (``FailureLedger.banned_calls``: failed non-transient calls), rendered in the text
    format, plus each failed call's text exactly as the model wrote it (``meta["call_texts"]``)."""
    fmt = format or HermesFormat()
    ledger = layer.replay(messages)[0]
    written: dict[str, str] = {}
    for message in messages:
        if message.role == "assistant" and message.meta:
            written.update(dict(message.meta.get("call_texts") or {}))
    out: dict[str, None] = {}
    for failed in ledger.banned_calls():
        out[fmt.call_text(failed.name, raw_arguments=failed.exact)] = None
        if failed.call_id is not None and failed.call_id in written:
            out[written[failed.call_id].strip()] = None
    return tuple(out)


def build_view(
    harness: str,
    messages: Sequence[Message],
    *,
    tool_safety: Mapping[str, ToolSafety] | None = None,
    format: HermesFormat | None = None,
) -> View:
    """The view of ``harness`` on the client's history ``messages``."""
    if harness not in _FORMS:
        raise ValueError(f"unknown harness {harness!r}; expected one of {', '.join(HARNESSES)}")
    layer = ToolErrorLayer(form=_FORMS[harness], tool_safety=dict(tool_safety or {}))
    banned = banned_calls(messages, layer, format) if harness in _BANNING else ()
    if harness == "clean-restart":
        return View(_clean_restart(messages))
    shown = list(layer.rewrite(messages).messages)
    if harness in ("instruction", "reflect"):
        failed = _failed_at_decision_step(messages)
        if failed:
            text = INSTRUCTION if harness == "instruction" else reflection_text(messages, failed)
            shown.append(Message("user", text))
    return View(shown, banned)
