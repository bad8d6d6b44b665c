"""asana: the official Python SDK (v5, OpenAPI-generated) against a local stand-in of
app.asana.com/api/1.0: ``asana.rest.ApiException`` carrying Asana's status, headers and
error body, ``urllib3``'s ``MaxRetryError`` when the SDK's own retry policy (429 and 5xx,
``Configuration.retry_strategy``) runs out or the connection fails, ``ReadTimeoutError`` /
``ProtocolError`` from urllib3 under it, the generated methods' own checks (``TypeError``
for an unknown keyword, ``ValueError`` for a missing required parameter), and the
``KeyError`` / ``TypeError`` the SDK's pagination and unwrapping raise on a reply they
cannot read.

Statuses and bodies follow Asana's "Errors" page (developers.asana.com/docs/errors: 400
invalid request, 401 no authorization, 402 payment required (premium feature), 403
forbidden, 404 not found, 412 precondition failed (events sync token), 429 too many
requests with ``Retry-After`` and "You have made too many requests recently. Please, be
chill.", 451 unavailable for legal reasons, 500 server error with its ``phrase``, 503
service unavailable, 504 timeout) and its body ``{"errors": [{"message", "help"}]}``;
the "Pagination" page (developers.asana.com/docs/pagination: an expired offset is a 400,
restart the listing) and the "Events" page (developers.asana.com/docs/events: 412 with a
fresh ``sync`` token). Labels: a field, id format, date, enum value, option or file path
the model wrote -> fixable; token, scope, premium feature, legal block -> unrecoverable;
an object not found (or not visible), something already there, a server error with only
its phrase, a reply the SDK cannot read -> ambiguous; 429 / 503 / expired pagination
offset / refused / DNS -> transient, not executed; 504 / read timeout / reset / close ->
transient, unknown outcome. Most cases run with retries off (``Retry(total=0)``, as a
tool that reports the first failure); the ``-retried`` ones keep the SDK's default
policy (statuses 429/500/502/503/504) with one retry and no back-off.

Not triggered: OAuth refresh failures (the SDK leaves them to the caller); 424 and 501,
which the errors page lists without a body to copy.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "asana"
REQUIRES = ["asana>=5,<6"]

_ERR = "Asana API errors (developers.asana.com/docs/errors)"
_HELP = "For more information on API status codes and how to handle them, read the docs on errors: https://developers.asana.com/docs/errors"  # fmt: skip
_TOKEN = "2/1204567890123456/1209876543210987:0123456789abcdef0123456789abcdef"
_WS = "1204567890123001"
_PROJ = "1204567890123456"
_TASK = "1209876543210987"
_USER = "1204567890120042"


def _e(status: int, message: str, source: str = _ERR, **headers: str) -> Reply:
    return Reply(status, {"errors": [{"message": message, "help": _HELP}]}, headers, source)


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    ("missing_name_workspace", "create_task_bare", _e(400, "workspace: Missing input"), F, None, "task created without a workspace or project"),
    ("project_not_recognized", "create_task", _e(400, "projects: [0]: Not a recognized ID: 12345"), F, None, "project id is not an Asana id"),
    ("assignee_invalid", "update_assignee", _e(400, "assignee: Not a valid user or email address: jdoe@"), F, None, "assignee is not a user or email address"),
    ("due_on_invalid", "update_due", _e(400, "due_on: Invalid date string: 2026-13-40"), F, None, "due date invalid"),
    ("due_on_and_due_at", "update_due_both", _e(400, "You may only provide one of due_on or due_at!"), F, None, "both due_on and due_at given"),
    ("unknown_field", "update_unknown", _e(400, "nmae: Unknown field"), F, None, "task field name misspelled"),
    ("opt_fields_unknown", "get_task_fields", _e(400, "opt_fields: Unknown field: asignee.name"), F, None, "unknown field asked for in opt_fields"),
    ("enum_invalid", "update_enum", _e(400, "custom_fields: 1204567890123789: enum_value: Unknown object: Urgent"), F, None, "custom field enum value not among the options"),
    ("limit_out_of_range", "list_tasks_limit", _e(400, "limit: Must be between 1 and 100, inclusive. Value was: 500"), F, None, "page size over the maximum"),
    ("search_sort_invalid", "search", _e(400, "sort_by: Unknown value: priority. Must be one of: due_date, created_at, completed_at, likes, modified_at"), F, None, "search sort key not allowed"),
    ("text_too_long", "comment", _e(400, "text: Text is too long. Maximum length is 65535 characters."), F, None, "comment over the length limit"),
    # credentials, scopes, plan, legal
    ("not_authorized", "get_task", _e(401, "Not Authorized"), U, None, "token missing, revoked or expired"),
    ("forbidden_scope", "delete_task", _e(403, "Forbidden. The token does not have the required scope: tasks:delete"), U, None, "token lacks the scope"),
    ("forbidden_access", "update_due", _e(403, "You do not have access to this resource"), U, None, "user may not edit the task"),
    ("payment_required_search", "search", _e(402, "Search is only available to premium users."), U, None, "search needs a premium workspace"),
    ("payment_required_field", "update_enum", _e(402, "Custom fields are only available to premium users."), U, None, "custom fields need a premium workspace"),
    ("unavailable_legal", "get_task", _e(451, "This request was blocked for legal reasons."), U, None, "request blocked for legal reasons"),
    # not found, already there, server state
    ("task_unknown_object", "get_task", _e(404, f"task: Unknown object: {_TASK}"), A, None, "task not found or not visible"),
    ("project_unknown_object", "list_tasks", _e(404, f"project: Unknown object: {_PROJ}"), A, None, "project not found"),
    ("user_unknown_object", "add_follower", _e(404, f"followers: [0]: Unknown object: {_USER}"), A, None, "follower not found"),
    ("already_member", "add_follower", _e(400, f"followers: [0]: User {_USER} is already a follower of this task"), A, None, "user already a follower"),
    ("server_error", "create_task", Reply(500, {"errors": [{"message": "Server Error", "phrase": "6 sad squid snuggle softly"}]}, {}, _ERR), A, None, "server error with only its phrase"),
    # load, outages, listings
    ("rate_limited", "list_tasks", _e(429, "You have made too many requests recently. Please, be chill.", **{"Retry-After": "30"}), T, NE, "rate limited"),
    ("service_unavailable", "create_task", _e(503, "Service Unavailable"), T, NE, "service unavailable"),
    ("offset_expired", "list_tasks", _e(400, "offset: Your pagination token has expired.", "Asana pagination (developers.asana.com/docs/pagination)"), T, NE, "pagination offset expired: restart the listing"),
    ("gateway_timeout", "update_due", _e(504, "This request took too long to complete."), T, UO, "request took too long (504)"),
]  # fmt: skip

# the SDK's default retry policy (statuses 429 and 5xx): one retry, no back-off
_RETRIED: list[tuple[str, str, Reply, str, str | None, str]] = [
    ("rate_limited-retried", "list_tasks", _e(429, "You have made too many requests recently. Please, be chill.", **{"Retry-After": "30"}), T, NE, "rate limited (after the SDK's retries)"),
    ("service_unavailable-retried", "create_task", _e(503, "Service Unavailable"), T, NE, "service unavailable (after the SDK's retries)"),
    ("server_error-retried", "get_task", Reply(500, {"errors": [{"message": "Server Error", "phrase": "12 tall llamas wander gently"}]}, {}, _ERR), A, None, "server error (after the SDK's retries)"),
    ("gateway_timeout-retried", "update_due", _e(504, "This request took too long to complete."), T, UO, "request took too long (after the SDK's retries)"),
]  # fmt: skip

# replies the SDK cannot read: (key, call, reply, cause)
_BAD_DATA: list[tuple[str, str, Reply, str]] = [
    ("html-200", "get_task", Reply(200, "<html><body><h1>Asana</h1><p>We'll be right back.</p></body></html>"), "an HTML page instead of the task"),
    ("no-data-key", "get_task", Reply(200, {"gid": _TASK, "name": "Ship v2"}), "task reply without its data envelope"),
    ("next-page-no-offset", "list_tasks", Reply(200, {"data": [{"gid": _TASK, "name": "Ship v2"}], "next_page": {"uri": f"https://app.asana.com/api/1.0/projects/{_PROJ}/tasks?limit=50"}}), "page reply whose next_page lacks the offset"),
    ("page-no-data", "list_tasks", Reply(200, {"next_page": None}), "page reply without data"),
    ("events-412-no-sync", "events", Reply(412, {"errors": [{"message": "Sync token invalid or too old. If you are attempting to keep resources in sync, you must fetch the full dataset for this query now and use the new sync token for the next sync."}]}, {}, "Asana events (developers.asana.com/docs/events)"), "events 412 reply without the new sync token"),
]  # fmt: skip


def _calls(client: Any, files: Any) -> dict[str, tuple[str, dict[str, Any], Any]]:
    """call -> (tool, the model's arguments, the call); the token and host are the tool's."""
    import asana

    tasks = asana.TasksApi(client)
    stories = asana.StoriesApi(client)
    events = asana.EventsApi(client)
    attachments = asana.AttachmentsApi(client)
    kw = {"_request_timeout": (_saas.TIMEOUT, _saas.TIMEOUT)}

    def update(fields: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        return (
            "update_task",
            {"task_gid": _TASK, "fields": fields},
            lambda: tasks.update_task({"data": fields}, _TASK, {}, **kw),
        )

    new = {"name": "Ship v2", "projects": ["12345"], "workspace": _WS}
    bare = {"name": "Ship v2"}
    text = "Looks good, shipping today."
    return {
        "create_task": ("create_task", {"fields": new}, lambda: tasks.create_task({"data": new}, {}, **kw)),
        "create_task_bare": ("create_task", {"fields": bare}, lambda: tasks.create_task({"data": bare}, {}, **kw)),
        "update_assignee": update({"assignee": "jdoe@"}),
        "update_due": update({"due_on": "2026-13-40"}),
        "update_due_both": update({"due_on": "2026-12-24", "due_at": "2026-12-24T17:00:00Z"}),
        "update_unknown": update({"nmae": "Ship v2.1"}),
        "update_enum": update({"custom_fields": {"1204567890123789": "Urgent"}}),
        "get_task": ("get_task", {"task_gid": _TASK}, lambda: tasks.get_task(_TASK, {}, **kw)),
        "get_task_fields": ("get_task", {"task_gid": _TASK, "opt_fields": "asignee.name"}, lambda: tasks.get_task(_TASK, {"opt_fields": "asignee.name"}, **kw)),
        "delete_task": ("delete_task", {"task_gid": _TASK}, lambda: tasks.delete_task(_TASK, **kw)),
        "list_tasks": ("list_project_tasks", {"project_gid": _PROJ}, lambda: list(tasks.get_tasks_for_project(_PROJ, {"limit": 50}, **kw))),
        "list_tasks_limit": ("list_project_tasks", {"project_gid": _PROJ, "limit": 500}, lambda: list(tasks.get_tasks_for_project(_PROJ, {"limit": 500}, **kw))),
        "search": ("search_tasks", {"workspace_gid": _WS, "text": "invoice", "sort_by": "priority"}, lambda: list(tasks.search_tasks_for_workspace(_WS, {"text": "invoice", "sort_by": "priority"}, **kw))),
        "add_follower": ("add_followers", {"task_gid": _TASK, "followers": [_USER]}, lambda: tasks.add_followers_for_task({"data": {"followers": [_USER]}}, _TASK, {}, **kw)),
        "comment": ("comment_on_task", {"task_gid": _TASK, "text": text}, lambda: stories.create_story_for_task({"data": {"text": text}}, _TASK, {}, **kw)),
        "events": ("get_events", {"resource": _PROJ, "sync": "de4774f6915eae04714ca93bb2f5ee81"}, lambda: next(iter(events.get_events(_PROJ, {"sync": "de4774f6915eae04714ca93bb2f5ee81"}, **kw)))),
        "attach": ("attach_file", {"task_gid": _TASK, "path": files}, lambda: attachments.create_attachment_for_object({"parent": _TASK, "file": files, "resource_subtype": "asana"}, **kw)),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    import asana
    from urllib3.util.retry import Retry

    def client(base: str, retry: Any = None) -> Any:
        conf = asana.Configuration()
        conf.host = base
        conf.access_token = _TOKEN
        conf.retry_strategy = retry if retry is not None else Retry(total=0, raise_on_status=False)
        return asana.ApiClient(conf)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"asana-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    default = Retry(
        total=1,
        backoff_factor=0,
        status_forcelist=[429, 500, 502, 503, 504],
        respect_retry_after_header=False,
    )
    with _saas.service(ctx, "ASANAPORT", "nginx") as svc:
        calls = _calls(client(svc.base), "report.pdf")
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)
        retrying = _calls(client(svc.base, default), "report.pdf")
        for key, call, reply, kind, outcome, cause in _RETRIED:
            tool, args, fn = retrying[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)
        for key, call, reply, cause in _BAD_DATA:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, A, None, exc, tool, args)
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            for call in ("create_task", "list_tasks"):
                tool, args, fn = _calls(client(base), "report.pdf")[call]
                yield case(f"{key}-{call}", cause, kind, outcome, _saas.catch(fn), tool, args)
            if key in ("refused", "hang"):
                tool, args, fn = _calls(client(base, default), "report.pdf")["get_task"]
                yield case(
                    f"{key}-retried",
                    f"{cause} (after the SDK's retries)",
                    kind,
                    outcome,
                    _saas.catch(fn),
                    tool,
                    args,
                )

    # the SDK's own checks and the files the model named (no request sent, or none answered)
    c = client(_saas.dead_base(ctx))
    tasks = asana.TasksApi(c)
    (ctx.tmp / "uploads").mkdir()
    missing, folder = str(ctx.tmp / "uploads" / "report.pdf"), str(ctx.tmp / "uploads")
    # (key, cause, call, tool, the model's arguments)
    local: list[tuple[str, str, Any, str, dict[str, Any]]] = [
        ("unknown-kwarg", "unknown keyword argument to the SDK method", lambda: tasks.get_task(_TASK, {}, opt_feilds="name"), "get_task", {"task_gid": _TASK, "opt_feilds": "name"}),
        ("missing-body", "task fields missing (None)", lambda: tasks.create_task(None, {}), "create_task", {"fields": None}),
        ("missing-task-gid", "task gid missing (None)", lambda: tasks.get_task(None, {}), "get_task", {"task_gid": None}),
        ("attach-missing-file", "file to attach does not exist", _calls(c, missing)["attach"][2], "attach_file", {"task_gid": _TASK, "path": missing}),
        ("attach-directory", "path to attach is a directory", _calls(c, folder)["attach"][2], "attach_file", {"task_gid": _TASK, "path": folder}),
    ]  # fmt: skip
    for key, cause, fn, tool, args in local:
        yield case(key, cause, F, None, _saas.catch(fn), tool, args)
