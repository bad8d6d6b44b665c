"""webdav4: the WebDAV client (``webdav4.client.Client`` and its fsspec file system
``webdav4.fsspec.WebdavFileSystem``) behind an agent's file-share tools, against a REAL
WsgiDAV server (cheroot) that the module starts on 127.0.0.1 with a configuration written
in its temporary directory: a read-write share ``/team``, a read-only share ``/archive``
(``readonly: true``), a share ``/finance`` the tool's user is not mapped to, basic
authentication (``simple_dc`` users), a server process whose file size limit
(``RLIMIT_FSIZE``, 1 MiB) stands for a size limit of the installation, and a lock held by
another user's editor (a real ``LOCK`` request of another user, 10 minutes, as office
suites take and refresh them while a document is open). The statuses WsgiDAV never sends
(429, 503, a proxy's 502 / 504), a reply that is not WebDAV and the connection-level
failures come from a local stand-in (``_saas``) that also answers WebDAV's methods.

The client raises ``ResourceNotFound`` (404), ``ResourceAlreadyExists`` (405 on MKCOL, 412
on COPY / MOVE without overwrite, or its own check before an upload),
``ForbiddenOperation`` (403 on COPY / MOVE / MKCOL), ``ResourceConflict`` (409),
``ResourceLocked`` (423 on DELETE / COPY / MOVE), ``BadGatewayError`` (502),
``IsACollectionError`` / ``IsAResourceError`` (its own checks), ``HTTPError`` ("received
N (Reason)") for every other status, ``ValueError`` for a reply that is not a multistatus,
and ``httpx``'s transport errors unwrapped; its
fsspec file system turns these into ``FileNotFoundError``, ``FileExistsError``,
``IsADirectoryError``, ``NotADirectoryError`` and ``OSError(ENOTEMPTY)``. Statuses are
WsgiDAV's (wsgidav/request_server.py: 403 "Cannot copy/move source onto itself", 409
"Parent must be an existing collection." / "PUT parent must be a collection", 412
"Destination already exists and Overwrite is set to false", 423 for a locked resource,
502 "Inter-realm copy/move is not supported.", 405 for MKCOL on an existing resource, 403
for a write to a read-only provider; wsgidav/http_authenticator.py: 401) and RFC 4918's
meaning of them. The client runs with ``retry=False`` (the tool reports the first
failure).

Labels, by the cause set up:

- fixable: a path the model wrote that names a folder where a file is needed (or the
  reverse), a destination under the source itself or equal to it, a folder moved under a
  file, an upload onto a folder's path, a move across shares (the server does not do it: a
  destination in the same share does; the same ``BadGatewayError`` as a proxy's 502), an
  upload, a move, a copy or a new folder whose parent folder the model did not create, a
  folder to delete that is not empty without ``recursive``;
- unrecoverable: the tool's password refused, a share the tool's user has no access to, a
  write to the read-only share (upload, new folder, delete, copy, rename: webdav4 words the
  403 of a COPY / MOVE as "the source and the destination could be the same"), an upload
  over the server's file size limit (the server's process may not write files that large:
  a 500);
- ambiguous: a file or folder the model named that is not there (deleted, never there, or
  mistyped; a share name mistyped), a file or folder that already exists, a reply that is
  not WebDAV;
- transient: a file or folder locked by another user's open document (423: RFC 4918 section
  6.3, the lock ends when the document is closed or the lock times out), 429 / 503 from the
  front end, refused, DNS (not executed); a proxy's 502 / 504, read timeout, reset, close
  (unknown outcome).

Not triggered: 507 ``InsufficientStorage`` (WsgiDAV has no quota and never sends 507: a
full disk reaches the client as a 500), ``MultiStatusError`` (WsgiDAV answers a failed
DELETE of a tree with a single status).
"""

from __future__ import annotations

import base64
import json
import resource
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import generate

from libraries import _common, _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "webdav4"
REQUIRES = [
    "webdav4==0.11.0",
    "wsgidav==4.4.0",
    "cheroot==11.1.2",
    "json5==0.17.3",
    "jaraco.functools==4.6.0",
]

_USER, _PASSWORD = "agent", "s3cret-agent"
_LIMIT = 1 << 20  # the server process's file size limit (RLIMIT_FSIZE)

_S = {"type": "string"}
_PARAMS: dict[str, dict[str, Any]] = {
    "webdav_read_file": {
        "type": "object",
        "properties": {
            "path": {**_S, "description": "Path of the file on the share, e.g. team/docs/plan.md"}
        },
        "required": ["path"],
    },
    "webdav_list": {
        "type": "object",
        "properties": {
            "path": {**_S, "description": "Folder to list"},
            "files_only": {"type": "boolean", "description": "Fail if the path is a file"},
        },
        "required": ["path"],
    },
    "webdav_upload": {
        "type": "object",
        "properties": {
            "local_path": {**_S, "description": "File in the agent's workspace"},
            "remote_path": {**_S, "description": "Destination path on the share"},
            "overwrite": {"type": "boolean", "description": "Replace an existing file"},
        },
        "required": ["local_path", "remote_path"],
    },
    "webdav_write_file": {
        "type": "object",
        "properties": {
            "path": {**_S, "description": "Path of the file on the share"},
            "content": {**_S, "description": "Text to write"},
        },
        "required": ["path", "content"],
    },
    "webdav_mkdir": {
        "type": "object",
        "properties": {"path": {**_S, "description": "Folder to create"}},
        "required": ["path"],
    },
    "webdav_delete": {
        "type": "object",
        "properties": {
            "path": {**_S, "description": "File or folder to delete"},
            "recursive": {"type": "boolean", "description": "Delete a folder with its content"},
        },
        "required": ["path"],
    },
    "webdav_move": {
        "type": "object",
        "properties": {
            "source": {**_S, "description": "Path to move"},
            "destination": {**_S, "description": "New path"},
            "overwrite": {"type": "boolean", "description": "Replace the destination if it exists"},
        },
        "required": ["source", "destination"],
    },
    "webdav_copy": {
        "type": "object",
        "properties": {
            "source": {**_S, "description": "Path to copy"},
            "destination": {**_S, "description": "Path of the copy"},
            "overwrite": {"type": "boolean", "description": "Replace the destination if it exists"},
        },
        "required": ["source", "destination"],
    },
    "webdav_info": {
        "type": "object",
        "properties": {"path": {**_S, "description": "File or folder on the share"}},
        "required": ["path"],
    },
}


def _config(root: Any, port: int) -> dict[str, Any]:
    return {
        "host": "127.0.0.1",
        "port": port,
        "server": "cheroot",
        "verbose": 0,
        "logging": {"enable": False},
        "provider_mapping": {
            "/team": {"root": str(root / "team"), "readonly": False},
            "/archive": {"root": str(root / "archive"), "readonly": True},
            "/finance": {"root": str(root / "finance"), "readonly": False},
        },
        "http_authenticator": {"accept_basic": True, "accept_digest": False, "default_to_digest": False},
        "simple_dc": {
            "user_mapping": {
                "*": {_USER: {"password": _PASSWORD}},
                "/team": {_USER: {"password": _PASSWORD}, "dana": {"password": "dana-pass"}},
                "/archive": {_USER: {"password": _PASSWORD}},
                "/finance": {"controller": {"password": "ledger-2026"}},
            }
        },
        "dir_browser": {"enable": False},
        "lock_storage": True,
        "property_manager": True,
    }


def _limit_file_size() -> None:  # in the server's process, before exec
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (_LIMIT, _LIMIT))


@contextmanager
def _wsgidav(ctx: Any) -> Iterator[int]:
    root = ctx.tmp / "dav"
    for share, files in {
        "team": {
            "docs/plan.md": "# Q1 plan\n",
            "docs/minutes.md": "# Minutes\n",
            "docs/old/notes.md": "old notes\n",
            "contracts/acme.docx": "PK\x03\x04 acme contract\n",
            "reports/2026/q1.csv": "month,revenue\n",
        },
        "archive": {"2025/summary.md": "# 2025\n"},
        "finance": {"ledger.csv": "date,amount\n"},
    }.items():
        for name, text in files.items():
            path = root / share / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    port = _common.free_port()
    ctx.name_port(port, "DAVPORT")
    conf = ctx.tmp / "wsgidav.json"
    conf.write_text(json.dumps(_config(root, port)))
    args = [sys.executable, "-m", "wsgidav.server.server_cli", f"--config={conf}"]
    with _common.process(args, port, preexec_fn=_limit_file_size):
        yield port


def _lock(port: int, path: str) -> None:
    """Another user's editor locks ``path`` (an exclusive write lock of 10 minutes, which an
    office suite refreshes while the document is open and releases when it is closed)."""
    import httpx

    body = (
        '<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:">'
        "<D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype>"
        "<D:owner>dana (LibreOffice)</D:owner></D:lockinfo>"
    )
    token = base64.b64encode(b"dana:dana-pass").decode()
    r = httpx.request(
        "LOCK",
        f"http://127.0.0.1:{port}{path}",
        content=body,
        headers={"Authorization": f"Basic {token}", "Timeout": "Second-600", "Depth": "infinity"},
        timeout=10,
    )
    assert r.status_code == 200, r.status_code


def _calls(c: Any, fs: Any, work: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the URL and credentials are the tool's."""

    def read(path: str) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        def run() -> Any:
            with c.open(path, mode="rb") as f:
                return f.read()

        return ("webdav_read_file", {"path": path}, run)

    def upload(
        local: str, remote: str, overwrite: bool = False
    ) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        args = {"local_path": local, "remote_path": remote, **({"overwrite": True} if overwrite else {})}
        return ("webdav_upload", args, lambda: c.upload_file(work / local, remote, overwrite=overwrite))

    def write(path: str, text: str) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        def run() -> None:
            f = fs.open(path, "wb")
            f.write(text.encode())
            try:
                f.close()  # the upload happens here
            except BaseException:
                f.discard()  # or the file object would upload again when collected
                raise

        return ("webdav_write_file", {"path": path, "content": text}, run)

    def transfer(
        tool: str, src: str, dst: str, overwrite: bool = False
    ) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        args = {"source": src, "destination": dst, **({"overwrite": True} if overwrite else {})}
        op = c.move if tool == "webdav_move" else c.copy
        return (tool, args, lambda: op(src, dst, overwrite=overwrite))

    def mkdir(path: str) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        return ("webdav_mkdir", {"path": path}, lambda: c.mkdir(path))

    def delete(path: str, recursive: bool | None = None) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        if recursive is None:
            return ("webdav_delete", {"path": path}, lambda: c.remove(path))
        remove = (lambda: fs.rm(path, recursive=True)) if recursive else (lambda: fs.rmdir(path))
        return ("webdav_delete", {"path": path, "recursive": recursive}, remove)

    return {
        # not there
        "read_missing": read("team/docs/plan-v2.md"),
        "read_missing_share": read("teams/docs/plan.md"),
        "info_missing": ("webdav_info", {"path": "team/reports/2025"}, lambda: c.info("team/reports/2025")),
        "list_missing": ("webdav_list", {"path": "team/docs/drafts"}, lambda: c.ls("team/docs/drafts")),
        "delete_missing": delete("team/docs/agenda.md"),
        "move_missing": transfer("webdav_move", "team/docs/agenda.md", "team/docs/old/agenda.md"),
        "fs_cat_missing": ("webdav_read_file", {"path": "team/docs/budget.xlsx"}, lambda: fs.cat_file("team/docs/budget.xlsx")),
        # already there
        "mkdir_exists": mkdir("team/docs"),
        "copy_exists": transfer("webdav_copy", "team/docs/plan.md", "team/docs/minutes.md"),
        "move_exists": transfer("webdav_move", "team/docs/minutes.md", "team/docs/plan.md"),
        "upload_exists": upload("out/plan.md", "team/docs/plan.md"),
        "fs_mkdir_exists": ("webdav_mkdir", {"path": "team/reports"}, lambda: fs.mkdir("team/reports", create_parents=False)),
        "fs_mkdir_under_file": ("webdav_mkdir", {"path": "team/docs/plan.md/attachments"}, lambda: fs.mkdir("team/docs/plan.md/attachments", create_parents=False)),
        # the model's paths
        "read_folder": read("team/docs"),
        "list_file": ("webdav_list", {"path": "team/docs/plan.md", "files_only": True}, lambda: c.ls("team/docs/plan.md", allow_listing_resource=False)),
        "fs_cat_folder": ("webdav_read_file", {"path": "team/reports/2026"}, lambda: fs.cat_file("team/reports/2026")),
        "fs_ls_file": ("webdav_list", {"path": "team/reports/2026/q1.csv", "files_only": True}, lambda: fs.ls("team/reports/2026/q1.csv/")),
        "copy_self": transfer("webdav_copy", "team/docs/plan.md", "team/docs/plan.md", overwrite=True),
        "move_into_file": transfer("webdav_move", "team/docs/old", "team/docs/plan.md/old"),
        "upload_onto_folder": upload("out/plan.md", "team/docs", overwrite=True),
        "move_below": transfer("webdav_move", "team/docs", "team/docs/old/docs"),
        "move_no_parent": transfer("webdav_move", "team/docs/minutes.md", "team/meetings/2026/minutes.md"),
        "copy_no_parent": transfer("webdav_copy", "team/docs/plan.md", "team/plans/q1/plan.md"),
        "move_cross_share": transfer("webdav_move", "team/docs/minutes.md", "archive/2025/minutes.md"),
        "mkdir_no_parent": mkdir("team/projects/apollo/specs"),
        "upload_no_parent": upload("out/plan.md", "team/drafts/plan.md"),
        "write_no_parent": write("team/notes/2026/standup.md", "- shipped 2.3\n"),
        "fs_rm_not_empty": delete("team/docs/old", recursive=False),
        # permissions, limits
        "upload_readonly": upload("out/plan.md", "archive/2025/plan.md"),
        "mkdir_readonly": mkdir("archive/2026"),
        "delete_readonly": delete("archive/2025/summary.md"),
        "copy_into_readonly": transfer("webdav_copy", "archive/2025/summary.md", "archive/2025/summary-copy.md"),
        "read_finance": read("finance/ledger.csv"),
        "list_finance": ("webdav_list", {"path": "finance"}, lambda: c.ls("finance")),
        "upload_big": upload("out/video.mp4", "team/docs/video.mp4"),
        "move_readonly": transfer("webdav_move", "archive/2025/summary.md", "archive/2025/summary-final.md"),
        # locks held by another user
        "delete_locked": delete("team/contracts/acme.docx"),
        "move_locked": transfer("webdav_move", "team/contracts/acme.docx", "team/contracts/acme-signed.docx"),
        "upload_locked": upload("out/acme.docx", "team/contracts/acme.docx", overwrite=True),
        "copy_onto_locked": transfer("webdav_copy", "team/docs/plan.md", "team/contracts/plan.md"),
        # the tool's own password
        "read": read("team/docs/plan.md"),
        "upload": upload("out/plan.md", "team/docs/plan-v2.md", overwrite=True),
    }  # fmt: skip


# (key, call, kind, cause) against the real server
_REAL: list[tuple[str, str, str, str]] = [
    ("read-missing", "read_missing", A, "file not found"),
    ("info-missing", "info_missing", A, "folder not found"),
    ("read-missing-share", "read_missing_share", A, "share name not found"),
    ("list-missing", "list_missing", A, "folder to list not found"),
    ("delete-missing", "delete_missing", A, "file to delete not found"),
    ("move-missing", "move_missing", A, "file to move not found"),
    ("fs-cat-missing", "fs_cat_missing", A, "file not found (fsspec)"),
    ("mkdir-exists", "mkdir_exists", A, "folder already exists"),
    ("copy-exists", "copy_exists", A, "copy destination already exists"),
    ("move-exists", "move_exists", A, "move destination already exists"),
    ("upload-exists", "upload_exists", A, "upload destination already exists"),
    ("fs-mkdir-exists", "fs_mkdir_exists", A, "folder already exists (fsspec)"),
    ("read-folder", "read_folder", F, "path of a folder given to read a file"),
    ("list-file", "list_file", F, "path of a file given to list a folder"),
    ("fs-cat-folder", "fs_cat_folder", F, "path of a folder given to read a file (fsspec)"),
    ("fs-ls-file", "fs_ls_file", F, "path of a file given as a folder (fsspec)"),
    ("copy-self", "copy_self", F, "copy onto itself"),
    ("move-into-file", "move_into_file", F, "folder moved under a file"),
    ("upload-onto-folder", "upload_onto_folder", F, "upload onto the path of a folder"),
    ("move-below", "move_below", F, "folder moved below itself"),
    ("move-no-parent", "move_no_parent", F, "move into a folder that was not created"),
    ("copy-no-parent", "copy_no_parent", F, "copy into a folder that was not created"),
    ("move-cross-share", "move_cross_share", F, "move across shares (not supported by the server)"),
    ("mkdir-no-parent", "mkdir_no_parent", F, "folder created in a parent that was not created"),
    ("upload-no-parent", "upload_no_parent", F, "upload into a folder that was not created"),
    ("write-no-parent", "write_no_parent", F, "file written into a folder that was not created (fsspec)"),
    ("fs-mkdir-under-file", "fs_mkdir_under_file", F, "folder created under a file (fsspec)"),
    ("fs-rm-not-empty", "fs_rm_not_empty", F, "non-empty folder deleted without recursive"),
    ("upload-readonly", "upload_readonly", U, "upload to the read-only share"),
    ("mkdir-readonly", "mkdir_readonly", U, "folder created on the read-only share"),
    ("delete-readonly", "delete_readonly", U, "delete on the read-only share"),
    ("copy-into-readonly", "copy_into_readonly", U, "copy within the read-only share"),
    ("move-readonly", "move_readonly", U, "rename on the read-only share"),
    ("read-no-access", "read_finance", U, "share the tool's user is not mapped to"),
    ("list-no-access", "list_finance", U, "share listing the tool's user may not see"),
    ("upload-too-large", "upload_big", U, "upload over the server's file size limit"),
]

# (key, call, cause) against the real server: transient, not executed (a lock held by another
# user's open document: the same call works once the document is closed)
_LOCKED: list[tuple[str, str, str]] = [
    ("delete-locked", "delete_locked", "file locked by another user's editor"),
    ("move-locked", "move_locked", "file to move locked by another user's editor"),
    ("upload-locked", "upload_locked", "file to replace locked by another user's editor"),
    ("copy-onto-locked", "copy_onto_locked", "destination folder locked by another user's editor"),
]

# (key, call, reply, kind, outcome, cause) against the stand-in
_STANDIN: list[tuple[str, str, Reply, str, str | None, str]] = [
    ("too-many-requests", "read", Reply(429, "<html><head><title>429 Too Many Requests</title></head><body><h1>Too Many Requests</h1></body></html>", {"Retry-After": "30"}, "a front end's rate limit (RFC 6585)"), T, NE, "front end rate limit"),
    ("service-unavailable", "read", Reply(503, "<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n", {}, "nginx's default error page"), T, NE, "server temporarily unavailable"),
    ("bad-gateway", "upload", Reply(502, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n", {}, "nginx's default error page"), T, UO, "proxy could not reach the server (502)"),
    ("gateway-timeout", "upload", Reply(504, "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n", {}, "nginx's default error page"), T, UO, "gateway timeout"),
]  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    from webdav4.client import Client
    from webdav4.fsspec import WebdavFileSystem

    work = ctx.tmp / "work"
    (work / "out").mkdir(parents=True)
    (work / "out" / "plan.md").write_text("# Q1 plan, revised\n")
    (work / "out" / "acme.docx").write_text("PK\x03\x04 acme contract, signed\n")
    (work / "out" / "video.mp4").write_bytes(b"\x00" * (_LIMIT + 65536))

    def client(base: str, password: str = _PASSWORD, timeout: float = _saas.TIMEOUT) -> tuple[Any, Any]:
        auth = (_USER, password)
        c = Client(base, auth=auth, retry=False, timeout=timeout)
        return c, WebdavFileSystem(base, auth=auth, retry=False, timeout=timeout)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(
            f"webdav4-{cid}",
            LIBRARY,
            cause,
            kind,
            outcome,
            exc,
            tool,
            arguments=args,
            parameters=_PARAMS[tool],
        )

    with _wsgidav(ctx) as port:
        base = f"http://127.0.0.1:{port}"
        _lock(port, "/team/contracts/")
        calls = _calls(*client(base, timeout=30), work)  # the real server: no timeout wanted
        for key, call, kind, cause in _REAL:
            tool, args, fn = calls[call]
            yield case(key, cause, kind, None, _saas.caught(key, fn), tool, args)
        for key, call, cause in _LOCKED:
            tool, args, fn = calls[call]
            yield case(key, cause, T, NE, _saas.caught(key, fn), tool, args)
        tool, args, fn = _calls(*client(base, "s3cret-agent-2025", 30), work)["read"]
        yield case(
            "wrong-password",
            "tool's password refused",
            U,
            None,
            _saas.caught("wrong-password", fn),
            tool,
            args,
        )
        tool, args, fn = _calls(*client(base, "s3cret-agent-2025", 30), work)["upload"]
        yield case(
            "wrong-password-upload",
            "tool's password refused",
            U,
            None,
            _saas.caught("wrong-pw-up", fn),
            tool,
            args,
        )

    with _saas.service(ctx, "DAVPROXYPORT", "nginx") as svc:
        handler = svc._server.RequestHandlerClass  # the stand-in answers WebDAV's methods too
        handler.do_PROPFIND = handler.do_MKCOL = handler.do_MOVE = handler.do_COPY = handler.do_GET  # type: ignore[attr-defined]
        calls = _calls(*client(svc.base), work)
        for key, call, reply, kind, outcome, cause in _STANDIN:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)
        svc.reply(Reply(200, "<html><body><h1>Sign in</h1><p>Your session has expired.</p></body></html>"))
        tool, args, fn = _calls(*client(svc.base), work)["list_missing"]
        yield case(
            "html-listing",
            "a login page instead of a WebDAV listing",
            A,
            None,
            _saas.caught("html", fn),
            tool,
            args,
        )
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            url = {"refused": _saas.dead_base(ctx), "dns": "http://dav.unreachable-host.invalid"}.get(
                key, svc.base
            )
            for call in {"hang": ("read", "upload"), "reset": ("upload",)}.get(key, ("read",)):
                tool, args, fn = _calls(*client(url), work)[call]
                yield case(f"{key}-{call}", cause, kind, outcome, _saas.catch(fn), tool, args)
