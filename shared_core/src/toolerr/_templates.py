"""The clients' templates and shell-output formats (:mod:`toolerr._rules`), compiled once
per client: each template keyed by the characters its matches can start with (a template
that cannot be keyed is tried on every text), each shell format with its literal first
character (``_detect`` reads results through them).
"""

from __future__ import annotations

import re

from . import _rules as R
from ._scanner import first_chars as _first_chars
from ._scanner import first_literal as _first_literal

__all__ = [
    "SHELLS_BY_CLIENT",
    "TEMPLATES",
    "TEMPLATE_PICKERS",
    "CompiledShell",
    "CompiledTemplate",
    "TemplatePicker",
]


class CompiledTemplate:
    __slots__ = ("prefix", "regex", "template")

    def __init__(self, template: R.Template, first: str | None = None) -> None:
        self.template = template
        self.regex = re.compile(template.start, re.DOTALL)
        self.prefix = _prefix_for(template.start, first)


def _prefix_for(pattern: str, first: str | None) -> str:
    """The literal text every match of ``pattern`` starts with, for texts whose first character
    is ``first``: a leading optional group ``(?:X)?`` is there when only X can start with
    it, and absent when only the rest can (the smolagents templates: ``Error:\n`` for a text
    that starts with ``E``, ``Call id: `` for one that starts with ``C``)."""
    split = _optional_group(pattern) if first is not None else None
    if split is not None:
        inner, rest = split
        in_inner, in_rest = _first_chars(inner), _first_chars(rest)
        if in_inner is not None and in_rest is not None:
            if first in in_inner and first not in in_rest:
                return _literal_prefix(inner)
            if first in in_rest and first not in in_inner:
                return _literal_prefix(rest)
    return _literal_prefix(pattern)


def _optional_group(pattern: str) -> tuple[str, str] | None:
    """(X, the rest) of a pattern that starts with an optional group ``(?:X)?`` without
    alternatives; None for any other pattern."""
    if not pattern.startswith("(?:"):
        return None
    depth = 0
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            return None  # a class could hold a parenthesis: not read
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                inner, rest = pattern[3:i], pattern[i + 2 :]
                if pattern[i + 1 : i + 2] != "?" or "|" in inner or rest.startswith(("?", "+")):
                    return None
                return inner, rest
        i += 1
    return None


def _literal_prefix(pattern: str) -> str:
    """The literal text every match of ``pattern`` starts with (a cheap pre-check)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        size = 1
        if ch == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            # an escaped mark; NB a quantifier after it is not read (``\.?`` gives ".")
            out.append(pattern[i + 1])
            i += 2
            continue
        if ch == "\\" and pattern[i + 1 : i + 2] in _ESCAPES:
            ch = _ESCAPES[pattern[i + 1]]
            size = 2
        elif ch in ".^$*+?{}[]\\|()":
            break
        if pattern[i + size : i + size + 1] in ("*", "?", "{"):
            break  # this character is optional or repeated
        out.append(ch)
        i += size
    return "".join(out)


_ESCAPES = {"n": "\n", "t": "\t"}


_ALL_CLIENTS: tuple[str, ...] = R.FRAMEWORK_CLIENTS + R.CODING_AGENTS
TEMPLATES: dict[str, tuple[dict[str, list[CompiledTemplate]], list[CompiledTemplate]]] = {}
for _client in _ALL_CLIENTS:
    by_char: dict[str, list[CompiledTemplate]] = {}
    anywhere: list[CompiledTemplate] = []
    for _tpl in R.TEMPLATES:
        if "*" not in _tpl.clients and _client not in _tpl.clients:
            continue
        firsts = _first_chars(_tpl.start)
        if firsts is None:
            anywhere.append(CompiledTemplate(_tpl))
        else:
            for first in sorted(firsts):
                by_char.setdefault(first, []).append(CompiledTemplate(_tpl, first))
    TEMPLATES[_client] = (by_char, anywhere)


class TemplatePicker:
    """The templates keyed by one first character, narrowed by their literal prefixes: one
    match of the alternation of the prefixes (longest first) gives the longest prefix a text
    starts with, and the candidates are the templates whose prefix begins it, in their
    order, then the templates tried on every text. With fewer than two prefixes, all are
    candidates (the match would cost more than it spares)."""

    __slots__ = ("by_prefix", "prefixes", "rest")

    def __init__(self, templates: list[CompiledTemplate], anywhere: list[CompiledTemplate]) -> None:
        distinct = sorted({t.prefix for t in templates if t.prefix}, key=len, reverse=True)
        if len(distinct) < 2:
            distinct = []
        self.prefixes = re.compile("|".join(re.escape(p) for p in distinct)) if distinct else None
        self.by_prefix = {p: (*(t for t in templates if p.startswith(t.prefix)), *anywhere) for p in distinct}
        self.rest = (*(t for t in templates if not t.prefix or not distinct), *anywhere)

    def candidates(self, window: str) -> tuple[CompiledTemplate, ...]:
        m = self.prefixes.match(window) if self.prefixes is not None else None
        return self.rest if m is None else self.by_prefix[m.group()]


# client -> first character -> picker; a first character without one: ``anywhere`` alone
TEMPLATE_PICKERS: dict[str, dict[str, TemplatePicker]] = {
    client: {first: TemplatePicker(group, anywhere) for first, group in by_char.items()}
    for client, (by_char, anywhere) in TEMPLATES.items()
}


class CompiledShell:
    __slots__ = ("begins", "error_line", "exit", "first", "fmt", "prefix")

    def __init__(self, fmt: R.ShellFormat) -> None:
        self.fmt = fmt
        self.begins = re.compile(fmt.begins, re.DOTALL) if fmt.begins else None
        self.first = _first_literal(fmt.begins) if fmt.begins else None
        self.prefix = _literal_prefix(fmt.begins) if fmt.begins else ""  # a cheap pre-check
        self.exit = re.compile(fmt.exit)
        self.error_line = re.compile(fmt.error_line) if fmt.error_line else None


_SHELLS: tuple[CompiledShell, ...] = tuple(CompiledShell(fmt) for fmt in R.SHELL_FORMATS)


def _shells_for(client: str) -> tuple[CompiledShell, ...]:
    # Formats marked ``any_client`` (cheap, unmistakable beginnings) are recognised for every
    # client: a result in Qwen's or Codex's shell format is shell output whoever sent it.
    return tuple(s for s in _SHELLS if s.fmt.any_client or client in s.fmt.clients)


SHELLS_BY_CLIENT: dict[str, tuple[CompiledShell, ...]] = {c: _shells_for(c) for c in _ALL_CLIENTS}
