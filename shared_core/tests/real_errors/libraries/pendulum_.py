# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""Pendulum behind a scheduling tool: dates, formats, durations, intervals, time zones and
locales the model wrote in its arguments (fixable); dates, durations and zones read from an
events file on disk or answered by a calendar service on 127.0.0.1, and a corrupt zone file
of the system's time zone database (ambiguous); a time zone database, a dependency or a
locale module the installation lacks (unrecoverable).

Labels follow the cause. ``schedule_event`` / ``convert_time`` / ``add_duration`` pass the
model's text, format, zone name, unit or amount to Pendulum, so
``pendulum.parsing.exceptions.ParserError`` ("Unable to parse string [...]", "Invalid date
string"), ``pendulum.tz.exceptions.InvalidTimezone``, ``PendulumException`` and the
``ValueError`` / ``TypeError`` / ``OverflowError`` of out-of-range values, unknown units and
unknown locales are the model's to fix (Pendulum's docs:
https://pendulum.eustace.io/docs/#parsing "Parsing" (ISO 8601 / RFC 3339, ``strict``,
``exact``), #tokens "Tokens" (``from_format``), #timezones "Timezones", #addition-and-subtraction,
#modifiers (``start_of`` / ``end_of`` / ``next`` / ``nth_of`` units), #duration, #interval,
#localization). The same parser failing on a row of an events CSV or on a calendar
service's JSON is about data the model never wrote: ambiguous. Zone names resolve through the
standard ``zoneinfo`` (its search path, then the ``tzdata`` package): a truncated or garbled
zone file there is a corrupt file on disk (ambiguous); a machine with no zone database (an
empty search path and no ``tzdata``) turns every valid zone name away with the same
``InvalidTimezone`` a misspelt one gets, and neither a retry nor another name helps:
unrecoverable. So is ``import pendulum`` where ``python-dateutil`` is not installed, and a
locale the installed package lacks the module of (``pendulum/locales/fr``: the same
"Locale [fr] does not exist." an invented locale gets) (:mod:`libraries._pkgcopy` imports the
real package afresh from a copy of the installation without it).

Not triggerable: Pendulum does no I/O of its own (no timeout, no network: no transient).
"""

from __future__ import annotations

import csv
import importlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _pkgcopy, _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "pendulum"
REQUIRES = ["pendulum>=3.0,<4", "tzdata>=2024.1,<2030"]

START = "2024-03-10T09:00:00+00:00"


def model_calls() -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, tool, the model's arguments, the call) of each bad argument."""
    import pendulum

    start = pendulum.parse(START)
    parse, fmt = pendulum.parse, pendulum.from_format
    S, C, D = "schedule_event", "convert_time", "add_duration"
    return [
        # ISO 8601 / RFC 3339 parsing
        ("parse-words", S, {"when": "next tuesday"}, lambda: parse("next tuesday")),
        ("parse-month-13", S, {"when": "2024-13-01"}, lambda: parse("2024-13-01")),
        ("parse-feb-30", S, {"when": "2024-02-30"}, lambda: parse("2024-02-30")),
        ("parse-hour-25", S, {"when": "2024-01-01T25:00"}, lambda: parse("2024-01-01T25:00")),
        ("parse-us-style", S, {"when": "March 10 2024"}, lambda: parse("March 10 2024")),
        (
            "parse-lenient-words",
            S,
            {"when": "the tenth", "strict": False},
            lambda: parse("the tenth", strict=False),
        ),
        ("parse-week-60", S, {"when": "2024-W60-1"}, lambda: parse("2024-W60-1")),
        ("parse-ordinal-400", S, {"when": "2024-400"}, lambda: parse("2024-400")),
        ("parse-time-25-61", S, {"when": "25:61"}, lambda: parse("25:61")),
        ("parse-empty", S, {"when": ""}, lambda: parse("")),
        ("parse-unix-seconds", S, {"when": "1704067200"}, lambda: parse("1704067200")),
        ("parse-offset-25h", S, {"when": "2024-03-10T09:00+25:00"}, lambda: parse("2024-03-10T09:00+25:00")),
        (
            "parse-zone-abbreviation",
            S,
            {"when": "2024-03-10 09:00 PST"},
            lambda: parse("2024-03-10 09:00 PST"),
        ),
        (
            "parse-interval-end-feb-30",
            S,
            {"when": "2024-03-10/2024-02-30"},
            lambda: parse("2024-03-10/2024-02-30"),
        ),
        (
            "parse-tz-unknown",
            S,
            {"when": "2024-03-10T09:00", "tz": "Mars/Olympus"},
            lambda: parse("2024-03-10T09:00", tz="Mars/Olympus"),
        ),
        # ISO 8601 durations
        ("duration-bad-designator", D, {"duration": "P1Y2X"}, lambda: parse("P1Y2X")),
        ("duration-fractional-year", D, {"duration": "P1.5Y"}, lambda: parse("P1.5Y")),
        ("duration-no-p", D, {"duration": "1 day 2 hours"}, lambda: parse("1 day 2 hours")),
        # the model's format
        (
            "format-mismatch",
            S,
            {"when": "03/10/2024", "format": "YYYY-MM-DD"},
            lambda: fmt("03/10/2024", "YYYY-MM-DD"),
        ),
        (
            "format-month-name-french",
            S,
            {"when": "1 Janvier 2024", "format": "D MMMM YYYY"},
            lambda: fmt("1 Janvier 2024", "D MMMM YYYY"),
        ),
        (
            "format-locale-unknown",
            S,
            {"when": "1 Janvier 2024", "format": "D MMMM YYYY", "locale": "xx"},
            lambda: fmt("1 Janvier 2024", "D MMMM YYYY", locale="xx"),
        ),
        (
            "format-zone-token",
            S,
            {"when": "2024-01-01 10:00 XYZ", "format": "YYYY-MM-DD HH:mm z"},
            lambda: fmt("2024-01-01 10:00 XYZ", "YYYY-MM-DD HH:mm z"),
        ),
        (
            "format-tz-unknown",
            S,
            {"when": "2024-01-01 10:00", "format": "YYYY-MM-DD HH:mm", "tz": "Europe/Londn"},
            lambda: fmt("2024-01-01 10:00", "YYYY-MM-DD HH:mm", tz="Europe/Londn"),
        ),
        (
            "strptime-bad-directive",
            S,
            {"when": "2024-Q1", "strptime_format": "%Y-%q"},
            lambda: pendulum.DateTime.strptime("2024-Q1", "%Y-%q"),
        ),
        # time zones
        ("tz-unknown", C, {"to_zone": "Mars/Olympus"}, lambda: pendulum.timezone("Mars/Olympus")),
        ("tz-abbreviation", C, {"to_zone": "PST"}, lambda: pendulum.timezone("PST")),
        ("tz-offset-25h", C, {"to_zone": "+25:00"}, lambda: pendulum.timezone("+25:00")),
        (
            "tz-misspelled",
            C,
            {"time": START, "to_zone": "Europe/Londn"},
            lambda: start.in_timezone("Europe/Londn"),
        ),
        ("tz-words", C, {"to_zone": "Eastern Time"}, lambda: pendulum.now("Eastern Time")),
        (
            "tz-utc-plus-hours",
            C,
            {"year": 2024, "month": 1, "day": 1, "tz": "UTC+5"},
            lambda: pendulum.datetime(2024, 1, 1, tz="UTC+5"),
        ),
        (
            "tz-timestamp-zone",
            C,
            {"timestamp": 0, "tz": "Moon/Base"},
            lambda: pendulum.from_timestamp(0, tz="Moon/Base"),
        ),
        # constructors
        (
            "datetime-month-13",
            S,
            {"year": 2024, "month": 13, "day": 1},
            lambda: pendulum.datetime(2024, 13, 1),
        ),
        ("date-feb-30", S, {"year": 2024, "month": 2, "day": 30}, lambda: pendulum.date(2024, 2, 30)),
        ("time-hour-24", S, {"hour": 24, "minute": 0}, lambda: pendulum.time(24, 0)),
        (
            "datetime-fold-2",
            S,
            {
                "year": 2024,
                "month": 3,
                "day": 10,
                "hour": 2,
                "minute": 30,
                "tz": "America/New_York",
                "fold": 2,
            },
            lambda: pendulum.datetime(2024, 3, 10, 2, 30, tz="America/New_York", fold=2),
        ),
        ("timestamp-too-large", S, {"timestamp": 1e20}, lambda: pendulum.from_timestamp(1e20)),
        # JSON has no NaN: the model wrote the word, the tool made it a float
        ("timestamp-nan", S, {"timestamp": "NaN"}, lambda: pendulum.from_timestamp(float("nan"))),
        # arithmetic
        ("add-fortnights", D, {"when": START, "add": {"fortnights": 1}}, lambda: start.add(fortnights=1)),
        ("add-days-string", D, {"when": START, "add": {"days": "3"}}, lambda: start.add(days="3")),
        ("add-years-10000", D, {"when": START, "add": {"years": 10000}}, lambda: start.add(years=10000)),
        ("add-months-fraction", D, {"when": START, "add": {"months": 1.5}}, lambda: start.add(months=1.5)),
        ("add-weeks-huge", D, {"when": START, "add": {"weeks": 1e30}}, lambda: start.add(weeks=1e30)),
        (
            "subtract-years-3000",
            D,
            {"when": START, "subtract": {"years": 3000}},
            lambda: start.subtract(years=3000),
        ),
        ("set-month-13", D, {"when": START, "set": {"month": 13}}, lambda: start.set(month=13)),
        ("duration-days-string", D, {"duration": {"days": "x"}}, lambda: pendulum.duration(days="x")),
        # modifiers
        (
            "start-of-fortnight",
            S,
            {"when": START, "start_of": "fortnight"},
            lambda: start.start_of("fortnight"),
        ),
        ("end-of-decad", S, {"when": START, "end_of": "decad"}, lambda: start.end_of("decad")),
        ("next-weekday-8", S, {"when": START, "next_weekday": 8}, lambda: start.next(8)),
        (
            "nth-of-sixth-tuesday",
            S,
            {"when": START, "nth_of": "month", "nth": 6, "weekday": 1},
            lambda: start.nth_of("month", 6, 1),
        ),
        ("first-of-week", S, {"when": START, "first_of": "week"}, lambda: start.first_of("week")),
        (
            "average-with-string",
            S,
            {"when": START, "average_with": "2024"},
            lambda: start.average("2024"),
        ),
        # intervals
        (
            "interval-range-fortnights",
            S,
            {"start": START, "end": "2024-03-13T09:00:00+00:00", "step": "fortnights"},
            lambda: list(pendulum.interval(start, start.add(days=3)).range("fortnights")),
        ),
        (
            "interval-strings",
            S,
            {"start": "2024-01-01", "end": "2024-02-01"},
            lambda: pendulum.interval("2024-01-01", "2024-02-01"),
        ),
        # locales
        (
            "humanize-locale-unknown",
            C,
            {"time": START, "humanize": True, "locale": "xx"},
            lambda: start.diff_for_humans(locale="xx"),
        ),
        (
            "duration-words-locale",
            D,
            {"duration": {"days": 3}, "locale": "xx_YY"},
            lambda: pendulum.duration(days=3).in_words(locale="xx_YY"),
        ),
        (
            "format-output-locale",
            C,
            {"time": START, "format": "MMMM", "locale": "zz"},
            lambda: start.format("MMMM", locale="zz"),
        ),
        ("set-locale-klingon", C, {"locale": "klingon"}, lambda: pendulum.set_locale("klingon")),
    ]


EVENTS_CSV = (
    "title,start,zone,length\n"
    "Standup,31/12/2024 09:00,Europe/Paris,PT15M\n"
    "Review,2024-02-30T10:00:00,Europe/Paris,PT1H\n"
    "Retro,2024-03-01T16:00:00,EST5EDTX,PT1H\n"
    "Planning,2024-03-04T10:00:00,Europe/Paris,1 hour\n"
    "Offsite,2024-03-05T09:00:00,Europe/Paris,1h30m\n"
)

CALENDAR = {
    "/calendar/events/77": {"id": 77, "start": "2024-06-31T10:00:00Z", "zone": "UTC"},
    "/calendar/events/78": {"id": 78, "start": "tomorrow at 10am", "zone": "UTC"},
    "/calendar/events/79": {"id": 79, "start": "2024-06-03T10:00:00", "zone": "Pacific Standard Time"},
    "/calendar/events/80": {"id": 80, "start": "", "zone": "UTC"},
}
CALENDAR_DURATIONS = {
    "/calendar/events/81/duration": {"id": 81, "duration": "PT1H30"},
}


@contextmanager
def _zone_path(path: list[str]) -> Iterator[None]:
    """The zone database searched in ``path`` (what ``PYTHONTZPATH`` sets), caches cleared."""
    import zoneinfo

    zoneinfo.reset_tzpath(path)
    zoneinfo.ZoneInfo.clear_cache()
    try:
        yield
    finally:
        zoneinfo.reset_tzpath()
        zoneinfo.ZoneInfo.clear_cache()


def _file_cases(ctx: Context) -> Iterator[Case]:
    import pendulum

    path = ctx.tmp / "events.csv"
    path.write_text(EVENTS_CSV)
    with path.open() as f:
        rows = list(csv.DictReader(f))
    for slug, row in zip(("file-day-first", "file-feb-30", "file-zone-unknown"), rows):
        exc = _catch(lambda: pendulum.parse(row["start"], tz=row["zone"]))
        yield Case(
            f"pendulum-{slug}",
            LIBRARY,
            "events file on disk has a bad date or zone",
            A,
            None,
            exc,
            "import_events",
            {"path": str(path)},
        )
    for slug, row in zip(("file-duration-words", "file-duration-shorthand"), rows[3:]):
        exc = _catch(lambda: pendulum.parse(row["length"]))
        yield Case(
            f"pendulum-{slug}",
            LIBRARY,
            "events file on disk has a bad duration",
            A,
            None,
            exc,
            "import_events",
            {"path": str(path)},
        )


def _service_cases(ctx: Context) -> Iterator[Case]:
    import pendulum

    pages = {
        p: ("application/json", json.dumps(r).encode()) for p, r in {**CALENDAR, **CALENDAR_DURATIONS}.items()
    }
    with _serve.documents(pages) as port:
        ctx.name_port(port, "CALENDARPORT")
        slugs = ("calendar-june-31", "calendar-words", "calendar-windows-zone", "calendar-empty-start")
        for slug, page in zip(slugs, CALENDAR):
            event = json.loads(_serve.get(port, page))
            exc = _catch(lambda: pendulum.parse(event["start"], tz=event["zone"]))
            yield Case(
                f"pendulum-{slug}",
                LIBRARY,
                "calendar service answered a bad date or zone",
                A,
                None,
                exc,
                "sync_calendar",
                {"event_id": CALENDAR[page]["id"]},
            )
        page = "/calendar/events/81/duration"
        event = json.loads(_serve.get(port, page))
        exc = _catch(lambda: pendulum.parse(event["duration"]))
        yield Case(
            "pendulum-calendar-duration",
            LIBRARY,
            "calendar service answered a bad duration",
            A,
            None,
            exc,
            "sync_calendar",
            {"event_id": 81},
        )


def _zone_cases(ctx: Context) -> Iterator[Case]:
    import pendulum
    import tzdata

    berlin = (Path(tzdata.__file__).parent / "zoneinfo" / "Europe" / "Berlin").read_bytes()
    zones = ctx.tmp / "zoneinfo"
    (zones / "Europe").mkdir(parents=True)
    (zones / "Europe" / "Berlin").write_bytes(berlin[:300])
    (zones / "Europe" / "Paris").write_bytes(b"<html><body><h1>404 Not Found</h1></body></html>\n")
    with _zone_path([str(zones)]):
        exc = _catch(lambda: pendulum.now("Europe/Berlin"))
        yield Case(
            "pendulum-zone-file-truncated",
            LIBRARY,
            "zone file on disk truncated",
            A,
            None,
            exc,
            "convert_time",
            {"to_zone": "Europe/Berlin"},
        )
        exc = _catch(lambda: pendulum.parse(START).in_timezone("Europe/Paris"))
        yield Case(
            "pendulum-zone-file-not-tzif",
            LIBRARY,
            "zone file on disk is an HTML page",
            A,
            None,
            exc,
            "convert_time",
            {"time": START, "to_zone": "Europe/Paris"},
        )

    empty = ctx.tmp / "no-zoneinfo"
    empty.mkdir()
    with _zone_path([str(empty)]), _pkgcopy.broken_install(ctx.tmp, [], hide=("tzdata",)):
        exc = _catch(lambda: pendulum.now("Europe/Berlin"))
        yield Case(
            "pendulum-no-zone-database",
            LIBRARY,
            "no time zone database installed",
            U,
            None,
            exc,
            "convert_time",
            {"to_zone": "Europe/Berlin"},
        )
        exc = _catch(lambda: pendulum.parse("2024-03-10T09:00", tz="Australia/Sydney"))
        yield Case(
            "pendulum-no-zone-database-parse",
            LIBRARY,
            "no time zone database installed",
            U,
            None,
            exc,
            "schedule_event",
            {"when": "2024-03-10T09:00", "tz": "Australia/Sydney"},
        )

    with _pkgcopy.broken_install(ctx.tmp, ["pendulum"], hide=("dateutil", "six")):
        exc = _catch(lambda: importlib.import_module("pendulum"))
    yield Case(
        "pendulum-dateutil-not-installed",
        LIBRARY,
        "python-dateutil not installed",
        U,
        None,
        exc,
        "schedule_event",
        {"when": START},
    )
    with _pkgcopy.broken_install(
        ctx.tmp, ["pendulum", "dateutil", "six", "tzdata"], drop=("pendulum/locales/fr",)
    ):
        broken = importlib.import_module("pendulum")
        exc = _catch(lambda: broken.parse(START).format("dddd D MMMM", locale="fr"))
    yield Case(
        "pendulum-locale-module-missing",
        LIBRARY,
        "installed locale package missing (pendulum/locales/fr)",
        U,
        None,
        exc,
        "convert_time",
        {"time": START, "format": "dddd D MMMM", "locale": "fr"},
    )


def cases(ctx: Context) -> Iterator[Case]:
    for slug, tool, args, fn in model_calls():
        yield Case(f"pendulum-{slug}", LIBRARY, f"date argument ({slug})", F, None, _catch(fn), tool, args)
    yield from _file_cases(ctx)
    yield from _service_cases(ctx)
    yield from _zone_cases(ctx)
