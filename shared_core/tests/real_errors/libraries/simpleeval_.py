# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""simpleeval behind an agent's calculator tools: expressions the model wrote (fixable),
expressions evaluated over a record or a saved formula the tool read from a file the model
named (ambiguous), and tools whose own configuration or installation refuses every call
(unrecoverable).

The tools:

- ``calculate`` ``{"expression", "variables"?}``: ``SimpleEval`` with the default operators,
  the tool's functions (``abs``, ``round``, ``min``, ``max``, ``sum``, ``len``, ``sqrt``,
  ``log``, ``range``) and the variables the model passed as names;
- ``transform_values`` ``{"expression", "variables"}``: ``EvalWithCompoundTypes`` (lists,
  dicts, comprehensions) over the model's variables, with the documented opt-in
  ``allowed_attrs=BASIC_ALLOWED_ATTRS`` (attribute access only to the listed methods of
  the listed types);
- ``evaluate_on_record`` ``{"expression", "record"}``: the fields of a JSON record the tool
  reads from its data directory (``orders/1042.json``) are the names;
- ``run_saved_formula`` ``{"formula", "record"}``: the formula's text is read from the
  tool's ``formulas.json`` by the name the model gave, then evaluated over the record;
- ``price_formula`` ``{"expression"}``: ``names`` is a function (the README's "names as a
  function") that reads each product's price from the tool's SQLite store.

Labels follow the cause that was set up (docs: https://github.com/danthedeckie/simpleeval
README, "Operators", "Functions", "Names", "Compound Types", "Limited Power" /
``MAX_POWER`` / ``MAX_STRING_LENGTH`` / ``MAX_COMPREHENSION_LENGTH``, "Attribute access"
and ``allowed_attrs``, "Creating an Evaluator Class"). An expression the model wrote that
Python cannot parse (``SyntaxError``), an empty one (``InvalidExpression``), a name or
function the tool does not define (``NameNotDefined`` / ``FunctionNotDefined``), syntax
the evaluator does not offer (``FeatureNotAvailable``: imports, lambdas, comprehensions
and tuples in the plain evaluator, dunder attributes, ``format``, attributes outside
``allowed_attrs``), an operator it does not define (``OperatorNotDefined``: ``@``), an
attribute the model's own value lacks (``AttributeDoesNotExist``), a power,
repetition or comprehension over the documented limits (``NumberTooHigh`` /
``IterableTooLong``: values out of the tool's range), and the errors of literals and
variables the model wrote (``ZeroDivisionError``, ``TypeError``, ``ValueError`` "math
domain error", ``KeyError``): a corrected expression works, fixable.

The same exceptions raised by values the tool READ (a record whose ``units`` is 0, a
price stored as text, a ``null`` discount, a record that lacks a field of the documented
schema, a customer stored as a string, an exponent or shift or note stored out of the
evaluator's limits, an empty item list) or by a saved formula whose stored text does not
parse or uses a function or feature the evaluator lacks: the model only named the record
or the formula, so the cause (a bad record, a wrong name, a formula edited badly) cannot
be told from the call: ambiguous.

The price store behind ``price_formula`` (the tool's own, the model named nothing):
another connection holding an exclusive lock ("database is locked", SQLITE_BUSY,
https://www.sqlite.org/rescode.html#busy, raised through simpleeval's name lookup) is
transient, not executed; a store file that is not a database is ambiguous (bad data
read); a store without its ``prices`` table (never set up) or that the process may not
read is unrecoverable.

Unrecoverable: a tool whose configuration registers a function simpleeval refuses
(``open``, ``eval``, ``getattr``: "This function ... is a really bad idea", raised when
the evaluator is built, so every call fails), a rate table the tool's registered
``rate()`` function reads that the process may not read (``PermissionError`` through
simpleeval's function call), and an installation without simpleeval.

Not triggerable: simpleeval does no I/O of its own, takes no lock and has no server, so
its only transient failure is the one a names function of the tool meets (above); an
assignment (``x = 1``) or several statements only warn (``AssignmentAttempted`` /
``MultipleExpressions``) and evaluate the first expression, no error to record.
"""

from __future__ import annotations

import importlib
import json
import math
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files, _pkgcopy
from ._common import NE, A, F, T, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "simpleeval"
REQUIRES = ["simpleeval==1.0.8"]

TOOL_FUNCTIONS: dict[str, Any] = {
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "sum": sum,
    "len": len,
    "sqrt": math.sqrt,
    "log": math.log,
    "range": range,
}


def _calculator(variables: dict[str, Any] | None = None, **extra: Any) -> Any:
    """The ``calculate`` tool's evaluator: the defaults plus the tool's functions."""
    import simpleeval

    functions = {**simpleeval.DEFAULT_FUNCTIONS, **TOOL_FUNCTIONS, **extra}
    names = {**simpleeval.DEFAULT_NAMES, **(variables or {})}
    return simpleeval.SimpleEval(functions=functions, names=names)


def _calculate(expression: str, variables: dict[str, Any] | None = None) -> Any:
    return _calculator(variables).eval(expression)


def _transform(expression: str, variables: dict[str, Any]) -> Any:
    import simpleeval

    functions = {**simpleeval.DEFAULT_FUNCTIONS, **TOOL_FUNCTIONS}
    names = {**simpleeval.DEFAULT_NAMES, **variables}
    evaluator = simpleeval.EvalWithCompoundTypes(
        functions=functions, names=names, allowed_attrs=simpleeval.BASIC_ALLOWED_ATTRS
    )
    return evaluator.eval(expression)


# (slug, the expression, the model's variables or None, cause)
CALCULATE: list[tuple[str, str, dict[str, Any] | None, str]] = [
    ("syntax-double-operator", "2 +* 3", None, "two operators in a row"),
    ("syntax-unclosed-paren", "(1200 - 150 * 0.2", None, "unclosed parenthesis"),
    ("syntax-times-sign", "12 × 3", None, "multiplication sign instead of *"),
    ("syntax-nested-too-deep", "(" * 201 + "1" + ")" * 201, None, "parentheses nested too deep"),
    ("empty", "   ", None, "empty expression"),
    ("decimal-comma", "12,5 * 2", None, "decimal comma parsed as a tuple"),
    ("name-not-passed", "price * qty", {"price": 19.99}, "variable used but not passed"),
    ("name-math-module", "math.sqrt(2)", None, "module name the tool does not define"),
    ("function-not-defined", "cbrt(27) + 1", None, "function the tool does not define"),
    ("import", "import math", None, "import statement"),
    ("lambda", "(lambda x: x * 2)(21)", None, "lambda"),
    ("list-comprehension", "sum([x * 2 for x in range(5)])", None, "comprehension in the plain evaluator"),
    ("dunder-attribute", "(1).__class__.__bases__", None, "private attribute"),
    ("format-method", "'{:.2f}'.format(3.14159)", None, "str.format (not available)"),
    ("matmul-operator", "a @ b", {"a": 2, "b": 3}, "operator the evaluator does not define"),
    ("attribute-of-number", "total.amount * 2", {"total": 120.5}, "attribute of a number"),
    ("power-too-high", "2 ** 10000000", None, "exponent over MAX_POWER"),
    ("repeat-too-long", "'-' * 200000", None, "string repetition over MAX_STRING_LENGTH"),
    ("divide-by-zero", "1200 / 0", None, "division by a literal zero"),
    ("concat-str-int", "'Total: ' + total", {"total": 42}, "string plus number"),
    ("sqrt-negative", "sqrt(-4)", None, "square root of a negative literal"),
    ("key-not-passed", "rates['JPY'] * amount", {"rates": {"EUR": 0.92}, "amount": 10}, "key missing from the model's own dict"),
]  # fmt: skip

TRANSFORM: list[tuple[str, str, dict[str, Any], str]] = [
    ("attr-not-allowed-bytes", "name.encode('utf-8').hex()", {"name": "Ada"}, "method on a type allowed_attrs does not list"),
    ("attr-float-round", "price.round(2)", {"price": 19.987}, "float method that does not exist (not in allowed_attrs)"),
    ("comprehension-too-long", "[i * i for i in range(20000)]", {}, "comprehension over MAX_COMPREHENSION_LENGTH"),
]  # fmt: skip

RECORD = {
    "id": 1042,
    "revenue": 1250.0,
    "units": 25,
    "price": 50.0,
    "qty": 25,
    "tax": 0.2,
    "discount": 10.0,
    "growth": 1.05,
    "years": 3,
    "flags": 5,
    "shift": 2,
    "customer": {"name": "Ada", "tier": "gold"},
    "items": [{"sku": "A1", "qty": 2}],
    "note": "rush",
}

# (slug, the model's expression, the record's fields that differ, cause)
STORED: list[tuple[str, str, dict[str, Any], str]] = [
    ("units-zero", "revenue / units", {"units": 0}, "record stores units as 0"),
    ("price-as-text", "price * qty * (1 + tax)", {"price": "50.00"}, "record stores the price as text"),
    ("price-as-text-add", "price * qty + discount", {"price": "50.00"}, "record stores the price as text"),
    ("discount-null", "price * qty - discount", {"discount": None}, "record stores the discount as null"),
    ("field-missing", "price * qty - discount", {"discount": ...}, "record lacks a field of the schema"),
    ("customer-as-text", "customer.tier == 'gold'", {"customer": "Ada Lovelace"}, "record stores the customer as a string"),
    ("items-empty", "items[0].qty * price", {"items": []}, "record has no items"),
    ("years-out-of-range", "revenue * growth ** years", {"years": 5000000}, "record stores a power over MAX_POWER"),
    ("shift-out-of-range", "flags << shift", {"shift": 20000}, "record stores a shift over MAX_SHIFT"),
    ("note-too-long", "note * 2", {"note": "x" * 60000}, "record stores a note too long to repeat"),
    ("tax-negative-sqrt", "sqrt(tax) * revenue", {"tax": -0.2}, "record stores a negative rate"),
]  # fmt: skip

FORMULAS = {
    "gross_margin": "(revenue - price * qty) / revenue)",
    "net_total": "price * qty - discount +",
    "avg_item_price": "sum([i['qty'] for i in items]) / len(items)",
    "tier_bonus": "revenue * bonus_rate(customer.tier)",
    "rounded_total": "'{:.2f}'.format(price * qty)",
    "unit_cost": "revenue // units if units else",
}

# (formula name, cause)
SAVED: list[tuple[str, str]] = [
    ("gross_margin", "saved formula has an unbalanced parenthesis"),
    ("net_total", "saved formula ends with an operator"),
    ("avg_item_price", "saved formula uses a comprehension the evaluator lacks"),
    ("tier_bonus", "saved formula calls a function the tool does not define"),
    ("rounded_total", "saved formula uses str.format (not available)"),
    ("unit_cost", "saved formula is truncated (conditional without else)"),
]


def _record(root: Path, name: str, changes: dict[str, Any]) -> str:
    fields = {**RECORD, **changes}
    fields = {k: v for k, v in fields.items() if v is not ...}
    path = root / "orders" / f"{name}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(fields))
    return f"orders/{name}.json"


def _evaluate_on_record(root: Path, expression: str, record: str) -> Any:
    fields = json.loads((root / record).read_text())
    return _calculator(fields).eval(expression)


def _run_saved(root: Path, formula: str, record: str) -> Any:
    text = json.loads((root / "formulas.json").read_text())[formula]
    return _evaluate_on_record(root, text, record)


def cases(ctx: Context) -> Iterator[Case]:
    import simpleeval

    for slug, expression, variables, cause in CALCULATE:
        args: dict[str, Any] = {"expression": expression}
        if variables is not None:
            args["variables"] = variables
        exc = _catch(lambda: _calculate(expression, variables))
        yield Case(
            f"simpleeval-calc-{slug}",
            LIBRARY,
            f"the model's expression: {cause}",
            F,
            None,
            exc,
            "calculate",
            args,
        )

    for slug, expression, variables, cause in TRANSFORM:
        exc = _catch(lambda: _transform(expression, variables))
        yield Case(
            f"simpleeval-transform-{slug}",
            LIBRARY,
            f"the model's expression: {cause}",
            F,
            None,
            exc,
            "transform_values",
            {"expression": expression, "variables": variables},
        )

    # values the tool read from a record the model named
    root = ctx.tmp / "evaldata"
    root.mkdir()
    for n, (slug, expression, changes, cause) in enumerate(STORED):
        record = _record(root, str(1042 + n), changes)
        exc = _catch(lambda: _evaluate_on_record(root, expression, record))
        yield Case(
            f"simpleeval-record-{slug}",
            LIBRARY,
            cause,
            A,
            None,
            exc,
            "evaluate_on_record",
            {"expression": expression, "record": record},
        )

    # saved formulas the tool read by the name the model gave
    (root / "formulas.json").write_text(json.dumps(FORMULAS))
    record = _record(root, "2001", {})
    for formula, cause in SAVED:
        exc = _catch(lambda: _run_saved(root, formula, record))
        yield Case(
            f"simpleeval-saved-{formula.replace('_', '-')}",
            LIBRARY,
            cause,
            A,
            None,
            exc,
            "run_saved_formula",
            {"formula": formula, "record": record},
        )

    yield from _price_store(ctx)
    yield from _refusals(ctx, root, simpleeval)


def _price_names(db: Path) -> Callable[[Any], Any]:
    """The ``price_formula`` tool's ``names``: a function (simpleeval's documented
    "names as a function") that reads each product's price from the tool's SQLite store."""
    import simpleeval

    def lookup(node: Any) -> Any:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0)
        try:
            row = con.execute("SELECT price FROM prices WHERE sku = ?", (node.id,)).fetchone()
        finally:
            con.close()
        if row is None:
            raise simpleeval.NameNotDefined(node.id, "")
        return row[0]

    return lookup


def _price_formula(db: Path, expression: str) -> Any:
    import simpleeval

    return simpleeval.SimpleEval(names=_price_names(db)).eval(expression)


def _price_store(ctx: Context) -> Iterator[Case]:
    store = ctx.tmp / "prices"
    store.mkdir()
    good = store / "prices.db"
    con = sqlite3.connect(good)
    con.execute("CREATE TABLE prices (sku TEXT PRIMARY KEY, price REAL)")
    con.executemany("INSERT INTO prices VALUES (?, ?)", [("widget", 4.5), ("gadget", 12.0)])
    con.commit()
    con.close()
    args = {"expression": "widget * 3 + gadget"}

    # another connection holds an exclusive lock on the store (SQLITE_BUSY)
    holder = sqlite3.connect(good, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        exc = _catch(lambda: _price_formula(good, args["expression"]))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    yield Case(
        "simpleeval-prices-locked",
        LIBRARY,
        "the price store is locked by another connection (database is locked)",
        T,
        NE,
        exc,
        "price_formula",
        args,
    )

    # the store holds bytes that are not a database
    bad = store / "prices-corrupt.db"
    bad.write_bytes(b"sku,price\nwidget,4.5\ngadget,12.0\n" * 40)
    exc = _catch(lambda: _price_formula(bad, args["expression"]))
    yield Case(
        "simpleeval-prices-corrupt",
        LIBRARY,
        "the price store the tool reads is not a database",
        A,
        None,
        exc,
        "price_formula",
        args,
    )

    # the store was never set up (no prices table)
    empty = store / "prices-empty.db"
    sqlite3.connect(empty).close()
    exc = _catch(lambda: _price_formula(empty, args["expression"]))
    yield Case(
        "simpleeval-prices-no-table",
        LIBRARY,
        "the tool's price store has no prices table (not set up)",
        U,
        None,
        exc,
        "price_formula",
        args,
    )

    # the store the process may not read
    locked = store / "prices-private.db"
    locked.write_bytes(good.read_bytes())
    locked.chmod(0o000)
    _files.read_only_dir(store / "ro-probe")  # makes the directories searchable by nobody
    exc = _files.denied(lambda: _price_formula(locked, args["expression"]))
    yield Case(
        "simpleeval-prices-unreadable",
        LIBRARY,
        "the tool's price store is not readable (permissions)",
        U,
        None,
        exc,
        "price_formula",
        args,
    )


def _refusals(ctx: Context, root: Path, simpleeval: Any) -> Iterator[Case]:
    # the tool's configuration registers a function simpleeval refuses: every call fails
    configured: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
        ("open", "calculate", {"read_file": open}, {"expression": "round(1250 * 0.2, 2)"}),
        ("eval", "calculate", {"py": eval}, {"expression": "12 * 3"}),
        ("getattr", "calculate", {"field": getattr}, {"expression": "price * qty", "variables": {"price": 2, "qty": 3}}),
    ]  # fmt: skip
    for slug, tool, extra, args in configured:
        exc = _catch(lambda: _calculator(args.get("variables"), **extra).eval(args["expression"]))
        yield Case(
            f"simpleeval-config-forbidden-{slug}",
            LIBRARY,
            f"the tool's configuration registers a forbidden function ({slug})",
            U,
            None,
            exc,
            tool,
            args,
        )

    # a registered function reads the tool's rate table, which the process may not read
    rates = root / "rates.json"
    rates.write_text(json.dumps({"EUR": 0.92, "GBP": 0.79}))
    rates.chmod(0o000)
    _files.read_only_dir(ctx.tmp / "ro-probe")  # makes the directories searchable by nobody

    def rate(code: str) -> float:
        return float(json.loads(rates.read_text())[code])

    for slug, expression in (
        ("rate-table-unreadable", "1250 * rate('EUR')"),
        ("rate-table-unreadable-gbp", "rate('GBP') * 80"),
    ):
        exc = _files.denied(lambda: _calculator(None, rate=rate).eval(expression))
        yield Case(
            f"simpleeval-{slug}",
            LIBRARY,
            "the tool's rate table is not readable (permissions)",
            U,
            None,
            exc,
            "calculate",
            {"expression": expression},
        )

    # an installation without simpleeval
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("simpleeval",)):
        exc = _catch(lambda: importlib.import_module("simpleeval"))
    yield Case(
        "simpleeval-module-missing",
        LIBRARY,
        "simpleeval is not installed",
        U,
        None,
        exc,
        "calculate",
        {"expression": "1250 * 0.2"},
    )
