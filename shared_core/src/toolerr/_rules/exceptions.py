"""Exception classes, found by name inside a module prefix, and the attributes read from
exceptions."""

from __future__ import annotations

from ._base import NE, UO, ExceptionRule, F, T, U
from .protocols import PROTOCOL_EXCEPTIONS

# ---------------------------------------------------------------------------------------------
# Exception classes. Found by ``__qualname__`` inside a module prefix, walking the MRO from the
# most specific class. Classes not listed (ValueError, TypeError, OSError, HTTPStatusError,
# APIStatusError, ClientError ...) are read through their attributes and message.
# ---------------------------------------------------------------------------------------------

_B = "builtins"
EXCEPTIONS: tuple[ExceptionRule, ...] = (
    # Python builtins
    ExceptionRule(_B, "TimeoutError", T, "timeout", UO, source="Python TimeoutError (socket.timeout)"),
    ExceptionRule(_B, "ConnectionRefusedError", T, "connection_refused", NE, source="Python ECONNREFUSED"),
    ExceptionRule(_B, "ConnectionResetError", T, "connection_reset", UO, source="Python ECONNRESET"),
    ExceptionRule(_B, "ConnectionAbortedError", T, "connection", UO, source="Python ECONNABORTED"),
    ExceptionRule(_B, "BrokenPipeError", T, "connection", UO, source="Python EPIPE"),
    ExceptionRule(_B, "ConnectionError", T, "connection", None, source="Python ConnectionError"),
    ExceptionRule(_B, "PermissionError", U, "permission", None, source="Python EACCES/EPERM"),
    ExceptionRule(_B, "FileNotFoundError", None, "not_found", None, True, "A:ambiguous (missing files)"),
    ExceptionRule(
        _B, "NotADirectoryError", F, "not_a_directory", None, False, "Python ENOTDIR (a path the caller gave)"
    ),
    ExceptionRule(
        _B, "IsADirectoryError", F, "is_directory", None, False, "Python EISDIR (a path the caller gave)"
    ),
    ExceptionRule(_B, "FileExistsError", None, "exists", None, True, "Python EEXIST"),
    ExceptionRule(_B, "KeyError", None, "KeyError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "IndexError", None, "IndexError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "AttributeError", None, "AttributeError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "NameError", None, "NameError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "ZeroDivisionError", None, "ZeroDivisionError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "AssertionError", None, "AssertionError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "RecursionError", None, "RecursionError", None, True, "a bug inside the tool"),
    ExceptionRule(_B, "NotImplementedError", None, "not_implemented", None, True, "a bug inside the tool"),
    # out of memory is state, not the arguments (the contract's precedence names it)
    ExceptionRule(_B, "MemoryError", U, "out_of_memory", None, False, "Python MemoryError"),
    # a module the tool needs is not installed (ModuleNotFoundError too): no argument helps
    ExceptionRule(_B, "ModuleNotFoundError", U, "missing_dependency", None, False, "Python ImportError"),
    ExceptionRule(_B, "ImportError", U, "missing_dependency", None, False, "Python ImportError"),
    ExceptionRule("asyncio", "TimeoutError", T, "timeout", UO, source="asyncio.TimeoutError (Python 3.10)"),
    # toolerr-mcp's proxy: its upstream server cannot start (a configuration failure)
    ExceptionRule("toolerr_mcp", "UpstreamUnavailable", U, "server_start", None, True, "toolerr-mcp proxy"),
    ExceptionRule("asyncio", "CancelledError", None, "cancelled", None, True, "asyncio cancellation"),
    ExceptionRule("concurrent.futures", "TimeoutError", T, "timeout", UO, source="concurrent.futures (3.10)"),
    ExceptionRule(
        "subprocess", "TimeoutExpired", None, "command_timeout", None, True, "A:ambiguous command timeout"
    ),
    ExceptionRule(
        "subprocess", "CalledProcessError", None, "exit_code", None, True, "A:ambiguous non-zero exit"
    ),
    ExceptionRule("json", "JSONDecodeError", None, "json", None, False, "json.decoder (the words decide)"),
    # httpx (classes report __module__ == "httpx")
    ExceptionRule("httpx", "ConnectTimeout", T, "timeout", NE, source="httpx: never connected"),
    ExceptionRule("httpx", "PoolTimeout", T, "timeout", NE, source="httpx: no connection from the pool"),
    ExceptionRule("httpx", "ReadTimeout", T, "timeout", UO, source="httpx"),
    ExceptionRule("httpx", "WriteTimeout", T, "timeout", UO, source="httpx"),
    ExceptionRule("httpx", "TimeoutException", T, "timeout", UO, source="httpx"),
    ExceptionRule("httpx", "ConnectError", T, "connection", NE, source="httpx: connection not established"),
    ExceptionRule("httpx", "ReadError", T, "connection", UO, source="httpx"),
    ExceptionRule("httpx", "WriteError", T, "connection", UO, source="httpx"),
    ExceptionRule("httpx", "RemoteProtocolError", T, "connection", UO, source="httpx (server disconnected)"),
    ExceptionRule("httpx", "NetworkError", T, "network", UO, source="httpx"),
    ExceptionRule("httpx", "UnsupportedProtocol", F, "bad_url", None, False, "httpx"),
    ExceptionRule("httpx", "InvalidURL", F, "bad_url", None, False, "httpx"),
    # requests (classes live in requests.exceptions)
    ExceptionRule("requests", "ConnectTimeout", T, "timeout", NE, source="requests: never connected"),
    ExceptionRule("requests", "ReadTimeout", T, "timeout", UO, source="requests"),
    ExceptionRule("requests", "Timeout", T, "timeout", UO, source="requests"),
    ExceptionRule(
        "requests", "SSLError", None, "tls", None, True, "requests (certificate problems do not go away)"
    ),
    ExceptionRule("requests", "ProxyError", None, "proxy", None, False, "requests"),
    ExceptionRule("requests", "ChunkedEncodingError", T, "connection", UO, source="requests"),
    ExceptionRule("requests", "RetryError", T, "network", UO, source="requests (urllib3 Retry exhausted)"),
    ExceptionRule(
        "requests", "ConnectionError", T, "connection", None, source="requests (outcome from the cause)"
    ),
    ExceptionRule("requests", "InvalidURL", F, "bad_url", None, False, "requests"),
    ExceptionRule("requests", "MissingSchema", F, "bad_url", None, False, "requests"),
    # urllib3
    ExceptionRule("urllib3", "ConnectTimeoutError", T, "timeout", NE, source="urllib3"),
    ExceptionRule(
        "urllib3", "NewConnectionError", T, "connection", NE, source="urllib3 (connection not established)"
    ),
    ExceptionRule(
        "urllib3", "NameResolutionError", T, "dns", NE, False, "urllib3 (DNS: the request was never sent)"
    ),
    ExceptionRule("urllib3", "LocationParseError", F, "bad_url", None, False, "urllib3 URL parsing"),
    ExceptionRule(
        "requests", "InvalidSchema", F, "bad_url", None, False, "requests (no adapter for the scheme)"
    ),
    ExceptionRule("aiohttp", "NonHttpUrlClientError", F, "bad_url", None, False, "aiohttp (not an http URL)"),
    ExceptionRule("aiohttp", "ClientConnectorDNSError", T, "dns", NE, False, "aiohttp 3.10+ DNS failure"),
    ExceptionRule("re", "error", F, "bad_arguments", None, False, "re.error (a pattern the caller wrote)"),
    ExceptionRule("re", "PatternError", F, "bad_arguments", None, False, "re.PatternError (3.13)"),
    ExceptionRule(
        "zoneinfo", "ZoneInfoNotFoundError", F, "bad_arguments", None, False, "zoneinfo (a KeyError)"
    ),
    ExceptionRule(
        "socket", "gaierror", T, "dns", NE, False, "getaddrinfo failure: the request was never sent"
    ),
    ExceptionRule("urllib3", "ReadTimeoutError", T, "timeout", UO, source="urllib3"),
    ExceptionRule("urllib3", "ProtocolError", T, "connection", UO, source="urllib3 ('Connection aborted.')"),
    ExceptionRule(
        "urllib3", "ResponseError", T, "server_error", UO, source="urllib3 'too many error responses'"
    ),
    ExceptionRule("urllib3", "TimeoutError", T, "timeout", UO, source="urllib3"),
    ExceptionRule("urllib3", "SSLError", None, "tls", None, True, "urllib3"),
    ExceptionRule("urllib3", "MaxRetryError", None, "network", None, False, "urllib3 (read .reason)"),
    # aiohttp (classes live in aiohttp.client_exceptions)
    ExceptionRule("aiohttp", "ClientConnectorCertificateError", None, "tls", None, True, "aiohttp"),
    ExceptionRule("aiohttp", "ClientSSLError", None, "tls", None, True, "aiohttp"),
    ExceptionRule(
        "aiohttp", "ClientConnectorDNSError", None, "dns", NE, False, "aiohttp (the message decides)"
    ),
    ExceptionRule("aiohttp", "ClientConnectorError", T, "connection", NE, source="aiohttp: cannot connect"),
    ExceptionRule("aiohttp", "ConnectionTimeoutError", T, "timeout", NE, source="aiohttp 3.10"),
    ExceptionRule("aiohttp", "SocketTimeoutError", T, "timeout", UO, source="aiohttp 3.10"),
    ExceptionRule("aiohttp", "ServerTimeoutError", T, "timeout", UO, source="aiohttp"),
    ExceptionRule("aiohttp", "ServerDisconnectedError", T, "connection", UO, source="aiohttp"),
    ExceptionRule("aiohttp", "ClientPayloadError", T, "connection", UO, source="aiohttp"),
    ExceptionRule("aiohttp", "ClientOSError", T, "connection", UO, source="aiohttp"),
    ExceptionRule("aiohttp", "InvalidURL", F, "bad_url", None, False, "aiohttp"),
    # openai / anthropic SDKs (classes report __module__ "openai" / "anthropic")
    *(
        rule
        for sdk in ("openai", "anthropic")
        for rule in (
            ExceptionRule(
                sdk, "RateLimitError", T, "rate_limit", NE, source=f"{sdk} 429 (quota traps override)"
            ),
            ExceptionRule(sdk, "APITimeoutError", T, "timeout", UO, source=sdk),
            ExceptionRule(sdk, "APIConnectionError", T, "connection", UO, source=sdk),
            # any status >= 500: the status decides the outcome (503 was turned away)
            ExceptionRule(sdk, "InternalServerError", T, "server_error", None, source=f"{sdk} >= 500"),
            ExceptionRule(sdk, "ServiceUnavailableError", T, "unavailable", NE, source=f"{sdk} 503"),
            ExceptionRule(sdk, "OverloadedError", T, "overloaded", NE, source=f"{sdk} 529"),
            ExceptionRule(sdk, "DeadlineExceededError", T, "timeout", UO, source=f"{sdk} 504"),
            ExceptionRule(sdk, "AuthenticationError", U, "auth", None, source=f"{sdk} 401"),
            ExceptionRule(sdk, "PermissionDeniedError", U, "permission", None, source=f"{sdk} 403"),
            ExceptionRule(sdk, "BadRequestError", F, "bad_request", None, source=f"{sdk} 400"),
            ExceptionRule(sdk, "UnprocessableEntityError", F, "validation", None, source=f"{sdk} 422"),
            ExceptionRule(sdk, "NotFoundError", None, "not_found", None, True, f"{sdk} 404"),
            ExceptionRule(sdk, "ConflictError", None, "conflict", None, False, f"{sdk} 409"),
        )
    ),
    # botocore (ClientError: read response['Error']['Code'])
    ExceptionRule("botocore", "ConnectTimeoutError", T, "timeout", NE, source="botocore"),
    ExceptionRule("botocore", "EndpointConnectionError", T, "connection", NE, source="botocore"),
    ExceptionRule("botocore", "ReadTimeoutError", T, "timeout", UO, source="botocore"),
    ExceptionRule("botocore", "ConnectionClosedError", T, "connection", UO, source="botocore"),
    ExceptionRule("botocore", "NoCredentialsError", U, "auth", None, source="botocore"),
    ExceptionRule("botocore", "PartialCredentialsError", U, "auth", None, source="botocore"),
    ExceptionRule("botocore", "NoRegionError", U, "config", None, source="botocore"),
    ExceptionRule("botocore", "ParamValidationError", F, "validation", None, source="botocore"),
    # google-api-core
    ExceptionRule("google.api_core", "TooManyRequests", T, "rate_limit", NE, source="google.api_core 429"),
    ExceptionRule("google.api_core", "ResourceExhausted", T, "rate_limit", NE, source="google.api_core 429"),
    ExceptionRule(
        "google.api_core", "ServiceUnavailable", T, "unavailable", NE, source="google.api_core 503"
    ),
    ExceptionRule("google.api_core", "DeadlineExceeded", T, "timeout", UO, source="google.api_core 504"),
    ExceptionRule("google.api_core", "GatewayTimeout", T, "timeout", UO, source="google.api_core 504"),
    ExceptionRule(
        "google.api_core", "InternalServerError", T, "server_error", UO, source="google.api_core 500"
    ),
    ExceptionRule("google.api_core", "BadGateway", T, "bad_gateway", UO, source="google.api_core 502"),
    ExceptionRule("google.api_core", "Aborted", T, "db_conflict", UO, source="google.api_core ABORTED"),
    ExceptionRule("google.api_core", "RetryError", T, "timeout", UO, source="google.api_core retry deadline"),
    ExceptionRule("google.api_core", "Unauthorized", U, "auth", None, source="google.api_core 401"),
    ExceptionRule("google.api_core", "Unauthenticated", U, "auth", None, source="google.api_core 401"),
    ExceptionRule("google.api_core", "Forbidden", U, "permission", None, source="google.api_core 403"),
    ExceptionRule("google.api_core", "PermissionDenied", U, "permission", None, source="google.api_core 403"),
    ExceptionRule("google.api_core", "BadRequest", F, "bad_request", None, source="google.api_core 400"),
    ExceptionRule(
        "google.api_core", "InvalidArgument", F, "bad_arguments", None, source="google.api_core 400"
    ),
    ExceptionRule("google.api_core", "NotFound", None, "not_found", None, True, "google.api_core 404"),
    ExceptionRule("google.auth", "DefaultCredentialsError", U, "auth", None, source="google.auth"),
    # validation libraries
    ExceptionRule(
        "pydantic_core",
        "ValidationError",
        F,
        "validation",
        None,
        source="pydantic v2 (pydantic_core._pydantic_core)",
    ),
    ExceptionRule("pydantic", "ValidationError", F, "validation", None, source="pydantic v1"),
    ExceptionRule("jsonschema", "ValidationError", F, "validation", None, source="jsonschema.exceptions"),
    ExceptionRule(
        "langgraph",
        "ToolInvocationError",
        F,
        "validation",
        None,
        source="langgraph ToolNode argument validation",
    ),
    # databases
    ExceptionRule("psycopg", "SerializationFailure", T, "db_conflict", NE, source="psycopg 40001"),
    ExceptionRule("psycopg", "DeadlockDetected", T, "db_conflict", NE, source="psycopg 40P01"),
    ExceptionRule("psycopg", "LockNotAvailable", T, "db_locked", NE, source="psycopg 55P03"),
    ExceptionRule("psycopg", "InsufficientPrivilege", U, "permission", None, source="psycopg 42501"),
    ExceptionRule(
        "psycopg", "QueryCanceled", None, "command_timeout", None, True, "psycopg 57014 statement timeout"
    ),
    ExceptionRule("psycopg2", "SerializationFailure", T, "db_conflict", NE, source="psycopg2 40001"),
    ExceptionRule("psycopg2", "DeadlockDetected", T, "db_conflict", NE, source="psycopg2 40P01"),
    ExceptionRule("psycopg2", "TransactionRollbackError", T, "db_conflict", NE, source="psycopg2 class 40"),
    ExceptionRule("psycopg2", "InsufficientPrivilege", U, "permission", None, source="psycopg2 42501"),
    ExceptionRule("psycopg2", "QueryCanceledError", None, "command_timeout", None, True, "psycopg2 57014"),
    ExceptionRule("asyncpg", "SerializationError", T, "db_conflict", NE, source="asyncpg 40001"),
    ExceptionRule("asyncpg", "DeadlockDetectedError", T, "db_conflict", NE, source="asyncpg 40P01"),
    ExceptionRule("asyncpg", "InsufficientPrivilegeError", U, "permission", None, source="asyncpg 42501"),
    *PROTOCOL_EXCEPTIONS,
)

# Exception attributes read for structured codes (besides the MRO).
STATUS_ATTRIBUTES: tuple[str, ...] = ("status_code", "status", "http_status", "code")
SQLSTATE_ATTRIBUTES: tuple[str, ...] = ("sqlstate", "pgcode")
CHAIN_ATTRIBUTES: tuple[str, ...] = ("__cause__", "__context__", "reason", "last_attempt_exception")
RETRY_AFTER_HEADERS: tuple[tuple[str, float], ...] = (
    ("retry-after-ms", 0.001),  # OpenAI SDK
    ("Retry-After-Ms", 0.001),
    ("retry-after", 1.0),  # RFC 9110 10.2.3
    ("Retry-After", 1.0),
    ("x-ratelimit-reset-after", 1.0),
)
# Modules whose exceptions expose ``code()`` as a method returning a gRPC StatusCode.
GRPC_CALLABLE_CODE_PREFIXES: tuple[str, ...] = ("grpc",)

# Python's own convention (the library reference, "Built-in Exceptions"): ValueError is "an
# argument that has the right type but an inappropriate value", TypeError "an object of
# inappropriate type", OverflowError "a result too large to be represented". Where no rule,
# code or word decided, an exception of these classes (or a library's subclass of them) is
# read as the value passed being wrong: fixable, unless its message names a file it read.
VALUE_CLASSES: frozenset[str] = frozenset({"ValueError", "TypeError", "OverflowError"})
# Messages of these classes that are the tool's own bug, not a value it was given.
TOOL_BUG_MESSAGES: tuple[str, ...] = ("'NoneType' object", "NoneType' and", "module '")
