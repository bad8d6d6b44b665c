# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""Arrow behind a scheduling tool: dates, formats, time zones, shifts, spans and locales the
model wrote in its arguments (fixable); dates read from an events file on disk or answered
by a calendar service on 127.0.0.1, and a corrupt zone file of the system's time zone
database (ambiguous); a time zone database, a dependency or a module file the installation
lacks (unrecoverable).

Labels follow the cause. ``schedule_event`` / ``convert_time`` pass the model's text,
format, zone name, shift or span to Arrow, so ``arrow.parser.ParserError`` /
``ParserMatchError`` ("Could not match input ...", "Failed to match ...", "Could not parse
timezone expression ..."), and the ``ValueError`` / ``TypeError`` / ``OverflowError`` of
out-of-range values and unknown frames, granularities and locales are the model's to fix
(Arrow's docs: https://arrow.readthedocs.io/en/latest/guide.html "Parse from string",
"Supported Tokens", "Shift", "Ranges & Spans", "Humanize", "Dehumanize"; the API guide's
``ParserError``). The same parser failing on a row of an events CSV or on a calendar
service's JSON is about data the model never wrote: ambiguous. Zone names resolve through
the standard ``zoneinfo`` (the search path ``zoneinfo.reset_tzpath`` / ``PYTHONTZPATH``
sets, then the ``tzdata`` package): a truncated or garbled zone file there is a file on disk
that is corrupt (ambiguous, like ``dateutil-file-bad-tzfile``); a machine with no zone
database at all (an empty search path and no ``tzdata``) turns every valid zone name away
with the same ``ParserError`` a misspelt one gets, and neither a retry nor another name
helps: unrecoverable. So is ``import arrow`` where ``python-dateutil`` or one of Arrow's
own modules is not installed (:mod:`libraries._pkgcopy` imports the real package afresh
from a copy of the installation without it).

Not triggerable: Arrow does no I/O of its own (no timeout, no network: no transient);
its locales are Python classes, not files; no recursion or memory limit was found
reachable through its parser with the arguments a tool passes.
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

LIBRARY = "arrow"
REQUIRES = ["arrow>=1.3,<2", "tzdata>=2024.1,<2030"]


START = "2024-03-10T09:00:00+00:00"


def model_calls() -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, tool, the model's arguments, the call) of each bad argument."""
    import arrow

    start = arrow.get(START)
    get, now = arrow.get, arrow.now
    rng, interval = arrow.Arrow.range, arrow.Arrow.interval
    calls: list[tuple[str, dict[str, Any], Callable[[], Any]]] = [
        # dates without a format (ISO 8601 and the default formats)
        ("words", {"when": "next tuesday"}, lambda: get("next tuesday")),
        ("month-13", {"when": "2024-13-01"}, lambda: get("2024-13-01")),
        ("feb-30", {"when": "2024-02-30"}, lambda: get("2024-02-30")),
        ("hour-25", {"when": "2024-01-01T25:00"}, lambda: get("2024-01-01T25:00")),
        ("year-zero", {"when": "0000-01-01"}, lambda: get("0000-01-01")),
        ("ordinal-day-400", {"when": "2024-400"}, lambda: get("2024-400")),
        ("iso-week-60", {"when": "2024-W60-1"}, lambda: get("2024-W60-1")),
        ("unix-ms-as-string", {"when": "1704067200000"}, lambda: get("1704067200000")),
        # dates with the model's format
        (
            "format-mismatch",
            {"when": "03/10/2024", "format": "YYYY-MM-DD"},
            lambda: get("03/10/2024", "YYYY-MM-DD"),
        ),
        (
            "formats-none-match",
            {"when": "10 March", "formats": ["YYYY-MM-DD", "MM/DD/YYYY"]},
            lambda: get("10 March", ["YYYY-MM-DD", "MM/DD/YYYY"]),
        ),
        (
            "month-name-french",
            {"when": "1 Janvier 2024", "format": "D MMMM YYYY"},
            lambda: get("1 Janvier 2024", "D MMMM YYYY"),
        ),
        (
            "weekday-name-unknown",
            {"when": "Funday 2024-01-01", "format": "dddd YYYY-MM-DD"},
            lambda: get("Funday 2024-01-01", "dddd YYYY-MM-DD"),
        ),
        (
            "format-unclosed-bracket",
            {"when": "on 2024-01-01", "format": "[on YYYY-MM-DD"},
            lambda: get("on 2024-01-01", "[on YYYY-MM-DD"),
        ),
        ("format-timestamp-not-digits", {"when": "soon", "format": "X"}, lambda: get("soon", "X")),
        (
            "format-token-repeated",
            {"when": "2024-01-01 2024", "format": "YYYY-MM-DD YYYY"},
            lambda: get("2024-01-01 2024", "YYYY-MM-DD YYYY"),
        ),
        (
            "format-day-32nd",
            {"when": "32nd of May 2024", "format": "Do [of] MMMM YYYY"},
            lambda: get("32nd of May 2024", "Do [of] MMMM YYYY"),
        ),
        # time zones
        ("tz-unknown", {"to_zone": "Mars/Olympus"}, lambda: now("Mars/Olympus")),
        ("tz-abbreviation", {"to_zone": "PST"}, lambda: now("PST")),
        (
            "tz-misspelled",
            {"time": START, "to_zone": "Europe/Londn"},
            lambda: start.to("Europe/Londn"),
        ),
        (
            "tz-words",
            {"time": "2024-03-10", "zone": "Eastern Time"},
            lambda: get("2024-03-10", tzinfo="Eastern Time"),
        ),
        (
            "tz-utc-plus-hours",
            {"time": "2024-03-10", "zone": "UTC+5"},
            lambda: get("2024-03-10", tzinfo="UTC+5"),
        ),
        ("tz-offset-25h", {"time": START, "to_zone": "+25:00"}, lambda: start.to("+25:00")),
        (
            "tz-replace-unknown",
            {"time": START, "replace_zone": "Nowhere/City"},
            lambda: start.replace(tzinfo="Nowhere/City"),
        ),
        (
            "tz-token-unknown",
            {"time": "2024-01-01 10:00 XYZ", "format": "YYYY-MM-DD HH:mm ZZZ"},
            lambda: get("2024-01-01 10:00 XYZ", "YYYY-MM-DD HH:mm ZZZ"),
        ),
        # shifts and replacements
        ("shift-fortnights", {"when": START, "shift": {"fortnights": 1}}, lambda: start.shift(fortnights=1)),
        ("shift-amount-string", {"when": START, "shift": {"days": "3"}}, lambda: start.shift(days="3")),
        ("shift-past-9999", {"when": START, "shift": {"years": 10000}}, lambda: start.shift(years=10000)),
        (
            "shift-before-year-1",
            {"when": START, "shift": {"years": -3000}},
            lambda: start.shift(years=-3000),
        ),
        (
            "shift-fractional-months",
            {"when": START, "shift": {"months": 1.5}},
            lambda: start.shift(months=1.5),
        ),
        ("replace-weeks", {"when": START, "replace": {"weeks": 1}}, lambda: start.replace(weeks=1)),
        ("replace-month-13", {"when": START, "replace": {"month": 13}}, lambda: start.replace(month=13)),
        # spans, ranges, humanize
        ("span-fortnight", {"when": START, "span": "fortnight"}, lambda: start.span("fortnight")),
        (
            "range-fortnight",
            {"start": START, "end": "2024-04-09T09:00:00+00:00", "frame": "fortnight"},
            lambda: list(rng("fortnight", start, start.shift(days=30))),
        ),
        (
            "interval-zero",
            {"start": START, "end": "2024-03-10T11:00:00+00:00", "frame": "hour", "interval": 0},
            lambda: list(interval("hour", start, start.shift(hours=2), interval=0)),
        ),
        (
            "week-start-0",
            {"when": START, "span": "week", "week_start": 0},
            lambda: start.span("week", week_start=0),
        ),
        (
            "humanize-locale-unknown",
            {"time": START, "humanize": True, "locale": "xx_YY"},
            lambda: start.humanize(locale="xx_YY"),
        ),
        (
            "humanize-granularity-decade",
            {"time": START, "humanize": True, "granularity": "decade"},
            lambda: start.humanize(granularity="decade"),
        ),
        (
            "dehumanize-words",
            {"when": "in two fortnights", "relative_to": START},
            lambda: start.dehumanize("in two fortnights"),
        ),
        (
            "between-bounds",
            {"when": START, "start": START, "end": "2024-03-11T09:00:00+00:00", "bounds": "[}"},
            lambda: start.is_between(start, start.shift(days=1), "[}"),
        ),
        # timestamps and constructors
        ("timestamp-too-large", {"when": 1e20}, lambda: get(1e20)),
        # JSON has no NaN: the model wrote the word, the tool made it a float
        ("timestamp-nan", {"when": "NaN"}, lambda: get(float("nan"))),
        ("ordinal-zero", {"ordinal": 0}, lambda: arrow.Arrow.fromordinal(0)),
        (
            "fold-2",
            {"year": 2024, "month": 11, "day": 3, "hour": 1, "minute": 30, "fold": 2},
            lambda: arrow.Arrow(2024, 11, 3, 1, 30, fold=2),
        ),
        (
            "strptime-bad-directive",
            {"when": "2024-Q1", "strptime_format": "%Y-%q"},
            lambda: arrow.Arrow.strptime("2024-Q1", "%Y-%q"),
        ),
        (
            "format-locale-unknown",
            {"time": START, "format": "MMMM", "locale": "zz"},
            lambda: start.format("MMMM", locale="zz"),
        ),
    ]
    return [
        (
            slug,
            "convert_time" if slug.startswith(("tz-", "humanize", "format-locale")) else "schedule_event",
            args,
            fn,
        )
        for slug, args, fn in calls
    ]


EVENTS_CSV = (
    "title,start,zone\n"
    "Standup,31/12/2024 09:00,Europe/Paris\n"
    "Review,2024-02-30 10:00,Europe/Paris\n"
    "Retro,2024-03-01 16:00,EST5EDTX\n"
)

CALENDAR = {
    "/calendar/events/77": {"id": 77, "start": "2024-06-31T10:00:00Z"},
    "/calendar/events/78": {"id": 78, "start": "tomorrow at 10am"},
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


def _zone_cases(ctx: Context) -> Iterator[tuple[str, str, str, str, dict[str, Any], BaseException]]:
    """(slug, cause, kind, tool, the model's arguments, exception) of a zone database corrupt
    or absent."""
    import arrow
    import tzdata

    berlin = (Path(tzdata.__file__).parent / "zoneinfo" / "Europe" / "Berlin").read_bytes()
    zones = ctx.tmp / "zoneinfo"
    (zones / "Europe").mkdir(parents=True)
    (zones / "Europe" / "Berlin").write_bytes(berlin[:300])
    (zones / "Europe" / "Paris").write_bytes(b"<html><body><h1>404 Not Found</h1></body></html>\n")
    with _zone_path([str(zones)]):
        exc = _catch(lambda: arrow.now("Europe/Berlin"))
        args: dict[str, Any] = {"to_zone": "Europe/Berlin"}
        yield "zone-file-truncated", "zone file on disk truncated", A, "convert_time", args, exc
        exc = _catch(lambda: arrow.get(START).to("Europe/Paris"))
        args = {"time": START, "to_zone": "Europe/Paris"}
        yield "zone-file-not-tzif", "zone file on disk is an HTML page", A, "convert_time", args, exc

    empty = ctx.tmp / "no-zoneinfo"
    empty.mkdir()
    with _zone_path([str(empty)]), _pkgcopy.broken_install(ctx.tmp, [], hide=("tzdata",)):
        exc = _catch(lambda: arrow.now("Europe/Berlin"))
        args = {"to_zone": "Europe/Berlin"}
        yield "no-zone-database", "no time zone database installed", U, "convert_time", args, exc
        exc = _catch(lambda: arrow.get("2024-03-10 09:00", tzinfo="America/New_York"))
        args = {"when": "2024-03-10 09:00", "zone": "America/New_York"}
        yield "no-zone-database-get", "no time zone database installed", U, "schedule_event", args, exc

    with _pkgcopy.broken_install(ctx.tmp, ["arrow"], hide=("dateutil", "six")):
        exc = _catch(lambda: importlib.import_module("arrow"))
    args = {"when": START}
    yield "dateutil-not-installed", "python-dateutil not installed", U, "schedule_event", args, exc
    with _pkgcopy.broken_install(ctx.tmp, ["arrow", "dateutil", "six"], drop=("arrow/locales.py",)):
        exc = _catch(lambda: importlib.import_module("arrow"))
    yield (
        "locales-module-missing",
        "installed module file missing (arrow/locales.py)",
        U,
        "schedule_event",
        {"when": START},
        exc,
    )


def cases(ctx: Context) -> Iterator[Case]:
    import arrow

    for slug, tool, args, fn in model_calls():
        yield Case(f"arrow-{slug}", LIBRARY, f"date argument ({slug})", F, None, _catch(fn), tool, args)

    # an events file on disk
    path = ctx.tmp / "events.csv"
    path.write_text(EVENTS_CSV)
    with path.open() as f:
        rows = list(csv.DictReader(f))
    for slug, row in zip(("file-day-first", "file-feb-30", "file-zone-unknown"), rows):
        exc = _catch(lambda: arrow.get(row["start"], "YYYY-MM-DD HH:mm", tzinfo=row["zone"]))
        yield Case(
            f"arrow-{slug}",
            LIBRARY,
            "events file on disk has a bad date",
            A,
            None,
            exc,
            "import_events",
            {"path": str(path)},
        )

    # a calendar service's events
    pages = {p: ("application/json", json.dumps(r).encode()) for p, r in CALENDAR.items()}
    with _serve.documents(pages) as port:
        ctx.name_port(port, "CALENDARPORT")
        for slug, page in zip(("calendar-day-31-june", "calendar-words"), CALENDAR):
            event_id = CALENDAR[page]["id"]
            exc = _catch(lambda: arrow.get(json.loads(_serve.get(port, page))["start"]))
            yield Case(
                f"arrow-{slug}",
                LIBRARY,
                "calendar service answered a bad date",
                A,
                None,
                exc,
                "sync_calendar",
                {"event_id": event_id},
            )

    for slug, cause, kind, tool, args, exc in _zone_cases(ctx):
        yield Case(f"arrow-{slug}", LIBRARY, cause, kind, None, exc, tool, args)
