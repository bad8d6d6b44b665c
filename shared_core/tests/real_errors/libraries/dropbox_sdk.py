# ruff: noqa: B023 - each lambda is called at once
"""dropbox: the Dropbox API v2's errors as the Python SDK raises them (``ApiError`` with the
route's error union, ``AuthError``, ``BadInputError``, ``RateLimitError``,
``InternalServerError``, ``HttpError``; stone's ``ValidationError`` from the SDK's own
argument checks; requests' transport errors), through ``Dropbox(session=...)`` pointed at a
local HTTPS stand-in of api.dropboxapi.com / content.dropboxapi.com: the SDK only speaks
``https://<host>/2/<route>``, so the stand-in serves TLS on 127.0.0.1 with a certificate
made for this run, the requests session handed to the SDK (``Dropbox(session=...)``)
trusts it and the instance's host map names ``127.0.0.1:<port>``.

Bodies are those of "Errors" in the HTTP documentation
(dropbox.com/developers/documentation/http/documentation#error-handling: 400 as plain text,
401 ``AuthError`` / 403 ``AccessError`` / 409 endpoint errors / 429 ``RateLimitError`` as
``{"error_summary": .., "error": {".tag": ..}}``, 429 and 503 with ``Retry-After``,
``X-Dropbox-Request-Id`` on each); the tags are the route error unions of the API
reference (files/download ``DownloadError``, files/upload ``UploadError`` /
``UploadWriteFailed`` / ``WriteError``, files/get_metadata and files/delete ``LookupError``,
files/move_v2 ``RelocationError``, files/list_folder ``ListFolderError``,
files/list_folder/continue ``ListFolderContinueError``, files/get_temporary_link,
files/get_thumbnail ``ThumbnailError``, sharing/create_shared_link_with_settings).

Labels: a path that is malformed / a folder where a file is meant / a name Dropbox refuses,
a stale cursor, an unsupported thumbnail source, a move into itself, an argument the SDK's
validators refuse -> fixable; token invalid / expired / missing scope, a suspended user, no
write permission, a full account, restricted content, an unverified e-mail, an account
type without the feature -> unrecoverable; 429 (rate, write contention) and 503 ->
transient, not executed; 500 and read timeouts / resets -> transient, unknown outcome;
"already exists" conflicts and not found -> ambiguous, as the other modules label them.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "dropbox"
REQUIRES = ["dropbox>=11.36,<13", "cryptography>=41"]

_DOC = "Dropbox HTTP errors (dropbox.com/developers/documentation/http/documentation#error-handling)"
_REF = "Dropbox API v2 reference (dropbox.com/developers/documentation/http/documentation), route error union"
_RID = {"X-Dropbox-Request-Id": "9f2b6e1c4d8a4f7b9e3c0a5d2f6b8e1c"}


def _route(
    summary: str, error: dict[str, Any], status: int = 409, source: str = _REF, **headers: str
) -> Reply:
    return Reply(status, {"error_summary": summary, "error": error}, {**_RID, **headers}, source)


def _lookup(outer: str, tag: str) -> dict[str, Any]:
    return {".tag": outer, outer: {".tag": tag}}


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the call's arguments
    (
        "download_malformed",
        "download",
        _route("path/malformed_path/..", _lookup("path", "malformed_path")),
        F,
        None,
        "malformed path",
    ),
    (
        "download_not_file",
        "download",
        _route("path/not_file/...", _lookup("path", "not_file")),
        F,
        None,
        "download of a folder",
    ),
    (
        "download_unsupported",
        "download",
        _route("unsupported_file/..", {".tag": "unsupported_file"}),
        F,
        None,
        "file type not downloadable (export it)",
    ),
    (
        "list_not_folder",
        "list_folder",
        _route("path/not_folder/..", _lookup("path", "not_folder")),
        F,
        None,
        "list_folder on a file",
    ),
    (
        "cursor_reset",
        "list_continue",
        _route("reset/..", {".tag": "reset"}),
        F,
        None,
        "list cursor invalidated: restart listing",
    ),
    (
        "upload_disallowed_name",
        "upload",
        _route(
            "path/disallowed_name/..",
            {".tag": "path", "reason": {".tag": "disallowed_name"}, "upload_session_id": "AAAAAAAAAL2xQz"},
        ),
        F,
        None,
        "file name Dropbox does not allow",
    ),
    (
        "move_into_itself",
        "move",
        _route("cant_move_folder_into_itself/..", {".tag": "cant_move_folder_into_itself"}),
        F,
        None,
        "move of a folder into itself",
    ),
    (
        "move_too_many_files",
        "move",
        _route("too_many_files/..", {".tag": "too_many_files"}),
        F,
        None,
        "move involving too many files for one request",
    ),
    (
        "thumbnail_extension",
        "thumbnail",
        _route("unsupported_extension/..", {".tag": "unsupported_extension"}),
        F,
        None,
        "thumbnail of a file type without thumbnails",
    ),
    (
        "bad_input_pattern",
        "get_metadata",
        Reply(
            400,
            "Error in call to API function \"files/get_metadata\": request body: path: 'Reports/q3.csv' did not match pattern '(/(.|[\\r\\n])*|id:.*)|(rev:[0-9a-f]{9,})|(ns:[0-9]+(/.*)?)'",
            {**_RID, "content-type": "text/plain; charset=utf-8"},
            _DOC,
        ),
        F,
        None,
        "path without a leading slash (400 bad input)",
    ),
    # credentials, permissions, account state
    (
        "invalid_token",
        "get_metadata",
        _route("invalid_access_token/..", {".tag": "invalid_access_token"}, 401, _DOC),
        U,
        None,
        "access token invalid",
    ),
    (
        "expired_token",
        "download",
        _route("expired_access_token/..", {".tag": "expired_access_token"}, 401, _DOC),
        U,
        None,
        "access token expired",
    ),
    (
        "missing_scope",
        "upload",
        _route(
            "missing_scope/..",
            {".tag": "missing_scope", "required_scope": "files.content.write"},
            401,
            _DOC,
        ),
        U,
        None,
        "app lacks the files.content.write scope",
    ),
    (
        "user_suspended",
        "list_folder",
        _route("user_suspended/..", {".tag": "user_suspended"}, 401, _DOC),
        U,
        None,
        "user suspended",
    ),
    (
        "no_write_permission",
        "upload",
        _route(
            "path/no_write_permission/..",
            {
                ".tag": "path",
                "reason": {".tag": "no_write_permission"},
                "upload_session_id": "AAAAAAAAAL2xQz",
            },
        ),
        U,
        None,
        "no write permission on the folder",
    ),
    (
        "insufficient_space",
        "upload",
        _route(
            "path/insufficient_space/..",
            {".tag": "path", "reason": {".tag": "insufficient_space"}, "upload_session_id": "AAAAAAAAAL2xQz"},
        ),
        U,
        None,
        "account storage full",
    ),
    (
        "restricted_content",
        "download",
        _route("path/restricted_content/..", _lookup("path", "restricted_content")),
        U,
        None,
        "file restricted (legal / copyright)",
    ),
    (
        "email_not_verified",
        "temp_link",
        _route("email_not_verified/..", {".tag": "email_not_verified"}),
        U,
        None,
        "account e-mail not verified",
    ),
    (
        "access_account_type",
        "shared_link",
        _route(
            "invalid_account_type/endpoint/..",
            {".tag": "invalid_account_type", "invalid_account_type": {".tag": "endpoint"}},
            403,
            _DOC,
        ),
        U,
        None,
        "account type without the feature",
    ),
    # conflicts, not found
    (
        "upload_conflict",
        "upload",
        _route(
            "path/conflict/file/..",
            {
                ".tag": "path",
                "reason": {".tag": "conflict", "conflict": {".tag": "file"}},
                "upload_session_id": "AAAAAAAAAL2xQz",
            },
        ),
        A,
        None,
        "a file already at the path",
    ),
    (
        "folder_conflict",
        "create_folder",
        _route(
            "path/conflict/folder/..",
            {".tag": "path", "path": {".tag": "conflict", "conflict": {".tag": "folder"}}},
        ),
        A,
        None,
        "folder already exists",
    ),
    (
        "shared_link_exists",
        "shared_link",
        _route("shared_link_already_exists/..", {".tag": "shared_link_already_exists"}),
        A,
        None,
        "shared link already exists",
    ),
    (
        "download_not_found",
        "download",
        _route("path/not_found/...", _lookup("path", "not_found")),
        A,
        None,
        "file not found",
    ),
    (
        "metadata_not_found",
        "get_metadata",
        _route("path/not_found/..", _lookup("path", "not_found")),
        A,
        None,
        "path not found",
    ),
    (
        "delete_not_found",
        "delete",
        _route("path_lookup/not_found/..", _lookup("path_lookup", "not_found")),
        A,
        None,
        "file to delete not found",
    ),
    (
        "move_source_not_found",
        "move",
        _route("from_lookup/not_found/..", _lookup("from_lookup", "not_found")),
        A,
        None,
        "move source not found",
    ),
    # the service's side
    (
        "rate_limited",
        "list_folder",
        _route(
            "too_many_requests/..",
            {"reason": {".tag": "too_many_requests"}, "retry_after": 300},
            429,
            _DOC,
            **{"Retry-After": "300"},
        ),
        T,
        NE,
        "too many requests (Retry-After)",
    ),
    (
        "write_contention",
        "upload",
        _route(
            "too_many_write_operations/..",
            {"reason": {".tag": "too_many_write_operations"}, "retry_after": 1},
            429,
            _DOC,
            **{"Retry-After": "1"},
        ),
        T,
        NE,
        "too many write operations on the namespace",
    ),
    (
        "upload_write_failed",
        "upload",
        _route(
            "path/too_many_write_operations/..",
            {
                ".tag": "path",
                "reason": {".tag": "too_many_write_operations"},
                "upload_session_id": "AAAAAAAAAL2xQz",
            },
        ),
        T,
        NE,
        "upload lost to concurrent writes (retry)",
    ),
    (
        "unavailable",
        "download",
        Reply(503, "", {**_RID, "Retry-After": "10"}, _DOC),
        T,
        NE,
        "service unavailable (503 Retry-After)",
    ),
    (
        "internal",
        "upload",
        Reply(500, "", _RID, _DOC),
        T,
        UO,
        "internal server error",
    ),
]


_FILE = {"path": "/Reports/q3.csv"}


def _calls() -> dict[str, tuple[str, dict[str, Any], Any]]:
    """call -> (tool, the model's arguments, the call); the token and hosts are the tool's."""
    return {
        "download": ("download_file", _FILE, lambda d: d.files_download("/Reports/q3.csv")),
        "upload": (
            "upload_file",
            {"path": "/Reports/q3.csv", "content": "region,total\n"},
            lambda d: d.files_upload(b"region,total\n", "/Reports/q3.csv"),
        ),
        "get_metadata": ("get_metadata", _FILE, lambda d: d.files_get_metadata("/Reports/q3.csv")),
        "list_folder": ("list_folder", {"path": "/Reports"}, lambda d: d.files_list_folder("/Reports")),
        "list_continue": (
            "list_folder_continue",
            {"cursor": "AAGvJ0cX2kq8yZ"},
            lambda d: d.files_list_folder_continue("AAGvJ0cX2kq8yZ"),
        ),
        "delete": ("delete_file", _FILE, lambda d: d.files_delete_v2("/Reports/q3.csv")),
        "move": (
            "move_file",
            {"from_path": "/Reports", "to_path": "/Archive/Reports"},
            lambda d: d.files_move_v2("/Reports", "/Archive/Reports"),
        ),
        "create_folder": (
            "create_folder",
            {"path": "/Reports"},
            lambda d: d.files_create_folder_v2("/Reports"),
        ),
        "shared_link": (
            "share_file",
            _FILE,
            lambda d: d.sharing_create_shared_link_with_settings("/Reports/q3.csv"),
        ),
        "temp_link": ("temporary_link", _FILE, lambda d: d.files_get_temporary_link("/Reports/q3.csv")),
        "thumbnail": ("get_thumbnail", _FILE, lambda d: d.files_get_thumbnail("/Reports/q3.csv")),
    }


@contextmanager
def _tls_service(ctx: Any, cert: str, key: str) -> Iterator[_saas.Service]:
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    with _saas.service(ctx, "DROPBOXPORT", "envoy") as svc:
        server = svc._server
        server.socket = tls.wrap_socket(server.socket, server_side=True)
        yield svc


def cases(ctx: Any) -> Iterator[generate.Case]:
    import dropbox
    import requests
    from dropbox.dropbox_client import HOST_API, HOST_CONTENT, HOST_NOTIFY

    calls = _calls()
    cert, key = _saas.certificate(ctx.tmp, "dropbox-stand-in")
    logging.getLogger("dropbox").setLevel(logging.CRITICAL)  # its note on an expired token

    def client(host: str) -> Any:
        session = requests.Session()
        session.verify = cert
        session.trust_env = False  # a REQUESTS_CA_BUNDLE in the environment would replace ``verify``
        d = dropbox.Dropbox(
            "sl.u.AF3kq9Zr8Xp1Lw0Yb5Tn2Mv6Hc4Jd7Es0Q",
            max_retries_on_error=0,
            max_retries_on_rate_limit=0,
            timeout=_saas.TIMEOUT,
            session=session,
        )
        d._host_map = {HOST_API: host, HOST_CONTENT: host, HOST_NOTIFY: host}
        return d

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"dropbox-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _tls_service(ctx, cert, key) as svc:
        host = f"127.0.0.1:{svc.port}"
        d = client(host)
        for key_, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key_, cause, kind, outcome, _saas.catch(lambda: fn(d)), tool, args)

        # the SDK's own validators refuse the call's arguments (nothing is sent)
        local: list[tuple[str, str, str, dict[str, Any], Any]] = [
            (
                "local_path_pattern",
                "path without a leading slash",
                "download_file",
                {"path": "Reports/q3.csv"},
                lambda: d.files_download("Reports/q3.csv"),
            ),
            (
                "local_limit_zero",
                "list limit below 1",
                "list_folder",
                {"path": "/Reports", "limit": 0},
                lambda: d.files_list_folder("/Reports", limit=0),
            ),
            (
                "local_mode_str",
                "write mode given as an unknown string",
                "upload_file",
                {"path": "/Reports/q3.csv", "content": "x", "mode": "replace"},
                lambda: d.files_upload(b"x", "/Reports/q3.csv", mode="replace"),
            ),
            (
                "local_upload_str",
                "upload body a str, not bytes",
                "upload_file",
                {"path": "/Reports/q3.csv", "content": "region,total\n"},
                lambda: d.files_upload("region,total\n", "/Reports/q3.csv"),
            ),
            (
                "local_move_same",
                "move to a path that is not a path",
                "move_file",
                {"from_path": "/Reports", "to_path": "Archive"},
                lambda: d.files_move_v2("/Reports", "Archive"),
            ),
        ]
        for key_, cause, tool, args, fn in local:
            yield case(key_, cause, F, None, _saas.catch(fn), tool, args)

        for call in ("upload", "list_folder"):
            tool, args, fn = calls[call]
            for key_, kind, outcome, cause in _saas.TRANSPORT:
                svc.reply(key_)
                target = {"refused": f"127.0.0.1:{ctx.dead}", "dns": "api.unreachable-host.invalid"}.get(
                    key_, host
                )
                db = client(target)
                yield case(f"{key_}-{call}", cause, kind, outcome, _saas.catch(lambda: fn(db)), tool, args)
