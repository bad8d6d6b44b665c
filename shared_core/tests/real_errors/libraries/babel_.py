# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""Babel behind a localisation tool: locale identifiers, amounts, currency codes, number and
date patterns, time zone names, units, list styles, plural rules and gettext catalogs
(``.po`` text) the model wrote in its arguments (fixable); amounts, locales and dates read
from a price list on disk or answered by a profile service on 127.0.0.1, and ``.po`` /
``.mo`` catalogs and source files on disk or fetched from a translation service
(ambiguous); an installation without a locale data file, without its global data, with
no time zone database, and the operating system's refusals (unrecoverable).

Labels follow the cause. ``format_price`` / ``parse_amount`` / ``format_localized_date`` /
``parse_localized_date`` / ``format_measurement`` pass the model's values to Babel, so
``UnknownLocaleError`` ("unknown locale ..."), the ``ValueError`` / ``TypeError`` of a
locale identifier Babel cannot parse (``en-US``: Babel wants ``en_US``), ``NumberFormatError``
("... is not a valid decimal number", "Did you mean ...?"), ``UnknownCurrencyError``,
``UnknownCurrencyFormatError``, ``UnsupportedNumberingSystemError``, ``ParseError`` of
``parse_date`` / ``parse_time``, ``LookupError`` ("Unknown timezone ..."),
``UnknownUnitError``, ``RuleError`` and the ``KeyError`` of a width, format type or skeleton
Babel does not know are the model's to fix (Babel's docs:
https://babel.pocoo.org/en/latest/api/core.html ``Locale.parse``, ``UnknownLocaleError``;
https://babel.pocoo.org/en/latest/api/numbers.html ``parse_decimal`` "strict",
``NumberFormatError``, ``validate_currency``, ``format_currency`` "format_type";
https://babel.pocoo.org/en/latest/api/dates.html ``parse_date``, ``get_timezone`` "If a
timezone is not known a LookupError is raised", ``format_timedelta`` "format";
https://babel.pocoo.org/en/latest/api/units.html ``UnknownUnitError``;
https://babel.pocoo.org/en/latest/api/plural.html ``RuleError``). ``.po`` text the model
wrote in a ``validate_translations`` call that ``read_po(..., abort_invalid=True)`` rejects
(``PoFileError``), and a translation the model wrote whose placeholders do not match the
message id (``babel.messages.checkers``' ``TranslationError``) are fixable too
(https://babel.pocoo.org/en/latest/api/messages/pofile.html ``read_po``
"abort_invalid"). The same failures on a row of a price list CSV, on a profile service's
JSON, on a ``.po`` catalog on disk or from a translation service, on a ``.mo`` file that is
not one (``OSError`` "Bad magic number", ``struct.error`` of a truncated file) and on a
source file ``extract_from_file`` cannot tokenize are about data the model never wrote:
ambiguous (``parse_date`` on a service's "the 4th of July" fails with an ``IndexError`` of
its own). A catalog path or source path the model named that does not exist, or that is a
folder, is fixable: the tool reads only the path the model gave.

Unrecoverable: a file the tool may not read or a folder it may not write (permission
denied as an ordinary user), a full device (``/dev/full``), the file size quota
(``RLIMIT_FSIZE``); an installation whose ``locale-data/de.dat`` or ``global.dat`` is
missing (:mod:`libraries._pkgcopy` imports the real package afresh from a copy without
it: every valid ``de`` locale is then "unknown"); a machine with no time zone database
(an empty ``zoneinfo`` search path, neither ``tzdata`` nor ``pytz`` installed), where
every valid zone name gets the same ``LookupError`` a misspelt one does. A locale data
file of the installation that is garbage is a corrupt file on disk: ambiguous, as
``arrow_.py`` labels a corrupt zone file.

Not triggerable: Babel does no network I/O and waits on no lock (no transient failure: a
catalog fetched over HTTP fails in the HTTP client, not in Babel); ``Catalog(locale=...)``
swallows an unknown locale; no recursion or memory limit was found reachable through its
parsers with the arguments a tool passes.
"""

from __future__ import annotations

import csv
import datetime
import importlib
import io
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _pkgcopy, _serve
from ._files import denied, file_size_limit, read_only_dir

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "babel"
REQUIRES = ["babel>=2.19,<2.20"]

price_tool = "format_price"

WHEN = datetime.datetime(2024, 3, 10, 9, 0)
DAY = datetime.date(2024, 3, 10)
HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'


def _po(text: str) -> Any:
    from babel.messages import pofile

    return pofile.read_po(io.StringIO(text), abort_invalid=True)


def _check(msgid: Any, msgstr: Any) -> None:
    """``babel.messages.checkers``' checks of one translation (what ``Catalog.check`` runs)."""
    from babel.messages import checkers
    from babel.messages.catalog import Catalog

    catalog = Catalog(locale="de")
    message = catalog.add(msgid, msgstr)
    for check in checkers.checkers:
        check(catalog, message)


def model_calls() -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, tool, the model's arguments, the call) of each bad argument."""
    from babel import Locale, dates, lists, numbers, plural, units

    price = "format_price"
    amount = "parse_amount"
    fdate = "format_localized_date"
    pdate = "parse_localized_date"
    unit = "format_measurement"
    tr = "validate_translations"
    calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
        # locales
        (
            "locale-unknown",
            price,
            {"amount": 19.99, "currency": "EUR", "locale": "xx_YY"},
            lambda: numbers.format_currency(19.99, "EUR", locale="xx_YY"),
        ),
        (
            "locale-language-name",
            price,
            {"amount": 19.99, "currency": "EUR", "locale": "english"},
            lambda: numbers.format_currency(19.99, "EUR", locale="english"),
        ),
        (
            "locale-bcp47-hyphen",
            price,
            {"amount": 19.99, "currency": "BRL", "locale": "pt-BR"},
            lambda: numbers.format_currency(19.99, "BRL", locale="pt-BR"),
        ),
        (
            "locale-empty",
            "describe_locale",
            {"locale": ""},
            lambda: Locale.parse(""),
        ),
        (
            "locale-null",
            "describe_locale",
            {"locale": None},
            lambda: Locale.parse(None),
        ),
        (
            "locale-territory-unknown",
            fdate,
            {"date": "2024-03-10", "locale": "en_XX"},
            lambda: dates.format_date(DAY, locale="en_XX"),
        ),
        (
            "locale-display-name-unknown",
            "describe_locale",
            {"locale": "de_DE", "in_locale": "klingon"},
            lambda: Locale.parse("de_DE").get_display_name("klingon"),
        ),
        # amounts
        (
            "amount-letters",
            amount,
            {"text": "1,234.5x", "locale": "en_US"},
            lambda: numbers.parse_decimal("1,234.5x", locale="en_US"),
        ),
        (
            "amount-strict-german-in-en",
            amount,
            {"text": "1.234,5", "locale": "en_US", "strict": True},
            lambda: numbers.parse_decimal("1.234,5", locale="en_US", strict=True),
        ),
        (
            "amount-strict-grouping",
            amount,
            {"text": "12,34", "locale": "en_US", "strict": True},
            lambda: numbers.parse_decimal("12,34", locale="en_US", strict=True),
        ),
        (
            "amount-currency-symbol",
            amount,
            {"text": "$12.50", "locale": "en_US"},
            lambda: numbers.parse_decimal("$12.50", locale="en_US"),
        ),
        (
            "number-suffix-k",
            amount,
            {"text": "12k", "locale": "en_US", "integer": True},
            lambda: numbers.parse_number("12k", locale="en_US"),
        ),
        (
            "format-amount-words",
            price,
            {"amount": "twelve", "currency": "USD", "locale": "en_US"},
            lambda: numbers.format_currency("twelve", "USD", locale="en_US"),
        ),
        (
            "format-amount-overflow",
            "format_number",
            {"number": "1e999999999999", "locale": "en_US"},
            lambda: numbers.format_decimal("1e999999999999", locale="en_US"),
        ),
        (
            "numbering-system-unknown",
            "format_number",
            {"number": 1234.5, "locale": "en_US", "numbering_system": "roman"},
            lambda: numbers.format_decimal(1234.5, locale="en_US", numbering_system="roman"),
        ),
        # currencies
        (
            "currency-unknown",
            price,
            {"amount": 10, "currency": "XYZ", "locale": "en_US", "validate": True},
            lambda: numbers.validate_currency("XYZ", locale="en_US"),
        ),
        (
            "currency-name",
            price,
            {"amount": 10, "currency": "dollars", "locale": "en_US", "validate": True},
            lambda: numbers.validate_currency("dollars", locale="en_US"),
        ),
        (
            "currency-format-type",
            price,
            {"amount": 10, "currency": "USD", "locale": "en_US", "format_type": "short"},
            lambda: numbers.format_currency(10, "USD", locale="en_US", format_type="short"),
        ),
        (
            "compact-currency-format-type",
            price,
            {"amount": 12345, "currency": "USD", "locale": "en_US", "compact": "long"},
            lambda: numbers.format_compact_currency(12345, "USD", format_type="long", locale="en_US"),
        ),
        (
            "compact-format-type",
            "format_number",
            {"number": 12345, "locale": "en_US", "compact": "tiny"},
            lambda: numbers.format_compact_decimal(12345, format_type="tiny", locale="en_US"),
        ),
        (
            "currency-symbol-locale",
            price,
            {"currency": "JPY", "locale": "jp", "symbol_only": True},
            lambda: numbers.get_currency_symbol("JPY", locale="jp"),
        ),
        # dates and times
        (
            "parse-date-words",
            pdate,
            {"text": "next friday", "locale": "en_US"},
            lambda: dates.parse_date("next friday", locale="en_US"),
        ),
        (
            "parse-date-feb-30",
            pdate,
            {"text": "02/30/2024", "locale": "en_US"},
            lambda: dates.parse_date("02/30/2024", locale="en_US"),
        ),
        (
            "parse-date-format-unknown",
            pdate,
            {"text": "2024-03-10", "locale": "en_US", "format": "iso"},
            lambda: dates.parse_date("2024-03-10", locale="en_US", format="iso"),
        ),
        (
            "parse-time-hour-25",
            pdate,
            {"time": "25:00", "locale": "en_GB"},
            lambda: dates.parse_time("25:00", locale="en_GB"),
        ),
        (
            "parse-time-minute-61",
            pdate,
            {"time": "9:61 AM", "locale": "en_US"},
            lambda: dates.parse_time("9:61 AM", locale="en_US"),
        ),
        (
            "format-date-time-fields",
            fdate,
            {"date": "2024-03-10", "pattern": "yyyy-MM-dd HH:mm", "locale": "en_US"},
            lambda: dates.format_date(DAY, format="yyyy-MM-dd HH:mm", locale="en_US"),
        ),
        (
            "format-date-pattern-word",
            fdate,
            {"date": "2024-03-10", "pattern": "verylong", "locale": "en_US"},
            lambda: dates.format_date(DAY, format="verylong", locale="en_US"),
        ),
        (
            "timezone-unknown",
            fdate,
            {"datetime": "2024-03-10T09:00:00", "timezone": "Mars/Olympus", "locale": "en_US"},
            lambda: dates.format_datetime(WHEN, tzinfo=dates.get_timezone("Mars/Olympus"), locale="en_US"),
        ),
        (
            "timezone-abbreviation",
            fdate,
            {"datetime": "2024-03-10T09:00:00", "timezone": "CEST", "locale": "de_DE"},
            lambda: dates.format_datetime(WHEN, tzinfo=dates.get_timezone("CEST"), locale="de_DE"),
        ),
        (
            "timezone-name-misspelt",
            "describe_timezone",
            {"timezone": "Europe/Londn", "locale": "en_US"},
            lambda: dates.get_timezone_name("Europe/Londn", locale="en_US"),
        ),
        (
            "timedelta-format",
            fdate,
            {"seconds": 259200, "locale": "en_US", "style": "tiny"},
            lambda: dates.format_timedelta(datetime.timedelta(seconds=259200), format="tiny", locale="en_US"),
        ),
        (
            "timedelta-threshold-word",
            fdate,
            {"seconds": 259200, "locale": "en_US", "threshold": "high"},
            lambda: dates.format_timedelta(
                datetime.timedelta(seconds=259200), threshold="high", locale="en_US"
            ),
        ),
        (
            "skeleton-unknown",
            fdate,
            {"datetime": "2024-03-10T09:00:00", "skeleton": "ISO8601", "locale": "en_US"},
            lambda: dates.format_skeleton("ISO8601", WHEN, locale="en_US"),
        ),
        (
            "month-names-width",
            "list_month_names",
            {"locale": "fr_FR", "width": "full"},
            lambda: dates.get_month_names(width="full", locale="fr_FR"),
        ),
        # units, lists, plural rules
        (
            "unit-unknown",
            unit,
            {"value": 12, "unit": "lightyear-parsec", "locale": "en_US"},
            lambda: units.format_unit(12, "lightyear-parsec", locale="en_US"),
        ),
        (
            "unit-abbreviation",
            unit,
            {"value": 3.5, "unit": "km/h", "locale": "de_DE"},
            lambda: units.format_unit(3.5, "km/h", locale="de_DE"),
        ),
        (
            "list-style-unknown",
            "format_list",
            {"items": ["red", "green", "blue"], "style": "and", "locale": "en_US"},
            lambda: lists.format_list(["red", "green", "blue"], style="and", locale="en_US"),
        ),
        (
            "plural-rule-malformed",
            "check_plural_rules",
            {"rules": {"one": "n is one"}},
            lambda: plural.PluralRule({"one": "n is one"}),
        ),
        (
            "plural-rule-tag",
            "check_plural_rules",
            {"rules": {"singular": "n is 1"}},
            lambda: plural.PluralRule({"singular": "n is 1"}),
        ),
        # gettext catalogs the model wrote
        (
            "po-missing-msgstr",
            tr,
            {"po": 'msgid "Hello"\n\nmsgid "Bye"\nmsgstr "Tschüss"\n'},
            lambda: _po(HEADER + 'msgid "Hello"\n\nmsgid "Bye"\nmsgstr "Tschüss"\n'),
        ),
        (
            "po-unknown-keyword",
            tr,
            {"po": 'msgid "Hello"\nmsgtxt "Hallo"\n'},
            lambda: _po(HEADER + 'msgid "Hello"\nmsgtxt "Hallo"\n'),
        ),
        (
            "po-plural-index",
            tr,
            {"po": 'msgid "file"\nmsgid_plural "files"\nmsgstr[one] "Datei"\nmsgstr[other] "Dateien"\n'},
            lambda: _po(
                HEADER + 'msgid "file"\nmsgid_plural "files"\nmsgstr[one] "Datei"\nmsgstr[other] "Dateien"\n'
            ),
        ),
        (
            "po-plural-forms-header",
            tr,
            {"header": {"Plural-Forms": "nplurals=two; plural=(n != 1);"}},
            lambda: _po(
                'msgid ""\nmsgstr ""\n"Plural-Forms: nplurals=two; plural=(n != 1);\\n"\n\n'
                'msgid "a"\nmsgstr "b"\n'
            ),
        ),
        (
            "translation-placeholder-name",
            tr,
            {"msgid": "Hello %(name)s", "msgstr": "Hallo %(nme)s"},
            lambda: _check("Hello %(name)s", "Hallo %(nme)s"),
        ),
        (
            "translation-placeholder-type",
            tr,
            {"msgid": "%d files", "msgstr": "%s Dateien"},
            lambda: _check("%d files", "%s Dateien"),
        ),
        (
            "translation-plural-count",
            tr,
            {"msgid": ["%(n)d file", "%(n)d files"], "msgstr": ["%(n)d Datei"]},
            lambda: _check(("%(n)d file", "%(n)d files"), ("%(n)d Datei",)),
        ),
        (
            "extract-method-unknown",
            "extract_messages",
            {"source": "_('Save')", "method": "typescript"},
            lambda: list(_extract("typescript", b"_('Save')")),
        ),
    ]
    return calls


def _extract(method: str, source: bytes) -> Any:
    from babel.messages import extract

    return extract.extract(method, io.BytesIO(source))


PRICES_CSV = (
    "sku,price,locale\n"
    'A-100,"1.234,56",en_US\n'
    "A-101,12\u00a0€,fr_FR\n"
    "A-102,,de_DE\n"
    "A-103,19.99,english\n"
    "A-104,19.99,es-MX\n"
)

PROFILES = {
    "/users/u-481/profile": {"id": "u-481", "locale": "pt-BR", "timezone": "America/Sao_Paulo"},
    "/users/u-482/profile": {"id": "u-482", "locale": "de_DE", "timezone": "Europe/Berln"},
    "/users/u-483/profile": {"id": "u-483", "locale": "tlh", "timezone": "UTC"},
    "/users/u-484/profile": {"id": "u-484", "locale": "en_US", "birthday": "the 4th of July"},
}

DE_PO_MISSING = (
    HEADER + 'msgid "Save"\nmsgstr "Speichern"\n\nmsgid "Cancel"\n\nmsgid "Open"\nmsgstr "Öffnen"\n'
)
DE_PO_PLACEHOLDER = HEADER + 'msgid "Hello %(name)s"\nmsgstr "Hallo %(nmae)s"\n'
FR_PO_BROKEN = HEADER + 'msgid "Save"\nmsgstr "Enregistrer"\n<<<<<<< HEAD\nmsgid "Open"\n'
ES_PO_LATIN1 = (HEADER + 'msgid "Year"\nmsgstr "Año"\n').encode("latin-1")
IT_PO_CHARSET = (
    b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=windows-1252x\\n"\n\nmsgid "a"\nmsgstr "b"\n'
)


def _read_po_file(path: Path) -> Any:
    from babel.messages import pofile

    with path.open("rb") as f:
        return pofile.read_po(f, abort_invalid=True)


def _read_mo_file(path: Path) -> Any:
    from babel.messages import mofile

    with path.open("rb") as f:
        return mofile.read_mo(f)


def _check_file(path: Path) -> None:
    from babel.messages import checkers

    catalog = _read_po_file(path)
    for message in list(catalog)[1:]:
        for check in checkers.checkers:
            check(catalog, message)


def data_cases(ctx: Context) -> Iterator[tuple[str, str, str, dict[str, Any], BaseException]]:
    """(slug, cause, tool, the model's arguments, exception) of bad data the tool read."""
    from babel import Locale, dates, numbers
    from babel.messages import extract

    tmp = ctx.tmp
    prices = tmp / "prices.csv"
    prices.write_text(PRICES_CSV, encoding="utf-8")
    with prices.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    slugs = ("csv-german-amount", "csv-euro-sign", "csv-empty-price", "csv-locale-name", "csv-locale-hyphen")
    for slug, row in zip(slugs, rows):
        exc = _catch(lambda: numbers.parse_decimal(row["price"], locale=row["locale"], strict=True))
        yield (
            slug,
            "price list on disk has a bad amount or locale",
            "import_prices",
            {"path": str(prices)},
            exc,
        )

    pages = {p: ("application/json", json.dumps(r).encode()) for p, r in PROFILES.items()}
    pages["/catalogs/fr/messages.po"] = ("text/x-gettext-translation", FR_PO_BROKEN.encode())
    with _serve.documents(pages) as port:
        ctx.name_port(port, "PROFILEPORT")

        def profile(user: str) -> dict[str, Any]:
            return dict(json.loads(_serve.get(port, f"/users/{user}/profile")))

        exc = _catch(lambda: numbers.format_currency(42, "BRL", locale=profile("u-481")["locale"]))
        args = {"user_id": "u-481", "amount": 42, "currency": "BRL"}
        yield (
            "profile-locale-hyphen",
            "profile service answered a locale Babel cannot parse",
            price_tool,
            args,
            exc,
        )
        p = profile("u-482")
        exc = _catch(
            lambda: dates.format_datetime(WHEN, tzinfo=dates.get_timezone(p["timezone"]), locale="de")
        )
        args = {"user_id": "u-482", "datetime": "2024-03-10T09:00:00"}
        yield (
            "profile-timezone-unknown",
            "profile service answered an unknown time zone",
            "show_local_time",
            args,
            exc,
        )
        exc = _catch(lambda: Locale.parse(profile("u-483")["locale"]))
        args = {"user_id": "u-483", "amount": 42, "currency": "USD"}
        yield "profile-locale-unknown", "profile service answered an unknown locale", price_tool, args, exc
        exc = _catch(lambda: dates.parse_date(profile("u-484")["birthday"], locale="en_US"))
        args = {"user_id": "u-484"}
        yield (
            "profile-date-words",
            "profile service answered a date Babel cannot parse",
            "send_birthday_card",
            args,
            exc,
        )
        exc = _catch(lambda: _po(_serve.get(port, "/catalogs/fr/messages.po")))
        args = {"project": "webshop", "language": "fr"}
        yield (
            "service-po-conflict-marker",
            "translation service answered a malformed catalog",
            "pull_translations",
            args,
            exc,
        )

    # catalogs on disk
    locale_dir = tmp / "locale"
    for lang, content in (
        ("de", DE_PO_MISSING.encode()),
        ("nl", DE_PO_PLACEHOLDER.encode()),
        ("es", ES_PO_LATIN1),
        ("it", IT_PO_CHARSET),
    ):
        (locale_dir / lang / "LC_MESSAGES").mkdir(parents=True)
        (locale_dir / lang / "LC_MESSAGES" / "messages.po").write_bytes(content)

    def po_path(lang: str) -> Path:
        return locale_dir / lang / "LC_MESSAGES" / "messages.po"

    cause = "catalog file on disk is malformed"
    exc = _catch(lambda: _read_po_file(po_path("de")))
    yield "po-file-missing-msgstr", cause, "compile_translations", {"path": str(po_path("de"))}, exc
    exc = _catch(lambda: _check_file(po_path("nl")))
    yield "po-file-placeholder", cause, "validate_translations", {"path": str(po_path("nl"))}, exc
    exc = _catch(lambda: _read_po_file(po_path("es")))
    yield "po-file-latin1", cause, "compile_translations", {"path": str(po_path("es"))}, exc
    exc = _catch(lambda: _read_po_file(po_path("it")))
    yield "po-file-charset-unknown", cause, "compile_translations", {"path": str(po_path("it"))}, exc

    mo_dir = tmp / "mo"
    mo_dir.mkdir()
    for name, content in (
        ("html.mo", b"<html><body><h1>404 Not Found</h1></body></html>\n"),
        ("truncated.mo", b"\xde\x12\x04\x95\x00\x00\x00\x00\x03"),
        ("empty.mo", b""),
    ):
        (mo_dir / name).write_bytes(content)
        exc = _catch(lambda: _read_mo_file(mo_dir / name))
        slug = f"mo-file-{name.removesuffix('.mo')}"
        yield (
            slug,
            "compiled catalog on disk is not an MO file",
            "inspect_translations",
            {"path": str(mo_dir / name)},
            exc,
        )

    src = tmp / "app"
    src.mkdir()
    (src / "views.py").write_bytes(
        b"def checkout(cart):\n    title = _('Checkout'\n    return render(title,\n"
    )
    (src / "legacy.py").write_bytes(b"# -*- coding: latin-9x -*-\ntitle = _('Caf\xe9')\n")
    for slug, name in (("source-unclosed-call", "views.py"), ("source-coding-unknown", "legacy.py")):
        exc = _catch(lambda: list(extract.extract_from_file("python", str(src / name))))
        yield (
            slug,
            "source file on disk cannot be tokenized",
            "extract_messages",
            {"path": str(src / name)},
            exc,
        )


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


def _fresh_babel(call: Callable[[Any], Any]) -> BaseException:
    """``call(babel)`` on the package imported afresh (inside a broken installation)."""
    return _catch(lambda: call(importlib.import_module("babel")))


def install_cases(ctx: Context) -> Iterator[tuple[str, str, str, str, dict[str, Any], BaseException]]:
    """(slug, cause, kind, tool, the model's arguments, exception) of a broken installation."""
    tmp = ctx.tmp

    def de_price(babel: Any) -> Any:
        importlib.import_module("babel.numbers")
        return babel.numbers.format_currency(19.99, "EUR", locale="de_DE")

    args: dict[str, Any] = {"amount": 19.99, "currency": "EUR", "locale": "de_DE"}
    with _pkgcopy.broken_install(tmp, ["babel"], drop=("babel/locale-data/de.dat",), hide=("pytz",)):
        exc = _fresh_babel(de_price)
    yield (
        "locale-data-missing",
        "installed locale data file missing (babel/locale-data/de.dat)",
        U,
        price_tool,
        args,
        exc,
    )
    with _pkgcopy.broken_install(tmp, ["babel"], drop=("babel/global.dat",), hide=("pytz",)):
        exc = _fresh_babel(de_price)
    yield (
        "global-data-missing",
        "installed global data file missing (babel/global.dat)",
        U,
        price_tool,
        args,
        exc,
    )
    garbage = {"babel/locale-data/de.dat": b"version https://git-lfs.github.com/spec/v1\noid sha256:0\n"}
    with _pkgcopy.broken_install(tmp, ["babel"], replace=garbage, hide=("pytz",)):
        exc = _fresh_babel(de_price)
    yield "locale-data-corrupt", "installed locale data file is not a pickle", A, price_tool, args, exc

    def berlin(babel: Any) -> Any:
        dates = importlib.import_module("babel.dates")
        return dates.format_datetime(WHEN, tzinfo=dates.get_timezone("Europe/Berlin"), locale="de_DE")

    empty = tmp / "no-zoneinfo"
    empty.mkdir()
    with _zone_path([str(empty)]), _pkgcopy.broken_install(tmp, ["babel"], hide=("pytz", "tzdata")):
        exc = _fresh_babel(berlin)
    args = {"datetime": "2024-03-10T09:00:00", "timezone": "Europe/Berlin", "locale": "de_DE"}
    yield "no-zone-database", "no time zone database installed", U, "format_localized_date", args, exc


def os_cases(ctx: Context) -> Iterator[tuple[str, str, str, str, dict[str, Any], BaseException]]:
    """(slug, cause, kind, tool, the model's arguments, exception) of paths and the OS."""
    from babel.messages import extract, mofile
    from babel.messages.catalog import Catalog

    tmp = ctx.tmp / "os"
    tmp.mkdir()
    tmp.chmod(0o711)

    def catalog() -> Any:
        cat = Catalog(locale="de")
        for i in range(200):
            cat.add(f"Message number {i}", f"Nachricht Nummer {i}")
        return cat

    def write_mo(path: Path | str) -> None:
        with open(path, "wb") as f:
            mofile.write_mo(f, catalog())

    missing = tmp / "locales" / "de" / "LC_MESSAGES" / "messages.po"
    exc = _catch(lambda: _read_po_file(missing))
    yield (
        "po-path-missing",
        "catalog path the model gave does not exist",
        F,
        "compile_translations",
        {"path": str(missing)},
        exc,
    )
    exc = _catch(lambda: list(extract.extract_from_file("python", str(tmp / "src" / "app.py"))))
    args: dict[str, Any] = {"path": str(tmp / "src" / "app.py")}
    yield "source-path-missing", "source path the model gave does not exist", F, "extract_messages", args, exc
    exc = _catch(lambda: list(extract.extract_from_file("python", str(tmp))))
    yield (
        "source-path-directory",
        "source path the model gave is a folder",
        F,
        "extract_messages",
        {"path": str(tmp)},
        exc,
    )

    private = tmp / "secret.py"
    private.write_text("title = _('Payroll')\n")
    private.chmod(0o000)
    exc = denied(lambda: list(extract.extract_from_file("python", str(private))))
    yield (
        "source-permission",
        "file the tool may not read",
        U,
        "extract_messages",
        {"path": str(private)},
        exc,
    )
    locked = read_only_dir(tmp / "shared")
    exc = denied(lambda: write_mo(locked / "messages.mo"))
    args = {"po_path": "locale/de/LC_MESSAGES/messages.po", "output": str(locked / "messages.mo")}
    yield "mo-permission-folder", "folder the tool may not write into", U, "compile_translations", args, exc
    exc = _catch(lambda: write_mo("/dev/full"))
    args = {"po_path": "locale/de/LC_MESSAGES/messages.po", "output": "/dev/full"}
    yield "mo-disk-full", "no space left on the device", U, "compile_translations", args, exc
    with file_size_limit(1024):
        exc = _catch(lambda: write_mo(tmp / "big.mo"))
    args = {"po_path": "locale/de/LC_MESSAGES/messages.po", "output": str(tmp / "big.mo")}
    yield "mo-file-size-limit", "file size quota (RLIMIT_FSIZE) reached", U, "compile_translations", args, exc


def cases(ctx: Context) -> Iterator[Case]:
    for slug, tool, args, fn in model_calls():
        yield Case(
            f"babel-{slug}", LIBRARY, f"localisation argument ({slug})", F, None, _catch(fn), tool, args
        )
    for slug, cause, tool, args, exc in data_cases(ctx):
        yield Case(f"babel-{slug}", LIBRARY, cause, A, None, exc, tool, args)
    for slug, cause, kind, tool, args, exc in os_cases(ctx):
        yield Case(f"babel-{slug}", LIBRARY, cause, kind, None, exc, tool, args)
    for slug, cause, kind, tool, args, exc in install_cases(ctx):
        yield Case(f"babel-{slug}", LIBRARY, cause, kind, None, exc, tool, args)
