# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""dateparser behind an agent's scheduling tools: dates, languages, formats and settings
the model wrote (fixable), user profiles and calendar files the tool read where the model
only named them (ambiguous), the language-detection service the tool plugs into
dateparser throttling, failing or out of reach (transient), and the tool's configuration
and installation refusing (unrecoverable).

The tools (the tool's clock is fixed: ``RELATIVE_BASE`` 2026-03-02 09:00, and its base
settings are ``PREFER_DATES_FROM: "future"``; the model's ``settings`` are merged over
them):

- ``parse_when`` ``{"when", "languages"?, "locales"?, "date_formats"?, "settings"?,
  "calendar"?}``: ``dateparser.parse`` (or, for ``calendar`` ``hijri`` / ``jalali``,
  dateparser's calendar class); when the model gives neither ``languages`` nor
  ``locales``, the tool passes ``detect_languages_function``: a call to its
  self-hosted LibreTranslate ``POST /detect`` (a stand-in on 127.0.0.1 answering the
  responses LibreTranslate documents). ``dateparser.parse`` returns ``None`` when it
  cannot parse (its documented return), and the tool then raises its own
  ``ValueError("could not parse the date ...")``;
- ``find_dates`` ``{"text", "languages"?, "settings"?}``: ``dateparser.search.search_dates``
  (with the same detection when no ``languages``); ``None`` (no date found) is the tool's
  ``ValueError``;
- ``schedule_for_user`` ``{"user", "when"}``: the user's profile (``profiles/<user>.json``:
  ``timezone``, ``date_order``, ``languages``, ``prefer``) becomes ``languages`` and the
  ``TIMEZONE`` / ``DATE_ORDER`` / ``PREFER_DATES_FROM`` settings;
- ``import_events`` ``{"path"}``: a calendar export (a JSON list of events with ``when``,
  and an optional ``language``, ``locale`` or ``format``) the model named; each ``when``
  goes through ``dateparser.parse``.

Labels follow the cause that was set up (docs: https://dateparser.readthedocs.io/en/latest/
-- ``dateparser.parse`` "Returns ... None if unsuccessful; raises ValueError: Unknown
Language, TypeError: Languages argument must be a list, SettingValidationError: A provided
setting is not valid", "Settings" (each setting's type and values), "Supported languages
and locales", "Custom language detection" (``detect_languages_function``), "Supported
Calendars" (``pip install dateparser[calendars]``)). Fixable: a date string dateparser
cannot read (``None``: the tool's error), a date missing a part the model's own
``REQUIRE_PARTS`` demands, a string that does not match the model's only format, a
language or locale code dateparser does not have (``ValueError: Unknown language(s)`` /
``Unknown locale(s)``), ``languages`` or ``date_formats`` given as a string
(``TypeError``), a date given as a number (``TypeError: Input type must be str``), a
setting name, value or type outside the documented ones (``SettingValidationError``), a
time zone name pytz does not know (``UnknownTimeZoneError``), a text with no date in it.

Ambiguous: the model only named a user or a calendar file and the cause is in what the
tool read -- a profile with a misspelt time zone, a date order or preference outside the
documented values, a language name or a string where a list of codes belongs; an event
whose stored date dateparser cannot read, stored as a number, with an unknown language,
an ``en_US`` locale or a format stored as a string; and a detection service that answered
an HTML page instead of its JSON.

Transient: LibreTranslate's documented ``429`` ("Slowdown: ...", flask-limiter), a
``500`` ("Detection error") after the request was sent, the service refusing the
connection (restarting), stalling past the tool's timeout or resetting the connection --
raised through dateparser's call of ``detect_languages_function``, from ``parse`` and
from ``search_dates``; turned away (429, refused) or unknown outcome (500, timeout,
reset).

Unrecoverable: LibreTranslate's ``403 Invalid API key`` and ``400 Please contact the
server operator to get an API key`` (the tool's key), a calendar whose optional
dependency is not installed (``hijridate`` for ``hijri``, ``convertdate`` for
``jalali``), a tool configured with dateparser's removed fastText detection (``ImportError``
on every call) or with its langdetect detection without ``langdetect`` installed, the
tool's own settings naming a time zone pytz does not know or a value outside the
documented ones (every call fails), and installations without dateparser's French
language data or without its ``regex`` dependency.

Not triggerable: dateparser does no I/O of its own apart from loading its bundled
language data, takes no lock and opens no connection, so its only transient failures are
those of the detection function a tool plugs in; dates out of range ("in 99999999
years", "Feb 29 2027", a timestamp past year 9999) and hours like ``25:00`` give
``None`` or a date, never an exception; an unknown ``region`` or ``TO_TIMEZONE``
abbreviation is silently ignored.
"""

from __future__ import annotations

import datetime
import importlib
import json
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _pkgcopy, _saas
from ._common import NE, UO, A, F, T, U
from ._saas import Reply

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "dateparser"
REQUIRES = ["dateparser==1.5.0"]

NOW = datetime.datetime(2026, 3, 2, 9, 0)
BASE_SETTINGS: dict[str, Any] = {"RELATIVE_BASE": NOW, "PREFER_DATES_FROM": "future"}
API_KEY = "lt-6f1c2e9a-0b7d-4c1e-9f3a-2d5e8b7c4a10"
_LT_DOCS = "https://libretranslate.com/docs/ (POST /detect: 400, 403, 429, 500)"


def libretranslate_detector(base: str) -> Callable[..., list[str]]:
    """The tool's ``detect_languages_function``: LibreTranslate ``POST /detect``."""

    def detect(text: str, confidence_threshold: float) -> list[str]:
        body = json.dumps({"q": text, "api_key": API_KEY}).encode()
        request = urllib.request.Request(
            f"{base}/detect", data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=_saas.TIMEOUT) as response:
            found = json.load(response)
        return [d["language"] for d in found if d["confidence"] / 100 >= confidence_threshold]

    return detect


def parse_when(
    detector: Callable[..., list[str]] | None,
    when: Any,
    languages: Any = None,
    locales: Any = None,
    date_formats: Any = None,
    settings: dict[str, Any] | None = None,
    calendar: str = "gregorian",
    base: dict[str, Any] | None = None,
) -> datetime.datetime:
    import dateparser

    merged = {**(BASE_SETTINGS if base is None else base), **(settings or {})}
    if calendar != "gregorian":
        module = importlib.import_module(f"dateparser.calendars.{calendar}")
        data = getattr(module, f"{calendar.capitalize()}Calendar")(when).get_date()
        result = data["date_obj"] if data else None
    else:
        detect = detector if languages is None and locales is None else None
        result = dateparser.parse(
            when,
            languages=languages,
            locales=locales,
            date_formats=date_formats,
            settings=merged,
            detect_languages_function=detect,
        )
    if result is None:
        raise ValueError(f"could not parse the date {when!r}")
    return result


def find_dates(
    detector: Callable[..., list[str]] | None,
    text: Any,
    languages: Any = None,
    settings: dict[str, Any] | None = None,
) -> list[Any]:
    from dateparser.search import search_dates

    found = search_dates(
        text,
        languages=languages,
        settings={**BASE_SETTINGS, **(settings or {})},
        detect_languages_function=detector if languages is None else None,
    )
    if found is None:
        raise ValueError(f"no date found in {text!r}")
    return found


def schedule_for_user(root: Path, user: str, when: str) -> datetime.datetime:
    profile = json.loads((root / "profiles" / f"{user}.json").read_text())
    settings = {"TIMEZONE": profile["timezone"], "DATE_ORDER": profile["date_order"]}
    if "prefer" in profile:
        settings["PREFER_DATES_FROM"] = profile["prefer"]
    return parse_when(None, when, languages=profile["languages"], settings=settings)


def import_events(root: Path, path: str) -> list[datetime.datetime]:
    events = json.loads((root / path).read_text())
    out = []
    for event in events:
        try:
            out.append(
                parse_when(
                    None,
                    event["when"],
                    languages=[event["language"]] if "language" in event else ["en"],
                    locales=[event["locale"]] if "locale" in event else None,
                    date_formats=event.get("format"),
                )
            )
        except ValueError as exc:
            if str(exc).startswith("could not parse"):
                raise ValueError(f"event {event['title']!r}: {exc}") from None
            raise
    return out


# ---- the model's arguments ----------------------------------------------------------------

# (slug, the model's arguments to parse_when, cause)
PARSE_WHEN: list[tuple[str, dict[str, Any], str]] = [
    ("made-up-weekday", {"when": "next blursday at 3pm"}, "a weekday that does not exist"),
    ("february-30", {"when": "2026-02-30 10:00", "languages": ["en"]}, "a day that is not in the month"),
    ("vague-time", {"when": "noonish", "languages": ["en"]}, "a vague time of day"),
    ("asap", {"when": "ASAP", "languages": ["en"]}, "not a date"),
    ("require-parts-day", {"when": "March 2026", "languages": ["en"], "settings": {"REQUIRE_PARTS": ["day"]}}, "a date without the day its own REQUIRE_PARTS demands"),
    ("format-mismatch", {"when": "03/15/2026", "date_formats": ["%d/%m/%Y"], "settings": {"PARSERS": ["custom-formats"]}}, "a date that does not match its only format"),
    ("language-unknown-code", {"when": "demain à 9h", "languages": ["fra"]}, "a three-letter language code"),
    ("language-name", {"when": "morgen um 9", "languages": ["German"]}, "a language name instead of a code"),
    ("languages-string", {"when": "mañana a las 9", "languages": "es"}, "languages given as a string"),
    ("locale-unknown", {"when": "demain à 9h", "locales": ["fr-FR"]}, "a locale dateparser does not have"),
    ("date-formats-string", {"when": "15.03.2026", "date_formats": "%d.%m.%Y", "languages": ["de"]}, "date_formats given as a string"),
    ("when-number", {"when": 20260315, "languages": ["en"]}, "a date given as a number"),
    ("setting-prefer-value", {"when": "friday", "languages": ["en"], "settings": {"PREFER_DATES_FROM": "later"}}, "PREFER_DATES_FROM outside its values"),
    ("setting-date-order-format", {"when": "03/04/2026", "languages": ["en"], "settings": {"DATE_ORDER": "DD/MM/YYYY"}}, "DATE_ORDER written as a format"),
    ("setting-unknown-name", {"when": "tomorrow 10am", "languages": ["en"], "settings": {"TIME_ZONE": "Europe/Paris"}}, "a setting name that does not exist"),
    ("setting-timezone-unknown", {"when": "tomorrow 10am", "languages": ["en"], "settings": {"TIMEZONE": "Europe/Pari"}}, "a time zone name pytz does not know"),
    ("setting-bool-as-text", {"when": "tomorrow 10am", "languages": ["en"], "settings": {"RETURN_AS_TIMEZONE_AWARE": "true"}}, "a boolean setting given as text"),
    ("setting-require-parts-value", {"when": "tomorrow 10am", "languages": ["en"], "settings": {"REQUIRE_PARTS": ["hour"]}}, "REQUIRE_PARTS with a part that does not exist"),
    ("setting-parsers-unknown", {"when": "tomorrow 10am", "languages": ["en"], "settings": {"PARSERS": ["natural-language"]}}, "PARSERS with a parser that does not exist"),
    ("setting-relative-base-text", {"when": "in 3 days", "languages": ["en"], "settings": {"RELATIVE_BASE": "2026-03-01"}}, "RELATIVE_BASE given as text"),
]  # fmt: skip

FIND_DATES: list[tuple[str, dict[str, Any], str]] = [
    ("no-date", {"text": "let's sync up soon about the roadmap", "languages": ["en"]}, "a text with no date in it"),
    ("language-name", {"text": "Treffen am Freitag um 10 Uhr", "languages": ["Deutsch"]}, "a language name instead of a code"),
    ("settings-skip-tokens-text", {"text": "ship it on friday at noon", "languages": ["en"], "settings": {"SKIP_TOKENS": "at"}}, "SKIP_TOKENS given as a string"),
]  # fmt: skip


def _model_cases(ctx: Context, detector: Callable[..., list[str]]) -> Iterator[Case]:
    for slug, args, cause in PARSE_WHEN:
        exc = _catch(lambda: parse_when(detector, **args))
        yield Case(
            f"dateparser-when-{slug}", LIBRARY, f"the model's date: {cause}", F, None, exc, "parse_when", args
        )
    for slug, args, cause in FIND_DATES:
        exc = _catch(lambda: find_dates(detector, **args))
        yield Case(
            f"dateparser-find-{slug}",
            LIBRARY,
            f"the model's search: {cause}",
            F,
            None,
            exc,
            "find_dates",
            args,
        )


# ---- what the tools read ------------------------------------------------------------------

PROFILES: list[tuple[str, dict[str, Any], str]] = [
    ("timezone-misspelt", {"timezone": "America/Sao_Paolo", "date_order": "DMY", "languages": ["en", "pt"]}, "profile stores a misspelt time zone"),
    ("date-order-format", {"timezone": "Europe/Berlin", "date_order": "dd.mm.yyyy", "languages": ["de"]}, "profile stores a date order outside the documented values"),
    ("language-name", {"timezone": "Europe/Madrid", "date_order": "DMY", "languages": ["Spanish"]}, "profile stores a language name instead of a code"),
    ("languages-string", {"timezone": "Europe/Rome", "date_order": "DMY", "languages": "it"}, "profile stores the languages as a string"),
    ("prefer-value", {"timezone": "Europe/London", "date_order": "DMY", "languages": ["en"], "prefer": "upcoming"}, "profile stores a preference outside the documented values"),
]  # fmt: skip

EVENTS: list[tuple[str, list[dict[str, Any]], str]] = [
    ("date-unreadable", [{"title": "Kickoff", "when": "Mon 9:00"}, {"title": "Offsite", "when": "TBD (after Q2 planning)"}], "an event's stored date cannot be read"),
    ("date-placeholder", [{"title": "Retro", "when": "{{ sprint.end_date }}"}], "an event's stored date is an unrendered template"),
    ("date-number", [{"title": "Launch", "when": 1788220800}], "an event's date stored as a number"),
    ("language-unknown", [{"title": "Réunion", "when": "lundi 10h", "language": "french"}], "an event stored with an unknown language"),
    ("locale-underscore", [{"title": "Standup", "when": "tomorrow 9am", "locale": "en_US"}], "an event stored with an en_US locale"),
    ("format-string", [{"title": "Review", "when": "2026-03-15", "format": "%Y-%m-%d"}], "an event stored with a format string instead of a list"),
]  # fmt: skip


def _read_cases(ctx: Context, root: Path) -> Iterator[Case]:
    (root / "profiles").mkdir()
    for n, (slug, profile, cause) in enumerate(PROFILES):
        user = f"u-{1042 + n}"
        (root / "profiles" / f"{user}.json").write_text(json.dumps(profile))
        when = "next tuesday 10:00"
        exc = _catch(lambda: schedule_for_user(root, user, when))
        yield Case(
            f"dateparser-profile-{slug}",
            LIBRARY,
            cause,
            A,
            None,
            exc,
            "schedule_for_user",
            {"user": user, "when": when},
        )
    (root / "calendar").mkdir()
    for slug, events, cause in EVENTS:
        path = f"calendar/{slug}.json"
        (root / path).write_text(json.dumps(events))
        exc = _catch(lambda: import_events(root, path))
        yield Case(f"dateparser-events-{slug}", LIBRARY, cause, A, None, exc, "import_events", {"path": path})


# ---- the language-detection service --------------------------------------------------------


def _detection_cases(ctx: Context, lt: _saas.Service, detector: Callable[..., list[str]]) -> Iterator[Case]:
    when = {"when": "mañana a las 10"}
    text = {"text": "la reunión es el viernes 6 de marzo a las 10"}
    replies: list[tuple[str, Reply | str, str, str | None, str, bool]] = [
        ("rate-limited", Reply(429, {"error": "Slowdown: 20 per 1 minute"}, {}, _LT_DOCS), T, NE, "detection service rate limit (429 Slowdown)", False),
        ("server-error", Reply(500, {"error": "Detection error"}, {}, _LT_DOCS), T, UO, "detection service error (500) after the request was sent", False),
        (_saas.HANG, _saas.HANG, T, UO, "detection service stalled (read timeout)", False),
        (_saas.RESET, _saas.RESET, T, UO, "detection service reset the connection", False),
        ("search-rate-limited", Reply(429, {"error": "Slowdown: 20 per 1 minute"}, {}, _LT_DOCS), T, NE, "detection service rate limit (429 Slowdown)", True),
        ("search-reset", _saas.RESET, T, UO, "detection service reset the connection", True),
        ("invalid-api-key", Reply(403, {"error": "Invalid API key"}, {}, _LT_DOCS), U, None, "the tool's API key is not valid (403)", False),
        ("api-key-required", Reply(400, {"error": "Please contact the server operator to get an API key"}, {}, _LT_DOCS), U, None, "the service requires an API key the tool lacks (400)", False),
        ("html-page", Reply(200, "<html><head><title>Maintenance</title></head><body><h1>We'll be back soon</h1></body></html>", {}, "a reverse proxy's maintenance page"), A, None, "the detection service answered an HTML page instead of JSON", False),
    ]  # fmt: skip
    for slug, reply, kind, outcome, cause, search in replies:
        lt.reply(reply)
        if search:
            exc = _catch(lambda: find_dates(detector, **text))
            yield Case(f"dateparser-detect-{slug}", LIBRARY, cause, kind, outcome, exc, "find_dates", text)
        else:
            exc = _catch(lambda: parse_when(detector, **when))
            yield Case(f"dateparser-detect-{slug}", LIBRARY, cause, kind, outcome, exc, "parse_when", when)
    dead = libretranslate_detector(_saas.dead_base(ctx))
    exc = _catch(lambda: parse_when(dead, **when))
    yield Case(
        "dateparser-detect-refused",
        LIBRARY,
        "detection service refused the connection (restarting)",
        T,
        NE,
        exc,
        "parse_when",
        when,
    )


# ---- refusals ------------------------------------------------------------------------------


def _refusal_cases(ctx: Context) -> Iterator[Case]:
    for calendar, when in (("hijri", "17 رمضان 1447"), ("jalali", "12 اسفند 1404")):
        exc = _catch(lambda: parse_when(None, when, calendar=calendar))
        yield Case(
            f"dateparser-calendar-{calendar}-not-installed",
            LIBRARY,
            f"the {calendar} calendar's optional dependency is not installed",
            U,
            None,
            exc,
            "parse_when",
            {"when": when, "calendar": calendar},
        )

    def fasttext_detector(text: str, confidence_threshold: float) -> list[str]:
        from dateparser.custom_language_detection import fasttext

        return fasttext.detect_languages(text, confidence_threshold)

    def langdetect_detector(text: str, confidence_threshold: float) -> list[str]:
        from dateparser.custom_language_detection import langdetect

        return langdetect.detect_languages(text, confidence_threshold)

    when = "morgen um 10 Uhr"
    for slug, detector, cause in (
        (
            "fasttext-removed",
            fasttext_detector,
            "the tool is configured with dateparser's removed fastText detection",
        ),
        (
            "langdetect-not-installed",
            langdetect_detector,
            "the tool's langdetect detection without langdetect installed",
        ),
    ):
        exc = _catch(lambda: parse_when(detector, when))
        yield Case(f"dateparser-config-{slug}", LIBRARY, cause, U, None, exc, "parse_when", {"when": when})

    for slug, base, cause in (
        ("timezone", {**BASE_SETTINGS, "TIMEZONE": "Europe/Berln"}, "the tool's settings name a time zone pytz does not know"),
        ("prefer", {**BASE_SETTINGS, "PREFER_DATES_FROM": "upcoming"}, "the tool's settings hold a value outside the documented ones"),
    ):  # fmt: skip
        exc = _catch(lambda: parse_when(None, "tomorrow 10am", languages=["en"], base=base))
        yield Case(
            f"dateparser-config-settings-{slug}",
            LIBRARY,
            cause,
            U,
            None,
            exc,
            "parse_when",
            {"when": "tomorrow 10am", "languages": ["en"]},
        )

    args = {"when": "demain à 9h", "languages": ["fr"]}
    with _pkgcopy.broken_install(
        ctx.tmp, ["dateparser"], drop=("dateparser/data/date_translation_data/fr.py",)
    ):
        exc = _catch(
            lambda: importlib.import_module("dateparser").parse(args["when"], languages=args["languages"])
        )
    yield Case(
        "dateparser-install-french-data-missing",
        LIBRARY,
        "installed language data missing (dateparser/data/date_translation_data/fr.py)",
        U,
        None,
        exc,
        "parse_when",
        args,
    )
    with _pkgcopy.broken_install(ctx.tmp, ["dateparser"], hide=("regex",)):
        exc = _catch(lambda: importlib.import_module("dateparser"))
    yield Case(
        "dateparser-install-regex-missing",
        LIBRARY,
        "dateparser's dependency regex is not installed",
        U,
        None,
        exc,
        "parse_when",
        {"when": "tomorrow 10am", "languages": ["en"]},
    )


def cases(ctx: Context) -> Iterator[Case]:
    root = ctx.tmp / "scheduler"
    root.mkdir()
    with _saas.service(ctx, "LTPORT", "gunicorn") as lt:
        lt.reply(Reply(200, [{"confidence": 90.0, "language": "en"}]))
        detector = libretranslate_detector(lt.base)
        yield from _model_cases(ctx, detector)
        yield from _read_cases(ctx, root)
        yield from _detection_cases(ctx, lt, detector)
    yield from _refusal_cases(ctx)
