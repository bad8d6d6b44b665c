"""paramiko's SSH client against an in-process paramiko SSH server on 127.0.0.1 (host
keys derived from fixed seeds, so that the texts are stable): authentication, host keys,
algorithm negotiation, channel open failures, refused and slow commands, key files, and
raw sockets for a silent or non-SSH peer."""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def _server() -> Iterator[int]:
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

    def case(cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException) -> Case:
        return Case(f"ssh-{cid}", LIBRARY, cause, kind, outcome, exc, "ssh")

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
        yield case("key-rejected", "public key not accepted", U, None, exc)
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
        yield case("forward-connect-failed", "forwarded connection failed (connect failed)", T, NE, exc)
        exc = catch(lambda: t.open_channel("direct-tcpip", ("busy.internal", 5432), ("127.0.0.1", 0)))
        yield case("forward-resource-shortage", "channel refused: resource shortage", T, NE, exc)
        exc = catch(lambda: t.open_channel("direct-tcpip", ("secret.internal", 22), ("127.0.0.1", 0)))
        yield case("forward-prohibited", "forwarding administratively prohibited", U, None, exc)
        exc = catch(lambda: t.open_channel("x11", src_addr=("127.0.0.1", 6000)))
        yield case("unknown-channel-type", "channel type not supported by the server", U, None, exc)
        yield case(
            "exec-refused",
            "server refused the exec request",
            A,
            None,
            catch(lambda: c.exec_command("forbidden")),
        )
        yield case("no-sftp", "SFTP subsystem not offered", U, None, catch(c.open_sftp))

        def slow_command() -> None:
            _, stdout, _ = c.exec_command("sleep", timeout=0.3)
            stdout.read()

        yield case(
            "exec-timeout", "the command's own timeout (no output in time)", A, None, catch(slow_command)
        )
        c.close()
        exc = catch(lambda: t.open_session())
        yield case("session-not-active", "session used after the transport closed", A, None, exc)
        exc = catch(lambda: t.auth_password("ann", "right"))
        yield case("no-session", "authentication on a closed transport", A, None, exc)
        restricted = connect(port, user="nosession")
        exc = catch(lambda: restricted.exec_command("uptime"))
        yield case("session-prohibited", "session channel administratively prohibited", U, None, exc)
        restricted.close()
    # key files
    encrypted = ctx.tmp / "enc.key"
    encrypted.write_text(_key(4, b"s3cret"))
    exc = catch(lambda: paramiko.Ed25519Key.from_private_key_file(str(encrypted)))
    yield case("key-encrypted", "private key is encrypted, no passphrase given", U, None, exc)
    exc = catch(lambda: paramiko.Ed25519Key.from_private_key_file(str(encrypted), password="wrong"))
    yield case("key-wrong-passphrase", "wrong passphrase for the private key", U, None, exc)
    junk = ctx.tmp / "junk.key"
    junk.write_text("this is not a key\n")
    yield case(
        "key-garbage",
        "file is not a private key",
        F,
        None,
        catch(lambda: paramiko.RSAKey.from_private_key_file(str(junk))),
    )
    exc = catch(lambda: paramiko.RSAKey.from_private_key_file(str(ctx.tmp / "missing.key")))
    yield case("key-missing", "private key file does not exist", A, None, exc)
    exc = catch(lambda: paramiko.RSAKey.from_private_key(io.StringIO(_key(5))))
    yield case("key-wrong-type", "Ed25519 key loaded as RSA", F, None, exc)
    # peers that are not (working) SSH servers
    with raw_server(lambda conn: time.sleep(0.8)) as p:
        ctx.name_port(p, "RAWPORT")
        exc = catch(lambda: connect(p, banner_timeout=0.3))
        yield case("banner-timeout", "no SSH banner within the timeout (nothing sent)", T, NE, exc)

    def http_peer(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" + b"<p>Bad Request</p>\r\n" * 120)
        time.sleep(0.5)

    with raw_server(http_peer) as p:
        ctx.name_port(p, "RAWPORT2")
        yield case(
            "not-ssh", "the port is not an SSH server (wrong port)", F, None, catch(lambda: connect(p))
        )

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
        yield case("closed-after-banner", "server closed the connection during key exchange", A, None, exc)

    def old_protocol(conn: socket.socket) -> None:
        conn.sendall(b"SSH-1.5-OldServer\r\n")
        time.sleep(0.3)

    with raw_server(old_protocol) as p:
        ctx.name_port(p, "RAWPORT4")
        yield case("protocol-1", "server speaks only SSH protocol 1", U, None, catch(lambda: connect(p)))
    yield case("refused", "connection refused", T, NE, catch(lambda: connect(ctx.dead)))
    exc = catch(
        lambda: client().connect("bastion.nonexistent.invalid", username="ann", password="x", timeout=2)
    )
    yield case("dns", "DNS name does not resolve", T, NE, exc)
