# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""csv (the standard library): CSV text and dialect options the model wrote in its
arguments (fixable); files on disk (ambiguous); the field size limit (unrecoverable)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "csv"
REQUIRES: list[str] = []  # the standard library


def _read(text: str, **fmt: Any) -> None:
    list(csv.reader(io.StringIO(text, newline=""), **fmt))


def _dict_write(fieldnames: list[str], rows: list[dict[str, Any]], **fmt: Any) -> None:
    writer = csv.DictWriter(io.StringIO(), fieldnames=fieldnames, **fmt)
    writer.writeheader()
    writer.writerows(rows)


def _write(rows: list[Any], **fmt: Any) -> None:
    csv.writer(io.StringIO(), **fmt).writerows(rows)


STRICT = {"strict": True}

MODEL_READS: list[tuple[str, str, dict[str, Any]]] = [
    ("strict-quote-then-text", 'name,city\n"Ann"x,Paris\n', STRICT),
    ("strict-unclosed-quote", 'name,city\n"Ann,Paris\n', STRICT),
    ("strict-quote-mid-field", 'id,note\n1,"say "hi" now"\n', STRICT),
    ("strict-escaped-wrong", 'a,b\n"x\\"y",2\n', STRICT),
    ("strict-semicolon-quoted", '"a";"b"\n"1"x;"2"\n', {"delimiter": ";", "strict": True}),
    ("tsv-strict-quote", 'id\tname\n1\t"Bob"s\n', {"delimiter": "\t", "strict": True}),
    ("strict-space-after-quote", 'a,b\n"x" ,y\n', STRICT),
]

MODEL_FORMATS: list[tuple[str, dict[str, Any]]] = [
    ("delimiter-two-chars", {"delimiter": "||"}),
    ("delimiter-empty", {"delimiter": ""}),
    ("delimiter-word", {"delimiter": "comma"}),
    ("delimiter-int", {"delimiter": 44}),
    ("quotechar-two-chars", {"quotechar": "''"}),
    ("quotechar-int", {"quotechar": 34}),
    ("quoting-string", {"quoting": "QUOTE_ALL"}),
    ("quoting-out-of-range", {"quoting": 9}),
    ("escapechar-two-chars", {"escapechar": "\\\\"}),
    ("lineterminator-int", {"lineterminator": 10}),
    ("unknown-option", {"separator": ";"}),
    ("dialect-unknown", {"dialect": "excel-semicolon"}),
]


def cases(ctx: Context) -> Iterator[Case]:
    for name, text, fmt in MODEL_READS:
        exc = _catch(lambda: _read(text, **fmt))
        cause = f"CSV text from the arguments ({name})"
        yield Case(f"csv-{name}", LIBRARY, cause, F, None, exc, "parse_csv", arguments={"text": text, **fmt})
    for name, fmt in MODEL_FORMATS:
        text = "a,b\n1,2\n"
        exc = _catch(lambda: _read(text, **fmt))
        cause = f"dialect option from the arguments ({name})"
        yield Case(f"csv-{name}", LIBRARY, cause, F, None, exc, "parse_csv", arguments={"text": text, **fmt})
    # (slug, the model's arguments, the call); csv.QUOTE_NONE is 3 in the arguments
    writes: list[tuple[str, dict[str, Any], Any]] = [
        (
            "dictwriter-extra-field",
            {"fieldnames": ["name", "city"], "rows": [{"name": "a", "country": "FR"}]},
            lambda: _dict_write(["name", "city"], [{"name": "a", "country": "FR"}]),
        ),
        (
            "dictwriter-extrasaction-bad",
            {"fieldnames": ["a"], "rows": [], "extrasaction": "skip"},
            lambda: _dict_write(["a"], [], extrasaction="skip"),
        ),
        (
            "dictwriter-row-not-dict",
            {"fieldnames": ["a", "b"], "rows": [["1", "2"]]},
            lambda: _dict_write(["a", "b"], [["1", "2"]]),  # type: ignore[list-item]
        ),
        (
            "writer-quote-none-needs-escape",
            {"rows": [["a,b", "c"]], "quoting": csv.QUOTE_NONE},
            lambda: _write([["a,b", "c"]], quoting=csv.QUOTE_NONE),
        ),
        ("writer-row-not-iterable", {"rows": [3, 4]}, lambda: _write([3, 4])),
        (
            "writer-quote-none-quotechar",
            {"rows": [['say "hi"']], "quoting": csv.QUOTE_NONE, "escapechar": None},
            lambda: _write([['say "hi"']], quoting=csv.QUOTE_NONE, escapechar=None),
        ),
    ]
    for name, args, fn in writes:
        cause = f"rows from the arguments ({name})"
        yield Case(f"csv-{name}", LIBRARY, cause, F, None, _catch(fn), "write_csv", arguments=args)
    exc = _catch(lambda: csv.Sniffer().sniff(""))
    yield Case(
        "csv-sniff-empty", LIBRARY, "empty sample to sniff", F, None, exc, "parse_csv", arguments={"text": ""}
    )

    # files the tool read: the arguments hold only the path
    sales = ctx.tmp / "sales.csv"
    exc = _catch(lambda: _read(open(sales).read()))  # noqa: SIM115
    yield Case(
        "csv-file-missing",
        LIBRARY,
        "file does not exist",
        A,
        None,
        exc,
        "read_csv",
        arguments={"path": str(sales)},
    )
    broken = ctx.tmp / "export.csv"
    broken.write_text('id,name\n1,"unterminated\n', encoding="utf-8")
    exc = _catch(lambda: list(csv.reader(broken.open(newline=""), strict=True)))
    cause = "file on disk ends inside a quote"
    yield Case(
        "csv-file-unterminated", LIBRARY, cause, A, None, exc, "read_csv", arguments={"path": str(broken)}
    )
    latin = ctx.tmp / "legacy.csv"
    latin.write_bytes("id,city\n1,Z\u00fcrich\n".encode("latin-1"))
    exc = _catch(lambda: list(csv.reader(latin.open(encoding="utf-8", newline=""))))
    yield Case(
        "csv-file-latin1",
        LIBRARY,
        "file on disk not UTF-8",
        A,
        None,
        exc,
        "read_csv",
        arguments={"path": str(latin)},
    )

    # the reader's field size limit: the text (200,006 chars) is stored as its first 200 chars
    text = "a,b\n1," + "x" * 200_000 + "\n"
    exc = _catch(lambda: _read(text))
    cause = "field larger than the field size limit"
    yield Case(
        "csv-field-limit", LIBRARY, cause, U, None, exc, "parse_csv", arguments={"value": text[:200] + "..."}
    )
