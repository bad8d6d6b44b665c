"""pyairtable: the Airtable Web API's errors as the SDK raises them (``requests``'
``HTTPError`` with Airtable's error object appended to its args, ``RetryError`` when the
SDK's own 429 retries run out, ``requests``' transport failures) through
``Api(endpoint_url=...)`` pointed at a local stand-in of api.airtable.com, and the SDK's
own client-side errors (``InvalidParameterError`` for an unknown query option, the ORM
model's field checks: ``MissingValueError``, ``TypeError``, ``ValueError``,
``AttributeError`` for a read-only or unknown field; ``TypeError`` for a table name that
is not a string, ``ValueError`` for a date string it cannot parse).

Statuses and their meanings are those of Airtable's "Errors" page
(airtable.com/developers/web/api/errors: 400 invalid request encoding, 401 unauthorized,
402 payment required, 403 forbidden, 404 not found, 413 request entity too large, 422
invalid request with a ``type`` code, 429 rate limit (5 requests per second per base),
500, 502, 503); bodies are Airtable's ``{"error": {"type", "message"}}`` object (or the
bare ``{"error": "NOT_FOUND"}`` of an unknown route) with the types that page and the
"List records" reference (``LIST_RECORDS_ITERATOR_NOT_AVAILABLE``: restart the iteration)
name. Labels: a field name, value, formula or option the model wrote -> fixable; token,
scope, plan or billing -> unrecoverable; a base, table or record not found (or not
visible to the token) and a name that already exists -> ambiguous, as the other SaaS
modules label them; 429 / 503 / refused / DNS -> transient, not executed; 500 / 502 /
504 / read timeout / reset / close -> transient, unknown outcome; a record READ from
Airtable that lacks a required field -> ambiguous (the data, not the call). Retries are
off (``retry_strategy=None``) but for one case.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "pyairtable"
REQUIRES = ["pyairtable>=3,<4"]

_ERR = "Airtable Web API errors (airtable.com/developers/web/api/errors)"
_LIST = "Airtable List records (airtable.com/developers/web/api/list-records)"
_RATE = "Airtable rate limits (airtable.com/developers/web/api/rate-limits)"
_BASE = "appA1b2C3d4E5f6G7"
_REC = "recQ5x8mT3kLw2pYz"
_TOKEN = "patQ5x8mT3kLw2pYz.0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"


def _e(status: int, type_: str, message: str, source: str = _ERR, **headers: str) -> Reply:
    return Reply(status, {"error": {"type": type_, "message": message}}, headers, source)


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    (
        "unknown_field_name",
        "create",
        _e(422, "UNKNOWN_FIELD_NAME", 'Unknown field name: "Nmae"'),
        F,
        None,
        "field name misspelled in the new record",
    ),
    (
        "unknown_sort_field",
        "all",
        _e(422, "UNKNOWN_FIELD_NAME", 'Unknown field name: "Priorty"'),
        F,
        None,
        "sort field does not exist",
    ),
    (
        "invalid_value_for_column",
        "update",
        _e(422, "INVALID_VALUE_FOR_COLUMN", 'Field "Due" cannot accept the provided value'),
        F,
        None,
        "value of the wrong type for the field",
    ),
    (
        "computed_field",
        "update",
        _e(
            422,
            "INVALID_VALUE_FOR_COLUMN",
            'Field "Created" cannot accept a value because the field is computed',
        ),
        F,
        None,
        "write to a computed field",
    ),
    (
        "invalid_multiple_choice_options",
        "create",
        _e(
            422,
            "INVALID_MULTIPLE_CHOICE_OPTIONS",
            'Insufficient permissions to create new select option ""Shipped""',
        ),
        F,
        None,
        "select option not among the field's choices",
    ),
    (
        "invalid_filter_by_formula",
        "all",
        _e(
            422,
            "INVALID_FILTER_BY_FORMULA",
            "The formula for filtering records is invalid: Unknown field names: stauts",
        ),
        F,
        None,
        "filter formula names an unknown field",
    ),
    (
        "invalid_request_unknown",
        "update",
        _e(
            422,
            "INVALID_REQUEST_UNKNOWN",
            "Invalid request: parameter validation failed. Check your request data.",
        ),
        F,
        None,
        "request parameters failed validation",
    ),
    (
        "invalid_records",
        "batch_create",
        _e(
            422,
            "INVALID_RECORDS",
            'You must provide an array of up to 10 record objects, each with an "id" field and a "fields" object for cell values.',
        ),
        F,
        None,
        "records array malformed",
    ),
    (
        "invalid_request_body",
        "create",
        _e(400, "INVALID_REQUEST_BODY", "Could not parse request body"),
        F,
        None,
        "request body not valid JSON",
    ),
    (
        "request_too_large",
        "batch_create",
        _e(413, "REQUEST_TOO_LARGE", "Request body is too large"),
        F,
        None,
        "payload over the size limit",
    ),
    # credentials, scopes, plan
    (
        "authentication_required",
        "all",
        _e(401, "AUTHENTICATION_REQUIRED", "Authentication required"),
        U,
        None,
        "token missing or invalid",
    ),
    (
        "invalid_permissions",
        "delete",
        _e(
            403,
            "INVALID_PERMISSIONS",
            "You are not permitted to perform this operation because the field or table has been configured to limit who can perform this operation",
        ),
        U,
        None,
        "token's user may not edit this table",
    ),
    (
        "billing_limit",
        "create",
        _e(
            402,
            "PUBLIC_API_BILLING_LIMIT_EXCEEDED",
            "You have exceeded your monthly API call limit. Please upgrade your plan to continue making API calls.",
        ),
        U,
        None,
        "workspace's monthly API call limit spent",
    ),
    (
        "not_authorized_schema",
        "create_table",
        _e(403, "NOT_AUTHORIZED", "You are not authorized to perform this operation"),
        U,
        None,
        "token lacks the schema write scope",
    ),
    # not found, already there
    (
        "model_not_found",
        "all",
        _e(
            403,
            "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND",
            "Invalid permissions, or the requested model was not found. Check that both your user and your token have the required permissions, and that the model names and/or ids are correct.",
        ),
        A,
        None,
        "base not found or not shared with the token",
    ),
    (
        "table_not_found",
        "all",
        _e(404, "TABLE_NOT_FOUND", f"Could not find table Taks in application {_BASE}"),
        A,
        None,
        "table not found",
    ),
    (
        "record_not_found",
        "get",
        Reply(404, {"error": "NOT_FOUND"}, {}, _ERR),
        A,
        None,
        "record not found",
    ),
    (
        "row_does_not_exist",
        "update",
        _e(422, "ROW_DOES_NOT_EXIST", f"Record ID {_REC} does not exist in this table"),
        A,
        None,
        "record to update does not exist",
    ),
    (
        "duplicate_table_name",
        "create_table",
        _e(422, "DUPLICATE_TABLE_NAME", 'A table named "Tasks" already exists in this base'),
        A,
        None,
        "table name already exists",
    ),
    # load, outages
    (
        "iterator_not_available",
        "all",
        _e(422, "LIST_RECORDS_ITERATOR_NOT_AVAILABLE", "LIST_RECORDS_ITERATOR_NOT_AVAILABLE", _LIST),
        T,
        NE,
        "list iteration expired: restart it",
    ),
    (
        "rate_limit_reached",
        "all",
        _e(
            429,
            "RATE_LIMIT_REACHED",
            "Rate limit exceeded. Please try again later",
            _RATE,
            **{"Retry-After": "30"},
        ),
        T,
        NE,
        "rate limited",
    ),
    (
        "service_unavailable",
        "create",
        Reply(
            503,
            "<html><body><h1>503 Service Unavailable</h1>No server is available to handle this request.</body></html>",
            {},
            _ERR,
        ),
        T,
        NE,
        "service unavailable",
    ),
    (
        "server_error",
        "create",
        _e(500, "SERVER_ERROR", "Server error"),
        T,
        UO,
        "internal server error",
    ),
    (
        "bad_gateway",
        "update",
        Reply(
            502,
            "<html><head><title>502 Bad Gateway</title></head><body>502 Bad Gateway</body></html>",
            {},
            _ERR,
        ),
        T,
        UO,
        "servers restarting (502)",
    ),
    (
        "gateway_timeout",
        "all",
        Reply(
            504,
            "<html><head><title>504 Gateway Time-out</title></head><body>504 Gateway Time-out</body></html>",
            {},
            "a load balancer's page",
        ),
        T,
        UO,
        "gateway timeout",
    ),
]


_TABLE_SCHEMA = {
    "id": "tblQ5x8mT3kLw2pYz",
    "name": "Tasks",
    "primaryFieldId": "fldQ5x8mT3kLw2pY1",
    "description": None,
    "fields": [
        {"id": "fldQ5x8mT3kLw2pY1", "name": "Name", "type": "singleLineText", "description": None},
        {
            "id": "fldQ5x8mT3kLw2pY2",
            "name": "Due",
            "type": "date",
            "options": {"dateFormat": {"name": "iso", "format": "YYYY-MM-DD"}},
        },
    ],
    "views": [{"id": "viwQ5x8mT3kLw2pYz", "name": "Grid view", "type": "grid"}],
}


_WHERE = {"base_id": _BASE, "table": "Tasks"}


def _calls(api: Any) -> dict[str, tuple[str, dict[str, Any], Any]]:
    """call -> (tool, the model's arguments, the call); the token and endpoint are the tool's."""
    table = api.table(_BASE, "Tasks")
    new = {"Name": "Ship v2", "Status": "Todo"}
    records = [{"Name": "Ship v2"}, {"Name": "Write notes"}]
    due = {"Due": "2026-12-24"}
    formula, sort = "{Status}='Todo'", ["Priority"]
    columns = [{"name": "Name", "type": "singleLineText"}]
    return {
        "create": ("create_record", {**_WHERE, "fields": new}, lambda: table.create(new)),
        "batch_create": (
            "create_records",
            {**_WHERE, "records": records},
            lambda: table.batch_create(records),
        ),
        "update": (
            "update_record",
            {**_WHERE, "record_id": _REC, "fields": due},
            lambda: table.update(_REC, due),
        ),
        "delete": ("delete_record", {**_WHERE, "record_id": _REC}, lambda: table.delete(_REC)),
        "get": ("get_record", {**_WHERE, "record_id": _REC}, lambda: table.get(_REC)),
        "all": (
            "list_records",
            {**_WHERE, "formula": formula, "sort": sort},
            lambda: table.all(formula=formula, sort=sort),
        ),
        "create_table": (
            "create_table",
            {"base_id": _BASE, "name": "Tasks", "fields": columns},
            lambda: api.base(_BASE, validate=False).create_table("Tasks", columns),
        ),
    }


def cases(ctx: Any) -> Iterator[generate.Case]:
    from pyairtable import Api, retry_strategy
    from pyairtable.orm import Model
    from pyairtable.orm import fields as orm
    from pyairtable.utils import date_from_iso_str, datetime_from_iso_str

    def api(base: str, retry: Any = None) -> Any:
        return Api(_TOKEN, endpoint_url=base, retry_strategy=retry, timeout=(_saas.TIMEOUT, _saas.TIMEOUT))

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"pyairtable-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "AIRTABLEPORT", "envoy") as svc:
        calls = _calls(api(svc.base))
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            tool, args, fn = _calls(api(base))["create"]
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)
        # the SDK's own retry of a 429 (urllib3 Retry), until it gives up
        svc.reply(_e(429, "RATE_LIMIT_REACHED", "Rate limit exceeded. Please try again later", _RATE))
        retrying = api(svc.base, retry_strategy(total=1, backoff_factor=0, respect_retry_after_header=False))
        tool, args, fn = _calls(retrying)["all"]
        cause = "rate limited (after the SDK's retries)"
        yield case("rate_limit-retried", cause, T, NE, _saas.catch(fn), tool, args)
        # the ORM over the same stand-in: a record read back without a required field
        svc.reply(Reply(200, {"id": _REC, "createdTime": "2026-12-01T00:00:00.000Z", "fields": {}}))

        class Task(Model):
            name = orm.RequiredTextField("Name")
            rating = orm.RatingField("Rating")
            count = orm.IntegerField("Count")
            created = orm.CreatedTimeField("Created")

            class Meta:
                api_key = _TOKEN
                base_id = _BASE
                table_name = "Tasks"
                retry = None

        table = api(svc.base).table(_BASE, "Tasks")
        yield case(
            "orm-required-empty-read",
            "record read from the table lacks a required field",
            A,
            None,
            _saas.catch(lambda: Task.from_record(table.get(_REC)).name),
            "get_task",
            {"record_id": _REC},
        )

        # lookups the SDK does in what the stand-in listed: a webhook id, a field name
        svc.reply(Reply(200, {"webhooks": []}))
        base = api(svc.base).base(_BASE, validate=False)
        yield case(
            "webhook-missing",
            "webhook id not among the base's webhooks",
            A,
            None,
            _saas.catch(lambda: base.webhook("achQ5x8mT3kLw2pYz")),
            "delete_webhook",
            {"base_id": _BASE, "webhook_id": "achQ5x8mT3kLw2pYz"},
        )
        svc.reply(Reply(200, {"tables": [_TABLE_SCHEMA]}))
        table = api(svc.base).table(_BASE, "Tasks")
        yield case(
            "schema-field-missing",
            "field name not in the table's schema",
            F,
            None,
            _saas.catch(lambda: table.schema().field("Nmae")),
            "describe_field",
            {**_WHERE, "field": "Nmae"},
        )

    # the SDK's own checks of the model's arguments (no request sent)
    table = api(_saas.dead_base(ctx)).table(_BASE, "Tasks")
    # (key, cause, call, kind, tool, the model's arguments)
    local: list[tuple[str, str, Any, str, str, dict[str, Any]]] = [
        ("invalid-option", "unknown query option (maxRecord)", lambda: table.all(maxRecord=3), F, "list_records", {**_WHERE, "maxRecord": 3}),
        ("sort-not-list", "sort given as a number", lambda: table.all(sort=5), F, "list_records", {**_WHERE, "sort": 5}),
        ("table-name-int", "table name not a string", lambda: api(_saas.dead_base(ctx)).table(_BASE, 5), F, "list_records", {"base_id": _BASE, "table": 5}),
        ("datetime-parse", "due date not ISO 8601", lambda: datetime_from_iso_str("next friday"), F, "create_record", {**_WHERE, "fields": {"Due": "next friday"}}),
        ("date-parse", "date out of range", lambda: date_from_iso_str("2026-13-40"), F, "create_record", {**_WHERE, "fields": {"Due": "2026-13-40"}}),
        ("orm-required-empty", "required field given empty", lambda: Task(name=""), F, "create_task", {"name": ""}),
        ("orm-rating-zero", "rating below 1", lambda: Task(name="x", rating=0), F, "create_task", {"name": "x", "rating": 0}),
        ("orm-int-type", "count given as text", lambda: Task(name="x", count="three"), F, "create_task", {"name": "x", "count": "three"}),
        ("orm-readonly", "write to a created-time field", lambda: setattr(Task(name="x"), "created", "2026-12-01"), F, "update_task", {"name": "x", "created": "2026-12-01"}),
        ("orm-unknown-field", "unknown field on the model", lambda: Task(nmae="x"), F, "create_task", {"nmae": "x"}),
        ("orm-delete-unsaved", "delete of a record never saved", lambda: Task(name="x").delete(), F, "delete_task", {"name": "x"}),
    ]  # fmt: skip
    for key, cause, fn, kind, tool, args in local:
        yield case(key, cause, kind, None, _saas.catch(fn), tool, args)
