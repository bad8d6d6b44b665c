# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""jsonpath-ng behind a JSON query tool: JSONPath expressions the model wrote, evaluated over a
document the model passed in its arguments (fixable), over a document read from a file on
disk or answered by a records service on 127.0.0.1, or with an expression read from a saved
queries file (ambiguous); an installation that lacks one of jsonpath-ng's own modules
(unrecoverable).

Labels follow the cause. ``query_json`` / ``update_json`` pass the model's expression to
``jsonpath_ng.parse`` or ``jsonpath_ng.ext.parse`` (the extended grammar with filters,
arithmetic and the ``sorted`` / ``len`` / ``split`` / ``sub`` named operators), so the
lexer's ``JsonPathLexerError`` ("Unexpected character", "Unexpected EOF in string literal"),
the parser's ``JsonPathParserError`` ("Parse error at L:C near token ...", "Parse error near
the end of string!", "Unknown named operator"), ``DefintionInvalid`` of a malformed
``split(...)``, the ``re.error`` of a bad ``sub(/.../)`` or ``=~`` pattern, and the
``TypeError`` of an expression that is not a string or of a sort or update that the model's
own document cannot satisfy are the model's to fix (the project's README,
https://github.com/h2non/jsonpath-ng#jsonpath-syntax and "Extensions": the grammar,
filters, arithmetic, ``sorted``, ``len``, ``split``, ``sub``; ``update_or_create``). The
same ``TypeError`` / ``re.error`` / parse errors raised because of a document read from
``records.json`` on disk, from a records service's JSON, or an expression stored in the
tool's ``queries.json`` are about data the model never wrote: ambiguous. ``import
jsonpath_ng`` where the vendored ``_ply`` package or the generated parser tables are not
installed fails with ``ModuleNotFoundError`` / ``ImportError``: unrecoverable.

Not triggerable: jsonpath-ng does no I/O of its own (no timeout, no network, no permission
error: no transient case; fetching the document is the tool's HTTP client's failure, not
this library's); a filter that compares values of different types swallows the
``TypeError`` and simply does not match; out-of-range indices and slices match nothing
rather than raise.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _pkgcopy, _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "jsonpath-ng"
REQUIRES = ["jsonpath-ng>=1.7,<2"]

DOC: dict[str, Any] = {
    "store": {
        "book": [
            {"title": "Sayings", "price": 8.95, "tags": ["quotes"]},
            {"title": "Sword", "price": 12.99, "tags": ["fantasy"]},
        ],
        "owner": "Ana",
    },
    "ids": [3, 1, 2],
}


def _find(query: str, doc: Any, ext: bool = True) -> list[Any]:
    from jsonpath_ng import parse as basic
    from jsonpath_ng.ext import parse as extended

    return [m.value for m in (extended if ext else basic)(query).find(doc)]


def _upsert(query: str, doc: Any, value: Any) -> Any:
    from jsonpath_ng.ext import parse

    return parse(query).update_or_create(doc, value)


# (slug, the model's query, extended grammar)
QUERIES: list[tuple[str, str, bool]] = [
    ("unclosed-bracket", "$.store.book[", True),
    ("unclosed-index", "$.store.book[0", True),
    ("unclosed-quote-key", "$['store'", True),
    ("unclosed-backtick", "$.store.`this", True),
    ("unclosed-single-quote", "$.store.'owner", True),
    ("stray-paren", "$.store.book)", True),
    ("space-in-key", "$.store.first name", True),
    ("digit-led-key", "$.store.1st", True),
    ("colon-key", "$.store.ns:owner", True),
    ("trailing-dot", "$.store.", True),
    ("double-star", "$.store.**", True),
    ("empty", "", True),
    ("negative-bare", "$.store.book[-]", False),
    ("unicode-key", "$.café.name", True),
    ("filter-basic-grammar", "$.store.book[?(@.price < 10)].title", False),
    ("filter-dangling-and", "$.store.book[?(@.price < 10 &&)]", True),
    ("filter-tilde-eq", "$.store.book[?(@.title ~= 'S')]", True),
    ("filter-in-list", "$.store.book[?(@.title in ['Sword'])]", True),
    ("filter-function", "$.store.book[?(length(@.tags) > 1)]", True),
    ("filter-unclosed", "$.store.book[?(@.price < 10]", True),
    ("division", "$.store.book[0].price / 2", True),
    ("len-basic-grammar", "$.store.book.`len`", False),
    ("sorted-basic-grammar", "$.ids.`sorted`", False),
    ("unknown-operator", "$.store.book.`count`", True),
    ("split-no-args", "$.store.owner.`split(1)`", True),
    ("split-bad-index", "$.store.owner.`split(a, x, 1)`", True),
    ("split-empty-sep", "$.store.owner.`split(,, 5)`", True),
    ("sub-bad-regex", "$.store.owner.`sub(/[A-Z/, x)`", True),
    ("sub-unclosed-group", "$.store.book[*].title.`sub(/(S/, s)`", True),
    ("regex-filter-bad", "$.store.book[?(@.title =~ '[')]", True),
    ("regex-filter-number", "$.store.book[?(@.title =~ 5)]", True),
    ("xpath-style", "/store/book[1]/title", True),
    ("jq-style", ".store.book[] | .title", True),
    ("jmespath-style", "store.book[?price < `10`].title", True),
    ("dollar-bracket-dollar", "$[$.store]", True),
    ("parent-at-root", "`parent`", True),
]


def _query_cases() -> Iterator[Case]:
    for slug, query, ext in QUERIES:
        args = {"document": DOC, "query": query, **({} if ext else {"syntax": "basic"})}
        exc = _catch(lambda: _find(query, DOC, ext))
        yield Case(
            f"jsonpath-{slug}", LIBRARY, f"query the model wrote ({slug})", F, None, exc, "query_json", args
        )


MIXED = {"rows": [{"sku": "A1", "price": 5}, {"sku": "B2", "price": "7.50"}, {"sku": "C3", "price": None}]}


def _model_document_cases() -> Iterator[Case]:
    calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
        ("query-int", "query_json", {"document": DOC, "query": 5}, lambda: _find(5, DOC)),  # type: ignore[arg-type]
        (
            "query-list",
            "query_json",
            {"document": DOC, "query": ["$.store.owner"]},
            lambda: _find(["$.store.owner"], DOC),  # type: ignore[arg-type]
        ),
        (
            "query-null",
            "query_json",
            {"document": DOC, "query": None},
            lambda: _find(None, DOC),  # type: ignore[arg-type]
        ),
        (
            "sort-mixed-model-doc",
            "query_json",
            {"document": MIXED, "query": "$.rows[/price]"},
            lambda: _find("$.rows[/price]", MIXED),
        ),
        (
            "sorted-mixed-model-doc",
            "query_json",
            {"document": {"ids": [3, "1", 2]}, "query": "$.ids.`sorted`"},
            lambda: _find("$.ids.`sorted`", {"ids": [3, "1", 2]}),
        ),
        (
            "upsert-into-string",
            "update_json",
            {"document": DOC, "path": "$.store.owner.name", "value": "Bo"},
            lambda: _upsert("$.store.owner.name", json.loads(json.dumps(DOC)), "Bo"),
        ),
        (
            "upsert-key-on-list",
            "update_json",
            {"document": DOC, "path": "$.ids.first", "value": 0},
            lambda: _upsert("$.ids.first", json.loads(json.dumps(DOC)), 0),
        ),
        (
            "upsert-index-on-object",
            "update_json",
            {"document": DOC, "path": "$.store[3]", "value": {}},
            lambda: _upsert("$.store[3]", json.loads(json.dumps(DOC)), {}),
        ),
        (
            "upsert-bad-path",
            "update_json",
            {"document": DOC, "path": "$.store.book[0].", "value": 1},
            lambda: _upsert("$.store.book[0].", json.loads(json.dumps(DOC)), 1),
        ),
        (
            "update-bad-path",
            "update_json",
            {"document": DOC, "path": "$.store.book[?(@.price>10)].price = 9", "value": 9},
            lambda: _upsert("$.store.book[?(@.price>10)].price = 9", json.loads(json.dumps(DOC)), 9),
        ),
    ]
    for slug, tool, args, fn in calls:
        yield Case(
            f"jsonpath-{slug}", LIBRARY, f"the model's argument ({slug})", F, None, _catch(fn), tool, args
        )


RECORDS = {
    "rows": [
        {"sku": "A1", "price": 5, "owner": {"name": "Ana"}},
        {"sku": "B2", "price": "7.50", "owner": "legacy-import"},
        {"sku": "C3", "price": None, "owner": {"name": "Bo"}},
    ],
    "ids": [3, "2", 1],
}

SAVED = {
    "cheap": "$.rows[?(@.price < 10)",
    "by_owner": "$.rows[*].owner.`lower`",
    "clean_sku": "$.rows[*].sku.`sub(/[A-Z/, )`",
    "parts": "$.rows[*].sku.`split(-)`",
    "match": "$.rows[?(@.sku =~ '(A')]",
}


def _data_cases(ctx: Context) -> Iterator[Case]:
    # a document on disk
    path = ctx.tmp / "records.json"
    path.write_text(json.dumps(RECORDS))
    on_disk: list[tuple[str, str, dict[str, Any], Callable[[Any], Any]]] = [
        (
            "file-sort-mixed",
            "query_json_file",
            {"path": str(path), "query": "$.rows[/price]"},
            lambda d: _find("$.rows[/price]", d),
        ),
        (
            "file-sorted-mixed",
            "query_json_file",
            {"path": str(path), "query": "$.ids.`sorted`"},
            lambda d: _find("$.ids.`sorted`", d),
        ),
        (
            "file-upsert-into-string",
            "update_json_file",
            {"path": str(path), "json_path": "$.rows[1].owner.name", "value": "Cy"},
            lambda d: _upsert("$.rows[1].owner.name", d, "Cy"),
        ),
        (
            "file-sort-desc-mixed",
            "query_json_file",
            {"path": str(path), "query": "$.rows[\\price]"},
            lambda d: _find("$.rows[\\price]", d),
        ),
    ]
    for slug, tool, args, fn in on_disk:
        exc = _catch(lambda: fn(json.loads(path.read_text())))
        yield Case(
            f"jsonpath-{slug}",
            LIBRARY,
            "document read from a file has mixed or unexpected values",
            A,
            None,
            exc,
            tool,
            args,
        )

    # queries saved in the tool's configuration
    qpath = ctx.tmp / "queries.json"
    qpath.write_text(json.dumps(SAVED))
    for name in SAVED:
        exc = _catch(lambda: _find(json.loads(qpath.read_text())[name], RECORDS))
        yield Case(
            f"jsonpath-saved-{name.replace('_', '-')}",
            LIBRARY,
            "saved query in the tool's queries file is malformed",
            A,
            None,
            exc,
            "run_saved_query",
            {"query_name": name, "document": RECORDS},
        )

    # a records service's JSON
    pages = {
        "/api/inventory": ("application/json", json.dumps(RECORDS).encode()),
        "/api/mappings/orders": (
            "application/json",
            json.dumps({"path": "$.orders[*].total.`sum`"}).encode(),
        ),
        "/api/mappings/refunds": (
            "application/json",
            json.dumps({"path": "$.refunds[?(@.amount > )]"}).encode(),
        ),
    }
    with _serve.documents(pages) as port:
        ctx.name_port(port, "RECORDSPORT")
        service: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
            (
                "service-sort-mixed",
                "query_service",
                {"endpoint": "/api/inventory", "query": "$.rows[/price]"},
                lambda: _find("$.rows[/price]", json.loads(_serve.get(port, "/api/inventory"))),
            ),
            (
                "service-sorted-mixed",
                "query_service",
                {"endpoint": "/api/inventory", "query": "$.ids.`sorted`"},
                lambda: _find("$.ids.`sorted`", json.loads(_serve.get(port, "/api/inventory"))),
            ),
            (
                "service-upsert-into-string",
                "patch_service_record",
                {"endpoint": "/api/inventory", "path": "$.rows[*].owner.name", "value": "Dee"},
                lambda: _upsert(
                    "$.rows[*].owner.name", json.loads(_serve.get(port, "/api/inventory")), "Dee"
                ),
            ),
            (
                "service-mapping-unknown-operator",
                "extract_by_mapping",
                {"mapping": "orders", "document": {"orders": [{"total": 3}]}},
                lambda: _find(
                    json.loads(_serve.get(port, "/api/mappings/orders"))["path"], {"orders": [{"total": 3}]}
                ),
            ),
            (
                "service-mapping-parse-error",
                "extract_by_mapping",
                {"mapping": "refunds", "document": {"refunds": []}},
                lambda: _find(json.loads(_serve.get(port, "/api/mappings/refunds"))["path"], {"refunds": []}),
            ),
        ]
        for slug, tool, args, fn in service:
            yield Case(
                f"jsonpath-{slug}",
                LIBRARY,
                "a service answered data the query cannot handle",
                A,
                None,
                _catch(fn),
                tool,
                args,
            )


def _install_cases(ctx: Context) -> Iterator[Case]:
    args = {"document": DOC, "query": "$.store.owner"}
    with _pkgcopy.broken_install(ctx.tmp, ["jsonpath_ng"], drop=("jsonpath_ng/_ply",)):
        exc = _catch(lambda: importlib.import_module("jsonpath_ng"))
    yield Case(
        "jsonpath-ply-missing",
        LIBRARY,
        "vendored ply package not installed",
        U,
        None,
        exc,
        "query_json",
        args,
    )
    with _pkgcopy.broken_install(ctx.tmp, ["jsonpath_ng"], drop=("jsonpath_ng/ext/filter.py",)):
        exc = _catch(lambda: importlib.import_module("jsonpath_ng.ext"))
    yield Case(
        "jsonpath-ext-module-missing",
        LIBRARY,
        "installed module file missing (ext/filter.py)",
        U,
        None,
        exc,
        "query_json",
        args,
    )
    with _pkgcopy.broken_install(ctx.tmp, ["jsonpath_ng"], drop=("jsonpath_ng/lexer.py",)):
        exc = _catch(lambda: importlib.import_module("jsonpath_ng"))
    yield Case(
        "jsonpath-lexer-missing",
        LIBRARY,
        "installed module file missing (lexer.py)",
        U,
        None,
        exc,
        "query_json",
        args,
    )


def cases(ctx: Context) -> Iterator[Case]:
    yield from _query_cases()
    yield from _model_document_cases()
    yield from _data_cases(ctx)
    yield from _install_cases(ctx)
