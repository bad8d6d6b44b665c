"""JSON white space outside strings: the canonical view of a text that the string ban
matches with ``ignore_json_whitespace`` (and the local decoder's failed-call ban builds
its banned strings in). Only the lexical state is tracked (outside a string, inside one,
after a backslash inside one); text that is not JSON is read the same way."""

from __future__ import annotations

OUT, STRING, ESCAPE = 0, 1, 2
"""Lexical states of JSON text: outside strings, inside a string, after a backslash in one."""

_JSON_SPACE = frozenset(" \t\n\r")


def canonical_json_text(text: str, state: int = OUT) -> tuple[str, int]:
    """``text`` without JSON white space outside strings, read from lexical ``state``;
    the canonical text and the state after it (0 outside strings, 1 in one, 2 after a
    backslash in one). Text that is not JSON is treated the same way, character by
    character."""
    if state == OUT and '"' not in text and not _JSON_SPACE.intersection(text):
        return text, OUT
    out: list[str] = []
    keep = out.append
    space = _JSON_SPACE
    for ch in text:
        if state == OUT:
            if ch in space:
                continue
            if ch == '"':
                state = STRING
        elif state == STRING:
            if ch == '"':
                state = OUT
            elif ch == "\\":
                state = ESCAPE
        else:
            state = STRING
        keep(ch)
    return "".join(out), state


def lexical_states(text: str) -> list[int]:
    """Lexical state before each character of a canonical ``text`` (and after the last)."""
    states = [OUT]
    state = OUT
    for ch in text:
        if state == OUT:
            if ch == '"':
                state = STRING
        elif state == STRING:
            if ch == '"':
                state = OUT
            elif ch == "\\":
                state = ESCAPE
        else:
            state = STRING
        states.append(state)
    return states
