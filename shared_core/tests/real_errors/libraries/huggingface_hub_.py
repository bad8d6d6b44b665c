"""huggingface_hub: the Hub API's errors as the library raises them
(``RepositoryNotFoundError``, ``GatedRepoError``, ``RemoteEntryNotFoundError``,
``RevisionNotFoundError``, ``DisabledRepoError``, ``BadRequestError``, ``HfHubHTTPError``;
``LocalEntryNotFoundError`` from a download; ``HFValidationError`` from its own checks),
through ``HfApi(endpoint=...)`` and ``hf_hub_download(endpoint=...)`` pointed at a local
stand-in of huggingface.co.

The Hub tells the cause in ``X-Error-Code`` / ``X-Error-Message`` headers beside a JSON
``{"error": ...}`` body (huggingface.co/docs/huggingface_hub/package_reference/utilities#
huggingface_hub.utils.hf_raise_for_status documents the codes: RepoNotFound, GatedRepo,
EntryNotFound, RevisionNotFound, "Access to this resource is disabled."); rate limits are
429 with the ``RateLimit`` / ``RateLimit-Policy`` headers (huggingface.co/docs/hub/
rate-limits).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "huggingface_hub"
REQUIRES = ["huggingface_hub>=2,<3"]

_RAISE = "hf_raise_for_status (huggingface.co/docs/huggingface_hub/package_reference/utilities)"
_RATE = "Hub rate limits (huggingface.co/docs/hub/rate-limits)"
_REQ = {"X-Request-Id": "Root=1-692ce000-0a1b2c3d4e5f6a7b8c9d0e1f"}


def _h(status: int, message: str, code: str | None = None, source: str = _RAISE, **headers: str) -> Reply:
    hdr = {**_REQ, "X-Error-Message": message, **headers}
    if code:
        hdr["X-Error-Code"] = code
    return Reply(status, {"error": message}, hdr, source)


_GATED = (
    "Access to model meta-llama/Llama-3.1-8B is restricted and you are not in the authorized list. "
    "Visit https://huggingface.co/meta-llama/Llama-3.1-8B to ask for access."
)
_GATED_ANON = (
    "Access to model meta-llama/Llama-3.1-8B is restricted. You must have access to it and be authenticated "
    "to access it. Please log in."
)

_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    (
        "repo_not_found_401",
        "model_info",
        _h(401, "Repository not found", "RepoNotFound"),
        A,
        None,
        "repository not found (or private)",
    ),
    (
        "repo_not_found_404",
        "dataset_info",
        _h(404, "Repository not found", "RepoNotFound"),
        A,
        None,
        "dataset repository not found",
    ),
    (
        "revision_not_found",
        "model_info_rev",
        _h(404, "Invalid rev id: v9.9", "RevisionNotFound"),
        A,
        None,
        "revision not found",
    ),
    (
        "entry_not_found",
        "download",
        _h(404, "Entry not found", "EntryNotFound"),
        A,
        None,
        "file not found in the repository",
    ),
    ("gated_403", "download", _h(403, _GATED, "GatedRepo"), U, None, "gated repository, access not granted"),
    (
        "gated_401",
        "download",
        _h(401, _GATED_ANON, "GatedRepo"),
        U,
        None,
        "gated repository, not authenticated",
    ),
    (
        "disabled",
        "model_info",
        _h(403, "Access to this resource is disabled."),
        U,
        None,
        "repository disabled",
    ),
    (
        "invalid_token",
        "whoami",
        _h(401, "Invalid credentials in Authorization header"),
        U,
        None,
        "invalid access token",
    ),
    (
        "no_rights_namespace",
        "create_repo",
        _h(403, 'You don\'t have the rights to create a model under the namespace "acme"'),
        U,
        None,
        "token cannot create repositories in the namespace",
    ),
    (
        "read_token_write",
        "delete_file",
        _h(403, "You have read access but not the required permissions for this operation."),
        U,
        None,
        "read-only token used for a write",
    ),
    (
        "repo_exists",
        "create_repo",
        _h(409, "You already created this model repo"),
        A,
        None,
        "repository already exists",
    ),
    (
        "branch_exists",
        "create_branch",
        _h(409, "Reference already exists: refs/heads/dev"),
        A,
        None,
        "branch already exists",
    ),
    (
        "invalid_gated_value",
        "settings",
        _h(400, '"gated" must be one of [auto, manual, false]'),
        F,
        None,
        "setting value invalid (client-side check)",
    ),
    (
        "bad_request_commit",
        "delete_file",
        _h(400, "Invalid path: paths must not contain '..'"),
        F,
        None,
        "path invalid in the commit",
    ),
    (
        "rate_limit_headers",
        "model_info",
        Reply(
            429,
            {"error": "Too Many Requests"},
            {**_REQ, "RateLimit": '"api";r=0;t=142', "RateLimit-Policy": '"fixed window";"api";q=1000;w=300'},
            _RATE,
        ),
        T,
        NE,
        "API rate limit ('api' window)",
    ),
    (
        "rate_limit_plain",
        "model_info",
        Reply(429, {"error": "Too Many Requests"}, {**_REQ, "Retry-After": "30"}, _RATE),
        T,
        NE,
        "too many requests",
    ),
    (
        "internal",
        "model_info",
        Reply(
            500,
            {"error": "Internal Error - We're working hard to fix this as soon as possible!"},
            _REQ,
            "Hub 500 page text",
        ),
        T,
        UO,
        "internal server error",
    ),
    (
        "bad_gateway",
        "model_info",
        Reply(
            502,
            "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>",
            {},
            "the Hub's load balancer",
        ),
        T,
        UO,
        "bad gateway",
    ),
    (
        "unavailable",
        "model_info",
        Reply(
            503,
            "<html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center></body></html>",
            {},
            "the Hub's load balancer",
        ),
        T,
        NE,
        "service temporarily unavailable",
    ),
    (
        "gateway_timeout",
        "whoami",
        Reply(
            504,
            "<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center></body></html>",
            {},
            "the Hub's load balancer",
        ),
        T,
        UO,
        "gateway timeout",
    ),
]

_TOKEN = "hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345"


def cases(ctx: Any) -> Iterator[generate.Case]:
    import httpx2
    from huggingface_hub import HfApi, hf_hub_download
    from huggingface_hub.utils import _http

    _http.set_client_factory(lambda: httpx2.Client(follow_redirects=True, timeout=_saas.TIMEOUT))

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"hf-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    repo = "acme/sentiment-bert"
    gated_repo, filename = "meta-llama/Llama-3.1-8B", "config.json"

    def calls(base: str) -> dict[str, tuple[str, dict[str, Any], Any]]:
        """call -> (tool, the model's arguments, the call); endpoint and token are the tool's."""
        api = HfApi(endpoint=base, token=_TOKEN)
        return {
            "model_info": (
                "model_info",
                {"repo_id": repo},
                lambda: api.model_info(repo, timeout=_saas.TIMEOUT),
            ),
            "dataset_info": (
                "dataset_info",
                {"repo_id": "acme/reviews"},
                lambda: api.dataset_info("acme/reviews"),
            ),
            "model_info_rev": (
                "model_info",
                {"repo_id": repo, "revision": "v9.9"},
                lambda: api.model_info(repo, revision="v9.9"),
            ),
            "download": (
                "download_file",
                {"repo_id": gated_repo, "filename": filename},
                lambda: hf_hub_download(
                    gated_repo,
                    filename,
                    endpoint=base,
                    token=_TOKEN,
                    cache_dir=ctx.tmp / "hf-cache",
                    etag_timeout=_saas.TIMEOUT,
                ),
            ),
            "whoami": ("whoami", {}, lambda: api.whoami()),
            "create_repo": ("create_repo", {"repo_id": repo}, lambda: api.create_repo(repo)),
            "delete_file": (
                "delete_file",
                {"path_in_repo": "weights/old.bin", "repo_id": repo},
                lambda: api.delete_file("weights/old.bin", repo),
            ),
            "create_branch": (
                "create_branch",
                {"repo_id": repo, "branch": "dev"},
                lambda: api.create_branch(repo, branch="dev"),
            ),
            "settings": (
                "update_repo_settings",
                {"repo_id": repo, "gated": "sometimes"},
                lambda: api.update_repo_settings(repo, gated="sometimes"),
            ),
        }

    try:
        with _saas.service(ctx, "HFPORT", "") as svc:
            c = calls(svc.base)
            for key, call, reply, kind, outcome, cause in _SCENARIOS:
                tool, args, fn = c[call]
                svc.reply(reply)
                try:
                    exc = _saas.catch(fn)
                except AssertionError:
                    raise AssertionError(key) from None
                yield case(key, cause, kind, outcome, exc, tool, args)
            for key, kind, outcome, cause in _saas.TRANSPORT:
                svc.reply(key)
                base = {"refused": _saas.dead_base(ctx), "dns": "https://hub.unreachable-host.invalid"}.get(
                    key, svc.base
                )
                tool, args, fn = calls(base)["model_info"]
                yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)
            # a download whose connection breaks after the request was sent (a refused or
            # unresolved one is retried with backoff for ~25 s before LocalEntryNotFoundError)
            for key, kind, outcome, cause in _saas.TRANSPORT:
                if key not in (_saas.RESET, _saas.CLOSE):
                    continue
                svc.reply(key)
                tool, args, fn = calls(svc.base)["download"]
                cause += " (no cached copy)"
                yield case(f"download-{key}", cause, kind, outcome, _saas.catch(fn), tool, args)
            # the library's own checks (nothing sent)
            api = HfApi(endpoint=svc.base, token=_TOKEN)
            exc = _saas.catch(lambda: api.model_info("acme//sentiment bert"))
            cause = "repository id malformed (client-side check)"
            yield case(
                "invalid_repo_id", cause, F, None, exc, "model_info", {"repo_id": "acme//sentiment bert"}
            )
            exc = _saas.catch(lambda: api.create_repo(repo, repo_type="notebook"))
            yield case(
                "invalid_repo_type",
                "unknown repository type (client-side check)",
                F,
                None,
                exc,
                "create_repo",
                {"repo_id": repo, "repo_type": "notebook"},
            )
    finally:
        _http.set_client_factory(_http.default_client_factory)
