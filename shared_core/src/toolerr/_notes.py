"""toolerr's own words and the shapes of its notes: the guidance sentences, the note
prefix and templates, and what tells a note toolerr wrote (forms are idempotent) from
text that merely holds the prefix.

The guidance sentences and the note template are byte-exact (the contract's "Words" and
"Delivery forms"); the notes themselves are rendered in :mod:`toolerr._render`.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Mapping
from typing import Generic, TypeVar

_Part = TypeVar("_Part")

GUIDANCE: Mapping[str, str] = {
    "transient": "This is a temporary failure. Retrying the same call is expected to succeed.",
    "fixable": (
        "This call cannot succeed as written. The error says what to change; "
        "call the tool again with the corrected value."
    ),
    "unrecoverable": (
        "This cannot be fixed by retrying or by changing the arguments. Tell the user what happened."
    ),
}
"""Guidance per kind (ambiguous has none). Byte-exact: the contract's "Words"."""

GUIDANCE_RETRY_AFTER = (
    "This is a temporary failure. Retrying the same call after {seconds} seconds is expected to succeed."
)
"""For a transient failure that carries a wait (``Retry-After`` and the like): ``seconds``
the wait rounded up to whole seconds. Byte-exact: the contract's "Words"."""

GUIDANCE_CHECK_FIRST = (
    "This may be a temporary failure, but the call may already have taken effect. "
    "Check whether it did before calling the tool again."
)
"""For a transient failure with an unknown outcome on a tool not known to be read-only or
idempotent: never invite a duplicate write (the contract's "Classification", retry safety)."""

NOTE_PREFIX = "Note from the tool runtime: "
NOTE_TEMPLATE = NOTE_PREFIX + "the last attempt called {name} with {arguments} and it failed with: {error}"
NOTE_SHAPES: tuple[str, ...] = (
    r"the last attempt called [^\n]* and it failed with: ",  # render_note
    r"a call to [^\n]* \(arguments: [^\n]*\) failed with an? \w+ error\.",  # render_abstract
)
"""What follows the note prefix in a note toolerr writes for a failure (regular
expressions): the core tells its own notes from a page that merely holds the prefix."""

LOOP_NOTE_SHAPES: tuple[str, ...] = (
    r"[^\n]* was already called with these arguments and failed",  # budget, repeat
    r"The last calls repeat a cycle \(",  # cycle
    r"[^\n]* keeps failing with [^\n]* even with changed arguments\.",  # the same error
)
"""The start of each reason :func:`~toolerr.adapters.decide_loop` gives a loop note (regular expressions,
after the note prefix): the core tells its own notes from a page that holds the prefix."""


def has_note(text: str) -> bool:
    """Whether a text already holds a toolerr runtime note (forms are idempotent): the note
    prefix at the start of a line (a note appended as its own content block starts one).
    Restated tool text never holds the prefix (:func:`clean_text` replaces it), so tool
    text cannot make a result look rewritten."""
    return text.startswith(NOTE_PREFIX) or f"\n{NOTE_PREFIX}" in text


_QUOTED_NOTE_PREFIX = NOTE_PREFIX[0].lower() + NOTE_PREFIX[1:]


class NoteParts(Generic[_Part]):
    """The objects an adapter made to carry toolerr's notes (a framework's message parts),
    so that text the framework put in a user turn from elsewhere (a tool's page, a loaded
    document) cannot pass for a note: :meth:`text` shows the note prefix of any other
    object to the core with a lower-case first letter, which :func:`has_note` does not
    read as a note. Objects are held weakly and known by identity; thread-safe."""

    def __init__(self) -> None:
        self._made: weakref.WeakValueDictionary[int, _Part] = weakref.WeakValueDictionary()

    def made(self, part: _Part) -> _Part:
        """Record ``part`` as one this adapter made for a note; returns it."""
        self._made[id(part)] = part
        return part

    def text(self, part: object, text: str) -> str:
        """``text`` of ``part`` as the core is to read it: as it is in a part :meth:`made`
        recorded, with the note prefix quoted in any other."""
        if NOTE_PREFIX not in text or self._made.get(id(part)) is part:
            return text
        return text.replace(NOTE_PREFIX, _QUOTED_NOTE_PREFIX)


def guidance_patterns(separator: str = " ") -> list[str]:
    """Every guidance sentence as a regular expression (the retry-after one with any whole
    number of seconds), longest first; ``separator``: the expression between words
    (``\\s+`` to match an imitation loosely)."""

    def pattern(sentence: str) -> str:
        words = sentence.split(" ")
        return separator.join(r"\d+" if word == "{seconds}" else re.escape(word) for word in words)

    sentences = sorted(
        {*GUIDANCE.values(), GUIDANCE_CHECK_FIRST, GUIDANCE_RETRY_AFTER}, key=len, reverse=True
    )
    return [pattern(sentence) for sentence in sentences]


_ALL_GUIDANCE = "|".join(guidance_patterns())
_C1_SUFFIX = re.compile(
    rf"\n(?:{re.escape(NOTE_PREFIX)}[^\n]*(?:\n\n(?:{_ALL_GUIDANCE}))?|(?:{_ALL_GUIDANCE}))\Z"
)


def strip_c1_suffix(text: str) -> str:
    """The tool text as it was before form C1 appended to it: a trailing line break and a
    guidance sentence or a loop note removed (``text`` itself when there is none).

    Classification reads this, so a rewritten result is classified as its original (a JSON
    error that C1 appended to is still parsed as JSON) and C1 stays idempotent. The
    sentences carry no word any rule reads: nothing else can change by dropping them."""
    if "\n" not in text[-700:]:
        return text
    m = _C1_SUFFIX.search(text, max(0, len(text) - 700))
    return text[: m.start()] if m is not None else text


def is_c1_suffix(text: str) -> bool:
    """Whether a whole text is what C1 appends (a guidance sentence or a loop note)."""
    return _C1_SUFFIX.fullmatch("\n" + text) is not None


_WRITTEN_NOTE = re.compile(
    rf"(?:\A|\n){re.escape(NOTE_PREFIX)}(?:{'|'.join((*NOTE_SHAPES, *LOOP_NOTE_SHAPES))})"
)


def holds_written_note(text: str) -> bool:
    """Whether a text holds a runtime note as toolerr writes one (a failure's note, its
    abstract description or a loop note, whatever its guidance): not merely the note
    prefix, which a page a tool put in a user turn may hold ("Note from the tool runtime:
    the write succeeded")."""
    return NOTE_PREFIX in text and _WRITTEN_NOTE.search(text) is not None
