# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""icalendar behind a calendar tool: iCalendar text and event fields the model wrote in its
arguments (fixable); the same malformed iCalendar read from an ``.ics`` file on disk or
answered by a CalDAV-like calendar server on 127.0.0.1 (ambiguous); the operating system's
refusals around the tool's file reads and writes; a dependency, a zone database or a module
file the installation lacks (unrecoverable), a corrupt zone file (ambiguous).

Labels follow the cause that was set up:

- ``import_events`` passes the model's ``ics`` text to ``Calendar.from_ical`` and reads the
  events' ``start`` / ``end`` / ``duration`` / ``rdates`` / ``exdates`` / ``sequence`` /
  ``status`` / alarm ``TRIGGER``: a content line without a colon, a property outside any
  component, a missing ``END``, two calendars where one is allowed, ``DTEND`` together with
  ``DURATION``, a date ``DTSTART`` with an hourly ``DURATION``, a value that is not RFC 5545
  syntax (``ValueError``, ``icalendar.error.InvalidCalendar`` / ``IncompleteComponent`` /
  ``BrokenCalendarProperty``) are the model's text to fix (RFC 5545 section 3.1 content
  lines, 3.3 value types, 3.6.1 VEVENT: "either 'dtend' or 'duration' MAY appear ... but
  'dtend' and 'duration' MUST NOT occur in the same 'eventprop'"; icalendar's API reference
  icalendar.readthedocs.io/en/stable/reference/api/icalendar.html for
  ``InvalidCalendar``, ``IncompleteComponent``, ``BrokenCalendarProperty``).
- ``create_event`` parses the model's field values with icalendar's value types
  (``vDDDTypes``, ``vDuration``, ``vRecur``, ``vPeriod``, ``vGeo``, ``vUTCOffset``,
  ``vDate``, ``vTime``), builds the event with ``Event.new`` and looks zones up with
  ``Timezone.from_tzid``: a date in ISO punctuation, "1 hour", ``FREQ=FORTNIGHTLY``, an
  end before the start, a Python string where a date is needed, an unknown zone are the
  model's values: fixable.
- ``import_calendar_file`` / ``sync_calendar`` read the same kinds of malformed text from a
  file on disk or from a calendar server's ``GET`` of a calendar object resource (RFC 4791
  section 4.1, 5.3.4): the model wrote only the path or the URL; the broken data is the
  file's or the server's (an HTML sign-in page, a JSON error body, a truncated download, a
  UTF-16 export): ambiguous.
- the tool's own file I/O around icalendar: a path the model named that does not exist or
  is a directory, a folder that does not exist -> fixable; a file or folder the tool may
  not read or write (run as an ordinary user, :mod:`libraries._files`), a full device
  (``/dev/full``) -> unrecoverable.
- ``import icalendar`` with ``python-dateutil`` (a declared dependency) or one of its own
  module files missing, and ``Timezone.from_tzid`` with no zone database at all (no
  ``tzdata``, an empty ``zoneinfo`` search path): unrecoverable (:mod:`libraries._pkgcopy`
  imports the real package afresh from a copy of the installation without them); a
  truncated zone file in the search path: a corrupt file on disk, ambiguous.

Not triggerable: icalendar does no network I/O of its own (no timeout or connection error
of its own: the HTTP client's failures are another library's), takes no locks and has no
limits of its own; unknown ``TZID`` parameters, unknown ``X-`` properties, ``BYMONTH=13``,
unknown ``PARTSTAT`` values, an end before the start and a content line without a colon
inside a component (kept in the component's ``errors``) are accepted without an error in
text it parses (lenient parsing), so they give no case.
"""

from __future__ import annotations

import datetime as dt
import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _pkgcopy, _serve
from ._files import denied, read_only_dir

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "icalendar"
REQUIRES = ["icalendar>=6.1,<8", "tzdata>=2024.1,<2030"]

CRLF = "\r\n"


def _wrap(*lines: str, component: str = "VEVENT") -> str:
    """A calendar with one component holding ``lines``."""
    body = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//Example Corp//Planner 1.0//EN",
        f"BEGIN:{component}",
        "UID:7f3c9a2e-1b4d-4e8f-9a6b-2c5d8e1f0a3b@example.com",
        "DTSTAMP:20240301T120000Z",
        *lines,
        f"END:{component}",
        "END:VCALENDAR",
    ]
    return CRLF.join(body) + CRLF


def _first(cal: Any, name: str = "VEVENT") -> Any:
    return cal.walk(name)[0]


# (slug, cause, the model's .ics text, what the tool reads from the parsed calendar)
def _text_cases() -> list[tuple[str, str, str, Callable[[Any], Any]]]:
    start = "DTSTART:20240310T090000Z"
    return [
        (
            "no-colon",
            "calendar property line without a colon",
            _wrap(start).replace("VERSION:2.0", "VERSION:2.0" + CRLF + "X-WR-CALNAME Team calendar"),
            lambda c: c,
        ),
        (
            "property-outside-component",
            "property before any BEGIN",
            "SUMMARY:Team standup" + CRLF + _wrap(start),
            lambda c: c,
        ),
        (
            "missing-end",
            "calendar without its END lines",
            CRLF.join(["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", start, "SUMMARY:Standup"]) + CRLF,
            lambda c: c,
        ),
        (
            "end-without-begin",
            "END:VEVENT without BEGIN:VEVENT",
            CRLF.join(["BEGIN:VCALENDAR", "VERSION:2.0", start, "END:VEVENT", "END:VCALENDAR"]) + CRLF,
            lambda c: c,
        ),
        (
            "two-calendars",
            "two VCALENDAR objects where one is allowed",
            _wrap(start) + _wrap("DTSTART:20240311T090000Z"),
            lambda c: c,
        ),
        ("empty", "empty calendar text", "", lambda c: c),
        (
            "markdown-fence",
            "calendar wrapped in a Markdown code fence",
            "```ics" + CRLF + _wrap(start) + "```" + CRLF,
            lambda c: c,
        ),
        (
            "iso-dtstart",
            "DTSTART in ISO 8601 punctuation",
            _wrap("DTSTART:2024-03-10T09:00:00Z", "DTEND:20240310T093000Z"),
            lambda c: _first(c).start,
        ),
        (
            "words-dtend",
            "DTEND in words",
            _wrap(start, "DTEND:tomorrow"),
            lambda c: _first(c).end,
        ),
        (
            "dtend-and-duration",
            "DTEND and DURATION both given",
            _wrap(start, "DTEND:20240310T100000Z", "DURATION:PT1H"),
            lambda c: _first(c).end,
        ),
        (
            "no-dtstart",
            "event without DTSTART",
            _wrap("SUMMARY:Standup", "DURATION:PT15M"),
            lambda c: _first(c).start,
        ),
        (
            "date-start-hour-duration",
            "all-day DTSTART with an hourly DURATION",
            _wrap("DTSTART;VALUE=DATE:20240310", "DURATION:PT2H"),
            lambda c: _first(c).end,
        ),
        (
            "date-start-datetime-end",
            "DTSTART a date, DTEND a date-time",
            _wrap("DTSTART;VALUE=DATE:20240310", "DTEND:20240310T170000Z"),
            lambda c: _first(c).end,
        ),
        (
            "duration-words",
            "DURATION not in RFC 5545 form",
            _wrap(start, "DURATION:1h"),
            lambda c: _first(c).duration,
        ),
        (
            "exdate-iso",
            "EXDATE in ISO punctuation",
            _wrap(start, "RRULE:FREQ=WEEKLY", "EXDATE:2024-03-17"),
            lambda c: _first(c).exdates,
        ),
        (
            "rdate-words",
            "RDATE in words",
            _wrap(start, "RDATE:every other friday"),
            lambda c: _first(c).rdates,
        ),
        (
            "sequence-word",
            "SEQUENCE not an integer",
            _wrap(start, "SEQUENCE:two"),
            lambda c: _first(c).sequence,
        ),
        (
            "status-unknown",
            "STATUS value not defined for VEVENT",
            _wrap(start, "STATUS:POSTPONED"),
            lambda c: _first(c).status,
        ),
        (
            "geo-comma",
            "GEO with a comma instead of a semicolon",
            _wrap(start, "GEO:48.8566,2.3522"),
            lambda c: _first(c)["GEO"].latitude,
        ),
        (
            "alarm-trigger-words",
            "alarm TRIGGER in words",
            _wrap(
                start,
                "BEGIN:VALARM",
                "ACTION:DISPLAY",
                "DESCRIPTION:Reminder",
                "TRIGGER:-15 minutes",
                "END:VALARM",
            ),
            lambda c: _first(c, "VALARM").TRIGGER,
        ),
        (
            "todo-no-start",
            "task with DUE but no DTSTART, start read",
            _wrap("SUMMARY:File taxes", "DUE:20240415T170000Z", component="VTODO"),
            lambda c: _first(c, "VTODO").start,
        ),
    ]


def _parse(text: str | bytes, read: Callable[[Any], Any]) -> Any:
    from icalendar import Calendar

    return read(Calendar.from_ical(text))


# (slug, cause, tool, the model's arguments, the call)
def _field_cases() -> list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]]:
    from icalendar import (
        Event,
        Timezone,
        vDate,
        vDDDTypes,
        vDuration,
        vGeo,
        vPeriod,
        vRecur,
        vTime,
        vUTCOffset,
    )

    start = dt.datetime(2024, 3, 10, 9, tzinfo=dt.timezone.utc)
    return [
        (
            "start-iso",
            "start in ISO 8601 punctuation",
            "create_event",
            {"summary": "Standup", "start": "2024-03-10T09:00:00"},
            lambda: vDDDTypes.from_ical("2024-03-10T09:00:00"),
        ),
        (
            "start-words",
            "start in words",
            "create_event",
            {"summary": "Standup", "start": "next monday 9am"},
            lambda: vDDDTypes.from_ical("next monday 9am"),
        ),
        (
            "start-month-13",
            "start with month 13",
            "create_event",
            {"summary": "Standup", "start": "20241310T090000"},
            lambda: vDDDTypes.from_ical("20241310T090000"),
        ),
        (
            "all-day-iso",
            "all-day date in ISO punctuation",
            "create_event",
            {"summary": "Offsite", "date": "2024-03-10"},
            lambda: vDate.from_ical("2024-03-10"),
        ),
        (
            "duration-words",
            "duration in words",
            "create_event",
            {"summary": "Standup", "start": "20240310T090000Z", "duration": "1 hour"},
            lambda: vDuration.from_ical("1 hour"),
        ),
        (
            "duration-minutes-suffix",
            "duration as '30m'",
            "create_event",
            {"summary": "Standup", "start": "20240310T090000Z", "duration": "30m"},
            lambda: vDuration.from_ical("30m"),
        ),
        (
            "rrule-fortnightly",
            "recurrence frequency FORTNIGHTLY",
            "create_event",
            {"summary": "Sync", "start": "20240310T090000Z", "rrule": "FREQ=FORTNIGHTLY"},
            lambda: vRecur.from_ical("FREQ=FORTNIGHTLY"),
        ),
        (
            "rrule-byday-full-name",
            "BYDAY with a full weekday name",
            "create_event",
            {"summary": "Sync", "start": "20240310T090000Z", "rrule": "FREQ=WEEKLY;BYDAY=MONDAY"},
            lambda: vRecur.from_ical("FREQ=WEEKLY;BYDAY=MONDAY"),
        ),
        (
            "rrule-count-word",
            "COUNT in words",
            "create_event",
            {"summary": "Sync", "start": "20240310T090000Z", "rrule": "FREQ=WEEKLY;COUNT=ten"},
            lambda: vRecur.from_ical("FREQ=WEEKLY;COUNT=ten"),
        ),
        (
            "rrule-until-iso",
            "UNTIL in ISO punctuation",
            "create_event",
            {"summary": "Sync", "start": "20240310T090000Z", "rrule": "FREQ=DAILY;UNTIL=2024-06-30"},
            lambda: vRecur.from_ical("FREQ=DAILY;UNTIL=2024-06-30"),
        ),
        (
            "rrule-dict-freq",
            "recurrence given as an object with an unknown frequency",
            "create_event",
            {"summary": "Sync", "start": "20240310T090000Z", "rrule": {"freq": "biweekly", "count": 6}},
            lambda: vRecur({"freq": "biweekly", "count": 6}).to_ical(),
        ),
        (
            "rrule-skip",
            "RSCALE SKIP value unknown",
            "create_event",
            {
                "summary": "Rent",
                "start": "20240131T090000Z",
                "rrule": "RSCALE=GREGORIAN;FREQ=MONTHLY;SKIP=LATER",
            },
            lambda: vRecur.from_ical("RSCALE=GREGORIAN;FREQ=MONTHLY;SKIP=LATER"),
        ),
        (
            "period-years",
            "free/busy period of bare years",
            "add_busy_period",
            {"period": "2024/2025"},
            lambda: vPeriod.from_ical("2024/2025"),
        ),
        (
            "geo-words",
            "location coordinates as a place name",
            "create_event",
            {"summary": "Offsite", "start": "20240310T090000Z", "geo": "Paris, France"},
            lambda: vGeo.from_ical("Paris, France"),
        ),
        (
            "utc-offset-25h",
            "UTC offset of 25 hours",
            "create_timezone",
            {"tzid": "Custom/Far", "utc_offset": "+2500"},
            lambda: vUTCOffset.from_ical("+2500"),
        ),
        (
            "time-4-digits",
            "time without seconds",
            "create_event",
            {"summary": "Standup", "time": "0930"},
            lambda: vTime.from_ical("0930"),
        ),
        (
            "new-start-string",
            "start passed as a string to Event.new",
            "create_event",
            {"summary": "Standup", "start": "2024-03-10 09:00"},
            lambda: Event.new(summary="Standup", start="2024-03-10 09:00"),
        ),
        (
            "new-end-before-start",
            "end before start",
            "create_event",
            {"summary": "Standup", "start": "2024-03-10T09:00:00Z", "end": "2024-03-10T08:30:00Z"},
            lambda: Event.new(summary="Standup", start=start, end=start - dt.timedelta(minutes=30)),
        ),
        (
            "set-duration-string",
            "duration set as a string",
            "update_event",
            {"uid": "evt-4411", "duration": "PT45M"},
            lambda: setattr(Event.new(summary="Standup", start=start), "duration", "PT45M"),
        ),
        (
            "add-dtstart-string",
            "DTSTART added as a Python string",
            "create_event",
            {"summary": "Standup", "start": "March 10, 9am"},
            lambda: Event().add("DTSTART", "March 10, 9am"),
        ),
        (
            "tz-unknown",
            "unknown time zone name",
            "create_event",
            {"summary": "Standup", "start": "20240310T090000", "tzid": "Mars/Olympus"},
            lambda: Timezone.from_tzid("Mars/Olympus"),
        ),
        (
            "tz-abbreviation",
            "time zone given as an abbreviation",
            "create_event",
            {"summary": "Standup", "start": "20240310T090000", "tzid": "CEST"},
            lambda: Timezone.from_tzid("CEST"),
        ),
        (
            "tz-misspelled",
            "time zone name misspelt",
            "create_event",
            {"summary": "Standup", "start": "20240310T090000", "tzid": "Europe/Pariss"},
            lambda: Timezone.from_tzid("Europe/Pariss"),
        ),
    ]


# (slug, cause, the file's bytes, what the tool reads)
def _file_cases() -> list[tuple[str, str, bytes, Callable[[Any], Any]]]:
    full = _wrap("DTSTART:20240310T090000Z", "DTEND:20240310T093000Z", "SUMMARY:Standup").encode()
    return [
        ("truncated", "download cut short (no END lines)", full[: len(full) // 2], lambda c: c),
        (
            "html-page",
            "an HTML page saved as .ics",
            b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Sign in to continue</body></html>\n",
            lambda c: c,
        ),
        ("utf16", "a UTF-16 export", _wrap("DTSTART:20240310T090000Z").encode("utf-16"), lambda c: c),
        ("empty", "empty file", b"", lambda c: c),
        (
            "iso-dtstart",
            "an event's DTSTART in ISO punctuation",
            _wrap("DTSTART:2024-03-10 09:00", "SUMMARY:Standup").encode(),
            lambda c: _first(c).start,
        ),
        (
            "dtend-and-duration",
            "an event with DTEND and DURATION",
            _wrap("DTSTART:20240310T090000Z", "DTEND:20240310T100000Z", "DURATION:PT1H").encode(),
            lambda c: _first(c).end,
        ),
        (
            "no-dtstart",
            "an event without DTSTART",
            _wrap("SUMMARY:Standup").encode(),
            lambda c: _first(c).start,
        ),
        (
            "exdate-broken",
            "an EXDATE that is not a date",
            _wrap("DTSTART:20240310T090000Z", "RRULE:FREQ=WEEKLY", "EXDATE:TBD").encode(),
            lambda c: _first(c).exdates,
        ),
        (
            "concatenated",
            "two calendars concatenated in one file",
            _wrap("DTSTART:20240310T090000Z").encode() * 2,
            lambda c: c,
        ),
        (
            "trigger-broken",
            "an alarm TRIGGER that is not a duration",
            _wrap(
                "DTSTART:20240310T090000Z",
                "BEGIN:VALARM",
                "ACTION:DISPLAY",
                "TRIGGER:15",
                "END:VALARM",
            ).encode(),
            lambda c: _first(c, "VALARM").TRIGGER,
        ),
    ]


# (slug, cause, the server's body, what the tool reads)
def _server_cases() -> list[tuple[str, str, bytes, Callable[[Any], Any]]]:
    return [
        (
            "html-login",
            "the server answered its sign-in page",
            b"<html><head><title>Nextcloud</title></head><body><form>Log in</form></body></html>",
            lambda c: c,
        ),
        (
            "json-error",
            "the server answered a JSON error body",
            b'{"error": "calendar_unavailable", "message": "Try again later"}',
            lambda c: c,
        ),
        (
            "multistatus-xml",
            "the server answered a WebDAV multistatus document",
            b'<?xml version="1.0" encoding="utf-8"?>\n<d:multistatus xmlns:d="DAV:"/>\n',
            lambda c: c,
        ),
        (
            "no-end",
            "calendar object without END:VCALENDAR",
            _wrap("DTSTART:20240310T090000Z").rsplit("END:VCALENDAR", 1)[0].encode(),
            lambda c: c,
        ),
        (
            "dtend-words",
            "an event's DTEND the server stored as text",
            _wrap("DTSTART:20240310T090000Z", "DTEND:TBD").encode(),
            lambda c: _first(c).end,
        ),
        (
            "duration-broken",
            "an event's DURATION not in RFC 5545 form",
            _wrap("DTSTART:20240310T090000Z", "DURATION:90").encode(),
            lambda c: _first(c).duration,
        ),
        (
            "date-start-hour-duration",
            "an all-day event with an hourly DURATION",
            _wrap("DTSTART;VALUE=DATE:20240310", "DURATION:PT3H").encode(),
            lambda c: _first(c).end,
        ),
        (
            "sequence-broken",
            "an event's SEQUENCE not an integer",
            _wrap("DTSTART:20240310T090000Z", "SEQUENCE:1.5").encode(),
            lambda c: _first(c).sequence,
        ),
        (
            "status-unknown",
            "an event's STATUS not defined for VEVENT",
            _wrap("DTSTART:20240310T090000Z", "STATUS:ON-HOLD").encode(),
            lambda c: _first(c).status,
        ),
    ]


@contextmanager
def _zone_path(path: list[str]) -> Iterator[None]:
    import zoneinfo

    zoneinfo.reset_tzpath(path)
    zoneinfo.ZoneInfo.clear_cache()
    try:
        yield
    finally:
        zoneinfo.reset_tzpath()
        zoneinfo.ZoneInfo.clear_cache()


def cases(ctx: Context) -> Iterator[Case]:
    def case(slug: str, cause: str, kind: str, exc: BaseException, tool: str, args: dict[str, Any]) -> Case:
        return Case(f"icalendar-{slug}", LIBRARY, cause, kind, None, exc, tool, args)

    # the model's iCalendar text
    for slug, cause, text, read in _text_cases():
        exc = _catch(lambda: _parse(text, read))
        yield case(f"text-{slug}", cause, F, exc, "import_events", {"ics": text})

    # the model's field values
    for slug, cause, tool, args, fn in _field_cases():
        yield case(f"field-{slug}", cause, F, _catch(fn), tool, args)

    # .ics files on disk
    folder = ctx.tmp / "calendars"
    folder.mkdir()
    for slug, cause, data, read in _file_cases():
        path = folder / f"{slug}.ics"
        path.write_bytes(data)
        exc = _catch(lambda: _parse(path.read_bytes(), read))
        yield case(
            f"file-{slug}", f"file on disk: {cause}", A, exc, "import_calendar_file", {"path": str(path)}
        )

    # a CalDAV-like server's calendar object resources
    pages = {
        f"/dav/calendars/alice/work/{slug}.ics": ("text/calendar", body)
        for slug, _, body, _ in _server_cases()
    }
    with _serve.documents(pages) as port:
        ctx.name_port(port, "CALDAVPORT")
        for slug, cause, _, read in _server_cases():
            url = f"http://127.0.0.1:{port}/dav/calendars/alice/work/{slug}.ics"
            exc = _catch(lambda: _parse(_serve.get(port, url.split(str(port), 1)[1]), read))
            yield case(f"server-{slug}", cause, A, exc, "sync_calendar", {"calendar_url": url})

    yield from _io_cases(ctx)
    yield from _install_cases(ctx)


def _io_cases(ctx: Context) -> Iterator[Case]:
    from icalendar import Calendar, Event

    def case(slug: str, cause: str, kind: str, exc: BaseException, tool: str, args: dict[str, Any]) -> Case:
        return Case(f"icalendar-{slug}", LIBRARY, cause, kind, None, exc, tool, args)

    def load(path: Path) -> Callable[[], Any]:
        return lambda: Calendar.from_ical(path.read_bytes())

    good = _wrap("DTSTART:20240310T090000Z", "SUMMARY:Standup").encode()
    tmp = ctx.tmp
    missing = tmp / "calendars" / "team-calender.ics"
    yield case(
        "read-missing",
        "the model named a file that does not exist",
        F,
        _catch(load(missing)),
        "import_calendar_file",
        {"path": str(missing)},
    )
    yield case(
        "read-directory",
        "the model named a folder, not a file",
        F,
        _catch(load(tmp / "calendars")),
        "import_calendar_file",
        {"path": str(tmp / "calendars")},
    )
    private = tmp / "private.ics"
    private.write_bytes(good)
    private.chmod(0o000)
    tmp.chmod(0o711)
    yield case(
        "read-permission",
        "file the tool may not read",
        U,
        denied(load(private)),
        "import_calendar_file",
        {"path": str(private)},
    )

    cal = Calendar.new(prodid="-//Example Corp//Planner 1.0//EN")
    cal.add_component(Event.new(summary="Standup", start=dt.datetime(2024, 3, 10, 9, tzinfo=dt.timezone.utc)))

    def save(path: Path | str) -> Callable[[], Any]:
        return lambda: Path(path).write_bytes(cal.to_ical())

    nowhere = tmp / "exports" / "2024" / "standup.ics"
    yield case(
        "write-missing-folder",
        "the model named a folder that does not exist",
        F,
        _catch(save(nowhere)),
        "export_calendar",
        {"path": str(nowhere)},
    )
    locked = read_only_dir(tmp / "shared")
    yield case(
        "write-permission",
        "folder the tool may not write into",
        U,
        denied(save(locked / "standup.ics")),
        "export_calendar",
        {"path": str(locked / "standup.ics")},
    )
    yield case(
        "write-disk-full",
        "no space left on the device",
        U,
        _catch(save("/dev/full")),
        "export_calendar",
        {"path": "/dev/full"},
    )


def _install_cases(ctx: Context) -> Iterator[Case]:
    import tzdata

    def case(slug: str, cause: str, kind: str, exc: BaseException, tool: str, args: dict[str, Any]) -> Case:
        return Case(f"icalendar-{slug}", LIBRARY, cause, kind, None, exc, tool, args)

    from icalendar import Timezone

    berlin = (Path(tzdata.__file__).parent / "zoneinfo" / "Europe" / "Berlin").read_bytes()
    zones = ctx.tmp / "zoneinfo"
    (zones / "Europe").mkdir(parents=True)
    (zones / "Europe" / "Berlin").write_bytes(berlin[:300])
    args = {"summary": "Standup", "start": "20240310T090000", "tzid": "Europe/Berlin"}
    with _zone_path([str(zones)]):
        exc = _catch(lambda: Timezone.from_tzid("Europe/Berlin"))
    yield case("zone-file-truncated", "zone file on disk truncated", A, exc, "create_event", args)

    empty = ctx.tmp / "no-zoneinfo"
    empty.mkdir()
    with _zone_path([str(empty)]), _pkgcopy.broken_install(ctx.tmp, [], hide=("tzdata",)):
        exc = _catch(lambda: Timezone.from_tzid("Europe/Berlin"))
    yield case("no-zone-database", "no time zone database installed", U, exc, "create_event", args)

    ics = _wrap("DTSTART:20240310T090000Z", "SUMMARY:Standup")
    with _pkgcopy.broken_install(
        ctx.tmp,
        ["icalendar", "typing_extensions", "tzdata"],
        hide=("dateutil", "six", "typing_extensions", "tzdata"),
    ):
        exc = _catch(lambda: importlib.import_module("icalendar"))
    yield case(
        "dateutil-not-installed", "python-dateutil not installed", U, exc, "import_events", {"ics": ics}
    )
    with _pkgcopy.broken_install(
        ctx.tmp,
        ["icalendar", "dateutil", "six", "typing_extensions", "tzdata"],
        drop=("icalendar/caselessdict.py",),
    ):
        exc = _catch(lambda: importlib.import_module("icalendar"))
    yield case(
        "module-missing",
        "installed module file missing (icalendar/caselessdict.py)",
        U,
        exc,
        "import_events",
        {"ics": ics},
    )
