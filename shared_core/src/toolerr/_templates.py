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

__all__ = ["SHELLS_BY_CLIENT", "TEMPLATES", "CompiledShell", "CompiledTemplate"]


class CompiledTemplate:
    __slots__ = ("prefix", "regex", "template")

    def __init__(self, template: R.Template) -> None:
        self.template = template
        self.regex = re.compile(template.start, re.DOTALL)
        self.prefix = _literal_prefix(template.start)


def _literal_prefix(pattern: str) -> str:
    """The literal text every match of ``pattern`` starts with (a cheap pre-check)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            out.append(pattern[i + 1])
            i += 2
            continue
        if ch in ".^$*+?{}[]\\|()":
            break
        if i + 1 < len(pattern) and pattern[i + 1] in "*?{":
            break  # this character is optional or repeated
        out.append(ch)
        i += 1
    return "".join(out)


_ALL_CLIENTS: tuple[str, ...] = R.FRAMEWORK_CLIENTS + R.CODING_AGENTS
TEMPLATES: dict[str, tuple[dict[str, list[CompiledTemplate]], list[CompiledTemplate]]] = {}
for _client in _ALL_CLIENTS:
    by_char: dict[str, list[CompiledTemplate]] = {}
    anywhere: list[CompiledTemplate] = []
    for _tpl in R.TEMPLATES:
        if "*" not in _tpl.clients and _client not in _tpl.clients:
            continue
        compiled = CompiledTemplate(_tpl)
        firsts = _first_chars(_tpl.start)
        if firsts is None:
            anywhere.append(compiled)
        else:
            for first in sorted(firsts):
                by_char.setdefault(first, []).append(compiled)
    TEMPLATES[_client] = (by_char, anywhere)


class CompiledShell:
    __slots__ = ("begins", "error_line", "exit", "first", "fmt")

    def __init__(self, fmt: R.ShellFormat) -> None:
        self.fmt = fmt
        self.begins = re.compile(fmt.begins, re.DOTALL) if fmt.begins else None
        self.first = _first_literal(fmt.begins) if fmt.begins else None
        self.exit = re.compile(fmt.exit)
        self.error_line = re.compile(fmt.error_line) if fmt.error_line else None


_SHELLS: tuple[CompiledShell, ...] = tuple(CompiledShell(fmt) for fmt in R.SHELL_FORMATS)


def _shells_for(client: str) -> tuple[CompiledShell, ...]:
    # Formats marked ``any_client`` (cheap, unmistakable beginnings) are recognised for every
    # client: a result in Qwen's or Codex's shell format is shell output whoever sent it.
    return tuple(s for s in _SHELLS if s.fmt.any_client or client in s.fmt.clients)


SHELLS_BY_CLIENT: dict[str, tuple[CompiledShell, ...]] = {c: _shells_for(c) for c in _ALL_CLIENTS}
