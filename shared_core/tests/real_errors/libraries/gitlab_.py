"""python-gitlab: the GitLab REST API's errors as python-gitlab raises them
(``GitlabCreateError`` / ``GitlabGetError`` / ``GitlabListError`` / ``GitlabUpdateError`` /
``GitlabMRClosedError`` ... with the status and GitLab's ``message`` or ``error``,
``GitlabAuthenticationError`` for 401, ``GitlabHttpError`` for a raw call,
``GitlabParsingError`` for a body that is not JSON, ``GitlabCiLintError`` for a CI file
that does not lint, ``RedirectError``), ``requests``' transport failures, and
python-gitlab's own checks (``AttributeError`` "Missing attributes" / "Provide only one of
these attributes", ``GitlabDataError`` for an instance name its configuration lacks),
through ``gitlab.Gitlab(url)`` pointed at a local stand-in of a GitLab instance.

Statuses and bodies as GitLab's REST docs show them: "Status codes" and "Data validation
and error reporting" (docs.gitlab.com/api/rest/troubleshooting/: 400 with
``{"message": {"<attribute>": ["<error>"]}}``, ``{"message": "400 (Bad request) \\"title\\"
not given"}`` or Grape's ``{"error": "<param> does not have a valid value"}``, 401, 403,
404 "A resource couldn't be accessed. For example, an ID for a resource couldn't be found,
or the user isn't authorized to access the resource", 405, 409, 422, 429, 500, 503), the
merge endpoint (docs.gitlab.com/api/merge_requests/#merge-a-merge-request: 401 no
permission, 405 draft/closed/pipeline not passed, 406 conflicts "Branch cannot be merged",
409 "SHA does not match HEAD of source branch"), repository files
(docs.gitlab.com/api/repository_files/: "A file with this name already exists", "You are
attempting to update a file that has changed since you started editing it."), branches,
tags, pipelines ("Reference not found"), OAuth scopes (docs.gitlab.com/api/rest/
authentication/: 403 ``insufficient_scope``), rate limits (docs.gitlab.com/administration/
settings/user_and_ip_rate_limits/: 429 "Retry later" with ``RateLimit-*`` and
``Retry-After`` headers), maintenance mode (docs.gitlab.com/administration/
maintenance_mode/: writes answered 403 "You cannot perform write operations on a
read-only instance") and GitLab's own 502 page ("Whoops, GitLab is taking too much time to
respond.").

Labels: a field value, state, order, scope, branch or ref name, CI YAML or instance name
the model wrote -> fixable; token, scope, role, protected branch, a missing configuration
file, ``requests-toolbelt`` not installed -> unrecoverable; not found (GitLab answers 404
as well for what the token may not see), an existing name, a file changed since it was
read, a merge request that cannot be merged in its current state, a project's own CI file
that does not lint (read from the repository), a server that answered HTML where JSON was
due, and a 500 with nothing more said -> ambiguous; 429 / 503 / maintenance mode / refused
/ DNS -> transient, not executed; 502 / 504 / read timeout / reset / close -> transient,
unknown outcome. The client is made with ``retry_transient_errors=False`` (python-gitlab's
default); the 429 calls pass ``obey_rate_limit=False`` but one, where python-gitlab's own
wait-and-retry (``Retry-After``) runs out. A POST that the instance redirects (an
``http://`` URL configured for an ``https://`` instance): ``RedirectError``, the tool's
configured URL, unrecoverable.

Not triggered: 412 (conditional requests the SDK does not send), 413 uploads (the SDK
streams files the tool does not send here).
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import generate

from libraries import _pkgcopy, _saas, _serve
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "python-gitlab"
REQUIRES = ["python-gitlab>=4.4,<8"]

_REST = "GitLab REST status codes (docs.gitlab.com/api/rest/troubleshooting/)"
_MERGE = "GitLab merge a merge request (docs.gitlab.com/api/merge_requests/#merge-a-merge-request)"
_FILES = "GitLab repository files (docs.gitlab.com/api/repository_files/)"
_RATE = "GitLab rate limits (docs.gitlab.com/administration/settings/user_and_ip_rate_limits/)"
_TOKEN = "glpat-Q5x8mT3kLw2pYzA1b2C3"
_RL = {
    "RateLimit-Name": "throttle_authenticated_api",
    "RateLimit-Limit": "60",
    "RateLimit-Observed": "67",
    "RateLimit-Remaining": "0",
    "RateLimit-Reset": "1796083260",
    "RateLimit-ResetTime": "Tue, 01 Dec 2026 00:01:00 GMT",
}


def _m(status: int, message: Any, source: str = _REST, **headers: str) -> Reply:
    return Reply(status, {"message": message}, headers, source)


def _err(status: int, error: str, source: str = _REST) -> Reply:
    return Reply(status, {"error": error}, {}, source)


_WHOOPS = (
    '<!DOCTYPE html>\n<html>\n<head>\n<meta content="width=device-width, initial-scale=1, maximum-scale=1"'
    ' name="viewport">\n<title>Something went wrong (502)</title>\n</head>\n<body>\n<h1>502</h1>\n'
    "<h3>Whoops, GitLab is taking too much time to respond.</h3>\n<hr>\n<p>Try refreshing the page, or"
    " going back and attempting the action again.</p>\n</body>\n</html>\n"
)

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    (
        "issue-state-invalid",
        "list_issues",
        _err(400, "state does not have a valid value"),
        F,
        None,
        "issue state not one GitLab knows",
    ),
    (
        "mr-order-by-invalid",
        "list_mrs",
        _err(400, "order_by does not have a valid value"),
        F,
        None,
        "order_by not one GitLab knows",
    ),
    (
        "search-scope-invalid",
        "search",
        _err(400, "scope does not have a valid value"),
        F,
        None,
        "search scope not one GitLab knows",
    ),
    (
        "project-name-invalid",
        "create_project",
        _m(
            400,
            {
                "name": [
                    "can contain only letters, digits, emoji, '_', '.', '+', dashes, or spaces. It must start"
                    " with a letter, digit, emoji, or '_'."
                ],
                "path": [
                    "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git'"
                    " or end in '.atom'"
                ],
            },
        ),
        F,
        None,
        "project name with characters GitLab refuses",
    ),
    (
        "issue-title-missing",
        "create_issue_blank",
        _m(400, '400 (Bad request) "title" not given'),
        F,
        None,
        "issue title empty",
    ),
    (
        "issue-due-date-invalid",
        "create_issue",
        _err(400, "due_date is invalid"),
        F,
        None,
        "due date not YYYY-MM-DD",
    ),
    (
        "branch-name-invalid",
        "create_branch_bad_name",
        _m(400, "Branch name is invalid"),
        F,
        None,
        "branch name with a space and '..'",
    ),
    (
        "branch-ref-invalid",
        "create_branch",
        _m(400, "Invalid reference name: mian"),
        F,
        None,
        "source ref misspelt",
    ),
    (
        "pipeline-ref-not-found",
        "create_pipeline",
        _m(400, {"base": ["Reference not found"]}),
        F,
        None,
        "pipeline ref misspelt",
    ),
    (
        "label-color-invalid",
        "create_label",
        _m(400, {"color": ["must be a valid color code"]}),
        F,
        None,
        "label colour not a colour code",
    ),
    (
        "access-level-invalid",
        "add_member",
        _err(400, "access_level does not have a valid value"),
        F,
        None,
        "member access level not one GitLab knows",
    ),
    # credentials, scopes, roles
    (
        "unauthorized",
        "list_issues",
        _m(401, "401 Unauthorized"),
        U,
        None,
        "token invalid, expired or revoked",
    ),
    (
        "forbidden",
        "create_project",
        _m(403, "403 Forbidden"),
        U,
        None,
        "user may not create projects in the group",
    ),
    (
        "insufficient-scope",
        "create_issue",
        Reply(
            403,
            {
                "error": "insufficient_scope",
                "error_description": "The request requires higher privileges than provided by the access token.",
                "scope": "api",
            },
            {},
            "GitLab REST authentication (docs.gitlab.com/api/rest/authentication/)",
        ),
        U,
        None,
        "token only has read_api scope",
    ),
    (
        "protected-branch-push",
        "create_file",
        _m(403, "You are not allowed to push into this branch", _FILES),
        U,
        None,
        "branch protected against the user's pushes",
    ),
    (
        "merge-unauthorized",
        "merge_mr",
        _m(401, "401 Unauthorized", _MERGE),
        U,
        None,
        "user may not accept the merge request",
    ),
    # not found, conflicts, state
    (
        "project-not-found",
        "get_project",
        _m(404, "404 Project Not Found"),
        A,
        None,
        "project not found (or not visible to the token)",
    ),
    (
        "issue-not-found",
        "get_issue",
        _m(404, "404 Issue Not Found"),
        A,
        None,
        "issue not found (or not visible)",
    ),
    (
        "file-not-found",
        "get_file",
        _m(404, "404 File Not Found", _FILES),
        A,
        None,
        "file not found at that ref",
    ),
    (
        "file-exists",
        "create_file",
        _m(400, "A file with this name already exists", _FILES),
        A,
        None,
        "file already exists",
    ),
    (
        "file-changed",
        "update_file",
        _m(400, "You are attempting to update a file that has changed since you started editing it.", _FILES),
        A,
        None,
        "file changed since last_commit_id",
    ),
    (
        "branch-exists",
        "create_branch",
        _m(400, "Branch already exists"),
        A,
        None,
        "branch name already taken",
    ),
    (
        "tag-exists",
        "create_tag",
        _m(400, "Tag v1.4.0 already exists"),
        A,
        None,
        "tag already exists",
    ),
    (
        "label-exists",
        "create_label",
        _m(409, "Label already exists"),
        A,
        None,
        "label already exists",
    ),
    (
        "project-path-taken",
        "create_project",
        _m(400, {"name": ["has already been taken"], "path": ["has already been taken"]}),
        A,
        None,
        "project name already taken in the namespace",
    ),
    (
        "merge-not-allowed",
        "merge_mr",
        _m(405, "405 Method Not Allowed", _MERGE),
        A,
        None,
        "merge request draft, closed, or its pipeline not passed",
    ),
    (
        "merge-conflicts",
        "merge_mr",
        _m(406, "Branch cannot be merged", _MERGE),
        A,
        None,
        "merge request has conflicts",
    ),
    (
        "merge-sha-mismatch",
        "merge_mr_sha",
        _m(409, "SHA does not match HEAD of source branch: 9b1e3f0c2a7d4e5f6a8b9c0d1e2f3a4b5c6d7e8f", _MERGE),
        A,
        None,
        "source branch moved since the SHA was read",
    ),
    (
        "internal-error",
        "create_issue",
        _m(500, "500 Internal Server Error"),
        A,
        None,
        "internal error with nothing more said",
    ),
    # load, outages
    (
        "rate-limited",
        "list_issues",
        Reply(429, "Retry later\n", {**_RL, "Retry-After": "60"}, _RATE),
        T,
        NE,
        "rate limited (authenticated API throttle)",
    ),
    (
        "rate-limited-create",
        "create_issue",
        Reply(429, "Retry later\n", {**_RL, "Retry-After": "60"}, _RATE),
        T,
        NE,
        "rate limited on a write",
    ),
    (
        "maintenance-mode",
        "create_issue",
        _m(
            403,
            "You cannot perform write operations on a read-only instance",
            "GitLab maintenance mode (docs.gitlab.com/administration/maintenance_mode/)",
        ),
        T,
        NE,
        "instance in maintenance mode (writes refused until it ends)",
    ),
    (
        "unavailable",
        "list_issues",
        Reply(
            503,
            "<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n"
            "</body></html>\n",
            {},
            "a load balancer's page",
        ),
        T,
        NE,
        "service unavailable (503)",
    ),
    (
        "whoops-502",
        "create_issue",
        Reply(502, _WHOOPS, {}, "GitLab's 502 error page (public/502.html)"),
        T,
        UO,
        "GitLab took too long to respond (502)",
    ),
    (
        "gateway-timeout",
        "update_file",
        Reply(
            504,
            "<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out"
            "</h1></center></body></html>",
            {},
            "a load balancer's page",
        ),
        T,
        UO,
        "gateway timeout (504)",
    ),
]

_PROJECT = "acme/payments-api"
_CI_BAD = "build:\n  stage: build\n  scripts:\n    - make\n"


def _calls(gl: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    project = gl.projects.get(_PROJECT, lazy=True)
    issue = {"title": "Refund fails for EUR cards", "due_date": "next friday"}
    new_file = {
        "file_path": "config/payments.yml",
        "branch": "main",
        "content": "currency: EUR\n",
        "commit_message": "Add payments config",
    }
    return {
        "list_issues": (
            "list_issues",
            {"project": _PROJECT, "state": "active"},
            lambda: project.issues.list(state="active", get_all=False, obey_rate_limit=False),
        ),
        "list_mrs": (
            "list_merge_requests",
            {"project": _PROJECT, "order_by": "priority_desc"},
            lambda: project.mergerequests.list(order_by="priority_desc", get_all=False),
        ),
        "search": (
            "search_gitlab",
            {"scope": "code", "search": "STRIPE_KEY"},
            lambda: gl.search("code", "STRIPE_KEY"),
        ),
        "create_project": (
            "create_project",
            {"name": "payments api!", "namespace_id": 42},
            lambda: gl.projects.create({"name": "payments api!", "namespace_id": 42}),
        ),
        "create_issue": (
            "create_issue",
            {"project": _PROJECT, **issue},
            lambda: project.issues.create(dict(issue), obey_rate_limit=False),
        ),
        "create_issue_blank": (
            "create_issue",
            {"project": _PROJECT, "title": ""},
            lambda: project.issues.create({"title": ""}),
        ),
        "create_branch_bad_name": (
            "create_branch",
            {"project": _PROJECT, "branch": "fix refund..eur", "ref": "main"},
            lambda: project.branches.create({"branch": "fix refund..eur", "ref": "main"}),
        ),
        "create_branch": (
            "create_branch",
            {"project": _PROJECT, "branch": "fix/refund-eur", "ref": "mian"},
            lambda: project.branches.create({"branch": "fix/refund-eur", "ref": "mian"}),
        ),
        "create_pipeline": (
            "run_pipeline",
            {"project": _PROJECT, "ref": "relase/1.4"},
            lambda: project.pipelines.create({"ref": "relase/1.4"}),
        ),
        "create_label": (
            "create_label",
            {"project": _PROJECT, "name": "refunds", "color": "orange-ish"},
            lambda: project.labels.create({"name": "refunds", "color": "orange-ish"}),
        ),
        "add_member": (
            "add_member",
            {"project": _PROJECT, "user_id": 1187, "access_level": 35},
            lambda: project.members.create({"user_id": 1187, "access_level": 35}),
        ),
        "create_file": (
            "create_file",
            {"project": _PROJECT, **new_file},
            lambda: project.files.create(dict(new_file)),
        ),
        "update_file": (
            "update_file",
            {
                "project": _PROJECT,
                "file_path": "config/payments.yml",
                "branch": "main",
                "content": "currency: USD\n",
                "commit_message": "Switch to USD",
                "last_commit_id": "4f2c1a9e",
            },
            lambda: project.files.update(
                "config/payments.yml",
                {
                    "branch": "main",
                    "content": "currency: USD\n",
                    "commit_message": "Switch to USD",
                    "last_commit_id": "4f2c1a9e",
                },
            ),
        ),
        "get_file": (
            "read_file",
            {"project": _PROJECT, "file_path": "config/payment.yml", "ref": "main"},
            lambda: project.files.get("config/payment.yml", ref="main"),
        ),
        "get_project": (
            "get_project",
            {"project": "acme/payment-api"},
            lambda: gl.projects.get("acme/payment-api"),
        ),
        "get_issue": (
            "get_issue",
            {"project": _PROJECT, "issue_iid": 4471},
            lambda: project.issues.get(4471),
        ),
        "create_tag": (
            "create_tag",
            {"project": _PROJECT, "tag_name": "v1.4.0", "ref": "main"},
            lambda: project.tags.create({"tag_name": "v1.4.0", "ref": "main"}),
        ),
        "merge_mr": (
            "merge_merge_request",
            {"project": _PROJECT, "mr_iid": 318},
            lambda: project.mergerequests.get(318, lazy=True).merge(),
        ),
        "merge_mr_sha": (
            "merge_merge_request",
            {"project": _PROJECT, "mr_iid": 318, "sha": "3e5a7c9b"},
            lambda: project.mergerequests.get(318, lazy=True).merge(sha="3e5a7c9b"),
        ),
    }


def _local(gl: Any) -> list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]]:
    """(key, cause, tool, the model's arguments, call) of python-gitlab's own checks."""
    project = gl.projects.get(_PROJECT, lazy=True)
    return [
        (
            "issue-no-title",
            "issue without a title",
            "create_issue",
            {"project": _PROJECT, "description": "Refunds fail for EUR cards"},
            lambda: project.issues.create({"description": "Refunds fail for EUR cards"}),
        ),
        (
            "mr-no-target",
            "merge request without a target branch",
            "create_merge_request",
            {"project": _PROJECT, "source_branch": "fix/refund-eur", "title": "Fix EUR refunds"},
            lambda: project.mergerequests.create(
                {"source_branch": "fix/refund-eur", "title": "Fix EUR refunds"}
            ),
        ),
        (
            "file-no-commit-message",
            "file without a commit message",
            "create_file",
            {"project": _PROJECT, "file_path": "README.md", "branch": "main", "content": "# Payments\n"},
            lambda: project.files.create(
                {"file_path": "README.md", "branch": "main", "content": "# Payments\n"}
            ),
        ),
        (
            "member-both-ids",
            "member given by both user id and username",
            "add_member",
            {"project": _PROJECT, "user_id": 1187, "username": "jdoe", "access_level": 30},
            lambda: project.members.create({"user_id": 1187, "username": "jdoe", "access_level": 30}),
        ),
        (
            "member-no-id",
            "member given by neither user id nor username",
            "add_member",
            {"project": _PROJECT, "email": "jdoe@example.com", "access_level": 30},
            lambda: project.members.create({"email": "jdoe@example.com", "access_level": 30}),
        ),
        (
            "snippet-files-and-name",
            "snippet with both files and file_name",
            "create_snippet",
            {
                "project": _PROJECT,
                "title": "retry helper",
                "visibility": "private",
                "file_name": "retry.py",
                "files": [{"file_path": "retry.py", "content": "pass\n"}],
            },
            lambda: project.snippets.create(
                {
                    "title": "retry helper",
                    "visibility": "private",
                    "file_name": "retry.py",
                    "files": [{"file_path": "retry.py", "content": "pass\n"}],
                }
            ),
        ),
        (
            "label-no-color",
            "label without a colour",
            "create_label",
            {"project": _PROJECT, "name": "refunds"},
            lambda: project.labels.create({"name": "refunds"}),
        ),
        (
            "branch-no-ref",
            "branch without a source ref",
            "create_branch",
            {"project": _PROJECT, "branch": "fix/refund-eur"},
            lambda: project.branches.create({"branch": "fix/refund-eur"}),
        ),
    ]


def cases(ctx: Any) -> Iterator[generate.Case]:
    import gitlab

    def client(base: str) -> Any:
        return gitlab.Gitlab(base, private_token=_TOKEN, timeout=_saas.TIMEOUT, retry_transient_errors=False)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"gitlab-{cid}", LIBRARY, cause, kind, outcome, exc, tool, args)

    with _saas.service(ctx, "GITLABPORT", "nginx") as svc:
        calls = _calls(client(svc.base))
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)

        # python-gitlab's own wait-and-retry of a 429 (Retry-After: 1), until it gives up
        svc.reply(Reply(429, "Retry later\n", {**_RL, "Retry-After": "1"}, _RATE))
        project = client(svc.base).projects.get(_PROJECT, lazy=True)
        exc = _saas.catch(lambda: project.issues.list(state="opened", get_all=False, max_retries=1))
        yield case(
            "rate-limited-retried",
            "rate limited (after python-gitlab's retry)",
            T,
            NE,
            exc,
            "list_issues",
            {"project": _PROJECT, "state": "opened"},
        )

        # CI configuration: the model's YAML, the project's own file read from the repository
        lint = {
            "valid": False,
            "errors": ["jobs:build config contains unknown keys: scripts"],
            "warnings": [],
            "merged_yaml": None,
            "includes": [],
        }
        svc.reply(Reply(200, lint, {}, "GitLab CI lint API (docs.gitlab.com/api/lint/)"))
        exc = _saas.catch(lambda: project.ci_lint.validate({"content": _CI_BAD}))
        yield case(
            "ci-lint-model-yaml",
            "CI YAML the model wrote does not lint",
            F,
            None,
            exc,
            "lint_ci",
            {"project": _PROJECT, "content": _CI_BAD},
        )
        svc.reply(
            Reply(
                200,
                {**lint, "errors": ["jobs:deploy:rules config should be an array of hashes"]},
                {},
                "GitLab CI lint API (docs.gitlab.com/api/lint/)",
            )
        )
        exc = _saas.catch(lambda: project.ci_lint.validate({"content": _CI_BAD}, ref="main"))
        # the tool read .gitlab-ci.yml from the repository and linted it
        yield case(
            "ci-lint-repo-file",
            "the project's .gitlab-ci.yml (read from the repository) does not lint",
            A,
            None,
            exc,
            "check_pipeline_config",
            {"project": _PROJECT, "ref": "main"},
        )

        # the server answered a sign-in page with 200 where JSON was due
        svc.reply(
            Reply(
                200,
                "<!DOCTYPE html><html><head><title>Sign in - Corporate SSO</title></head><body>Sign in</body></html>",
                {},
                "an SSO proxy's page",
            )
        )
        exc = _saas.catch(lambda: client(svc.base).projects.get(_PROJECT))
        yield case(
            "html-not-json",
            "the server answered an HTML page where JSON was due",
            A,
            None,
            exc,
            "get_project",
            {"project": _PROJECT},
        )
        svc.reply(
            Reply(
                200,
                '{"id": 4471, "iid": 12, "title": "Refund fails',
                {},
                "a truncated answer",
                "application/json",
            )
        )
        exc = _saas.catch(lambda: project.issues.get(12))
        yield case(
            "truncated-json",
            "the server's JSON answer cut short",
            A,
            None,
            exc,
            "get_issue",
            {"project": _PROJECT, "issue_iid": 12},
        )

        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            tool, args, fn = _calls(client(base))["create_issue"]
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)

    # an http:// URL configured for an instance that redirects to https (here: another port)
    target = f"/api/v4/projects/{_PROJECT.replace('/', '%2F')}/issues"
    with _serve.documents({target: ("application/json", json.dumps({"iid": 13}).encode())}) as real:
        ctx.name_port(real, "GITLABTLSPORT")
        with _saas.service(ctx, "GITLABHTTPPORT", "nginx") as svc:
            svc.reply(
                Reply(
                    301, "", {"Location": f"http://127.0.0.1:{real}{target}"}, "nginx's http->https redirect"
                )
            )
            tool, args, fn = _calls(client(svc.base))["create_issue"]
            exc = _saas.catch(fn)
    yield case("redirect-post", "configured URL redirects (POST turned into GET)", U, None, exc, tool, args)

    for key, cause, tool, args, fn in _local(client(_saas.dead_base(ctx))):
        yield case(key, cause, F, None, _saas.catch(fn), tool, args)

    # the tool's configuration file (python-gitlab.cfg)
    cfg = ctx.tmp / "python-gitlab.cfg"
    cfg.write_text(
        f"[global]\ndefault = prod\nssl_verify = true\ntimeout = 5\n\n[prod]\nurl = {_saas.dead_base(ctx)}\n"
        f"private_token = {_TOKEN}\n"
    )
    exc = _saas.catch(lambda: gitlab.Gitlab.from_config("staging", [str(cfg)]))
    yield case(
        "config-unknown-instance",
        "instance name not in the configuration",
        F,
        None,
        exc,
        "list_issues",
        {"instance": "staging", "project": _PROJECT},
    )
    missing = ctx.tmp / "etc" / "python-gitlab.cfg"
    exc = _saas.catch(lambda: gitlab.Gitlab.from_config("prod", [str(missing)]))
    yield case(
        "config-file-missing",
        "the tool's configuration file is missing",
        U,
        None,
        exc,
        "list_issues",
        {"instance": "prod", "project": _PROJECT},
    )

    with _pkgcopy.broken_install(
        ctx.tmp,
        ["gitlab", "requests", "urllib3", "idna", "charset_normalizer", "certifi"],
        hide=("requests_toolbelt",),
    ):
        exc = _saas.catch(lambda: importlib.import_module("gitlab"))
    yield case(
        "toolbelt-not-installed",
        "requests-toolbelt not installed",
        U,
        None,
        exc,
        "list_issues",
        {"project": _PROJECT},
    )
