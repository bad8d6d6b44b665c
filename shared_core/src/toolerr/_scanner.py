"""The one-pass scanner: every word, code name and marker of the rules found in one regex pass.

One regular expression in which every entry is anchored on a rare character it contains
(so that the regex engine's first-character test skips most positions of an ordinary
text), the rest of the entry matched through a trie and its beginning checked by a
look-behind. :mod:`toolerr._classify` chooses the entries and their anchors from the rule
data when it is imported (:func:`anchor_set`, :func:`position_cost`) and builds one
:class:`Scanner`. ``benchmarks/bench_scanner.py`` measures it against a plain alternation
regex and a per-word ``in`` test.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from . import _rules as R

__all__ = ["FREQ", "Entry", "Marker", "Scanner", "anchor_set", "freq", "position_cost", "trie_pattern"]

# Rough frequency (per mille) of characters in tool output (prose, source code, JSON, logs).
# Tuning for the scanner's anchors, not rule data: a wrong value costs speed, never a result.
# "x" is counted high because it is the usual padding character.
FREQ: dict[str, float] = {
    " ": 156,
    '"': 47,
    ",": 19,
    "-": 15,
    ".": 5,
    "/": 9,
    ":": 23,
    "_": 2.2,
    "'": 1.0,
    "(": 2.9,
    ")": 2.9,
    "[": 2.6,
    "]": 2.6,
    "{": 2.6,
    "}": 2.6,
    "=": 1.3,
    "\n": 20,
    "0": 38,
    "1": 20,
    "2": 17,
    "3": 2.8,
    "4": 7.7,
    "5": 2.3,
    "6": 1.9,
    "7": 1.8,
    "8": 1.8,
    "9": 1.8,
    "a": 55,
    "b": 8.6,
    "c": 22,
    "d": 21,
    "e": 72,
    "f": 12,
    "g": 11,
    "h": 19,
    "i": 37,
    "j": 0.4,
    "k": 4.2,
    "l": 20,
    "m": 13,
    "n": 34,
    "o": 31,
    "p": 16,
    "q": 0.3,
    "r": 47,
    "s": 36,
    "t": 58,
    "u": 12.5,
    "v": 6.8,
    "w": 8.1,
    "x": 30,
    "y": 2.9,
    "z": 0.1,
    "A": 1.6,
    "B": 0.6,
    "C": 1.4,
    "D": 0.6,
    "E": 3.0,
    "F": 1.5,
    "G": 0.4,
    "H": 0.5,
    "I": 2.5,
    "J": 0.1,
    "K": 0.1,
    "L": 0.9,
    "M": 1.0,
    "N": 1.5,
    "O": 1.5,
    "P": 0.8,
    "Q": 0.1,
    "R": 1.2,
    "S": 1.5,
    "T": 2.0,
    "U": 0.6,
    "V": 0.1,
    "W": 0.2,
    "X": 0.3,
    "Y": 0.1,
    "Z": 0.2,
}
ANCHOR_OVERHEAD = 1.0  # per-mille equivalent of one more alternative in the dispatch


def freq(ch: str) -> float:
    return FREQ.get(ch, 1.0)


class Entry(NamedTuple):
    text: str
    anchor: int  # index in ``text`` of the character the scan is anchored on
    source: str  # "word", "errno", "grpc", "jsonrpc" or "marker"
    word: R.Word | None = None
    name: str = ""
    marker: Marker | None = None
    boundary: bool = False


class Marker(NamedTuple):
    spec: R.Marker
    regex: re.Pattern[str]


def anchor_set(texts: list[str]) -> set[str]:
    """A small set of rare characters such that every text contains one (greedy cover)."""
    chosen: set[str] = set()
    uncovered = set(range(len(texts)))
    while uncovered:
        best: tuple[float, str, set[int]] | None = None
        for ch in sorted({c for i in uncovered for c in texts[i]}):
            covered = {i for i in uncovered if ch in texts[i]}
            score = (freq(ch) + ANCHOR_OVERHEAD) / len(covered)
            if best is None or score < best[0]:
                best = (score, ch, covered)
        assert best is not None
        chosen.add(best[1])
        uncovered -= best[2]
    return chosen


def position_cost(text: str, i: int) -> float:
    """Expected work at each occurrence of the anchor: how often the anchor occurs, times
    how often the character after it lets the match go on (a word ending at its anchor is
    checked by a look-behind at every occurrence)."""
    follow = freq(text[i + 1]) / 20.0 if i + 1 < len(text) else 8.0
    return freq(text[i]) * (1.0 + follow)


def trie_pattern(entries: list[Entry]) -> str:
    """A regex for the rests (after the anchor) of ``entries``, longest first, each leaf
    checking the whole text with a look-behind."""
    trie: dict[str, Any] = {}
    for entry in entries:
        node = trie
        for ch in entry.text[entry.anchor + 1 :]:
            node = node.setdefault(ch, {})
        node.setdefault("", []).append(entry)

    def emit(node: dict[str, Any]) -> str:
        parts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        leaf: list[Entry] | None = node.get("")
        if leaf is not None:
            checks = sorted(
                {"" if e.anchor == 0 else f"(?<={re.escape(e.text)})" for e in leaf},
                key=len,
                reverse=True,
            )
            if "" in checks:
                parts.append("")
            elif len(checks) == 1:
                parts.append(checks[0])
            else:
                parts.append("(?:" + "|".join(checks) + ")")
        if len(parts) == 1:
            return parts[0]
        return "(?:" + "|".join(parts) + ")"

    return emit(trie)


class Scanner:
    """Finds every entry in a text in one regex pass."""

    def __init__(self, entries: list[Entry]) -> None:
        by_anchor: dict[str, list[Entry]] = {}
        for entry in entries:
            by_anchor.setdefault(entry.text[entry.anchor], []).append(entry)
        # Most frequent anchors first.
        anchors = sorted(by_anchor, key=lambda ch: (-freq(ch), ch))
        self.regex = re.compile("|".join(f"{re.escape(ch)}{trie_pattern(by_anchor[ch])}" for ch in anchors))
        # For each matched text (anchor and rest), then for the character before it: every
        # entry that may start before it (longest first). Key None: the entries that start at
        # their anchor, the only ones possible at the start of a text or after a character
        # that no entry has before its anchor.
        self.at: dict[str, dict[str | None, tuple[Entry, ...]]] = {}
        for ch, group in by_anchor.items():
            for rest in {e.text[e.anchor + 1 :] for e in group}:
                cands = [e for e in group if rest.startswith(e.text[e.anchor + 1 :])]
                cands.sort(key=lambda e: -len(e.text))
                by_before: dict[str | None, tuple[Entry, ...]] = {
                    None: tuple(e for e in cands if e.anchor == 0)
                }
                for before in {e.text[e.anchor - 1] for e in cands if e.anchor > 0}:
                    by_before[before] = tuple(
                        e for e in cands if e.anchor == 0 or e.text[e.anchor - 1] == before
                    )
                self.at[ch + rest] = by_before

    def hits(self, text: str) -> list[tuple[int, Entry]]:
        """(start of the entry's text, entry) for every entry found in ``text``."""
        found: list[tuple[int, Entry]] = []
        at = self.at
        for m in self.regex.finditer(text):
            pos = m.start()
            by_before = at.get(m.group())
            if by_before is None:
                continue
            cands = by_before.get(text[pos - 1]) if pos else None
            for entry in by_before[None] if cands is None else cands:
                start = pos - entry.anchor
                if start >= 0 and text.startswith(entry.text, start):
                    found.append((start, entry))
        return found


# --- the first characters of a pattern (templates are tried by the text's first one) ---


def first_literal(pattern: str) -> str | None:
    """The first character a shell format can start with, when it is a plain letter."""
    return pattern[0] if pattern and (pattern[0].isalnum() or pattern[0] in "'\"<") else None


def first_chars(pattern: str) -> set[str] | None:
    """The characters a template can start with (a plain letter, an escaped punctuation mark,
    or either side of a leading optional group); None when that cannot be told."""
    if not pattern:
        return None
    if pattern[0].isalnum() or pattern[0] in "'\"<":
        return {pattern[0]}
    if pattern[0] == "\\" and len(pattern) > 1 and pattern[1] in "{[(.*+?|$^":
        return {pattern[1]}
    if pattern.startswith("(?:"):
        depth = 0
        for i, ch in enumerate(pattern):
            if ch == "\\":
                continue
            if ch == "(" and (i == 0 or pattern[i - 1] != "\\"):
                depth += 1
            elif ch == ")" and pattern[i - 1] != "\\":
                depth -= 1
                if depth == 0:
                    if pattern[i + 1 : i + 2] != "?" or "|" in pattern[3:i]:
                        return None
                    inner, rest = first_chars(pattern[3:i]), first_chars(pattern[i + 2 :])
                    return inner | rest if inner is not None and rest is not None else None
    return None
