"""todoist-api-python (4.x, the official SDK of the unified Todoist API v1, httpx under it)
behind a task tool, against a local stand-in of ``https://api.todoist.com/api/v1``.

The SDK has no base-URL option: its endpoints are ``https://api.todoist.com/api/v1/...``
(``_core.endpoints.API_URL``). It takes the ``httpx.Client`` it sends with
(``TodoistAPI(token, client=...)``, its documented parameter), so the tool hands it a client
whose transport (``httpx.BaseTransport``, httpx's public extension point) carries each
request to the stand-in unchanged but for the address, and gives it the tool's 1 s timeout
(the SDK asks for 60 s reads on every call). The request, and so every message, keeps the
SDK's own URL; nothing inside the SDK is patched.

The tools: ``add_task`` (content, due string, due language, priority, labels, project id:
the model's), ``close_task`` / ``reopen_task`` / ``delete_task`` (a task id) and
``get_project`` (a project id). What they raise: ``httpx.HTTPStatusError`` from the SDK's
``raise_for_status()`` for every error status ("Client error '404 Not Found' for url ..."),
its body kept on the exception's ``response``; ``httpx.ConnectError`` / ``ReadTimeout`` /
``ReadError`` / ``RemoteProtocolError`` for the transport; and for a reply it cannot read,
``json.JSONDecodeError``, the SDK's ``TypeError`` ("Expected response to be a JSON object")
and dataclass-wizard's ``MissingFields`` / ``ParseError`` from ``Task`` / ``Project.from_dict``.

Statuses follow the API v1 reference (developer.todoist.com/api/v1/, "Errors" and each
endpoint's responses: 400 bad request, 401 unauthorized, 403 forbidden, 404 not found, 429
too many requests with ``Retry-After``, 500 / 502 / 503 / 504); bodies are its error object
``{"error", "error_code", "error_extra", "error_tag", "http_code"}``, as the Todoist API list
announced it (groups.google.com/a/doist.com/g/todoist-api/c/U-piUUvG0no: 403 ``AUTH_USER_DELETED``
411 "User deleted"), with the tags of the v1 reference (``INVALID_ARGUMENT_VALUE``,
``ARGUMENT_MISSING``, ``INVALID_DATE_FORMAT``, ``NOT_FOUND``, ``AUTH_INVALID_TOKEN``,
``FORBIDDEN``, ``MAX_ITEMS_LIMIT_REACHED``, ``TOO_MANY_REQUESTS``, ``SERVICE_UNAVAILABLE``).
The limits are the SDK's own annotations (content 1-500 characters, priority 1-4,
``due_string`` at most 150, labels at most 100 characters) and the plan limits page
(todoist.com/help/articles/usage-limits-in-todoist-e5rcSY: tasks per project).

Labels by the cause set up. Fixable: the model's values (priority out of range or a word,
an unparsable due string, empty or over-long content, a due language that is not a code,
labels as one string, a project name or a task's text where the id goes). Unrecoverable:
the token, the user deleted, no permission in a shared project, the plan's task limit.
Ambiguous: a task or project id not found (completed and purged, deleted, a typo), replies
the SDK cannot read (an HTML page, a list, a task without its fields, a project with a
malformed date). Transient: 429, 503, refused, DNS -> not executed; 500 / 502 / 504, read
timeout, reset, close -> unknown outcome. The status alone is in the exception's text: the
cause of each 4xx is in the body the exception keeps.

Not triggered: the SDK's ``Annotated`` limits are not checked before sending (nothing local
to trigger); OAuth (``get_auth_token``) and the sync endpoints.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "todoist-api-python"
REQUIRES = ["todoist-api-python>=4,<5"]

_REF = "Todoist API v1 reference (developer.todoist.com/api/v1/)"
_GROUP = "Todoist API list, response error codes (groups.google.com/a/doist.com/g/todoist-api/c/U-piUUvG0no)"
_LIMITS = "Todoist usage limits (todoist.com/help/articles/usage-limits-in-todoist-e5rcSY)"
_TOKEN = "0123456789abcdef0123456789abcdef01234567"
_TASK = "6X7rM8997g3RQmvh"
_PROJECT = "6Jf8VQXxpwv56VQ7"


def _e(
    status: int,
    error: str,
    code: int,
    tag: str,
    source: str = _REF,
    extra: dict[str, Any] | None = None,
    **headers: str,
) -> Reply:
    body = {
        "error": error,
        "error_code": code,
        "error_extra": extra or {},
        "error_tag": tag,
        "http_code": status,
    }
    return Reply(status, body, headers, source)


def _invalid(argument: str) -> Reply:
    return _e(400, "Invalid argument value", 20, "INVALID_ARGUMENT_VALUE", extra={"argument": argument})


def _page(status: str) -> str:
    return f"<html><head><title>{status}</title></head><body><center><h1>{status}</h1></center><hr><center>nginx</center></body></html>"  # fmt: skip


_NOT_FOUND_TASK = _e(404, "Task not found", 478, "NOT_FOUND")
_NOT_FOUND_PROJECT = _e(404, "Project not found", 478, "NOT_FOUND")
_TOO_MANY = _e(429, "Too many requests. Limits reached. Try again later", 35, "TOO_MANY_REQUESTS", extra={"retry_after": 14}, **{"Retry-After": "14"})  # fmt: skip
_PROJECT_BODY = {"id": _PROJECT, "name": "Work", "description": "", "order": 1, "color": "blue", "is_collapsed": False, "is_shared": False, "is_favorite": False, "is_archived": False, "can_assign_tasks": False, "view_style": "list", "created_at": "yesterday", "updated_at": "2026-11-20T10:00:00.000000Z"}  # fmt: skip

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply | str, str, str | None, str]] = [
    # the model's values
    ("priority-out-of-range", "add_priority_5", _invalid("priority"), F, None, "priority 5 (1-4)"),
    ("priority-word", "add_priority_word", _invalid("priority"), F, None, "priority written as a word"),
    ("due-string-unparsable", "add_due_bad", _e(400, "Date is in invalid format", 482, "INVALID_DATE_FORMAT", extra={"argument": "due_string"}), F, None, "due string Todoist cannot parse"),
    ("due-string-too-long", "add_due_long", _invalid("due_string"), F, None, "due string over 150 characters"),
    ("content-missing", "add_empty", _e(400, "Required argument is missing", 19, "ARGUMENT_MISSING", extra={"argument": "content"}), F, None, "task content empty"),
    ("content-too-long", "add_long", _invalid("content"), F, None, "task content over 500 characters"),
    ("due-lang-invalid", "add_due_lang", _invalid("due_lang"), F, None, "due language not a language code"),
    ("labels-not-list", "add_labels_string", _invalid("labels"), F, None, "labels given as one string"),
    ("label-too-long", "add_label_long", _invalid("labels"), F, None, "label name over 100 characters"),
    ("project-name-not-id", "add_project_name", _invalid("project_id"), F, None, "project name where the project id goes"),
    ("task-text-not-id", "close_text", _invalid("task_id"), F, None, "task text where the task id goes"),
    ("task-text-not-id-reopen", "reopen_text", _invalid("task_id"), F, None, "task text where the task id goes (reopen)"),
    ("project-name-not-id-get", "get_project_name", _invalid("project_id"), F, None, "project name where the project id goes (get)"),
    # the token, the user, the plan
    ("invalid-token", "add", _e(401, "Invalid token", 401, "AUTH_INVALID_TOKEN"), U, None, "API token invalid or revoked"),
    ("invalid-token-close", "close", _e(401, "Invalid token", 401, "AUTH_INVALID_TOKEN"), U, None, "API token invalid (on close)"),
    ("invalid-token-project", "get_project", _e(401, "Invalid token", 401, "AUTH_INVALID_TOKEN"), U, None, "API token invalid (on a read)"),
    ("user-deleted", "get_project", _e(403, "User deleted", 411, "AUTH_USER_DELETED", _GROUP), U, None, "token's user deleted"),
    ("forbidden-delete", "delete", _e(403, "Forbidden", 483, "FORBIDDEN"), U, None, "no permission to delete in the shared project"),
    ("forbidden-reopen", "reopen", _e(403, "Forbidden", 483, "FORBIDDEN"), U, None, "no permission to reopen in the shared project"),
    ("max-items", "add", _e(403, "Maximum number of items per user project limit reached", 48, "MAX_ITEMS_LIMIT_REACHED", _LIMITS), U, None, "plan's task limit for the project reached"),
    # ids not found
    ("task-not-found-close", "close", _NOT_FOUND_TASK, A, None, "task id not found (close)"),
    ("task-not-found-reopen", "reopen", _NOT_FOUND_TASK, A, None, "task id not found (reopen)"),
    ("task-not-found-delete", "delete", _NOT_FOUND_TASK, A, None, "task already deleted"),
    ("project-not-found", "get_project", _NOT_FOUND_PROJECT, A, None, "project id not found"),
    ("project-not-found-add", "add_in_project", _NOT_FOUND_PROJECT, A, None, "project of the new task not found"),
    # load, outages
    ("rate-limited-add", "add", _TOO_MANY, T, NE, "request limit reached"),
    ("rate-limited-close", "close", _TOO_MANY, T, NE, "request limit reached (close)"),
    ("service-unavailable", "get_project", _e(503, "Service unavailable", 503, "SERVICE_UNAVAILABLE"), T, NE, "service unavailable"),
    ("internal-error", "add", _e(500, "Internal server error", 500, "INTERNAL_SERVER_ERROR"), T, UO, "500 after the task was sent"),
    ("bad-gateway", "close", Reply(502, _page("502 Bad Gateway"), {}, "a proxy's page"), T, UO, "502 after the close was sent"),
    ("gateway-timeout", "reopen", Reply(504, _page("504 Gateway Time-out"), {}, "a proxy's page"), T, UO, "504 after the reopen was sent"),
]  # fmt: skip

# replies the SDK cannot read: (key, call, reply, cause)
_BAD_DATA: list[tuple[str, str, Reply, str]] = [
    ("html-200", "get_project", Reply(200, "<html><head><title>Todoist</title></head><body>We'll be back soon.</body></html>"), "an HTML page instead of the project"),
    ("list-200", "get_project", Reply(200, [{"id": _PROJECT, "name": "Work"}]), "a list instead of the project"),
    ("task-missing-fields", "add", Reply(200, {"id": _TASK, "content": "Renew passport"}), "task reply without its fields"),
    ("project-bad-date", "get_project", Reply(200, _PROJECT_BODY), "project's created_at not a timestamp"),
]  # fmt: skip


def _calls(api: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the token and host are the tool's."""

    def add(**fields: Any) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        return "add_task", fields, lambda: api.add_task(**fields)

    task = {
        "content": "Renew passport",
        "due_string": "next friday at 9am",
        "priority": 4,
        "labels": ["admin"],
    }
    return {
        "add": add(**task),
        "add_priority_5": add(**dict(task, priority=5)),
        "add_priority_word": add(**dict(task, priority="high")),
        "add_due_bad": add(**dict(task, due_string="next blursday")),
        "add_due_long": add(**dict(task, due_string="every other weekday after the first monday of each quarter except public holidays, starting when the new fiscal year begins, at nine in the morning")),
        "add_empty": add(**dict(task, content="")),
        "add_long": add(**dict(task, content="Renew passport: " + "collect the forms, photos and old passport; " * 12)),
        "add_due_lang": add(**dict(task, due_lang="english")),
        "add_labels_string": add(**dict(task, labels="admin,errands")),
        "add_label_long": add(**dict(task, labels=["things to do before the trip to Lisbon in spring, including the passport, visas and the travel insurance"])),
        "add_project_name": add(**dict(task, project_id="Personal")),
        "add_in_project": add(**dict(task, project_id=_PROJECT)),
        "close": ("close_task", {"task_id": _TASK}, lambda: api.complete_task(_TASK)),
        "close_text": ("close_task", {"task_id": "Renew passport"}, lambda: api.complete_task("Renew passport")),
        "reopen": ("reopen_task", {"task_id": _TASK}, lambda: api.uncomplete_task(_TASK)),
        "reopen_text": ("reopen_task", {"task_id": "Renew passport"}, lambda: api.uncomplete_task("Renew passport")),
        "delete": ("delete_task", {"task_id": _TASK}, lambda: api.delete_task(_TASK)),
        "get_project": ("get_project", {"project_id": _PROJECT}, lambda: api.get_project(_PROJECT)),
        "get_project_name": ("get_project", {"project_id": "Work"}, lambda: api.get_project("Work")),
    }  # fmt: skip


def _transport(base: str) -> Any:
    """The tool's transport: each request goes to ``base`` (the stand-in) as it was written,
    with the tool's timeout."""
    import httpx

    class ToStandIn(httpx.BaseTransport):
        def __init__(self) -> None:
            self.target = httpx.URL(base)
            self.inner = httpx.HTTPTransport()

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            url = request.url.copy_with(
                scheme=self.target.scheme, host=self.target.host, port=self.target.port
            )
            headers = request.headers.copy()
            headers["host"] = url.netloc.decode()
            timeout = dict.fromkeys(("connect", "read", "write", "pool"), _saas.TIMEOUT)
            sent = httpx.Request(
                request.method,
                url,
                headers=headers,
                stream=request.stream,
                extensions={**request.extensions, "timeout": timeout},
            )
            return self.inner.handle_request(sent)

        def close(self) -> None:
            self.inner.close()

    return ToStandIn()


def cases(ctx: Any) -> Iterator[generate.Case]:
    import httpx
    from todoist_api_python.api import TodoistAPI

    def client(base: str) -> Any:
        return TodoistAPI(_TOKEN, client=httpx.Client(transport=_transport(base)))

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"todoist-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "TODOISTPORT", "nginx") as svc:
        calls = _calls(client(svc.base))
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)
        for key, call, reply, cause in _BAD_DATA:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, A, None, _saas.caught(key, fn), tool, args)
        for (key, kind, outcome, cause), call in zip(
            _saas.TRANSPORT, ("add", "get_project", "add", "close", "delete"), strict=True
        ):
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            tool, args, fn = _calls(client(base))[call]
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)
