# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""Lark behind an agent's query and grammar tools: queries, formulas, grammars and parser
options the model wrote (fixable), saved queries and grammar or input files the tool read
where the model only named them (ambiguous), the services and stores the tools' tree
transformers call (transient when they throttle, stall or are locked), and the tools'
configuration, credentials, files and installation refusing (unrecoverable).

The tools:

- ``search_issues`` ``{"query"}``: the tool's issue-query language (``status = "open" and
  priority >= 2 order by created desc limit 20``), parsed by ``Lark(QUERY_GRAMMAR,
  parser="lalr")``, then turned into a filter by a ``Transformer`` that checks each field
  against the tool's documented schema (``status``, ``priority``, ``assignee``,
  ``created``, ``title``, ``labels``), each ``status`` against its closed vocabulary,
  compiles ``~`` patterns, reads ``YYYY-MM-DD`` dates, caps ``limit`` at 500 and resolves
  ``@login`` users through the GitHub users API (``GET /users/{login}``, a stand-in on
  127.0.0.1 answering GitHub's documented responses);
- ``run_saved_search`` ``{"name"}``: the same, with the query's text read from the tool's
  ``saved_searches.json`` by the name the model gave;
- ``compute_metric`` ``{"formula"}``: an arithmetic language over the tool's metric names
  (``avg(latency.p95) / 1000``), ``Lark(FORMULA_GRAMMAR)`` (Earley), evaluated by a
  ``Transformer`` that reads each metric from the tool's SQLite store;
- ``parse_with_grammar`` ``{"grammar", "text", "parser"?, "lexer"?, "start"?,
  "ambiguity"?}``: a grammar the model wrote, with the options it gave, then its text;
- ``parse_file`` ``{"grammar_path", "input_path"}``: ``Lark.open`` of a grammar file
  (``import_paths`` its directory), then the input file's text;
- ``check_grammar`` ``{"grammar"}``: ``Lark(grammar, parser="lalr", strict=True)`` (the
  tool's configuration: conflicts are errors, not resolved silently).

Labels follow the cause that was set up (docs: https://lark-parser.readthedocs.io/en/latest/
-- "Grammar Reference", "Classes" (``Lark`` options ``parser``, ``lexer``,
``ambiguity``, ``start``, ``strict``, ``import_paths``), "Visitors and Transformers"
(``VisitError``: "an exception raised inside a callback is wrapped") and
https://lark-parser.readthedocs.io/en/latest/classes.html#exceptions: ``UnexpectedInput``
/ ``UnexpectedCharacters`` / ``UnexpectedToken`` / ``UnexpectedEOF``, ``GrammarError``,
``ConfigurationError``, ``LexError``). Fixable: a query or formula the model wrote that
does not parse (an LALR parser reports the end of input as an unexpected ``$END``
token, Earley as ``UnexpectedEOF``; a character no terminal matches is
``UnexpectedCharacters``), a field, status or metric name outside what the tool
documents, a date that is not a calendar date, a ``~`` pattern that is not a regular
expression, a limit over the documented maximum (each a ``VisitError`` around the tool's
check); a grammar the model wrote that Lark rejects (a rule used but not defined or
defined twice, an empty terminal, a bad repetition range, a reduce/reduce collision under
LALR, a zero-width regular expression, an import of a grammar Lark does not ship) and
parser options outside Lark's documented values or combinations (``ConfigurationError``),
and text that the model's own grammar does not accept.

Ambiguous: the model only named a saved search, a user, or a grammar/input file, and the
cause is in what the tool read or the service answered -- a saved query whose stored
text does not parse or uses a field or date that is not valid, a GitHub login that does
not exist (404: a typo, a renamed or deleted account), a grammar file that does not
exist or does not load (a rule defined twice, a terminal that can match nothing, a
grammar it imports that is missing or broken), an input file the grammar does not accept
or that is cut off, a metric stored as text in the store.

Transient: GitHub's documented rate limits (``429`` or ``403`` with ``retry-after`` for the
secondary limit; ``403`` with ``x-ratelimit-remaining: 0`` for the primary one,
https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api),
the users API refusing the connection, stalling (read timeout) or resetting it during the
transformer's lookup, and the metric store locked by another connection ("database is
locked", SQLITE_BUSY, https://www.sqlite.org/rescode.html#busy) -- turned away, or
unknown outcome for the timeout and the reset.

Unrecoverable: GitHub's ``401 Bad credentials`` and ``403 Resource not accessible by
integration`` (the tool's token), ``strict=True`` on an installation without the
optional ``interegular`` package (every ``check_grammar`` call fails), a grammar file or a metric
store the process may not read, a metric store never set up (no ``metrics`` table), an
installation without ``lark/grammars/common.lark`` (every grammar importing ``common``
fails) or without one of Lark's parser modules.

Not triggerable: Lark does no I/O of its own beyond reading grammar files and an optional
cache (a cache it cannot read or write is rebuilt or skipped silently); an LALR parser
built with an inline ``transformer=`` lets callback exceptions through unwrapped (the
tools here transform after parsing, so every callback error is a ``VisitError``);
``cache=`` with Earley is a ``ConfigurationError`` of the tool's own code, not left to
the model.
"""

from __future__ import annotations

import datetime
import importlib
import json
import re
import sqlite3
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files, _pkgcopy, _saas
from ._common import NE, UO, A, F, T, U
from ._saas import Reply

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "lark"
REQUIRES = ["lark==1.3.1"]

QUERY_GRAMMAR = r"""
start: expr order? limit?
?expr: or_expr
?or_expr: and_expr (_OR and_expr)*
?and_expr: not_expr (_AND not_expr)*
?not_expr: _NOT not_expr -> negate
         | atom
?atom: FIELD OP value                      -> compare
     | FIELD _IN "[" value ("," value)* "]" -> within
     | "(" expr ")"
?value: ESCAPED_STRING -> string
      | SIGNED_NUMBER  -> number
      | DATE           -> date
      | "@" LOGIN      -> user
order: _ORDER _BY FIELD DIRECTION?
limit: _LIMIT INT
_OR.2: "or"
_AND.2: "and"
_NOT.2: "not"
_IN.2: "in"
_ORDER.2: "order"
_BY.2: "by"
_LIMIT.2: "limit"
DIRECTION.2: "asc" | "desc"
OP: "=" | "!=" | ">=" | "<=" | ">" | "<" | "~"
FIELD: /[a-z_]+/
LOGIN: /[A-Za-z0-9][A-Za-z0-9-]*/
DATE.3: /\d{4}-\d{2}-\d{2}/
%import common.ESCAPED_STRING
%import common.SIGNED_NUMBER
%import common.INT
%import common.WS
%ignore WS
"""

FORMULA_GRAMMAR = r"""
?start: sum
?sum: product
    | sum "+" product -> add
    | sum "-" product -> sub
?product: atom
    | product "*" atom -> mul
    | product "/" atom -> div
?atom: NUMBER              -> number
     | "-" atom            -> neg
     | FUNC "(" METRIC ")" -> call
     | METRIC              -> metric
     | "(" sum ")"
FUNC.2: "avg" | "max" | "min" | "sum"
METRIC: /[a-z_]+(\.[a-z0-9_]+)*/
%import common.NUMBER
%import common.WS
%ignore WS
"""

FIELDS = {
    "status": "text",
    "priority": "number",
    "assignee": "user",
    "created": "date",
    "title": "text",
    "labels": "text",
}
STATUSES = ("open", "in_progress", "closed")
MAX_LIMIT = 500


class _QueryBuilder:
    """The ``search_issues`` transformer (built lazily: lark is imported inside)."""

    @staticmethod
    def make(users_base: str) -> Any:
        from lark import Transformer

        class QueryBuilder(Transformer):  # type: ignore[misc]
            def string(self, items: list[Any]) -> str:
                return json.loads(items[0])

            def number(self, items: list[Any]) -> float:
                return float(items[0])

            def date(self, items: list[Any]) -> datetime.date:
                return datetime.date.fromisoformat(str(items[0]))

            def user(self, items: list[Any]) -> str:
                url = f"{users_base}/users/{items[0]}"
                with urllib.request.urlopen(url, timeout=_saas.TIMEOUT) as response:
                    return json.load(response)["login"]

            def _field(self, name: str) -> str:
                if name not in FIELDS:
                    raise ValueError(f"unknown field {name!r}; fields are: {', '.join(FIELDS)}")
                return name

            def compare(self, items: list[Any]) -> tuple[str, str, Any]:
                field, op, value = self._field(str(items[0])), str(items[1]), items[2]
                if op == "~":
                    re.compile(value)
                if field == "status" and value not in STATUSES:
                    raise ValueError(f"status must be one of {', '.join(STATUSES)}, not {value!r}")
                return (field, op, value)

            def within(self, items: list[Any]) -> tuple[str, str, Any]:
                return (self._field(str(items[0])), "in", items[1:])

            def order(self, items: list[Any]) -> tuple[str, str]:
                return (self._field(str(items[0])), str(items[1]) if len(items) > 1 else "asc")

            def limit(self, items: list[Any]) -> int:
                n = int(items[0])
                if n > MAX_LIMIT:
                    raise ValueError(f"limit must be at most {MAX_LIMIT}, not {n}")
                return n

        return QueryBuilder()


_PARSERS: dict[str, Any] = {}


def _query_parser() -> Any:
    from lark import Lark

    if "query" not in _PARSERS:
        _PARSERS["query"] = Lark(QUERY_GRAMMAR, parser="lalr")
    return _PARSERS["query"]


def search_issues(query: str, users_base: str) -> Any:
    tree = _query_parser().parse(query)
    return _QueryBuilder.make(users_base).transform(tree)


def _formula_evaluator(store: Path) -> Any:
    from lark import Transformer

    class Evaluator(Transformer):  # type: ignore[misc]
        def number(self, items: list[Any]) -> float:
            return float(items[0])

        def neg(self, items: list[Any]) -> float:
            return -items[0]

        def add(self, items: list[Any]) -> float:
            return items[0] + items[1]

        def sub(self, items: list[Any]) -> float:
            return items[0] - items[1]

        def mul(self, items: list[Any]) -> float:
            return items[0] * items[1]

        def div(self, items: list[Any]) -> float:
            return items[0] / items[1]

        def _values(self, name: str) -> list[Any]:
            con = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=0)
            try:
                rows = con.execute("SELECT value FROM metrics WHERE name = ?", (name,)).fetchall()
            finally:
                con.close()
            if not rows:
                raise KeyError(f"unknown metric {name!r}")
            return [r[0] for r in rows]

        def metric(self, items: list[Any]) -> Any:
            return self._values(str(items[0]))[-1]

        def call(self, items: list[Any]) -> Any:
            values = self._values(str(items[1]))
            fn = str(items[0])
            return (
                sum(values) / len(values) if fn == "avg" else {"max": max, "min": min, "sum": sum}[fn](values)
            )

    return Evaluator()


def compute_metric(formula: str, store: Path) -> Any:
    from lark import Lark

    if "formula" not in _PARSERS:
        _PARSERS["formula"] = Lark(FORMULA_GRAMMAR)
    return _formula_evaluator(store).transform(_PARSERS["formula"].parse(formula))


def parse_with_grammar(grammar: str, text: str, **options: Any) -> Any:
    from lark import Lark

    return Lark(grammar, **options).parse(text)


def parse_file(grammar_path: Path, input_path: Path) -> Any:
    from lark import Lark

    parser = Lark.open(str(grammar_path), import_paths=[str(grammar_path.parent)])
    return parser.parse(input_path.read_text())


def check_grammar(grammar: str) -> Any:
    from lark import Lark

    return Lark(grammar, parser="lalr", strict=True)


# ---- the model's queries, formulas and grammars ------------------------------------------

# (slug, the query, cause)
QUERY_SYNTAX: list[tuple[str, str, str]] = [
    ("double-equals", 'status == "open"', "== instead of ="),
    ("unquoted-value", "status = open and priority > 2", "text value without quotes"),
    ("dangling-and", 'status = "open" and', "query ends after and"),
    ("sql-where", 'WHERE status = "open"', "SQL keyword in upper case"),
    ("unclosed-paren", '(status = "open" or status = "in_progress" and priority > 2', "parenthesis never closed"),
]  # fmt: skip

QUERY_SEMANTIC: list[tuple[str, str, str]] = [
    ("unknown-field", 'state = "open"', "field not in the tool's schema"),
    ("status-not-in-vocabulary", 'status = "done"', "status outside the documented values"),
    ("date-not-calendar", "created >= 2026-02-30", "date that is not a calendar date"),
    ("regex-invalid", 'title ~ "crash (login"', "~ pattern that is not a regular expression"),
    ("limit-over-max", 'status = "open" limit 5000', "limit over the documented maximum"),
]  # fmt: skip

FORMULA_SYNTAX: list[tuple[str, str, str]] = [
    ("trailing-operator", "avg(latency.p95) /", "formula ends after an operator"),
    ("power-operator", "errors.count ** 2", "** which the language lacks"),
]

# (slug, the grammar, the text, the options, cause)
GRAMMARS: list[tuple[str, str, str, dict[str, Any], str]] = [
    ("rule-undefined", 'start: pair ("," pair)*\npair: key "=" valu\nkey: /[a-z]+/\nvalue: /[0-9]+/\n', "a=1,b=2", {}, "a rule used but never defined"),
    ("rule-defined-twice", 'start: item+\nitem: "a"\nitem: "b"\n', "ab", {}, "a rule defined twice"),
    ("empty-terminal", 'start: "x" SEP "y"\nSEP: ""\n', "xy", {}, "an empty terminal"),
    ("bad-range", 'start: "ab"~3..1\n', "ab", {}, "a repetition range with min above max"),
    ("reduce-collision", 'start: a | b\na: "x"\nb: "x"\n', "x", {"parser": "lalr"}, "two rules for the same input under LALR"),
    ("import-not-shipped", "start: JSON_STRING\n%import json.JSON_STRING\n", '"a"', {}, "an import of a grammar Lark does not ship"),
]  # fmt: skip

OPTIONS: list[tuple[str, dict[str, Any], str]] = [
    ("parser-unknown", {"parser": "peg"}, "a parser Lark does not have"),
    (
        "lexer-not-for-parser",
        {"parser": "lalr", "lexer": "dynamic"},
        "a lexer the LALR parser does not support",
    ),
    ("ambiguity-with-lalr", {"parser": "lalr", "ambiguity": "explicit"}, "disambiguation option with LALR"),
]

KV_GRAMMAR = 'start: pair ("," pair)*\npair: KEY "=" NUMBER\nKEY: /[a-z]+/\n%import common.NUMBER\n'


def _model_cases(ctx: Context, users_base: str, store: Path) -> Iterator[Case]:
    for slug, query, cause in QUERY_SYNTAX + QUERY_SEMANTIC:
        exc = _catch(lambda: search_issues(query, users_base))
        yield Case(
            f"lark-query-{slug}",
            LIBRARY,
            f"the model's query: {cause}",
            F,
            None,
            exc,
            "search_issues",
            {"query": query},
        )

    for slug, formula, cause in FORMULA_SYNTAX:
        exc = _catch(lambda: compute_metric(formula, store))
        yield Case(
            f"lark-formula-{slug}",
            LIBRARY,
            f"the model's formula: {cause}",
            F,
            None,
            exc,
            "compute_metric",
            {"formula": formula},
        )
    formula = "avg(latency.p99) / 1000"
    exc = _catch(lambda: compute_metric(formula, store))
    yield Case(
        "lark-formula-unknown-metric",
        LIBRARY,
        "the model's formula: a metric the tool does not have",
        F,
        None,
        exc,
        "compute_metric",
        {"formula": formula},
    )

    for slug, grammar, text, options, cause in GRAMMARS:
        exc = _catch(lambda: parse_with_grammar(grammar, text, **options))
        yield Case(
            f"lark-grammar-{slug}",
            LIBRARY,
            f"the model's grammar: {cause}",
            F,
            None,
            exc,
            "parse_with_grammar",
            {"grammar": grammar, "text": text, **options},
        )
    for slug, options, cause in OPTIONS:
        exc = _catch(lambda: parse_with_grammar(KV_GRAMMAR, "a=1", **options))
        yield Case(
            f"lark-option-{slug}",
            LIBRARY,
            f"the model's parser options: {cause}",
            F,
            None,
            exc,
            "parse_with_grammar",
            {"grammar": KV_GRAMMAR, "text": "a=1", **options},
        )
    for slug, text, options, cause in [
        ("text-lalr", "a=1,b=", {"parser": "lalr"}, "text ends where the grammar expects a number"),
        ("text-earley", "a=1;b=2", {}, "text with a separator the grammar does not have"),
    ]:
        exc = _catch(lambda: parse_with_grammar(KV_GRAMMAR, text, **options))
        yield Case(
            f"lark-grammar-{slug}",
            LIBRARY,
            f"the model's text for its grammar: {cause}",
            F,
            None,
            exc,
            "parse_with_grammar",
            {"grammar": KV_GRAMMAR, "text": text, **options},
        )


# ---- what the tools read ----------------------------------------------------------------

SAVED = {
    "my-open-bugs": 'status = "open" and labels = "bug" and assignee = @octocat order by created desc',
    "stale-triage": 'status = "open" and created < 2025-13-01',
    "release-blockers": 'status = "open" and (labels = "blocker" or priority >= 3',
    "old-escalations": 'severity >= 2 and status != "closed"',
    "weekly-report": 'status = "closed" and closed_at >= 2026-01-05 limit 100',
    "wontfix-cleanup": 'status = "wontfix" order by created asc',
}


def _run_saved(root: Path, name: str, users_base: str) -> Any:
    query = json.loads((root / "saved_searches.json").read_text())[name]
    return search_issues(query, users_base)


def _read_cases(ctx: Context, root: Path, users_base: str, store: Path) -> Iterator[Case]:
    (root / "saved_searches.json").write_text(json.dumps(SAVED))
    for name, cause in [
        ("stale-triage", "saved query with a date that is not a calendar date"),
        ("release-blockers", "saved query with a parenthesis never closed"),
        ("old-escalations", "saved query on a field the schema no longer has"),
        ("weekly-report", "saved query on a field the schema does not have"),
        ("wontfix-cleanup", "saved query with a status outside the documented values"),
    ]:
        exc = _catch(lambda: _run_saved(root, name, users_base))
        yield Case(f"lark-saved-{name}", LIBRARY, cause, A, None, exc, "run_saved_search", {"name": name})

    grammars = root / "grammars"
    grammars.mkdir()
    (grammars / "ini.lark").write_text(
        'start: section*\nsection: "[" NAME "]" _NL pair*\npair: NAME "=" VALUE _NL\nNAME: /[A-Za-z_][A-Za-z0-9_.-]*/\n'
        "VALUE: /[^\\n]+/\n_NL: /\\n+/\n%ignore /[ \\t]+/\n"
    )
    (grammars / "settings.ini").write_text("[server]\nport = 8080\nhost: 0.0.0.0\n")
    (grammars / "broken.lark").write_text(
        'start: entry+\nentry: NAME ":" VALUE\nNAME: /[a-z]+/\nVALUE: /[^\\n]+/ |\n'
    )
    (grammars / "uses_tokens.lark").write_text('start: WORD+\n%import tokens.WORD\n%ignore " "\n')
    (grammars / "twice.lark").write_text('start: word+\nword: /[a-z]+/\nword: /[A-Z]+/\n%ignore " "\n')
    (grammars / "uses_lexicon.lark").write_text('start: WORD+\n%import lexicon.WORD\n%ignore " "\n')
    (grammars / "tokens.lark").write_text("WORD: /[a-z]+/\nNUMBER: [0-9]+\n")
    (grammars / "notes.txt").write_text("alpha beta gamma\n")
    (grammars / "truncated.ini").write_text("[server]\nport = 8080\n[data")
    files: list[tuple[str, str, str, str]] = [
        ("grammar-missing", "csv.lark", "settings.ini", "grammar file does not exist"),
        (
            "grammar-broken",
            "broken.lark",
            "notes.txt",
            "grammar file defines a terminal that can match nothing",
        ),
        ("grammar-rule-twice", "twice.lark", "notes.txt", "grammar file defines a rule twice"),
        (
            "grammar-import-missing",
            "uses_lexicon.lark",
            "notes.txt",
            "a grammar file it imports does not exist",
        ),
        (
            "grammar-import-broken",
            "uses_tokens.lark",
            "notes.txt",
            "a grammar file it imports has a syntax error",
        ),
        ("input-rejected", "ini.lark", "settings.ini", "input file the grammar does not accept"),
        ("input-truncated", "ini.lark", "truncated.ini", "input file cut off"),
    ]
    for slug, grammar, text, cause in files:
        exc = _catch(lambda: parse_file(grammars / grammar, grammars / text))
        yield Case(
            f"lark-file-{slug}",
            LIBRARY,
            cause,
            A,
            None,
            exc,
            "parse_file",
            {"grammar_path": str(grammars / grammar), "input_path": str(grammars / text)},
        )

    con = sqlite3.connect(store)
    con.execute("INSERT INTO metrics VALUES ('queue.depth', 'n/a')")
    con.commit()
    con.close()
    formula = "max(queue.depth) / 10"
    exc = _catch(lambda: compute_metric(formula, store))
    yield Case(
        "lark-formula-metric-stored-as-text",
        LIBRARY,
        "the metric store holds a value as text",
        A,
        None,
        exc,
        "compute_metric",
        {"formula": formula},
    )


# ---- the GitHub users API behind @login ---------------------------------------------------

_DOCS_USER = "https://docs.github.com/rest/users/users#get-a-user"
_DOCS_RATE = "https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api"
_RATE_HEADERS = {
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "0",
    "x-ratelimit-used": "5000",
    "x-ratelimit-reset": "1796083200",
    "x-ratelimit-resource": "core",
}


def _github_cases(ctx: Context, gh: _saas.Service) -> Iterator[Case]:
    query = 'assignee = @octocat and status = "open"'
    replies: list[tuple[str, Reply | str, str, str | None, str]] = [
        ("user-not-found", Reply(404, {"message": "Not Found", "documentation_url": _DOCS_USER, "status": "404"}, {}, _DOCS_USER), A, None, "GitHub login not found"),
        ("rate-limit-429", Reply(429, {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0C4E:2F1A:1B2C3D:4E5F60:67890ABC.", "documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", "status": "429"}, {"retry-after": "60"}, _DOCS_RATE), T, NE, "secondary rate limit (429 with retry-after)"),
        ("secondary-rate-limit-403", Reply(403, {"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0C4E:2F1A:1B2C3D:4E5F60:67890ABD.", "documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits", "status": "403"}, {"retry-after": "60"}, _DOCS_RATE), T, NE, "secondary rate limit (403 with retry-after)"),
        ("rate-limit-403", Reply(403, {"message": "API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please include the request ID 0C4E:2F1A:1B2C3D:4E5F60:67890ABC and timestamp 2026-12-01 00:00:00 UTC.", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api", "status": "403"}, _RATE_HEADERS, _DOCS_RATE), T, NE, "primary rate limit (403, x-ratelimit-remaining: 0)"),
        ("bad-credentials", Reply(401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401"}, {}, "https://docs.github.com/en/rest/authentication/authenticating-to-the-rest-api"), U, None, "the tool's token is invalid (401 Bad credentials)"),
        ("not-accessible", Reply(403, {"message": "Resource not accessible by integration", "documentation_url": _DOCS_USER, "status": "403"}, {}, "https://docs.github.com/en/rest/authentication/permissions-required-for-github-apps"), U, None, "the tool's app token lacks the permission"),
        (_saas.HANG, _saas.HANG, T, UO, "users API stalled (read timeout)"),
        (_saas.RESET, _saas.RESET, T, UO, "users API reset the connection"),
    ]  # fmt: skip
    for slug, reply, kind, outcome, cause in replies:
        gh.reply(reply)
        exc = _catch(lambda: search_issues(query, gh.base))
        yield Case(
            f"lark-github-{slug}", LIBRARY, cause, kind, outcome, exc, "search_issues", {"query": query}
        )
    exc = _catch(lambda: search_issues(query, _saas.dead_base(ctx)))
    yield Case(
        "lark-github-refused",
        LIBRARY,
        "users API refused the connection (restarting)",
        T,
        NE,
        exc,
        "search_issues",
        {"query": query},
    )


# ---- refusals -------------------------------------------------------------------------------


def _refusal_cases(ctx: Context, root: Path, store: Path) -> Iterator[Case]:
    # the metric store locked by another connection
    formula = "avg(latency.p95) / 1000"
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        exc = _catch(lambda: compute_metric(formula, store))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    yield Case(
        "lark-formula-store-locked",
        LIBRARY,
        "the metric store is locked by another connection (database is locked)",
        T,
        NE,
        exc,
        "compute_metric",
        {"formula": formula},
    )
    empty = root / "metrics-empty.db"
    sqlite3.connect(empty).close()
    exc = _catch(lambda: compute_metric(formula, empty))
    yield Case(
        "lark-formula-store-not-set-up",
        LIBRARY,
        "the tool's metric store has no metrics table (not set up)",
        U,
        None,
        exc,
        "compute_metric",
        {"formula": formula},
    )

    private_store = root / "metrics-private.db"
    private_store.write_bytes(store.read_bytes())
    private_store.chmod(0o000)
    _files.read_only_dir(root / "ro-probe")  # makes the directories searchable by nobody
    exc = _files.denied(lambda: compute_metric(formula, private_store))
    yield Case(
        "lark-formula-store-unreadable",
        LIBRARY,
        "the tool's metric store is not readable (permissions)",
        U,
        None,
        exc,
        "compute_metric",
        {"formula": formula},
    )

    grammar = 'start: value\n?value: NUMBER | STRING\nSTRING: /"[^"]*"/\nNUMBER: /[0-9]+/ | /[0-9]+/\n'
    exc = _catch(lambda: check_grammar(grammar))
    yield Case(
        "lark-strict-needs-interegular",
        LIBRARY,
        "strict mode needs the optional interegular package, not installed",
        U,
        None,
        exc,
        "check_grammar",
        {"grammar": grammar},
    )

    private = root / "private"
    private.mkdir()
    (private / "query.lark").write_text(QUERY_GRAMMAR)
    (private / "query.txt").write_text('status = "open"\n')
    (private / "query.lark").chmod(0o000)
    exc = _files.denied(lambda: parse_file(private / "query.lark", private / "query.txt"))
    yield Case(
        "lark-file-grammar-unreadable",
        LIBRARY,
        "grammar file not readable (permissions)",
        U,
        None,
        exc,
        "parse_file",
        {"grammar_path": str(private / "query.lark"), "input_path": str(private / "query.txt")},
    )

    text = 'status = "open"'
    with _pkgcopy.broken_install(ctx.tmp, ["lark"], drop=("lark/grammars/common.lark",)):
        exc = _catch(lambda: importlib.import_module("lark").Lark(QUERY_GRAMMAR, parser="lalr").parse(text))
    yield Case(
        "lark-install-common-grammar-missing",
        LIBRARY,
        "installed grammar file missing (lark/grammars/common.lark)",
        U,
        None,
        exc,
        "search_issues",
        {"query": text},
    )
    with _pkgcopy.broken_install(ctx.tmp, ["lark"], drop=("lark/parsers/earley.py",)):
        exc = _catch(lambda: importlib.import_module("lark").Lark(FORMULA_GRAMMAR).parse("1 + 1"))
    yield Case(
        "lark-install-earley-missing",
        LIBRARY,
        "installed module file missing (lark/parsers/earley.py)",
        U,
        None,
        exc,
        "compute_metric",
        {"formula": "1 + 1"},
    )


def _store(root: Path) -> Path:
    store = root / "metrics.db"
    con = sqlite3.connect(store)
    con.execute("CREATE TABLE metrics (name TEXT, value REAL)")
    con.executemany(
        "INSERT INTO metrics VALUES (?, ?)",
        [("latency.p95", 180.0), ("latency.p95", 220.0), ("errors.count", 12.0), ("requests.count", 4800.0)],
    )
    con.commit()
    con.close()
    return store


def cases(ctx: Context) -> Iterator[Case]:
    _PARSERS.clear()
    root = ctx.tmp / "lark"
    root.mkdir()
    store = _store(root)
    with _saas.service(ctx, "GITHUBPORT", "GitHub.com") as gh:
        gh.reply(Reply(200, {"login": "octocat", "id": 583231, "type": "User"}))
        yield from _model_cases(ctx, gh.base, store)
        yield from _read_cases(ctx, root, gh.base, store)
        yield from _github_cases(ctx, gh)
    yield from _refusal_cases(ctx, root, store)
