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


def model_calls(ureg: Any) -> list[tuple[str, Callable[[], Any]]]:
    q = ureg.Quantity
    return [
        # units the registry does not define
        ("unit-misspelled", lambda: q("5 meterz")),
        ("unit-currency", lambda: q("12 USD")),
        ("unit-bare-prefix", lambda: q("5 kilo")),
        ("unit-mpg", lambda: q("30 mpg").to("L/100km")),
        ("unit-dozen", lambda: q("3 dozen eggs")),
        ("unit-and", lambda: q("5 hours and 30 minutes")),
        ("unit-function", lambda: q("log(5) m")),
        # conversions between dimensions
        ("length-to-mass", lambda: q("5 m").to("kg")),
        ("speed-to-length", lambda: q(5, "mph").to("m")),
        ("length-to-area", lambda: q("2 m").to("hectare")),
        ("pressure-to-temperature", lambda: q("100 kPa").to("degC")),
        ("add-length-speed", lambda: q("5 m") + q("2 m/s")),
        ("add-number", lambda: q("5 m") + 3),
        ("sqrt-then-add", lambda: q("5 m") ** 0.5 + q("1 m")),
        # offset units (temperatures, decibels)
        ("add-celsius", lambda: q("10 degC") + q("5 degC")),
        ("scale-celsius", lambda: q("10 degC") * 2),
        ("degree-sign-fahrenheit", lambda: q("72 \u00b0F")),
        ("celsius-times-fahrenheit", lambda: q("20 degC").to("kelvin") * q("1 degF")),
        ("add-decibel", lambda: q("10 dB") + q("5 m")),
        # the parser
        ("empty", lambda: q("")),
        ("dangling-plus", lambda: q("5 m +")),
        ("unclosed-paren", lambda: q("(5 m")),
        ("extra-paren", lambda: q("5 m)")),
        ("caret-caret", lambda: q(5, "m^^2")),
        ("units-trailing-slash", lambda: ureg.parse_units("m/s/")),
        ("power-by-string", lambda: q("5 m") ** "2"),
        # registries and formats
        ("unknown-context", lambda: q("5 m").to("km", "nonexistent")),
        ("enable-unknown-context", lambda: ureg.enable_contexts("chemistryx")),
        ("dimension-misspelled", lambda: ureg.get_dimensionality("[lenght]")),
        ("format-spec", lambda: format(q("5 m"), "~Z")),
        ("convert-misspelled-target", lambda: ureg.convert(5, "m", "kilogramz")),
        ("ito-incompatible", lambda: q("5 m").ito("second")),
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
    for name, fn in model_calls(ureg):
        exc = _catch(fn)
        yield Case(f"pint-{name}", LIBRARY, f"quantity argument ({name})", F, None, exc, "convert_units")

    # unit definitions the tool loads from disk
    for name, cause, body in DEFINITION_FILES:
        path = ctx.tmp / f"{name}.txt"
        path.write_bytes(body)

        def load() -> None:
            site = pint.UnitRegistry()
            site.load_definitions(str(path))
            site.Quantity("1 widget" if name == "defs-undefined-base" else "3 km").to_base_units()

        yield Case(
            f"pint-{name}", LIBRARY, cause, A, None, _serve.catch_on_fresh_stack(load), "convert_units"
        )
    exc = _catch(lambda: pint.UnitRegistry(str(ctx.tmp / "units.txt")))
    yield Case("pint-defs-missing", LIBRARY, "definition file does not exist", A, None, exc, "convert_units")

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
            )

    # limits and what the environment lacks
    q = ureg.Quantity
    exc = _serve.catch_on_fresh_stack(lambda: q("(" * 2000 + "5 m" + ")" * 2000))
    yield Case("pint-too-deep", LIBRARY, "nesting beyond the recursion limit", U, None, exc, "convert_units")
    exc = _catch(lambda: ureg.Measurement(5, 0.1, "m"))
    yield Case("pint-no-uncertainties", LIBRARY, "uncertainties not installed", U, None, exc, "convert_units")
    exc = _catch(lambda: q("5 m").plus_minus(0.1))
    yield Case(
        "pint-plus-minus-no-uncertainties",
        LIBRARY,
        "uncertainties not installed",
        U,
        None,
        exc,
        "convert_units",
    )
