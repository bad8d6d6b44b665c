"""Reading exception objects without importing their libraries.

The class is identified by ``module.QualName`` of every class in its MRO (``httpx.ReadTimeout``,
``requests.exceptions.ConnectionError``, ``pydantic_core._pydantic_core.ValidationError``) and
matched against :data:`toolerr._rules.EXCEPTIONS` by name inside a module prefix. Attributes
(HTTP status, gRPC code, errno, SQLSTATE, AWS error code, Retry-After) are read defensively:
any attribute access may raise, and a broken exception never breaks detection.
"""

from __future__ import annotations

import errno as _errno
import json
import logging
import math
import re
import select
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import _rules as R
from ._exception_names import class_name, lookup_class
from ._exception_names import lookup_name as lookup_name  # importable from here too
from ._failopen import log_swallowed, safe_getattr
from ._protocol_codes import protocol_codes

_SKIP_CLASSES = frozenset({"builtins.object", "builtins.BaseException", "builtins.Exception"})
_MAX_LINKS = 12


@dataclass
class Link:
    """What one exception of a chain says."""

    name: str  # "module.QualName" of its class ("builtins." dropped)
    qualname: str
    rule: R.ExceptionRule | None = None
    rule_class: str | None = None  # the MRO class that matched ``rule``
    status: int | None = None
    grpc: str | None = None
    errno_name: str | None = None
    sqlstate: str | None = None
    aws_code: str | None = None
    jsonrpc: int | None = None
    message: str = ""
    body: str = ""  # the start of the HTTP response body the exception carries
    vendor: list[str] = field(default_factory=list)  # API error codes (body, SDK attributes)
    rate_limited: bool = False  # a rate-limit header says nothing is left
    protocol: list[tuple[R.CodeRule, str]] = field(default_factory=list)  # SMTP, FTP, WebSocket
    codes: list[str] = field(default_factory=list)  # error codes of the body no table knows
    # the first builtin class in the MRO ("ValueError" for a JSONDecodeError)
    builtin: str | None = None


@dataclass
class ExceptionFacts:
    """The links of an exception chain, the raised exception first."""

    links: list[Link] = field(default_factory=list)
    retry_after: float | None = None


def _safe_get(mapping: Any, key: str) -> Any:
    try:
        if isinstance(mapping, Mapping):
            return mapping.get(key)
        getter = getattr(mapping, "get", None)
        if callable(getter):
            return getter(key)
    except Exception:  # noqa: BLE001 - foreign mapping types may raise anything
        log_swallowed("reading a foreign mapping", logging.DEBUG)
        return None
    return None


def _errno_name(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        name = _errno.errorcode.get(value)
        return name if name in R.ERRNO else None
    if isinstance(value, str) and value in R.ERRNO:
        return value
    return None


def _grpc_name(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        name = value
    elif isinstance(value, int):
        return R.GRPC_NUMBERS.get(value)
    else:
        name = safe_getattr(value, "name")  # grpc.StatusCode enum member
        if not isinstance(name, str):
            return None
    name = R.GRPC_ALIASES.get(name, name)
    return name if name in R.GRPC_STATUS else None


def parse_retry_after(value: Any, scale: float = 1.0) -> float | None:
    """Seconds from a Retry-After value: a number of seconds (times ``scale``) or an HTTP
    date. Never raises; negative results become 0."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = float(value) * scale
    elif isinstance(value, (str, bytes)):
        text = value.decode("latin-1", "replace") if isinstance(value, bytes) else value
        text = text.strip()
        if not text or len(text) > 64:
            return None
        try:
            seconds = float(text) * scale
        except ValueError:
            try:
                from datetime import datetime, timezone
                from email.utils import parsedate_to_datetime

                when = parsedate_to_datetime(text)
                if when.tzinfo is None:
                    when = when.replace(tzinfo=timezone.utc)
                seconds = (when - datetime.now(timezone.utc)).total_seconds()
            except (TypeError, ValueError, IndexError, OverflowError):
                return None
    else:
        return None
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def _retry_after_from_headers(headers: Any) -> float | None:
    if headers is None:
        return None
    for name, scale in R.RETRY_AFTER_HEADERS:
        value = _safe_get(headers, name)
        if value is not None:
            parsed = parse_retry_after(value, scale)
            if parsed is not None:
                return parsed
    return None


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_DURATION_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_reset(value: Any, form: str) -> float | None:
    """Seconds until a rate limit resets, from one reset header's ``value`` in ``form``
    (see ``RATE_LIMIT_RESET_HEADERS``); never raises; ``None`` when unreadable."""
    if isinstance(value, bytes):
        value = value.decode("latin-1", "replace")
    if not isinstance(value, str) or not value.strip() or len(value) > 64:
        return None
    text = value.strip()
    try:
        if form == "duration":
            parts = _DURATION_PART.findall(text)
            if not parts or "".join(a + b for a, b in parts) != text:
                return None
            seconds = sum(float(number) * _DURATION_UNITS[unit] for number, unit in parts)
        elif form == "date":
            from datetime import datetime, timezone

            when = datetime.fromisoformat(text.replace("Z", "+00:00"))
            if when.tzinfo is None:
                when = when.replace(tzinfo=timezone.utc)
            seconds = (when - datetime.now(timezone.utc)).total_seconds()
        else:
            seconds = float(text)
            if form == "seconds_or_epoch" and seconds > 1e9:
                import time

                seconds -= time.time()
    except (ValueError, OverflowError):
        return None
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def _reset_from_headers(headers: Any) -> float | None:
    """The wait a rate limit's reset headers give (see ``RATE_LIMIT_RESET_HEADERS``): the
    latest reset among the limits whose remaining header says 0, else among all named."""
    exhausted: list[float] = []
    named: list[float] = []
    for name, remaining, form, _source in R.RATE_LIMIT_RESET_HEADERS:
        seconds = parse_reset(_safe_get(headers, name), form)
        if seconds is None:
            continue
        named.append(seconds)
        left = _safe_get(headers, remaining)
        if isinstance(left, bytes):
            left = left.decode("latin-1", "replace")
        if isinstance(left, str) and left.strip() == "0":
            exhausted.append(seconds)
    chosen = exhausted or named
    return max(chosen) if chosen else None


def _status_from(value: Any, link: Link) -> None:
    """Read one status-like attribute value into ``link``."""
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        value = int(value)  # an IntEnum (http.HTTPStatus) becomes a plain int
        if 400 <= value <= 599 and link.status is None:
            link.status = value
        elif -32768 <= value <= -32000 and link.jsonrpc is None:
            link.jsonrpc = value
        return
    if isinstance(value, str):
        if len(value) == 3 and value.isdigit():
            _status_from(int(value), link)
        elif value in R.ERRNO:
            link.errno_name = link.errno_name or value
        elif value in R.AWS_ERROR_CODES:
            link.aws_code = link.aws_code or value
        else:
            name = _grpc_name(value)
            if name is not None:
                link.grpc = link.grpc or name
        return
    name = _grpc_name(value)  # an enum member such as grpc.StatusCode.UNAVAILABLE
    if name is not None:
        link.grpc = link.grpc or name


def _body_text(value: Any) -> str:
    """The start of a response body given as bytes, text or parsed JSON; never raises."""
    try:
        if isinstance(value, (bytes, bytearray)):
            return bytes(value[: R.BODY_MAX_CHARS]).decode("utf-8", "replace")
        if isinstance(value, str):
            return value[: R.BODY_MAX_CHARS]
        if isinstance(value, (Mapping, list)):
            return json.dumps(value, default=str)[: R.BODY_MAX_CHARS]
    except Exception:  # noqa: BLE001 - a foreign body type must not break detection
        return ""
    return ""


def _buffered_body(exc: BaseException) -> str:
    """urllib ``HTTPError``: the start of the body that arrived with the headers, peeked from
    the response's read buffer without consuming it (the caller can still ``exc.read()`` all
    of it) and without waiting for more (the socket is non-blocking during the peek). ``""``
    where nothing is buffered, the body is chunked, or the objects are not the stdlib's."""
    resp = safe_getattr(exc, "fp")  # the http.client.HTTPResponse (or an addinfourl around it)
    if class_name(type(resp))[2] != "http.client.HTTPResponse":
        resp = safe_getattr(resp, "fp")
        if class_name(type(resp))[2] != "http.client.HTTPResponse":
            return ""
    if safe_getattr(resp, "chunked") is not False or safe_getattr(resp, "_method") == "HEAD":
        return ""
    reader = safe_getattr(resp, "fp")
    if class_name(type(reader))[2] != "_io.BufferedReader":
        return ""
    sock = safe_getattr(safe_getattr(reader, "raw"), "_sock")  # socket.SocketIO's socket
    classes = safe_getattr(type(sock), "__mro__") or ()
    if not any(class_name(cls)[2] in ("socket.socket", "ssl.SSLSocket") for cls in classes):
        return ""
    try:
        timeout = sock.gettimeout()
    except Exception:  # noqa: BLE001 - a closed or foreign socket
        return ""
    length = safe_getattr(resp, "length")  # what is left of Content-Length
    data = b""
    try:
        sock.settimeout(0.0)
        data = reader.peek(R.BODY_MAX_CHARS) or b""
        if not data and length:
            # the body may follow the headers by a moment: wait for it, briefly and once
            select.select([sock], [], [], R.BODY_WAIT_S)
            data = reader.peek(R.BODY_MAX_CHARS) or b""
    except Exception:  # noqa: BLE001 - nothing buffered (would block), closed, TLS state
        log_swallowed("peeking a urllib HTTPError body", logging.DEBUG)
    finally:
        try:
            sock.settimeout(timeout)
        except Exception:  # noqa: BLE001 - the socket was closed meanwhile
            log_swallowed("restoring a socket timeout", logging.DEBUG)
    if isinstance(length, int):
        data = data[:length]
    return _body_text(data)


def _vendor_codes(body: str, link: Link) -> None:
    """Error codes of a JSON error body: ``error.code``, ``error.type``, ``error.status``
    and Google ErrorInfo ``reason``s."""
    if not body.startswith(("{", "[")):
        return
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return
    if not isinstance(data, dict):
        return
    error = data.get("error")
    if isinstance(error, str) and data.get("ok") is False:
        # Slack and others: {"ok": false, "error": "ratelimited"}, often on HTTP 200
        (link.vendor if error in R.VENDOR_ERROR_CODES else link.codes).append(error)
        return
    if data.get("kind") == "Status":  # Kubernetes: {"kind": "Status", "reason": "AlreadyExists"}
        reason = data.get("reason")
        if isinstance(reason, str):
            (link.vendor if reason in R.SAAS_ERROR_CODES else link.codes).append(reason)
        return
    for key in ("code", "error_code", "type"):  # {"code": "object_not_found"} (Notion, others)
        value = data.get(key)
        if isinstance(value, str) and 2 < len(value) <= 80:
            (link.vendor if value in R.VENDOR_ERROR_CODES else link.codes).append(value)
    errors = data.get("errors")
    if isinstance(errors, list):  # GitHub 422: {"errors": [{"code": "already_exists"}]}
        for item in errors[:8]:
            code = item.get("code") if isinstance(item, dict) else None
            if isinstance(code, str) and code in R.SAAS_ERROR_CODES:
                link.vendor.append(code)
    if not isinstance(error, dict):
        return
    for key in ("code", "type", "status"):
        value = error.get(key)
        if isinstance(value, str) and value in R.VENDOR_ERROR_CODES:
            link.vendor.append(value)
        elif isinstance(value, str) and 2 < len(value) <= 80:
            link.codes.append(value)
    details = error.get("details")
    if isinstance(details, list):
        for detail in details[:8]:
            reason = detail.get("reason") if isinstance(detail, dict) else None
            if isinstance(reason, str) and reason in R.VENDOR_ERROR_CODES:
                link.vendor.append(reason)


def _rate_limited(headers: Any) -> bool:
    for name in R.RATE_LIMIT_REMAINING_HEADERS:
        value = _safe_get(headers, name)
        if isinstance(value, str) and value.strip() == "0":
            return True
    return False


def _read_link(exc: BaseException, facts: ExceptionFacts) -> Link:
    _, qualname, display = class_name(type(exc))
    link = Link(name=display, qualname=qualname)
    mro = safe_getattr(type(exc), "__mro__") or ()
    is_grpc = False
    is_gai = False
    try:
        classes = tuple(mro)
    except Exception:  # noqa: BLE001 - a metaclass may do anything
        log_swallowed("reading an exception class's __mro__", logging.DEBUG)
        classes = ()
    for cls in classes:
        cls_module, cls_qualname, cls_display = class_name(cls)
        if cls_module.split(".", 1)[0] in R.GRPC_CALLABLE_CODE_PREFIXES:
            is_grpc = True
        if cls_qualname in R.GAI_CLASSES and cls_module in ("socket", "_socket"):
            is_gai = True
        if (
            link.builtin is None
            and cls_module == "builtins"
            and f"builtins.{cls_qualname}" not in _SKIP_CLASSES
        ):
            link.builtin = cls_qualname
        if link.rule is None and f"{cls_module}.{cls_qualname}" not in _SKIP_CLASSES:
            rule = lookup_class(cls_module, cls_qualname)
            if rule is not None:
                link.rule = rule
                link.rule_class = cls_display

    for attr in R.STATUS_ATTRIBUTES:
        value = safe_getattr(exc, attr)
        if callable(value) and not isinstance(value, type):
            if attr == "code" and is_grpc:
                try:
                    value = value()
                except Exception:  # noqa: BLE001 - a foreign method may raise anything
                    log_swallowed("calling an exception's code()", logging.DEBUG)
                    value = None
            else:
                continue
        _status_from(value, link)

    grpc_code = safe_getattr(exc, "grpc_status_code")  # google.api_core
    if grpc_code is not None:
        link.grpc = link.grpc or _grpc_name(grpc_code)

    response = safe_getattr(exc, "response")
    headers = safe_getattr(exc, "headers")
    if isinstance(response, Mapping):  # botocore ClientError.response
        error = _safe_get(response, "Error")
        code = _safe_get(error, "Code") if error is not None else None
        if isinstance(code, str) and code:
            link.aws_code = link.aws_code or code
        meta = _safe_get(response, "ResponseMetadata")
        if meta is not None:
            _status_from(_safe_get(meta, "HTTPStatusCode"), link)
            if headers is None:
                headers = _safe_get(meta, "HTTPHeaders")
    elif response is not None:
        _status_from(safe_getattr(response, "status_code"), link)
        if link.status is None:
            _status_from(safe_getattr(response, "status"), link)
        if headers is None:
            headers = safe_getattr(response, "headers")
        # httpx and requests keep a body already read in ``_content`` (reading ``.text``
        # could consume a stream the caller still wants).
        link.body = _body_text(safe_getattr(response, "_content"))
    body = safe_getattr(exc, "body")  # openai / anthropic APIStatusError.body (parsed JSON)
    if body is not None and not link.body:
        link.body = _body_text(body)
    if not link.body:
        # parsed bodies: stripe ``json_body``, PyGithub ``data``, slack_sdk ``response.data``
        for holder, attr in ((exc, "json_body"), (exc, "data"), (response, "data")):
            value = safe_getattr(holder, attr) if holder is not None else None
            if isinstance(value, (Mapping, list)):
                link.body = _body_text(value)
                break
    if not link.body and display == "urllib.error.HTTPError":
        link.body = _buffered_body(exc)
    if link.body:
        _vendor_codes(link.body.strip(), link)
    for attr in ("code", "type", "reason"):  # openai exc.code / exc.type, google exc.reason
        value = safe_getattr(exc, attr)
        if isinstance(value, str) and value in R.VENDOR_ERROR_CODES and value not in link.vendor:
            link.vendor.append(value)
    if headers is not None and _rate_limited(headers):
        link.rate_limited = True

    error_obj = safe_getattr(exc, "error")  # MCP McpError.error (ErrorData)
    if error_obj is not None and not isinstance(error_obj, (str, bytes, BaseException)):
        code = (
            _safe_get(error_obj, "code")
            if isinstance(error_obj, Mapping)
            else safe_getattr(error_obj, "code")
        )
        if isinstance(code, int) and not isinstance(code, bool) and -32768 <= code <= -32000:
            link.jsonrpc = link.jsonrpc or code

    errno_value = safe_getattr(exc, "errno")
    name = _errno_name(errno_value)
    if is_gai and isinstance(errno_value, int):
        name = R.GAI_ERRNO.get(errno_value, name)
    if name is None:
        winerror = safe_getattr(exc, "winerror")
        if isinstance(winerror, int) and not isinstance(winerror, bool):
            name = R.WINERROR.get(winerror)
    if name is not None:
        link.errno_name = name

    link.protocol.extend(protocol_codes(exc, display))

    for attr in R.SQLSTATE_ATTRIBUTES:
        value = safe_getattr(exc, attr)
        if isinstance(value, str) and len(value) == 5:
            link.sqlstate = value.upper()
            break

    if facts.retry_after is None:
        facts.retry_after = _retry_after_from_headers(headers)
        if facts.retry_after is None:
            facts.retry_after = parse_retry_after(safe_getattr(exc, "retry_after"))
        limited = link.status == 429 or (link.status == 403 and link.rate_limited)
        if facts.retry_after is None and headers is not None and limited:
            facts.retry_after = _reset_from_headers(headers)

    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ must not break detection
        log_swallowed("an exception's __str__", logging.DEBUG)
        message = ""
    if len(message) > R.WINDOW_CHARS:
        message = message[: R.WINDOW_CHARS]
    link.message = f"{qualname}: {message}" if message else qualname
    return link


def read_exception(exc: BaseException) -> ExceptionFacts:
    """Everything toolerr reads from an exception and its chain (``__cause__``,
    ``__context__``, ``reason``, exception arguments), bounded in depth and size."""
    facts = ExceptionFacts()
    seen: set[int] = set()
    queue: list[tuple[BaseException, int]] = [(exc, 0)]
    while queue and len(facts.links) < _MAX_LINKS:
        current, depth = queue.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        facts.links.append(_read_link(current, facts))
        if depth >= R.MAX_CHAIN_DEPTH:
            continue
        nexts: list[Any] = [safe_getattr(current, attr) for attr in R.CHAIN_ATTRIBUTES]
        args = safe_getattr(current, "args")
        if isinstance(args, tuple):
            nexts.extend(args[:4])
        for nxt in nexts:
            if isinstance(nxt, BaseException) and id(nxt) not in seen:
                queue.append((nxt, depth + 1))
    return facts


def exception_text(exception: BaseException) -> str:
    """``Type: message`` of an exception (just ``Type`` when the message is empty or its
    ``__str__`` raises): the text adapters show for a tool that raised."""
    try:
        message = str(exception)
    except Exception:  # noqa: BLE001 - a broken __str__
        log_swallowed("an exception's __str__", logging.DEBUG)
        message = ""
    name = type(exception).__name__
    return f"{name}: {message}" if message else name
