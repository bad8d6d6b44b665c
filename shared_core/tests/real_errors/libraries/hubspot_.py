"""hubspot: the official Python SDK (``hubspot.HubSpot``, OpenAPI-generated clients per API)
behind a CRM tool, with the client's ``host`` pointed at a local stand-in of api.hubapi.com:
each API's ``ApiException`` (and its ``NotFoundException`` / ``UnauthorizedException`` /
``ForbiddenException`` / ``ServiceException`` subclasses) carrying HubSpot's status, reason,
headers and error body, ``urllib3``'s ``MaxRetryError`` when the connection fails or the
SDK's retry policy (``retry=Retry(...)``) runs out, the generated methods' ``ApiTypeError``
for an unknown keyword, the models' ``ValueError`` when the tool turns client-side
validation on, and the ``ValueError`` / ``ApiException(0)`` its deserialiser raises on a
reply it cannot read.

Bodies follow HubSpot's "Error handling" page (developers.hubspot.com/docs/api-reference/
error-handling: ``{"status": "error", "message", "correlationId", "category", "errors":
[{"message", "in", "code", "context"}]}``; 401 invalid authentication, 403 missing
scopes, 414 request URI too long, 423 Locked with ``Retry-After`` (syncing a large volume
of data), 477 Migration in Progress with ``Retry-After``, 502/504 timeouts (processing
limits: back off and retry), 503 service temporarily unavailable), its "API usage
guidelines and limits" page (developers.hubspot.com/docs/guides/apps/api-usage/usage-
details: 429 ``{"status": "error", "message": "You have reached your daily limit.",
"errorType": "RATE_LIMIT", "correlationId", "policyName": "DAILY", "requestId"}``, the
``TEN_SECONDLY_ROLLING`` policy, the ``X-HubSpot-RateLimit-*`` headers) and the CRM
objects' property validation errors (``VALIDATION_ERROR`` with ``PROPERTY_DOESNT_EXIST``,
``INVALID_EMAIL``, ``INVALID_OPTION``, ``INVALID_DATE``, ``READ_ONLY_VALUE``; 409
``CONFLICT`` "Contact already exists. Existing ID: ..."; 404 ``OBJECT_NOT_FOUND``). The
error page gives the statuses and headers of 414, 423, 477, 502/504 and 503 but no body:
those replies carry the common error structure with the status's own description as the
message (414 with no body).
Labels, by the cause set up:

- fixable: a property name, email, enumeration option (lifecycle stage, deal stage), date
  or read-only property the model wrote, a search filter operator outside the enum, an
  association category outside the enum (the tool validates the models it builds), an
  option name the method does not take, a property list too long for the URL (414);
- unrecoverable: a token not found / expired, a token without the scope, the DAILY rate
  limit used up (it resets at midnight);
- ambiguous: a contact, deal or association target not found (a typo or deleted), a
  contact whose email already exists (409 CONFLICT), property values that the tool READ
  from a file the model named, a 500 with only its correlation id, replies the SDK cannot
  read (a total that is not a number, a date it cannot parse);
- transient: the TEN_SECONDLY_ROLLING limit (429), 423 Locked, 477 migration in progress,
  503, refused, DNS (not executed); 502 / 504 timeouts, read timeout, reset, close (unknown
  outcome). ``-retried`` cases keep a retry policy on 429/5xx (one retry, no back-off).

Not triggered: 207 multi-status batch replies (a partial success, no exception), the
Cloudflare 52x pages (whether the request reached HubSpot is not said), OAuth token
refresh (the SDK leaves it to the caller).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "hubspot-api-client"
REQUIRES = ["hubspot-api-client==12.0.0"]

_ERR = "HubSpot error handling (developers.hubspot.com/docs/api-reference/error-handling)"
_LIMITS = "HubSpot API usage guidelines and limits (developers.hubspot.com/docs/guides/apps/api-usage/usage-details)"
_TOKEN = "pat-na1-5f3c1a8e-0b7d-4e2c-9a6b-5d4c3b2a1908"
_PORTAL = 4412345
_CONTACT = "51234"
_DEAL = "9812001"
_COMPANY = "18455521"


def _cid(n: int) -> str:
    return f"3d3e35b7-0dae-4b9f-a6e3-9c230cbcf8{n:02d}"


def _e(status: int, category: str, message: str, n: int, source: str = _ERR, **extra: Any) -> Reply:
    body = {"status": "error", "message": message, "correlationId": _cid(n), "category": category, **extra}
    return Reply(status, body, {}, source)


def _invalid(name: str, error: str, message: str, n: int) -> Reply:
    """A CRM objects' property validation error (400 VALIDATION_ERROR)."""
    detail = [
        {
            "isValid": False,
            "message": message,
            "error": error,
            "name": name,
            "localizedErrorMessage": message,
            "portalId": _PORTAL,
        }
    ]
    return _e(
        400,
        "VALIDATION_ERROR",
        f"Property values were not valid: {json.dumps(detail, separators=(',', ':'))}",
        n,
    )


def _limit(policy: str, message: str, n: int, **headers: str) -> Reply:
    body = {
        "status": "error",
        "message": message,
        "errorType": "RATE_LIMIT",
        "correlationId": _cid(n),
        "policyName": policy,
        "requestId": f"9c1f7e2a-44b0-4d7e-8f3e-1a2b3c4d5e{n:02d}",
    }
    return Reply(429, body, headers, _LIMITS)


_SCOPES = _e(
    403,
    "MISSING_SCOPES",
    "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.",
    20,
    errors=[
        {
            "message": "One or more of the following scopes are required.",
            "context": {"requiredGranularScopes": ["crm.objects.contacts.write"]},
        }
    ],
    links={"scopes": "https://developers.hubspot.com/scopes"},
)
_TEN = _limit(
    "TEN_SECONDLY_ROLLING",
    "You have reached your ten_secondly_rolling limit.",
    40,
    **{
        "X-HubSpot-RateLimit-Interval-Milliseconds": "10000",
        "X-HubSpot-RateLimit-Max": "100",
        "X-HubSpot-RateLimit-Remaining": "0",
    },
)
_DAILY = _limit(
    "DAILY",
    "You have reached your daily limit.",
    21,
    **{"X-HubSpot-RateLimit-Daily": "250000", "X-HubSpot-RateLimit-Daily-Remaining": "0"},
)
_OPTIONS = 'prospect was not one of the allowed options: [label: "Subscriber"\nvalue: "subscriber"\n, label: "Lead"\nvalue: "lead"\n, label: "Marketing Qualified Lead"\nvalue: "marketingqualifiedlead"\n, label: "Sales Qualified Lead"\nvalue: "salesqualifiedlead"\n, label: "Opportunity"\nvalue: "opportunity"\n, label: "Customer"\nvalue: "customer"\n, label: "Evangelist"\nvalue: "evangelist"\n, label: "Other"\nvalue: "other"\n]'  # fmt: skip
_STAGES = 'closedwin was not one of the allowed options: [label: "Appointment Scheduled"\nvalue: "appointmentscheduled"\n, label: "Qualified To Buy"\nvalue: "qualifiedtobuy"\n, label: "Presentation Scheduled"\nvalue: "presentationscheduled"\n, label: "Decision Maker Bought-In"\nvalue: "decisionmakerboughtin"\n, label: "Contract Sent"\nvalue: "contractsent"\n, label: "Closed Won"\nvalue: "closedwon"\n, label: "Closed Lost"\nvalue: "closedlost"\n]'  # fmt: skip

# The tools' declared parameters (one schema per tool, as its author wrote it).
_STR = {"type": "string"}
_PROPS = {"type": "object", "description": 'Property names and values, e.g. {"email": ..., "firstname": ...}'}
PARAMETERS: dict[str, dict[str, Any]] = {
    "create_contact": {
        "type": "object",
        "properties": {"properties": _PROPS},
        "required": ["properties"],
    },
    "update_contact": {
        "type": "object",
        "properties": {"contact_id": {**_STR, "description": "HubSpot contact id"}, "properties": _PROPS},
        "required": ["contact_id", "properties"],
    },
    "get_contact": {
        "type": "object",
        "properties": {
            "contact_id": {**_STR, "description": "HubSpot contact id"},
            "properties": {"type": "array", "items": _STR, "description": "Properties to return"},
            "options": {"type": "object", "description": "Extra options of the contacts API, e.g. {\"archived\": true}"},
        },
        "required": ["contact_id"],
    },
    "delete_contact": {
        "type": "object",
        "properties": {"contact_id": {**_STR, "description": "HubSpot contact id"}},
        "required": ["contact_id"],
    },
    "search_contacts": {
        "type": "object",
        "properties": {
            "filters": {
                "type": "array",
                "items": {"type": "object"},
                "description": "Filters, each {\"propertyName\", \"operator\", \"value\"}",
            },
            "limit": {"type": "integer", "description": "Maximum number of results"},
        },
        "required": ["filters"],
    },
    "import_contacts_file": {
        "type": "object",
        "properties": {"path": {**_STR, "description": "Path of a JSON file with a list of contacts' properties"}},
        "required": ["path"],
    },
    "create_deal": {
        "type": "object",
        "properties": {"properties": {"type": "object", "description": "Deal properties, e.g. dealname, amount, dealstage"}},
        "required": ["properties"],
    },
    "update_deal": {
        "type": "object",
        "properties": {"deal_id": {**_STR, "description": "HubSpot deal id"}, "properties": {"type": "object", "description": "Deal properties to change"}},
        "required": ["deal_id", "properties"],
    },
    "associate_records": {
        "type": "object",
        "properties": {
            "from_type": {**_STR, "description": "Object type, e.g. deals"},
            "from_id": {**_STR, "description": "Record id"},
            "to_type": {**_STR, "description": "Object type, e.g. companies"},
            "to_id": {**_STR, "description": "Record id"},
            "category": {**_STR, "description": "Association category"},
            "type_id": {"type": "integer", "description": "Association type id"},
        },
        "required": ["from_type", "from_id", "to_type", "to_id"],
    },
}  # fmt: skip

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    ("property-doesnt-exist", "create_contact_prop", _invalid("favourite_colour", "PROPERTY_DOESNT_EXIST", 'Property "favourite_colour" does not exist', 1), F, None, "contact property name that does not exist"),
    ("invalid-email", "create_contact_email", _invalid("email", "INVALID_EMAIL", "Email address jdoe@ is invalid", 2), F, None, "email value invalid"),
    ("invalid-option", "update_contact_stage", _invalid("lifecyclestage", "INVALID_OPTION", _OPTIONS, 3), F, None, "lifecycle stage not one of the options"),
    ("invalid-deal-stage", "create_deal_stage", _invalid("dealstage", "INVALID_OPTION", _STAGES, 4), F, None, "deal stage not one of the pipeline's stages"),
    ("invalid-date", "update_deal_date", _invalid("closedate", "INVALID_DATE", "1798131600000 is at 17:0:0.0 UTC, not midnight!", 5), F, None, "date property not at midnight UTC"),
    ("read-only-value", "update_contact_readonly", _invalid("hs_object_id", "READ_ONLY_VALUE", "hs_object_id is a read only property; its value cannot be set.", 6), F, None, "read-only property written"),
    ("invalid-integer", "update_contact_revenue", _invalid("annualrevenue", "INVALID_INTEGER", "about 2M was not a valid number.", 7), F, None, "number property given text"),
    ("invalid-pipeline", "create_deal_pipeline", _invalid("pipeline", "INVALID_OPTION", 'sales was not one of the allowed options: [label: "Sales Pipeline"\nvalue: "default"\n]', 8), F, None, "deal pipeline not one of the account's pipelines"),
    ("uri-too-long", "get_contact_many", Reply(414, "", {}, f"{_ERR}: 414 the request URI is too long"), F, None, "too many properties asked for: URL too long"),
    # credentials, scopes, daily limit
    ("invalid-authentication", "get_contact", _e(401, "INVALID_AUTHENTICATION", "Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview", 10), U, None, "token not found or revoked"),
    ("expired-authentication", "search", _e(401, "EXPIRED_AUTHENTICATION", "The OAuth token used to make this call expired 2 hour(s) ago.", 11), U, None, "OAuth token expired"),
    ("missing-scopes", "create_contact", _SCOPES, U, None, "token lacks the crm.objects.contacts.write scope"),
    ("missing-scopes-deals", "update_deal_ok", _e(403, "MISSING_SCOPES", "This app hasn't been granted all required scopes to make this call. Read more about required scopes here: https://developers.hubspot.com/scopes.", 23, errors=[{"message": "One or more of the following scopes are required.", "context": {"requiredGranularScopes": ["crm.objects.deals.write"]}}], links={"scopes": "https://developers.hubspot.com/scopes"}), U, None, "token lacks the crm.objects.deals.write scope"),
    ("daily-limit", "search", _DAILY, U, None, "daily API limit used up"),
    ("daily-limit-write", "create_deal", _limit("DAILY", "You have reached your daily limit.", 22, **{"X-HubSpot-RateLimit-Daily": "250000", "X-HubSpot-RateLimit-Daily-Remaining": "0"}), U, None, "daily API limit used up"),
    # not found, already there, the server's state
    ("contact-not-found", "get_contact", _e(404, "OBJECT_NOT_FOUND", "resource not found", 30), A, None, "contact not found"),
    ("update-not-found", "update_contact_ok", _e(404, "OBJECT_NOT_FOUND", "resource not found", 31), A, None, "contact to update not found"),
    ("delete-not-found", "delete_contact", _e(404, "OBJECT_NOT_FOUND", "resource not found", 32), A, None, "contact to delete not found"),
    ("association-target-not-found", "associate", _e(404, "OBJECT_NOT_FOUND", f"No company found with id {_COMPANY}", 33), A, None, "association target not found"),
    ("deal-not-found", "update_deal_ok", _e(404, "OBJECT_NOT_FOUND", "resource not found", 38), A, None, "deal to update not found"),
    ("contact-exists", "create_contact", _e(409, "CONFLICT", "Contact already exists. Existing ID: 51", 34), A, None, "a contact with the email already exists"),
    ("file-invalid-email", "import_file", _invalid("email", "INVALID_EMAIL", "Email address maria.garcia@example is invalid", 35), A, None, "contact read from the file has an invalid email"),
    ("file-unknown-property", "import_file", _invalid("linkedin_url", "PROPERTY_DOESNT_EXIST", 'Property "linkedin_url" does not exist', 36), A, None, "contact read from the file has an unknown property"),
    ("internal-error", "create_deal", _e(500, "INTERNAL_ERROR", "internal error", 37), A, None, "server error with only its correlation id"),
    # load, outages
    ("ten-secondly-limit", "search", _TEN, T, NE, "ten-secondly rolling limit hit"),
    ("locked", "import_file_ok", Reply(423, {"status": "error", "message": "Locked", "correlationId": _cid(41), "category": "LOCKED"}, {"Retry-After": "2"}, f"{_ERR}: 423 Locked, syncing a large volume of data, Retry-After"), T, NE, "records locked while a large sync runs"),
    ("migration-in-progress", "get_contact", Reply(477, {"status": "error", "message": "Migration in Progress", "correlationId": _cid(42), "category": "MIGRATION_IN_PROGRESS"}, {"Retry-After": "600"}, f"{_ERR}: 477 Migration in Progress, Retry-After"), T, NE, "account being migrated between data hosting locations"),
    ("service-unavailable", "create_contact", _e(503, "SERVICE_UNAVAILABLE", "Service temporarily unavailable", 43), T, NE, "service temporarily unavailable"),
    ("gateway-timeout", "create_deal", _e(504, "TIMEOUT", "The request timed out. Processing limits have been met.", 45), T, UO, "processing limits met (504)"),
]  # fmt: skip

# a retry policy on 429 / 5xx: one retry, no back-off
_RETRIED: list[tuple[str, str, Reply, str, str | None, str]] = [
    ("ten-secondly-limit-retried", "search", _TEN, T, NE, "ten-secondly rolling limit hit (after the retry)"),
    ("gateway-timeout-retried", "create_deal", _e(504, "TIMEOUT", "The request timed out. Processing limits have been met.", 46), T, UO, "processing limits met (after the retry)"),
]  # fmt: skip

# replies the SDK cannot read: (key, call, reply, cause)
_CREATED = "2026-12-01T00:00:00.000Z"
_BAD_DATA: list[tuple[str, str, Reply, str]] = [
    ("search-total-text", "search", Reply(200, {"total": "many", "results": []}), "search reply with a total that is not a number"),
    ("contact-bad-date", "get_contact", Reply(200, {"id": _CONTACT, "properties": {"email": "ana@example.com"}, "createdAt": "yesterday", "updatedAt": _CREATED, "archived": False}), "contact read back with a date the SDK cannot parse"),
]  # fmt: skip


def _calls(hs: Any, strict: Any, files: Path) -> dict[str, tuple[str, dict[str, Any], Any]]:
    """call -> (tool, the model's arguments, the call); the token and host are the tool's.
    ``strict``: the tool's Configuration with client-side validation on, for its models."""
    from hubspot.crm.associations.v4 import AssociationSpec
    from hubspot.crm.contacts import BatchInputSimplePublicObjectBatchInputForCreate as BatchCreate
    from hubspot.crm.contacts import (
        Filter,
        FilterGroup,
        PublicObjectSearchRequest,
        SimplePublicObjectInput,
        SimplePublicObjectInputForCreate,
    )
    from hubspot.crm.deals import SimplePublicObjectInput as DealInput
    from hubspot.crm.deals import SimplePublicObjectInputForCreate as DealCreate

    kw = {"_request_timeout": (_saas.TIMEOUT, _saas.TIMEOUT)}
    contacts, deals = hs.crm.contacts, hs.crm.deals

    def create_contact(props: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        body = SimplePublicObjectInputForCreate(properties=props)
        return ("create_contact", {"properties": props}, lambda: contacts.basic_api.create(body, **kw))

    def update_contact(props: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        body = SimplePublicObjectInput(properties=props)
        return (
            "update_contact",
            {"contact_id": _CONTACT, "properties": props},
            lambda: contacts.basic_api.update(_CONTACT, body, **kw),
        )

    def create_deal(props: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        return (
            "create_deal",
            {"properties": props},
            lambda: deals.basic_api.create(DealCreate(properties=props), **kw),
        )

    def update_deal(props: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        return (
            "update_deal",
            {"deal_id": _DEAL, "properties": props},
            lambda: deals.basic_api.update(_DEAL, DealInput(properties=props), **kw),
        )

    def search(filters: list[dict[str, Any]]) -> tuple[str, dict[str, Any], Any]:
        def run() -> Any:
            built = [
                Filter(
                    property_name=f.get("propertyName"),
                    operator=f["operator"],
                    value=f.get("value"),
                    local_vars_configuration=strict,
                )
                for f in filters
            ]
            request = PublicObjectSearchRequest(filter_groups=[FilterGroup(filters=built)], limit=20)
            return contacts.search_api.do_search(request, **kw)

        return ("search_contacts", {"filters": filters, "limit": 20}, run)

    def associate(category: str) -> tuple[str, dict[str, Any], Any]:
        def run() -> Any:
            spec = AssociationSpec(
                association_category=category, association_type_id=5, local_vars_configuration=strict
            )
            return hs.crm.associations.v4.basic_api.create(
                "deals", _DEAL, "companies", _COMPANY, [spec], **kw
            )

        args = {"from_type": "deals", "from_id": _DEAL, "to_type": "companies", "to_id": _COMPANY, "category": category, "type_id": 5}  # fmt: skip
        return ("associate_records", args, run)

    def import_file(name: str) -> tuple[str, dict[str, Any], Any]:
        def run() -> Any:
            rows = json.loads((files / name).read_text(encoding="utf-8"))
            batch = BatchCreate(inputs=[SimplePublicObjectInputForCreate(properties=r) for r in rows])
            return contacts.batch_api.create(batch, **kw)

        return ("import_contacts_file", {"path": name}, run)

    def get_contact(
        props: list[str] | None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any], Any]:
        args: dict[str, Any] = {"contact_id": _CONTACT}
        if props is not None:
            args["properties"] = props
        if options is not None:
            args["options"] = options
        extra = {**({"properties": props} if props is not None else {}), **(options or {})}
        return ("get_contact", args, lambda: contacts.basic_api.get_by_id(_CONTACT, **extra, **kw))

    ana = {"email": "ana.lopez@example.com", "firstname": "Ana", "lastname": "Lopez"}
    deal = {
        "dealname": "Acme renewal 2027",
        "amount": "12000",
        "dealstage": "contractsent",
        "pipeline": "default",
    }
    many = [f"custom_field_{i:03d}" for i in range(400)]
    return {
        "create_contact": create_contact(ana),
        "create_contact_prop": create_contact({**ana, "favourite_colour": "teal"}),
        "create_contact_email": create_contact({**ana, "email": "jdoe@"}),
        "update_contact_ok": update_contact({"phone": "+34 600 123 456"}),
        "update_contact_stage": update_contact({"lifecyclestage": "prospect"}),
        "update_contact_revenue": update_contact({"annualrevenue": "about 2M"}),
        "update_contact_readonly": update_contact({"hs_object_id": "777"}),
        "get_contact": get_contact(["email", "firstname"]),
        "get_contact_many": get_contact(many),
        "get_contact_opt": get_contact(["email"], {"include_archived": True}),
        "delete_contact": ("delete_contact", {"contact_id": _CONTACT}, lambda: contacts.basic_api.archive(_CONTACT, **kw)),
        "search": search([{"propertyName": "email", "operator": "EQ", "value": "ana.lopez@example.com"}]),
        "search_noprop": search([{"operator": "EQ", "value": "ana.lopez@example.com"}]),
        "search_op": search([{"propertyName": "createdate", "operator": "GREATER_THAN", "value": "2026-01-01"}]),
        "create_deal": create_deal(deal),
        "create_deal_stage": create_deal({**deal, "dealstage": "closedwin"}),
        "create_deal_pipeline": create_deal({**deal, "pipeline": "sales"}),
        "update_deal_ok": update_deal({"amount": "15000"}),
        "update_deal_date": update_deal({"closedate": "1798131600000"}),
        "associate": associate("HUBSPOT_DEFINED"),
        "associate_category": associate("USER"),
        "import_file": import_file("new_contacts.json"),
        "import_file_ok": import_file("new_contacts.json"),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    from hubspot import HubSpot
    from hubspot.crm.contacts import Configuration
    from urllib3.util.retry import Retry

    files = ctx.tmp / "hubspot"
    files.mkdir(exist_ok=True)
    rows = [
        {"email": "maria.garcia@example", "firstname": "María", "lastname": "García"},
        {"email": "li.wei@example.com", "firstname": "Li", "lastname": "Wei", "linkedin_url": "https://linkedin.com/in/liwei"},
    ]  # fmt: skip
    (files / "new_contacts.json").write_text(json.dumps(rows), encoding="utf-8")
    strict = Configuration()
    strict.client_side_validation = True

    def client(base: str, retry: Any = None) -> Any:
        return HubSpot(
            access_token=_TOKEN,
            host=base,
            retry=retry if retry is not None else Retry(total=0, raise_on_status=False),
        )

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(
            f"hubspot-{cid}",
            LIBRARY,
            cause,
            kind,
            outcome,
            exc,
            tool,
            arguments=args,
            parameters=PARAMETERS[tool],
        )

    retrying = Retry(total=1, backoff_factor=0, status_forcelist=[429, 500, 502, 503, 504], allowed_methods=None, respect_retry_after_header=False)  # fmt: skip
    transport = {key: cause for key, _, _, cause in _saas.TRANSPORT}
    with _saas.service(ctx, "HUBSPOTPORT", "cloudflare") as svc:
        calls = _calls(client(svc.base), strict, files)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)
        again = _calls(client(svc.base, retrying), strict, files)
        for key, call, reply, kind, outcome, cause in _RETRIED:
            tool, args, fn = again[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)
        for key, call, reply, cause in _BAD_DATA:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, A, None, _saas.caught(key, fn), tool, args)
        for behaviour, call in ((_saas.HANG, "search"), (_saas.RESET, "update_contact_ok"), (_saas.CLOSE, "get_contact")):  # fmt: skip
            tool, args, fn = calls[call]
            svc.reply(behaviour)
            yield case(
                f"{behaviour}-{tool}", transport[behaviour], T, UO, _saas.caught(behaviour, fn), tool, args
            )
        # the tool's own checks of the models it builds, and an option the method does not take
        local = [
            ("filter-operator", "search_op", "search filter operator not one of the enum values"),
            ("association-category", "associate_category", "association category not one of the enum values"),
            ("unknown-option", "get_contact_opt", "option the contacts API does not take"),
            ("filter-no-property", "search_noprop", "search filter without a property name"),
        ]
        for key, call, cause in local:
            tool, args, fn = calls[call]
            yield case(key, cause, F, None, _saas.caught(key, fn), tool, args)
        # a tool whose client validates the model's values before sending
        hs = HubSpot(access_token=_TOKEN, host=svc.base, retry=Retry(total=0), client_side_validation=True)
        from hubspot.crm.contacts import SimplePublicObjectInputForCreate

        checked = [
            ("missing-contact-id", "contact id left null", "get_contact", {"contact_id": None},
             lambda: hs.crm.contacts.basic_api.get_by_id(None)),
            ("properties-null", "contact created with properties null", "create_contact", {"properties": None},
             lambda: hs.crm.contacts.basic_api.create(SimplePublicObjectInputForCreate(properties=None, local_vars_configuration=strict))),
        ]  # fmt: skip
        for key, cause, tool, args, fn in checked:
            yield case(key, cause, F, None, _saas.caught(key, fn), tool, args)
    for key, base in (("refused", _saas.dead_base(ctx)), ("dns", "http://api.unreachable-host.invalid")):
        tool, args, fn = _calls(client(base), strict, files)["get_contact"]
        yield case(key, transport[key], T, NE, _saas.caught(key, fn), tool, args)
