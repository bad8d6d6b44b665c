"""paramiko's SSH client against an in-process paramiko SSH server on 127.0.0.1 (host
keys derived from fixed seeds, so that the texts are stable): authentication, host keys,
algorithm negotiation, channel open failures, refused and slow commands, key files, and
raw sockets for a silent or non-SSH peer."""

from __future__ import annotations

import io
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generate import Case

from ._common import NE, A, F, T, U, catch, raw_server

LIBRARY = "paramiko"
REQUIRES = ["paramiko>=3,<5"]


def _key(seed: int, password: bytes | None = None) -> str:
    """An Ed25519 private key in OpenSSH format, derived from ``seed``."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.from_private_bytes(bytes([seed]) * 32)
    encryption = serialization.BestAvailableEncryption(password) if password else serialization.NoEncryption()
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, encryption
    ).decode()


def _paramiko_key(seed: int) -> Any:
    import paramiko

    return paramiko.Ed25519Key.from_private_key(io.StringIO(_key(seed)))


def _interface() -> Any:
    import paramiko

    class Server(paramiko.ServerInterface):
        def __init__(self) -> None:
            self.user = ""

        def get_allowed_auths(self, username: str) -> str:
            return "publickey" if username == "keyonly" else "password,publickey"

        def check_auth_password(self, username: str, password: str) -> int:
            if username == "slow":
                time.sleep(1.5)
            if password == "right" and username != "keyonly":
                self.user = username
                return paramiko.AUTH_SUCCESSFUL
            return paramiko.AUTH_FAILED

        def check_channel_request(self, kind: str, chanid: int) -> int:
            if kind == "session":
                if self.user == "nosession":
                    return paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED
                return paramiko.OPEN_SUCCEEDED
            return paramiko.OPEN_FAILED_UNKNOWN_CHANNEL_TYPE

        def check_channel_direct_tcpip_request(self, chanid: int, origin: Any, destination: Any) -> int:
            if destination[0] == "busy.internal":
                return paramiko.OPEN_FAILED_RESOURCE_SHORTAGE
            if destination[0] == "secret.internal":
                return paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED
            return paramiko.OPEN_FAILED_CONNECT_FAILED

        def check_channel_exec_request(self, channel: Any, command: bytes) -> bool:
            if command == b"forbidden":
                return False
            if command != b"sleep":
                channel.send(b"ok\n")
                channel.send_exit_status(0)
            return True

    return Server


def _sftp_interface(root: Path) -> Any:
    """An SFTP server over ``root``; paths under ``/locked`` are refused, symlinks unsupported."""
    import paramiko
    from paramiko import SFTPAttributes, SFTPHandle, SFTPServer

    class Handle(SFTPHandle):
        def stat(self) -> Any:
            return SFTPAttributes.from_stat(os.fstat(self.readfile.fileno()))

    class Interface(paramiko.SFTPServerInterface):
        def _real(self, path: str) -> str:
            return str(root / self.canonicalize(path).lstrip("/"))

        def _guard(self, path: str) -> int | None:
            if self.canonicalize(path).startswith("/locked"):
                return paramiko.SFTP_PERMISSION_DENIED
            return None

        def list_folder(self, path: str) -> Any:
            try:
                return [
                    SFTPAttributes.from_stat(os.stat(os.path.join(self._real(path), n)), n)
                    for n in os.listdir(self._real(path))
                ]
            except OSError as e:
                return SFTPServer.convert_errno(e.errno)

        def stat(self, path: str) -> Any:
            try:
                return SFTPAttributes.from_stat(os.stat(self._real(path)))
            except OSError as e:
                return SFTPServer.convert_errno(e.errno)

        lstat = stat

        def open(self, path: str, flags: int, attr: Any) -> Any:
            if (refused := self._guard(path)) is not None:
                return refused
            try:
                fd = os.open(self._real(path), flags | getattr(os, "O_BINARY", 0), 0o644)
                f = os.fdopen(fd, "wb" if flags & os.O_WRONLY else "r+b" if flags & os.O_RDWR else "rb")
            except OSError as e:
                return SFTPServer.convert_errno(e.errno)
            handle = Handle(flags)
            handle.filename = path
            handle.readfile = handle.writefile = f
            return handle

        def remove(self, path: str) -> int:
            if (refused := self._guard(path)) is not None:
                return refused
            try:
                os.remove(self._real(path))
            except OSError as e:
                return SFTPServer.convert_errno(e.errno)
            return paramiko.SFTP_OK

        def mkdir(self, path: str, attr: Any) -> int:
            try:
                os.mkdir(self._real(path))
            except OSError as e:
                return SFTPServer.convert_errno(e.errno)
            return paramiko.SFTP_OK

        def symlink(self, target_path: str, path: str) -> int:
            return paramiko.SFTP_OP_UNSUPPORTED

    return Interface


@contextmanager
def _server(root: Path | None = None) -> Iterator[int]:
    import paramiko

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.1)
    stop = threading.Event()
    transports: list[Any] = []
    host_key = _paramiko_key(1)
    server_class = _interface()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            t = paramiko.Transport(conn)
            t.add_server_key(host_key)
            if root is not None:
                t.set_subsystem_handler("sftp", paramiko.SFTPServer, _sftp_interface(root))
            transports.append(t)
            try:
                t.start_server(server=server_class())
            except (paramiko.SSHException, EOFError, OSError):
                pass

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for t in transports:
            t.close()
        listener.close()


def cases(ctx: Any) -> Iterator[Case]:
    import logging

    import paramiko

    logging.getLogger("paramiko").addHandler(logging.NullHandler())
    logging.getLogger("paramiko").propagate = False

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        args: dict[str, Any] | None = None,
    ) -> Case:
        """``args``: what the model wrote; the login (user, password, host key policy, algorithms)
        is the tool's, the server too but where the model named one (``host``); by default the
        command the call ran."""
        args = {"command": "uptime"} if args is None else args
        return Case(f"ssh-{cid}", LIBRARY, cause, kind, outcome, exc, "ssh", arguments=args)

    def at(port: int) -> dict[str, Any]:
        return {"host": f"127.0.0.1:{port}", "command": "uptime"}

    def client(policy: Any = None) -> paramiko.SSHClient:
        c = paramiko.SSHClient()
        c.set_missing_host_key_policy(policy or paramiko.AutoAddPolicy())
        return c

    def connect(
        port: int, user: str = "ann", password: str | None = "right", **kwargs: Any
    ) -> paramiko.SSHClient:
        c = client(kwargs.pop("policy", None))
        kwargs.setdefault("timeout", 2)
        kwargs.setdefault("banner_timeout", 2)
        kwargs.setdefault("auth_timeout", 2)
        c.connect(
            "127.0.0.1",
            port,
            username=user,
            password=password,
            allow_agent=False,
            look_for_keys=False,
            **kwargs,
        )
        return c

    with _server() as port:
        ctx.name_port(port, "SSHPORT")
        yield case("auth-failed", "wrong password", U, None, catch(lambda: connect(port, password="wrong")))
        exc = catch(lambda: connect(port, user="keyonly"))
        yield case("auth-type", "password login not allowed (publickey only)", U, None, exc)
        exc = catch(lambda: connect(port, user="slow", auth_timeout=0.3))
        yield case("auth-timeout", "no answer to the authentication within the timeout", T, NE, exc)
        other_key = ctx.tmp / "other.key"
        other_key.write_text(_key(2))
        exc = catch(lambda: connect(port, password=None, key_filename=str(other_key)))
        yield case(
            "key-rejected",
            "public key not accepted",
            U,
            None,
            exc,
            {"command": "uptime", "key_file": str(other_key)},
        )
        exc = catch(lambda: connect(port, policy=paramiko.RejectPolicy()))
        yield case("unknown-host", "host key not in known_hosts (RejectPolicy)", U, None, exc)

        def mismatch() -> None:
            c = client(paramiko.RejectPolicy())
            c.get_host_keys().add(f"[127.0.0.1]:{port}", "ssh-ed25519", _paramiko_key(3))
            c.connect(
                "127.0.0.1", port, username="ann", password="right", allow_agent=False, look_for_keys=False
            )

        yield case("host-key-mismatch", "host key differs from the known one", U, None, catch(mismatch))
        exc = catch(lambda: connect(port, disabled_algorithms={"keys": ["ssh-ed25519"]}))
        yield case("no-host-key-algorithm", "no host key algorithm in common", U, None, exc)
        exc = catch(
            lambda: connect(port, disabled_algorithms={"kex": list(paramiko.Transport._preferred_kex)})
        )
        yield case("no-kex", "no key exchange algorithm in common", U, None, exc)
        c = connect(port)
        t = c.get_transport()
        exc = catch(lambda: t.open_channel("direct-tcpip", ("db.internal", 5432), ("127.0.0.1", 0)))
        yield case(
            "forward-connect-failed",
            "forwarded connection failed (connect failed)",
            T,
            NE,
            exc,
            {"forward_host": "db.internal", "forward_port": 5432},
        )
        exc = catch(lambda: t.open_channel("direct-tcpip", ("busy.internal", 5432), ("127.0.0.1", 0)))
        yield case(
            "forward-resource-shortage",
            "channel refused: resource shortage",
            T,
            NE,
            exc,
            {"forward_host": "busy.internal", "forward_port": 5432},
        )
        exc = catch(lambda: t.open_channel("direct-tcpip", ("secret.internal", 22), ("127.0.0.1", 0)))
        yield case(
            "forward-prohibited",
            "forwarding administratively prohibited",
            U,
            None,
            exc,
            {"forward_host": "secret.internal", "forward_port": 22},
        )
        exc = catch(lambda: t.open_channel("x11", src_addr=("127.0.0.1", 6000)))
        yield case(
            "unknown-channel-type",
            "channel type not supported by the server",
            U,
            None,
            exc,
            {"channel_type": "x11"},
        )
        yield case(
            "exec-refused",
            "server refused the exec request",
            A,
            None,
            catch(lambda: c.exec_command("forbidden")),
            {"command": "forbidden"},
        )
        yield case(
            "no-sftp", "SFTP subsystem not offered", U, None, catch(c.open_sftp), {"operation": "listdir"}
        )

        def slow_command() -> None:
            _, stdout, _ = c.exec_command("sleep", timeout=0.3)
            stdout.read()

        exc = catch(slow_command)
        args = {"command": "sleep", "timeout": 0.3}
        yield case("exec-timeout", "the command's own timeout (no output in time)", A, None, exc, args)
        c.close()
        exc = catch(lambda: t.open_session())
        yield case("session-not-active", "session used after the transport closed", A, None, exc)
        exc = catch(lambda: t.auth_password("ann", "right"))
        yield case("no-session", "authentication on a closed transport", A, None, exc)
        restricted = connect(port, user="nosession")
        exc = catch(lambda: restricted.exec_command("uptime"))
        yield case("session-prohibited", "session channel administratively prohibited", U, None, exc)
        restricted.close()
    root = ctx.tmp / "sftproot"
    (root / "docs").mkdir(parents=True)
    (root / "locked").mkdir()
    (root / "notes.txt").write_text("hello\n")
    local = ctx.tmp / "upload.txt"
    local.write_text("payload\n")
    with _server(root) as port:
        ctx.name_port(port, "SSHPORT2")
        c = connect(port)
        sftp = c.open_sftp()
        yield case(
            "sftp-no-such-file",
            "remote file does not exist",
            A,
            None,
            catch(lambda: sftp.get("/reports/q3.csv", str(ctx.tmp / "q3.csv"))),
            {"operation": "get", "remote_path": "/reports/q3.csv", "local_path": str(ctx.tmp / "q3.csv")},
        )
        yield case(
            "sftp-permission",
            "remote directory refuses writes",
            U,
            None,
            catch(lambda: sftp.put(str(local), "/locked/upload.txt")),
            {"operation": "put", "local_path": str(local), "remote_path": "/locked/upload.txt"},
        )
        yield case(
            "sftp-mkdir-exists",
            "directory already exists (generic Failure)",
            A,
            None,
            catch(lambda: sftp.mkdir("/docs")),
            {"operation": "mkdir", "remote_path": "/docs"},
        )
        yield case(
            "sftp-symlink",
            "symlinks not supported by the server",
            U,
            None,
            catch(lambda: sftp.symlink("/notes.txt", "/link")),
            {"operation": "symlink", "source": "/notes.txt", "dest": "/link"},
        )
        exc = catch(lambda: sftp.chdir("/notes.txt"))
        yield case(
            "sftp-chdir-file",
            "chdir to a file",
            F,
            None,
            exc,
            {"operation": "chdir", "remote_path": "/notes.txt"},
        )
        target = str(ctx.tmp / "no-dir" / "notes.txt")
        exc = catch(lambda: sftp.get("/notes.txt", target))
        args = {"operation": "get", "remote_path": "/notes.txt", "local_path": target}
        yield case("sftp-local-dir-missing", "local destination directory does not exist", A, None, exc, args)
        c.close()
        yield case(
            "sftp-closed",
            "SFTP session used after the connection closed",
            A,
            None,
            catch(lambda: sftp.listdir("/")),
            {"operation": "listdir", "remote_path": "/"},
        )
    # key files
    encrypted = ctx.tmp / "enc.key"
    encrypted.write_text(_key(4, b"s3cret"))
    exc = catch(lambda: paramiko.Ed25519Key.from_private_key_file(str(encrypted)))
    yield case(
        "key-encrypted",
        "private key is encrypted, no passphrase given",
        U,
        None,
        exc,
        {"key_file": str(encrypted)},
    )
    exc = catch(lambda: paramiko.Ed25519Key.from_private_key_file(str(encrypted), password="wrong"))
    # the passphrase is a credential: not in the arguments
    yield case(
        "key-wrong-passphrase",
        "wrong passphrase for the private key",
        U,
        None,
        exc,
        {"key_file": str(encrypted)},
    )
    junk = ctx.tmp / "junk.key"
    junk.write_text("this is not a key\n")
    yield case(
        "key-garbage",
        "file is not a private key",
        F,
        None,
        catch(lambda: paramiko.RSAKey.from_private_key_file(str(junk))),
        {"key_file": str(junk)},
    )
    exc = catch(lambda: paramiko.RSAKey.from_private_key_file(str(ctx.tmp / "missing.key")))
    yield case(
        "key-missing",
        "private key file does not exist",
        A,
        None,
        exc,
        {"key_file": str(ctx.tmp / "missing.key")},
    )
    exc = catch(lambda: paramiko.RSAKey.from_private_key(io.StringIO(_key(5))))
    # the key itself is a credential: the model chose only its type
    yield case("key-wrong-type", "Ed25519 key loaded as RSA", F, None, exc, {"key_type": "rsa"})
    # peers that are not (working) SSH servers
    with raw_server(lambda conn: time.sleep(0.8)) as p:
        ctx.name_port(p, "RAWPORT")
        exc = catch(lambda: connect(p, banner_timeout=0.3))
        yield case("banner-timeout", "no SSH banner within the timeout (nothing sent)", T, NE, exc, at(p))

    def http_peer(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" + b"<p>Bad Request</p>\r\n" * 120)
        time.sleep(0.5)

    with raw_server(http_peer) as p:
        ctx.name_port(p, "RAWPORT2")
        exc = catch(lambda: connect(p))
        yield case("not-ssh", "the port is not an SSH server (wrong port)", F, None, exc, at(p))

    def banner_then_close(conn: socket.socket) -> None:
        conn.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n")
        conn.settimeout(0.3)
        try:  # read all the client sends (its banner, KEXINIT), then close: EOF, not a reset
            while conn.recv(4096):
                pass
        except TimeoutError:
            pass

    with raw_server(banner_then_close) as p:
        ctx.name_port(p, "RAWPORT3")
        exc = catch(lambda: connect(p))
        yield case(
            "closed-after-banner", "server closed the connection during key exchange", A, None, exc, at(p)
        )

    def old_protocol(conn: socket.socket) -> None:
        conn.sendall(b"SSH-1.5-OldServer\r\n")
        time.sleep(0.3)

    with raw_server(old_protocol) as p:
        ctx.name_port(p, "RAWPORT4")
        exc = catch(lambda: connect(p))
        yield case("protocol-1", "server speaks only SSH protocol 1", U, None, exc, at(p))
    yield case("refused", "connection refused", T, NE, catch(lambda: connect(ctx.dead)), at(ctx.dead))
    exc = catch(
        lambda: client().connect("bastion.nonexistent.invalid", username="ann", password="x", timeout=2)
    )
    yield case(
        "dns",
        "DNS name does not resolve",
        T,
        NE,
        exc,
        {"host": "bastion.nonexistent.invalid", "command": "uptime"},
    )
