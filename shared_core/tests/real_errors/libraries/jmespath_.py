# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""jmespath: JMESPath queries the model wrote in its arguments (fixable); a JSON file on
disk to query (ambiguous). ``query_json`` takes the model's query and either the document
the model passed (``data``) or the path of a JSON file to read."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

from generate import A, Case, F, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "jmespath"
REQUIRES = ["jmespath>=1.0.1,<2"]

DOC = {
    "orders": [
        {"id": 1, "total": 12.5, "status": "paid", "items": [{"sku": "A1", "qty": 2}]},
        {"id": 2, "total": 7, "status": "open", "items": []},
    ],
    "customer": {"name": "Ann", "tags": ["vip"]},
}

MODEL_QUERIES: list[tuple[str, str]] = [
    ("unclosed-bracket", "orders[0"),
    ("unclosed-filter", "orders[?status=='paid'"),
    ("jsonpath-dollar", "$.orders[*].id"),
    ("jsonpath-recursive", "..id"),
    ("single-equals", "orders[?status='paid']"),
    ("unclosed-raw-string", "orders[?status=='paid].id"),
    ("unclosed-literal", "orders[?total > `10].id"),
    ("bad-json-literal", "orders[?total > `ten`].id"),
    ("trailing-dot", "customer."),
    ("leading-dot", ".customer.name"),
    ("double-dot", "customer..name"),
    ("and-word", "orders[?status=='paid' and total > `10`]"),
    ("python-len", "len(orders)"),
    ("unknown-function", "count(orders)"),
    ("sum-wrong-arity", "sum(orders[*].total, `1`)"),
    ("length-no-args", "length()"),
    ("sort-by-no-expref", "sort_by(orders, total)"),
    ("type-error-sum-strings", "sum(orders[*].status)"),
    ("type-error-length-number", "length(orders[0].total)"),
    ("type-error-contains", "contains(`1`, 'x')"),
    ("type-error-max-mixed", "max(orders[*].[id, status][])"),
    ("negative-slice-step-zero", "orders[::0]"),
    ("pipe-at-start", "| orders"),
    ("comma-outside-multiselect", "orders[*].id, orders[*].total"),
    ("multiselect-hash-unquoted-value", "{id: id, total}"),
    ("hyphen-in-identifier", "orders[*].order-id"),
    ("digit-identifier", "orders.0.id"),
    ("sql-like", "SELECT id FROM orders"),
    ("xpath-like", "/orders/order[@id=1]"),
    ("empty", ""),
    ("unbalanced-paren", "length(orders"),
    ("star-star", "orders**"),
]


def cases(ctx: Context) -> Iterator[Case]:
    import jmespath

    for name, query in MODEL_QUERIES:
        exc = _catch(lambda: jmespath.search(query, DOC))
        yield Case(
            f"jmespath-{name}",
            LIBRARY,
            f"query from the arguments ({name})",
            F,
            None,
            exc,
            "query_json",
            {"query": query, "data": DOC},
        )

    missing = ctx.tmp / "orders.json"
    exc = _catch(lambda: jmespath.search("orders[*].id", json.load(open(missing))))  # noqa: SIM115
    yield Case(
        "jmespath-file-missing",
        LIBRARY,
        "JSON file to query does not exist",
        A,
        None,
        exc,
        "query_json",
        {"query": "orders[*].id", "path": str(missing)},
    )
    broken = ctx.tmp / "export.json"
    broken.write_text('{"orders": [{"id": 1}, {"id": 2}')
    exc = _catch(lambda: jmespath.search("orders[*].id", json.loads(broken.read_text())))
    yield Case(
        "jmespath-file-truncated",
        LIBRARY,
        "JSON file on disk cut short",
        A,
        None,
        exc,
        "query_json",
        {"query": "orders[*].id", "path": str(broken)},
    )
