"""Markers (texts that announce a structured code) and the text shapes read around them."""

from __future__ import annotations

from ._base import Marker

# ---------------------------------------------------------------------------------------------
# Markers: texts that announce a structured code, parsed where they are found.
# ---------------------------------------------------------------------------------------------

_UNIT = r"(?P<unit>ms|milliseconds?|s\b|secs?\b|seconds?|m\b|mins?\b|minutes?)"
_NUM_SEP = r"[\"']?[ \t]*[:=#]?[ \t]*[\"']?"
MARKERS: tuple[Marker, ...] = (
    Marker(
        ", b'",
        "reply",
        r"\((?P<code>[245]\d\d), b['\"][245]\.\d{1,3}\.\d{1,3}\b",
        4,
        "smtplib's reply tuples with an enhanced status code (RFC 3463): \"(451, b'4.3.0 ...')\"",
    ),
    Marker(
        "returned error: ",
        "http",
        r"returned error: (?P<code>[1-5]\d\d)\b",
        0,
        "curl and git over HTTP 'The requested URL returned error: 403'",
    ),
    Marker(
        "error responses",
        "http",
        r"too many (?P<code>[1-5]\d\d) error responses",
        len("too many 429 "),
        "urllib3 ResponseError in MaxRetryError ('too many 429 error responses')",
    ),
    Marker(
        "HTTP",
        "http",
        r"HTTP(?:/\d(?:\.\d)?)?[ \t]*(?:[Ee]rror|[Ss]tatus(?:[ _-]?[Cc]ode)?|[Cc]ode)?"
        r"[ \t:=#]*(?P<code>[1-5]\d\d)\b",
        0,
        "urllib 'HTTP Error 503', 'HTTP 429', 'HTTP/1.1 502', 'HTTPError: 404'",
    ),
    Marker(
        "tatus",
        "http",
        r"[Ss]tatus(?:[ _-]?[Cc]ode)?" + _NUM_SEP + r"(?P<code>[1-5]\d\d)\b",
        1,
        "'status code 502', 'status_code=503', '\"status\": 503', 'statusCode: 429'",
    ),
    Marker(
        "tatus",
        "grpc",
        r"[Ss]tatus[\"']?[ \t]*[:=][ \t]*[\"']?(?P<code>[A-Z][A-Z_]{3,})\b",
        1,
        'Google JSON errors \'"status": "RESOURCE_EXHAUSTED"\'',
    ),
    Marker(
        "rror code",
        "http",
        r"[Ee]rror[ _]code" + _NUM_SEP + r"(?P<code>[1-5]\d\d)\b",
        1,
        "openai/anthropic 'Error code: 429 - {...}'",
    ),
    Marker(
        "rror code",
        "jsonrpc",
        r"[Ee]rror[ _]code" + _NUM_SEP + r"(?P<code>-32\d\d\d)\b",
        1,
        "JSON-RPC 'error code -32602'",
    ),
    Marker(
        'code"', "http", r"code\"[ \t]*:[ \t]*(?P<code>[1-5]\d\d)\b", 0, "JSON error bodies '\"code\": 429'"
    ),
    Marker(
        "code'", "http", r"code'[ \t]*:[ \t]*(?P<code>[1-5]\d\d)\b", 0, "Python dict reprs \"'code': 429\""
    ),
    Marker('code"', "jsonrpc", r"code\"[ \t]*:[ \t]*(?P<code>-32\d\d\d)\b", 0, "JSON-RPC error objects"),
    Marker(
        "code'",
        "jsonrpc",
        r"code'[ \t]*:[ \t]*(?P<code>-32\d\d\d)\b",
        0,
        "JSON-RPC error objects (dict repr)",
    ),
    Marker(
        "Client Error",
        "http",
        r"(?P<code>4\d\d) Client Error",
        4,
        "requests raise_for_status '404 Client Error: ...'",
    ),
    Marker(
        "Server Error",
        "http",
        r"(?P<code>5\d\d) Server Error",
        4,
        "requests raise_for_status '503 Server Error: ...'",
    ),
    Marker("lient error '", "http", r"[Cc]lient error '(?P<code>4\d\d)", 1, "httpx raise_for_status"),
    Marker("erver error '", "http", r"[Ss]erver error '(?P<code>5\d\d)", 1, "httpx raise_for_status"),
    Marker("StatusCode.", "grpc", r"StatusCode\.(?P<code>[A-Z_]+)", 0, "grpc Python StatusCode enum"),
    Marker(
        "code = ",
        "grpc",
        r"code = (?P<code>[A-Za-z_]+)",
        0,
        "grpc-go 'rpc error: code = Unavailable desc = ...'",
    ),
    Marker("MCP error ", "jsonrpc", r"MCP error (?P<code>-32\d\d\d)\b", 0, "MCP TypeScript SDK McpError"),
    Marker(
        "SQLSTATE",
        "sqlstate",
        r"SQLSTATE[ \t\[:=\"']*(?P<code>[0-9A-Z]{5})\b",
        0,
        "'SQLSTATE 40001', 'SQLSTATE[40001]'",
    ),
    Marker(
        "sqlstate",
        "sqlstate",
        r"sqlstate[\"']?[ \t]*[:=][ \t]*[\"']?(?P<code>[0-9A-Z]{5})\b",
        0,
        "'sqlstate: 40P01'",
    ),
    Marker(
        "err_code=",
        "nats",
        r"err_code=(?P<code>1\d{4})\b",
        0,
        "nats-py APIError 'nats: BadRequestError: code=400 err_code=10058 description=...'",
    ),
    Marker("[Errno ", "errno_number", r"\[Errno (?P<code>-?\d+)\]", 0, "Python OSError string form"),
    Marker("[WinError ", "winerror", r"\[WinError (?P<code>\d+)\]", 0, "Python OSError on Windows"),
    Marker(
        "An error occurred (",
        "aws",
        r"An error occurred \((?P<code>\w+)\)",
        0,
        "botocore ClientError message",
    ),
    # Retry-After, in seconds unless a unit says otherwise; group ``code`` is the number.
    Marker(
        "etry-after",
        "retry_after",
        r"[Rr]etry-[Aa]fter(?P<ms>-[Mm]s)?[\"']?[ \t]*[:=]?[ \t]*[\"']?(?P<code>\d+(?:\.\d+)?)",
        1,
        "Retry-After / retry-after-ms headers",
    ),
    Marker(
        "etry-After",
        "retry_after",
        r"[Rr]etry-After(?P<ms>-[Mm]s)?[\"']?[ \t]*[:=]?[ \t]*[\"']?(?P<code>\d+(?:\.\d+)?)",
        1,
        "Retry-After header",
    ),
    Marker(
        "etry after",
        "retry_after",
        r"[Rr]etry after[ \t:]*(?P<code>\d+(?:\.\d+)?)[ \t]*" + _UNIT + "?",
        1,
        "'retry after 3s'",
    ),
    Marker(
        "etry_after",
        "retry_after",
        r"[Rr]etry_after[\"']?[ \t]*[:=][ \t]*(?P<code>\d+(?:\.\d+)?)",
        1,
        "'retry_after': 3 (Slack, Telegram, Discord bodies)",
    ),
    Marker(
        "etryAfter",
        "retry_after",
        r"[Rr]etryAfter[\"']?[ \t]*[:=][ \t]*(?P<code>\d+(?:\.\d+)?)",
        1,
        "'retryAfter': 3 (JavaScript API bodies)",
    ),
    Marker(
        "etryDelay",
        "retry_after",
        r"[Rr]etryDelay[\"']?[ \t]*[:=][ \t]*[\"']?(?P<code>\d+(?:\.\d+)?)s",
        1,
        "gRPC google.rpc.RetryInfo in JSON: 'retryDelay': '7s' (the Gemini API's 429 body)",
    ),
    Marker(
        "retry_delay {",
        "retry_after",
        r"retry_delay \{\s*seconds: (?P<code>\d+)",
        0,
        "gRPC google.rpc.RetryInfo in protobuf text: 'retry_delay {\\n  seconds: 7' "
        "(google-api-core's str(exc) lists the error details)",
    ),
    Marker(
        "ry again in ",
        "retry_after",
        r"[Tt]ry again in (?P<code>\d+(?:\.\d+)?)[ \t]*"
        r"(?P<unit>ms|milliseconds?|s\b|secs?\b|seconds?|m(?=\d)|m\b|mins?\b|minutes?)"
        r"(?:(?P<code2>\d+(?:\.\d+)?)s)?",
        1,
        "OpenAI 'Please try again in 1.5s' / 'in 6ms' / 'in 1m30s'",
    ),
    Marker(
        "etry in ",
        "retry_after",
        r"[Rr]etry in (?P<code>\d+(?:\.\d+)?)[ \t]*" + _UNIT,
        1,
        "'retry in 20 seconds'",
    ),
)
RETRY_UNITS: dict[str, float] = {
    "": 1.0,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "ms": 0.001,
    "millisecond": 0.001,
    "milliseconds": 0.001,
    "m": 60.0,
    "min": 60.0,
    "mins": 60.0,
    "minute": 60.0,
    "minutes": 60.0,
}

# A status at the very start of the message ("Error: 503 Service Unavailable", "429 Too Many
# Requests"): an optional exception or Error prefix, the number, then a capitalised reason or
# punctuation. Numbers elsewhere in prose are never read as a status.
START_STATUS = (
    r"(?:[\w.]{0,120}(?:Error|Exception|error|ERROR)[ \t]*:[ \t]*)?(?:HTTP[ \t]*)?(?P<code>[45]\d\d)"
    r"(?=[ \t]*(?:[A-Z][a-z]|[:\-(]|\Z|\n)"
    # google-api-core: "429 GET https://...: message", "503 backend unavailable"
    r"|[ \t]+(?:GET|POST|PUT|PATCH|DELETE|HEAD) |[ \t]+[a-z]+[ \t][a-z])"
)
# An exception name at the start of the message or of a line of a Python trace.
EXCEPTION_NAME = r"(?P<name>(?:[A-Za-z_]\w{0,80}\.){0,8}[A-Za-z_]\w{0,120})(?=[:(]|\Z)"
# The Error prefix in front of an exception name ("Error: ValueError('boom')").
ERROR_PREFIX = r"(?:Error|ERROR|error)[ \t]*:[ \t]*"
# Parts of an error text that echo the caller's input; words inside them are not read.
# (literal that must be present, regular expression of the span)
ECHO_PATTERNS: tuple[tuple[str, str], ...] = (
    ("input_value=", r"input_value=.*?(?=, input_type=|\]|$)"),  # pydantic v2 error lines
)
# Python traces: lines that belong to a frame (indented) or to the trace machinery.
TRACEBACK_START = "Traceback (most recent call last):"
TRACEBACK_SKIP_LINES: tuple[str, ...] = (
    "Traceback (most recent call last):",
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
)
