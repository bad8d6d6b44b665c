"""Structured codes: HTTP status, gRPC, errno, JSON-RPC, SQLSTATE, AWS and vendor error codes."""

from __future__ import annotations

from ._base import NE, UO, CodeRule, F, RuleKind, RuleOutcome, T, U
from .protocols import SAAS_ERROR_CODES

# ---------------------------------------------------------------------------------------------
# HTTP status codes (RFC 9110 and provider conventions). Only 4xx and 5xx are read.
# ---------------------------------------------------------------------------------------------

HTTP_STATUS: dict[int, CodeRule] = {
    400: CodeRule(F, "bad_request", None, "RFC 9110 15.5.1; A:wider 'Bad Request'"),
    401: CodeRule(U, "auth", None, "RFC 9110 15.5.2"),
    402: CodeRule(U, "quota", None, "RFC 9110 15.5.3 Payment Required"),
    403: CodeRule(U, "permission", None, "RFC 9110 15.5.4"),
    404: CodeRule(
        None, "not_found", None, "A:ambiguous (HTTP 404 is used for temporary and permanent conditions)"
    ),
    405: CodeRule(None, "http.405", None, "RFC 9110 15.5.6"),
    407: CodeRule(U, "auth", None, "RFC 9110 15.5.8 Proxy Authentication Required"),
    408: CodeRule(T, "timeout", UO, "RFC 9110 15.5.9; retried by the OpenAI and Anthropic SDKs"),
    409: CodeRule(None, "conflict", None, "RFC 9110 15.5.10"),
    410: CodeRule(None, "gone", None, "RFC 9110 15.5.11"),
    413: CodeRule(F, "too_large", None, "RFC 9110 15.5.14 (the caller sent too much)"),
    422: CodeRule(F, "validation", None, "RFC 9110 15.5.21; A:wider 'Unprocessable'"),
    423: CodeRule(None, "locked", None, "RFC 4918"),
    425: CodeRule(T, "too_early", NE, "RFC 8470 Too Early (not processed)"),
    429: CodeRule(T, "rate_limit", NE, "RFC 6585; quota traps override"),
    451: CodeRule(U, "legal", None, "RFC 7725"),
    500: CodeRule(T, "server_error", UO, "RFC 9110 15.6.1; retried by the OpenAI and Anthropic SDKs"),
    501: CodeRule(U, "not_implemented", None, "RFC 9110 15.6.2 (gRPC UNIMPLEMENTED: not served)"),
    502: CodeRule(T, "bad_gateway", UO, "RFC 9110 15.6.3"),
    503: CodeRule(T, "unavailable", NE, "RFC 9110 15.6.4 (request turned away)"),
    504: CodeRule(T, "timeout", UO, "RFC 9110 15.6.5"),
    520: CodeRule(T, "server_error", UO, "Cloudflare unknown error"),
    521: CodeRule(T, "unavailable", NE, "Cloudflare web server is down"),
    522: CodeRule(T, "timeout", NE, "Cloudflare connection timed out (origin never reached)"),
    523: CodeRule(T, "unavailable", NE, "Cloudflare origin unreachable"),
    524: CodeRule(T, "timeout", UO, "Cloudflare a timeout occurred"),
    529: CodeRule(T, "overloaded", NE, "Anthropic overloaded_error"),
}

# ---------------------------------------------------------------------------------------------
# gRPC status codes (grpc.io/docs/guides/status-codes); CamelCase aliases are the Go names.
# ``GRPC_WORDS``: the names also matched as bare words (A:wider); the others need a marker
# (``StatusCode.X``, ``code = X``, ``"status": "X"``).
# ---------------------------------------------------------------------------------------------

# (number, name, kind, family, outcome, note, also a bare word): the one gRPC table; the
# status names, numbers and Go names below are derived from it.
_GRPC: tuple[tuple[int, str, RuleKind | None, str, RuleOutcome | None, str, bool], ...] = (
    (1, "CANCELLED", None, "cancelled", None, "", False),
    (2, "UNKNOWN", None, "grpc.unknown", None, "", False),
    (3, "INVALID_ARGUMENT", F, "bad_arguments", None, "; A:wider", True),
    (4, "DEADLINE_EXCEEDED", T, "timeout", UO, "; A:wider", True),
    (5, "NOT_FOUND", None, "not_found", None, "", False),
    (6, "ALREADY_EXISTS", None, "conflict", None, "", False),
    (7, "PERMISSION_DENIED", U, "permission", None, "; A:wider", True),
    (8, "RESOURCE_EXHAUSTED", T, "rate_limit", NE, "; A:wider; quota traps override", True),
    (9, "FAILED_PRECONDITION", None, "precondition", None, "", False),
    (10, "ABORTED", T, "db_conflict", UO, " (concurrency conflict; retry)", False),
    (11, "OUT_OF_RANGE", F, "out_of_range", None, " (HTTP 400: an argument past the valid range)", False),
    (
        12,
        "UNIMPLEMENTED",
        U,
        "not_implemented",
        None,
        " (the method is not served: no retry or argument helps)",
        False,
    ),
    (13, "INTERNAL", T, "server_error", UO, " (HTTP 500, as google-api-core maps it)", False),
    (
        14,
        "UNAVAILABLE",
        T,
        "unavailable",
        NE,
        "; A:wider (turned away: the server did not take the call)",
        True,
    ),
    (15, "DATA_LOSS", None, "data_loss", None, "", False),
    (16, "UNAUTHENTICATED", U, "auth", None, "; A:wider", True),
)
# Go spells CANCELLED with one L; every other Go name is the CamelCase of the status name.
_GRPC_GO_SPELLINGS: dict[str, str] = {"CANCELLED": "Canceled"}

GRPC_STATUS: dict[str, CodeRule] = {
    name: CodeRule(kind, family, outcome, f"gRPC {number}{note}")
    for number, name, kind, family, outcome, note, _ in _GRPC
}
GRPC_ALIASES: dict[str, str] = {
    _GRPC_GO_SPELLINGS.get(name, name.title().replace("_", "")): name for _, name, *_ in _GRPC
}
GRPC_NUMBERS: dict[int, str] = {number: name for number, name, *_ in _GRPC}
GRPC_WORDS: tuple[str, ...] = tuple(name for _, name, *_, word in _GRPC if word)

# ---------------------------------------------------------------------------------------------
# errno names (POSIX/Linux; Node.js system errors use the same names). Matched as whole words
# (the floor names also as substrings), after ``[Errno N]`` and from ``OSError.errno``.
# ---------------------------------------------------------------------------------------------

ERRNO: dict[str, CodeRule] = {
    "EACCES": CodeRule(U, "permission", None, "A:floor"),
    "EPERM": CodeRule(U, "permission", None, "A:floor"),
    "EROFS": CodeRule(U, "read_only", None, "read-only file system"),
    "ENOSPC": CodeRule(U, "disk_full", None, "no space left on device"),
    "EDQUOT": CodeRule(U, "quota", None, "disk quota exceeded"),
    "EAGAIN": CodeRule(T, "busy", NE, "A:study2 'spawn EAGAIN' (resource temporarily unavailable)"),
    "EWOULDBLOCK": CodeRule(T, "busy", NE, "same as EAGAIN"),
    "EBUSY": CodeRule(T, "busy", NE, "A:study2 'EBUSY: resource busy or locked'"),
    "ECONNRESET": CodeRule(T, "connection_reset", UO, "A:floor"),
    "ECONNREFUSED": CodeRule(T, "connection_refused", NE, "A:floor"),
    "ECONNABORTED": CodeRule(T, "connection", UO, "connection aborted"),
    "ETIMEDOUT": CodeRule(T, "timeout", UO, "A:floor"),
    "EAI_AGAIN": CodeRule(T, "dns", NE, "A:floor (temporary DNS failure)"),
    "EPIPE": CodeRule(T, "connection", UO, "broken pipe"),
    "ENETUNREACH": CodeRule(T, "network", NE, "network unreachable"),
    "EHOSTUNREACH": CodeRule(T, "network", NE, "host unreachable"),
    "ENETDOWN": CodeRule(T, "network", NE, "network down"),
    "EHOSTDOWN": CodeRule(T, "network", NE, "host down"),
    "ENOENT": CodeRule(None, "not_found", None, "A:ambiguous (missing files)"),
    "ENOTDIR": CodeRule(F, "not_a_directory", None, "not a directory (a path the caller gave)"),
    "EISDIR": CodeRule(F, "is_directory", None, "is a directory (a path the caller gave)"),
    "EEXIST": CodeRule(None, "exists", None, "file exists"),
    "ENOTEMPTY": CodeRule(None, "not_empty", None, "directory not empty"),
    "EAI_NONAME": CodeRule(
        T, "dns", NE, "getaddrinfo EAI_NONAME (the contract's Classification: DNS is turned away)"
    ),
    "EAI_NODATA": CodeRule(T, "dns", NE, "getaddrinfo EAI_NODATA"),
    "EAI_FAIL": CodeRule(T, "dns", NE, "getaddrinfo EAI_FAIL"),
    "ENOTFOUND": CodeRule(None, "dns", None, "Node.js getaddrinfo ENOTFOUND (host may not exist)"),
    "EMFILE": CodeRule(None, "too_many_files", None, "too many open files"),
}
# Floor errno names are matched as plain substrings (A:floor); the others as whole words.
ERRNO_SUBSTRING: tuple[str, ...] = ("EACCES", "EPERM", "ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EAI_AGAIN")
# socket.gaierror numbers (glibc netdb.h; what Python raises for getaddrinfo).
GAI_ERRNO: dict[int, str] = {
    -2: "EAI_NONAME",
    -3: "EAI_AGAIN",
    -4: "EAI_FAIL",
    -5: "EAI_NODATA",
    8: "EAI_NONAME",
}
GAI_CLASSES: tuple[str, ...] = ("gaierror",)
# Windows socket errors as printed by Python ("[WinError 10061] ...").
WINERROR: dict[int, str] = {
    5: "EACCES",
    10053: "ECONNABORTED",
    10054: "ECONNRESET",
    10060: "ETIMEDOUT",
    10061: "ECONNREFUSED",
    10065: "EHOSTUNREACH",
}

# ---------------------------------------------------------------------------------------------
# JSON-RPC 2.0 and MCP error codes.
# ---------------------------------------------------------------------------------------------

JSONRPC: dict[int, CodeRule] = {
    -32700: CodeRule(None, "parse_error", None, "JSON-RPC 2.0 parse error"),
    -32600: CodeRule(None, "invalid_request", None, "JSON-RPC 2.0 invalid request"),
    -32601: CodeRule(F, "unknown_tool", None, "JSON-RPC 2.0 method not found; A:wider"),
    -32602: CodeRule(F, "bad_arguments", None, "JSON-RPC 2.0 invalid params; A:wider"),
    -32603: CodeRule(None, "internal", None, "JSON-RPC 2.0 internal error (ambiguous unless words say more)"),
    -32000: CodeRule(None, "server_error", None, "JSON-RPC server error; MCP TS SDK ConnectionClosed"),
    -32001: CodeRule(T, "timeout", UO, "MCP TypeScript SDK ErrorCode.RequestTimeout"),
    -32002: CodeRule(None, "not_found", None, "MCP resource not found"),
}
JSONRPC_WORDS: tuple[int, ...] = (-32601, -32602)  # A:wider matches them as substrings

# ---------------------------------------------------------------------------------------------
# SQLSTATE (PostgreSQL appendix A; the class is the first two characters).
# ---------------------------------------------------------------------------------------------

SQLSTATE: dict[str, CodeRule] = {
    "40001": CodeRule(T, "db_conflict", NE, "serialization_failure (transaction rolled back)"),
    "40P01": CodeRule(T, "db_conflict", NE, "deadlock_detected (transaction rolled back)"),
    "55P03": CodeRule(T, "db_locked", NE, "lock_not_available"),
    "53300": CodeRule(T, "busy", NE, "too_many_connections"),
    "57P01": CodeRule(T, "unavailable", UO, "admin_shutdown"),
    "57P03": CodeRule(T, "unavailable", NE, "cannot_connect_now"),
    "08001": CodeRule(T, "connection", NE, "sqlclient_unable_to_establish_sqlconnection"),
    "08004": CodeRule(T, "connection", NE, "sqlserver_rejected_establishment_of_sqlconnection"),
    "42501": CodeRule(U, "permission", None, "insufficient_privilege"),
    "25006": CodeRule(U, "read_only", None, "read_only_sql_transaction"),
    "42601": CodeRule(F, "syntax", None, "syntax_error (the caller wrote the statement)"),
    "22012": CodeRule(None, "division_by_zero", None, "division_by_zero"),
    "23502": CodeRule(F, "bad_arguments", None, "not_null_violation (a required value is missing)"),
    "23514": CodeRule(F, "bad_arguments", None, "check_violation"),
    "23505": CodeRule(None, "conflict", None, "unique_violation (the row may already exist)"),
    "23503": CodeRule(None, "conflict", None, "foreign_key_violation"),
    "42P01": CodeRule(
        F, "undefined_name", None, "undefined_table (a name in the statement the caller wrote)"
    ),
    "42703": CodeRule(F, "undefined_name", None, "undefined_column (a name in the caller's statement)"),
    "42883": CodeRule(F, "undefined_name", None, "undefined_function (a name in the caller's statement)"),
    "3D000": CodeRule(U, "config", None, "invalid_catalog_name (the database does not exist)"),
    "42P07": CodeRule(None, "conflict", None, "duplicate_table (it exists)", True),
    "42701": CodeRule(None, "conflict", None, "duplicate_column (it exists)", True),
    "42710": CodeRule(None, "conflict", None, "duplicate_object (it exists)", True),
    "42P06": CodeRule(None, "conflict", None, "duplicate_schema (it exists)", True),
    "57014": CodeRule(None, "command_timeout", None, "query_canceled (statement timeout stays ambiguous)"),
}
SQLSTATE_CLASSES: dict[str, CodeRule] = {
    "08": CodeRule(T, "connection", UO, "class 08 connection exception"),
    "22": CodeRule(F, "bad_arguments", None, "class 22 data exception (a value the caller sent)"),
    "28": CodeRule(U, "auth", None, "class 28 invalid authorization specification"),
    "40": CodeRule(T, "db_conflict", UO, "class 40 transaction rollback"),
    "42": CodeRule(F, "syntax", None, "class 42 syntax error or access rule violation (42501 is listed)"),
    "53": CodeRule(U, "resources", None, "class 53 insufficient resources (53300 is listed)"),
    "0A": CodeRule(U, "not_implemented", None, "class 0A feature not supported"),
}

# ---------------------------------------------------------------------------------------------
# AWS error codes (botocore ClientError response['Error']['Code'], botocore retry handlers).
# ---------------------------------------------------------------------------------------------

_AWS_THROTTLE = "botocore retryhandler/standard retry throttling codes"
AWS_ERROR_CODES: dict[str, CodeRule] = {
    "Throttling": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "ThrottlingException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "ThrottledException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "RequestThrottledException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "RequestThrottled": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "TooManyRequestsException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "ProvisionedThroughputExceededException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "TransactionInProgressException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "RequestLimitExceeded": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "BandwidthLimitExceeded": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "SlowDown": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "EC2ThrottledException": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "PriorRequestNotComplete": CodeRule(T, "throttling", NE, _AWS_THROTTLE),
    "ServiceUnavailable": CodeRule(T, "unavailable", NE, "botocore transient codes"),
    "ServiceUnavailableException": CodeRule(T, "unavailable", NE, "botocore transient codes"),
    "ModelNotReadyException": CodeRule(T, "unavailable", NE, "Bedrock runtime"),
    "InternalError": CodeRule(T, "server_error", UO, "botocore transient codes"),
    "InternalFailure": CodeRule(T, "server_error", UO, "botocore transient codes"),
    "InternalServerError": CodeRule(T, "server_error", UO, "AWS APIs"),
    "InternalServerException": CodeRule(T, "server_error", UO, "AWS APIs"),
    "RequestTimeout": CodeRule(T, "timeout", UO, "botocore transient codes"),
    "RequestTimeoutException": CodeRule(T, "timeout", UO, "botocore transient codes"),
    "IDPCommunicationError": CodeRule(T, "network", UO, "botocore transient codes"),
    "AccessDenied": CodeRule(U, "permission", None, "AWS access denied"),
    "AccessDeniedException": CodeRule(U, "permission", None, "AWS access denied"),
    "UnauthorizedOperation": CodeRule(U, "permission", None, "EC2"),
    "UnauthorizedAccess": CodeRule(U, "permission", None, "AWS"),
    "NotAuthorized": CodeRule(U, "permission", None, "AWS"),
    "AuthFailure": CodeRule(U, "auth", None, "EC2"),
    "UnrecognizedClientException": CodeRule(U, "auth", None, "AWS invalid credentials"),
    "InvalidClientTokenId": CodeRule(U, "auth", None, "AWS invalid credentials"),
    "InvalidAccessKeyId": CodeRule(U, "auth", None, "S3 invalid credentials"),
    "SignatureDoesNotMatch": CodeRule(U, "auth", None, "AWS signature"),
    "ExpiredToken": CodeRule(U, "auth", None, "AWS expired credentials"),
    "ExpiredTokenException": CodeRule(U, "auth", None, "AWS expired credentials"),
    "MissingAuthenticationToken": CodeRule(U, "auth", None, "AWS"),
    "OptInRequired": CodeRule(U, "permission", None, "AWS account not subscribed"),
    "ValidationException": CodeRule(F, "validation", None, "AWS request validation"),
    "ValidationError": CodeRule(F, "validation", None, "AWS query APIs"),
    "InvalidParameterValue": CodeRule(F, "bad_arguments", None, "AWS"),
    "InvalidParameterValueException": CodeRule(F, "bad_arguments", None, "AWS"),
    "InvalidParameterException": CodeRule(F, "bad_arguments", None, "AWS"),
    "InvalidParameter": CodeRule(F, "bad_arguments", None, "AWS"),
    "InvalidParameterCombination": CodeRule(F, "bad_arguments", None, "AWS"),
    "MissingParameter": CodeRule(F, "bad_arguments", None, "AWS"),
    "NoSuchKey": CodeRule(None, "not_found", None, "S3", True),
    "NoSuchBucket": CodeRule(None, "not_found", None, "S3", True),
    "ResourceNotFoundException": CodeRule(
        None, "not_found", None, "AWS (sent with HTTP 400: the code wins)", True
    ),
    "AWS.SimpleQueueService.NonExistentQueue": CodeRule(None, "not_found", None, "SQS (HTTP 400)", True),
    "ConditionalCheckFailedException": CodeRule(
        None, "precondition", None, "DynamoDB (HTTP 400: the condition, not the request)", True
    ),
    "ItemCollectionSizeLimitExceededException": CodeRule(None, "quota", None, "DynamoDB (HTTP 400)", True),
    "TransactionConflictException": CodeRule(
        T, "db_conflict", NE, "DynamoDB (HTTP 400; the transaction was rejected)"
    ),
    "InvalidRange": CodeRule(F, "bad_arguments", None, "S3 (HTTP 416: the range the caller asked)"),
    "ServiceException": CodeRule(T, "server_error", UO, "Lambda (HTTP 500)"),
}

# ---------------------------------------------------------------------------------------------
# Error codes inside API error bodies (``error.code``, ``error.type``, Google ``status`` and
# ErrorInfo ``reason``) and the SDK attributes that carry them (openai ``exc.code`` /
# ``exc.type``, google-api-core ``exc.reason``). A specific code beats the HTTP status class.
# ---------------------------------------------------------------------------------------------

VENDOR_ERROR_CODES: dict[str, CodeRule] = {
    "insufficient_quota": CodeRule(U, "quota", None, "OpenAI 429 insufficient_quota"),
    "billing_hard_limit_reached": CodeRule(U, "quota", None, "OpenAI billing hard limit"),
    "billing_not_active": CodeRule(U, "quota", None, "OpenAI billing not active"),
    "invalid_api_key": CodeRule(U, "auth", None, "OpenAI 401"),
    "no_organization": CodeRule(U, "auth", None, "OpenAI 401 (no organisation)"),
    "organization_deactivated": CodeRule(U, "auth", None, "OpenAI organisation disabled"),
    "unsupported_country_region_territory": CodeRule(U, "region", None, "OpenAI 403"),
    "rate_limit_exceeded": CodeRule(T, "rate_limit", NE, "OpenAI 429 rate limit"),
    "context_length_exceeded": CodeRule(F, "too_large", None, "OpenAI 400"),
    "overloaded_error": CodeRule(T, "overloaded", NE, "Anthropic 529"),
    "rate_limit_error": CodeRule(T, "rate_limit", NE, "Anthropic 429"),
    "authentication_error": CodeRule(U, "auth", None, "Anthropic 401"),
    "permission_error": CodeRule(U, "permission", None, "Anthropic 403"),
    "request_too_large": CodeRule(F, "too_large", None, "Anthropic 413"),
    "not_found_error": CodeRule(None, "not_found", None, "Anthropic 404", True),
    "api_error": CodeRule(T, "server_error", UO, "Anthropic 500"),
    "API_KEY_INVALID": CodeRule(U, "auth", None, "Google ErrorInfo reason (sent with 400)"),
    "BILLING_DISABLED": CodeRule(U, "quota", None, "Google ErrorInfo reason (sent with 403)"),
    "SERVICE_DISABLED": CodeRule(U, "config", None, "Google ErrorInfo reason"),
    "ACCESS_TOKEN_EXPIRED": CodeRule(U, "auth", None, "Google ErrorInfo reason"),
}
VENDOR_ERROR_CODES.update({k: v for k, v in SAAS_ERROR_CODES.items() if k not in VENDOR_ERROR_CODES})
# Response headers that say a 403/429 is a rate limit (GitHub: 403 with remaining 0).
RATE_LIMIT_REMAINING_HEADERS: tuple[str, ...] = ("x-ratelimit-remaining", "x-ratelimit-remaining-requests")
RATE_LIMIT_RULE = CodeRule(
    T, "rate_limit", NE, "x-ratelimit-remaining: 0 (GitHub sends its rate limit as 403)"
)
# Rate-limit reset headers: when a limit is full again. Read for a 429 (or a 403 that a
# remaining-0 header makes a rate limit) that carries no Retry-After; where several limits
# are named, those whose remaining header says 0 count, else all, and the latest reset is
# the wait. (reset header, its remaining header, format, source); formats: "duration"
# (Go-style "6m0s", "20ms"), "date" (RFC 3339), "seconds" (delta seconds) and
# "seconds_or_epoch" (delta seconds, or a Unix time where the value is past 10^9).
_OPENAI_LIMITS = "OpenAI, rate limits in headers"
_ANTHROPIC = "Anthropic, rate limits: response headers"
RATE_LIMIT_RESET_HEADERS: tuple[tuple[str, str, str, str], ...] = (
    ("x-ratelimit-reset-requests", "x-ratelimit-remaining-requests", "duration", _OPENAI_LIMITS),
    ("x-ratelimit-reset-tokens", "x-ratelimit-remaining-tokens", "duration", _OPENAI_LIMITS),
    ("anthropic-ratelimit-requests-reset", "anthropic-ratelimit-requests-remaining", "date", _ANTHROPIC),
    ("anthropic-ratelimit-tokens-reset", "anthropic-ratelimit-tokens-remaining", "date", _ANTHROPIC),
    (
        "anthropic-ratelimit-input-tokens-reset",
        "anthropic-ratelimit-input-tokens-remaining",
        "date",
        _ANTHROPIC,
    ),
    (
        "anthropic-ratelimit-output-tokens-reset",
        "anthropic-ratelimit-output-tokens-remaining",
        "date",
        _ANTHROPIC,
    ),
    ("ratelimit-reset", "ratelimit-remaining", "seconds", "IETF draft-ietf-httpapi-ratelimit-headers"),
    ("x-ratelimit-reset", "x-ratelimit-remaining", "seconds_or_epoch", "GitHub REST: a Unix time"),
)
# Attributes that hold the parsed body (openai/anthropic ``exc.body``) or the response.
BODY_MAX_CHARS = 4096
# urllib HTTPError: how long to wait for a body that has not arrived with the headers (its
# buffer is peeked, never consumed); only when nothing is buffered and Content-Length > 0.
BODY_WAIT_S = 0.05
