"""decimal and fractions (the standard library): amounts, rates and fractions the model
wrote in its arguments (fixable); the context's precision limit (unrecoverable)."""

from __future__ import annotations

import decimal
import fractions
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import Case, F, U, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "decimal"
REQUIRES: list[str] = []  # the standard library

D, Fr = decimal.Decimal, fractions.Fraction


def _strict() -> decimal.Context:
    """A money context that traps what a ledger must not let through."""
    return decimal.Context(
        prec=28, traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow, decimal.Inexact]
    )


MODEL_AMOUNTS: list[tuple[str, str]] = [
    ("comma-decimal", "12,50"),
    ("currency-symbol", "$12.50"),
    ("currency-code", "12.50 EUR"),
    ("thousands-separator", "1,234.56"),
    ("space-thousands", "1 234.56"),
    ("words", "twelve"),
    ("empty", ""),
    ("percent", "7.5%"),
    ("double-dot", "1.2.3"),
    ("trailing-minus", "12-"),
    ("fraction-text", "1/3"),
    ("null-text", "null"),
    ("unicode-minus", "\u221212.5"),
]


def model_calls() -> list[tuple[str, dict[str, Any], Callable[[], Any]]]:
    """(slug, the model's arguments, the call); amounts come as the strings the model wrote."""
    calls: list[tuple[str, dict[str, Any], Callable[[], Any]]] = [
        (f"parse-{name}", {"amount": text}, lambda text=text: _strict().create_decimal(text))
        for name, text in MODEL_AMOUNTS
    ]
    calls += [
        (
            "divide-by-zero",
            {"operation": "divide", "amount": "10", "by": "0"},
            lambda: _strict().divide(D("10"), D("0")),
        ),
        (
            "zero-by-zero",
            {"operation": "divide", "amount": "0", "by": "0"},
            lambda: _strict().divide(D("0"), D("0")),
        ),
        (
            "quantize-too-many-digits",
            {"operation": "quantize", "amount": "123456789.123", "quantum": "0.01", "precision": 5},
            lambda: D("123456789.123").quantize(D("0.01"), context=decimal.Context(prec=5)),
        ),
        (
            "quantize-inexact",
            {"operation": "quantize", "amount": "10.005", "quantum": "0.01"},
            lambda: D("10.005").quantize(D("0.01"), context=_strict()),
        ),
        ("sqrt-negative", {"operation": "sqrt", "amount": "-4"}, lambda: _strict().sqrt(D("-4"))),
        (
            "power-fractional-negative",
            {"operation": "power", "amount": "-8", "exponent": "0.5"},
            lambda: _strict().power(D("-8"), D("0.5")),
        ),
        (
            "nan-compare",
            {"operation": "compare", "amount": "NaN", "other": "1"},
            lambda: _strict().compare_signal(D("NaN"), D("1")),
        ),
        ("from-float-inexact", {"amount": 0.1}, lambda: _strict().create_decimal_from_float(0.1)),
        ("int-of-infinity", {"operation": "to_int", "amount": "Infinity"}, lambda: int(D("Infinity"))),
        (
            "rounding-unknown",
            {"operation": "quantize", "amount": "1.25", "quantum": "0.1", "rounding": "ROUND_BANKERS"},
            lambda: D("1.25").quantize(D("0.1"), rounding="ROUND_BANKERS"),
        ),
        ("context-prec-zero", {"precision": 0}, lambda: decimal.Context(prec=0)),
        ("fraction-text", {"fraction": "one third"}, lambda: Fr("one third")),
        ("fraction-zero-denominator", {"numerator": 1, "denominator": 0}, lambda: Fr(1, 0)),
        ("fraction-float-denominator", {"numerator": 1, "denominator": 2.5}, lambda: Fr(1, 2.5)),
        ("fraction-comma", {"fraction": "3,5"}, lambda: Fr("3,5")),
        ("fraction-spaces", {"fraction": "1 / 3"}, lambda: Fr("1 / 3")),
        # the tool reads the number with float() / Decimal(): JSON has no NaN or Infinity
        ("fraction-nan", {"fraction": "nan"}, lambda: Fr(float("nan"))),
        ("fraction-infinity", {"fraction": "Infinity"}, lambda: Fr(D("Infinity"))),
        (
            "fraction-limit-denominator-zero",
            {"numerator": 1, "denominator": 3, "max_denominator": 0},
            lambda: Fr(1, 3).limit_denominator(0),
        ),
    ]
    return calls


def cases(ctx: Context) -> Iterator[Case]:
    for name, args, fn in model_calls():
        exc = _catch(fn)
        cause = f"amount from the arguments ({name})"
        yield Case(f"decimal-{name}", LIBRARY, cause, F, None, exc, "compute_amount", arguments=args)
    huge = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    exc = _catch(lambda: huge.divide(D(1), D(7)))
    yield Case(
        "decimal-max-precision",
        LIBRARY,
        "result beyond memory at the maximum precision",
        U,
        None,
        exc,
        "compute_amount",
        arguments={"operation": "divide", "amount": 1, "by": 7},
    )
    exc = _catch(lambda: _strict().power(D(10), D(10**20)))
    yield Case(
        "decimal-overflow",
        LIBRARY,
        "result beyond the context's exponent limit",
        U,
        None,
        exc,
        "compute_amount",
        arguments={"operation": "power", "amount": 10, "exponent": 10**20},
    )
