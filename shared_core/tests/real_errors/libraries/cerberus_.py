# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""Cerberus behind a validating tool: a payload or a schema the model wrote (fixable), a
record answered by a CRM service on 127.0.0.1 or a schema read from the tool's schema file
on disk (ambiguous), an installation that lacks one of Cerberus's modules (unrecoverable).

Cerberus reports a document that breaks its schema as data (``Validator.validate`` returns
``False``, ``Validator.errors`` holds the messages its ``BasicErrorHandler`` wrote, such as
"required field", "must be of integer type", "unallowed value ...", "min length is 2",
"value does not match regex ..."): the tools here raise ``ValueError(validator.errors)``,
the usual way such a report reaches the agent. Cerberus's own exceptions are
``cerberus.SchemaError`` (a schema with an unknown rule, an unsupported type, a rule value
of the wrong type, a registry name not defined, no schema at all) and
``cerberus.DocumentError`` ("... is not a document, must be a dict", "document is
missing"); a ``regex`` rule compiles its pattern with ``re`` (``re.error``). Docs:
https://docs.python-cerberus.org/usage.html ("Basic Usage", "Validation Schema",
"Registries"), https://docs.python-cerberus.org/validation-rules.html,
https://docs.python-cerberus.org/normalization-rules.html ("Value Coercion"),
https://docs.python-cerberus.org/errors.html.

Labels follow the cause: the model's payload or schema -> fixable (a corrected call
passes); the same failures because of a record the CRM returned (a ``sync_contacts`` tool
validates what it fetched) or a schema in ``schemas/*.json`` that the tool loads -> ambiguous
(the model did not write them and cannot tell who is wrong); a schema name the model made
up -> fixable (``FileNotFoundError`` of the tool's lookup); ``import cerberus`` without
``cerberus/validator.py`` or ``cerberus/schema.py`` -> unrecoverable.

Not triggerable: Cerberus does no I/O (no timeout, no network: no transient case; the HTTP
fetch of the record is the tool's client's failure); a ``coerce`` callable that raises is
recorded as a validation error, not raised.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

from . import _pkgcopy, _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "cerberus"
REQUIRES = ["cerberus>=1.3.5,<1.4"]

CONTACT = {
    "name": {"type": "string", "required": True, "minlength": 2, "maxlength": 80},
    "email": {"type": "string", "required": True, "regex": r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$"},
    "age": {"type": "integer", "min": 0, "max": 130},
    "tier": {"type": "string", "allowed": ["free", "pro", "enterprise"]},
    "tags": {"type": "list", "schema": {"type": "string"}, "maxlength": 5},
    "address": {
        "type": "dict",
        "schema": {
            "city": {"type": "string", "required": True},
            "zip": {"type": "string", "regex": r"^\d{5}$"},
        },
    },
    "signup": {"type": "string", "regex": r"^\d{4}-\d{2}-\d{2}$"},
    "score": {"type": "float", "coerce": float},
}

GOOD = {"name": "Ana Ruiz", "email": "ana@example.com", "age": 34, "tier": "pro"}


def _check(schema: Any, document: Any, **options: Any) -> dict[str, Any]:
    """The tools' call: validate, raise the report when the document breaks the schema."""
    from cerberus import Validator

    v = Validator(schema, **options)
    if not v.validate(document):
        raise ValueError(v.errors)
    return v.document


# (slug, the model's payload): each breaks CONTACT
PAYLOADS: list[tuple[str, Any]] = [
    ("missing-email", {"name": "Ana Ruiz"}),
    ("age-string", {**GOOD, "age": "thirty"}),
    ("age-negative", {**GOOD, "age": -3}),
    ("age-too-high", {**GOOD, "age": 340}),
    ("tier-unknown", {**GOOD, "tier": "gold"}),
    ("email-no-at", {**GOOD, "email": "ana.example.com"}),
    ("name-too-short", {**GOOD, "name": "A"}),
    ("unknown-field", {**GOOD, "phone": "+1 555 0100"}),
    ("tags-not-list", {**GOOD, "tags": "vip,beta"}),
    ("tags-too-many", {**GOOD, "tags": ["a", "b", "c", "d", "e", "f"]}),
    ("tag-not-string", {**GOOD, "tags": ["vip", 7]}),
    ("address-string", {**GOOD, "address": "1 Main St, Springfield"}),
    ("address-no-city", {**GOOD, "address": {"zip": "12345"}}),
    ("zip-letters", {**GOOD, "address": {"city": "Lyon", "zip": "69OO1"}}),
    ("signup-us-date", {**GOOD, "signup": "03/10/2024"}),
    ("score-not-number", {**GOOD, "score": "high"}),
    ("name-null", {**GOOD, "name": None}),
    ("several", {"name": "", "email": 5, "age": 1.5}),
]

# (slug, the model's schema): each is not a valid Cerberus schema
SCHEMAS: list[tuple[str, Any]] = [
    ("unknown-rule", {"name": {"type": "string", "maxlen": 80}}),
    ("type-str", {"name": {"type": "str"}}),
    ("type-json-schema", {"age": {"type": "number", "minimum": 0}}),
    ("rules-not-dict", {"name": "string"}),
    ("schema-list", [{"name": {"type": "string"}}]),
    ("required-string", {"name": {"type": "string", "required": "yes"}}),
    ("allowed-string", {"tier": {"allowed": "free|pro"}}),
    ("maxlength-string", {"name": {"maxlength": "80"}}),
    ("regex-number", {"zip": {"regex": 12345}}),
    ("regex-bad", {"email": {"type": "string", "regex": "^[a-z]+@(example\\.com"}}),
    ("coerce-name", {"age": {"coerce": "int"}}),
    ("check-with-name", {"age": {"check_with": "positive"}}),
    ("items-dict", {"tags": {"type": "list", "items": {"type": "string"}}}),
    ("nested-schema-name", {"address": {"type": "dict", "schema": "address"}}),
    ("oneof-dict", {"age": {"oneof": {"type": "integer"}}}),
    ("anyof-typo", {"age": {"anyof": [{"tpye": "integer"}]}}),
    ("dependencies-number", {"age": {"dependencies": 5}}),
]

DOCUMENTS: list[tuple[str, Any]] = [
    ("document-list", [GOOD]),
    ("document-json-text", json.dumps(GOOD)),
    ("document-null", None),
]


def _model_cases() -> Iterator[Case]:
    for slug, payload in PAYLOADS:
        exc = _catch(lambda: _check(CONTACT, payload))
        yield Case(
            f"cerberus-{slug}",
            LIBRARY,
            f"payload breaks the contact schema ({slug})",
            F,
            None,
            exc,
            "create_contact",
            {"contact": payload},
        )
    for slug, schema in SCHEMAS:
        exc = _catch(lambda: _check(schema, GOOD, allow_unknown=True))
        args = {"schema": schema, "document": GOOD, "allow_unknown": True}
        yield Case(
            f"cerberus-schema-{slug}",
            LIBRARY,
            f"schema the model wrote is invalid ({slug})",
            F,
            None,
            exc,
            "validate_json",
            args,
        )
    for slug, document in DOCUMENTS:
        exc = _catch(lambda: _check(CONTACT, document))
        yield Case(
            f"cerberus-{slug}",
            LIBRARY,
            "payload is not an object",
            F,
            None,
            exc,
            "create_contact",
            {"contact": document},
        )
    exc = _catch(lambda: _check(CONTACT, {**GOOD, "phone": "1"}, allow_unknown="yes"))
    args = {"contact": {**GOOD, "phone": "1"}, "allow_unknown": "yes"}
    yield Case(
        "cerberus-allow-unknown-string",
        LIBRARY,
        "option of the wrong type",
        F,
        None,
        exc,
        "create_contact",
        args,
    )


# records the CRM returns: each breaks CONTACT
RECORDS: dict[str, Any] = {
    "c-101": {"name": "Bo Lind", "email": "bo@example", "age": 41},
    "c-102": {"name": "Cy Park", "email": "cy@example.com", "age": "41"},
    "c-103": {"email": "dee@example.com", "tier": "platinum"},
    "c-104": {"name": "Eve Moss", "email": "eve@example.com", "address": {"zip": 2100}},
    "c-105": {"name": "Fay Ng", "email": "fay@example.com", "tags": None},
    "c-106": ["Gus Roe", "gus@example.com"],
    "c-107": {"name": "Hal Ito", "email": "hal@example.com", "signup": "2024-3-1", "extra_id": 9},
}

SCHEMA_FILES: dict[str, Any] = {
    "invoice": {"amount": {"type": "decimal_number", "required": True}},
    "order": {"sku": {"type": "string", "regex": "[A-Z]{2}(\\d+"}},
    "ticket": {"priority": {"allowed": "low,high"}},
    "lead": {"source": {"type": "string", "schema": "lead_source"}},
}


def _data_cases(ctx: Context) -> Iterator[Case]:
    pages = {
        f"/crm/contacts/{cid}": ("application/json", json.dumps(r).encode()) for cid, r in RECORDS.items()
    }
    with _serve.documents(pages) as port:
        ctx.name_port(port, "CRMPORT")
        for cid in RECORDS:
            exc = _catch(lambda: _check(CONTACT, json.loads(_serve.get(port, f"/crm/contacts/{cid}"))))
            yield Case(
                f"cerberus-crm-{cid}",
                LIBRARY,
                "record the CRM returned breaks the schema",
                A,
                None,
                exc,
                "sync_contact",
                {"contact_id": cid},
            )

    schemas = ctx.tmp / "schemas"
    schemas.mkdir()
    for name, schema in SCHEMA_FILES.items():
        (schemas / f"{name}.json").write_text(json.dumps(schema))
    samples = {
        "invoice": {"amount": 10},
        "order": {"sku": "AB12"},
        "ticket": {"priority": "low"},
        "lead": {"source": "web"},
    }
    for name, sample in samples.items():
        exc = _catch(lambda: _check(json.loads((schemas / f"{name}.json").read_text()), sample))
        args = {"schema_name": name, "document": sample}
        yield Case(
            f"cerberus-file-schema-{name}",
            LIBRARY,
            "schema file on disk is invalid",
            A,
            None,
            exc,
            "validate_record",
            args,
        )

    def by_name(name: str, document: Any) -> Any:
        return _check(json.loads((schemas / f"{name}.json").read_text()), document)

    args = {"schema_name": "customer", "document": GOOD}
    yield Case(
        "cerberus-schema-name-unknown",
        LIBRARY,
        "schema name the model made up",
        F,
        None,
        _catch(lambda: by_name("customer", GOOD)),
        "validate_record",
        args,
    )
    args = {"schema_name": "invoices", "document": {"amount": 10}}
    exc = _catch(lambda: by_name("invoices", {"amount": 10}))
    yield Case(
        "cerberus-schema-name-plural",
        LIBRARY,
        "schema name the model misspelt",
        F,
        None,
        exc,
        "validate_record",
        args,
    )


def _install_cases(ctx: Context) -> Iterator[Case]:
    args = {"contact": GOOD}
    with _pkgcopy.broken_install(ctx.tmp, ["cerberus"], drop=("cerberus/validator.py",)):
        exc = _catch(lambda: importlib.import_module("cerberus"))
    yield Case(
        "cerberus-validator-module-missing",
        LIBRARY,
        "installed module file missing (validator.py)",
        U,
        None,
        exc,
        "create_contact",
        args,
    )
    with _pkgcopy.broken_install(ctx.tmp, ["cerberus"], drop=("cerberus/schema.py",)):
        exc = _catch(lambda: importlib.import_module("cerberus"))
    yield Case(
        "cerberus-schema-module-missing",
        LIBRARY,
        "installed module file missing (schema.py)",
        U,
        None,
        exc,
        "create_contact",
        args,
    )


def cases(ctx: Context) -> Iterator[Case]:
    yield from _model_cases()
    yield from _data_cases(ctx)
    yield from _install_cases(ctx)
