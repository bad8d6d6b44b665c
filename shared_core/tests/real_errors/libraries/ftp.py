# ruff: noqa: B023 - each lambda is called at once
"""ftplib against pyftpdlib servers on 127.0.0.1: pyftpdlib's own replies (logins,
permissions, missing files, syntax, connection limits, idle timeout, data connections)
and, for the storage replies pyftpdlib does not send itself, a handler answering STOR and
RETR of chosen file names as real servers do. FTP reply codes are labelled by their FTP
meaning (4xx: transient, not done; 5xx: permanent), never read as HTTP codes."""

from __future__ import annotations

import ftplib
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generate import Case

from ._common import NE, UO, A, F, T, U, catch, free_port, raw_server

LIBRARY = "ftplib"
REQUIRES = ["pyftpdlib>=1.5,<3"]

# STOR/RETR of these names -> the reply, with its label
CANNED: dict[str, tuple[str, str, str | None, str]] = {
    "quota.bin": (
        "552 Requested file action aborted. Exceeded storage allocation.",
        U,
        None,
        "storage quota exceeded (552)",
    ),
    "full.bin": (
        "452 Requested action not taken. Insufficient storage space in system.",
        T,
        NE,
        "insufficient storage, temporary (452)",
    ),
    "bad?name.bin": (
        "553 Requested action not taken. File name not allowed.",
        F,
        None,
        "file name not allowed (553)",
    ),
    "local.bin": (
        "451 Requested action aborted: local error in processing.",
        T,
        NE,
        "local error in processing (451)",
    ),
    "busy.bin": ("450 Requested file action not taken. File unavailable (busy).", T, NE, "file busy (450)"),
    "account.bin": ("532 Need account for storing files.", U, None, "account needed for storing (532)"),
    "aborted.bin": ("426 Connection closed; transfer aborted.", T, UO, "transfer aborted mid-way (426)"),
    "virus.bin": (
        "550 Upload rejected: file failed the virus scan.",
        U,
        None,
        "upload rejected by policy (550)",
    ),
    "pagetype.bin": ("551 Requested action aborted: page type unknown.", F, None, "page type unknown (551)"),
    "noservice.bin": (
        "421 Service not available, closing control connection.",
        T,
        NE,
        "service shutting down (421)",
    ),
}


def _handler_class(root: Path) -> Any:
    from pyftpdlib.authorizers import DummyAuthorizer
    from pyftpdlib.handlers import FTPHandler

    authorizer = DummyAuthorizer()
    authorizer.add_user("ann", "pw", str(root), perm="elradfmwMT")
    authorizer.add_user("reader", "pw", str(root), perm="elr")

    class Handler(FTPHandler):
        def ftp_STOR(self, file: str, mode: str = "w") -> Any:
            name = os.path.basename(file)
            if name in CANNED:
                return self.respond(CANNED[name][0])
            return super().ftp_STOR(file, mode)

        def ftp_RETR(self, file: str) -> Any:
            name = os.path.basename(file)
            if name in CANNED:
                return self.respond(CANNED[name][0])
            return super().ftp_RETR(file)

    Handler.authorizer = authorizer
    Handler.banner = "pyftpdlib ready."
    Handler.auth_failed_timeout = 0.05
    return Handler


@contextmanager
def _server(root: Path, **options: Any) -> Iterator[int]:
    from pyftpdlib.servers import FTPServer

    handler = _handler_class(root)
    for key, value in options.pop("handler", {}).items():
        setattr(handler, key, value)
    port = free_port()
    server = FTPServer(("127.0.0.1", port), handler)
    for key, value in options.items():
        setattr(server, key, value)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            server.ioloop.loop(0.05, False)
        server.close_all()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        stop.set()
        thread.join()


def _ftp(port: int, user: str | None = "ann", timeout: float = 2.0) -> ftplib.FTP:
    ftp = ftplib.FTP(timeout=timeout)
    ftp.connect("127.0.0.1", port)
    if user:
        ftp.login(user, "pw")
    return ftp


def cases(ctx: Any) -> Iterator[Case]:
    """The ftp tool's arguments: the FTP command the model asked for (``data``: what it asked
    to store), and ``host`` where the model named the server; the login is the tool's."""

    def case(
        cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException, args: dict[str, Any]
    ) -> Case:
        return Case(f"ftp-{cid}", LIBRARY, cause, kind, outcome, exc, "ftp", args)

    listing: dict[str, Any] = {"command": "NLST"}
    root = ctx.tmp / "ftproot"
    (root / "docs" / "old").mkdir(parents=True)
    (root / "readme.txt").write_text("hello\n")
    os.symlink("/etc", root / "etc-link")
    quiet = logging.getLogger("pyftpdlib")  # pyftpdlib logs to stderr unless configured
    if not quiet.handlers:
        quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    with _server(root) as port:
        ctx.name_port(port, "FTPPORT")
        exc = catch(lambda: _ftp(port, None).login("ann", "wrong"))
        yield case("wrong-password", "wrong password (530)", U, None, exc, listing)
        exc = catch(lambda: _ftp(port, None).login())
        yield case("anonymous", "anonymous login not allowed (530)", U, None, exc, listing)
        exc = catch(lambda: _ftp(port, None).nlst())
        yield case("not-logged-in", "command before logging in (530)", U, None, exc, listing)
        ftp = _ftp(port)
        # (id, cause, kind, the FTP command the model wrote, the call)
        commands: list[tuple[str, str, str, str, Any]] = [
            (
                "no-such-file",
                "file does not exist (550)",
                A,
                "RETR nope.txt",
                lambda: ftp.retrbinary("RETR nope.txt", print),
            ),
            ("mkd-exists", "directory already exists (550)", A, "MKD docs", lambda: ftp.mkd("docs")),
            ("rmd-not-empty", "directory not empty (550)", A, "RMD docs", lambda: ftp.rmd("docs")),
            (
                "cwd-file",
                "CWD to a file (550 not a directory)",
                F,
                "CWD readme.txt",
                lambda: ftp.cwd("readme.txt"),
            ),
            (
                "size-dir",
                "SIZE of a directory (550 not retrievable)",
                F,
                "SIZE docs",
                lambda: ftp.size("docs"),
            ),
            ("rnto-first", "RNTO without RNFR (503)", F, "RNTO new.txt", lambda: ftp.sendcmd("RNTO new.txt")),
            ("unknown-command", "unknown command (500)", F, "FROB x", lambda: ftp.sendcmd("FROB x")),
            ("no-argument", "command needs an argument (501)", F, "MKD", lambda: ftp.sendcmd("MKD")),
            (
                "extra-argument",
                "command takes no argument (501)",
                F,
                "PWD now",
                lambda: ftp.sendcmd("PWD now"),
            ),
            ("type", "unsupported TYPE (504)", F, "TYPE X", lambda: ftp.sendcmd("TYPE X")),
            ("mode", "unrecognised MODE (501)", F, "MODE Z", lambda: ftp.sendcmd("MODE Z")),
            ("stru", "unimplemented STRU (504)", F, "STRU R", lambda: ftp.sendcmd("STRU R")),
            ("rest", "invalid REST offset (501)", F, "REST abc", lambda: ftp.sendcmd("REST abc")),
            ("port-format", "malformed PORT (501)", F, "PORT 1,2,3", lambda: ftp.sendcmd("PORT 1,2,3")),
            (
                "port-foreign",
                "PORT to a foreign address (501, FXP refused)",
                U,
                "PORT 10,0,0,9,4,1",
                lambda: ftp.sendcmd("PORT 10,0,0,9,4,1"),
            ),
            (
                "port-privileged",
                "PORT to a privileged port (501)",
                U,
                "PORT 127,0,0,1,0,22",
                lambda: ftp.sendcmd("PORT 127,0,0,1,0,22"),
            ),
            (
                "chmod-format",
                "invalid SITE CHMOD mode (501)",
                F,
                "SITE CHMOD 9z9 readme.txt",
                lambda: ftp.sendcmd("SITE CHMOD 9z9 readme.txt"),
            ),
            (
                "site-unknown",
                "unrecognised SITE command (501)",
                F,
                "SITE FROB x",
                lambda: ftp.sendcmd("SITE FROB x"),
            ),
            (
                "outside-root",
                "symlink outside the user's root (550)",
                U,
                "CWD etc-link",
                lambda: ftp.cwd("etc-link"),
            ),
            ("pass-first", "PASS when already logged in (503)", F, "PASS pw", lambda: ftp.sendcmd("PASS pw")),
            (
                "mdtm-missing",
                "MDTM of a missing file (550)",
                A,
                "MDTM gone.txt",
                lambda: ftp.sendcmd("MDTM gone.txt"),
            ),
            (
                "delete-missing",
                "DELE of a missing file (550)",
                A,
                "DELE gone.txt",
                lambda: ftp.delete("gone.txt"),
            ),
        ]
        for cid, cause, kind, command, fn in commands:
            yield case(cid, cause, kind, None, catch(fn), {"command": command})
        for name, (_, kind, outcome, cause) in CANNED.items():
            ftp = _ftp(port)
            verb = "RETR" if name == "aborted.bin" else "STOR"
            if verb == "RETR":
                exc = catch(lambda: ftp.retrbinary(f"RETR {name}", print))
                args: dict[str, Any] = {"command": f"RETR {name}"}
            else:
                exc = catch(lambda: ftp.storbinary(f"STOR {name}", _data()))
                args = {"command": f"STOR {name}", "data": DATA}
            yield case(f"canned-{name.split('.')[0].replace('?', '')}", cause, kind, outcome, exc, args)
            ftp.close()
        ftp = _ftp(port)
        ftp.set_pasv(False)
        # the PORT command is the tool's (active mode, its own data port), not the model's
        exc = catch(lambda: ftp.sendcmd(f"PORT 127,0,0,1,{ctx.dead // 256},{ctx.dead % 256}"))
        yield case("data-refused", "data connection refused (425)", T, NE, exc, {**listing, "passive": False})
        reader = _ftp(port, "reader")
        exc = catch(lambda: reader.storbinary("STOR new.txt", _data()))
        args = {"command": "STOR new.txt", "data": DATA}
        yield case("no-write-permission", "user without write permission (550)", U, None, exc, args)
        exc = catch(lambda: reader.delete("readme.txt"))
        args = {"command": "DELE readme.txt"}
        yield case("no-delete-permission", "user without delete permission (550)", U, None, exc, args)
        exc = catch(lambda: ftplib.FTP_TLS(timeout=2).connect("127.0.0.1", port) and _tls_auth(port))
        yield case(
            "no-tls", "TLS not offered by the server (AUTH TLS)", U, None, exc, {**listing, "tls": True}
        )
    with _server(root, max_cons=2) as port:
        ctx.name_port(port, "FTPPORT2")
        held = _ftp(port)
        exc = catch(lambda: _ftp(port))
        yield case("max-connections", "too many connections (421)", T, NE, exc, listing)
        held.close()
    with _server(root, max_cons_per_ip=1) as port:
        ctx.name_port(port, "FTPPORT3")
        held = _ftp(port)
        exc = catch(lambda: _ftp(port))
        yield case("max-per-ip", "too many connections from the address (421)", T, NE, exc, listing)
        held.close()
    with _server(root, handler={"timeout": 0.3}) as port:
        ctx.name_port(port, "FTPPORT4")
        idle = _ftp(port)
        time.sleep(0.8)
        exc = catch(lambda: idle.pwd())
        yield case("idle-timeout", "server closed the idle session (421)", T, NE, exc, {"command": "PWD"})

    def greet_then_close(conn: socket.socket) -> None:
        conn.sendall(b"220 ready\r\n")
        conn.recv(100)

    def at(port: int) -> dict[str, Any]:
        return {"host": f"127.0.0.1:{port}", **listing}

    with raw_server(greet_then_close) as p:
        ctx.name_port(p, "RAWPORT")
        exc = catch(lambda: _ftp(p))
        yield case("closed", "server closed the connection without a reply", A, None, exc, at(p))

    def http_answer(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
        time.sleep(0.2)

    with raw_server(http_answer) as p:
        ctx.name_port(p, "RAWPORT2")
        exc = catch(lambda: _ftp(p))
        yield case("not-ftp", "the port is not an FTP server (wrong port)", F, None, exc, at(p))
    with raw_server(lambda conn: time.sleep(0.6)) as p:
        ctx.name_port(p, "RAWPORT3")
        exc = catch(lambda: _ftp(p, timeout=0.2))
        yield case("greeting-timeout", "no greeting within the timeout (nothing sent)", T, NE, exc, at(p))
    yield case("refused", "connection refused", T, NE, catch(lambda: _ftp(ctx.dead)), at(ctx.dead))
    exc = catch(lambda: ftplib.FTP("ftp.nonexistent.invalid", timeout=2))
    yield case("dns", "DNS name does not resolve", T, NE, exc, {"host": "ftp.nonexistent.invalid", **listing})


DATA = "payload\n"


def _data() -> Any:
    import io

    return io.BytesIO(DATA.encode())


def _tls_auth(port: int) -> None:
    ftp = ftplib.FTP_TLS(timeout=2)
    ftp.connect("127.0.0.1", port)
    ftp.auth()
