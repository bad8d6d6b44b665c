"""simple-salesforce behind a CRM tool, with a session id and instance URL (``Salesforce(
instance_url=..., session_id=...)``) of a local stand-in of a Salesforce org's REST API.
The SDK writes ``https://<instance>/services/data/v<version>/...`` itself, so the stand-in
serves TLS on 127.0.0.1 with a certificate made for the run (a ``requests`` session that
trusts it, with a 1 s timeout on every request, is passed to the SDK).

The stand-in answers the REST API's documented errors: the JSON list of ``{"message",
"errorCode", "fields"}`` objects with the statuses of "Status Codes and Error Responses"
(developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm: 300
external ID in more than one record, 400, 401 session expired or invalid, 403 refused
(``REQUEST_LIMIT_EXCEEDED``, API disabled), 404, 500, 503) and the ``StatusCode`` values of
the SOAP/REST core ("Core Data Types Used in API Calls", StatusCode:
developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm);
the API limits page (developer.salesforce.com/docs/atlas.en-us.salesforce_app_limits_cheatsheet.meta/salesforce_app_limits_cheatsheet/salesforce_app_limits_platform_api.htm)
for ``TotalRequests`` (a rolling 24-hour allocation) and ``ConcurrentPerOrgLongTxn``. The
SDK raises ``SalesforceMalformedRequest`` (400), ``SalesforceExpiredSession`` (401),
``SalesforceRefusedRequest`` (403), ``SalesforceResourceNotFound`` (404),
``SalesforceMoreThanOneRecord`` (300), ``SalesforceGeneralError`` (others), each with the
body in its text, and ``requests``' own errors for the transport and unreadable bodies.

Labels follow the cause set up. Fixable: SOQL, SOSL, field names, values, ids and query
templates the model wrote (``MALFORMED_QUERY``, ``INVALID_FIELD``, ``INVALID_TYPE``,
``REQUIRED_FIELD_MISSING``, ``STRING_TOO_LONG``, a restricted picklist value, a value of
the wrong type, an e-mail address, a validation rule the value breaks, ``MALFORMED_ID``,
``INVALID_SEARCH``; ``format_soql``'s ``ValueError`` / ``KeyError``). Unrecoverable: the
session, the org's 24-hour request allocation, the API disabled for the org or user,
record access, the org's data storage, a tool set up without credentials. Ambiguous: not
found, deleted, duplicates, more than one record for an external id, a cross-reference id
that does not resolve, a record locked by an approval, a trigger of the org failing, an
``UNKNOWN_EXCEPTION`` 500 (no more said), and bodies of the SERVICE the SDK cannot read
(an HTML page, a truncated JSON document, a query page without its next URL). Transient:
``UNABLE_TO_LOCK_ROW``, ``QUERY_TIMEOUT``, an expired query locator, the concurrent
long-running request limit, 503 (JSON or a maintenance page), refused, DNS -> not
executed; ``REQUEST_RUNNING_TOO_LONG`` on a write, 502 / 504 pages, read timeout, reset,
close -> unknown outcome.

Not triggered: the SOAP and OAuth logins (``SalesforceLogin`` builds
``https://<domain>.salesforce.com`` itself: no loopback address can be named), the Bulk
APIs' job errors, a broken installation (``zeep`` and ``pyjwt`` are imported lazily).
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "simple-salesforce"
REQUIRES = ["simple-salesforce>=1.12,<2", "cryptography>=41,<51"]

_ERR = "Salesforce REST API Status Codes and Error Responses (developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm)"
_LIMITS = "Salesforce API request limits (developer.salesforce.com/docs/atlas.en-us.salesforce_app_limits_cheatsheet.meta/salesforce_app_limits_cheatsheet/salesforce_app_limits_platform_api.htm)"
_ID = "0035g00000XyZabAAF"
_ACC = "0015g00000AbCdeAAF"
_SESSION = "00D5g000004Q5x8!AQ0AQFq8mT3kLw2pYz0123456789abcdefGHIJKLmnopqrstuvwxyz"


def _e(status: int, code: str, message: str, fields: list[str] | None = None, source: str = _ERR) -> Reply:
    return Reply(
        status,
        [{"message": message, "errorCode": code, "fields": fields or []}],
        {"Sforce-Limit-Info": "api-usage=1200/15000"},
        source,
    )


_SOQL = "SELECT Id, Name, Email FROM Contact WHERE LastName = 'Doe'"
_HTML503 = "<html><head><title>Salesforce - Maintenance</title></head><body><h1>Service Unavailable</h1><p>This instance is currently undergoing maintenance. Please try again later.</p></body></html>"
_HTML502 = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"
_HTML504 = (
    "<html><head><title>504 Gateway Timeout</title></head><body><h1>504 Gateway Timeout</h1></body></html>"
)

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply | str, str, str | None, str]] = [
    # the model's SOQL, SOSL, fields and values
    ("malformed_query", "query_frm", _e(400, "MALFORMED_QUERY", "\nSELECT Id, Name FRM Contact\n                ^\nERROR at Row:1:Column:17\nunexpected token: FRM"), F, None, "SOQL with a misspelt keyword"),
    ("invalid_field_query", "query_field", _e(400, "INVALID_FIELD", "\nSELECT Id, Emial FROM Contact\n           ^\nERROR at Row:1:Column:12\nNo such column 'Emial' on entity 'Contact'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names."), F, None, "SOQL names a field that does not exist"),
    ("invalid_type_query", "query_type", _e(400, "INVALID_TYPE", "\nSELECT Id FROM Contacts\n               ^\nERROR at Row:1:Column:16\nsObject type 'Contacts' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name. Please reference your WSDL or the describe call for the appropriate names."), F, None, "SOQL names an object that does not exist"),
    ("invalid_field_create", "create_field", _e(400, "INVALID_FIELD", "No such column 'Emial' on sobject of type Contact"), F, None, "new record with a misspelt field"),
    ("required_field_missing", "create", _e(400, "REQUIRED_FIELD_MISSING", "Required fields are missing: [LastName]", ["LastName"]), F, None, "required field left out"),
    ("string_too_long", "update", _e(400, "STRING_TOO_LONG", "Phone: data value too large: +1 (555) 010-0199 ext. 1234 (reception desk, ask for Jane) (max length=40)", ["Phone"]), F, None, "value longer than the field"),
    ("restricted_picklist", "create", _e(400, "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST", "Lead Source: bad value for restricted picklist field: Billboard", ["LeadSource"]), F, None, "picklist value not among the field's values"),
    ("wrong_type", "update_count", _e(400, "INVALID_TYPE_ON_FIELD_IN_RECORD", "Number Of Employees: value not of required type: fifty", ["NumberOfEmployees"]), F, None, "text where a number is required"),
    ("invalid_email", "create", _e(400, "INVALID_EMAIL_ADDRESS", "Email: invalid email address: jane.doe@", ["Email"]), F, None, "e-mail address malformed"),
    ("validation_rule", "update_close", _e(400, "FIELD_CUSTOM_VALIDATION_EXCEPTION", "Close Date cannot be in the past", ["CloseDate"]), F, None, "value breaks the org's validation rule"),
    ("malformed_id", "update_bad_id", _e(400, "MALFORMED_ID", "Contact ID: id value of incorrect type: 003XYZ", ["Id"]), F, None, "record id malformed"),
    ("invalid_search", "search", _e(400, "INVALID_SEARCH", "search term must be longer than one character: a"), F, None, "SOSL search term of one character"),
    # the session, the org's limits and settings
    ("session_expired", "query", _e(401, "INVALID_SESSION_ID", "Session expired or invalid"), U, None, "session expired or invalid"),
    ("session_expired_create", "create", _e(401, "INVALID_SESSION_ID", "Session expired or invalid"), U, None, "session expired (on a write)"),
    ("total_requests", "query", _e(403, "REQUEST_LIMIT_EXCEEDED", "TotalRequests Limit exceeded.", source=_LIMITS), U, None, "org's 24-hour API request allocation spent"),
    ("api_disabled_org", "query", _e(403, "API_DISABLED_FOR_ORG", "The REST API is not enabled for this Organization."), U, None, "REST API not enabled for the org"),
    ("api_disabled_user", "get", _e(403, "API_CURRENTLY_DISABLED", "API is disabled for this User"), U, None, "API disabled for the integration user"),
    ("insufficient_access", "update", _e(400, "INSUFFICIENT_ACCESS_OR_READONLY", "insufficient access rights on object id"), U, None, "user may not edit the record"),
    ("storage_limit", "create", _e(400, "STORAGE_LIMIT_EXCEEDED", "storage limit exceeded"), U, None, "org's data storage full"),
    # not found, duplicates, the org's own state
    ("not_found", "get", _e(404, "NOT_FOUND", "The requested resource does not exist"), A, None, "record not found"),
    ("object_not_found", "get_contactt", _e(404, "NOT_FOUND", "The requested resource does not exist"), A, None, "sObject type in the URL does not exist"),
    ("entity_deleted", "delete", _e(404, "ENTITY_IS_DELETED", "entity is deleted"), A, None, "record already deleted"),
    ("duplicate_value", "create", _e(400, "DUPLICATE_VALUE", f"duplicate value found: External_Id__c duplicates value on record with id: {_ID}", ["External_Id__c"]), A, None, "unique field value already used"),
    ("duplicates_detected", "create", _e(400, "DUPLICATES_DETECTED", "Use one of these records?"), A, None, "org's duplicate rule blocks the record"),
    ("more_than_one", "get_by_external", Reply(300, [f"/services/data/v59.0/sobjects/Contact/{_ID}", "/services/data/v59.0/sobjects/Contact/0035g00000XyZacAAF"], {}, _ERR), A, None, "external id matches more than one record"),
    ("cross_reference", "create_account", _e(400, "INVALID_CROSS_REFERENCE_KEY", "invalid cross reference id", ["AccountId"]), A, None, "referenced account id does not resolve"),
    ("entity_locked", "update", _e(400, "ENTITY_IS_LOCKED", "the entity is locked for editing"), A, None, "record locked by an approval process"),
    ("trigger_failed", "update", _e(400, "CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY", "ContactTrigger: execution of BeforeUpdate\n\ncaused by: System.NullPointerException: Attempt to de-reference a null object\n\nTrigger.ContactTrigger: line 12, column 1"), A, None, "org's trigger failed"),
    ("unknown_exception", "create", _e(500, "UNKNOWN_EXCEPTION", "An unexpected error occurred. Please include this ErrorId if you contact support: 1730950278-93856 (-1617375617)"), A, None, "internal error, nothing more said"),
    # load, locks, outages
    ("unable_to_lock_row", "update", _e(400, "UNABLE_TO_LOCK_ROW", f"unable to obtain exclusive access to this record or 1 records: {_ID}"), T, NE, "record locked by another transaction"),
    ("query_timeout", "query", _e(400, "QUERY_TIMEOUT", "Your query request was running for too long."), T, NE, "query ran too long"),
    ("query_locator", "query_more", _e(400, "INVALID_QUERY_LOCATOR", "invalid query locator"), T, NE, "query cursor expired: restart the query"),
    ("concurrent_limit", "query", _e(403, "REQUEST_LIMIT_EXCEEDED", "ConcurrentPerOrgLongTxn Limit exceeded.", source=_LIMITS), T, NE, "too many concurrent long-running requests"),
    ("server_unavailable", "create", _e(503, "SERVER_UNAVAILABLE", "Server is unavailable to handle the request."), T, NE, "server unavailable"),
    ("maintenance_page", "query", Reply(503, _HTML503, {}, "a maintenance page"), T, NE, "instance under maintenance"),
    ("running_too_long", "create", _e(400, "REQUEST_RUNNING_TOO_LONG", "Your request was running for too long, and has been stopped."), T, UO, "write stopped for running too long"),
    ("bad_gateway", "update", Reply(502, _HTML502, {}, "a proxy's page"), T, UO, "502 page"),
    ("gateway_timeout", "create", Reply(504, _HTML504, {}, "a proxy's page"), T, UO, "gateway timeout"),
    # what the service sent cannot be read
    ("query_html", "query", Reply(200, "<html><head><title>Login | Salesforce</title></head><body>Log in</body></html>", {}, "a login page"), A, None, "query answered with an HTML page"),
    ("query_truncated", "query", Reply(200, '{"totalSize":2,"done":true,"records":[{"attributes":{"type":"Contact"},"Id":"0035g00000XyZabAAF","Name":"Jane', {}, "", "application/json"), A, None, "query's JSON cut off"),
    ("query_no_next", "query_all", Reply(200, {"totalSize": 4000, "done": False, "records": []}), A, None, "query page not done but without its next URL"),
]  # fmt: skip


def _calls(sf: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the session and instance are the tool's."""
    new = {"FirstName": "Jane", "LastName": "Doe", "Email": "jane.doe@", "LeadSource": "Billboard"}
    phone = {"Phone": "+1 (555) 010-0199 ext. 1234 (reception desk, ask for Jane)"}
    frm, field, typ = (
        "SELECT Id, Name FRM Contact",
        "SELECT Id, Emial FROM Contact",
        "SELECT Id FROM Contacts",
    )
    sosl = "FIND {a} IN ALL FIELDS RETURNING Contact(Id, Name)"
    return {
        "query": ("query_records", {"soql": _SOQL}, lambda: sf.query(_SOQL)),
        "query_all": ("query_records", {"soql": _SOQL, "all": True}, lambda: sf.query_all(_SOQL)),
        "query_frm": ("query_records", {"soql": frm}, lambda: sf.query(frm)),
        "query_field": ("query_records", {"soql": field}, lambda: sf.query(field)),
        "query_type": ("query_records", {"soql": typ}, lambda: sf.query(typ)),
        "query_more": ("query_records", {"next_records_url": "01g5g00000Q5x8mAAB-2000"}, lambda: sf.query_more("01g5g00000Q5x8mAAB-2000")),
        "search": ("search_records", {"sosl": sosl}, lambda: sf.search(sosl)),
        "get": ("get_record", {"object": "Contact", "id": _ID}, lambda: sf.Contact.get(_ID)),
        "get_contactt": ("get_record", {"object": "Contactt", "id": _ID}, lambda: sf.Contactt.get(_ID)),
        "get_by_external": ("get_record", {"object": "Contact", "external_id_field": "External_Id__c", "value": "CUST-1042"}, lambda: sf.Contact.get_by_custom_id("External_Id__c", "CUST-1042")),
        "create": ("create_record", {"object": "Contact", "fields": new}, lambda: sf.Contact.create(new)),
        "create_field": ("create_record", {"object": "Contact", "fields": {"LastName": "Doe", "Emial": "jane@example.com"}}, lambda: sf.Contact.create({"LastName": "Doe", "Emial": "jane@example.com"})),
        "create_account": ("create_record", {"object": "Contact", "fields": {"LastName": "Doe", "AccountId": _ACC}}, lambda: sf.Contact.create({"LastName": "Doe", "AccountId": _ACC})),
        "update": ("update_record", {"object": "Contact", "id": _ID, "fields": phone}, lambda: sf.Contact.update(_ID, phone)),
        "update_count": ("update_record", {"object": "Account", "id": _ACC, "fields": {"NumberOfEmployees": "fifty"}}, lambda: sf.Account.update(_ACC, {"NumberOfEmployees": "fifty"})),
        "update_close": ("update_record", {"object": "Opportunity", "id": "0065g00000LmNopAAB", "fields": {"CloseDate": "2020-01-31"}}, lambda: sf.Opportunity.update("0065g00000LmNopAAB", {"CloseDate": "2020-01-31"})),
        "update_bad_id": ("update_record", {"object": "Contact", "id": "003XYZ", "fields": phone}, lambda: sf.Contact.update("003XYZ", phone)),
        "delete": ("delete_record", {"object": "Contact", "id": _ID}, lambda: sf.Contact.delete(_ID)),
    }  # fmt: skip


@contextmanager
def _tls_service(ctx: Any, cert: str, key: str) -> Iterator[_saas.Service]:
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    with _saas.service(ctx, "SFPORT", "sfdcedge") as svc:
        server = svc._server
        server.socket = tls.wrap_socket(server.socket, server_side=True)
        yield svc


def cases(ctx: Any) -> Iterator[generate.Case]:
    import requests
    from simple_salesforce import Salesforce
    from simple_salesforce.format import format_soql

    cert, key = _saas.certificate(ctx.tmp, "salesforce-stand-in")

    class _Session(requests.Session):
        """The tool's session: a timeout on every request (SFType's calls take none)."""

        def request(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
            kwargs.setdefault("timeout", _saas.TIMEOUT)
            return super().request(*args, **kwargs)

    def client(instance: str) -> Any:
        session = _Session()
        session.verify = cert
        session.trust_env = False  # a REQUESTS_CA_BUNDLE in the environment would replace ``verify``
        return Salesforce(
            instance_url=f"https://{instance}", session_id=_SESSION, session=session, version="59.0"
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
        return generate.Case(f"salesforce-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _tls_service(ctx, cert, key) as svc:
        instance = f"127.0.0.1:{svc.port}"
        calls = _calls(client(instance))
        for key_, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key_) from None
            yield case(key_, cause, kind, outcome, exc, tool, args)
        for key_, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key_)
            where = {"refused": f"127.0.0.1:{ctx.dead}", "dns": "acme.my.unreachable-host.invalid"}.get(
                key_, instance
            )
            tool, args, fn = _calls(client(where))["create"]
            yield case(key_, cause, kind, outcome, _saas.catch(fn), tool, args)

    # the SDK's own checks of the model's query templates, and a tool set up without credentials
    template = "SELECT Id FROM Contact WHERE Email = {email}"
    local: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("soql-unquotable", "query parameter given as an object", F, "query_records", {"soql": "SELECT Id FROM Contact WHERE Email = {}", "params": [{"$eq": "jane@example.com"}]}, lambda: format_soql("SELECT Id FROM Contact WHERE Email = {}", {"$eq": "jane@example.com"})),
        ("soql-missing-param", "query template names a parameter not given", F, "query_records", {"soql": template, "params": {"mail": "jane@example.com"}}, lambda: format_soql(template, mail="jane@example.com")),
        ("soql-positional-missing", "query template with more placeholders than values", F, "query_records", {"soql": "SELECT Id FROM Contact WHERE LastName = {} AND FirstName = {}", "params": ["Doe"]}, lambda: format_soql("SELECT Id FROM Contact WHERE LastName = {} AND FirstName = {}", "Doe")),
        ("no-credentials", "tool set up without a session or login", U, "query_records", {"soql": _SOQL}, lambda: Salesforce(instance_url="https://acme.my.salesforce.com")),
    ]  # fmt: skip
    for key_, cause, kind, tool, args, fn in local:
        try:
            exc = _saas.catch(fn)
        except AssertionError:
            raise AssertionError(key_) from None
        yield case(key_, cause, kind, None, exc, tool, args)
