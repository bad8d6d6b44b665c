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
        yield Case(f"csv-{name}", LIBRARY, f"CSV text from the arguments ({name})", F, None, exc, "parse_csv")
    for name, fmt in MODEL_FORMATS:
        exc = _catch(lambda: _read("a,b\n1,2\n", **fmt))
        yield Case(
            f"csv-{name}", LIBRARY, f"dialect option from the arguments ({name})", F, None, exc, "parse_csv"
        )
    writes: list[tuple[str, Any]] = [
        ("dictwriter-extra-field", lambda: _dict_write(["name", "city"], [{"name": "a", "country": "FR"}])),
        ("dictwriter-extrasaction-bad", lambda: _dict_write(["a"], [], extrasaction="skip")),
        ("dictwriter-row-not-dict", lambda: _dict_write(["a", "b"], [["1", "2"]])),  # type: ignore[list-item]
        ("writer-quote-none-needs-escape", lambda: _write([["a,b", "c"]], quoting=csv.QUOTE_NONE)),
        ("writer-row-not-iterable", lambda: _write([3, 4])),
        (
            "writer-quote-none-quotechar",
            lambda: _write([['say "hi"']], quoting=csv.QUOTE_NONE, escapechar=None),
        ),
    ]
    for name, fn in writes:
        yield Case(
            f"csv-{name}", LIBRARY, f"rows from the arguments ({name})", F, None, _catch(fn), "write_csv"
        )
    exc = _catch(lambda: csv.Sniffer().sniff(""))
    yield Case("csv-sniff-empty", LIBRARY, "empty sample to sniff", F, None, exc, "parse_csv")

    # files the tool read
    exc = _catch(lambda: _read(open(ctx.tmp / "sales.csv").read()))  # noqa: SIM115
    yield Case("csv-file-missing", LIBRARY, "file does not exist", A, None, exc, "read_csv")
    broken = ctx.tmp / "export.csv"
    broken.write_text('id,name\n1,"unterminated\n', encoding="utf-8")
    exc = _catch(lambda: list(csv.reader(broken.open(newline=""), strict=True)))
    yield Case("csv-file-unterminated", LIBRARY, "file on disk ends inside a quote", A, None, exc, "read_csv")
    latin = ctx.tmp / "legacy.csv"
    latin.write_bytes("id,city\n1,Z\u00fcrich\n".encode("latin-1"))
    exc = _catch(lambda: list(csv.reader(latin.open(encoding="utf-8", newline=""))))
    yield Case("csv-file-latin1", LIBRARY, "file on disk not UTF-8", A, None, exc, "read_csv")

    # the reader's field size limit
    exc = _catch(lambda: _read("a,b\n1," + "x" * 200_000 + "\n"))
    yield Case(
        "csv-field-limit", LIBRARY, "field larger than the field size limit", U, None, exc, "parse_csv"
    )
