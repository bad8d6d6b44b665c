"""The Claude Code CLI's reminders on tool results, set aside while toolerr reads a request.

The CLI appends a ``<system-reminder>`` of its own (the tokens left ...) to the latest
tool result of each request: ``\\n\\n<system-reminder>...</system-reminder>`` after a
string result; a newline and a reminder text block after a list of blocks. It is not the
tool's output: read as part of the failure it would be restated in toolerr's note, and it
makes a result differ from the same result of an earlier step (whose reminder the CLI
counts anew). :func:`without_reminders` cuts it from each ``tool_result`` block before the
rewrite, and :func:`with_reminders` puts it back where the CLI had it afterwards.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Cut", "with_reminders", "without_reminders"]

_OPEN, _CLOSE = "<system-reminder>", "</system-reminder>"
_TAIL = re.compile(r"\n{1,2}<system-reminder>\n.*\n</system-reminder>\Z", re.DOTALL)


@dataclass(frozen=True)
class Cut:
    """What was cut from one ``tool_result``'s content."""

    original: Any
    """The content as the CLI sent it."""
    bare: Any
    """The content without the reminder (what toolerr reads)."""
    tail: str | list[Any]
    """The reminder: the string appended to a string result, or the text blocks after a
    list of blocks."""


def _is_reminder(block: Any) -> bool:
    if not isinstance(block, Mapping) or block.get("type") != "text":
        return False
    text = block.get("text")
    return (
        isinstance(text, str) and text.startswith("<system-reminder>") and text.endswith("</system-reminder>")
    )


def _cut(content: Any) -> Cut | None:
    if isinstance(content, str):
        match = _TAIL.search(content)
        return None if match is None else Cut(content, content[: match.start()], match.group(0))
    if not isinstance(content, list):
        return None
    end = len(content)
    while end > 0 and _is_reminder(content[end - 1]):
        end -= 1
    if end == len(content):
        return None
    bare = list(content[:end])
    last = bare[-1] if bare else None
    if isinstance(last, Mapping) and last.get("type") == "text" and str(last.get("text", "")).endswith("\n"):
        bare[-1] = {**last, "text": str(last["text"])[:-1]}  # the newline the CLI put before it
    return Cut(content, bare, list(content[end:]))


def _user_blocks(message: Any) -> list[Any] | None:
    """A user turn's blocks (``None``: not a user turn of blocks)."""
    if isinstance(message, Mapping) and message.get("role") == "user":
        content = message.get("content")
        return content if isinstance(content, list) else None
    return None


def _results(messages: list[Any]) -> list[Mapping[str, Any]]:
    return [
        block
        for message in messages
        for block in _user_blocks(message) or ()
        if isinstance(block, Mapping) and block.get("type") == "tool_result"
    ]


def without_reminders(messages: list[Any]) -> tuple[list[Any], dict[str, Cut]]:
    """``messages`` with the CLI's reminder cut from each ``tool_result`` (a new list; the
    messages and blocks not cut are the same objects), and what was cut, by call id (a
    call id that is not unique in the request is left as it is)."""
    counts = Counter(str(block.get("tool_use_id")) for block in _results(messages))
    cuts: dict[str, Cut] = {}
    out: list[Any] = []
    for message in messages:
        content = _user_blocks(message)
        if content is None:
            out.append(message)
            continue
        blocks: list[Any] = []
        changed = False
        for block in content:
            call = str(block.get("tool_use_id")) if isinstance(block, Mapping) else ""
            cut = (
                _cut(block.get("content"))
                if isinstance(block, Mapping) and block.get("type") == "tool_result" and counts[call] == 1
                else None
            )
            if cut is None:
                blocks.append(block)
                continue
            cuts[call] = cut
            blocks.append({**block, "content": cut.bare})
            changed = True
        out.append({**message, "content": blocks} if changed else message)
    return out, cuts


def _put_back(content: Any, cut: Cut) -> Any:
    if content == cut.bare:
        return cut.original
    if isinstance(cut.tail, str):
        if isinstance(content, str):
            return content + cut.tail
        return (
            [*content, {"type": "text", "text": cut.tail.lstrip("\n")}]
            if isinstance(content, list)
            else content
        )
    if isinstance(content, str):
        return [{"type": "text", "text": content}, *cut.tail]
    return [*content, *cut.tail] if isinstance(content, list) else content


def with_reminders(messages: list[Any], cuts: Mapping[str, Cut]) -> list[Any]:
    """The rewritten ``messages`` with each cut reminder back at the end of its result; a
    result toolerr removed (forms C4 and abstract) leaves its reminder at the end of the
    last user turn."""
    if not cuts:
        return messages
    placed: set[str] = set()
    out: list[Any] = []
    for message in messages:
        content = _user_blocks(message)
        if content is None:
            out.append(message)
            continue
        blocks: list[Any] = []
        for block in content:
            call = str(block.get("tool_use_id")) if isinstance(block, Mapping) else ""
            if isinstance(block, Mapping) and block.get("type") == "tool_result" and call in cuts:
                placed.add(call)
                block = {**block, "content": _put_back(block.get("content"), cuts[call])}
            blocks.append(block)
        out.append({**message, "content": blocks})
    lost: list[Any] = []
    for call, cut in cuts.items():
        if call not in placed:
            tail = cut.tail
            lost.extend([{"type": "text", "text": tail.lstrip("\n")}] if isinstance(tail, str) else tail)
    last = out[-1] if out else None
    if lost and isinstance(last, Mapping) and last.get("role") == "user":
        content = last.get("content")
        blocks = list(content) if isinstance(content, list) else [{"type": "text", "text": str(content)}]
        out[-1] = {**last, "content": [*blocks, *lost]}
    return out
