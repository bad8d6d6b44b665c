# ruff: noqa: B023 - each lambda is called at once
"""PyGithub: the GitHub REST API's errors as PyGithub raises them
(``BadCredentialsException``, ``RateLimitExceededException``, ``UnknownObjectException``,
``GithubException``), pointed at a local stand-in of api.github.com.

Bodies and headers as GitHub's REST docs show them: troubleshooting
(docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api), rate limits
(docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api: primary limit as
403/429 with ``x-ratelimit-remaining: 0``, secondary limit as 403/429 with
``retry-after``), client errors (docs.github.com/en/rest/overview/resources-in-the-rest-api
#client-errors: 400 parse errors, 422 ``Validation Failed`` with ``errors[].code``
``missing`` / ``missing_field`` / ``invalid`` / ``already_exists`` / ``custom``) and each
endpoint's documented status codes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "PyGithub"
REQUIRES = ["PyGithub>=2.1,<3"]

_TROUBLE = (
    "GitHub REST troubleshooting: docs.github.com/en/rest/using-the-rest-api/troubleshooting-the-rest-api"
)
_RATE = "GitHub REST rate limits: docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api"
_CLIENT = (
    "GitHub REST client errors: docs.github.com/en/rest/overview/resources-in-the-rest-api#client-errors"
)
_DOC = "https://docs.github.com/rest"
_RATE_URL = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"
_RL = {
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": "0",
    "x-ratelimit-used": "5000",
    "x-ratelimit-reset": "1764547200",
    "x-ratelimit-resource": "core",
    "x-github-request-id": "CB3A:2E4F:1A2B3C:1B2C3D:692CE000",
}
_ID = {"x-github-request-id": "CB3A:2E4F:1A2B3C:1B2C3D:692CE000", "x-ratelimit-remaining": "4999"}


def _msg(message: str, doc: str = _DOC, status: int | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"message": message, **extra, "documentation_url": doc}
    if status is not None:
        body["status"] = str(status)
    return body


def _r(status: int, body: Any, source: str, headers: dict[str, str] | None = None) -> Reply:
    return Reply(status, body, {**_ID, **(headers or {})}, source)


def _validation(*errors: dict[str, Any], doc: str = _DOC) -> dict[str, Any]:
    return _msg("Validation Failed", doc, 422, errors=list(errors))


_SECONDARY = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach "
    "out to GitHub Support for help, please include the request ID CB3A:2E4F:1A2B3C:1B2C3D:692CE000."
)
_UNICORN = "<!DOCTYPE html><html><head><title>Unicorn! &middot; GitHub</title></head><body>No server is currently available to service your request.</body></html>"

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    (
        "bad_credentials",
        "get_repo",
        _r(401, _msg("Bad credentials", status=401), _TROUBLE),
        U,
        None,
        "bad credentials",
    ),
    (
        "requires_authentication",
        "get_user",
        _r(401, _msg("Requires authentication", status=401), _TROUBLE),
        U,
        None,
        "no credentials sent",
    ),
    (
        "primary_rate_403",
        "get_repo",
        _r(403, _msg("API rate limit exceeded for user ID 1234567.", _RATE_URL, 403), _RATE, _RL),
        T,
        NE,
        "primary rate limit (403, x-ratelimit-remaining: 0)",
    ),
    (
        "primary_rate_429",
        "create_issue",
        _r(429, _msg("API rate limit exceeded for user ID 1234567.", _RATE_URL, 429), _RATE, _RL),
        T,
        NE,
        "primary rate limit (429, x-ratelimit-remaining: 0)",
    ),
    (
        "unauth_rate_403",
        "get_repo",
        _r(
            403,
            _msg(
                "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)",
                _RATE_URL,
            ),
            _RATE,
            {**_RL, "x-ratelimit-limit": "60", "x-ratelimit-used": "60"},
        ),
        T,
        NE,
        "unauthenticated primary rate limit",
    ),
    (
        "secondary_rate_403",
        "create_issue",
        _r(403, _msg(_SECONDARY, _RATE_URL + "#about-secondary-rate-limits"), _RATE, {"retry-after": "60"}),
        T,
        NE,
        "secondary rate limit (403, retry-after)",
    ),
    (
        "secondary_rate_429",
        "create_issue",
        _r(429, _msg(_SECONDARY, _RATE_URL + "#about-secondary-rate-limits"), _RATE, {"retry-after": "60"}),
        T,
        NE,
        "secondary rate limit (429, retry-after)",
    ),
    (
        "not_accessible_integration",
        "create_issue",
        _r(
            403,
            _msg(
                "Resource not accessible by integration",
                "https://docs.github.com/rest/issues/issues#create-an-issue",
                403,
            ),
            _TROUBLE,
        ),
        U,
        None,
        "GitHub App token lacks the permission",
    ),
    (
        "not_accessible_pat",
        "create_issue",
        _r(
            403,
            _msg(
                "Resource not accessible by personal access token",
                "https://docs.github.com/rest/issues/issues#create-an-issue",
                403,
            ),
            _TROUBLE,
        ),
        U,
        None,
        "fine-grained token lacks the permission",
    ),
    (
        "must_have_admin",
        "delete_repo",
        _r(
            403,
            _msg(
                "Must have admin rights to Repository.",
                "https://docs.github.com/rest/repos/repos#delete-a-repository",
                403,
            ),
            "GitHub REST: delete a repository",
        ),
        U,
        None,
        "admin rights required",
    ),
    (
        "saml_enforced",
        "get_repo",
        _r(
            403,
            _msg(
                "Resource protected by organization SAML enforcement. You must grant your Personal Access token access to this organization.",
                "https://docs.github.com/articles/authenticating-to-a-github-organization-with-saml-single-sign-on/",
                403,
            ),
            _TROUBLE,
        ),
        U,
        None,
        "organization SAML enforcement",
    ),
    (
        "oauth_app_restrictions",
        "get_repo",
        _r(
            403,
            _msg(
                "Although you appear to have the correct authorization credentials, the `octo-org` organization has enabled OAuth App access restrictions, meaning that data access to third-parties is limited. For more information on these restrictions, including how to enable this app, visit https://docs.github.com/articles/restricting-access-to-your-organization-s-data/",
                status=403,
            ),
            _TROUBLE,
        ),
        U,
        None,
        "organization OAuth App access restrictions",
    ),
    (
        "archived_read_only",
        "create_issue",
        _r(
            403,
            _msg(
                "Repository was archived so is read-only.",
                "https://docs.github.com/rest/issues/issues#create-an-issue",
                403,
            ),
            "GitHub REST: create an issue (403)",
        ),
        U,
        None,
        "repository archived (read-only)",
    ),
    (
        "issues_disabled",
        "create_issue",
        _r(
            410,
            _msg(
                "Issues are disabled for this repo",
                "https://docs.github.com/rest/issues/issues#create-an-issue",
                410,
            ),
            "GitHub REST: create an issue (410 Gone)",
        ),
        U,
        None,
        "issues disabled on the repository",
    ),
    (
        "dmca_blocked",
        "get_repo",
        _r(
            451,
            _msg(
                "Repository access blocked",
                status=451,
                block={
                    "reason": "dmca",
                    "created_at": "2026-01-01T00:00:00Z",
                    "html_url": "https://github.com/github/dmca/blob/master/2026/01/2026-01-01-octo.md",
                },
            ),
            "GitHub REST: get a repository (451)",
        ),
        U,
        None,
        "repository blocked for legal reasons",
    ),
    (
        "lfs_quota",
        "create_file",
        _r(
            403,
            _msg(
                "This repository is over its data quota. Account responsible for LFS bandwidth should purchase more data packs to restore access.",
                status=403,
            ),
            "GitHub Git LFS billing: docs.github.com/billing/managing-billing-for-git-large-file-storage",
        ),
        U,
        None,
        "LFS data quota exhausted",
    ),
    (
        "repo_not_found",
        "get_repo",
        _r(
            404,
            _msg("Not Found", "https://docs.github.com/rest/repos/repos#get-a-repository", 404),
            "GitHub REST: get a repository (404)",
        ),
        A,
        None,
        "repository not found (or not visible)",
    ),
    (
        "file_not_found",
        "get_contents",
        _r(
            404,
            _msg("Not Found", "https://docs.github.com/rest/repos/contents#get-repository-content", 404),
            "GitHub REST: get repository content (404)",
        ),
        A,
        None,
        "file not found",
    ),
    (
        "user_not_found",
        "get_named_user",
        _r(
            404,
            _msg("Not Found", "https://docs.github.com/rest/users/users#get-a-user", 404),
            "GitHub REST: get a user (404)",
        ),
        A,
        None,
        "user not found",
    ),
    (
        "branch_not_protected",
        "get_protection",
        _r(
            404,
            _msg(
                "Branch not protected",
                "https://docs.github.com/rest/branches/branch-protection#get-branch-protection",
                404,
            ),
            "GitHub REST: get branch protection (404)",
        ),
        A,
        None,
        "branch has no protection",
    ),
    (
        "empty_repo",
        "get_contents",
        _r(
            404,
            _msg(
                "This repository is empty.",
                "https://docs.github.com/rest/repos/contents#get-repository-content",
                404,
            ),
            "GitHub REST: get repository content",
        ),
        A,
        None,
        "repository is empty",
    ),
    (
        "git_repo_empty_409",
        "get_commits",
        _r(
            409,
            _msg(
                "Git Repository is empty.", "https://docs.github.com/rest/commits/commits#list-commits", 409
            ),
            "GitHub REST: list commits (409)",
        ),
        A,
        None,
        "git repository empty (conflict)",
    ),
    (
        "head_modified",
        "merge_pull",
        _r(
            409,
            _msg(
                "Head branch was modified. Review and try the merge again.",
                "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request",
                409,
            ),
            "GitHub REST: merge a pull request (409)",
        ),
        A,
        None,
        "head branch modified during the merge",
    ),
    (
        "sha_mismatch",
        "update_file",
        _r(
            409,
            _msg(
                "is at 3d21ec53a331a6f037a91c368710b99387d012c1 but expected 7638417db6d59f3c431d3e1f261cc637155684cd",
                "https://docs.github.com/rest/repos/contents#create-or-update-file-contents",
                409,
            ),
            "GitHub REST: create or update file contents (409)",
        ),
        A,
        None,
        "file changed since the given sha",
    ),
    (
        "not_mergeable",
        "merge_pull",
        _r(
            405,
            _msg(
                "Pull Request is not mergeable",
                "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request",
                405,
            ),
            "GitHub REST: merge a pull request (405)",
        ),
        A,
        None,
        "pull request not mergeable (conflicts)",
    ),
    (
        "missing_field",
        "create_issue",
        _r(
            422,
            _validation(
                {"resource": "Issue", "field": "title", "code": "missing_field"},
                doc="https://docs.github.com/rest/issues/issues#create-an-issue",
            ),
            _CLIENT,
        ),
        F,
        None,
        "required field missing",
    ),
    (
        "invalid_field",
        "create_label",
        _r(
            422,
            _validation(
                {"resource": "Label", "field": "color", "code": "invalid"},
                doc="https://docs.github.com/rest/issues/labels#create-a-label",
            ),
            _CLIENT,
        ),
        F,
        None,
        "field value invalid (label colour)",
    ),
    (
        "unprocessable_assignee",
        "create_issue",
        _r(
            422,
            _validation(
                {"value": "ghost-user", "resource": "Issue", "field": "assignees", "code": "invalid"},
                doc="https://docs.github.com/rest/issues/issues#create-an-issue",
            ),
            _CLIENT,
        ),
        F,
        None,
        "assignee not valid for the repository",
    ),
    (
        "label_exists",
        "create_label",
        _r(
            422,
            _validation(
                {"resource": "Label", "code": "already_exists", "field": "name"},
                doc="https://docs.github.com/rest/issues/labels#create-a-label",
            ),
            _CLIENT,
        ),
        A,
        None,
        "label already exists",
    ),
    (
        "repo_name_exists",
        "create_repo",
        _r(
            422,
            _msg(
                "Repository creation failed.",
                "https://docs.github.com/rest/repos/repos#create-a-repository-for-the-authenticated-user",
                422,
                errors=[
                    {
                        "resource": "Repository",
                        "code": "custom",
                        "field": "name",
                        "message": "name already exists on this account",
                    }
                ],
            ),
            _CLIENT,
        ),
        A,
        None,
        "repository name already exists",
    ),
    (
        "ref_exists",
        "create_ref",
        _r(
            422,
            _msg("Reference already exists", "https://docs.github.com/rest/git/refs#create-a-reference", 422),
            "GitHub REST: create a reference (422)",
        ),
        A,
        None,
        "git reference already exists",
    ),
    (
        "pull_exists",
        "create_pull",
        _r(
            422,
            _validation(
                {
                    "resource": "PullRequest",
                    "code": "custom",
                    "message": "A pull request already exists for octo:feature-x.",
                },
                doc="https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
            ),
            _CLIENT,
        ),
        A,
        None,
        "pull request already exists",
    ),
    (
        "no_commits_between",
        "create_pull",
        _r(
            422,
            _validation(
                {
                    "resource": "PullRequest",
                    "code": "custom",
                    "message": "No commits between main and feature-x",
                },
                doc="https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
            ),
            _CLIENT,
        ),
        F,
        None,
        "no commits between base and head",
    ),
    (
        "invalid_head",
        "create_pull",
        _r(
            422,
            _validation(
                {"resource": "PullRequest", "field": "head", "code": "invalid"},
                doc="https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
            ),
            _CLIENT,
        ),
        F,
        None,
        "head branch invalid",
    ),
    (
        "no_commit_for_sha",
        "get_commit",
        _r(
            422,
            _msg(
                "No commit found for SHA: 0000000",
                "https://docs.github.com/rest/commits/commits#get-a-commit",
                422,
            ),
            "GitHub REST: get a commit (422)",
        ),
        A,
        None,
        "no commit found for the sha",
    ),
    (
        "search_invalid_query",
        "search",
        _r(
            422,
            _validation(
                {
                    "message": "The search is longer than 256 characters.",
                    "resource": "Search",
                    "field": "q",
                    "code": "invalid",
                },
                doc="https://docs.github.com/rest/search/search#search-issues-and-pull-requests",
            ),
            _CLIENT,
        ),
        F,
        None,
        "search query too long",
    ),
    (
        "parse_json",
        "create_issue",
        _r(400, _msg("Problems parsing JSON", status=400), _CLIENT),
        F,
        None,
        "request body is not valid JSON",
    ),
    (
        "body_not_object",
        "create_issue",
        _r(400, _msg("Body should be a JSON object", status=400), _CLIENT),
        F,
        None,
        "request body is not a JSON object",
    ),
    (
        "server_error",
        "get_repo",
        _r(500, _msg("Server Error", status=500), "GitHub REST: 500"),
        T,
        UO,
        "internal server error",
    ),
    ("bad_gateway", "create_issue", Reply(502, _UNICORN, {}, "GitHub's 502 page"), T, UO, "bad gateway"),
    (
        "unavailable",
        "get_repo",
        _r(503, _msg("Service Unavailable", status=503), "GitHub REST: 503 (endpoint docs list it)"),
        T,
        NE,
        "service unavailable",
    ),
    (
        "timeout_504",
        "search",
        _r(
            504,
            _msg(
                "We couldn't respond to your request in time. Sorry about that. Please try resubmitting your request and contact us if the problem persists.",
                status=504,
            ),
            _TROUBLE + " (timeouts)",
        ),
        T,
        UO,
        "server timed out on the request",
    ),
]

_CALLS: dict[str, tuple[str, Any]] = {
    "get_repo": ("get_repository", lambda g: g.get_repo("octo-org/hello")),
    "get_user": ("get_user", lambda g: g.get_user().get_repos()[0]),
    "get_named_user": ("get_user", lambda g: g.get_user("ghost-user")),
    "create_issue": (
        "create_issue",
        lambda g: g.get_repo("octo-org/hello", lazy=True).create_issue(title="Crash on start"),
    ),
    "delete_repo": ("delete_repository", lambda g: g.get_repo("octo-org/hello", lazy=True).delete()),
    "create_file": (
        "create_file",
        lambda g: g.get_repo("octo-org/hello", lazy=True).create_file("data/big.bin", "add data", "x"),
    ),
    "get_contents": (
        "read_file",
        lambda g: g.get_repo("octo-org/hello", lazy=True).get_contents("README.md"),
    ),
    "get_protection": (
        "get_branch_protection",
        lambda g: g.get_repo("octo-org/hello", lazy=True).get_branch("main").get_protection(),
    ),
    "get_commits": (
        "list_commits",
        lambda g: list(g.get_repo("octo-org/hello", lazy=True).get_commits()[:1]),
    ),
    "get_commit": (
        "get_commit",
        lambda g: g.get_repo("octo-org/hello", lazy=True).get_commit("0000000").commit.message,
    ),
    "merge_pull": (
        "merge_pull_request",
        lambda g: g.get_repo("octo-org/hello", lazy=True).get_pull(7).merge(),
    ),
    "update_file": (
        "update_file",
        lambda g: g.get_repo("octo-org/hello", lazy=True).update_file(
            "README.md", "edit", "new", "7638417db6d59f3c431d3e1f261cc637155684cd"
        ),
    ),
    "create_label": (
        "create_label",
        lambda g: g.get_repo("octo-org/hello", lazy=True).create_label("bug", "zzzzzz"),
    ),
    "create_repo": ("create_repository", lambda g: g.get_user().create_repo("hello")),
    "create_ref": (
        "create_branch",
        lambda g: g.get_repo("octo-org/hello", lazy=True).create_git_ref(
            "refs/heads/feature-x", "7638417db6d59f3c431d3e1f261cc637155684cd"
        ),
    ),
    "create_pull": (
        "create_pull_request",
        lambda g: g.get_repo("octo-org/hello", lazy=True).create_pull(
            base="main", head="feature-x", title="Feature"
        ),
    ),
    "search": ("search_issues", lambda g: g.search_issues("is:open label:bug")[0]),
}


# the arguments the model wrote for each call of ``_CALLS`` (the token and the base URL are
# the tool's)
_REPO = "octo-org/hello"
_SHA = "7638417db6d59f3c431d3e1f261cc637155684cd"
_ARGS: dict[str, dict[str, Any]] = {
    "get_repo": {"repo": _REPO},
    "get_user": {},
    "get_named_user": {"username": "ghost-user"},
    "create_issue": {"repo": _REPO, "title": "Crash on start"},
    "delete_repo": {"repo": _REPO},
    "create_file": {"repo": _REPO, "path": "data/big.bin", "message": "add data", "content": "x"},
    "get_contents": {"repo": _REPO, "path": "README.md"},
    "get_protection": {"repo": _REPO, "branch": "main"},
    "get_commits": {"repo": _REPO},
    "get_commit": {"repo": _REPO, "sha": "0000000"},
    "merge_pull": {"repo": _REPO, "number": 7},
    "update_file": {"repo": _REPO, "path": "README.md", "message": "edit", "content": "new", "sha": _SHA},
    "create_label": {"repo": _REPO, "name": "bug", "color": "zzzzzz"},
    "create_repo": {"name": "hello"},
    "create_ref": {"repo": _REPO, "ref": "refs/heads/feature-x", "sha": _SHA},
    "create_pull": {"repo": _REPO, "base": "main", "head": "feature-x", "title": "Feature"},
    "search": {"query": "is:open label:bug"},
}


def cases(ctx: Any) -> Iterator[generate.Case]:
    from github import Auth, Github, GithubRetry

    def client(base: str, retry: Any = None) -> Any:
        return Github(
            base_url=base,
            auth=Auth.Token("ghp_16C7e42F292c6912E7710c838347Ae178B4a"),
            timeout=int(_saas.TIMEOUT),  # PyGithub takes whole seconds
            retry=retry,
            seconds_between_requests=None,
            seconds_between_writes=None,
        )

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        arguments: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"github-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=arguments)

    with _saas.service(ctx, "GITHUBPORT", "GitHub.com") as svc:
        g = client(svc.base)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, fn = _CALLS[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(lambda: fn(g))
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, _ARGS[call])
        tool, fn = _CALLS["create_issue"]
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            gb = client(base)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(gb)), tool, _ARGS["create_issue"])
        # PyGithub's own retry (GithubRetry over urllib3) of a 502, then of a refused connection
        svc.reply(Reply(502, _UNICORN, {}, "GitHub's 502 page"))
        retrying = client(svc.base, GithubRetry(total=1, backoff_factor=0))
        yield case(
            "bad_gateway-retried",
            "bad gateway (after retries)",
            T,
            UO,
            _saas.catch(lambda: _CALLS["get_repo"][1](retrying)),
            "get_repository",
            _ARGS["get_repo"],
        )
        retrying_dead = client(_saas.dead_base(ctx), GithubRetry(total=1, backoff_factor=0))
        yield case(
            "refused-retried",
            "connection refused (after retries)",
            T,
            NE,
            _saas.catch(lambda: _CALLS["get_repo"][1](retrying_dead)),
            "get_repository",
            _ARGS["get_repo"],
        )
