# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""json (the standard library): JSON the model wrote in its arguments (fixable); a page a
server sent and a file on disk (ambiguous: not the model's text); the interpreter's depth
and digit limits (unrecoverable)."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING

from generate import A, Case, F, U, _catch
from servers import route

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "json"
REQUIRES: list[str] = []  # the standard library

MODEL_JSON: list[tuple[str, str]] = [
    ("single-quotes", "{'city': 'Paris'}"),
    ("trailing-comma-object", '{"city": "Paris", "days": 3,}'),
    ("trailing-comma-array", '{"tags": ["a", "b",]}'),
    ("unquoted-keys", '{city: "Paris"}'),
    ("python-true", '{"debug": True}'),
    ("python-none", '{"value": None}'),
    ("nan-string", '{"x": nan}'),
    ("comment-line", '{\n  // the city\n  "city": "Paris"\n}'),
    ("comment-block", '{"city": /* where */ "Paris"}'),
    ("missing-comma", '{"city": "Paris" "days": 3}'),
    ("missing-colon", '{"city" "Paris"}'),
    ("missing-value", '{"city": }'),
    ("unclosed-object", '{"city": "Paris", "days": 3'),
    ("unclosed-array", '["a", "b"'),
    ("unclosed-string", '{"city": "Par'),
    ("extra-close", '{"city": "Paris"}}'),
    ("two-objects", '{"a": 1}\n{"b": 2}'),
    ("bad-escape", r'{"path": "C:\Users\me"}'),
    ("bad-unicode-escape", r'{"x": "\u12G4"}'),
    ("raw-newline-in-string", '{"text": "line one\nline two"}'),
    ("raw-tab-in-string", '{"text": "a\tb"}'),
    ("leading-zero", '{"port": 0080}'),
    ("hex-number", '{"mask": 0xFF}'),
    ("plus-sign", '{"delta": +1}'),
    ("dot-number", '{"ratio": .5}'),
    ("trailing-dot", '{"ratio": 5.}'),
    ("markdown-fence", '```json\n{"city": "Paris"}\n```'),
    ("prose-before", 'Here is the JSON: {"city": "Paris"}'),
    ("empty", ""),
    ("whitespace-only", "   \n"),
    ("yaml-instead", "city: Paris\ndays: 3"),
    ("smart-quotes", "{\u201ccity\u201d: \u201cParis\u201d}"),
    ("backtick-string", '{"cmd": `ls`}'),
    ("undefined", '{"x": undefined}'),
    ("array-missing-comma", "[1 2 3]"),
    ("double-comma", "[1,,2]"),
    ("equals-not-colon", '{"city" = "Paris"}'),
    ("key-not-string", '{1: "one"}'),
    ("truncated-after-key", '{"query": "select", "limit"'),
    ("bom", '\ufeff{"a": 1}'),
]


def cases(ctx: Context) -> Iterator[Case]:
    for name, text in MODEL_JSON:
        exc = _catch(lambda: json.loads(text))
        yield Case(
            f"json-{name}",
            LIBRARY,
            f"JSON from the arguments ({name})",
            F,
            None,
            exc,
            "call_api",
            arguments={"body": text},
        )
    body = b'{"a": 1}\xff'
    exc = _catch(lambda: json.loads(body))
    yield Case(
        "json-bytes-not-utf8",
        LIBRARY,
        "bytes argument not UTF-8",
        F,
        None,
        exc,
        "call_api",
        arguments={"body": body.decode("latin-1")},  # the byte 0xff as the model sent it: "ÿ"
    )

    # a server's page where JSON was expected: the text is not the model's
    url = f"http://127.0.0.1:{ctx.port}/s/{route('rest_html')}"

    def fetch_json() -> None:
        with urllib.request.urlopen(url, timeout=2) as response:
            json.loads(response.read().decode())

    yield Case(
        "json-server-html",
        LIBRARY,
        "server sent an HTML page",
        A,
        None,
        _catch(fetch_json),
        "fetch_json",
        arguments={"url": url},
    )
    cache = ctx.tmp / "cache.json"
    cache.write_text('{"items": [1, 2, 3')
    exc = _catch(lambda: json.load(cache.open()))
    yield Case(
        "json-file-truncated",
        LIBRARY,
        "file on disk cut short",
        A,
        None,
        exc,
        "read_cache",
        arguments={"path": str(cache)},
    )
    state = ctx.tmp / "state.json"
    exc = _catch(lambda: json.load(open(state)))  # noqa: SIM115
    yield Case(
        "json-file-missing",
        LIBRARY,
        "file does not exist",
        A,
        None,
        exc,
        "read_cache",
        arguments={"path": str(state)},
    )

    # the interpreter's limits
    deep = "[" * 100_000 + "]" * 100_000
    exc = _catch(lambda: json.loads(deep))
    yield Case(
        "json-too-deep",
        LIBRARY,
        "nesting beyond the recursion limit",
        U,
        None,
        exc,
        "call_api",
        arguments={"value": deep[:200] + "..."},  # 200,000 characters: only their start
    )
    digits = '{"n": ' + "7" * 5000 + "}"
    exc = _catch(lambda: json.loads(digits))
    yield Case(
        "json-int-digits",
        LIBRARY,
        "integer beyond the digit limit",
        U,
        None,
        exc,
        "call_api",
        arguments={"body": digits},
    )
