# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""regex (the third-party engine): patterns the model wrote in its arguments (fixable),
including one whose backtracking runs past the tool's time limit; a file on disk to
search (ambiguous)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from generate import A, Case, F, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "regex"
REQUIRES = ["regex>=2023.12.25,<2027"]

MODEL_PATTERNS: list[tuple[str, str]] = [
    ("unbalanced-open", r"(foo|bar"),
    ("unbalanced-close", r"foo)bar"),
    ("nothing-to-repeat", r"*.log"),
    ("multiple-repeat", r"a{2}{3}"),
    ("unterminated-class", r"[A-Z"),
    ("bad-range", r"[9-0]"),
    ("unknown-property", r"\p{Letterz}+"),
    ("unknown-property-value", r"\p{Script=Klingon}"),
    ("unknown-posix-class", r"[[:letters:]]"),
    ("unknown-group-ref", r"(?P<y>\d{4})-(?P=m)"),
    ("bad-group-name", r"(?P<2x>a)"),
    ("bad-escape-end", "tail\\"),
    ("bad-inline-flag", r"(?Q)abc"),
    ("unterminated-comment", r"(?#note"),
    ("min-greater-than-max", r"x{9,3}"),
    ("repeat-too-large", r"a{4294967296}"),
    ("fuzzy-bad-constraint", r"(?:cat){e<=one}"),
    ("fuzzy-unclosed", r"(?:cat){e<=1"),
    ("set-operation-bad", r"(?V1)[[a-z]--]"),
    ("named-list-missing", r"\L<words>"),
    ("bad-hex-brace", r"\x{zz}"),
    ("bad-unicode-name", r"\N{NO SUCH CHARACTER}"),
    ("conditional-unknown-group", r"(?(name)a|b)"),
    ("recursion-unknown-group", r"(?&expr)"),
    ("atomic-unclosed", r"(?>abc"),
]


def cases(ctx: Context) -> Iterator[Case]:
    import regex

    for name, pattern in MODEL_PATTERNS:
        exc = _catch(lambda: regex.compile(pattern))
        yield Case(
            f"regex-{name}",
            LIBRARY,
            f"pattern from the arguments ({name})",
            F,
            None,
            exc,
            "search_text",
            arguments={"pattern": pattern},
        )
    sub = {"pattern": r"(\w+)@(\w+)", "replacement": r"\3", "text": "me@host"}
    exc = _catch(lambda: regex.sub(sub["pattern"], sub["replacement"], sub["text"]))
    yield Case(
        "regex-sub-bad-group",
        LIBRARY,
        "replacement names a missing group",
        F,
        None,
        exc,
        "search_text",
        arguments=sub,
    )
    # catastrophic backtracking: the tool's timeout stops the model's pattern
    slow = {"pattern": r"^(a|aa)+$", "text": "a" * 60 + "b"}
    exc = _catch(lambda: regex.match(slow["pattern"], slow["text"], timeout=0.05))
    yield Case(
        "regex-backtracking-timeout",
        LIBRARY,
        "pattern backtracks past the time limit",
        F,
        None,
        exc,
        "search_text",
        arguments=slow,
    )

    notes = ctx.tmp / "notes.md"
    exc = _catch(lambda: regex.findall(r"TODO", notes.read_text()))
    yield Case(
        "regex-file-missing",
        LIBRARY,
        "file to search does not exist",
        A,
        None,
        exc,
        "search_text",
        arguments={"pattern": "TODO", "path": str(notes)},
    )
