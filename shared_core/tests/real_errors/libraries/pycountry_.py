# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""pycountry behind ISO-code tools: lookups of countries, subdivisions, currencies, languages
and scripts by the codes and names the model writes, the same lookups on codes read from
files the model names, databases loaded from files, translations from pycountry's gettext
catalogues, and installations that lack a database file.

The tools: ``lookup_country`` / ``lookup_subdivision`` / ``lookup_currency`` /
``lookup_language`` / ``lookup_script`` / ``lookup_historic_country`` (``Database.lookup``
of the model's code or name), ``find_country`` / ``find_subdivision`` (``search_fuzzy``),
``get_country`` / ``get_subdivision`` / ``get_currency`` (``Database.get(**criteria)``),
``country_attribute`` (a field of a record), ``translate_country_name`` (``gettext`` with
``pycountry.LOCALES_DIR``), ``register_country`` / ``register_subdivision`` /
``retire_country`` (``add_entry`` / ``remove_entry`` on the tool's own copy of a database),
``normalize_customers`` / ``convert_prices`` / ``tag_documents`` / ``geocode_regions`` /
``match_countries`` (codes and names read from a file the model names) and
``lookup_in_database`` (an ISO 3166-1 or 3166-2 database file the model names, loaded with
``pycountry.ExistingCountries(path)`` / ``pycountry.Subdivisions(path)``).

Labels follow the cause set up (pycountry's README https://github.com/pycountry/pycountry
"Countries (ISO 3166-1)", "Subdivisions", "Currencies", "Languages", "Lookups": ``lookup``
raises ``LookupError`` when nothing matches, ``search_fuzzy`` too; ``get`` takes one
indexed field; ISO 3166 / 4217 / 639 / 15924 are closed code lists):

- fixable: a code or name that is not in the standard's list (``UK`` for GB, a misspelt
  name, ``GB-SCO`` for GB-SCT, ``RMB`` for CNY, ``jp`` for ja, ``en-US``, a script called
  "Latin script", ``DE`` as a withdrawn country), a number where pycountry
  wants a string (bare ``LookupError()``; ``'int' object has no attribute 'strip'`` /
  ``'lower'``), a field that is not indexed or does not exist (``KeyError`` from ``get``,
  ``AttributeError`` of a record), two criteria (``TypeError``), a subdivision entry without
  ``code``, and a gettext language code without a catalogue (``jp``).
- ambiguous: the same ``LookupError`` for codes and names the tool READ from a file the
  model only named (a customer list saying ``UK``, a price list in ``BTC``, documents tagged
  ``jp``, a region ``DE-BAV``, an old ``Czechoslovakia``, an empty country cell, a currency
  stored as the number 978), a database file the model named that is missing, truncated,
  not UTF-8, of another ISO standard (``KeyError: '3166-1'``), a list, holding a non-object
  entry, a number where pycountry expects text or a subdivision without ``code``, and
  removing an entry that is not in the registry (``KeyError``: removed already, or never
  there).
- unrecoverable: an installation without ``iso3166-2.json`` / ``iso4217.json`` /
  ``iso639-3.json`` or without a language's gettext catalogues (:mod:`libraries._pkgcopy`;
  the same ``FileNotFoundError`` text as the model's ``jp``, from another cause), pycountry
  not installed, and a database file this user may not read.

Not triggerable: pycountry does no network I/O and takes no lock (no transient case);
``get`` of a code that is not there returns ``None`` (no exception), so those misses are
only the ``lookup`` ones. Left out: a record lacking an optional field (``official_name``
of CA: whether the model asked for the wrong field or the data lacks it is a guess) and
codes that no fix can give (``XK`` for Kosovo, not in ISO 3166-1).
"""

from __future__ import annotations

import csv
import gettext
import importlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files, _pkgcopy
from ._common import A, F, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "pycountry"
REQUIRES = ["pycountry==26.2.16"]


def _db(name: str) -> Any:
    import pycountry

    return getattr(pycountry, name)


def _model_calls() -> list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, cause, tool, the model's arguments, call)."""
    import pycountry

    def lookup(db: str, value: Any) -> Callable[[], Any]:
        return lambda: _db(db).lookup(value)

    def get(db: str, criteria: dict[str, Any]) -> Callable[[], Any]:
        return lambda: _db(db).get(**criteria)

    def translate(code: str, language: str) -> Callable[[], Any]:
        def run() -> Any:
            name = pycountry.countries.lookup(code).name
            catalogue = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language])
            return catalogue.gettext(name)

        return run

    def registry(db: str, file: str) -> Any:
        import os

        return getattr(pycountry, db)(os.path.join(pycountry.DATABASE_DIR, file))

    kosovo = {"alpha_2": "XK", "alpha_3": "XKX", "name": "Kosovo", "numeric": 383}
    region = {"name": "Greater Manchester", "type": "Metropolitan county"}
    return [
        (
            "country-uk",
            "'UK' is not ISO 3166-1 (GB is)",
            "lookup_country",
            {"query": "UK"},
            lookup("countries", "UK"),
        ),
        (
            "country-misspelt",
            "country name misspelt",
            "lookup_country",
            {"query": "United States of Amercia"},
            lookup("countries", "United States of Amercia"),
        ),
        (
            "country-numeric-int",
            "numeric code given as a number, not a string",
            "lookup_country",
            {"query": 840},
            lookup("countries", 840),
        ),
        (
            "historic-current-country",
            "DE is a current country, not an ISO 3166-3 withdrawn one",
            "lookup_historic_country",
            {"code": "DE"},
            lookup("historic_countries", "DE"),
        ),
        (
            "get-unknown-field",
            "'alpha2' is not a field (alpha_2 is)",
            "get_country",
            {"criteria": {"alpha2": "DE"}},
            get("countries", {"alpha2": "DE"}),
        ),
        (
            "get-two-criteria",
            "get() takes one criterion",
            "get_country",
            {"criteria": {"alpha_2": "DE", "name": "Germany"}},
            get("countries", {"alpha_2": "DE", "name": "Germany"}),
        ),
        (
            "country-fuzzy-misspelt",
            "fuzzy search of a misspelt name",
            "find_country",
            {"name": "Untied Kingdom"},
            lambda: pycountry.countries.search_fuzzy("Untied Kingdom"),
        ),
        (
            "country-fuzzy-not-string",
            "fuzzy search given a number",
            "find_country",
            {"name": 44},
            lambda: pycountry.countries.search_fuzzy(44),
        ),
        (
            "country-attribute-unknown",
            "'capital' is not a field of ISO 3166-1 records",
            "country_attribute",
            {"code": "DE", "attribute": "capital"},
            lambda: pycountry.countries.lookup("DE").capital,
        ),
        (
            "subdivision-wrong-code",
            "Scotland is GB-SCT, not GB-SCO",
            "lookup_subdivision",
            {"code": "GB-SCO"},
            lookup("subdivisions", "GB-SCO"),
        ),
        (
            "subdivision-get-by-name",
            "subdivision names are not an indexed field",
            "get_subdivision",
            {"criteria": {"name": "Bayern"}},
            get("subdivisions", {"name": "Bayern"}),
        ),
        (
            "subdivision-fuzzy-misspelt",
            "fuzzy search of a misspelt subdivision",
            "find_subdivision",
            {"name": "Bavarai"},
            lambda: pycountry.subdivisions.search_fuzzy("Bavarai"),
        ),
        (
            "currency-rmb",
            "'RMB' is not ISO 4217 (CNY is)",
            "lookup_currency",
            {"code": "RMB"},
            lookup("currencies", "RMB"),
        ),
        (
            "currency-by-symbol",
            "'symbol' is not a field of ISO 4217 records",
            "get_currency",
            {"criteria": {"symbol": "€"}},
            get("currencies", {"symbol": "€"}),
        ),
        (
            "language-jp",
            "'jp' is a country code; Japanese is 'ja'",
            "lookup_language",
            {"code": "jp"},
            lookup("languages", "jp"),
        ),
        (
            "language-locale-tag",
            "a BCP 47 locale tag, not an ISO 639 code",
            "lookup_language",
            {"code": "en-US"},
            lookup("languages", "en-US"),
        ),
        (
            "script-name",
            "'Latin script' is not a script name (Latin / Latn)",
            "lookup_script",
            {"code": "Latin script"},
            lookup("scripts", "Latin script"),
        ),
        (
            "translate-language-jp",
            "no catalogue for the language code 'jp'",
            "translate_country_name",
            {"code": "DE", "language": "jp"},
            translate("DE", "jp"),
        ),
        (
            "register-numeric-int",
            "numeric code given as a number",
            "register_country",
            {"fields": kosovo},
            lambda: registry("ExistingCountries", "iso3166-1.json").add_entry(**kosovo),
        ),
        (
            "register-subdivision-no-code",
            "a subdivision entry without 'code'",
            "register_subdivision",
            {"fields": region},
            lambda: registry("Subdivisions", "iso3166-2.json").add_entry(**region),
        ),
    ]


def _from_files(ctx: Context) -> Iterator[Case]:
    import pycountry

    root = ctx.tmp / "work"
    (root / "data").mkdir(parents=True)

    def csv_column(rel: str, column: str, body: str, use: Callable[[str], Any]) -> Callable[[], Any]:
        (root / rel).write_text(body, encoding="utf-8")

        def run() -> Any:
            with (root / rel).open(encoding="utf-8", newline="") as f:
                return [use(row[column]) for row in csv.DictReader(f)]

        return run

    customers = "id,name,country\n1,Ada,GB\n2,Linus,FI\n3,Grace,UK\n"
    prices = "sku,price,currency\nA-1,12.50,EUR\nB-2,0.0004,BTC\n"
    regions = "store,region\nMunich,DE-BY\nNuremberg,DE-BAV\n"
    legacy = "id,country\n1,Austria\n2,Czechoslovakia\n"
    blanks = "id,name,country\n1,Ada,GB\n2,Ken,\n"
    docs = [{"id": 1, "lang": "en"}, {"id": 2, "lang": "jp"}]
    (root / "data" / "docs.json").write_text(json.dumps(docs), encoding="utf-8")

    def tag_documents() -> Any:
        for doc in json.loads((root / "data" / "docs.json").read_text(encoding="utf-8")):
            pycountry.languages.lookup(doc["lang"])

    read_cases: list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]] = [
        (
            "file-customer-country-uk",
            "the customer list says 'UK'",
            "normalize_customers",
            {"path": "data/customers.csv"},
            csv_column("data/customers.csv", "country", customers, pycountry.countries.lookup),
        ),
        (
            "file-customer-country-blank",
            "a customer row has no country",
            "normalize_customers",
            {"path": "data/customers-2.csv"},
            csv_column("data/customers-2.csv", "country", blanks, pycountry.countries.lookup),
        ),
        (
            "file-price-currency-btc",
            "the price list holds a currency that is not ISO 4217",
            "convert_prices",
            {"path": "data/prices.csv"},
            csv_column("data/prices.csv", "currency", prices, pycountry.currencies.lookup),
        ),
        (
            "file-region-code",
            "the store list holds a subdivision code that does not exist",
            "geocode_regions",
            {"path": "data/stores.csv"},
            csv_column("data/stores.csv", "region", regions, pycountry.subdivisions.lookup),
        ),
        (
            "file-legacy-country",
            "an old record names a country that no longer exists",
            "match_countries",
            {"path": "data/legacy.csv"},
            csv_column("data/legacy.csv", "country", legacy, pycountry.countries.search_fuzzy),
        ),
        (
            "file-document-language",
            "a stored document is tagged 'jp'",
            "tag_documents",
            {"path": "data/docs.json"},
            tag_documents,
        ),
    ]
    (root / "data" / "prices.json").write_text(
        json.dumps(
            [{"sku": "A-1", "price": 12.5, "currency": "EUR"}, {"sku": "B-2", "price": 9.9, "currency": 978}]
        ),
        encoding="utf-8",
    )

    def convert_prices() -> Any:
        for record in json.loads((root / "data" / "prices.json").read_text(encoding="utf-8")):
            pycountry.currencies.lookup(record["currency"])

    read_cases.append(
        (
            "file-price-currency-number",
            "a stored price's currency is the number 978",
            "convert_prices",
            {"path": "data/prices.json"},
            convert_prices,
        )
    )
    for slug, cause, tool, args, fn in read_cases:
        yield Case(f"pycountry-{slug}", LIBRARY, cause, A, None, _catch(fn), tool, args)

    # a database file the model names (an updated or trimmed ISO 3166-1 list)
    good = json.loads(Path(pycountry.DATABASE_DIR, "iso3166-1.json").read_text(encoding="utf-8"))
    few = {"3166-1": good["3166-1"][:3]}
    text = json.dumps(few, ensure_ascii=False, indent=2)
    latin1 = json.dumps(
        {"3166-1": [{"alpha_2": "AX", "alpha_3": "ALA", "name": "Åland Islands", "numeric": "248"}]},
        ensure_ascii=False,
    )
    bad_dbs: list[tuple[str, str, str, bytes]] = [
        ("db-truncated", "the database file is cut short", "data/countries-2024.json", text[:300].encode()),
        (
            "db-not-utf8",
            "the database file is Latin-1",
            "data/countries-latin1.json",
            latin1.encode("latin-1"),
        ),
        (
            "db-other-standard",
            "the file is an ISO 4217 database",
            "data/iso4217.json",
            json.dumps({"4217": [{"alpha_3": "EUR", "name": "Euro", "numeric": "978"}]}).encode(),
        ),
        (
            "db-top-level-list",
            "the file is a bare list of countries",
            "data/countries-list.json",
            json.dumps(few["3166-1"]).encode(),
        ),
        (
            "db-entry-not-object",
            "an entry of the file is a string",
            "data/countries-mixed.json",
            json.dumps({"3166-1": [few["3166-1"][0], "AX Åland Islands"]}, ensure_ascii=False).encode(),
        ),
        (
            "db-numeric-number",
            "an entry's numeric code is a number",
            "data/countries-numbers.json",
            json.dumps(
                {"3166-1": [{"alpha_2": "AX", "alpha_3": "ALA", "name": "Aland Islands", "numeric": 248}]}
            ).encode(),
        ),
    ]
    for slug, cause, rel, data in bad_dbs:
        (root / rel).write_bytes(data)
        exc = _catch(lambda: pycountry.ExistingCountries(str(root / rel)).lookup("AX"))
        args = {"database": rel, "query": "AX"}
        yield Case(f"pycountry-{slug}", LIBRARY, cause, A, None, exc, "lookup_in_database", args)
    exc = _catch(lambda: pycountry.ExistingCountries(str(root / "data/countries-2025.json")).lookup("AX"))
    args = {"database": "data/countries-2025.json", "query": "AX"}
    yield Case(
        "pycountry-db-missing",
        LIBRARY,
        "the database file does not exist",
        A,
        None,
        exc,
        "lookup_in_database",
        args,
    )

    regions = {
        "3166-2": [
            {"code": "GB-MAN", "name": "Manchester", "type": "Metropolitan district"},
            {"name": "Salford", "type": "Metropolitan district"},
        ]
    }
    (root / "data" / "regions.json").write_text(json.dumps(regions), encoding="utf-8")
    exc = _catch(lambda: pycountry.Subdivisions(str(root / "data" / "regions.json")).lookup("GB-MAN"))
    args = {"database": "data/regions.json", "query": "GB-MAN"}
    yield Case(
        "pycountry-db-subdivision-no-code",
        LIBRARY,
        "an entry of the subdivisions file has no code",
        A,
        None,
        exc,
        "lookup_in_database",
        args,
    )

    registry = pycountry.ExistingCountries(str(Path(pycountry.DATABASE_DIR, "iso3166-1.json")))
    exc = _catch(lambda: registry.remove_entry(alpha_2="AN"))
    args = {"alpha_2": "AN"}
    yield Case(
        "pycountry-retire-missing",
        LIBRARY,
        "the entry is not in the registry (withdrawn already)",
        A,
        None,
        exc,
        "retire_country",
        args,
    )

    # a database file this user may not read
    private = root / "private"
    private.mkdir()
    (private / "countries.json").write_text(text, encoding="utf-8")
    (private / "countries.json").chmod(0o600)
    for parent in (private, root, ctx.tmp):
        parent.chmod(parent.stat().st_mode | 0o011)
    exc = _files.denied(lambda: pycountry.ExistingCountries(str(private / "countries.json")).lookup("AX"))
    args = {"database": "private/countries.json", "query": "AX"}
    yield Case(
        "pycountry-db-no-permission",
        LIBRARY,
        "database file not readable by this user",
        U,
        None,
        exc,
        "lookup_in_database",
        args,
    )


def _installations(ctx: Context) -> Iterator[Case]:
    def broken(drop: tuple[str, ...], fn: Callable[[Any], Any]) -> BaseException:
        with _pkgcopy.broken_install(ctx.tmp, ["pycountry"], drop=drop, hide=("pycountry",)):
            module = importlib.import_module("pycountry")
            return _catch(lambda: fn(module))

    exc = broken(("pycountry/databases/iso3166-2.json",), lambda m: m.subdivisions.lookup("DE-BY"))
    yield Case(
        "pycountry-install-no-subdivisions",
        LIBRARY,
        "the installation lacks iso3166-2.json",
        U,
        None,
        exc,
        "lookup_subdivision",
        {"code": "DE-BY"},
    )
    exc = broken(("pycountry/databases/iso4217.json",), lambda m: m.currencies.lookup("EUR"))
    yield Case(
        "pycountry-install-no-currencies",
        LIBRARY,
        "the installation lacks iso4217.json",
        U,
        None,
        exc,
        "lookup_currency",
        {"code": "EUR"},
    )

    exc = broken(("pycountry/databases/iso639-3.json",), lambda m: m.languages.lookup("de"))
    yield Case(
        "pycountry-install-no-languages",
        LIBRARY,
        "the installation lacks iso639-3.json",
        U,
        None,
        exc,
        "lookup_language",
        {"code": "de"},
    )

    def translate(m: Any) -> Any:
        name = m.countries.lookup("FR").name
        return gettext.translation("iso3166-1", m.LOCALES_DIR, languages=["de"]).gettext(name)

    exc = broken(("pycountry/locales/de",), translate)
    yield Case(
        "pycountry-install-no-locale",
        LIBRARY,
        "the installation lacks the German catalogues",
        U,
        None,
        exc,
        "translate_country_name",
        {"code": "FR", "language": "de"},
    )
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("pycountry",)):
        exc = _catch(lambda: importlib.import_module("pycountry"))
    yield Case(
        "pycountry-not-installed",
        LIBRARY,
        "pycountry not installed",
        U,
        None,
        exc,
        "lookup_country",
        {"query": "DE"},
    )


def cases(ctx: Context) -> Iterator[Case]:
    for slug, cause, tool, args, fn in _model_calls():
        yield Case(f"pycountry-{slug}", LIBRARY, cause, F, None, _catch(fn), tool, args)
    yield from _from_files(ctx)
    yield from _installations(ctx)
