# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""tomllib (the standard library's TOML reader): TOML the model wrote in its arguments
(fixable) and files the tool read from disk (ambiguous)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from generate import A, Case, F, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "tomllib"
REQUIRES: list[str] = []  # the standard library (Python 3.11+)

MODEL_TOML: list[tuple[str, str]] = [
    ("unquoted-string", "name = hello world\n"),
    ("unquoted-single-word", "name = hello\n"),
    ("missing-equals", 'name "x"\n'),
    ("colon-instead-of-equals", 'name: "x"\n'),
    ("duplicate-key", 'name = "a"\nname = "b"\n'),
    ("duplicate-table", '[server]\nport = 1\n[server]\nhost = "x"\n'),
    ("table-redefines-key", 'server = "a"\n[server]\nport = 1\n'),
    ("unclosed-table-header", "[server\nport = 1\n"),
    ("unclosed-array", "ports = [80, 443\n"),
    ("unclosed-inline-table", 'owner = { name = "x"\n'),
    ("inline-table-newline", 'owner = {\n  name = "x"\n}\n'),
    ("inline-table-trailing-comma", 'owner = { name = "x", }\n'),
    ("unclosed-basic-string", 'title = "hello\n'),
    ("unclosed-literal-string", "title = 'hello\n"),
    ("unclosed-multiline", 'doc = """\nhello\n'),
    ("bad-escape", 'path = "C:\\Users\\me"\n'),
    ("bad-unicode-escape", 'x = "\\uD800"\n'),
    ("short-unicode-escape", 'x = "\\u12"\n'),
    ("python-true", "debug = True\n"),
    ("json-null", "value = null\n"),
    ("none-value", "value = None\n"),
    ("missing-value", "value =\n"),
    ("leading-zero", "port = 0080\n"),
    ("underscore-trailing", "n = 1_000_\n"),
    ("double-underscore", "n = 1__000\n"),
    ("float-no-leading-digit", "x = .5\n"),
    ("float-trailing-dot", "x = 5.\n"),
    ("exponent-bad", "x = 1e\n"),
    ("hex-bad", "x = 0xG1\n"),
    ("plus-hex", "x = +0x10\n"),
    ("date-bad-month", "d = 2024-13-01\n"),
    ("date-bad-day", "d = 2024-02-30\n"),
    ("time-bad-hour", "t = 25:00:00\n"),
    ("datetime-slash", "d = 2024/01/02\n"),
    ("datetime-bad-offset", "d = 2024-01-02T10:00:00+25:00\n"),
    ("key-with-space", 'first name = "x"\n'),
    ("key-empty-bare", ' = "x"\n'),
    ("dotted-key-conflict", "a.b = 1\na.b.c = 2\n"),
    ("array-of-tables-conflict", 'fruit = []\n[[fruit]]\nname = "x"\n'),
    ("table-after-array-of-tables", '[[fruit]]\nname = "a"\n[fruit]\ncolor = "r"\n'),
    ("inline-table-extended", "a = {b = 1}\n[a.c]\nd = 2\n"),
    ("two-values-one-line", "a = 1 b = 2\n"),
    ("comment-no-hash", "a = 1 // comment\n"),
    ("array-missing-comma", "a = [1 2]\n"),
    ("array-double-comma", "a = [1,,2]\n"),
    ("control-char-in-string", 'a = "x\x01y"\n'),
    ("yaml-list", "items:\n  - a\n"),
    ("json-object", '{"name": "x"}\n'),
    ("ini-section-semicolon", '[main]\n; comment\nkey = "v"\n'),
    ("header-with-equals", "[server = 1]\n"),
    ("nan-uppercase", "x = NaN\n"),
    ("inf-uppercase", "x = Infinity\n"),
]


def cases(ctx: Context) -> Iterator[Case]:
    import tomllib

    for name, text in MODEL_TOML:
        exc = _catch(lambda: tomllib.loads(text))
        yield Case(
            f"tomllib-{name}",
            LIBRARY,
            f"TOML from the arguments ({name})",
            F,
            None,
            exc,
            "parse_toml",
            arguments={"toml": text},
        )

    # read_config: the model gave only the path; the content is the file's
    missing = ctx.tmp / "pyproject.toml"
    exc = _catch(lambda: tomllib.load(open(missing, "rb")))  # noqa: SIM115
    yield Case(
        "tomllib-file-missing",
        LIBRARY,
        "file does not exist",
        A,
        None,
        exc,
        "read_config",
        arguments={"path": str(missing)},
    )
    broken = ctx.tmp / "Cargo.toml"
    broken.write_text('[package]\nname = "x"\nversion = 0.1.0\n')
    exc = _catch(lambda: tomllib.load(broken.open("rb")))
    yield Case(
        "tomllib-file-corrupt",
        LIBRARY,
        "file on disk is broken TOML",
        A,
        None,
        exc,
        "read_config",
        arguments={"path": str(broken)},
    )
    binary = ctx.tmp / "config.toml"
    binary.write_bytes(b'name = "\xff\xfe"\n')
    exc = _catch(lambda: tomllib.load(binary.open("rb")))
    yield Case(
        "tomllib-file-not-utf8",
        LIBRARY,
        "file on disk not UTF-8",
        A,
        None,
        exc,
        "read_config",
        arguments={"path": str(binary)},
    )
    exc = _catch(lambda: tomllib.load(open(ctx.tmp, "rb")))  # noqa: SIM115
    yield Case(
        "tomllib-is-directory",
        LIBRARY,
        "a directory where a file was expected",
        F,
        None,
        exc,
        "read_config",
        arguments={"path": str(ctx.tmp)},
    )
