# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""re (the standard library): regular expressions the model wrote in its arguments
(fixable); a file on disk to search (ambiguous)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from generate import A, Case, F, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "re"
REQUIRES: list[str] = []  # the standard library

MODEL_PATTERNS: list[tuple[str, str]] = [
    ("unbalanced-open", r"(foo|bar"),
    ("unbalanced-close", r"foo)bar"),
    ("nothing-to-repeat-star", r"*.py"),
    ("nothing-to-repeat-plus", r"+1 555"),
    ("nothing-to-repeat-question", r"?query=1"),
    ("multiple-repeat", r"a**"),
    ("possessive-after-brace", r"a{2}{3}"),
    ("unterminated-class", r"[a-z"),
    ("bad-range", r"[z-a]"),
    ("bad-range-class", r"[\w-z]"),
    ("lookbehind-variable", r"(?<=ab+)c"),
    ("lookbehind-alternation", r"(?<=a|bc)d"),
    ("unknown-group-ref", r"(?P<year>\d{4})-(?P=month)"),
    ("bad-group-name", r"(?P<1year>\d+)"),
    ("duplicate-group-name", r"(?P<n>\d)(?P<n>\w)"),
    ("named-group-js-style", r"(?<year>\d{4})"),
    ("invalid-group-ref-number", r"(a)\2"),
    ("pcre-unicode-property", r"\p{L}+"),
    ("pcre-hex-brace", r"\x{41}"),
    ("bad-escape-letter", r"\q"),
    ("bad-escape-end", "path\\"),
    ("bad-inline-flag", r"(?z)abc"),
    ("global-flag-not-at-start", r"abc(?i)def"),
    ("unknown-extension", r"(?<!)(?#x"),
    ("unterminated-comment", r"(?#comment"),
    ("conditional-bad", r"(?(foo)a|b)"),
    ("brace-min-greater", r"a{5,2}"),
    ("repeat-too-large", r"a{99999999999}"),
    ("atomic-group-unclosed", r"(?>abc"),
    ("glob-instead", r"**/*.py"),
    ("bad-octal", r"\777"),
    ("unicode-escape-short", r"\u12"),
    ("named-escape-unknown", r"\N{NOT A REAL NAME}"),
    ("character-class-unclosed-neg", r"[^abc"),
    ("flag-turn-off-unknown", r"(?-z:abc)"),
    ("bad-sub-template", "__SUB__"),
    ("bad-sub-group", "__SUB_GROUP__"),
]


def cases(ctx: Context) -> Iterator[Case]:
    for name, pattern in MODEL_PATTERNS:
        if pattern == "__SUB__":
            args = {"pattern": r"(\w+)@(\w+)", "replacement": r"\3 at \1", "text": "me@host"}
            exc = _catch(lambda: re.sub(args["pattern"], args["replacement"], args["text"]))
        elif pattern == "__SUB_GROUP__":
            args = {"pattern": r"(?P<user>\w+)@", "replacement": r"\g<usr>", "text": "me@host"}
            exc = _catch(lambda: re.sub(args["pattern"], args["replacement"], args["text"]))
        else:
            args = {"pattern": pattern}
            exc = _catch(lambda: re.compile(pattern))
        yield Case(
            f"re-{name}",
            LIBRARY,
            f"pattern from the arguments ({name})",
            F,
            None,
            exc,
            "grep",
            arguments=args,
        )

    exc = _catch(lambda: re.findall(r"TODO", (ctx.tmp / "main.py").read_text()))
    args = {"pattern": "TODO", "path": str(ctx.tmp / "main.py")}
    yield Case(
        "re-file-missing", LIBRARY, "file to search does not exist", A, None, exc, "grep", arguments=args
    )
    binary = ctx.tmp / "app.bin"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\xff\xfe")
    exc = _catch(lambda: re.findall(r"main", binary.read_text(encoding="utf-8")))
    args = {"pattern": "main", "path": str(binary)}
    yield Case("re-file-binary", LIBRARY, "file to search is binary", A, None, exc, "grep", arguments=args)
