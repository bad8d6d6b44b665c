# ruff: noqa: B023 - each lambda is called at once
"""caldav (the python-caldav client) behind an agent's calendar tools, against a real Radicale
CalDAV server that the module starts on 127.0.0.1 with its own configuration in the
temporary directory (``htpasswd`` authentication with plain passwords, a ``from_file`` rights
file, a filesystem storage, ``max_content_length``: https://radicale.org/v3.html
"Configuration"), and a stand-in for the nginx reverse proxy Radicale's documentation puts in
front of it (https://radicale.org/v3.html "Reverse Proxy") answering nginx's own 429, 502,
503 and 504 pages, a reset or no answer. Every UID, calendar id and URL is fixed; caldav
runs on its ``requests`` fallback (``caldav.lib.http_sync``), niquests hidden while it is
imported, so the texts do not depend on which HTTP library happens to be installed.

The tools: ``list_calendars`` (no arguments), ``create_calendar``, ``create_event`` (fields:
summary, start, end, a recurrence rule as RFC 5545 RRULE parts, uid), ``create_event_ical``
(raw iCalendar text the model wrote), ``import_ics`` (a ``.ics`` file in the workspace the
model names), ``get_event`` / ``update_event`` / ``delete_event`` (by UID), ``list_events``
(a date range, optionally expanded) and ``get_todo``. The server URL, user and password are
the tool's configuration.

Labels, by the cause that was set up:

- fixable: iCalendar text the model wrote that is not iCalendar (no END lines, a DTSTART
  that is not a DATE-TIME, a VEVENT without DTSTART, two VEVENTs with different UIDs in one
  object, which RFC 4791 section 4.1 forbids), RRULE parts outside RFC 5545 section 3.3.10's
  grammar (FREQ=FORTNIGHTLY, BYDAY=MONDAY, a FREQUENCY key, an UNTIL that is not a date)
  refused by icalendar or answered 400 by Radicale, a calendar id with a ``/`` or ``..``
  (Radicale's rights answer 403 for a collection that is not the user's own calendar, but
  a plain id works), an expanded search without an end date (caldav: "can't expand without
  a date range").
- ambiguous: a calendar, event or todo the model named that does not exist (404,
  ``NotFoundError``), a calendar id that already exists (409 ``resource-must-be-null``), an
  event whose UID another object already holds (409 ``no-uid-conflict``:
  ``UidConflictError``, RFC 4791 section 5.3.2.1) or that exists where the tool asked for a
  new one (``ConsistencyError``), an update or delete of an event someone changed since it
  was read (412: ``ETagMismatchError``, RFC 9110 section 13.1.1), and an ``.ics`` file the
  model only named whose contents are broken (truncated, an HTML page, a bad date, an
  invalid RRULE): the tool read those, the model did not write them.
- unrecoverable: the tool's password is wrong or its user unknown (401), the rights file
  gives the user read-only access or none (403 on a shared calendar, on another user's
  calendar), a request body larger than the server's ``max_content_length`` (413), and an
  installation of caldav without an HTTP library (caldav's own ImportError).
- transient: Radicale not running (connection refused) and a DNS name that does not resolve:
  not executed; the proxy's 429 and 503 with ``Retry-After`` (caldav's ``RateLimitError``)
  and nginx's ``limit_req`` 503 page: not executed
  (https://nginx.org/en/docs/http/ngx_http_limit_req_module.html, RFC 6585 section 4); a
  request blocked behind another process holding Radicale's storage lock until the
  client's timeout, a read timeout, a reset, a 502 and a 504 from the proxy: unknown outcome.

Not triggered: a full disk or a read-only storage (the generator runs as root), Radicale's
500 (it answers malformed data with 400), a time zone the server does not know (Radicale
stores ``TZID=Europe/Pariss`` without complaint), an end before the start (accepted), and
RFC 6764 discovery (it needs DNS).
"""

from __future__ import annotations

import datetime
import fcntl
import importlib
import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generate import Case

from . import _pkgcopy, _saas
from ._common import NE, UO, A, F, T, U, catch, free_port, process

LIBRARY = "caldav"
REQUIRES = ["caldav==3.6.0", "radicale==3.9.0"]

TIMEOUT = 1.0


def _schema(properties: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


_CAL = {"type": "string", "description": "Calendar id, e.g. work"}
_UID = {"type": "string", "description": "Event UID"}
SCHEMAS: dict[str, dict[str, Any]] = {
    "list_calendars": _schema({}, []),
    "create_calendar": _schema(
        {
            "calendar_id": {"type": "string", "description": "Id of the new calendar (used in its URL)"},
            "name": {"type": "string", "description": "Display name"},
        },
        ["calendar_id", "name"],
    ),
    "create_event": _schema(
        {
            "calendar": _CAL,
            "summary": {"type": "string", "description": "Event title"},
            "start": {"type": "string", "format": "date-time", "description": "Start time (ISO 8601)"},
            "end": {"type": "string", "format": "date-time", "description": "End time (ISO 8601)"},
            "rrule": {
                "type": "object",
                "description": 'Recurrence rule parts, e.g. {"FREQ": "WEEKLY", "BYDAY": "MO"}',
            },
            "description": {"type": "string", "description": "Event description"},
            "uid": {"type": "string", "description": "UID to give the event (optional)"},
        },
        ["calendar", "summary", "start"],
    ),
    "create_event_ical": _schema(
        {
            "calendar": _CAL,
            "ical": {"type": "string", "description": "The event as iCalendar (RFC 5545) text"},
        },
        ["calendar", "ical"],
    ),
    "import_ics": _schema(
        {"calendar": _CAL, "path": {"type": "string", "description": "Path of the .ics file to import"}},
        ["calendar", "path"],
    ),
    "get_event": _schema({"calendar": _CAL, "uid": _UID}, ["calendar", "uid"]),
    "get_todo": _schema(
        {"calendar": _CAL, "uid": {"type": "string", "description": "Task UID"}}, ["calendar", "uid"]
    ),
    "update_event": _schema(
        {
            "calendar": _CAL,
            "uid": _UID,
            "summary": {"type": "string", "description": "New title"},
        },
        ["calendar", "uid"],
    ),
    "delete_event": _schema({"calendar": _CAL, "uid": _UID}, ["calendar", "uid"]),
    "list_events": _schema(
        {
            "calendar": _CAL,
            "start": {"type": "string", "format": "date-time", "description": "Range start (ISO 8601)"},
            "end": {"type": "string", "format": "date-time", "description": "Range end (ISO 8601)"},
            "expand": {"type": "boolean", "description": "Expand recurring events into occurrences"},
        },
        ["calendar"],
    ),
}

RIGHTS = """\
[root]
user: .+
collection:
permissions: R

[principal]
user: .+
collection: {user}
permissions: RW

[own-calendars]
user: .+
collection: {user}/[^/]+
permissions: rw

[bob-reads-ann]
user: bob
collection: ann
permissions: R

[bob-reads-team]
user: bob
collection: ann/team
permissions: r
"""

HEAD = "BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Example//Agent//EN\n"
TAIL = "END:VCALENDAR\n"


def _vevent(uid: str, extra: str = "", start: str = "DTSTART:20250304T100000Z\n") -> str:
    return f"BEGIN:VEVENT\nUID:{uid}\nDTSTAMP:20250101T000000Z\n{start}SUMMARY:Planning\n{extra}END:VEVENT\n"


def _ical(*events: str) -> str:
    return HEAD + "".join(events) + TAIL


def _when(text: str) -> datetime.datetime:
    """How the tools read the model's ISO 8601 times."""
    return datetime.datetime.fromisoformat(text)


@contextmanager
def _quiet_caldav() -> Iterator[None]:
    """caldav logs its "deviation from expectations" reports at ERROR; not the point here."""
    logger = logging.getLogger("caldav")
    level, propagate = logger.level, logger.propagate
    logger.setLevel(logging.CRITICAL + 1)
    logger.propagate = False
    try:
        yield
    finally:
        logger.setLevel(level)
        logger.propagate = propagate


def _import_caldav() -> Any:
    """caldav with its ``requests`` fallback: niquests hidden while caldav picks its library."""
    if "caldav.lib.http_sync" not in sys.modules:
        saved = sys.modules.get("niquests", None)
        had = "niquests" in sys.modules
        sys.modules["niquests"] = None  # type: ignore[assignment]
        try:
            importlib.import_module("caldav.lib.http_sync")
        finally:
            if had:
                sys.modules["niquests"] = saved  # type: ignore[assignment]
            else:
                del sys.modules["niquests"]
    import caldav

    assert caldav.lib.http_sync.USE_REQUESTS, "caldav did not pick requests"
    return caldav


def available() -> str | None:
    try:
        importlib.import_module("radicale")
    except ImportError:
        return "radicale is not installed"
    return None


def cases(ctx: Any) -> Iterator[Case]:
    with _quiet_caldav():
        yield from _cases(ctx)


def _cases(ctx: Any) -> Iterator[Case]:
    caldav = _import_caldav()

    def case(
        slug: str,
        tool: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        arguments: dict[str, Any],
    ) -> Case:
        return Case(
            f"caldav-{slug}",
            LIBRARY,
            cause,
            kind,
            outcome,
            exc,
            tool,
            arguments=arguments,
            parameters=SCHEMAS[tool],
        )

    tmp: Path = ctx.tmp
    ws = tmp / "ws"  # the tools' workspace (import_ics reads there)
    ws.mkdir()
    (tmp / "users").write_text("ann:correct-horse\nbob:battery-staple\n")
    (tmp / "rights").write_text(RIGHTS)
    storage = tmp / "collections"
    port = free_port()
    (tmp / "radicale.conf").write_text(
        f"[server]\nhosts = 127.0.0.1:{port}\nmax_content_length = 20000\n"
        f"[auth]\ntype = htpasswd\nhtpasswd_filename = {tmp / 'users'}\n"
        "htpasswd_encryption = plain\ndelay = 0\n"
        f"[rights]\ntype = from_file\nfile = {tmp / 'rights'}\n"
        f"[storage]\nfilesystem_folder = {storage}\n"
        "[logging]\nlevel = critical\n"
    )
    command = [sys.executable, "-m", "radicale", "--config", str(tmp / "radicale.conf")]
    url = f"http://127.0.0.1:{port}/"

    def client(user: str = "ann", password: str = "correct-horse", base: str = url) -> Any:
        return caldav.DAVClient(url=base, username=user, password=password, timeout=TIMEOUT)

    with process(command, port):
        ctx.name_port(port, "RADICALEPORT")
        ann = client()
        home = ann.principal()
        work = home.make_calendar(name="Work", cal_id="work")
        team = home.make_calendar(name="Team", cal_id="team")
        team.add_event(
            dtstart=datetime.datetime(2025, 3, 3, 9, tzinfo=datetime.timezone.utc),
            summary="Kickoff",
            uid="kickoff-0303",
        )
        work.add_event(
            dtstart=datetime.datetime(2025, 3, 4, 10, tzinfo=datetime.timezone.utc),
            dtend=datetime.datetime(2025, 3, 4, 10, 15, tzinfo=datetime.timezone.utc),
            summary="Standup",
            uid="standup-0304",
        )

        def calendar(cal_id: str, who: Any = None) -> Any:
            """The tool's lookup: the calendar ``cal_id`` of the configured user."""
            return (who or ann).calendar(url=f"{url}ann/{cal_id}/")

        # --- iCalendar text the model wrote (create_event_ical) ---
        bad_icals = [
            (
                "ical-no-end",
                "iCalendar text without END lines",
                HEAD + "BEGIN:VEVENT\nUID:retro-0307\nDTSTART:20250307T150000Z\nSUMMARY:Retro\n",
            ),
            (
                "ical-dtstart-format",
                "DTSTART that is not an iCalendar DATE-TIME",
                _ical(_vevent("retro-0307", start="DTSTART:2025-03-07 15:00\n")),
            ),
            ("ical-no-dtstart", "VEVENT without DTSTART (400)", _ical(_vevent("retro-0307", start=""))),
            (
                "ical-two-uids",
                "two VEVENTs with different UIDs in one object (400)",
                _ical(_vevent("retro-0307"), _vevent("retro-0314")),
            ),
            (
                "ical-rrule-freq",
                "RRULE with FREQ=FORTNIGHTLY (400)",
                _ical(_vevent("retro-0307", "RRULE:FREQ=FORTNIGHTLY\n")),
            ),
            (
                "ical-not-ical",
                "plain text instead of iCalendar (400)",
                "Retro on Friday at 15:00 with the team",
            ),
            (
                "ical-dtend-text",
                "DTEND written as a word",
                _ical(_vevent("retro-0307", "DTEND:tomorrow\n")),
            ),
            (
                "ical-exdate-format",
                "EXDATE that is not a DATE-TIME",
                _ical(_vevent("retro-0307", "RRULE:FREQ=WEEKLY\nEXDATE:2025-03-14\n")),
            ),
            (
                "ical-rrule-until-format",
                "RRULE UNTIL written as 2025-04-01 (400)",
                _ical(_vevent("retro-0307", "RRULE:FREQ=WEEKLY;UNTIL=2025-04-01\n")),
            ),
            (
                "ical-alarm-trigger-text",
                "VALARM TRIGGER written in words",
                _ical(
                    _vevent(
                        "retro-0307",
                        "BEGIN:VALARM\nTRIGGER:15 minutes before\nACTION:DISPLAY\nDESCRIPTION:Retro\nEND:VALARM\n",
                    )
                ),
            ),
        ]
        for slug, cause, text in bad_icals:
            yield case(
                slug,
                "create_event_ical",
                cause,
                F,
                None,
                catch(lambda: calendar("work").add_event(text)),
                {"calendar": "work", "ical": text},
            )

        # --- structured events (create_event): the tool passes the model's RRULE parts ---
        start = "2025-03-07T15:00:00+00:00"
        rrules: list[tuple[str, str, dict[str, Any]]] = [
            (
                "rrule-freq-unknown",
                "RRULE FREQ outside RFC 5545's values (icalendar)",
                {"FREQ": "FORTNIGHTLY"},
            ),
            (
                "rrule-byday-name",
                "RRULE BYDAY with a day name instead of MO..SU (icalendar)",
                {"FREQ": "WEEKLY", "BYDAY": "MONDAY"},
            ),
            ("rrule-key-unknown", "RRULE part name that does not exist (400)", {"FREQUENCY": "WEEKLY"}),
            (
                "rrule-until-text",
                "RRULE UNTIL that is not a date",
                {"FREQ": "WEEKLY", "UNTIL": "end of March"},
            ),
            ("rrule-count-text", "RRULE COUNT that is not a number", {"FREQ": "WEEKLY", "COUNT": "ten"}),
            (
                "rrule-wkst-name",
                "RRULE WKST with a day name instead of MO..SU (icalendar)",
                {"FREQ": "WEEKLY", "WKST": "SUNDAY"},
            ),
        ]
        for slug, cause, rrule in rrules:
            yield case(
                slug,
                "create_event",
                cause,
                F,
                None,
                catch(
                    lambda: calendar("work").add_event(
                        dtstart=_when(start), summary="Retro", rrule=rrule, uid="retro-0307"
                    )
                ),
                {"calendar": "work", "summary": "Retro", "start": start, "rrule": rrule},
            )
        for slug, cal_id in (("calendar-id-slash", "team/design"), ("calendar-id-dots", "..")):
            yield case(
                slug,
                "create_calendar",
                f"calendar id {cal_id!r} outside the user's own calendars (403)",
                F,
                None,
                catch(lambda: home.make_calendar(name="Design", cal_id=cal_id)),
                {"calendar_id": cal_id, "name": "Design"},
            )
        yield case(
            "expand-without-end",
            "list_events",
            "expanded search without an end date",
            F,
            None,
            catch(
                lambda: calendar("work").search(
                    start=_when("2025-03-01T00:00:00+00:00"), event=True, expand=True
                )
            ),
            {"calendar": "work", "start": "2025-03-01T00:00:00+00:00", "expand": True},
        )

        # --- names that do not exist ---
        yield case(
            "calendar-missing",
            "list_events",
            "calendar id that does not exist (404)",
            A,
            None,
            catch(
                lambda: calendar("holidays").search(
                    start=_when("2025-03-01T00:00:00+00:00"),
                    end=_when("2025-04-01T00:00:00+00:00"),
                    event=True,
                )
            ),
            {
                "calendar": "holidays",
                "start": "2025-03-01T00:00:00+00:00",
                "end": "2025-04-01T00:00:00+00:00",
            },
        )
        yield case(
            "calendar-missing-by-name",
            "get_event",
            "calendar display name that does not exist",
            A,
            None,
            catch(lambda: home.calendar(name="Holidays").event_by_uid("standup-0304")),
            {"calendar": "Holidays", "uid": "standup-0304"},
        )
        yield case(
            "event-missing",
            "get_event",
            "event UID that does not exist",
            A,
            None,
            catch(lambda: calendar("work").event_by_uid("standup-0305")),
            {"calendar": "work", "uid": "standup-0305"},
        )
        yield case(
            "event-missing-delete",
            "delete_event",
            "event to delete that does not exist",
            A,
            None,
            catch(lambda: calendar("work").event_by_uid("lunch-0304").delete()),
            {"calendar": "work", "uid": "lunch-0304"},
        )
        yield case(
            "todo-is-an-event",
            "get_todo",
            "task UID that names an event, not a task",
            A,
            None,
            catch(lambda: calendar("work").todo_by_uid("standup-0304")),
            {"calendar": "work", "uid": "standup-0304"},
        )
        yield case(
            "event-url-missing",
            "get_event",
            "event resource gone from the calendar (404 on GET)",
            A,
            None,
            catch(lambda: calendar("work").event_by_url(f"{url}ann/work/review-0306.ics").load()),
            {"calendar": "work", "uid": "review-0306"},
        )

        # --- conflicts with what is stored ---
        yield case(
            "calendar-exists",
            "create_calendar",
            "calendar id already exists (409)",
            A,
            None,
            catch(lambda: home.make_calendar(name="Work", cal_id="work")),
            {"calendar_id": "work", "name": "Work"},
        )
        yield case(
            "uid-taken-elsewhere",
            "create_event_ical",
            "UID already held by another event of the calendar (409 no-uid-conflict)",
            A,
            None,
            catch(
                lambda: caldav.Event(
                    ann,
                    url=f"{url}ann/work/standup-copy.ics",
                    data=_ical(_vevent("standup-0304")),
                    parent=calendar("work"),
                ).save()
            ),
            {"calendar": "work", "ical": _ical(_vevent("standup-0304"))},
        )
        standup_start = "2025-03-04T10:00:00+00:00"
        yield case(
            "uid-exists",
            "create_event",
            "event with that UID already exists (no_overwrite)",
            A,
            None,
            catch(
                lambda: calendar("work").add_event(
                    dtstart=_when(standup_start), summary="Standup", uid="standup-0304", no_overwrite=True
                )
            ),
            {"calendar": "work", "summary": "Standup", "start": standup_start, "uid": "standup-0304"},
        )
        mine = calendar("work").event_by_uid("standup-0304")  # the tool read it ...
        theirs = calendar("work", client()).event_by_uid("standup-0304")
        theirs.icalendar_component["summary"] = "Standup (moved)"
        theirs.save()  # ... another client changed it ...
        mine.icalendar_component["summary"] = "Daily standup"
        yield case(
            "update-etag-mismatch",
            "update_event",
            "event changed by someone else since it was read (412)",
            A,
            None,
            catch(lambda: mine.save()),
            {"calendar": "work", "uid": "standup-0304", "summary": "Daily standup"},
        )
        yield case(
            "delete-etag-mismatch",
            "delete_event",
            "event changed by someone else since it was read (412 on DELETE)",
            A,
            None,
            catch(lambda: mine.delete(if_match=True)),
            {"calendar": "work", "uid": "standup-0304"},
        )

        # --- .ics files the model only named (import_ics) ---
        files = [
            (
                "import-truncated",
                "export.ics",
                "truncated .ics file",
                HEAD + "BEGIN:VEVENT\nUID:offsite-0320\nDTSTART:20250320T090000Z\nSUMM",
            ),
            (
                "import-html-page",
                "calendar.ics",
                "HTML login page saved as .ics (400)",
                "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Please sign in</body></html>\n",
            ),
            (
                "import-bad-date",
                "offsite.ics",
                ".ics file with a DTSTART that is not a DATE-TIME",
                _ical(_vevent("offsite-0320", start="DTSTART:20.03.2025 09:00\n")),
            ),
            (
                "import-bad-rrule",
                "recurring.ics",
                ".ics file with an invalid RRULE (400)",
                _ical(_vevent("offsite-0320", "RRULE:FREQ=WEEKLY;BYDAY=XX\n")),
            ),
            ("import-empty", "empty.ics", "empty .ics file (400)", ""),
        ]
        for slug, name, cause, text in files:
            (ws / name).write_text(text)
            yield case(
                slug,
                "import_ics",
                cause,
                A,
                None,
                catch(lambda: calendar("work").add_event((ws / name).read_text())),
                {"calendar": "work", "path": name},
            )

        # --- credentials, rights and limits of the installation ---
        yield case(
            "wrong-password",
            "list_calendars",
            "the tool's password is wrong (401)",
            U,
            None,
            catch(lambda: client(password="correct-horse-2").principal().calendars()),
            {},
        )
        yield case(
            "unknown-user",
            "list_calendars",
            "the tool's user does not exist (401)",
            U,
            None,
            catch(lambda: client(user="carol", password="x").principal().calendars()),
            {},
        )
        bob = client("bob", "battery-staple")
        yield case(
            "read-only-calendar",
            "create_event",
            "calendar shared read-only with the tool's user (403)",
            U,
            None,
            catch(
                lambda: calendar("team", bob).add_event(
                    dtstart=_when("2025-03-10T09:00:00+00:00"), summary="Offsite", uid="offsite-0310"
                )
            ),
            {"calendar": "team", "summary": "Offsite", "start": "2025-03-10T09:00:00+00:00"},
        )
        yield case(
            "read-only-calendar-delete",
            "delete_event",
            "delete in a calendar shared read-only with the tool's user (403)",
            U,
            None,
            catch(lambda: calendar("team", bob).event_by_url(f"{url}ann/team/kickoff-0303.ics").delete()),
            {"calendar": "team", "uid": "kickoff-0303"},
        )
        yield case(
            "no-read-right",
            "list_events",
            "calendar the tool's user may not read (403)",
            U,
            None,
            catch(
                lambda: calendar("work", bob).search(
                    start=_when("2025-03-01T00:00:00+00:00"),
                    end=_when("2025-04-01T00:00:00+00:00"),
                    event=True,
                )
            ),
            {"calendar": "work", "start": "2025-03-01T00:00:00+00:00", "end": "2025-04-01T00:00:00+00:00"},
        )
        yield case(
            "no-read-right-get",
            "get_event",
            "event in a calendar the tool's user may not read (403)",
            U,
            None,
            catch(lambda: calendar("work", bob).event_by_url(f"{url}ann/work/standup-0304.ics").load()),
            {"calendar": "work", "uid": "standup-0304"},
        )
        notes = "Agenda:\n" + "".join(f"{i}. item {i} of the quarterly planning\n" for i in range(1, 700))
        yield case(
            "body-too-large",
            "create_event",
            "request body over the server's max_content_length (413)",
            U,
            None,
            catch(
                lambda: calendar("work").add_event(
                    dtstart=_when("2025-03-12T09:00:00+00:00"),
                    summary="Quarterly planning",
                    description=notes,
                    uid="planning-0312",
                )
            ),
            {
                "calendar": "work",
                "summary": "Quarterly planning",
                "start": "2025-03-12T09:00:00+00:00",
                "description": notes,
            },
        )

        # --- another process holds Radicale's storage lock: the request waits, the client times out ---
        lock_path = storage / ".Radicale.lock"
        with open(lock_path, "a+") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            exc = catch(
                lambda: calendar("work").add_event(
                    dtstart=_when("2025-03-13T09:00:00+00:00"), summary="1:1", uid="one-on-one-0313"
                )
            )
            fcntl.flock(held, fcntl.LOCK_UN)
        yield case(
            "storage-locked-timeout",
            "create_event",
            "storage lock held by another process: the write waits past the client's timeout",
            T,
            UO,
            exc,
            {"calendar": "work", "summary": "1:1", "start": "2025-03-13T09:00:00+00:00"},
        )

    # --- Radicale stopped ---
    yield case(
        "server-down",
        "list_calendars",
        "CalDAV server not running (connection refused)",
        T,
        NE,
        catch(lambda: client().principal()),
        {},
    )
    yield case(
        "server-down-create",
        "create_event",
        "CalDAV server not running (connection refused)",
        T,
        NE,
        catch(
            lambda: calendar("work").add_event(
                dtstart=_when("2025-03-14T09:00:00+00:00"), summary="Demo", uid="demo-0314"
            )
        ),
        {"calendar": "work", "summary": "Demo", "start": "2025-03-14T09:00:00+00:00"},
    )
    yield case(
        "dns",
        "list_calendars",
        "server name does not resolve",
        T,
        NE,
        catch(lambda: client(base="http://caldav.example.invalid/").principal()),
        {},
    )

    # --- the nginx proxy in front of Radicale (a stand-in answering nginx's own pages) ---
    yield from _proxy_cases(ctx, caldav, case)

    # --- an installation without an HTTP library ---
    with _pkgcopy.broken_install(tmp, ["caldav"], hide=("caldav", "niquests", "requests")):
        exc = catch(lambda: importlib.import_module("caldav.lib.http_sync"))
    yield case(
        "no-http-library",
        "list_calendars",
        "caldav installed without niquests or requests",
        U,
        None,
        exc,
        {},
    )


def _nginx_page(status: str) -> str:
    """nginx's built-in error page (ngx_http_special_response.c)."""
    return (
        f"<html>\r\n<head><title>{status}</title></head>\r\n<body>\r\n"
        f"<center><h1>{status}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
    )


def _proxy_cases(ctx: Any, caldav: Any, case: Any) -> Iterator[Case]:
    Reply = _saas.Reply
    replies: list[tuple[str, Any, str, str | None, str]] = [
        (
            "proxy-429-retry-after",
            Reply(
                429,
                _nginx_page("429 Too Many Requests"),
                {"Retry-After": "30"},
                "nginx limit_req_status 429 with add_header Retry-After; RFC 6585 section 4",
            ),
            T,
            NE,
            "rate limited by the proxy (429, Retry-After)",
        ),
        (
            "proxy-503-retry-after",
            Reply(
                503,
                _nginx_page("503 Service Temporarily Unavailable"),
                {"Retry-After": "120"},
                "nginx maintenance 503 with Retry-After; RFC 9110 section 15.6.4",
            ),
            T,
            NE,
            "service unavailable with Retry-After (503)",
        ),
        (
            "proxy-503-limit-req",
            Reply(
                503,
                _nginx_page("503 Service Temporarily Unavailable"),
                {},
                "https://nginx.org/en/docs/http/ngx_http_limit_req_module.html (limit_req_status default 503)",
            ),
            T,
            NE,
            "request over the proxy's limit_req rate (nginx's default 503, no Retry-After)",
        ),
        (
            "proxy-502",
            Reply(502, _nginx_page("502 Bad Gateway"), {}, "nginx: upstream closed the connection"),
            T,
            UO,
            "bad gateway from the proxy (502)",
        ),
        (
            "proxy-504",
            Reply(504, _nginx_page("504 Gateway Time-out"), {}, "nginx: proxy_read_timeout reached"),
            T,
            UO,
            "gateway timeout from the proxy (504)",
        ),
        (_saas.HANG, _saas.HANG, T, UO, "no answer before the client's read timeout"),
        (_saas.RESET, _saas.RESET, T, UO, "connection reset after the request was sent"),
        (_saas.CLOSE, _saas.CLOSE, T, UO, "connection closed without an answer"),
    ]
    with _saas.service(ctx, "PROXYPORT") as svc:
        base = f"{svc.base}/"
        ann = caldav.DAVClient(url=base, username="ann", password="correct-horse", timeout=TIMEOUT)
        work = ann.calendar(url=f"{base}ann/work/")
        for slug, reply, kind, outcome, cause in replies:
            svc.reply(reply)
            name = slug if slug.startswith("proxy-") else f"proxy-{slug}"
            start = "2025-03-17T09:00:00+00:00"
            exc = catch(
                lambda: work.add_event(dtstart=_when(start), summary="Sprint review", uid="review-0317")
            )
            yield case(
                name,
                "create_event",
                cause,
                kind,
                outcome,
                exc,
                {"calendar": "work", "summary": "Sprint review", "start": start},
            )
        for slug, reply, kind, outcome, cause in replies[:2]:
            svc.reply(reply)
            yield case(
                f"{slug}-delete",
                "delete_event",
                cause,
                kind,
                outcome,
                catch(
                    lambda: caldav.Event(ann, url=f"{base}ann/work/standup-0304.ics", parent=work).delete()
                ),
                {"calendar": "work", "uid": "standup-0304"},
            )
