"""python-dateutil: dates, recurrence rules and offsets the model wrote in its arguments
(fixable); a calendar file on disk (ambiguous)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "python-dateutil"
REQUIRES = ["python-dateutil>=2.8.2,<3"]

MODEL_DATES: list[tuple[str, str]] = [
    ("words", "next tuesday"),
    ("relative", "in 3 days"),
    ("month-13", "2024-13-01"),
    ("day-32", "2024-01-32"),
    ("feb-30", "30 February 2024"),
    ("hour-25", "2024-01-01 25:00"),
    ("minute-61", "10:61"),
    ("empty", ""),
    ("placeholder", "YYYY-MM-DD"),
    ("template", "{{ today }}"),
    ("quarter", "Q3 2024"),
    ("week-number", "week 42 of 2024"),
    ("ordinal-words", "the first of march"),
    ("two-dates", "2024-01-01 to 2024-01-31"),
    ("unix-ms", "1704067200000"),
    ("misspelled-month", "12 Febuary 2024"),
    ("emoji", "\U0001f4c5 tomorrow"),
    ("am-pm-24h", "17:30 PM"),
    ("iso-week", "2024-W99-1"),
]

MODEL_ISO: list[tuple[str, str]] = [
    ("iso-slash", "2024/01/02"),
    ("iso-us-order", "01-02-2024"),
    ("iso-space-z", "2024-01-02 10:00 Z"),
    ("iso-comma-fraction", "2024-01-02T10:00:00,"),
    ("iso-month-name", "2024-Jan-02"),
    ("iso-bad-offset", "2024-01-02T10:00+5"),
    ("iso-hour-24-minutes", "2024-01-02T24:30"),
    ("iso-trailing-text", "2024-01-02T10:00:00 UTC"),
]

MODEL_RRULES: list[tuple[str, str]] = [
    ("rrule-bad-freq", "FREQ=FORTNIGHTLY;COUNT=3"),
    ("rrule-bad-day", "FREQ=WEEKLY;BYDAY=MON,WED"),
    ("rrule-unknown-key", "FREQ=DAILY;EVERY=2"),
    ("rrule-bad-interval", "FREQ=DAILY;INTERVAL=two"),
    ("rrule-bad-until", "FREQ=DAILY;UNTIL=next-year"),
    ("rrule-no-equals", "FREQ DAILY"),
    ("rrule-empty", ""),
]


def model_calls() -> list[tuple[str, dict[str, Any], Callable[[], Any]]]:
    """``(name, the model's arguments, the call)`` of each case the model's values break."""
    from datetime import datetime

    from dateutil import parser, relativedelta, rrule

    calls: list[tuple[str, dict[str, Any], Callable[[], Any]]] = []
    for name, text in MODEL_DATES:
        calls.append((name, {"when": text}, lambda text=text: parser.parse(text)))
    for name, text in MODEL_ISO:
        calls.append((name, {"when": text}, lambda text=text: parser.isoparse(text)))
    for name, text in MODEL_RRULES:  # the start is the tool's (dtstart)
        calls.append(
            (name, {"rrule": text}, lambda text=text: rrule.rrulestr(text, dtstart=datetime(2024, 1, 1)))
        )
    calls += [
        (
            "dayfirst-impossible",
            {"when": "13/25/2024", "dayfirst": True},
            lambda: parser.parse("13/25/2024", dayfirst=True),
        ),
        (
            "relativedelta-fractional-months",
            {"months": 1.5},
            lambda: relativedelta.relativedelta(months=1.5),
        ),
        (
            "relativedelta-unknown-field",
            {"fortnights": 2},
            lambda: relativedelta.relativedelta(fortnights=2),
        ),
        (
            "fuzzy-nothing",
            {"when": "no date here at all"},
            lambda: parser.parse("no date here at all", fuzzy=True),
        ),
    ]
    return calls


def cases(ctx: Context) -> Iterator[Case]:
    from dateutil import rrule, tz

    for name, arguments, fn in model_calls():
        exc = _catch(fn)
        yield Case(
            f"dateutil-{name}",
            LIBRARY,
            f"date argument ({name})",
            F,
            None,
            exc,
            "schedule",
            arguments=arguments,
        )

    # the model gave only the path; the rule is the file's
    meeting = ctx.tmp / "meeting.ics"
    exc = _catch(lambda: rrule.rrulestr(meeting.read_text()))
    yield Case(
        "dateutil-file-missing",
        LIBRARY,
        "calendar file does not exist",
        A,
        None,
        exc,
        "read_calendar",
        arguments={"path": str(meeting)},
    )
    ics = ctx.tmp / "team.ics"
    ics.write_text("DTSTART:20240101T090000\nRRULE:FREQ=WEEKLY;BYDAY=XX\n")
    exc = _catch(lambda: rrule.rrulestr(ics.read_text()))
    yield Case(
        "dateutil-file-bad-rule",
        LIBRARY,
        "calendar file on disk has a broken rule",
        A,
        None,
        exc,
        "read_calendar",
        arguments={"path": str(ics)},
    )
    zone = ctx.tmp / "zone"
    zone.write_bytes(b"not a tzfile")
    exc = _catch(lambda: tz.tzfile(str(zone)))
    yield Case(
        "dateutil-file-bad-tzfile",
        LIBRARY,
        "zone file on disk is not a tzfile",
        A,
        None,
        exc,
        "read_calendar",
        arguments={"path": str(zone)},
    )
