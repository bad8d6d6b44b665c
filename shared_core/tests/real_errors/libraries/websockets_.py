# ruff: noqa: B023 - each lambda is called at once
"""The websockets client (sync API) against a websockets server on 127.0.0.1: sessions
the server closes with the close code (and reason) a real service sends for the cause set
up, handshakes it rejects with an HTTP status, the size limits of both sides, and raw
sockets for broken handshakes. Close codes are labelled by RFC 6455 / the IANA registry;
application codes (4000-4999) by the reason the service gives with them."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from generate import Case

from ._common import NE, UO, A, F, T, U, catch, free_port, raw_server

LIBRARY = "websockets"
REQUIRES = ["websockets>=12,<16"]

# /close/<code>: after the client's request the server closes with this code and reason
CLOSES: list[tuple[int, str, str, str | None, str]] = [
    (1000, "bye", A, None, "normal closure before any answer"),
    (1001, "server shutting down", T, UO, "going away after the request (1001)"),
    (1002, "protocol error", A, None, "protocol error (1002)"),
    (1003, "text frames only", F, None, "unsupported data type (1003)"),
    (1007, "payload is not valid JSON", F, None, "invalid payload data (1007)"),
    (1008, "invalid or expired token", U, None, "policy violation (1008)"),
    (1011, "unexpected condition", T, UO, "internal error after the request (1011)"),
    (1012, "service restart", T, UO, "service restart after the request (1012)"),
    (1013, "try again later", T, NE, "try again later (1013)"),
    (1014, "upstream unavailable", T, UO, "bad gateway (1014)"),
    (4001, "unauthorized: token expired", U, None, "application code: token expired"),
    (4003, "forbidden: not a member of this channel", U, None, "application code: forbidden"),
    (4004, "channel not found", A, None, "application code: not found"),
    (4008, "request timed out", T, UO, "application code: request timeout"),
    (4009, "session already open on another device", A, None, "application code: conflict"),
    (4029, "rate limited, retry in 10s", T, NE, "application code: rate limited"),
    (4400, "bad request: missing field 'channel'", F, None, "application code: bad request"),
    (4402, "payment required: subscription expired", U, None, "application code: subscription expired"),
    (4500, "internal error", T, UO, "application code: internal error"),
    (4503, "service unavailable", T, NE, "application code: service unavailable"),
]
# /reject/<status>: the opening handshake is answered with this HTTP status
REJECTS: list[tuple[int, str, str | None, str]] = [
    (400, F, None, "handshake rejected: bad request (400)"),
    (401, U, None, "handshake rejected: unauthorized (401)"),
    (403, U, None, "handshake rejected: forbidden (403)"),
    (404, A, None, "handshake rejected: no such endpoint (404)"),
    (410, A, None, "handshake rejected: endpoint gone (410)"),
    (426, U, None, "handshake rejected: upgrade required (426)"),
    (429, T, NE, "handshake rejected: too many requests (429)"),
    (500, T, UO, "handshake rejected: internal error (500)"),
    (502, T, UO, "handshake rejected: bad gateway (502)"),
    (503, T, NE, "handshake rejected: service unavailable (503)"),
]


def _process_request(connection: Any, request: Any) -> Any:
    from http import HTTPStatus

    parts = request.path.split("/")
    if parts[1] == "reject":
        status = HTTPStatus(int(parts[2]))
        return connection.respond(status, f"{status.phrase}\n")
    if parts[1] == "loop":
        response = connection.respond(HTTPStatus.FOUND, "")
        response.headers["Location"] = request.path
        return response
    return None


def _handler(ws: Any) -> None:
    parts = ws.request.path.split("/")
    try:
        if parts[1] == "close":
            ws.recv()
            code = int(parts[2])
            ws.close(code, {c: r for c, r, *_ in CLOSES}[code])
        elif parts[1] == "drop":
            ws.recv()
            ws.socket.shutdown(socket.SHUT_RDWR)
        elif parts[1] == "big":
            ws.recv()
            ws.send("x" * 5000)
            ws.recv()
        else:
            for message in ws:
                ws.send(message)
    except Exception:
        pass


@contextmanager
def _server(**kwargs: Any) -> Iterator[int]:
    from websockets.sync.server import serve

    port = free_port()
    server = serve(_handler, "127.0.0.1", port, process_request=_process_request, **kwargs)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        server.shutdown()
        thread.join()


def cases(ctx: Any) -> Iterator[Case]:
    from websockets.sync.client import connect

    def case(
        cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException, arguments: dict[str, Any]
    ) -> Case:
        return Case(f"ws-{cid}", LIBRARY, cause, kind, outcome, exc, "websocket", arguments=arguments)

    message = '{"op": "subscribe", "channel": "prices"}'

    def session(url: str, **kwargs: Any) -> None:
        with connect(url, open_timeout=2, close_timeout=1, **kwargs) as ws:
            ws.send(message)
            ws.recv(timeout=2)
            ws.recv(timeout=2)

    def sent(url: str, **kwargs: Any) -> dict[str, Any]:
        """The model's arguments for ``session(url, **kwargs)`` (the timeouts are the tool's)."""
        return {"url": url, **kwargs, "message": message}

    quiet = logging.getLogger("websockets")  # the server logs each rejected handshake
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    with _server(subprotocols=["chat.v1"]) as port:
        ctx.name_port(port, "WSPORT2")
        url = f"ws://127.0.0.1:{port}/echo"
        exc = catch(lambda: session(url, subprotocols=["chat.v2"]))
        yield case("subprotocol", "no common subprotocol", F, None, exc, sent(url, subprotocols=["chat.v2"]))
    with _server(max_size=1000) as port:
        ctx.name_port(port, "WSPORT")
        base = f"ws://127.0.0.1:{port}"
        for code, _, kind, outcome, cause in CLOSES:
            url = f"{base}/close/{code}"
            yield case(f"close-{code}", cause, kind, outcome, catch(lambda: session(url)), sent(url))
        for status, kind, outcome, cause in REJECTS:
            url = f"{base}/reject/{status}"
            yield case(f"reject-{status}", cause, kind, outcome, catch(lambda: session(url)), sent(url))
        exc = catch(lambda: session(f"{base}/loop"))
        yield case("redirect", "handshake answered with a redirect (302)", A, None, exc, sent(f"{base}/loop"))
        exc = catch(lambda: session(f"{base}/drop"))
        yield case(
            "dropped",
            "TCP connection dropped after the request (no close frame)",
            T,
            UO,
            exc,
            sent(f"{base}/drop"),
        )

        big = "y" * 5000

        def too_big_for_server() -> None:
            with connect(f"{base}/echo", open_timeout=2) as ws:
                ws.send(big)
                ws.recv(timeout=2)

        yield case(
            "server-max-size",
            "message larger than the server accepts (1009)",
            F,
            None,
            catch(too_big_for_server),
            {"url": f"{base}/echo", "message": big},
        )
        exc = catch(lambda: session(f"{base}/big", max_size=1000))
        yield case(
            "client-max-size",
            "answer larger than the client's max_size (1009)",
            F,
            None,
            exc,
            sent(f"{base}/big", max_size=1000),
        )

        def recv_timeout() -> None:
            with connect(f"{base}/echo", open_timeout=2) as ws:
                ws.recv(timeout=0.2)

        yield case(
            "recv-timeout",
            "no message within the timeout",
            T,
            UO,
            catch(recv_timeout),
            {"url": f"{base}/echo"},
        )
    with raw_server(lambda conn: conn.recv(4096)) as p:
        ctx.name_port(p, "RAWPORT")
        url = f"ws://127.0.0.1:{p}/"
        exc = catch(lambda: session(url))
        yield case(
            "closed-handshake", "server closed the connection during the handshake", A, None, exc, sent(url)
        )

    def no_upgrade(conn: socket.socket) -> None:
        conn.recv(4096)
        conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nContent-Length: 0\r\n\r\n")
        time.sleep(0.2)

    with raw_server(no_upgrade) as p:
        ctx.name_port(p, "RAWPORT2")
        url = f"ws://127.0.0.1:{p}/"
        exc = catch(lambda: session(url))
        yield case("no-upgrade", "101 answer without the Upgrade headers", A, None, exc, sent(url))

    def plain_http(conn: socket.socket) -> None:
        conn.recv(4096)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello")
        time.sleep(0.2)

    with raw_server(plain_http) as p:
        ctx.name_port(p, "RAWPORT3")
        url = f"ws://127.0.0.1:{p}/"
        exc = catch(lambda: session(url))
        yield case("plain-http", "endpoint is a plain web page (200, no upgrade)", F, None, exc, sent(url))
    with raw_server(lambda conn: time.sleep(0.6)) as p:
        ctx.name_port(p, "RAWPORT4")
        url = f"ws://127.0.0.1:{p}/"
        exc = catch(lambda: connect(url, open_timeout=0.2))
        yield case(
            "open-timeout", "no handshake answer within the timeout (nothing sent)", T, NE, exc, {"url": url}
        )
    for cid, cause, url in [
        ("refused", "connection refused", f"ws://127.0.0.1:{ctx.dead}/"),
        ("dns", "DNS name does not resolve", "wss://stream.nonexistent.invalid/"),
    ]:
        yield case(cid, cause, T, NE, catch(lambda: session(url)), sent(url))
    url = "http://127.0.0.1/feed"
    yield case("bad-uri", "URI scheme is not ws or wss", F, None, catch(lambda: session(url)), sent(url))
