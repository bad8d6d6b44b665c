"""Credentials never restated: the masking every text toolerr writes goes through.

:func:`mask_secrets` replaces each credential that :data:`toolerr._rules.secrets.SECRET_PATTERNS`
finds with ``[redacted]``, keeping what names it (``postgres://app:[redacted]@db``,
``Authorization: Bearer [redacted]``). :func:`toolerr.adapters.clean_text` calls it, so
notes, abstract descriptions, C1 suffixes, the failure texts adapters write from
exceptions and the records that carry them never restate one. The agent's own history
(what the tool returned) is not toolerr's to change.
"""

from __future__ import annotations

import re

from ._rules.secrets import SECRET_PATTERNS

REDACTED = "[redacted]"

_PATTERNS = tuple(
    (name, re.compile(pattern), re.compile(pattern, re.IGNORECASE), mode, triggers)
    for name, pattern, mode, triggers, _source in SECRET_PATTERNS
)


def _spans(text: str) -> list[tuple[int, int, str]]:
    lowered = text.lower()
    same = len(lowered) == len(text)  # lower() kept every offset (not so for a few letters)
    found: set[tuple[int, int, str]] = set()
    for name, regex, insensitive, mode, triggers in _PATTERNS:
        if triggers and not any(trigger in lowered for trigger in triggers):
            continue
        if mode == "case":
            matches = regex.finditer(text)
        else:
            matches = regex.finditer(lowered) if same else insensitive.finditer(text)
        for match in matches:
            start, end = match.span("secret") if "secret" in regex.groupindex else match.span()
            if end > start:
                found.add((start, end, name))
    return sorted(found)


def mask_secrets(text: str) -> str:
    """``text`` with every credential masked (``[redacted]``); the same object when it holds
    none. A pattern with trigger strings runs only on a text holding one of them."""
    spans = _spans(text)
    if not spans:
        return text
    out = []
    position = 0
    for start, end, _name in spans:
        if end <= position:
            continue  # inside a span already masked
        if start >= position:
            out.append(text[position:start])
            out.append(REDACTED)
        position = end
    out.append(text[position:])
    return "".join(out)


def secret_names(text: str) -> list[str]:
    """The names of the credentials found in ``text``, by position (tests, reports)."""
    names: list[str] = []
    for _start, _end, name in _spans(text):
        if name not in names[-1:]:
            names.append(name)
    return names
