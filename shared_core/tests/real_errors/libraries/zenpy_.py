"""zenpy (the Zendesk Support API client) behind a help-desk tool, pointed at a local stand-in
of a Zendesk account's ``/api/v2`` with zenpy's own overrides of the URL it builds:
``ZENPY_FORCE_SCHEME=http`` and ``ZENPY_FORCE_NETLOC=127.0.0.1:<port>`` (added for local
Zendesk mocks: github.com/facetoe/zenpy issue 391, pull request 406), set around each call
and put back after it. The tool's ``Zenpy`` is built with a subdomain, an e-mail and API
token, a ``requests`` session of its own (no retries), ``timeout=1``, ``disable_cache=True``
and ``ratelimit_budget=1`` (it gives up on a rate limit instead of sleeping); the ``-retried``
case mounts zenpy's documented default adapter (``Zenpy.http_adapter_kwargs()``: three
retries of 413 / 503 on the methods urllib3 deems idempotent).

The stand-in answers the Support API's documented error bodies: "Requests"
(developer.zendesk.com/api-reference/introduction/requests: 401 ``{"error": "Couldn't
authenticate you"}``, 403 ``Forbidden``, 404 ``RecordNotFound``, 409, 422 ``RecordInvalid``
with ``details`` keyed by field, 429 and 503 with ``Retry-After``, text/plain bodies for
API-level errors), "Search" (developer.zendesk.com/api-reference/ticketing/ticket-management/search:
the 1,000-result limit answered 422 ``invalid`` and the ``unavailable`` "try again in a
moment" error), "Protecting against ticket update collisions" (``safe_update``: 409
``UpdateConflict``), "Rate limits" (developer.zendesk.com/api-reference/introduction/rate-limits:
429 with ``Retry-After``, ``X-Rate-Limit-Remaining``) and the OAuth token errors of
"OAuth Tokens" (401 ``invalid_token``, 403 for a missing scope). zenpy raises
``RecordNotFoundException`` (``"error": "RecordNotFound"``), ``APIException`` (any other JSON
error body, its text the body), ``requests.HTTPError`` (a body that is not JSON),
``RatelimitBudgetExceeded`` (a 429 with ``Retry-After``, or its own proactive limit, past the
tool's budget), ``TooManyValuesException``, ``ZenpyException`` and ``ValueError`` from its own
checks of arguments, credentials and replies, and ``requests``' errors for the transport.

Labels follow the cause set up. Fixable: values the model wrote that the account's schema or
the endpoint rejects (a blank description, a custom field value not among its options, a
malformed requester or user e-mail, a blank name, a file name whose extension does not
match the file) and zenpy's own checks of the model's arguments (more than 20 attachments
linked to an article at once, a search ``type`` outside ticket/user/organization/group, a
``*_between`` range that is not two dates, ``sort_order`` / ``sort_by`` / ``sort`` outside
their vocabularies, both ``query`` and ``external_id``, an export without ``start_time`` or
cursor, a file path that does not exist or is a folder, a negative offset, a page past
search's 1,000 results, which zenpy ends with a bare ``StopIteration``). Unrecoverable: the
API token or OAuth token refused, a role that forbids the action, an OAuth token without
the scope, and a tool set up without credentials, with password auth refused by zenpy's
``password_treatment_level``, with a password and a token together or without a
subdomain. Ambiguous: a ticket, user, organisation or macro the model named by id that is
not there, a closed ticket (which takes no update), an e-mail or organisation name already
used, a database collision and a ``safe_update`` collision (409), and replies zenpy cannot
read (JSON with no object it knows, a 201 that is not JSON). Transient: 429 past the
budget, the tool's proactive limit with two requests left, 503 with ``Retry-After`` (also
after the adapter's retries), search's ``unavailable`` error ("try again in a moment"; the
page shows no status: 503 here), refused, DNS -> not executed; a 502 page, read timeout,
reset, close -> unknown outcome.

Not triggered: replies with a 200 and a body zenpy cannot parse (it returns the raw
``Response`` instead of raising); ``SearchResponseLimitExceeded`` on its own (zenpy swallows
it while paging: the ``StopIteration`` case above); ``TooManyValues`` from the API (its
body is not documented); 404 ``InvalidEndpoint`` (whether it means a plan without the
feature or a wrong path is not documented); a suspended account or an expired trial (no
documented body); Chat and Help Center specific errors.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "zenpy"
REQUIRES = ["zenpy==2.0.57"]

_REQ = "Zendesk API requests: status codes and errors (developer.zendesk.com/api-reference/introduction/requests)"
_SEARCH = "Zendesk Search API (developer.zendesk.com/api-reference/ticketing/ticket-management/search)"
_LIMITS = "Zendesk rate limits (developer.zendesk.com/api-reference/introduction/rate-limits)"
_SAFE = "Zendesk: protecting against ticket update collisions (developer.zendesk.com/documentation/ticketing/managing-tickets/creating-and-updating-tickets)"
_OAUTH = "Zendesk OAuth tokens (developer.zendesk.com/api-reference/ticketing/oauth/oauth_tokens)"
_TOKEN = "6wiIBWbGkBMo1mRDMuVwkw1EPsNkeUj95PIz2akv"
_OAUTH_TOKEN = "5f2c3b8e0d9a47c1b6e4f0a2d8c7b9e1f3a5c7d9e2b4f6a8c0d1e3f5a7b9c2d4"
_EMAIL = "agent@acme.example"
_TICKET = 48213
_USER = 381224907
_ORG = 22746871
_MACRO = 360001832714
_FIELD = 360012345678


def _invalid(field: str, description: str, error: str, **extra: Any) -> Reply:
    detail = {"description": description, "error": error, **extra}
    body = {"error": "RecordInvalid", "description": "Record validation errors", "details": {field: [detail]}}
    return Reply(422, body, {}, _REQ)


_NOT_FOUND = Reply(404, {"error": "RecordNotFound", "description": "Not found"}, {}, _REQ)
_UNAUTHENTICATED = Reply(401, {"error": "Couldn't authenticate you"}, {}, _REQ)
_FORBIDDEN = Reply(
    403,
    {
        "error": "Forbidden",
        "description": "You do not have access to this page. Please contact the account owner of this help desk for further help.",
    },
    {},
    _REQ,
)
_HTML502 = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>"  # fmt: skip

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's values, checked by the account's schema
    ("description_blank", "create_ticket_bare", _invalid("base", "Description: cannot be blank", "BlankValue"), F, None, "ticket created without a description"),
    ("custom_field_invalid", "set_field", _invalid("base", "Product: is invalid", "InvalidValue", field_key=_FIELD), F, None, "custom field value not among the field's options"),
    ("requester_invalid", "create_ticket_bad_email", _invalid("requester", "Requester: jane.doe@ is invalid", "InvalidValue"), F, None, "requester e-mail malformed"),
    ("user_email_invalid", "create_user_bad_email", _invalid("email", "Email: jane.doe@ is not properly formatted", "InvalidFormat"), F, None, "user e-mail malformed"),
    ("user_name_blank", "create_user_blank", _invalid("name", "Name: cannot be blank", "BlankValue"), F, None, "user created with a blank name"),
    ("upload_type_mismatch", "upload_named", _invalid("base", "The file type and file extension do not match. Try again.", "InvalidValue"), F, None, "upload's file name extension does not match the file"),
    # credentials, roles, scopes
    ("unauthenticated", "get_ticket", _UNAUTHENTICATED, U, None, "API token refused"),
    ("unauthenticated_create", "create_ticket", _UNAUTHENTICATED, U, None, "API token refused (on a write)"),
    ("forbidden_delete", "delete_ticket", _FORBIDDEN, U, None, "agent's role may not delete tickets"),
    ("forbidden_macro", "macro_effect", _FORBIDDEN, U, None, "agent's role may not use the macro"),
    ("oauth_invalid_token", "oauth_get_ticket", Reply(401, {"error": "invalid_token", "error_description": "The access token provided is expired, revoked, malformed or invalid for other reasons."}, {"WWW-Authenticate": 'Bearer realm="Zendesk", error="invalid_token"'}, _OAUTH), U, None, "OAuth token expired or revoked"),
    ("oauth_missing_scope", "oauth_update", Reply(403, {"error": "Forbidden", "description": "You are missing the following required scopes: tickets:write"}, {}, _OAUTH), U, None, "OAuth token without the write scope"),
    # not there, stored state
    ("ticket_not_found", "get_ticket", _NOT_FOUND, A, None, "ticket not found"),
    ("update_not_found", "add_comment", _NOT_FOUND, A, None, "ticket to comment on not found"),
    ("user_not_found", "get_user", _NOT_FOUND, A, None, "user not found"),
    ("org_not_found", "org_users", _NOT_FOUND, A, None, "organisation not found"),
    ("macro_not_found", "macro_effect", _NOT_FOUND, A, None, "macro not found"),
    ("merge_not_found", "merge", _NOT_FOUND, A, None, "ticket to merge into not found"),
    ("closed_ticket", "update_status", _invalid("status", "Status: closed prevents ticket update", "ClosedTicket"), A, None, "ticket closed: it takes no update"),
    ("email_taken", "create_user", _invalid("email", "Email: jane.doe@example.com is already being used by another user", "DuplicateValue"), A, None, "e-mail already used by another user"),
    ("org_name_taken", "create_org", _invalid("name", "Name: has already been taken", "DuplicateValue"), A, None, "organisation name already used"),
    ("database_collision", "add_comment", Reply(409, {"error": "DatabaseConflict", "description": "Database collision"}, {}, _REQ), A, None, "409 database collision on a unique field"),
    ("update_collision", "update_safe", Reply(409, {"error": "UpdateConflict", "description": "Safe Update prevented the update due to outdated ticket data. Please fetch the latest ticket data and try again."}, {}, _SAFE), A, None, "ticket changed since the stamp given (safe_update)"),
    # replies zenpy cannot read
    ("unknown_response", "get_ticket", Reply(200, {"data": {"id": _TICKET, "subject": "Printer on fire"}}), A, None, "reply JSON holds no object zenpy knows"),
    ("created_not_json", "create_ticket", Reply(201, "<html><body>Ticket created</body></html>"), A, None, "201 reply that is not JSON"),
    # load, outages
    ("rate_limited", "search", Reply(429, "Too Many Requests", {"Retry-After": "37"}, _LIMITS), T, NE, "429 with Retry-After past the tool's budget"),
    ("maintenance", "get_ticket", Reply(503, "Service Unavailable", {"Retry-After": "120"}, _REQ), T, NE, "503 with Retry-After (maintenance)"),
    ("search_unavailable", "search", Reply(503, {"error": "unavailable", "description": "Sorry, we could not complete your search query. Please try again in a moment."}, {}, _SEARCH), T, NE, "search unavailable: try again in a moment"),
    ("bad_gateway", "create_ticket", Reply(502, _HTML502, {}, "a proxy's page"), T, UO, "502 page after the request was sent"),
]  # fmt: skip


def _calls(
    zd: Any, files: dict[str, str], oauth: Any = None
) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the subdomain and token are the tool's
    (``oauth``: the same tool signed in with an OAuth access token)."""
    from zenpy.lib.api_objects import Comment, Organization, Ticket, User

    new = {"subject": "Printer on fire", "description": "The smoke is very colorful.", "requester_email": "jane.doe@example.com", "priority": "high"}  # fmt: skip
    typo = {**new, "requester_email": "jane.doe@"}

    def create_ticket(args: dict[str, Any]) -> Callable[[], Any]:
        def run() -> Any:
            requester = User(name="Jane Doe", email=args["requester_email"])
            fields = {k: v for k, v in args.items() if k != "requester_email"}
            return zd.tickets.create(Ticket(requester=requester, **fields))

        return run

    bare = {"subject": "Printer on fire", "requester_email": "jane.doe@example.com"}
    comment = {"ticket_id": _TICKET, "body": "We have replaced the toner.", "public": False}
    since = "2026-11-20T09:00:00Z"
    return {
        "get_ticket": ("get_ticket", {"ticket_id": _TICKET}, lambda: zd.tickets(id=_TICKET)),
        "oauth_get_ticket": ("get_ticket", {"ticket_id": _TICKET}, lambda: oauth.tickets(id=_TICKET)),
        "oauth_update": ("update_ticket", {"ticket_id": _TICKET, "fields": {"priority": "urgent"}}, lambda: oauth.tickets.update(Ticket(id=_TICKET, priority="urgent"))),
        "create_ticket": ("create_ticket", new, create_ticket(new)),
        "create_ticket_bad_email": ("create_ticket", typo, create_ticket(typo)),
        "create_ticket_bare": ("create_ticket", bare, create_ticket(bare)),
        "update_status": ("update_ticket", {"ticket_id": _TICKET, "fields": {"status": "open"}}, lambda: zd.tickets.update(Ticket(id=_TICKET, status="open"))),
        "update_safe": ("update_ticket", {"ticket_id": _TICKET, "fields": {"status": "solved"}, "updated_stamp": since}, lambda: zd.tickets.update(Ticket(id=_TICKET, status="solved", safe_update=True, updated_stamp=since))),
        "add_comment": ("add_comment", comment, lambda: zd.tickets.update(Ticket(id=_TICKET, comment=Comment(body=comment["body"], public=False)))),
        "set_field": ("set_custom_field", {"ticket_id": _TICKET, "field_id": _FIELD, "value": "printer_x500"}, lambda: zd.tickets.update(Ticket(id=_TICKET, custom_fields=[{"id": _FIELD, "value": "printer_x500"}]))),
        "delete_ticket": ("delete_ticket", {"ticket_id": _TICKET}, lambda: zd.tickets.delete(Ticket(id=_TICKET))),
        "merge": ("merge_tickets", {"target_id": _TICKET, "source_ids": [48214, 48215]}, lambda: zd.tickets.merge(_TICKET, [48214, 48215])),
        "macro_effect": ("preview_macro", {"ticket_id": _TICKET, "macro_id": _MACRO}, lambda: zd.tickets.show_macro_effect(_TICKET, _MACRO)),
        "search": ("search_tickets", {"query": "printer", "status": "open"}, lambda: zd.search("printer", type="ticket", status="open")),
        "get_user": ("get_user", {"user_id": _USER}, lambda: zd.users(id=_USER)),
        "create_user": ("create_user", {"name": "Jane Doe", "email": "jane.doe@example.com"}, lambda: zd.users.create(User(name="Jane Doe", email="jane.doe@example.com"))),
        "create_user_bad_email": ("create_user", {"name": "Jane Doe", "email": "jane.doe@"}, lambda: zd.users.create(User(name="Jane Doe", email="jane.doe@"))),
        "create_user_blank": ("create_user", {"name": "", "email": "jane.doe@example.com"}, lambda: zd.users.create(User(name="", email="jane.doe@example.com"))),
        "create_org": ("create_organization", {"name": "Acme Corp"}, lambda: zd.organizations.create(Organization(name="Acme Corp"))),
        "org_users": ("list_organization_users", {"organization_id": _ORG}, lambda: list(zd.organizations.users(_ORG))),
        "upload_named": ("upload_attachment", {"path": files["photo"], "file_name": "invoice.pdf"}, lambda: zd.attachments.upload(files["photo"], target_name="invoice.pdf")),
    }  # fmt: skip


@contextmanager
def _pointed(netloc: str | None) -> Iterator[None]:
    """zenpy's URL overrides for the duration of one call (``None``: zenpy builds the host
    from the subdomain and ``domain``)."""
    keys = ("ZENPY_FORCE_SCHEME", "ZENPY_FORCE_NETLOC")
    saved = {key: os.environ.get(key) for key in keys}
    os.environ["ZENPY_FORCE_SCHEME"] = "http"
    if netloc is None:
        os.environ.pop("ZENPY_FORCE_NETLOC", None)
    else:
        os.environ["ZENPY_FORCE_NETLOC"] = netloc
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _serve(svc: _saas.Service, replies: list[Reply]) -> None:
    """The stand-in answers ``replies`` in order (the last one from then on)."""
    queue = list(replies)

    def pick(method: str, path: str) -> Reply | str:
        svc.requests.append((method, path))
        return queue.pop(0) if len(queue) > 1 else queue[0]

    svc.pick = pick  # type: ignore[method-assign]


def cases(ctx: Any) -> Iterator[generate.Case]:
    import requests
    from requests.adapters import HTTPAdapter
    from zenpy import Zenpy

    def client(domain: str = "zendesk.com", retried: bool = False, oauth: bool = False, **kwargs: Any) -> Any:
        session = requests.Session()
        session.trust_env = False
        if retried:
            session.mount("http://", HTTPAdapter(**Zenpy.http_adapter_kwargs()))
        options: dict[str, Any] = {"ratelimit_budget": 1, "timeout": _saas.TIMEOUT, "disable_cache": True}
        options.update(kwargs)
        if oauth:
            return Zenpy(
                subdomain="acme", domain=domain, oauth_token=_OAUTH_TOKEN, session=session, **options
            )
        return Zenpy(subdomain="acme", domain=domain, email=_EMAIL, token=_TOKEN, session=session, **options)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"zenpy-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    def run(netloc: str | None, fn: Callable[[], Any], key: str) -> BaseException:
        with _pointed(netloc):
            try:
                return _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None

    (ctx.tmp / "uploads").mkdir()
    photo = ctx.tmp / "uploads" / "receipt.png"
    photo.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 32)
    files = {"photo": str(photo)}
    with _saas.service(ctx, "ZDPORT", "nginx") as svc:
        here = f"127.0.0.1:{svc.port}"
        calls = _calls(client(), files, client(oauth=True))
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, run(here, fn, key), tool, args)

        # the adapter's retries (zenpy's documented defaults), a 503 that stays
        svc.reply(Reply(503, "Service Unavailable", {"Retry-After": "120"}, _REQ))
        tool, args, fn = _calls(client(retried=True), files)["get_ticket"]
        exc = run(here, fn, "maintenance-retried")
        yield case(
            "maintenance-retried", "503 (maintenance) after the adapter's retries", T, NE, exc, tool, args
        )

        # the tool's proactive limit: the last reply said 2 requests were left this minute
        proactive = client(proactive_ratelimit=50, proactive_ratelimit_request_interval=10)
        ok = Reply(200, {"ticket": {"id": _TICKET, "subject": "Printer on fire", "status": "open"}}, {"X-Rate-Limit": "700", "X-Rate-Limit-Remaining": "2"})  # fmt: skip
        svc.reply(ok)
        with _pointed(here):
            proactive.tickets(id=_TICKET)  # answered: the tool notes X-Rate-Limit-Remaining
        tool, args, fn = _calls(proactive, files)["update_status"]
        exc = run(here, fn, "proactive-limit")
        yield case(
            "proactive-limit",
            "tool's proactive rate limit: 2 requests left this minute",
            T,
            NE,
            exc,
            tool,
            args,
        )

        # paging: a search page, then the slice the model asked for
        page = Reply(
            200,
            {
                "results": [{"id": _TICKET, "result_type": "ticket", "subject": "Printer on fire"}],
                "count": 5234,
                "next_page": f"{svc.base}/api/v2/search.json?page=2&query=printer%20type%3Aticket",
                "previous_page": None,
            },
        )
        limit = Reply(422, {"error": "invalid", "description": "Invalid search: Requested response size was greater than Search Response Limits"}, {}, _SEARCH)  # fmt: skip
        _serve(svc, [page, limit])
        args = {"query": "printer", "offset": 1000, "limit": 100}
        exc = run(here, lambda: client().search("printer", type="ticket")[1000:1100], "search-past-limit")
        yield case(
            "search-past-limit", "page past search's 1,000 results", F, None, exc, "search_tickets", args
        )
        _serve(svc, [page])
        args = {"query": "printer", "offset": -10, "limit": 10}
        exc = run(here, lambda: client().search("printer", type="ticket")[-10:], "search-negative-offset")
        yield case(
            "search-negative-offset",
            "negative offset into search results",
            F,
            None,
            exc,
            "search_tickets",
            args,
        )
        del svc.pick

        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            netloc = {"refused": f"127.0.0.1:{ctx.dead}", "dns": None}.get(key, here)
            tool, args, fn = _calls(client(domain="zendesk.unreachable-host.invalid"), files)["create_ticket"]
            yield case(key, cause, kind, outcome, run(netloc, fn, key), tool, args)

    # zenpy's own checks of the model's arguments and of the tool's credentials (nothing sent)
    zd = client()
    dead = f"127.0.0.1:{ctx.dead}"
    missing, folder = str(ctx.tmp / "uploads" / "invoice.pdf"), str(ctx.tmp / "uploads")

    def between() -> Any:
        from datetime import datetime

        dates = [datetime.fromisoformat(d) for d in ("2026-11-01", "2026-11-15", "2026-11-30")]
        return zd.search("printer", type="ticket", created_between=dates)

    def link_attachments(ids: list[int]) -> Any:
        from zenpy.lib.api_objects.help_centre_objects import ArticleAttachment

        return zd.help_center.attachments.bulk_attachments(
            360004567890, [ArticleAttachment(id=i) for i in ids]
        )

    linked = [361000100 + i for i in range(21)]

    def article_attachment(path: str) -> Any:
        return zd.help_center.attachments.create(360004567890, path)

    # (key, cause, kind, tool, the model's arguments, call)
    local: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("search-type", "search type outside ticket/user/organization/group", F, "search", {"query": "printer", "type": "article"}, lambda: zd.search("printer", type="article")),
        ("search-between", "created_between given three dates", F, "search_tickets", {"query": "printer", "created_between": ["2026-11-01", "2026-11-15", "2026-11-30"]}, between),
        ("ratings-sort-order", "sort_order not asc/desc", F, "list_satisfaction_ratings", {"sort_order": "newest"}, lambda: zd.satisfaction_ratings(sort_order="newest")),
        ("macros-sort-by", "macro sort_by not among the endpoint's values", F, "list_macros", {"sort_by": "name"}, lambda: zd.macros(sort_by="name")),
        ("webhooks-sort", "webhook sort not name/status", F, "list_webhooks", {"sort": "created_at"}, lambda: zd.webhooks(sort="created_at")),
        ("user-search-both", "both query and external_id given", F, "find_user", {"query": "jane", "external_id": "CRM-1042"}, lambda: zd.users.search(query="jane", external_id="CRM-1042")),
        ("export-no-start", "ticket export without start_time or cursor", F, "export_tickets", {}, lambda: zd.tickets.incremental()),
        ("upload-missing-file", "file to upload does not exist", F, "upload_attachment", {"path": missing}, lambda: zd.attachments.upload(missing)),
        ("article-attachment-folder", "article attachment path is a directory", F, "attach_to_article", {"article_id": 360004567890, "path": folder}, lambda: article_attachment(folder)),
        ("bulk-attachments-21", "21 attachments linked at once (20 at most)", F, "link_article_attachments", {"article_id": 360004567890, "attachment_ids": linked}, lambda: link_attachments(linked)),
        ("no-credentials", "tool set up without a token or password", U, "get_ticket", {"ticket_id": _TICKET}, lambda: Zenpy(subdomain="acme", email=_EMAIL)),
        ("password-and-token", "tool set up with both a password and a token", U, "get_ticket", {"ticket_id": _TICKET}, lambda: Zenpy(subdomain="acme", email=_EMAIL, password="hunter2", token=_TOKEN)),
        ("password-refused", "password auth refused by the tool's password_treatment_level", U, "get_ticket", {"ticket_id": _TICKET}, lambda: Zenpy(subdomain="acme", email=_EMAIL, password="hunter2", password_treatment_level="error")),
        ("no-subdomain", "tool set up without a subdomain", U, "get_ticket", {"ticket_id": _TICKET}, lambda: Zenpy(email=_EMAIL, token=_TOKEN, timeout=_saas.TIMEOUT).tickets(id=_TICKET)),
    ]  # fmt: skip
    for key, cause, kind, tool, args, fn in local:
        yield case(key, cause, kind, None, run(dead, fn, key), tool, args)
