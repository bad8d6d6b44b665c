"""Local servers on 127.0.0.1 that answer the error responses real services send.

``HttpServer`` answers ``/s/<route>/...`` with the scenario's status, headers and body
(:data:`SCENARIOS`), hangs on ``hang`` (for read timeouts), resets the connection on
``reset`` (RST after the request was read) and closes without answering on ``close``.
``GrpcServer`` aborts ``/toolerr.Test/<CODE>`` with that gRPC status (``SLOW`` sleeps past
the client's deadline). ``refused_port`` is a port nobody listens on. Nothing leaves the
machine: every address is 127.0.0.1.

A scenario's URL carries an opaque route (:func:`route`), never its name: the URL a client
prints in its message (``... for url 'http://127.0.0.1:PORT/s/<route>'``) must not tell the
classifier the cause the case was labelled with (``/s/oai_insufficient_quota`` did).
"""

from __future__ import annotations

import hashlib
import json
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple


class Scenario(NamedTuple):
    status: int
    body: Any  # dict (sent as JSON) or str
    headers: dict[str, str] = {}  # noqa: RUF012 - never mutated
    source: str = ""


def _openai(message: str, type_: str, code: str | None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def _anthropic(type_: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": type_, "message": message}}


def _google(code: int, status: str, message: str, reason: str | None = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message, "status": status}
    if reason:
        err["details"] = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason}]
    return {"error": err}


def _aws_json(code: str, message: str) -> dict[str, Any]:
    return {"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": message}


_OAI = "OpenAI API error codes guide (platform.openai.com/docs/guides/error-codes)"
_ANT = "Anthropic API errors (docs.anthropic.com/en/api/errors)"
_GOO = "Google Cloud API error model (cloud.google.com/apis/design/errors)"
_AWS = "AWS DynamoDB / common error codes (docs.aws.amazon.com)"

SCENARIOS: dict[str, Scenario] = {
    # --- OpenAI ---
    "oai_rate_limit": Scenario(
        429,
        _openai(
            "Rate limit reached for gpt-4o-mini in organization org-abc on requests per min (RPM): "
            "Limit 3, Used 3, Requested 1. Please try again in 20s.",
            "requests",
            "rate_limit_exceeded",
        ),
        {"retry-after": "20", "x-ratelimit-remaining-requests": "0"},
        _OAI,
    ),
    "oai_tokens_rate_limit": Scenario(
        429,
        _openai(
            "Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): "
            "Limit 30000, Used 29800, Requested 900. Please try again in 1.4s.",
            "tokens",
            "rate_limit_exceeded",
        ),
        {"retry-after-ms": "1400"},
        _OAI,
    ),
    "oai_insufficient_quota": Scenario(
        429,
        _openai(
            "You exceeded your current quota, please check your plan and billing details. For more "
            "information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
            "insufficient_quota",
            "insufficient_quota",
        ),
        {},
        _OAI,
    ),
    "oai_billing_hard_limit": Scenario(
        400,
        _openai("Billing hard limit has been reached", "invalid_request_error", "billing_hard_limit_reached"),
        {},
        _OAI,
    ),
    "oai_invalid_api_key": Scenario(
        401,
        _openai(
            "Incorrect API key provided: sk-test. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            "invalid_api_key",
        ),
        {},
        _OAI,
    ),
    "oai_no_org": Scenario(
        401,
        _openai(
            "You must be a member of an organization to use the API. Please contact us through our "
            "help center at help.openai.com.",
            "invalid_request_error",
            "no_organization",
        ),
        {},
        _OAI,
    ),
    "oai_org_disabled": Scenario(
        403,
        _openai("This organization has been disabled.", "invalid_request_error", "organization_deactivated"),
        {},
        _OAI,
    ),
    "oai_region": Scenario(
        403,
        _openai(
            "Country, region, or territory not supported",
            "request_forbidden",
            "unsupported_country_region_territory",
        ),
        {},
        _OAI,
    ),
    "oai_model_access": Scenario(
        403,
        _openai(
            "Project `proj_abc` does not have access to model `gpt-4o`",
            "invalid_request_error",
            "model_not_found",
        ),
        {},
        _OAI,
    ),
    "oai_bad_param": Scenario(
        400,
        _openai(
            "Invalid value for 'temperature': expected a number between 0 and 2, got 5.",
            "invalid_request_error",
            "invalid_value",
            "temperature",
        ),
        {},
        _OAI,
    ),
    "oai_context_length": Scenario(
        400,
        _openai(
            "This model's maximum context length is 128000 tokens. However, your messages resulted in "
            "130412 tokens. Please reduce the length of the messages.",
            "invalid_request_error",
            "context_length_exceeded",
            "messages",
        ),
        {},
        _OAI,
    ),
    "oai_server_error": Scenario(
        500,
        _openai(
            "The server had an error while processing your request. Sorry about that!", "server_error", None
        ),
        {},
        _OAI,
    ),
    "oai_overloaded": Scenario(
        503,
        _openai("The engine is currently overloaded, please try again later.", "server_error", None),
        {},
        _OAI,
    ),
    # --- Anthropic ---
    "ant_overloaded": Scenario(529, _anthropic("overloaded_error", "Overloaded"), {}, _ANT),
    "ant_rate_limit": Scenario(
        429,
        _anthropic(
            "rate_limit_error",
            "This request would exceed the rate limit for your organization of 50 requests per minute.",
        ),
        {"retry-after": "12"},
        _ANT,
    ),
    "ant_auth": Scenario(401, _anthropic("authentication_error", "invalid x-api-key"), {}, _ANT),
    "ant_permission": Scenario(
        403,
        _anthropic(
            "permission_error", "Your API key does not have permission to use the specified resource."
        ),
        {},
        _ANT,
    ),
    "ant_credit": Scenario(
        400,
        _anthropic(
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing "
            "to upgrade or purchase credits.",
        ),
        {},
        _ANT,
    ),
    "ant_spend_limit": Scenario(
        400,
        _anthropic(
            "invalid_request_error",
            "You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.",
        ),
        {},
        _ANT,
    ),
    "ant_bad_request": Scenario(
        400, _anthropic("invalid_request_error", "max_tokens: Field required"), {}, _ANT
    ),
    "ant_too_large": Scenario(
        413, _anthropic("request_too_large", "Request exceeds the maximum allowed number of bytes."), {}, _ANT
    ),
    "ant_not_found": Scenario(404, _anthropic("not_found_error", "model: claude-9"), {}, _ANT),
    "ant_api_error": Scenario(500, _anthropic("api_error", "Internal server error"), {}, _ANT),
    # --- Google APIs (JSON error model) ---
    "goo_quota_day": Scenario(
        429,
        _google(
            429,
            "RESOURCE_EXHAUSTED",
            "Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service "
            "'translate.googleapis.com' for consumer 'project_number:123'.",
            "RATE_LIMIT_EXCEEDED",
        ),
        {},
        _GOO,
    ),
    "goo_rate": Scenario(
        429,
        _google(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", None),
        {},
        _GOO,
    ),
    "goo_billing": Scenario(
        403,
        _google(
            403,
            "PERMISSION_DENIED",
            "This API method requires billing to be enabled. Please enable billing on project #123.",
            "BILLING_DISABLED",
        ),
        {},
        _GOO,
    ),
    "goo_api_key": Scenario(
        400,
        _google(
            400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", "API_KEY_INVALID"
        ),
        {},
        _GOO,
    ),
    "goo_invalid": Scenario(
        400,
        _google(
            400,
            "INVALID_ARGUMENT",
            "Invalid value at 'start_time' (type.googleapis.com/google.protobuf.Timestamp)",
        ),
        {},
        _GOO,
    ),
    "goo_unauth": Scenario(
        401, _google(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."), {}, _GOO
    ),
    "goo_not_found": Scenario(404, _google(404, "NOT_FOUND", "Requested entity was not found."), {}, _GOO),
    "goo_unavailable": Scenario(
        503, _google(503, "UNAVAILABLE", "The service is currently unavailable."), {}, _GOO
    ),
    "goo_internal": Scenario(500, _google(500, "INTERNAL", "Internal error encountered."), {}, _GOO),
    "goo_deadline": Scenario(
        504, _google(504, "DEADLINE_EXCEEDED", "Deadline expired before operation could complete."), {}, _GOO
    ),
    # --- plain REST services ---
    "rest_400": Scenario(
        400, {"error": "invalid date format: '2024-13-45', expected YYYY-MM-DD"}, {}, "generic REST API"
    ),
    "rest_401": Scenario(401, {"message": "Bad credentials"}, {}, "GitHub REST API"),
    "rest_403": Scenario(403, {"message": "Resource not accessible by integration"}, {}, "GitHub REST API"),
    "rest_github_rate": Scenario(
        403,
        {
            "message": "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit.)"
        },
        {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1700000000"},
        "GitHub REST API primary rate limit (403 with x-ratelimit-remaining: 0)",
    ),
    "rest_404": Scenario(404, {"message": "Not Found"}, {}, "GitHub REST API"),
    "rest_408": Scenario(408, "Request Timeout", {}, "RFC 9110"),
    "rest_409": Scenario(409, {"error": "conflict: resource was modified"}, {}, "generic REST API"),
    "rest_422": Scenario(
        422,
        {"detail": [{"type": "missing", "loc": ["body", "city"], "msg": "Field required", "input": {}}]},
        {},
        "FastAPI request validation",
    ),
    "rest_429": Scenario(429, {"error": "Too many requests, slow down"}, {"retry-after": "3"}, "RFC 6585"),
    "rest_429_quota": Scenario(
        429,
        {
            "error": {
                "code": "insufficient_quota",
                "message": "You exceeded your current quota, please check your plan and billing details.",
            }
        },
        {},
        "OpenAI-compatible API through a plain HTTP client",
    ),
    "rest_500": Scenario(500, "Internal Server Error", {}, "RFC 9110"),
    "rest_502": Scenario(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", {}, "nginx"),
    "rest_503": Scenario(503, "Service Unavailable", {"retry-after": "5"}, "RFC 9110"),
    "rest_504": Scenario(504, "<html><body><h1>504 Gateway Time-out</h1></body></html>", {}, "nginx"),
    "rest_html": Scenario(200, "<html><body>Welcome</body></html>", {}, "a page where JSON was expected"),
    # --- AWS JSON protocol (DynamoDB) ---
    **{
        f"aws_{code}": Scenario(status, _aws_json(code, message), {"x-amzn-ErrorType": code}, _AWS)
        for code, status, message in [
            ("ThrottlingException", 400, "Rate of requests exceeds the allowed throughput."),
            (
                "ProvisionedThroughputExceededException",
                400,
                "The level of configured provisioned throughput for the table was exceeded.",
            ),
            ("ResourceNotFoundException", 400, "Requested resource not found: Table: orders not found"),
            (
                "ValidationException",
                400,
                "1 validation error detected: Value null at 'tableName' failed to satisfy constraint",
            ),
            (
                "AccessDeniedException",
                400,
                "User: arn:aws:iam::123:user/bot is not authorized to perform: dynamodb:GetItem",
            ),
            ("UnrecognizedClientException", 400, "The security token included in the request is invalid."),
            ("ExpiredTokenException", 400, "The security token included in the request is expired"),
            ("ConditionalCheckFailedException", 400, "The conditional request failed"),
            (
                "RequestLimitExceeded",
                400,
                "Throughput exceeds the current throughput limit for your account.",
            ),
            ("InternalServerError", 500, "Internal server error"),
            ("ServiceUnavailable", 503, "Service Unavailable"),
        ]
    },
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        parts = self.path.split("/")
        name = _BY_ROUTE.get(parts[2], "") if len(parts) > 2 and parts[1] == "s" else ""
        if name == "hang":
            time.sleep(3.0)
            return
        if name == "reset":
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
            return
        if name == "close":
            self.close_connection = True
            return
        scenario = SCENARIOS.get(name)
        if scenario is None:
            scenario = Scenario(404, {"message": "Not Found"})
        if isinstance(scenario.body, str):
            body = scenario.body.encode()
            ctype = "text/html" if scenario.body.startswith("<") else "text/plain"
        else:
            body = json.dumps(scenario.body).encode()
            ctype = "application/x-amz-json-1.0" if name.startswith("aws_") else "application/json"
        self.send_response(scenario.status)
        if self.close_connection:  # the client asked for it: say so, as a real server does
            self.send_header("connection", "close")
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        for key, value in scenario.headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    do_GET = _answer
    do_POST = _answer
    do_PUT = _answer


_SPECIAL = ("hang", "reset", "close")


def route(name: str) -> str:
    """The opaque path segment the server answers as scenario ``name``."""
    return "c" + hashlib.sha256(name.encode()).hexdigest()[:10]


_BY_ROUTE: dict[str, str] = {route(name): name for name in (*_SPECIAL, *SCENARIOS)}


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up (the timeouts and resets are the point)


@contextmanager
def http_server() -> Iterator[int]:
    server = _QuietServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def refused_port() -> int:
    """A loopback port that was just free: connecting to it is refused (another server may be
    given it later: :func:`held_refused_port` keeps it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@contextmanager
def held_refused_port(avoid: frozenset[int] | set[int] = frozenset()) -> Iterator[int]:
    """A loopback port that refuses connections for as long as the block runs: bound and not
    listening (Linux answers a SYN with a reset), so no server started meanwhile is given it.
    Never a number in ``avoid``."""
    held: list[socket.socket] = []
    try:
        while True:
            s = socket.socket()
            held.append(s)
            s.bind(("127.0.0.1", 0))
            port: int = s.getsockname()[1]
            if port not in avoid:
                break
        for other in held[:-1]:
            other.close()
        yield port
    finally:
        for s in held:
            s.close()


# What real Google services put in the details of each status (their error model guide).
GRPC_DETAILS: dict[str, str] = {
    "UNAVAILABLE": "backend unavailable",
    "RESOURCE_EXHAUSTED": "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute'",
    "PERMISSION_DENIED": "The caller does not have permission",
    "UNAUTHENTICATED": "Request had invalid authentication credentials.",
    "INVALID_ARGUMENT": "Invalid value at 'page_size' (TYPE_INT32), \"ten\"",
    "NOT_FOUND": "Requested entity was not found.",
    "ALREADY_EXISTS": "Requested entity already exists",
    "INTERNAL": "Internal error encountered.",
    "OUT_OF_RANGE": "Offset 900 is out of range [0, 100)",
    "UNIMPLEMENTED": "Method not implemented.",
    "ABORTED": "Transaction was aborted.",
}


@contextmanager
def grpc_server() -> Iterator[int]:
    from concurrent.futures import ThreadPoolExecutor

    import grpc

    def handler(request: bytes, context: Any) -> bytes:
        method = context._rpc_event.call_details.method.decode()  # "/toolerr.Test/<CODE>"
        code = method.rsplit("/", 1)[1]
        if code == "SLOW":
            time.sleep(1.0)
            return b""
        context.abort(grpc.StatusCode[code], GRPC_DETAILS.get(code, code.lower()))
        return b""

    class Generic(grpc.GenericRpcHandler):
        def service(self, handler_call_details: Any) -> Any:
            return grpc.unary_unary_rpc_method_handler(handler)

    server = grpc.server(ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((Generic(),))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield port
    finally:
        server.stop(0)
