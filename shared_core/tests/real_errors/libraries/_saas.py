"""A local stand-in for a SaaS / cloud API that the held-out SDK modules point their SDK at.

:class:`Service` is a ``ThreadingHTTPServer`` on 127.0.0.1 that answers every request with
the reply it was last told (:meth:`Service.reply`): a real documented error response of the
service (status, headers, body as the service's API reference shows them, cited in
``source``) or one of the connection-level behaviours ``hang`` (no answer: the client's
read timeout), ``reset`` (RST after the request was read) and ``close`` (closed without an
answer). The URL the SDK calls is the SDK's own (``/v1/customers``): nothing in it tells the
cause. ``Date`` and ``Server`` are fixed so that the stored texts are stable.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple

import generate

T, F, U, A = generate.T, generate.F, generate.U, generate.A
NE, UO = generate.NE, generate.UO
TIMEOUT = 1.0  # generous: the machine may be loaded; the stand-in hangs for 3 s
DATE = "Tue, 01 Dec 2026 00:00:00 GMT"


class Reply(NamedTuple):
    status: int
    body: Any  # dict / list: JSON; str: text as it is; bytes: raw
    headers: dict[str, str] = {}  # noqa: RUF012 - never mutated
    source: str = ""
    ctype: str = ""  # the content-type when not the default for the body


HANG, RESET, CLOSE = "hang", "reset", "close"


class Service:
    """The server; ``base`` is ``http://127.0.0.1:<port>``."""

    def __init__(self, server: ThreadingHTTPServer) -> None:
        self._server = server
        self.port: int = server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.current: Reply | str = Reply(200, {})
        self.requests: list[tuple[str, str]] = []

    def reply(self, reply: Reply | str) -> None:
        self.current = reply
        self.requests.clear()

    def pick(self, method: str, path: str) -> Reply | str:
        self.requests.append((method, path))
        return self.current


def _handler(service_box: list[Service], server_name: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def version_string(self) -> str:
            return server_name

        def date_time_string(self, timestamp: float | None = None) -> str:
            return DATE

        def _answer(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            if length:
                self.rfile.read(length)
            elif self.headers.get("transfer-encoding", "").lower() == "chunked":
                while True:
                    size = int(self.rfile.readline().strip() or b"0", 16)
                    self.rfile.read(size + 2)
                    if not size:
                        break
            reply = service_box[0].pick(self.command, self.path)
            if reply == HANG:
                time.sleep(3.0)
                self.close_connection = True
                return
            if reply == RESET:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
                return
            if reply == CLOSE:
                self.close_connection = True
                return
            assert isinstance(reply, Reply)
            if isinstance(reply.body, bytes):
                body, ctype = reply.body, "application/octet-stream"
            elif isinstance(reply.body, str):
                body = reply.body.encode()
                ctype = "text/html" if reply.body.startswith("<") else "text/plain; charset=utf-8"
            else:
                body, ctype = json.dumps(reply.body).encode(), "application/json"
            self.send_response(reply.status)
            if self.close_connection:
                # the client asked for it (prawcore's token request): a real server says so,
                # or the client may reuse the socket this thread is about to close
                self.send_header("connection", "close")
            headers = {"content-type": reply.ctype or ctype, "content-length": str(len(body))}
            headers.update({k.lower(): v for k, v in reply.headers.items()})
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _answer

    return Handler


class _Quiet(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@contextmanager
def service(ctx: Any, name: str, server_name: str = "nginx") -> Iterator[Service]:
    """A running :class:`Service`; its port is written ``name`` in the stored texts."""
    box: list[Service] = []
    server = _Quiet(("127.0.0.1", 0), _handler(box, server_name))
    box.append(Service(server))
    ctx.name_port(box[0].port, name)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield box[0]
    finally:
        server.shutdown()
        server.server_close()


def catch(fn: Callable[[], Any]) -> BaseException:
    try:
        fn()
    except BaseException as exc:
        return exc
    raise AssertionError(f"{fn} raised nothing")


def caught(key: str, fn: Callable[[], Any]) -> BaseException:
    """:func:`catch`, naming the case ``key`` when ``fn`` raised nothing."""
    try:
        return catch(fn)
    except AssertionError:
        raise AssertionError(key) from None


# The connection-level causes every module triggers through its SDK: (key, kind, outcome,
# cause); ``refused`` and ``dns`` are reached through another base URL (the dead port, a
# ``.invalid`` name), the others through the service's ``hang`` / ``reset`` / ``close``.
TRANSPORT: list[tuple[str, str, str, str]] = [
    ("refused", T, NE, "connection refused"),
    ("dns", T, NE, "DNS name does not resolve"),
    (HANG, T, UO, "read timeout after the request was sent"),
    (RESET, T, UO, "connection reset after the request was sent"),
    (CLOSE, T, UO, "server closed the connection without answering"),
]


def dead_base(ctx: Any) -> str:
    return f"http://127.0.0.1:{ctx.dead}"


DNS_BASE = "http://api.unreachable-host.invalid"


def certificate(tmp: Path, stem: str, common_name: str = "127.0.0.1") -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 and its key, written as ``stem``.pem / .key in
    ``tmp`` (made for this run; no stored text shows it): for a stand-in served over TLS."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp / f"{stem}.pem", tmp / f"{stem}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return str(cert_path), str(key_path)
