# ruff: noqa: B023 - each lambda is called at once
"""jira (python-jira): the Jira REST API's errors as the client raises them (``JIRAError``
with the status, URL, the parsed ``errorMessages`` / ``errors`` and the response; the
``x-authentication-denied-reason`` header of a CAPTCHA challenge), requests' transport
errors through its ``ResilientSession`` (``max_retries=0``), and the client's own checks,
through ``JIRA(server=...)`` pointed at a local stand-in of a Jira site.

Bodies are Jira's ``ErrorCollection`` (``{"errorMessages": [...], "errors": {field:
message}}``, developer.atlassian.com/cloud/jira/platform/rest/v2/intro/#status-codes) with
the statuses each endpoint documents (developer.atlassian.com/cloud/jira/platform/rest/v2/
api-group-issues, -issue-search, -issue-comments, -issue-worklogs, -projects: 400, 401,
403, 404, 409, 410, 413, 422) and the field / JQL messages Jira returns for them; rate
limits as developer.atlassian.com/cloud/jira/platform/rate-limiting documents them (429
with ``Retry-After``, ``X-RateLimit-*``, ``RateLimit-Reason`` jira-burst-based /
jira-quota-tenant-based / jira-per-issue-on-write; 503 with ``Retry-After``); the removed
``/rest/api/2/search`` (410) as developer.atlassian.com/changelog/#CHANGE-2046 announces
it; the CAPTCHA header as Atlassian's KB ("REST API calls return 403 with
X-Authentication-Denied-Reason: CAPTCHA_CHALLENGE"). Search first reads ``/field``: the
stand-in answers that one with an empty list.

Labels: a field value, JQL, transition, worklog duration or attachment path the call gave
that is rejected -> fixable; credentials, permissions, a CAPTCHA lock-out, the removed API,
a per-issue limit, a site configuration problem (422) -> unrecoverable; 429 and 503 ->
transient, not executed; 500 / 504 and read timeouts / resets -> transient, unknown
outcome; not found (the site answers the same for "no permission") and a conflicting
update (409) -> ambiguous, as the other modules label them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "jira"
REQUIRES = ["jira>=3.5,<4"]

_V2 = "Jira Cloud REST v2 (developer.atlassian.com/cloud/jira/platform/rest/v2/intro/#status-codes)"
_ISSUES = "Jira REST v2 issues (developer.atlassian.com/cloud/jira/platform/rest/v2/api-group-issues)"
_SEARCH = (
    "Jira REST v2 issue search (developer.atlassian.com/cloud/jira/platform/rest/v2/api-group-issue-search)"
)
_RATE = "Jira Cloud rate limiting (developer.atlassian.com/cloud/jira/platform/rate-limiting)"
_ISSUE_GONE = "Issue does not exist or you do not have permission to see it."


def _j(
    status: int, messages: list[str], errors: dict[str, str] | None = None, source: str = _V2, **headers: str
) -> Reply:
    return Reply(status, {"errorMessages": messages, "errors": errors or {}}, headers, source)


def _rate(reason: str, retry_after: str) -> dict[str, str]:
    return {
        "Retry-After": retry_after,
        "X-RateLimit-Limit": "100",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": "2026-12-01T00:01Z",
        "RateLimit-Reason": reason,
    }


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the call's arguments
    (
        "create_no_summary",
        "create",
        _j(400, [], {"summary": "You must specify a summary of the issue."}, _ISSUES),
        F,
        None,
        "summary missing",
    ),
    (
        "create_bad_issuetype",
        "create",
        _j(400, [], {"issuetype": "The issue type selected is invalid."}, _ISSUES),
        F,
        None,
        "issue type not valid for the project",
    ),
    (
        "create_field_not_on_screen",
        "create",
        _j(
            400,
            [],
            {
                "customfield_10020": "Field 'customfield_10020' cannot be set. It is not on the appropriate screen, or unknown."
            },
            _ISSUES,
        ),
        F,
        None,
        "custom field not on the create screen / unknown",
    ),
    (
        "create_bad_project",
        "create",
        _j(400, [], {"project": "valid project is required"}, _ISSUES),
        F,
        None,
        "project key not valid",
    ),
    (
        "create_summary_too_long",
        "create",
        _j(400, [], {"summary": "Summary must be less than 255 characters."}, _ISSUES),
        F,
        None,
        "summary over 255 characters",
    ),
    (
        "create_bad_priority",
        "create",
        _j(400, [], {"priority": "The priority selected is invalid."}, _ISSUES),
        F,
        None,
        "priority not valid",
    ),
    (
        "create_bad_duedate",
        "create",
        _j(400, [], {"duedate": "Error parsing date string: 2026-13-45"}, _ISSUES),
        F,
        None,
        "due date not a valid date",
    ),
    (
        "jql_syntax",
        "search",
        _j(
            400,
            [
                "Error in the JQL Query: Expecting operator but got 'OPS'. The valid operators are '=', '!=', '<', '>', '<=', '>=', '~', '!~', 'IN', 'NOT IN', 'IS' and 'IS NOT'. (line 1, character 9)"
            ],
            source=_SEARCH,
        ),
        F,
        None,
        "JQL syntax error",
    ),
    (
        "jql_unknown_field",
        "search",
        _j(400, ["Field 'priorty' does not exist or you do not have permission to view it."], source=_SEARCH),
        F,
        None,
        "JQL names a field that does not exist",
    ),
    (
        "jql_unknown_value",
        "search",
        _j(400, ["The value 'OPZ' does not exist for the field 'project'."], source=_SEARCH),
        F,
        None,
        "JQL value does not exist for the field",
    ),
    (
        "jql_reserved_char",
        "search",
        _j(
            400,
            [
                "Error in the JQL Query: The character '%' is a reserved JQL character. You must enclose it in a string or use the escape '\\u0025' instead. (line 1, character 22)"
            ],
            source=_SEARCH,
        ),
        F,
        None,
        "JQL with an unquoted reserved character",
    ),
    (
        "transition_invalid",
        "transition",
        _j(400, ["Transition id '99' is not valid for this issue."], source=_ISSUES),
        F,
        None,
        "transition id not valid for the issue's status",
    ),
    (
        "transition_field_required",
        "transition",
        _j(400, [], {"resolution": "Resolution is required."}, _ISSUES),
        F,
        None,
        "transition screen requires a field",
    ),
    (
        "worklog_bad_duration",
        "worklog",
        _j(400, [], {"timeLogged": "Invalid time duration entered."}),
        F,
        None,
        "worklog duration malformed",
    ),
    (
        "comment_empty",
        "comment",
        _j(400, [], {"comment": "Comment body can not be empty!"}),
        F,
        None,
        "empty comment body",
    ),
    (
        "assignee_not_assignable",
        "create",
        _j(400, [], {"assignee": "User 'ops-intern' cannot be assigned issues."}, _ISSUES),
        F,
        None,
        "assignee cannot be assigned issues in the project",
    ),
    # credentials, permissions, limits
    (
        "unauthenticated",
        "issue",
        Reply(401, "Client must be authenticated to access this resource.", {}, _V2),
        U,
        None,
        "API token wrong / missing",
    ),
    (
        "no_create_permission",
        "create",
        _j(403, ["You do not have permission to create issues in this project."], source=_ISSUES),
        U,
        None,
        "no permission to create issues",
    ),
    (
        "no_comment_permission",
        "comment",
        _j(403, ["You do not have the permission to comment on this issue."]),
        U,
        None,
        "no permission to comment",
    ),
    (
        "no_worklog_permission",
        "worklog",
        _j(403, ["You do not have the permission to associate a worklog to this issue."]),
        U,
        None,
        "no permission to log work",
    ),
    (
        "captcha",
        "issue",
        Reply(
            403,
            "",
            {
                "X-Authentication-Denied-Reason": "CAPTCHA_CHALLENGE; login-url=https://jira.example.com/login.jsp"
            },
            "Atlassian KB: REST API returns 403 with X-Authentication-Denied-Reason CAPTCHA_CHALLENGE",
        ),
        U,
        None,
        "account locked behind a CAPTCHA after failed logins",
    ),
    (
        "search_api_removed",
        "search",
        _j(
            410,
            [
                "The requested API has been removed. Please migrate to the /rest/api/3/search/jql API. A full migration guideline is available at https://developer.atlassian.com/changelog/#CHANGE-2046"
            ],
            source="Atlassian changelog CHANGE-2046 (developer.atlassian.com/changelog/#CHANGE-2046)",
        ),
        U,
        None,
        "search endpoint removed (client too old)",
    ),
    (
        "comment_limit",
        "comment",
        _j(413, [], source="Jira REST v2 issue comments: 413 per-issue limit breached"),
        U,
        None,
        "per-issue comment limit reached",
    ),
    (
        "create_config_problem",
        "create",
        _j(422, [], source="Jira REST v2 create issue: 422 configuration problem"),
        U,
        None,
        "site configuration prevents creating the issue",
    ),
    # not found, conflicts
    (
        "issue_not_found",
        "issue",
        _j(404, [_ISSUE_GONE], source=_ISSUES),
        A,
        None,
        "issue not found (or not visible)",
    ),
    (
        "comment_issue_not_found",
        "comment",
        _j(404, [_ISSUE_GONE]),
        A,
        None,
        "comment on an issue not found",
    ),
    (
        "project_not_found",
        "project",
        _j(
            404,
            ["No project could be found with key 'OPZ'."],
            source="Jira REST v2 projects (api-group-projects)",
        ),
        A,
        None,
        "project not found",
    ),
    (
        "transition_conflict",
        "transition",
        _j(409, [], source="Jira REST v2 transition issue: 409 conflicting update"),
        A,
        None,
        "conflicting update of the issue",
    ),
    # the service's side
    (
        "rate_burst",
        "create",
        Reply(429, "", _rate("jira-burst-based", "5"), _RATE),
        T,
        NE,
        "burst rate limit (429 with Retry-After)",
    ),
    (
        "rate_quota",
        "search",
        Reply(429, "", _rate("jira-quota-tenant-based", "1800"), _RATE),
        T,
        NE,
        "tenant hourly quota rate limit",
    ),
    (
        "rate_per_issue",
        "comment",
        Reply(429, "", _rate("jira-per-issue-on-write", "2"), _RATE),
        T,
        NE,
        "per-issue write rate limit",
    ),
    (
        "unavailable",
        "issue",
        Reply(503, {"errorMessage": "Service temporary unavailable"}, {"Retry-After": "30"}, _RATE),
        T,
        NE,
        "service unavailable (503 with Retry-After)",
    ),
    (
        "internal",
        "create",
        _j(500, ["Internal server error"]),
        T,
        UO,
        "internal server error",
    ),
    (
        "gateway_timeout",
        "search",
        Reply(
            504,
            "<html><body><h1>504 Gateway Time-out</h1>\nThe server didn't respond in time.\n</body></html>\n",
            {},
            "edge proxy 504",
        ),
        T,
        UO,
        "gateway timeout",
    ),
]

_FIELDS = {"project": {"key": "OPS"}, "summary": "Disk alert on db-3", "issuetype": {"name": "Task"}}

# call -> (tool, the model's arguments, the call); the site and its credentials are the tool's
_CALLS: dict[str, tuple[str, dict[str, Any], Any]] = {
    "issue": ("get_issue", {"issue": "OPS-123"}, lambda j: j.issue("OPS-123")),
    "project": ("get_project", {"project": "OPZ"}, lambda j: j.project("OPZ")),
    "search": (
        "search_issues",
        {"jql": "project = OPS AND status = Open"},
        lambda j: j.search_issues("project = OPS AND status = Open"),
    ),
    "create": (
        "create_issue",
        {"fields": _FIELDS},
        lambda j: j.create_issue(
            fields={"project": {"key": "OPS"}, "summary": "Disk alert on db-3", "issuetype": {"name": "Task"}}
        ),
    ),
    "comment": (
        "add_comment",
        {"issue": "OPS-123", "body": "Restarted the service."},
        lambda j: j.add_comment("OPS-123", "Restarted the service."),
    ),
    "transition": (
        "transition_issue",
        {"issue": "OPS-123", "transition": "31"},
        lambda j: j.transition_issue("OPS-123", "31"),
    ),
    "worklog": (
        "add_worklog",
        {"issue": "OPS-123", "timeSpent": "2h"},
        lambda j: j.add_worklog("OPS-123", timeSpent="2h"),
    ),
}

# What the site's answer says the model put in the request body (which the stand-in does
# not read, nor the exception show): the arguments of those calls. (A search's JQL is in
# the URL the exception shows, so it stays the call's.)
_SENT: dict[str, dict[str, Any]] = {
    "create_no_summary": {"fields": {"project": {"key": "OPS"}, "issuetype": {"name": "Task"}}},
    "create_field_not_on_screen": {"fields": {**_FIELDS, "customfield_10020": 42}},
    "create_summary_too_long": {"fields": {**_FIELDS, "summary": "Disk alert on db-3 " * 14}},
    "create_bad_priority": {"fields": {**_FIELDS, "priority": {"name": "Urgent"}}},
    "create_bad_duedate": {"fields": {**_FIELDS, "duedate": "2026-13-45"}},
    "assignee_not_assignable": {"fields": {**_FIELDS, "assignee": {"name": "ops-intern"}}},
    "transition_invalid": {"issue": "OPS-123", "transition": "99"},
    "worklog_bad_duration": {"issue": "OPS-123", "timeSpent": "two hours"},
    "comment_empty": {"issue": "OPS-123", "body": ""},
}


def cases(ctx: Any) -> Iterator[generate.Case]:
    from jira import JIRA

    def client(base: str) -> Any:
        return JIRA(
            server=base,
            basic_auth=("ops-bot@example.com", "ATATT3xFfGF0-example-token"),
            get_server_info=False,
            max_retries=0,
            timeout=_saas.TIMEOUT,
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
        return generate.Case(f"jira-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "JIRAPORT") as svc:
        plain_pick = svc.pick

        def pick(method: str, path: str) -> Reply | str:
            if path == "/rest/api/2/field":
                return Reply(200, [])
            return plain_pick(method, path)

        svc.pick = pick  # type: ignore[method-assign]
        j = client(svc.base)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = _CALLS[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(j)), tool, _SENT.get(key, args))

        # the client's own checks of the call's arguments
        svc.reply(
            Reply(200, {"transitions": [{"id": "31", "name": "Done"}, {"id": "21", "name": "In Progress"}]})
        )
        yield case(
            "transition_name_unknown",
            "transition name not among the issue's transitions",
            F,
            None,
            _saas.catch(lambda: j.transition_issue("OPS-123", "Closed")),
            "transition_issue",
            {"issue": "OPS-123", "transition": "Closed"},
        )
        missing = ctx.tmp / "reports" / "q3-summary.pdf"
        yield case(
            "attachment_missing",
            "attachment path does not exist",
            F,
            None,
            _saas.catch(lambda: j.add_attachment("OPS-123", str(missing))),
            "add_attachment",
            {"issue": "OPS-123", "path": str(missing)},
        )

        for call in ("create", "issue"):
            tool, args, fn = _CALLS[call]
            for key, kind, outcome, cause in _saas.TRANSPORT:
                svc.reply(key)
                base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
                jb = client(base)
                yield case(f"{key}-{call}", cause, kind, outcome, _saas.catch(lambda: fn(jb)), tool, args)
