"""Exception objects: classes found by module and name (without importing the libraries),
attributes read defensively, chains followed with a bound."""

from __future__ import annotations

import asyncio
import errno
import json
import socket
import sqlite3
import subprocess
import urllib.error
from email.message import Message as EmailMessage
from typing import Any

import pytest
from toolerr import inspect_result
from toolerr._exceptions import class_name, lookup_name, parse_retry_after, read_exception


def fake(module: str, name: str, bases: tuple[type, ...] = (Exception,)) -> type[Exception]:
    """A class that looks like ``module.name`` of a library that is not installed."""
    cls = type(name, bases, {})
    cls.__module__ = module
    cls.__qualname__ = name
    return cls


class Response:
    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.status_code = status
        self.headers = headers or {}


# httpx: classes report __module__ == "httpx"
HttpxHTTPError = fake("httpx", "HTTPError")
HttpxTransportError = fake("httpx", "TransportError", (HttpxHTTPError,))
HttpxTimeoutException = fake("httpx", "TimeoutException", (HttpxTransportError,))
HttpxReadTimeout = fake("httpx", "ReadTimeout", (HttpxTimeoutException,))
HttpxConnectTimeout = fake("httpx", "ConnectTimeout", (HttpxTimeoutException,))
HttpxConnectError = fake("httpx", "ConnectError", (HttpxTransportError,))
HttpxHTTPStatusError = fake("httpx", "HTTPStatusError", (HttpxHTTPError,))
# requests / urllib3
RequestException = fake("requests.exceptions", "RequestException", (OSError,))
RequestsConnectionError = fake("requests.exceptions", "ConnectionError", (RequestException,))
RequestsHTTPError = fake("requests.exceptions", "HTTPError", (RequestException,))
RequestsSSLError = fake("requests.exceptions", "SSLError", (RequestsConnectionError,))
Urllib3HTTPError = fake("urllib3.exceptions", "HTTPError")
MaxRetryError = fake("urllib3.exceptions", "MaxRetryError", (Urllib3HTTPError,))
Urllib3ConnectTimeoutError = fake("urllib3.exceptions", "ConnectTimeoutError", (Urllib3HTTPError,))
NewConnectionError = fake("urllib3.exceptions", "NewConnectionError", (Urllib3ConnectTimeoutError,))
ProtocolError = fake("urllib3.exceptions", "ProtocolError", (Urllib3HTTPError,))
# aiohttp
ClientError = fake("aiohttp.client_exceptions", "ClientError")
ClientConnectorError = fake("aiohttp.client_exceptions", "ClientConnectorError", (ClientError,))
ClientResponseError = fake("aiohttp.client_exceptions", "ClientResponseError", (ClientError,))
ServerDisconnectedError = fake("aiohttp.client_exceptions", "ServerDisconnectedError", (ClientError,))
# openai / anthropic
OpenAIError = fake("openai", "APIError")
OpenAIStatusError = fake("openai", "APIStatusError", (OpenAIError,))
OpenAIRateLimitError = fake("openai", "RateLimitError", (OpenAIStatusError,))
OpenAIAuthenticationError = fake("openai", "AuthenticationError", (OpenAIStatusError,))
OpenAIBadRequestError = fake("openai", "BadRequestError", (OpenAIStatusError,))
OpenAINotFoundError = fake("openai", "NotFoundError", (OpenAIStatusError,))
AnthropicStatusError = fake("anthropic", "APIStatusError")
AnthropicRateLimitError = fake("anthropic", "RateLimitError", (AnthropicStatusError,))
AnthropicOverloadedError = fake("anthropic", "OverloadedError", (AnthropicStatusError,))
# botocore
BotoClientError = fake("botocore.exceptions", "ClientError")
BotoThrottling = fake("botocore.errorfactory", "ThrottlingException", (BotoClientError,))
EndpointConnectionError = fake("botocore.exceptions", "EndpointConnectionError")
# google-api-core and grpc
GoogleAPICallError = fake("google.api_core.exceptions", "GoogleAPICallError")
GoogleTooManyRequests = fake("google.api_core.exceptions", "TooManyRequests", (GoogleAPICallError,))
GoogleResourceExhausted = fake("google.api_core.exceptions", "ResourceExhausted", (GoogleTooManyRequests,))
GooglePermissionDenied = fake("google.api_core.exceptions", "PermissionDenied", (GoogleAPICallError,))
GoogleInvalidArgument = fake("google.api_core.exceptions", "InvalidArgument", (GoogleAPICallError,))
GrpcRpcError = fake("grpc", "RpcError")
GrpcInactiveRpcError = fake("grpc._channel", "_InactiveRpcError", (GrpcRpcError,))
# validation
PydanticValidationError = fake("pydantic_core._pydantic_core", "ValidationError", (ValueError,))
JsonschemaValidationError = fake("jsonschema.exceptions", "ValidationError")
# databases
PsycopgError = fake("psycopg", "Error")
PsycopgOperationalError = fake("psycopg.errors", "OperationalError", (PsycopgError,))
PsycopgSerializationFailure = fake("psycopg.errors", "SerializationFailure", (PsycopgError,))
Psycopg2Error = fake("psycopg2", "Error")
McpError = fake("mcp.shared.exceptions", "McpError")


class StatusCode:
    def __init__(self, name: str) -> None:
        self.name = name


def with_attrs(exc: BaseException, **attrs: Any) -> BaseException:
    for key, value in attrs.items():
        setattr(exc, key, value)
    return exc


CASES: list[tuple[str, BaseException, str, str | None, str | None]] = [
    # (id, exception, kind, rule, outcome)
    (
        "builtin PermissionError",
        PermissionError(13, "Permission denied"),
        "unrecoverable",
        "exception:PermissionError",
        None,
    ),
    ("builtin TimeoutError", TimeoutError(), "transient", "exception:TimeoutError", "unknown_outcome"),
    (
        "builtin ConnectionRefusedError",
        ConnectionRefusedError(),
        "transient",
        "exception:ConnectionRefusedError",
        "not_executed",
    ),
    (
        "builtin ConnectionResetError",
        ConnectionResetError(104, "reset"),
        "transient",
        "exception:ConnectionResetError",
        "unknown_outcome",
    ),
    (
        "builtin BrokenPipeError",
        BrokenPipeError(),
        "transient",
        "exception:BrokenPipeError",
        "unknown_outcome",
    ),
    ("builtin FileNotFoundError", FileNotFoundError(2, "No such file or directory"), "ambiguous", None, None),
    ("builtin KeyError", KeyError("Forbidden"), "ambiguous", None, None),
    ("builtin IndexError", IndexError("list index out of range"), "ambiguous", None, None),
    # Python's meaning of the class: a value passed that is wrong (issue 24's class prior)
    ("builtin ValueError", ValueError("boom"), "fixable", None, None),
    (
        "builtin TypeError on None",
        TypeError("'NoneType' object is not subscriptable"),
        "ambiguous",
        None,
        None,
    ),
    (
        "ValueError naming values",
        ValueError("Invalid unit 'kelvin'; expected one of: celsius, fahrenheit"),
        "fixable",
        "words:fixable:xpected one of",
        None,
    ),
    (
        "TypeError keyword",
        TypeError("send() got an unexpected keyword argument 'to'"),
        "fixable",
        "words:fixable:unexpected keyword argument",
        None,
    ),
    (
        "OSError EACCES",
        OSError(errno.EACCES, "Permission denied"),
        "unrecoverable",
        "exception:PermissionError",
        None,
    ),
    (
        "OSError EBUSY",
        OSError(errno.EBUSY, "Device or resource busy"),
        "transient",
        "errno:EBUSY",
        "not_executed",
    ),
    ("OSError EROFS", OSError(errno.EROFS, "Read-only file system"), "unrecoverable", "errno:EROFS", None),
    (
        "OSError ENOSPC",
        OSError(errno.ENOSPC, "No space left on device"),
        "unrecoverable",
        "errno:ENOSPC",
        None,
    ),
    ("socket.timeout", socket.timeout("timed out"), "transient", "exception:TimeoutError", "unknown_outcome"),  # noqa: UP041
    ("asyncio.TimeoutError", asyncio.TimeoutError(), "transient", None, "unknown_outcome"),
    ("subprocess.TimeoutExpired", subprocess.TimeoutExpired(["pytest"], 30), "ambiguous", None, None),
    ("subprocess.CalledProcessError", subprocess.CalledProcessError(1, ["make"]), "ambiguous", None, None),
    (
        "sqlite3 locked",
        sqlite3.OperationalError("database is locked"),
        "transient",
        "words:transient:database is locked",
        "not_executed",
    ),
    (
        "sqlite3 readonly",
        sqlite3.OperationalError("attempt to write a readonly database"),
        "unrecoverable",
        "words:unrecoverable:readonly database",
        None,
    ),
    # issue 11: a missing table is a name in the statement the caller wrote
    (
        "sqlite3 no table",
        sqlite3.OperationalError("no such table: users"),
        "fixable",
        "words:fixable:no such table:",
        None,
    ),
    ("json decode", json.JSONDecodeError("Expecting value", "", 0), "ambiguous", None, None),
    (
        "httpx.ReadTimeout",
        HttpxReadTimeout("timed out"),
        "transient",
        "exception:httpx.ReadTimeout",
        "unknown_outcome",
    ),
    (
        "httpx.ConnectTimeout",
        HttpxConnectTimeout("timed out"),
        "transient",
        "exception:httpx.ConnectTimeout",
        "not_executed",
    ),
    (
        "httpx.ConnectError",
        HttpxConnectError("[Errno 111] Connection refused"),
        "transient",
        "exception:httpx.ConnectError",
        "not_executed",
    ),
    (
        "httpx 503",
        with_attrs(HttpxHTTPStatusError("Server error '503 Service Unavailable'"), response=Response(503)),
        "transient",
        "http:503",
        "not_executed",
    ),
    (
        "httpx 403",
        with_attrs(HttpxHTTPStatusError("Client error '403 Forbidden'"), response=Response(403)),
        "unrecoverable",
        "http:403",
        None,
    ),
    (
        "httpx 404",
        with_attrs(HttpxHTTPStatusError("Client error '404 Not Found'"), response=Response(404)),
        "ambiguous",
        None,
        None,
    ),
    (
        "httpx 422",
        with_attrs(HttpxHTTPStatusError("Client error '422'"), response=Response(422)),
        "fixable",
        "http:422",
        None,
    ),
    (
        "requests HTTPError 500",
        with_attrs(RequestsHTTPError("500 Server Error"), response=Response(500)),
        "transient",
        "http:500",
        "unknown_outcome",
    ),
    ("requests SSLError", RequestsSSLError("certificate verify failed"), "ambiguous", None, None),
    (
        "requests ConnectionError(MaxRetryError(NewConnectionError))",
        RequestsConnectionError(
            with_attrs(
                MaxRetryError("HTTPConnectionPool(host='x', port=80): Max retries exceeded with url: /"),
                reason=NewConnectionError(
                    "Failed to establish a new connection: [Errno 111] Connection refused"
                ),
            )
        ),
        "transient",
        "exception:requests.exceptions.ConnectionError",
        "not_executed",
    ),
    (
        "requests ConnectionError aborted",
        RequestsConnectionError(
            "('Connection aborted.', RemoteDisconnected('Remote end closed connection'))"
        ),
        "transient",
        "exception:requests.exceptions.ConnectionError",
        "unknown_outcome",
    ),
    (
        "urllib3 ProtocolError",
        ProtocolError("('Connection aborted.', ...)"),
        "transient",
        "exception:urllib3.exceptions.ProtocolError",
        "unknown_outcome",
    ),
    (
        "aiohttp ClientConnectorError",
        ClientConnectorError("Cannot connect to host x:443"),
        "transient",
        "exception:aiohttp.client_exceptions.ClientConnectorError",
        "not_executed",
    ),
    (
        "aiohttp ServerDisconnectedError",
        ServerDisconnectedError("Server disconnected"),
        "transient",
        "exception:aiohttp.client_exceptions.ServerDisconnectedError",
        "unknown_outcome",
    ),
    (
        "aiohttp 429",
        with_attrs(ClientResponseError("429, message='Too Many Requests'"), status=429),
        "transient",
        "http:429",
        "not_executed",
    ),
    (
        "openai RateLimitError",
        with_attrs(OpenAIRateLimitError("Error code: 429 - rate limit"), status_code=429),
        "transient",
        "exception:openai.RateLimitError",
        "not_executed",
    ),
    (
        "openai RateLimitError quota",
        with_attrs(
            OpenAIRateLimitError("Error code: 429 - {'error': {'code': 'insufficient_quota'}}"),
            status_code=429,
        ),
        "unrecoverable",
        "trap:quota",
        None,
    ),
    (
        "openai AuthenticationError",
        with_attrs(OpenAIAuthenticationError("Incorrect API key provided"), status_code=401),
        "unrecoverable",
        "exception:openai.AuthenticationError",
        None,
    ),
    (
        "openai BadRequestError",
        with_attrs(OpenAIBadRequestError("Error code: 400"), status_code=400),
        "fixable",
        "exception:openai.BadRequestError",
        None,
    ),
    (
        "openai NotFoundError",
        with_attrs(OpenAINotFoundError("Error code: 404"), status_code=404),
        "ambiguous",
        None,
        None,
    ),
    (
        "openai APIStatusError 503",
        with_attrs(OpenAIStatusError("Error code: 503"), status_code=503),
        "transient",
        "http:503",
        "not_executed",
    ),
    (
        "anthropic RateLimitError",
        with_attrs(AnthropicRateLimitError("rate_limit_error"), status_code=429),
        "transient",
        "exception:anthropic.RateLimitError",
        "not_executed",
    ),
    (
        "anthropic credits",
        with_attrs(
            AnthropicStatusError("Your credit balance is too low to access the Anthropic API."),
            status_code=400,
        ),
        "unrecoverable",
        "trap:quota",
        None,
    ),
    (
        "anthropic OverloadedError",
        with_attrs(AnthropicOverloadedError("Overloaded"), status_code=529),
        "transient",
        "exception:anthropic.OverloadedError",
        "not_executed",
    ),
    (
        "botocore ThrottlingException",
        with_attrs(
            BotoThrottling("Rate exceeded"),
            response={
                "Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"},
                "ResponseMetadata": {"HTTPStatusCode": 400},
            },
        ),
        "transient",
        "aws:ThrottlingException",
        "not_executed",
    ),
    (
        "botocore AccessDenied",
        with_attrs(
            BotoClientError("Access Denied"),
            response={"Error": {"Code": "AccessDenied"}, "ResponseMetadata": {"HTTPStatusCode": 403}},
        ),
        "unrecoverable",
        "aws:AccessDenied",
        None,
    ),
    (
        "botocore unknown code with 400",
        with_attrs(
            BotoClientError("The conditional request failed"),
            response={
                "Error": {"Code": "ConditionalCheckFailedException"},
                "ResponseMetadata": {"HTTPStatusCode": 400},
            },
        ),
        "ambiguous",
        None,
        None,
    ),
    (
        "botocore EndpointConnectionError",
        EndpointConnectionError("Could not connect to the endpoint URL"),
        "transient",
        "exception:botocore.exceptions.EndpointConnectionError",
        "not_executed",
    ),
    (
        "google TooManyRequests",
        with_attrs(GoogleTooManyRequests("429 Too many"), code=429),
        "transient",
        "exception:google.api_core.exceptions.TooManyRequests",
        "not_executed",
    ),
    (
        "google ResourceExhausted daily quota",
        with_attrs(
            GoogleResourceExhausted("429 Quota exceeded for quota metric 'requests per day'"), code=429
        ),
        "unrecoverable",
        "trap:quota",
        None,
    ),
    (
        "google PermissionDenied",
        with_attrs(GooglePermissionDenied("403 caller lacks permission"), code=403),
        "unrecoverable",
        "exception:google.api_core.exceptions.PermissionDenied",
        None,
    ),
    (
        "google InvalidArgument",
        with_attrs(GoogleInvalidArgument("400 bad"), code=400),
        "fixable",
        "exception:google.api_core.exceptions.InvalidArgument",
        None,
    ),
    (
        "grpc UNAVAILABLE",
        with_attrs(GrpcInactiveRpcError("rpc"), code=lambda: StatusCode("UNAVAILABLE")),
        "transient",
        "grpc:UNAVAILABLE",
        "not_executed",  # issue 11: UNAVAILABLE is turned away (the server took no call)
    ),
    (
        "grpc PERMISSION_DENIED",
        with_attrs(GrpcInactiveRpcError("rpc"), code=lambda: StatusCode("PERMISSION_DENIED")),
        "unrecoverable",
        "grpc:PERMISSION_DENIED",
        None,
    ),
    (
        "pydantic ValidationError",
        PydanticValidationError("1 validation error for X"),
        "fixable",
        "exception:pydantic_core._pydantic_core.ValidationError",
        None,
    ),
    (
        "jsonschema ValidationError",
        JsonschemaValidationError("'x' is a required property"),
        "fixable",
        "exception:jsonschema.exceptions.ValidationError",
        None,
    ),
    (
        "psycopg SerializationFailure",
        PsycopgSerializationFailure("could not serialize access"),
        "transient",
        "exception:psycopg.errors.SerializationFailure",
        "not_executed",
    ),
    (
        "psycopg sqlstate 40P01",
        with_attrs(PsycopgOperationalError("deadlock"), sqlstate="40P01"),
        "transient",
        "sqlstate:40P01",
        "not_executed",
    ),
    (
        "psycopg2 pgcode 42501",
        with_attrs(Psycopg2Error("permission denied for table t"), pgcode="42501"),
        "unrecoverable",
        "sqlstate:42501",
        None,
    ),
    (
        "mcp McpError -32602",
        with_attrs(McpError("Invalid params"), error={"code": -32602, "message": "Invalid params"}),
        "fixable",
        "jsonrpc:-32602",
        None,
    ),
    (
        "node-style code",
        with_attrs(Exception("connect failed"), code="ECONNREFUSED"),
        "transient",
        "errno:ECONNREFUSED",
        "not_executed",
    ),
]


@pytest.mark.parametrize(("name", "exc", "kind", "rule", "outcome"), CASES, ids=[c[0] for c in CASES])
def test_exception_classification(
    name: str, exc: BaseException, kind: str, rule: str | None, outcome: str | None
) -> None:
    verdict = inspect_result("the tool failed", exception=exc)
    assert verdict.failed and verdict.detection == "exception"
    assert verdict.kind == kind
    if rule is not None:
        assert verdict.rule == rule
    assert verdict.outcome == outcome


def test_real_urllib_http_error_with_retry_after() -> None:
    headers = EmailMessage()
    headers["Retry-After"] = "12"
    exc = urllib.error.HTTPError("https://x", 429, "Too Many Requests", headers, None)
    verdict = inspect_result("HTTP Error 429: Too Many Requests", exception=exc)
    assert (verdict.kind, verdict.status, verdict.retry_after) == ("transient", 429, 12.0)


def _urllib_error_over_a_socket_pair(
    head: bytes, body: bytes
) -> tuple[urllib.error.HTTPError, socket.socket]:
    """A real urllib HTTPError around a real http.client.HTTPResponse, read from one end of a
    Unix socket pair (what urlopen raises, without a network)."""
    import http.client

    ours, theirs = socket.socketpair()
    ours.settimeout(5.0)
    theirs.sendall(head + body)
    resp = http.client.HTTPResponse(ours, method="GET")
    resp.begin()
    exc = urllib.error.HTTPError("https://x", resp.status, resp.reason, resp.msg, resp)  # type: ignore[arg-type]
    return exc, ours, theirs


def test_urllib_http_error_body_is_peeked_not_consumed() -> None:
    body = json.dumps({"error": {"message": "You exceeded your current quota", "code": "insufficient_quota"}})
    head = f"HTTP/1.1 429 Too Many Requests\r\nContent-Length: {len(body)}\r\n\r\n".encode()
    exc, ours, peer = _urllib_error_over_a_socket_pair(head, body.encode())
    try:
        verdict = inspect_result("HTTP Error 429: Too Many Requests", exception=exc)
        assert (verdict.kind, verdict.status) == ("unrecoverable", 429)
        assert exc.read() == body.encode()  # the caller still reads all of it
    finally:
        for closable in (exc, ours, peer):
            closable.close()


def test_urllib_http_error_body_not_arrived_is_not_waited_for() -> None:
    import time

    head = b"HTTP/1.1 429 Too Many Requests\r\nContent-Length: 40\r\n\r\n"
    exc, ours, peer = _urllib_error_over_a_socket_pair(head, b"")
    try:
        started = time.perf_counter()
        verdict = inspect_result("HTTP Error 429: Too Many Requests", exception=exc)
        # not a speed figure: it did not block until the socket's own 5 s timeout
        assert time.perf_counter() - started < 2.5
        assert ours.gettimeout() == 5.0  # restored after the non-blocking peek
        assert (verdict.kind, verdict.status) == ("transient", 429)  # what the status says
        peer.sendall(b'{"error": {"code": "rate_limit_exceeded"}}'[:40])
        assert len(exc.read()) == 40  # the socket is as it was (blocking, nothing consumed)
    finally:
        for closable in (exc, ours, peer):
            closable.close()


def test_retry_after_headers_and_dates() -> None:
    exc = with_attrs(HttpxHTTPStatusError("x"), response=Response(503, {"retry-after-ms": "2500"}))
    assert inspect_result("", exception=exc).retry_after == 2.5
    exc = with_attrs(
        OpenAIRateLimitError("x"), status_code=429, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}
    )
    assert inspect_result("", exception=exc).retry_after == 0.0  # a date in the past
    exc = with_attrs(Exception("slow down"), retry_after=3)
    assert inspect_result("", exception=exc).retry_after == 3.0
    assert parse_retry_after("soon") is None
    assert parse_retry_after(float("nan")) is None
    assert parse_retry_after(True) is None


def test_status_from_attributes() -> None:
    exc = with_attrs(HttpxHTTPStatusError("x"), response=Response(502))
    assert inspect_result("", exception=exc).status == 502
    exc = with_attrs(GrpcInactiveRpcError("x"), code=lambda: StatusCode("DEADLINE_EXCEEDED"))
    assert inspect_result("", exception=exc).status == "DEADLINE_EXCEEDED"


def test_chain_is_followed() -> None:
    try:
        try:
            raise ConnectionResetError(104, "Connection reset by peer")
        except OSError as inner:
            raise RuntimeError("tool failed") from inner
    except RuntimeError as outer:
        verdict = inspect_result("tool failed", exception=outer)
    assert (verdict.kind, verdict.outcome) == ("transient", "unknown_outcome")


def test_chain_cycles_and_depth_are_bounded() -> None:
    a, b = RuntimeError("a"), RuntimeError("b")
    a.__context__, b.__context__ = b, a
    assert inspect_result("x", exception=a).kind == "ambiguous"
    top: BaseException = RuntimeError("top")
    current = top
    for i in range(1000):
        nxt = RuntimeError(str(i))
        current.__cause__ = nxt
        current = nxt
    current.__cause__ = TimeoutError()  # far too deep to be read
    facts = read_exception(top)
    assert len(facts.links) <= 12
    assert inspect_result("x", exception=top).kind == "ambiguous"


def test_hostile_exception_never_breaks_detection() -> None:
    class Hostile(Exception):
        @property
        def status_code(self) -> int:
            raise RuntimeError("no")

        @property
        def response(self) -> Any:
            raise RuntimeError("no")

        @property
        def errno(self) -> Any:  # type: ignore[override]
            raise RuntimeError("no")

        def __str__(self) -> str:
            raise RuntimeError("no")

    class BadHeaders:
        def get(self, key: str) -> Any:
            raise RuntimeError(key)

    verdict = inspect_result("x", exception=Hostile())
    assert verdict.failed and verdict.kind == "ambiguous"
    exc = with_attrs(HttpxHTTPStatusError("x"), response=Response(503), headers=BadHeaders())
    assert inspect_result("x", exception=exc).kind == "transient"
    weird = fake("", "")("?")
    assert inspect_result("x", exception=weird).failed


def test_exception_beats_the_text() -> None:
    # the exception is the strongest evidence: the text alone would say nothing
    assert inspect_result("The weather is nice", exception=TimeoutError()).kind == "transient"
    # a KeyError is a bug in the tool whatever its key says
    assert inspect_result("Error: 403 Forbidden", exception=KeyError("x")).kind == "ambiguous"


def test_class_names_and_lookup() -> None:
    assert class_name(HttpxReadTimeout) == ("httpx", "ReadTimeout", "httpx.ReadTimeout")
    assert class_name(TimeoutError) == ("builtins", "TimeoutError", "TimeoutError")
    assert lookup_name("httpx.ReadTimeout") is not None
    assert lookup_name("requests.exceptions.ConnectionError") is not None
    assert lookup_name("openai.error.RateLimitError") is not None  # old module layout
    assert lookup_name("TimeoutError") is not None
    assert lookup_name("Timeout") is None  # a bare ending is not an exception name
    assert lookup_name("mylib.Widget") is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Error executing tool grep: bad character range z-a at position 1", "fixable"),
        ("Error executing tool parse_xml: unbound prefix: line 1, column 0", "fixable"),
        ("Error executing tool run_sql: Expecting ). Line 1, Col: 19.", "fixable"),
        ('Error: expected a mapping\n  in "config.yaml", line 3, column 1', "ambiguous"),
        ("Error executing tool call_api: Expecting value: line 1 column 1 (char 0)", "ambiguous"),
        ("ValueError: the number of columns changed from 3 to 2", "fixable"),
        ("Error: ValueError('shapes (2,3) and (4,) not aligned')\n Please fix your mistakes.", "fixable"),
    ],
)
def test_parse_positions_and_value_classes_in_texts(text: str, kind: str) -> None:
    assert inspect_result(text, is_error=True).kind == kind


def test_a_missing_module_and_memory_are_state_not_arguments() -> None:
    with pytest.raises(ImportError) as info:
        __import__("toolerr_no_such_module_anywhere")
    verdict = inspect_result("x", exception=info.value)
    assert (verdict.kind, verdict.family) == ("unrecoverable", "missing_dependency")
    assert inspect_result("x", exception=MemoryError()).kind == "unrecoverable"
    text = "Error executing tool render: ModuleNotFoundError: No module named 'lark'"
    assert inspect_result(text, is_error=True).kind == "unrecoverable"


def test_a_stated_retry_delay_is_transient_where_nothing_else_decides() -> None:
    verdict = inspect_result("RetryAfter: Flood control exceeded. Retry in 35 seconds", is_error=True)
    assert (verdict.kind, verdict.outcome, verdict.retry_after) == ("transient", "not_executed", 35.0)


def test_in_a_python_trace_the_exception_raised_decides_not_one_handled_on_the_way() -> None:
    head = 'Traceback (most recent call last):\n  File "tool.py", line 1, in <module>\n    f()\n'
    handled = (
        f"{head}ValueError: bad\n\nDuring handling of the above exception, another exception occurred:\n\n"
    )
    assert inspect_result(handled + f"{head}RuntimeError: upload failed", is_error=True).kind == "ambiguous"
    assert inspect_result(f"{head}ValueError: magic number off", is_error=True).kind == "fixable"
