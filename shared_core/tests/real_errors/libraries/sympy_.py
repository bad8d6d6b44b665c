# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""SymPy behind a calculator tool: expressions, matrices and solver arguments the model
wrote (fixable); an expression read from a worksheet on disk or a service on 127.0.0.1
(ambiguous); the parser's and interpreter's limits (nesting, digits, recursion) and
optional dependencies or programs the tool's environment lacks (unrecoverable).

Labels follow the cause: ``calculate`` passes the model's string to ``sympify`` (or
``parse_mathematica``) and the model's numbers to the matrix and solver functions, so
every ``SympifyError``, ``TypeError``, ``ValueError``, ``ShapeError`` or
``PolynomialError`` there is the model's to fix (SymPy's docs: "sympify", "Matrices",
"Solvers": https://docs.sympy.org/latest/). The same parser failing on a cell of a
worksheet file or on a formula a service returned: ambiguous. More than 200 nested
parentheses (CPython's parser limit), a literal beyond ``sys.get_int_max_str_digits()`` and
a chain deep enough to exhaust the compiler's recursion stop the same computation however
it is reworded: unrecoverable, as ``json-too-deep`` is. ``parse_latex`` without antlr4 or
lark, ``lambdify`` to a backend not installed and ``preview`` without a ``latex`` program
are the environment's lack: unrecoverable. SymPy has no timeout of its own (nothing
to trigger there).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _pkgcopy, _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "sympy"
REQUIRES = ["sympy>=1.13,<1.15"]

# (name, the expression an LLM wrote for sympify)
MODEL_EXPRESSIONS: list[tuple[str, str]] = [
    ("implicit-multiplication", "2x + 3"),
    ("unclosed-paren", "sqrt(2"),
    ("extra-paren", "(1+2))"),
    ("double-operator", "3 +* 4"),
    ("empty", ""),
    ("percent-of", "5 % of 200"),
    ("assignment", "x = 5"),
    ("equation-single-equals", "x**2 = 4"),
    ("function-no-parens", "sin x"),
    ("unicode-sqrt", "\u221a2"),
    ("unicode-times", "3 \u00d7 4"),
    ("prime-derivative", "x'"),
    ("definition", "f(x) := x^2"),
    ("latex", "\\frac{1}{2}"),
    ("absolute-bars", "|x|"),
    ("attribute", "x.foo"),
    ("ragged-matrix", "Matrix([[1,2],[3]])"),
    ("log-keyword", "log(x, base=2)"),
    ("derivative-fractional-order", "diff(x, 1.5)"),
    ("chained-comparison", "2 < x < 3"),
    ("eq-one-side", "Eq(x)"),
    ("function-call-result", "sin(x)(2)"),
    ("sum-no-bounds", "Sum(x, (x, 1))"),
    ("mod-zero", "Mod(7, 0)"),
    ("isprime-float", "isprime(7.5)"),
    ("prime-zero", "prime(0)"),
    ("matrix-shape", "Matrix([[1,2],[3,4]]) * Matrix([[1,2,3]])"),
    ("matrix-singular", "Matrix([[1,2],[2,4]]).inv()"),
    ("matrix-det-non-square", "Matrix([[1,2,3],[4,5,6]]).det()"),
    ("nsolve-no-real-root", "nsolve(x**2+1, x, 1)"),
    ("poly-of-sin", "Poly(sin(x), x)"),
    ("series-negative-order", "series(x, x, 0, -1)"),
]


def model_calls() -> list[tuple[str, dict[str, Any], Callable[[], Any]]]:
    """(slug, the model's arguments, call)."""
    import sympy
    from sympy.parsing.mathematica import parse_mathematica

    calls: list[tuple[str, dict[str, Any], Callable[[], Any]]] = []
    calls += [
        (name, {"expression": text}, lambda text=text: sympy.sympify(text))
        for name, text in MODEL_EXPRESSIONS
    ]
    x = sympy.Symbol("x")
    big = 10**20 + 3
    calls += [
        ("mathematica-unclosed-bracket", {"expression": "Sin[x", "syntax": "mathematica"}, lambda: parse_mathematica("Sin[x")),
        ("mathematica-double-operator", {"expression": "x +* y", "syntax": "mathematica"}, lambda: parse_mathematica("x +* y")),
        ("float-two-points", {"number": "1.5.2"}, lambda: sympy.Float("1.5.2")),
        ("matrix-too-few-entries", {"rows": 2, "cols": 2, "entries": [1, 2, 3]}, lambda: sympy.Matrix(2, 2, [1, 2, 3])),
        ("interval-string-end", {"start": 3, "end": "a"}, lambda: sympy.Interval(3, "a")),
        ("factorint-limit-word", {"n": big, "limit": "x"}, lambda: sympy.factorint(sympy.Integer(big), limit="x")),
        ("solve-symbol-string-expr", {"equation": "x**2 - 1", "symbols": "x y"}, lambda: sympy.solve(x**2 - 1, "x y")),
    ]  # fmt: skip
    return calls


def _without_programs(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` run with an empty ``PATH``: the tool's sandbox has no ``latex``."""

    def run() -> Any:
        saved = os.environ.get("PATH", "")
        os.environ["PATH"] = ""
        try:
            return fn()
        finally:
            os.environ["PATH"] = saved

    return run


def cases(ctx: Context) -> Iterator[Case]:
    import sympy
    from sympy.parsing.latex import parse_latex

    for name, args, fn in model_calls():
        exc = _catch(fn)
        cause = f"expression argument ({name})"
        yield Case(f"sympy-{name}", LIBRARY, cause, F, None, exc, "calculate", arguments=args)

    # formulas the tool read from elsewhere: the arguments hold the file's path, the formula's name
    sheet = ctx.tmp / "budget.txt"
    sheet.write_text("total = 1200 * 12\nmargin = (total - cost\n")

    def read_sheet() -> None:
        for line in sheet.read_text().splitlines():
            sympy.sympify(line.split("=", 1)[1])

    yield Case(
        "sympy-worksheet-bad-cell",
        LIBRARY,
        "worksheet on disk has a broken formula",
        A,
        None,
        _catch(read_sheet),
        "recalculate",
        arguments={"path": str(sheet)},
    )
    worksheet = ctx.tmp / "model.txt"
    exc = _catch(lambda: sympy.sympify(worksheet.read_text()))
    cause = "worksheet file does not exist"
    yield Case(
        "sympy-worksheet-missing",
        LIBRARY,
        cause,
        A,
        None,
        exc,
        "recalculate",
        arguments={"path": str(worksheet)},
    )
    formulas = {
        "/formulas/discount": ("text/plain", b"price * (1 - rate%)"),
        "/formulas/tax": ("text/plain", b"IF(amount > 100; amount * 0.2; 0)"),
    }
    with _serve.documents(formulas) as port:
        ctx.name_port(port, "FORMULAPORT")
        for name in ("discount", "tax"):
            exc = _catch(lambda: sympy.sympify(_serve.get(port, f"/formulas/{name}")))
            yield Case(
                f"sympy-service-{name}",
                LIBRARY,
                "formula from a pricing service does not parse",
                A,
                None,
                exc,
                "apply_pricing",
                arguments={"formula": name},
            )

    # the parser's and the interpreter's limits
    limits: list[tuple[str, str, str]] = [
        ("nesting-limit", "nesting beyond the parser's limit", "(" * 300 + "1" + ")" * 300),
        ("digit-limit", "literal beyond the digit limit", "1" * 5000),
        ("recursion-limit", "chain beyond the compiler's recursion", "-".join(["x"] * 100_000)),
    ]
    for name, cause, text in limits:
        exc = _serve.catch_on_fresh_stack(lambda: sympy.sympify(text))
        # the recursion chain (199,999 chars) is stored as its first 200 chars
        args = {"expression": text} if len(text) <= 20_000 else {"value": text[:200] + "..."}
        yield Case(f"sympy-{name}", LIBRARY, cause, U, None, exc, "calculate", arguments=args)

    # what the environment lacks
    x = sympy.Symbol("x")
    # (slug, cause, the model's arguments, call); the output file is the tool's
    missing: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
        ("latex-no-antlr", "antlr4 not installed", {"latex": r"\frac{1}{2}"}, lambda: parse_latex(r"\frac{1}{2}")),
        ("latex-no-lark", "lark not installed", {"latex": r"\frac{1}{2}", "backend": "lark"}, lambda: _without_lark(ctx.tmp)),
        ("lambdify-tensorflow", "tensorflow not installed", {"expression": "x", "backend": "tensorflow"}, lambda: sympy.lambdify(x, x, "tensorflow")),
        ("lambdify-jax", "jax not installed", {"expression": "x", "backend": "jax"}, lambda: sympy.lambdify(x, x, "jax")),
        (
            "preview-no-latex",
            "latex program not installed",
            {"expression": "x", "output": "png"},
            _without_programs(
                lambda: sympy.preview(x, output="png", viewer="file", filename=str(ctx.tmp / "x.png"))
            ),
        ),
    ]  # fmt: skip
    for name, cause, args, fn in missing:
        yield Case(f"sympy-{name}", LIBRARY, cause, U, None, _catch(fn), "render_formula", arguments=args)


def _without_lark(tmp: Path) -> Any:
    """sympy's LaTeX parser with its lark backend, in an installation without lark (another
    corpus library, lark_, installs it beside sympy)."""
    with _pkgcopy.broken_install(tmp, ["sympy", "mpmath"], hide=("lark",)):
        latex = importlib.import_module("sympy.parsing.latex")
        return latex.parse_latex(r"\frac{1}{2}", backend="lark")
