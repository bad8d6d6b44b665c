# ruff: noqa: B023 - each lambda is called at once
"""atlassian-python-api behind a wiki / issue-tracker tool of an agent: its ``Confluence``
(Server / Data Center client, REST ``/rest/api``), ``ConfluenceV2`` (Cloud, REST v2),
``Jira`` (Server / Data Center, REST v2) and ``JiraCloud`` (REST v3) clients pointed at a
local stand-in of the sites, with HTTP basic credentials of a service account.

How the package reports a failure: ``AtlassianRestAPI.raise_for_status`` raises
``requests.HTTPError`` whose text is Jira's ``errorMessages`` and ``errors`` values joined
(``Unauthorized (401)`` for a 401 that is not ``application/json;charset=UTF-8``; requests'
own ``429 Client Error: ...`` text when the body is not JSON); Confluence's override joins
``message`` / ``reason`` / ``errors``; several Confluence methods replace the HTTPError by the
package's own ``ApiError`` / ``ApiNotFoundError`` / ``ApiPermissionError`` /
``ApiValueError`` / ``ApiConflictError`` with a fixed text (the server's answer only in
``reason`` and the chained exception); the clients check some arguments themselves
(``ValueError``, ``TypeError``), open files the call names (``FileNotFoundError``), and
let requests' transport errors through (timeout 1 s; ``retry_with_header=False`` except in
the ``-retried`` case, which keeps the package's one retry after ``Retry-After``).

The stand-in answers with the bodies Atlassian documents: Confluence's error body
``{"statusCode", "data": {...}, "message", "reason"}`` (Confluence Server REST "Status
codes", developer.atlassian.com/server/confluence/rest/v1002/intro/#about; the content
resource: 400 bad storage format, 403, 404 for missing or not visible, 409 "Version must be
incremented on update"), its CQL parse error (``BadRequestException: Could not parse
cql``), v2's ``{"errors": [{"status", "code", "title", "detail"}]}``
(developer.atlassian.com/cloud/confluence/rest/v2/intro/#status-codes); Jira's
``ErrorCollection`` ``{"errorMessages": [...], "errors": {field: message}}``
(developer.atlassian.com/server/jira/platform/rest/v10000/intro/#status-codes and the
issue, search, project resources); rate limits as Atlassian documents them (Cloud:
developer.atlassian.com/cloud/jira/platform/rate-limiting, 429 with ``Retry-After``,
``X-RateLimit-*``, ``RateLimit-Reason``; Data Center: confluence.atlassian.com/adminjiraserver/
improving-instance-stability-with-rate-limiting-983794911.html, 429 with ``Retry-After``,
``X-RateLimit-Limit`` / ``-Remaining`` / ``-FillRate`` / ``-Interval-Seconds``); the
CAPTCHA lock-out header (``X-Authentication-Denied-Reason: CAPTCHA_CHALLENGE``, Jira REST
"Authentication"); the 401 text of a password sent where an API token is required
(community.developer.atlassian.com, Atlassian's deprecation of basic auth with passwords).

Labels, by the cause set up. Fixable: what the model wrote and the site or the package
rejects: CQL / JQL syntax, a JQL field or status value that is not defined, a page body
that is not valid storage XHTML, a representation / body format / status outside the
package's lists, a summary left out, an issue type, a field not on the screen, a priority
object, a worklog date format, a comment over the length limit, a space key where a
numeric space id is expected, comment ids as text, a CQL limit that is not a number, a
file path that does not exist. Unrecoverable: credentials (401, CAPTCHA), an OAuth
token without the scope, permissions (403), an attachment over the site's size limit.
Ambiguous: a page, space, issue, project or user named that does not exist (the sites
answer the same when it is not visible; Confluence answers a page created in a space that
does not exist with the 403 of "not permitted", and a CQL ``space = KEY`` of a missing
space with 400 "parameters should not be empty", CONFSERVER-101465), a page title already
taken, a version conflict on update, a stale draft, a transition the issue's current state
does not allow, a version name already used. Transient: 429 and 503 -> not executed; 500
/ 504, read timeouts, resets, closed connections -> unknown outcome; refused and DNS ->
not executed.

Not triggered: OAuth / Kerberos sessions, the Server read-only mode (no documented body),
Bitbucket and the other products' clients.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U, caught

LIBRARY = "atlassian-python-api"
REQUIRES = ["atlassian-python-api==5.0.5"]

_CONF = "Confluence Server REST API status codes (developer.atlassian.com/server/confluence/rest/v1002/intro/#about)"
_CONT = "Confluence REST content resource (developer.atlassian.com/server/confluence/rest/v1002/api-group-content-resource)"
_CV2 = "Confluence Cloud REST v2 status codes (developer.atlassian.com/cloud/confluence/rest/v2/intro/#status-codes)"
_JIRA = "Jira Server REST status codes (developer.atlassian.com/server/jira/platform/rest/v10000/intro/#status-codes)"
_JRATE = "Jira Data Center rate limiting (confluence.atlassian.com/adminjiraserver/improving-instance-stability-with-rate-limiting-983794911.html)"
_CRATE = "Confluence Cloud rate limiting (developer.atlassian.com/cloud/confluence/rate-limiting/)"
_JSON = "application/json;charset=UTF-8"
_PAGE = "884736021"
_ISSUE = "OPS-1432"


def _c(status: int, reason: str, message: str, source: str = _CONT, **headers: str) -> Reply:
    body = {
        "statusCode": status,
        "data": {
            "authorized": status not in (401, 403),
            "valid": True,
            "allowedInReadOnlyMode": True,
            "errors": [],
            "successful": False,
        },
        "message": message,
        "reason": reason,
    }
    return Reply(status, json.dumps(body), headers, source, _JSON)


def _j(status: int, messages: list[str], errors: dict[str, str] | None = None, source: str = _JIRA, **headers: str) -> Reply:  # fmt: skip
    return Reply(
        status, json.dumps({"errorMessages": messages, "errors": errors or {}}), headers, source, _JSON
    )


def _v2(status: int, code: str, title: str, detail: str | None = None) -> Reply:
    return Reply(
        status, {"errors": [{"status": status, "code": code, "title": title, "detail": detail}]}, {}, _CV2
    )


def _cloud_rate(reason: str) -> dict[str, str]:
    return {
        "Retry-After": "1",
        "X-RateLimit-Limit": "100",
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": "2026-12-01T00:01Z",
        "RateLimit-Reason": reason,
    }


_DC_RATE = {
    "Retry-After": "1",
    "X-RateLimit-Limit": "20",
    "X-RateLimit-Remaining": "0",
    "X-RateLimit-FillRate": "10",
    "X-RateLimit-Interval-Seconds": "60",
}
_HTML401 = "<html><head><title>Unauthorized (401)</title></head><body><h1>Unauthorized (401)</h1><p>Encountered a &quot;401 - Unauthorized&quot; error while loading this page.</p></body></html>"  # fmt: skip
_CAPTCHA = "<html><head><title>Forbidden (403)</title></head><body><h1>Forbidden (403)</h1><p>CAPTCHA_CHALLENGE</p></body></html>"  # fmt: skip
_HTML502 = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"  # fmt: skip
_HTML504 = "<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center><hr><center>nginx</center></body></html>"  # fmt: skip
_TOKEN_401 = "Basic authentication with passwords is deprecated.  For more information, see: https://developer.atlassian.com/cloud/confluence/deprecation-notice-basic-auth/\n"  # fmt: skip
_HISTORY = Reply(200, {"latest": True, "lastUpdated": {"number": 5, "when": "2026-11-30T09:12:44.000Z"}})
_TRANSITIONS = Reply(
    200,
    {
        "expand": "transitions",
        "transitions": [
            {"id": "21", "name": "Start Progress", "to": {"name": "In Progress", "id": "3"}},
            {"id": "31", "name": "Close Issue", "to": {"name": "Closed", "id": "6"}},
        ],
    },
)


def cases(ctx: Any) -> Iterator[generate.Case]:
    quiet = logging.getLogger("atlassian")
    was = quiet.level
    quiet.setLevel(logging.CRITICAL + 1)  # the package logs each failure it raises (log.error)
    try:
        yield from _cases(ctx)
    finally:
        quiet.setLevel(was)


def _cases(ctx: Any) -> Iterator[generate.Case]:
    from atlassian import Confluence, ConfluenceV2, Jira, JiraCloud

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"atlassian-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    auth = {"username": "svc-agent", "password": "ATATT3xFfGF0-acme-agent-token", "timeout": 1}
    docs = ctx.tmp / "outbox"
    docs.mkdir()
    (docs / "q3-report.pdf").write_bytes(b"%PDF-1.7\n" + b"0" * 2048)

    with _saas.service(ctx, "ATLPORT", "AtlassianProxy/1.19.3.1") as svc:
        base = svc.base
        routes: list[tuple[str, str, Reply]] = []
        default_pick = svc.pick

        def pick(method: str, path: str) -> Reply | str:
            """A reply of ``routes`` for the first (method, path part) that matches, else the case's."""
            for m, part, reply in routes:
                if m == method and part in path:
                    svc.requests.append((method, path))
                    return reply
            return default_pick(method, path)

        svc.pick = pick  # type: ignore[method-assign]

        def clients(url: str, **kw: Any) -> tuple[Any, Any, Any, Any]:
            opts = {**auth, "retry_with_header": False, **kw}
            return (
                Confluence(url, **opts),
                ConfluenceV2(url, **opts),
                Jira(url, **opts),
                JiraCloud(url, **opts),
            )

        conf, conf2, jira, jcloud = clients(base)
        xhtml = "<p>Release <strong>2.4</p></strong>"
        good = "<p>Release 2.4 shipped on 30 November.</p>"
        cql_bad = 'type = page AND title ~ "release notes'
        jql = 'project = OPS AND status = "In Progress" ORDER BY priority DESC'
        fields = {
            "project": {"key": "OPS"},
            "issuetype": {"name": "Bug"},
            "summary": "Checkout fails for EU cards",
        }
        no_summary = {"project": {"key": "OPS"}, "issuetype": {"name": "Bug"}}
        story = {**fields, "issuetype": {"name": "Storyy"}}
        sprint = {**fields, "customfield_10020": 42}
        long_comment = "Stack trace:\n" + "at com.acme.checkout.Card.validate(Card.java:88)\n" * 800
        report = str(docs / "q3-report.pdf")
        missing = str(docs / "q3-report-final.pdf")

        # (key, tool, the model's arguments, the call, reply, routes, kind, outcome, cause)
        served: list[tuple[str, str, dict[str, Any], Callable[[], Any], Reply | str, list[tuple[str, str, Reply]], str, str | None, str]] = [
            # Confluence (Server / Data Center REST)
            ("cql-syntax", "confluence_search", {"cql": cql_bad}, lambda: conf.cql(cql_bad), _c(400, "Bad Request", f"com.atlassian.confluence.api.service.exceptions.BadRequestException: Could not parse cql : {cql_bad}", _CONF), [], F, None, "CQL with an unterminated string"),
            ("cql-space-missing", "confluence_search", {"cql": 'space = "ENGG" AND type = page'}, lambda: conf.cql('space = "ENGG" AND type = page'), _c(400, "Bad Request", "parameters should not be empty", "CONFSERVER-101465 (jira.atlassian.com/browse/CONFSERVER-101465): a CQL space key that does not exist"), [], A, None, "CQL names a space key that does not exist"),
            ("page-bad-xhtml", "confluence_create_page", {"space": "ENG", "title": "Release 2.4", "body": xhtml}, lambda: conf.create_page("ENG", "Release 2.4", xhtml), _c(400, "Bad Request", "Error parsing xhtml: Unexpected close tag </p>; expected </strong>.\n at [row,col {unknown-source}]: [1,34]"), [], F, None, "page body that is not well-formed storage XHTML"),
            ("update-bad-xhtml", "confluence_update_page", {"page_id": _PAGE, "title": "Release 2.4", "body": xhtml}, lambda: conf.update_page(_PAGE, "Release 2.4", xhtml, always_update=True), _c(400, "Bad Request", "Error parsing xhtml: Unexpected close tag </p>; expected </strong>.\n at [row,col {unknown-source}]: [1,34]"), [("GET", "/history", _HISTORY)], F, None, "new page body not well-formed"),
            ("title-taken", "confluence_create_page", {"space": "ENG", "title": "Release notes", "body": good}, lambda: conf.create_page("ENG", "Release notes", good), _c(400, "Bad Request", "A page with this title already exists: A page already exists with the same TITLE in this space"), [], A, None, "page title already used in the space"),
            ("create-space-missing", "confluence_create_page", {"space": "ENGG", "title": "Release 2.4", "body": good}, lambda: conf.create_page("ENGG", "Release 2.4", good), _c(403, "Forbidden", "com.atlassian.confluence.api.service.exceptions.PermissionException: Could not create content with type page"), [], A, None, "space key that does not exist (answered as not permitted)"),
            ("create-forbidden", "confluence_create_page", {"space": "HR", "title": "Offsite plan", "body": good}, lambda: conf.create_page("HR", "Offsite plan", good), _c(403, "Forbidden", "com.atlassian.confluence.api.service.exceptions.PermissionException: Could not create content with type page"), [], U, None, "account may not create pages in the space"),
            ("space-missing", "confluence_get_space", {"space_key": "ENGG"}, lambda: conf.get_space("ENGG"), _c(404, "Not Found", "No space found with key : ENGG"), [], A, None, "space key that does not exist"),
            ("page-missing", "confluence_get_page", {"page_id": "884736099"}, lambda: conf.get_page_by_id("884736099", expand="body.storage"), _c(404, "Not Found", "No content found with id: ContentId{id=884736099}"), [], A, None, "page id not found (or not visible)"),
            ("version-conflict", "confluence_update_page", {"page_id": _PAGE, "title": "Release 2.4", "body": good}, lambda: conf.update_page(_PAGE, "Release 2.4", good, always_update=True), _c(409, "Conflict", "Version must be incremented on update. Current version is: 7"), [("GET", "/history", _HISTORY)], A, None, "page changed by someone else since its version was read"),
            ("update-page-missing", "confluence_update_page", {"page_id": "884736099", "title": "Release 2.4", "body": good}, lambda: conf.update_page("884736099", "Release 2.4", good, always_update=True), _c(404, "Not Found", "No content found with id: ContentId{id=884736099}"), [], A, None, "page to update not found"),
            ("remove-forbidden", "confluence_delete_page", {"page_id": _PAGE}, lambda: conf.remove_content(_PAGE), _c(403, "Forbidden", "com.atlassian.confluence.api.service.exceptions.PermissionException: Not permitted to delete content"), [], U, None, "account may not delete the page"),
            ("remove-stale-draft", "confluence_delete_page", {"page_id": _PAGE}, lambda: conf.remove_content(_PAGE), _c(409, "Conflict", "Stale draft: the draft has been updated by another user"), [], A, None, "draft changed since it was read"),
            ("label-forbidden", "confluence_add_label", {"page_id": _PAGE, "label": "release-2-4"}, lambda: conf.set_page_label(_PAGE, "release-2-4"), _c(403, "Forbidden", "com.atlassian.confluence.api.service.exceptions.PermissionException: User not permitted to edit labels on content with id: 884736021"), [], U, None, "account may not edit the page's labels"),
            ("attach-disabled", "confluence_attach_file", {"page_id": _PAGE, "path": "outbox/q3-report.pdf"}, lambda: conf.attach_file(report, page_id=_PAGE), _c(403, "Forbidden", "com.atlassian.confluence.api.service.exceptions.PermissionException: Could not create attachment"), [("GET", "/child/attachment", Reply(200, {"results": [], "size": 0}))], U, None, "account may not add attachments"),
            ("label-page-missing", "confluence_add_label", {"page_id": "884736099", "label": "release-2-4"}, lambda: conf.set_page_label("884736099", "release-2-4"), _c(404, "Not Found", "No content found with id: ContentId{id=884736099}"), [], A, None, "page to label not found"),
            ("attach-too-large", "confluence_attach_file", {"page_id": _PAGE, "path": "outbox/q3-report.pdf"}, lambda: conf.attach_file(report, page_id=_PAGE), _c(413, "Request Entity Too Large", "The attachment exceeds the maximum configured attachment size of 104857600 bytes"), [("GET", "/child/attachment", Reply(200, {"results": [], "size": 0}))], U, None, "attachment over the site's size limit"),
            ("attach-title-missing", "confluence_attach_file", {"space": "ENG", "title": "Release 2.4 notes", "path": "outbox/q3-report.pdf"}, lambda: conf.attach_file(report, space="ENG", title="Release 2.4 notes"), Reply(200, {"results": [], "start": 0, "limit": 25, "size": 0}), [], A, None, "page title to attach to not found"),
            ("conf-token-required", "confluence_get_page", {"page_id": _PAGE}, lambda: conf.get_page_by_id(_PAGE), Reply(401, _TOKEN_401, {"WWW-Authenticate": 'Basic realm="Protected"'}, "community.developer.atlassian.com/t/55894 (a password where an API token is required)", "text/plain"), [], U, None, "password sent instead of an API token"),
            ("conf-rate-limited", "confluence_search", {"cql": "type = page AND label = release"}, lambda: conf.cql("type = page AND label = release"), Reply(429, "Rate limit exceeded.", _cloud_rate("confluence-quota-global-based"), _CRATE, "text/plain"), [], T, NE, "site rate limit"),
            ("conf-internal", "confluence_update_page", {"page_id": _PAGE, "title": "Release 2.4", "body": good}, lambda: conf.update_page(_PAGE, "Release 2.4", good, always_update=True), _c(500, "Internal Server Error", "java.lang.IllegalStateException: Could not save page: transaction rolled back", _CONF), [("GET", "/history", _HISTORY)], T, UO, "internal error after the update was sent"),
            # Confluence Cloud (REST v2)
            ("v2-space-key-as-id", "confluence_create_page", {"space_id": "ENG", "title": "Release 2.4", "body": good}, lambda: conf2.create_page(space_id="ENG", title="Release 2.4", body=good), _v2(400, "INVALID_REQUEST_PARAMETER", "Provided value {ENG} for 'spaceId' is not the correct type. Expected type is long"), [], F, None, "space key where the numeric space id is expected"),
            ("v2-page-missing", "confluence_get_page", {"page_id": "884736099"}, lambda: conf2.get_page_by_id("884736099"), _v2(404, "NOT_FOUND", "Not Found"), [], A, None, "page id not found (v2)"),
            ("v2-space-key-missing", "confluence_get_space", {"space_key": "ENGG"}, lambda: conf2.get_space_by_key("ENGG"), Reply(200, {"results": [], "_links": {"base": "https://acme.atlassian.net/wiki"}}), [], A, None, "space key that does not exist (empty listing)"),
            ("v2-forbidden", "confluence_update_page", {"page_id": _PAGE, "title": "Release 2.4", "body": good}, lambda: conf2.update_page(_PAGE, title="Release 2.4", body=good, version=5), _v2(403, "PERMISSION_DENIED", "Forbidden", "User does not have permission to update the page"), [], U, None, "account may not edit the page (v2)"),
            # Jira (Server / Data Center REST v2)
            ("jql-field", "jira_search", {"jql": "project = OPS ORDER BY prority"}, lambda: jira.jql("project = OPS ORDER BY prority"), _j(400, ["Field 'prority' does not exist or you do not have permission to view it."]), [], F, None, "JQL names a field that does not exist"),
            ("jql-syntax", "jira_search", {"jql": 'assignee = currentUser() AND status in (Open, "In Progress"'}, lambda: jira.jql('assignee = currentUser() AND status in (Open, "In Progress"'), _j(400, ["Error in the JQL Query: Expecting ')' before the end of the query."]), [], F, None, "JQL with an unclosed list"),
            ("jql-status-value", "jira_search", {"jql": "project = OPS AND status = Blocked"}, lambda: jira.jql("project = OPS AND status = Blocked"), _j(400, ["The value 'Blocked' does not exist for the field 'status'."]), [], F, None, "JQL status value not defined on the site"),
            ("create-no-summary", "jira_create_issue", {"fields": no_summary}, lambda: jira.create_issue(fields=no_summary), _j(400, [], {"summary": "You must specify a summary of the issue."}), [], F, None, "summary left out"),
            ("create-issuetype", "jira_create_issue", {"fields": story}, lambda: jira.create_issue(fields=story), _j(400, [], {"issuetype": "valid issue type is required"}), [], F, None, "issue type not one of the project's"),
            ("create-field-screen", "jira_create_issue", {"fields": sprint}, lambda: jira.create_issue(fields=sprint), _j(400, [], {"customfield_10020": "Field 'customfield_10020' cannot be set. It is not on the appropriate screen, or unknown."}), [], F, None, "field not on the create screen"),
            ("update-priority", "jira_update_issue", {"issue": _ISSUE, "fields": {"priority": {"value": "High"}}}, lambda: jira.update_issue_field(_ISSUE, {"priority": {"value": "High"}}), _j(400, [], {"priority": "Could not find valid 'id' or 'name' in priority object."}), [], F, None, "priority object without id or name"),
            ("worklog-started", "jira_log_work", {"issue": _ISSUE, "started": "2026-11-30 09:00", "seconds": 5400}, lambda: jira.issue_worklog(_ISSUE, "2026-11-30 09:00", 5400), _j(400, [], {"started": "Invalid date format. Please enter the date in the format \"d/MMM/yy h:mm a\"."}), [], F, None, "work start time not in Jira's date format"),
            ("comment-too-long", "jira_add_comment", {"issue": _ISSUE, "comment": long_comment}, lambda: jira.issue_add_comment(_ISSUE, long_comment), _j(400, [], {"comment": "The entered text is too long. It exceeds the allowed limit of 32,767 characters."}), [], F, None, "comment over the length limit"),
            ("issue-missing", "jira_get_issue", {"issue": "OPS-14322"}, lambda: jira.issue("OPS-14322"), _j(404, ["Issue does not exist or you do not have permission to see it."]), [], A, None, "issue key not found (or not visible)"),
            ("project-missing", "jira_get_project", {"project": "OPSX"}, lambda: jira.project("OPSX"), _j(404, ["No project could be found with key 'OPSX'."]), [], A, None, "project key not found"),
            ("assignee-missing", "jira_assign_issue", {"issue": _ISSUE, "assignee": "jdoe2"}, lambda: jira.assign_issue(_ISSUE, "jdoe2"), _j(400, [], {"assignee": "User 'jdoe2' does not exist."}), [], A, None, "user named does not exist"),
            ("transition-state", "jira_transition_issue", {"issue": _ISSUE, "status": "Done"}, lambda: jira.set_issue_status(_ISSUE, "Done"), _j(400, [f"It seems that you have tried to perform a workflow operation (null) that is not valid for the current state of this issue ({_ISSUE}). The likely cause is that somebody has changed the issue recently, please look at the issue history for details."]), [("GET", "/transitions", _TRANSITIONS)], A, None, "status not reachable from the issue's current state"),
            ("version-exists", "jira_add_version", {"project": "OPS", "name": "2.4.0"}, lambda: jira.add_version("OPS", 10200, "2.4.0"), _j(400, [], {"name": "A version with this name already exists in this project."}), [], A, None, "version name already used"),
            ("jira-auth-failed", "jira_get_issue", {"issue": _ISSUE}, lambda: jira.issue(_ISSUE), Reply(401, _HTML401, {"X-Seraph-LoginReason": "AUTHENTICATED_FAILED", "WWW-Authenticate": 'OAuth realm="https%3A%2F%2Fjira.acme.example"'}, _JIRA), [], U, None, "service account's password refused"),
            ("jira-not-authenticated", "jira_search", {"jql": jql}, lambda: jira.jql(jql), _j(401, ["You are not authenticated. Authentication required to perform this operation."]), [], U, None, "credentials missing or expired"),
            ("cloud-scope", "jira_get_issue", {"issue": _ISSUE}, lambda: jcloud.get_issue(_ISSUE), Reply(401, {"code": 401, "message": "Unauthorized; scope does not match"}, {}, "Atlassian OAuth 2.0 scopes (developer.atlassian.com/cloud/jira/platform/scopes-for-oauth-2-3LO-and-forge-apps/)"), [], U, None, "token lacks the scope the call needs"),
            ("jira-captcha", "jira_search", {"jql": jql}, lambda: jira.jql(jql), Reply(403, _CAPTCHA, {"X-Authentication-Denied-Reason": "CAPTCHA_CHALLENGE; login-url=https://jira.acme.example/login.jsp", "X-Seraph-LoginReason": "AUTHENTICATION_DENIED"}, _JIRA), [], U, None, "account locked behind a CAPTCHA after failed logins"),
            ("create-forbidden-jira", "jira_create_issue", {"fields": fields}, lambda: jira.create_issue(fields=fields), _j(403, ["You do not have permission to create issues in this project."]), [], U, None, "account may not create issues in the project"),
            ("jira-rate-limited", "jira_search", {"jql": jql}, lambda: jira.jql(jql), Reply(429, "", _DC_RATE, _JRATE, "text/plain"), [], T, NE, "Data Center rate limit for the account"),
            ("jira-unavailable", "jira_create_issue", {"fields": fields}, lambda: jira.create_issue(fields=fields), _j(503, ["Jira is currently unavailable. Please try again later."], source=_JIRA, **{"Retry-After": "30"}), [], T, NE, "site unavailable (503)"),
            ("jira-gateway-timeout", "jira_update_issue", {"issue": _ISSUE, "fields": {"labels": ["payments"]}}, lambda: jira.update_issue_field(_ISSUE, {"labels": ["payments"]}), Reply(504, _HTML504, {}, "a proxy's page"), [], T, UO, "gateway timeout on an update"),
            # Jira Cloud (REST v3)
            ("cloud-jql-project", "jira_search", {"jql": "project = OPSX AND statusCategory != Done"}, lambda: jcloud.enhanced_jql("project = OPSX AND statusCategory != Done"), _j(400, ["The value 'OPSX' does not exist for the field 'project'."], source="Jira Cloud REST v3 issue search (developer.atlassian.com/cloud/jira/platform/rest/v3/api-group-issue-search)"), [], A, None, "project key in JQL not found (or not visible)"),
            ("cloud-burst", "jira_search", {"jql": jql}, lambda: jcloud.enhanced_jql(jql), Reply(429, "", _cloud_rate("jira-burst-based"), "Jira Cloud rate limiting (developer.atlassian.com/cloud/jira/platform/rate-limiting)", "text/plain"), [], T, NE, "burst rate limit"),
        ]  # fmt: skip
        for key, tool, args, fn, reply, extra, kind, outcome, cause in served:
            routes[:] = extra
            svc.reply(reply)
            yield case(key, cause, kind, outcome, caught(key, fn), tool, args)
        routes[:] = []

        # the package's one retry after Retry-After (its default), then the 429 raised
        svc.reply(Reply(429, "", _DC_RATE, _JRATE, "text/plain"))
        _, _, patient, _ = clients(base, retry_with_header=True)
        yield case("jira-rate-limited-retried", "rate limit, still after the retry the package makes", T, NE, caught("retried", lambda: patient.jql(jql)), "jira_search", {"jql": jql})  # fmt: skip

        # connection-level causes
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            url = {"refused": _saas.dead_base(ctx), "dns": "http://jira.unreachable-host.invalid"}.get(
                key, base
            )
            _, _, j, _ = clients(url)
            yield case(f"jira-{key}", cause, kind, outcome, caught(key, lambda: j.create_issue(fields=fields)), "jira_create_issue", {"fields": fields})  # fmt: skip

        # the package's own checks of the model's arguments (nothing answered)
        local: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
            ("representation", "page representation not one the package knows", F, "confluence_create_page", {"space": "ENG", "title": "Release 2.4", "body": "# Release 2.4", "representation": "markdown"}, lambda: conf.create_page("ENG", "Release 2.4", "# Release 2.4", representation="markdown")),
            ("v2-body-format", "body format not one of the v2 formats", F, "confluence_create_page", {"space_id": "98306", "title": "Release 2.4", "body": "# Release 2.4", "body_format": "markdown"}, lambda: conf2.create_page(space_id="98306", title="Release 2.4", body="# Release 2.4", body_format="markdown")),
            ("v2-status", "page status not one of current / draft", F, "confluence_create_page", {"space_id": "98306", "title": "Release 2.4", "body": good, "status": "published"}, lambda: conf2.create_page(space_id="98306", title="Release 2.4", body=good, status="published")),
            ("cql-limit", "result limit that is not a number", F, "confluence_search", {"cql": "type = page AND label = release", "limit": "fifty"}, lambda: conf.cql("type = page AND label = release", limit="fifty")),
            ("comment-ids-text", "comment issue ids given as text", F, "jira_get_comments", {"issue_ids": ["10431", "10432"]}, lambda: jira.issues_get_comments_by_id("10431", "10432")),
            ("attach-path-missing", "file to attach does not exist", F, "jira_attach_file", {"issue": _ISSUE, "path": "outbox/q3-report-final.pdf"}, lambda: jira.add_attachment(_ISSUE, missing)),
            ("conf-attach-path-missing", "file to attach does not exist", F, "confluence_attach_file", {"page_id": _PAGE, "path": "outbox/q3-report-final.pdf"}, lambda: conf.attach_file(missing, page_id=_PAGE)),
        ]  # fmt: skip
        for key, cause, kind, tool, args, fn in local:
            yield case(key, cause, kind, None, caught(key, fn), tool, args)
