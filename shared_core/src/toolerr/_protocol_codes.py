"""Codes of the protocols agents' tools speak besides HTTP, read from their clients'
exceptions without importing them: smtplib's ``smtp_code`` and RFC 3463 enhanced codes,
ftplib's reply line, websockets' close frames. Never read as HTTP statuses."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from . import _rules as R
from ._failopen import safe_getattr as _get

_ENHANCED = re.compile(rb"^\s*([245])\.(\d{1,3})\.(\d{1,3})\b")


def _reply(out: list[tuple[R.CodeRule, str]], code: Any, text: Any) -> None:
    """An SMTP or FTP reply: its RFC 3463 enhanced code where the text starts with one, else
    its reply code."""
    if isinstance(text, str):
        text = text.encode("utf-8", "replace")
    if isinstance(text, bytes):
        m = _ENHANCED.match(text[:64])
        if m is not None:
            klass, subject, detail = (g.decode() for g in m.groups())
            for key in (f"{klass}.{subject}.{detail}", f"{klass}.{subject}", klass):
                rule = R.ENHANCED_CODES.get(key)
                if rule is not None:
                    out.append((rule, f"smtp:{klass}.{subject}.{detail}"))
                    return
    if isinstance(code, int) and not isinstance(code, bool):
        rule = R.REPLY_CODES.get(code)
        if rule is not None:
            out.append((rule, f"reply:{code}"))


def protocol_codes(exc: BaseException, display: str) -> list[tuple[R.CodeRule, str]]:
    """Codes of protocols other than HTTP that ``exc`` (of class ``display``) carries: SMTP
    and FTP replies, AMQP reply codes, NATS JetStream error codes, WebSocket close codes; the most specific
    first."""
    out: list[tuple[R.CodeRule, str]] = []
    if display.startswith("smtplib."):
        code = _get(exc, "smtp_code")
        if code is not None:
            _reply(out, code, _get(exc, "smtp_error"))
            return out
        recipients = _get(exc, "recipients")  # SMTPRecipientsRefused: {addr: (code, msg)}
        if isinstance(recipients, Mapping):
            replies = [v for v in list(recipients.values())[:16] if isinstance(v, tuple) and len(v) == 2]
            # a permanent refusal of any recipient decides before a temporary one
            replies.sort(key=lambda v: 0 if isinstance(v[0], int) and v[0] >= 500 else 1)
            if replies:
                _reply(out, replies[0][0], replies[0][1])
        return out
    if display.startswith("ftplib."):
        args = _get(exc, "args")
        first = args[0] if isinstance(args, tuple) and args else None
        if isinstance(first, str) and len(first) >= 3 and first[:3].isdigit():
            _reply(out, int(first[:3]), first[4:])
        return out
    if display.startswith("pika."):
        # ConnectionClosed / ChannelClosed (by the broker): the AMQP reply code; 200 is a
        # normal close, and a code the table leaves out keeps the class and the words
        reply_code = _get(exc, "reply_code")
        if isinstance(reply_code, int) and not isinstance(reply_code, bool):
            rule = R.AMQP_REPLY.get(reply_code)
            if rule is not None:
                out.append((rule, f"amqp:{reply_code}"))
        return out
    if display.startswith("nats."):
        # nats-py's JetStream APIError: ``err_code`` is the server's own table, ``code`` only
        # its HTTP-like class
        err_code = _get(exc, "err_code")
        if isinstance(err_code, int) and not isinstance(err_code, bool):
            rule = R.NATS_JETSTREAM.get(err_code)
            if rule is not None:
                out.append((rule, f"nats:{err_code}"))
        return out
    if display.startswith("websockets."):
        for holder in (_get(exc, "rcvd"), _get(exc, "sent")):
            code = _get(holder, "code") if holder is not None else None
            if isinstance(code, int) and not isinstance(code, bool):
                rule = R.WEBSOCKET_CLOSE.get(code)
                if rule is not None:
                    out.append((rule, f"websocket:{code}"))
                return out
    return out
