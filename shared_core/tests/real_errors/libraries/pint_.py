# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""Pint behind a unit-conversion tool: quantities, units, conversions and contexts the model
wrote in its arguments (fixable); unit definition files on disk and readings a sensor
service on 127.0.0.1 answered (ambiguous); the interpreter's limits and an optional
dependency the environment lacks (unrecoverable).

Labels follow the cause: ``convert_units`` parses the model's quantity and target unit
with the tool's ``UnitRegistry``, so ``UndefinedUnitError``, ``DimensionalityError``,
``OffsetUnitCalculusError``, ``DefinitionSyntaxError`` and the parser's own errors are the
model's to fix (Pint's docs: "Tutorial", "Temperature conversion",
https://pint.readthedocs.io/en/stable/user/nonmult.html, "Contexts"). Definition files
loaded with ``load_definitions`` (undefined base unit, bad syntax, missing import, wrong
encoding, a redefinition loop) and a sensor's readings are text the model never wrote:
ambiguous. Parentheses nested past the recursion limit stop however they are reworded:
unrecoverable, as ``json-too-deep`` is. ``Measurement`` and ``plus_minus`` need the
``uncertainties`` package, absent here: unrecoverable. Pint has no timeout and no network.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "pint"
REQUIRES = ["Pint>=0.24,<0.26"]


def model_calls(ureg: Any) -> list[tuple[str, dict[str, Any], Callable[[], Any]]]:
    """(slug, the arguments the model wrote, the tool's call with them)."""
    q = ureg.Quantity
    return [
        # units the registry does not define
        ("unit-misspelled", {"quantity": "5 meterz"}, lambda: q("5 meterz")),
        ("unit-currency", {"quantity": "12 USD"}, lambda: q("12 USD")),
        ("unit-bare-prefix", {"quantity": "5 kilo"}, lambda: q("5 kilo")),
        ("unit-mpg", {"quantity": "30 mpg", "to": "L/100km"}, lambda: q("30 mpg").to("L/100km")),
        ("unit-dozen", {"quantity": "3 dozen eggs"}, lambda: q("3 dozen eggs")),
        ("unit-and", {"quantity": "5 hours and 30 minutes"}, lambda: q("5 hours and 30 minutes")),
        ("unit-function", {"quantity": "log(5) m"}, lambda: q("log(5) m")),
        # conversions between dimensions
        ("length-to-mass", {"quantity": "5 m", "to": "kg"}, lambda: q("5 m").to("kg")),
        ("speed-to-length", {"value": 5, "unit": "mph", "to": "m"}, lambda: q(5, "mph").to("m")),
        ("length-to-area", {"quantity": "2 m", "to": "hectare"}, lambda: q("2 m").to("hectare")),
        ("pressure-to-temperature", {"quantity": "100 kPa", "to": "degC"}, lambda: q("100 kPa").to("degC")),
        ("add-length-speed", {"quantity": "5 m", "add": "2 m/s"}, lambda: q("5 m") + q("2 m/s")),
        ("add-number", {"quantity": "5 m", "add": 3}, lambda: q("5 m") + 3),
        (
            "sqrt-then-add",
            {"quantity": "5 m", "power": 0.5, "add": "1 m"},
            lambda: q("5 m") ** 0.5 + q("1 m"),
        ),
        # offset units (temperatures, decibels)
        ("add-celsius", {"quantity": "10 degC", "add": "5 degC"}, lambda: q("10 degC") + q("5 degC")),
        ("scale-celsius", {"quantity": "10 degC", "multiply_by": 2}, lambda: q("10 degC") * 2),
        ("degree-sign-fahrenheit", {"quantity": "72 \u00b0F"}, lambda: q("72 \u00b0F")),
        (
            "celsius-times-fahrenheit",
            {"quantity": "20 degC", "to": "kelvin", "multiply_by": "1 degF"},
            lambda: q("20 degC").to("kelvin") * q("1 degF"),
        ),
        ("add-decibel", {"quantity": "10 dB", "add": "5 m"}, lambda: q("10 dB") + q("5 m")),
        # the parser
        ("empty", {"quantity": ""}, lambda: q("")),
        ("dangling-plus", {"quantity": "5 m +"}, lambda: q("5 m +")),
        ("unclosed-paren", {"quantity": "(5 m"}, lambda: q("(5 m")),
        ("extra-paren", {"quantity": "5 m)"}, lambda: q("5 m)")),
        ("caret-caret", {"value": 5, "unit": "m^^2"}, lambda: q(5, "m^^2")),
        ("units-trailing-slash", {"unit": "m/s/"}, lambda: ureg.parse_units("m/s/")),
        ("power-by-string", {"quantity": "5 m", "power": "2"}, lambda: q("5 m") ** "2"),
        # registries and formats
        (
            "unknown-context",
            {"quantity": "5 m", "to": "km", "context": "nonexistent"},
            lambda: q("5 m").to("km", "nonexistent"),
        ),
        ("enable-unknown-context", {"context": "chemistryx"}, lambda: ureg.enable_contexts("chemistryx")),
        ("dimension-misspelled", {"dimension": "[lenght]"}, lambda: ureg.get_dimensionality("[lenght]")),
        ("format-spec", {"quantity": "5 m", "format": "~Z"}, lambda: format(q("5 m"), "~Z")),
        (
            "convert-misspelled-target",
            {"value": 5, "unit": "m", "to": "kilogramz"},
            lambda: ureg.convert(5, "m", "kilogramz"),
        ),
        ("ito-incompatible", {"quantity": "5 m", "to": "second"}, lambda: q("5 m").ito("second")),
    ]


DEFINITION_FILES: list[tuple[str, str, bytes]] = [
    ("defs-undefined-base", "definition names an undefined unit", b"widget = 3 * gizmo\n"),
    (
        "defs-syntax",
        "definition file has a bad block",
        b"@defaults\n    group = international\n@end\n",
    ),
    ("defs-import-missing", "definition file imports a missing file", b"@import site_units.txt\n"),
    ("defs-not-utf8", "definition file not UTF-8", b"caf\xe9 = 3 * meter\n"),
    (
        "defs-redefinition-loop",
        "definition file redefines the metre in a loop",
        b"meter = 100 * centimeter = m\n",
    ),
]


def cases(ctx: Context) -> Iterator[Case]:
    import pint

    ureg = pint.UnitRegistry()
    for name, arguments, fn in model_calls(ureg):
        exc = _catch(fn)
        yield Case(
            f"pint-{name}",
            LIBRARY,
            f"quantity argument ({name})",
            F,
            None,
            exc,
            "convert_units",
            arguments=arguments,
        )

    # unit definitions the tool loads from disk (its configuration: the model gave only the
    # quantity)
    for name, cause, body in DEFINITION_FILES:
        path = ctx.tmp / f"{name}.txt"
        path.write_bytes(body)
        quantity = "1 widget" if name == "defs-undefined-base" else "3 km"

        def load() -> None:
            site = pint.UnitRegistry()
            site.load_definitions(str(path))
            site.Quantity(quantity).to_base_units()

        yield Case(
            f"pint-{name}",
            LIBRARY,
            cause,
            A,
            None,
            _serve.catch_on_fresh_stack(load),
            "convert_units",
            arguments={"quantity": quantity},
        )
    exc = _catch(lambda: pint.UnitRegistry(str(ctx.tmp / "units.txt")))
    yield Case(
        "pint-defs-missing",
        LIBRARY,
        "definition file does not exist",
        A,
        None,
        exc,
        "convert_units",
        arguments={"quantity": "3 km"},
    )

    # readings another service answered
    readings = {
        "/sensors/boiler/pressure": ("text/plain", b"12 psig"),
        "/sensors/boiler/temperature": ("text/plain", b"23.5 Celsius"),
    }
    with _serve.documents(readings) as port:
        ctx.name_port(port, "SENSORPORT")
        for reading in ("pressure", "temperature"):
            exc = _catch(
                lambda: ureg.Quantity(_serve.get(port, f"/sensors/boiler/{reading}")).to_base_units()
            )
            yield Case(
                f"pint-sensor-{reading}",
                LIBRARY,
                "sensor service answered a unit the registry lacks",
                A,
                None,
                exc,
                "read_sensor",
                arguments={"sensor": "boiler", "reading": reading},
            )

    # limits and what the environment lacks
    q = ureg.Quantity
    nested = "(" * 2000 + "5 m" + ")" * 2000
    exc = _serve.catch_on_fresh_stack(lambda: q(nested))
    yield Case(
        "pint-too-deep",
        LIBRARY,
        "nesting beyond the recursion limit",
        U,
        None,
        exc,
        "convert_units",
        arguments={"quantity": nested},
    )
    exc = _catch(lambda: ureg.Measurement(5, 0.1, "m"))
    yield Case(
        "pint-no-uncertainties",
        LIBRARY,
        "uncertainties not installed",
        U,
        None,
        exc,
        "convert_units",
        arguments={"value": 5, "uncertainty": 0.1, "unit": "m"},
    )
    exc = _catch(lambda: q("5 m").plus_minus(0.1))
    yield Case(
        "pint-plus-minus-no-uncertainties",
        LIBRARY,
        "uncertainties not installed",
        U,
        None,
        exc,
        "convert_units",
        arguments={"quantity": "5 m", "uncertainty": 0.1},
    )
