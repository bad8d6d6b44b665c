"""A progress loop's note in the conversation of a model call (the contract's "Repeats and
loops"): its text, and where it goes: the user turn after the decision step's results, or
the note turn a form made (``_progress`` decides on the loop, ``_layer`` asks here).
"""

from __future__ import annotations

import dataclasses

from ._loop import LoopDecision
from ._notes import NOTE_PREFIX
from ._types import Message, content_text

__all__ = ["note_text", "with_loop_note", "with_note"]


def note_text(decision: LoopDecision) -> str:
    """The runtime note of a progress loop decision."""
    return f"{NOTE_PREFIX}{decision.reason}"


def with_note(messages: list[Message], assistant_index: int, text: str) -> list[Message] | None:
    """``messages`` with ``text`` in the user turn after the step's results (appended
    after two line breaks), or as its own user message after them; ``None`` when the note
    is there already."""
    from dataclasses import replace

    from ._forms import append_text

    end = assistant_index + 1
    while end < len(messages) and messages[end].role != "assistant":
        if messages[end].role == "user":
            content = messages[end].content
            if text in content_text(content):
                return None
            appended = (
                text if isinstance(content, str) and not content else append_text(content, text, "\n\n")
            )
            if appended is not None:
                out = list(messages)
                out[end] = replace(messages[end], content=appended)
                return out
        end += 1
    last = max(i for i in range(assistant_index, end) if i == assistant_index or messages[i].role == "tool")
    out = list(messages)
    out.insert(last + 1, Message(role="user", content=text))
    return out


def with_loop_note(out: list[Message], given: int, assistant_index: int, text: str) -> list[Message] | None:
    """A progress loop's note in the decision step's note turn (its own where there is none)."""
    if len(out) == given:  # the exchange kept (C1, C3): after its results
        return with_note(out, assistant_index, text)
    from ._forms import append_text

    last = out[-1] if out else None  # a removing form put its notes in the last user turn
    if last is not None and last.role == "user":
        if text in content_text(last.content):
            return None
        # its text or a text block more, as the form's own notes went (a second user
        # message would be read as the user's next turn, and doubled by a second rewrite)
        appended = append_text(last.content, text, "\n\n")
        if appended is not None:
            return [*out[:-1], dataclasses.replace(last, content=appended)]
    return [*out, Message(role="user", content=text)]
