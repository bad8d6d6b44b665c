# ruff: noqa: B023 - each lambda is called at once
"""smtplib against aiosmtpd servers on 127.0.0.1 whose handler answers each stage (MAIL,
RCPT, DATA, AUTH, EHLO) with the reply a real mail server gives for the cause set up, the
size limit and missing extensions of aiosmtpd itself, and raw sockets for what happens
before the greeting. SMTP reply codes are labelled by their SMTP meaning (4xx: try again,
the message was not taken; 5xx: permanent)."""

from __future__ import annotations

import asyncio
import smtplib
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from typing import Any

from generate import Case

from ._common import NE, UO, A, F, T, U, catch, free_port, raw_server

LIBRARY = "smtplib"
REQUIRES = ["aiosmtpd>=1.4,<2"]

# RCPT TO:<local@example.com> -> the reply, with its label
RCPT: dict[str, tuple[str, str, str | None, str]] = {
    "busy": ("450 4.2.1 Mailbox busy, try again later", T, NE, "recipient mailbox busy (450)"),
    "greylist": ("451 4.7.1 Greylisted, please try again in 300 seconds", T, NE, "greylisting (451)"),
    "localerr": (
        "451 4.3.0 Temporary local problem, please try again",
        T,
        NE,
        "local error in processing (451)",
    ),
    "storage": ("452 4.3.1 Insufficient system storage", T, NE, "server storage temporarily full (452)"),
    "toomany": ("452 4.5.3 Too many recipients", T, NE, "too many recipients in one transaction (452)"),
    "dnstemp": (
        "450 4.1.2 Recipient address rejected: Domain not found",
        T,
        NE,
        "recipient domain lookup failed (450)",
    ),
    "closing": (
        "421 4.3.2 Service shutting down, closing transmission channel",
        T,
        NE,
        "service shutting down (421)",
    ),
    "unknown": (
        "550 5.1.1 The email account that you tried to reach does not exist",
        A,
        None,
        "no such mailbox (550 5.1.1)",
    ),
    "relay": ("550 5.7.1 Relaying denied", U, None, "relaying denied (550 5.7.1)"),
    "notlocal": (
        "551 5.1.6 User not local; please try <ann@new.example.com>",
        F,
        None,
        "user moved, new address given (551)",
    ),
    "full": ("552 5.2.2 Mailbox full", U, None, "recipient mailbox full (552)"),
    "badsyntax": ("553 5.1.3 Bad recipient address syntax", F, None, "bad address syntax (553)"),
    "disabled": (
        "550 5.2.1 Mailbox disabled, not accepting messages",
        U,
        None,
        "mailbox disabled (550 5.2.1)",
    ),
    "denied": (
        "550 5.4.1 Recipient address rejected: Access denied",
        U,
        None,
        "recipient access denied (550 5.4.1)",
    ),
    "nullmx": ("556 5.1.10 Recipient address has null MX", U, None, "domain accepts no mail (556)"),
    "blocked": (
        "554 5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org",
        U,
        None,
        "client on a block list (554)",
    ),
    "params": ("555 5.5.4 RCPT TO parameters not recognized", F, None, "unknown RCPT parameters (555)"),
    "badseq": ("503 5.5.1 Bad sequence of commands", A, None, "bad sequence of commands (503)"),
}
# MAIL FROM:<local@example.com>
MAIL: dict[str, tuple[str, str, str | None, str]] = {
    "notowner": (
        "553 5.7.1 Sender address rejected: not owned by user ann@example.com",
        U,
        None,
        "sender address not owned by the login (553 5.7.1)",
    ),
    "domaintemp": (
        "451 4.1.8 Sender address rejected: Domain not found",
        T,
        NE,
        "sender domain lookup failed (451)",
    ),
    "noauth": ("530 5.7.0 Authentication required", U, None, "authentication required (530)"),
    "ratelimited": (
        "421 4.7.28 Our system has detected an unusual rate of mail from your IP address; "
        "it has been temporarily rate limited",
        T,
        NE,
        "sending rate limited (421 4.7.28)",
    ),
    "quota": (
        "550 5.4.5 Daily user sending quota exceeded.",
        U,
        None,
        "daily sending quota exhausted (550 5.4.5)",
    ),
    "syntax": ("501 5.1.7 Bad sender address syntax", F, None, "bad sender address syntax (501)"),
    "suspended": ("554 5.7.1 Your account has been suspended", U, None, "account suspended (554)"),
}
# RCPT TO:<data-local@example.com> is taken; DATA is answered with
DATA: dict[str, tuple[str, str, str | None, str]] = {
    "spam": ("554 5.7.1 Message rejected as spam", U, None, "content rejected as spam (554)"),
    "virus": ("554 5.7.0 Message rejected: virus found (Eicar-Test-Signature)", U, None, "virus found (554)"),
    "dmarc": (
        "550 5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy",
        U,
        None,
        "DMARC policy rejects the sender's domain (550 5.7.26)",
    ),
    "malformed": (
        "554 5.6.0 Message content malformed: missing Date header",
        F,
        None,
        "malformed message (554 5.6.0)",
    ),
    "toolarge": ("552 5.3.4 Message size exceeds fixed limit", F, None, "message too large (552 5.3.4)"),
    "queue": ("451 4.3.0 Error: queue file write error", T, NE, "queue write error, not taken (451)"),
    "loop": ("554 5.4.6 Routing loop detected: too many hops", U, None, "mail routing loop (554 5.4.6)"),
    "overquota": (
        "452 4.2.2 The email account that you tried to reach is over quota",
        T,
        NE,
        "recipient over quota, temporary (452 4.2.2)",
    ),
}
# AUTH as user -> the reply
AUTH: dict[str, tuple[str | None, str, str | None, str]] = {
    "wrongpass": (None, U, None, "credentials invalid (535 5.7.8, aiosmtpd's own reply)"),
    "apppass": (
        "534 5.7.9 Application-specific password required",
        U,
        None,
        "application password required (534)",
    ),
    "tempfail": (
        "454 4.7.0 Temporary authentication failure",
        T,
        NE,
        "temporary authentication failure (454)",
    ),
    "needtls": (
        "538 5.7.11 Encryption required for requested authentication mechanism",
        U,
        None,
        "encryption required for AUTH (538)",
    ),
    "tenant": (
        "535 5.7.139 Authentication unsuccessful, SmtpClientAuthentication is disabled for the Tenant",
        U,
        None,
        "SMTP AUTH disabled for the account (535 5.7.139)",
    ),
    "locked": ("535 5.7.0 Account locked: too many failed login attempts", U, None, "account locked (535)"),
}


class _Handler:
    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        local = address.split("@")[0]
        if local in MAIL:
            return MAIL[local][0]
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        local = address.split("@")[0]
        if local in RCPT:
            return RCPT[local][0]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        local = envelope.rcpt_tos[0].split("@")[0].removeprefix("data-")
        if local == "slow":
            await asyncio.sleep(1.0)
        if local == "drop":
            server.transport.close()
        if local in DATA:
            return DATA[local][0]
        return "250 OK queued"


class _RejectHelo:
    async def handle_EHLO(
        self, server: Any, session: Any, envelope: Any, hostname: str, responses: Any
    ) -> Any:
        return ["550 5.7.1 EHLO rejected: host name not allowed"]

    async def handle_HELO(self, server: Any, session: Any, envelope: Any, hostname: str) -> str:
        return "550 5.7.1 HELO rejected: host name not allowed"


def _authenticator(server: Any, session: Any, envelope: Any, mechanism: str, auth_data: Any) -> Any:
    from aiosmtpd.smtp import AuthResult

    user = auth_data.login.decode()
    if user == "ann" and auth_data.password == b"right":
        return AuthResult(success=True)
    return AuthResult(success=False, handled=False, message=AUTH.get(user, (None,))[0])


@contextmanager
def _controller(handler: Any, **kwargs: Any) -> Iterator[int]:
    from aiosmtpd.controller import Controller

    port = free_port()
    controller = Controller(
        handler, hostname="127.0.0.1", port=port, server_hostname="mx.example.com", **kwargs
    )
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


def _send(port: int, frm: str, to: list[str], timeout: float = 2.0, **login: str) -> None:
    s = smtplib.SMTP("127.0.0.1", port, timeout=timeout)
    try:
        if login:
            s.login(login["user"], login["password"])
        s.sendmail(frm, to, b"Subject: hi\r\n\r\nhello\r\n")
    finally:
        s.close()


def _mail(frm: str = "ann@example.com", to: str = "bob@example.com", **extra: Any) -> dict[str, Any]:
    """The ``send_email`` arguments of :func:`_send`'s message (the login, the server and TLS
    are the tool's configuration; ``host`` only where the model named the server)."""
    return {"from": frm, "to": [to], "subject": "hi", "body": "hello", **extra}


def cases(ctx: Any) -> Iterator[Case]:
    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        args: dict[str, Any] | None = None,
    ) -> Case:
        return Case(f"smtp-{cid}", LIBRARY, cause, kind, outcome, exc, "send_email", args or _mail())

    with _controller(
        _Handler(),
        authenticator=_authenticator,
        auth_require_tls=False,
        data_size_limit=2000,
        enable_SMTPUTF8=False,
    ) as port:
        ctx.name_port(port, "SMTPPORT")
        for local, (_, kind, outcome, cause) in RCPT.items():
            exc = catch(lambda: _send(port, "ann@example.com", [f"{local}@example.com"]))
            yield case(f"rcpt-{local}", cause, kind, outcome, exc, _mail(to=f"{local}@example.com"))
        for local, (_, kind, outcome, cause) in MAIL.items():
            exc = catch(lambda: _send(port, f"{local}@example.com", ["bob@example.com"]))
            yield case(f"mail-{local}", cause, kind, outcome, exc, _mail(frm=f"{local}@example.com"))
        for local, (_, kind, outcome, cause) in DATA.items():
            exc = catch(lambda: _send(port, "ann@example.com", [f"data-{local}@example.com"]))
            yield case(f"data-{local}", cause, kind, outcome, exc, _mail(to=f"data-{local}@example.com"))
        exc = catch(lambda: _send(port, "ann@example.com", ["data-slow@example.com"], timeout=0.3))
        args = _mail(to="data-slow@example.com")
        yield case("data-timeout", "read timeout after the message was sent", T, UO, exc, args)
        time.sleep(0.8)
        exc = catch(lambda: _send(port, "ann@example.com", ["data-drop@example.com"]))
        cause = "server closed the connection after the message was sent"
        yield case("data-dropped", cause, T, UO, exc, _mail(to="data-drop@example.com"))
        for user, (_, kind, outcome, cause) in AUTH.items():
            exc = catch(lambda: _send(port, "ann@example.com", ["bob@example.com"], user=user, password="x"))
            yield case(f"auth-{user}", cause, kind, outcome, exc)

        def too_big() -> None:
            s = smtplib.SMTP("127.0.0.1", port, timeout=2)
            try:
                s.sendmail("ann@example.com", ["bob@example.com"], b"Subject: big\r\n\r\n" + b"x" * 5000)
            finally:
                s.close()

        args = {**_mail(), "subject": "big", "body": "x" * 5000}
        cause = "message larger than the server's SIZE limit (552)"
        yield case("size-limit", cause, F, None, catch(too_big), args)

        def send_message(msg: EmailMessage) -> None:
            s = smtplib.SMTP("127.0.0.1", port, timeout=2)
            try:
                s.send_message(msg)
            finally:
                s.close()

        msg = EmailMessage()
        msg["From"] = "ann@example.com"
        msg["To"] = "jürgen@exämple.de"
        msg.set_content("hi")
        exc = catch(lambda: send_message(msg))
        args = {"from": "ann@example.com", "to": ["jürgen@exämple.de"], "body": "hi"}
        yield case("smtputf8", "international address, server without SMTPUTF8", U, None, exc, args)
        msg = EmailMessage()
        msg["From"] = "ann@example.com"
        msg["Subject"] = "no recipients"
        msg.set_content("hi")
        args = {"from": "ann@example.com", "subject": "no recipients", "body": "hi"}
        exc = catch(lambda: send_message(msg))
        yield case("no-recipients", "message without any recipient", F, None, exc, args)
        msg = EmailMessage()
        msg["From"] = "ann@example.com"
        msg["To"] = "bob@example.com"
        msg["Resent-Date"] = "Mon, 1 Jan 2024 00:00:00 +0000"
        msg["Resent-To"] = "cy@example.com"
        msg["Resent-Date"] = "Tue, 2 Jan 2024 00:00:00 +0000"
        msg.set_content("hi")
        headers = [
            ["Resent-Date", "Mon, 1 Jan 2024 00:00:00 +0000"],
            ["Resent-To", "cy@example.com"],
            ["Resent-Date", "Tue, 2 Jan 2024 00:00:00 +0000"],
        ]
        args = {"from": "ann@example.com", "to": ["bob@example.com"], "headers": headers, "body": "hi"}
        exc = catch(lambda: send_message(msg))
        yield case("resent-blocks", "several Resent- header blocks", F, None, exc, args)

        def starttls() -> None:
            s = smtplib.SMTP("127.0.0.1", port, timeout=2)
            try:
                s.starttls()
            finally:
                s.close()

        yield case("no-starttls", "STARTTLS not offered by the server", U, None, catch(starttls))

    with _controller(_Handler()) as port:
        ctx.name_port(port, "SMTPPORT2")

        def login() -> None:
            s = smtplib.SMTP("127.0.0.1", port, timeout=2)
            try:
                s.login("ann", "right")
            finally:
                s.close()

        yield case("no-auth-extension", "AUTH not offered by the server", U, None, catch(login))
    with _controller(_RejectHelo()) as port:
        ctx.name_port(port, "SMTPPORT3")
        exc = catch(lambda: _send(port, "ann@example.com", ["bob@example.com"]))
        yield case("helo-rejected", "HELO/EHLO rejected (550 5.7.1)", U, None, exc)

    def at(port: int) -> dict[str, Any]:
        return _mail(host=f"127.0.0.1:{port}")

    def greet(line: bytes) -> Any:
        def handle(conn: socket.socket) -> None:
            conn.sendall(line)
            time.sleep(0.2)

        return handle

    with raw_server(
        greet(b"421 4.3.2 mx.example.com Service not available, closing transmission channel\r\n")
    ) as p:
        ctx.name_port(p, "RAWPORT")
        exc = catch(lambda: smtplib.SMTP("127.0.0.1", p, timeout=2))
        yield case("greeting-421", "service not available at the greeting (421)", T, NE, exc, at(p))
    with raw_server(greet(b"554 5.7.1 mx.example.com No SMTP service here\r\n")) as p:
        ctx.name_port(p, "RAWPORT2")
        exc = catch(lambda: smtplib.SMTP("127.0.0.1", p, timeout=2))
        yield case("greeting-554", "no SMTP service for this client (554 greeting)", U, None, exc, at(p))
    with raw_server(lambda conn: None) as p:
        ctx.name_port(p, "RAWPORT3")
        exc = catch(lambda: smtplib.SMTP("127.0.0.1", p, timeout=2))
        cause = "server closed the connection before the greeting"
        yield case("greeting-closed", cause, T, NE, exc, at(p))
    with raw_server(lambda conn: time.sleep(0.6)) as p:
        ctx.name_port(p, "RAWPORT4")
        exc = catch(lambda: smtplib.SMTP("127.0.0.1", p, timeout=0.2))
        cause = "no greeting within the timeout (nothing sent)"
        yield case("greeting-timeout", cause, T, NE, exc, at(p))
    with raw_server(greet(b"SSH-2.0-OpenSSH_9.2p1\r\n")) as p:
        ctx.name_port(p, "RAWPORT5")
        exc = catch(lambda: smtplib.SMTP("127.0.0.1", p, timeout=2))
        yield case("not-smtp", "the port is not an SMTP server (wrong port)", F, None, exc, at(p))
    exc = catch(lambda: smtplib.SMTP("127.0.0.1", ctx.dead, timeout=2))
    yield case("refused", "connection refused", T, NE, exc, at(ctx.dead))
    exc = catch(lambda: smtplib.SMTP("mail.nonexistent.invalid", 25, timeout=2))
    yield case("dns", "DNS name does not resolve", T, NE, exc, _mail(host="mail.nonexistent.invalid:25"))
    unconnected = smtplib.SMTP()
    exc = catch(lambda: unconnected.sendmail("ann@example.com", ["bob@example.com"], "x"))
    args = {"from": "ann@example.com", "to": ["bob@example.com"], "body": "x"}
    yield case("not-connected", "client not connected", A, None, exc, args)
    exc = catch(lambda: smtplib.SMTP("127.0.0.1:notaport"))
    yield case("bad-port", "port is not a number", F, None, exc, _mail(host="127.0.0.1:notaport"))
