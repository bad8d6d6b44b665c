# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""phonenumbers behind a contact tool: phone numbers and region codes the model wrote in its
arguments (fixable); numbers read from a contacts file on disk or answered by a CRM service
on 127.0.0.1, and a corrupt metadata file of the installation (ambiguous); metadata files
the installation lacks (unrecoverable).

Labels follow the cause. ``validate_phone`` / ``send_sms`` parse the model's number with
the model's default region, so every ``NumberParseException`` of ``parse`` (the five
error types of the library's docs: INVALID_COUNTRY_CODE "Missing or invalid default
region." / "Could not interpret numbers after plus-sign.", NOT_A_NUMBER,
TOO_SHORT_AFTER_IDD, TOO_SHORT_NSN, TOO_LONG; https://github.com/daviddrysdale/python-phonenumbers
README "Parsing" and ``phonenumberutil.NumberParseException``), a region code
``country_code_for_valid_region`` rejects, a matcher leniency or ``max_tries`` out of
range, a JSON number or list where a string was expected, are the model's to fix. The
same parser failing on a row of a contacts CSV or on a CRM's JSON record is about data the
model never wrote: ambiguous. The per-region metadata are Python modules loaded lazily
(``phonenumbers/data/region_XX.py``, ``shortdata``, ``geodata``, ``carrierdata``,
``tzdata``): when one is missing from the installation (an install pruned of its data) no
retry or argument helps: unrecoverable; when one is present but truncated or corrupt it is
a file on disk that is corrupt: ambiguous (the convention of ``dateutil-file-bad-tzfile``).
Both are made by importing the real package afresh from a copy with that file removed or
replaced (:mod:`libraries._pkgcopy`).

Not triggerable: phonenumbers does no I/O of its own (no timeout, no network: no
transient), and a number valid in form but not for its region (``is_valid_number`` ->
``False``) raises nothing (a tool raises its own error then), so it is not here.
"""

from __future__ import annotations

import csv
import importlib
import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _pkgcopy, _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "phonenumbers"
REQUIRES = ["phonenumbers>=9.0,<10"]

# (slug, number, default region) given to ``parse`` as the model wrote them
MODEL_NUMBERS: list[tuple[str, Any, Any]] = [
    # INVALID_COUNTRY_CODE: a national number without a usable default region
    ("national-no-region", "6502530000", None),
    ("region-alpha3", "6502530000", "USA"),
    ("region-uk-lowercase", "020 7946 0000", "uk"),
    ("region-eu", "0612345678", "EU"),
    ("region-empty", "(650) 253-0000", ""),
    ("plus-zero-country", "+0 123 456", "US"),
    ("plus-unknown-country", "+999 1234567", None),
    # NOT_A_NUMBER
    ("words", "call me maybe", "US"),
    ("empty", "", "US"),
    ("not-applicable", "N/A", "US"),
    ("plus-only", "+", "US"),
    ("country-code-only", "+1", "US"),
    ("null", None, "US"),
    ("tel-uri-empty-context", "tel:6502530000;phone-context=", "US"),
    ("tel-uri-no-number", "tel:;phone-context=+1", "US"),
    # TOO_SHORT_AFTER_IDD
    ("idd-au-then-one-digit", "0011 1", "AU"),
    ("idd-us-then-one-digit", "011 1", "US"),
    ("idd-gb-then-country-only", "00 44", "GB"),
    # TOO_SHORT_NSN
    ("gb-one-digit", "+44 1", "GB"),
    ("freephone-one-digit", "+800 1", "US"),
    ("de-one-digit", "+49 1", "DE"),
    # TOO_LONG
    ("over-250-chars", "6" * 260, "US"),
    ("digits-too-many", "+44 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8", "GB"),
    ("extension-too-long", "+1 650 253 0000 x12345678901234567890", "US"),
    ("vanity-too-long", "1-800-FLOWERS-NOW-NOW-NOW-NOW", "US"),
    # types a JSON argument can have
    ("json-integer", 6502530000, "US"),
    ("region-list", "6502530000", ["US"]),
]


def phone_arguments(number: Any, region: Any = None) -> dict[str, Any]:
    """A phone tool's arguments: the number, and the region where the model gave one."""
    return {"number": number} if region is None else {"number": number, "region": region}


def model_calls() -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, tool, the arguments the model wrote, the tool's call with them)."""
    import phonenumbers as pn

    text = "call 650 253 0000 today"
    calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
        (
            slug,
            "validate_phone",
            phone_arguments(number, region),
            lambda number=number, region=region: pn.parse(number, region),
        )
        for slug, number, region in MODEL_NUMBERS
    ]
    calls += [
        (
            "dialing-code-region-xx",
            "dialing_code",
            {"region": "XX"},
            lambda: pn.country_code_for_valid_region("XX"),
        ),
        (
            "dialing-code-region-name",
            "dialing_code",
            {"region": "Germany"},
            lambda: pn.country_code_for_valid_region("Germany"),
        ),
        (
            "matcher-leniency-5",
            "find_numbers",
            {"text": text, "region": "US", "leniency": 5},
            lambda: list(pn.PhoneNumberMatcher(text, "US", leniency=5)),
        ),
        (
            "matcher-max-tries-negative",
            "find_numbers",
            {"text": text, "region": "US", "max_tries": -1},
            lambda: pn.PhoneNumberMatcher(text, "US", max_tries=-1),
        ),
        (
            "keypad-two-digits",
            "dial_keypad",
            {"region": "US", "digits": "65"},
            lambda: pn.AsYouTypeFormatter("US").input_digit("65"),
        ),
    ]
    return calls


CONTACTS_CSV = "name,phone,region\nAda Lovelace,TBD,GB\nAlan Turing,+44 2,GB\nGrace Hopper,(650) 253-0000,\n"

CRM_RECORDS = {
    "/api/contacts/1042": {"id": 1042, "phone": "see notes", "country": "US"},
    "/api/contacts/1043": {"id": 1043, "phone": "+1 650 253 0000 0000 0000 0000 0000", "country": "US"},
}


def _install_cases(
    ctx: Context,
) -> Iterator[tuple[str, str, str, str, dict[str, Any], BaseException]]:
    """(slug, cause, kind, tool, the model's arguments, exception) of an installation lacking
    or corrupting a file."""
    import phonenumbers

    data = phonenumbers.__file__.rsplit("/", 1)[0]
    with open(f"{data}/data/region_GB.py", "rb") as f:
        region_gb = f.read()

    def run(drop: tuple[str, ...], replace: dict[str, bytes], fn: Callable[[Any], Any]) -> BaseException:
        with _pkgcopy.broken_install(ctx.tmp, ["phonenumbers"], drop=drop, replace=replace):
            return _catch(lambda: fn(importlib.import_module("phonenumbers")))

    def gb(pn: Any) -> Any:
        return pn.parse("020 7946 0000", "GB")

    def geocode(pn: Any) -> Any:
        geocoder = importlib.import_module("phonenumbers.geocoder")
        return geocoder.description_for_number(pn.parse("+16502530000"), "en")

    gb_arguments = phone_arguments("020 7946 0000", "GB")
    geocode_arguments = phone_arguments("+16502530000")
    missing: list[tuple[str, str, str, dict[str, Any], Callable[[Any], Any]]] = [
        ("metadata-region-missing", "data/region_GB.py", "validate_phone", gb_arguments, gb),
        (
            "metadata-nongeo-missing",
            "data/region_800.py",
            "validate_phone",
            phone_arguments("+800 1234 5678"),
            lambda pn: pn.parse("+800 1234 5678", None),
        ),
        (
            "metadata-alt-format-missing",
            "data/alt_format_44.py",
            "validate_phone",
            phone_arguments("+44 20 7946 0000"),
            lambda pn: pn.parse("+44 20 7946 0000", None),
        ),
        (
            "shortdata-region-missing",
            "shortdata/region_US.py",
            "check_emergency",
            phone_arguments("911", "US"),
            lambda pn: importlib.import_module("phonenumbers.shortnumberinfo").is_emergency_number(
                "911", "US"
            ),
        ),
        (
            "geodata-missing",
            "geodata/data0.py",
            "locate_phone",
            geocode_arguments,
            geocode,
        ),
        (
            "carrierdata-missing",
            "carrierdata/data0.py",
            "phone_carrier",
            phone_arguments("+447700900123"),
            lambda pn: importlib.import_module("phonenumbers.carrier").name_for_number(
                pn.parse("+447700900123"), "en"
            ),
        ),
        (
            "tzdata-missing",
            "tzdata/data0.py",
            "phone_time_zone",
            phone_arguments("+16502530000"),
            lambda pn: importlib.import_module("phonenumbers.timezone").time_zones_for_number(
                pn.parse("+16502530000")
            ),
        ),
    ]
    for slug, path, tool, arguments, fn in missing:
        exc = run((f"phonenumbers/{path}",), {}, fn)
        yield slug, f"installed metadata file missing ({path})", U, tool, arguments, exc

    exc = run((), {"phonenumbers/data/region_GB.py": region_gb[: len(region_gb) // 2]}, gb)
    yield (
        "metadata-region-truncated",
        "installed metadata file truncated",
        A,
        "validate_phone",
        gb_arguments,
        exc,
    )
    exc = run((), {"phonenumbers/geodata/data0.py": b"\x00" * 64}, geocode)
    yield "geodata-zeroed", "installed geocoding data file zeroed", A, "locate_phone", geocode_arguments, exc


def cases(ctx: Context) -> Iterator[Case]:
    import phonenumbers as pn

    for slug, tool, arguments, fn in model_calls():
        yield Case(
            f"phonenumbers-{slug}",
            LIBRARY,
            f"phone argument ({slug})",
            F,
            None,
            _catch(fn),
            tool,
            arguments=arguments,
        )

    # a contacts file on disk
    path = ctx.tmp / "contacts.csv"
    path.write_text(CONTACTS_CSV)
    with path.open() as f:
        rows = list(csv.DictReader(f))
    for slug, row in zip(("file-not-a-number", "file-too-short", "file-no-region"), rows):
        exc = _catch(lambda: pn.parse(row["phone"], row["region"] or None))
        yield Case(
            f"phonenumbers-{slug}",
            LIBRARY,
            "contacts file on disk has a bad number",
            A,
            None,
            exc,
            "import_contacts",
            arguments={"path": str(path)},
        )

    # a CRM service's records
    pages = {p: ("application/json", json.dumps(r).encode()) for p, r in CRM_RECORDS.items()}
    with _serve.documents(pages) as port:
        ctx.name_port(port, "CRMPORT")
        for slug, page in zip(("crm-not-a-number", "crm-too-long"), CRM_RECORDS):

            def fetch() -> Any:
                record = json.loads(_serve.get(port, page))
                return pn.parse(record["phone"], record["country"])

            yield Case(
                f"phonenumbers-{slug}",
                LIBRARY,
                "CRM service answered a bad number",
                A,
                None,
                _catch(fetch),
                "sync_contact",
                arguments={"contact_id": int(page.rsplit("/", 1)[1])},
            )

    for slug, cause, kind, tool, arguments, exc in _install_cases(ctx):
        yield Case(f"phonenumbers-{slug}", LIBRARY, cause, kind, None, exc, tool, arguments=arguments)
