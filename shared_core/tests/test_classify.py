"""Classification: kind, rule, retry outcome, family, retry_after and status."""

from __future__ import annotations

import time
from typing import Any

import pytest
from toolerr import Message, inspect_message, inspect_result
from toolerr import _rules as R
from toolerr._classify import _SCANNER, _inspect_text
from toolerr._types import NOT_FAILED

# --- rules, outcomes and families --------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "kind", "rule", "outcome", "family", "status"),
    [
        ("Error: 503 Service Unavailable", "transient", "http:503", "not_executed", "unavailable", 503),
        ("Error: HTTP 429 Too Many Requests", "transient", "http:429", "not_executed", "rate_limit", 429),
        ("Error code: 429 - rate limited", "transient", "http:429", "not_executed", "rate_limit", 429),
        ("Error: status code 502", "transient", "http:502", "unknown_outcome", "bad_gateway", 502),
        ('Error: {"status": 500}', "transient", "http:500", "unknown_outcome", "server_error", 500),
        ("Error: 504 Gateway Timeout", "transient", "http:504", "unknown_outcome", "timeout", 504),
        ("HTTP Error 408: Request Timeout", "transient", "http:408", "unknown_outcome", "timeout", 408),
        ("Error: 401 Unauthorized", "unrecoverable", "http:401", None, "auth", 401),
        ("Error: 403 Forbidden", "unrecoverable", "http:403", None, "permission", 403),
        (
            "Error: 400 Bad Request: 'start' must be before 'end'",
            "fixable",
            "http:400",
            None,
            "bad_request",
            400,
        ),
        ("Error: 422 Unprocessable Entity", "fixable", "http:422", None, "validation", 422),
        ("Error: 404 Not Found", "ambiguous", None, None, "not_found", 404),
        (
            "Error: connect ECONNREFUSED 127.0.0.1:5432",
            "transient",
            "errno:ECONNREFUSED",
            "not_executed",
            "connection_refused",
            None,
        ),
        (
            "Error: read ECONNRESET",
            "transient",
            "errno:ECONNRESET",
            "unknown_outcome",
            "connection_reset",
            None,
        ),
        ("Error: spawn EAGAIN", "transient", "errno:EAGAIN", "not_executed", "busy", None),
        (
            "Error: EACCES: permission denied, open '/x'",
            "unrecoverable",
            "errno:EACCES",
            None,
            "permission",
            None,
        ),
        ("Error: EROFS: read-only file system", "unrecoverable", "errno:EROFS", None, "read_only", None),
        ("Error: ENOENT: no such file or directory", "ambiguous", None, None, "not_found", None),
        (
            "OSError: [Errno 28] No space left on device",
            "unrecoverable",
            "errno:ENOSPC",
            None,
            "disk_full",
            None,
        ),
        (
            "Error: [Errno 110] Connection timed out",
            "transient",
            "errno:ETIMEDOUT",
            "unknown_outcome",
            "timeout",
            None,
        ),
        (
            "Error: StatusCode.DEADLINE_EXCEEDED",
            "transient",
            "grpc:DEADLINE_EXCEEDED",
            "unknown_outcome",
            "timeout",
            "DEADLINE_EXCEEDED",
        ),
        (
            "Error: rpc error: code = ResourceExhausted desc = slow down",
            "transient",
            "grpc:RESOURCE_EXHAUSTED",
            "not_executed",
            "rate_limit",
            "RESOURCE_EXHAUSTED",
        ),
        (
            "Error: rpc error: code = InvalidArgument desc = bad page",
            "fixable",
            "grpc:INVALID_ARGUMENT",
            None,
            "bad_arguments",
            "INVALID_ARGUMENT",
        ),
        (
            "Error: rpc error: code = Unauthenticated desc = no token",
            "unrecoverable",
            "grpc:UNAUTHENTICATED",
            None,
            "auth",
            "UNAUTHENTICATED",
        ),
        ("MCP error -32601: Method not found", "fixable", "jsonrpc:-32601", None, "unknown_tool", -32601),
        ("MCP error -32602: Invalid params", "fixable", "jsonrpc:-32602", None, "bad_arguments", -32602),
        ("MCP error -32603: Internal error", "ambiguous", None, None, "internal", -32603),
        (
            "Error: could not serialize access (SQLSTATE 40001)",
            "transient",
            "sqlstate:40001",
            "not_executed",
            "db_conflict",
            None,
        ),
        (
            "Error: deadlock detected (SQLSTATE 40P01)",
            "transient",
            "sqlstate:40P01",
            "not_executed",
            "db_conflict",
            None,
        ),
        (
            "Error: permission denied for table t (SQLSTATE 42501)",
            "unrecoverable",
            "sqlstate:42501",
            None,
            "permission",
            None,
        ),
        (
            "Error: invalid input syntax for type integer (SQLSTATE 22P02)",
            "fixable",
            "sqlstate:22P02",
            None,
            "bad_arguments",
            None,
        ),
        (
            "Error: duplicate key value violates unique constraint (SQLSTATE 23505)",
            "ambiguous",
            None,
            None,
            "conflict",
            None,
        ),
        (
            "An error occurred (SlowDown) when calling the PutObject operation: Please reduce your request rate.",
            "transient",
            "aws:SlowDown",
            "not_executed",
            "throttling",
            None,
        ),
        (
            "An error occurred (ExpiredToken) when calling the GetObject operation: expired",
            "unrecoverable",
            "aws:ExpiredToken",
            None,
            "auth",
            None,
        ),
        (
            "An error occurred (InvalidParameterValue) when calling the RunInstances operation: x",
            "fixable",
            "aws:InvalidParameterValue",
            None,
            "bad_arguments",
            None,
        ),
        (
            "httpx.ReadTimeout: timed out",
            "transient",
            "exception:httpx.ReadTimeout",
            "unknown_outcome",
            "timeout",
            None,
        ),
        (
            "httpx.ConnectTimeout: timed out",
            "transient",
            "exception:httpx.ConnectTimeout",
            "not_executed",
            "timeout",
            None,
        ),
        (
            "openai.APIConnectionError: Connection error.",
            "transient",
            "exception:openai.APIConnectionError",
            "unknown_outcome",
            "connection",
            None,
        ),
        ("IndexError: list index out of range", "ambiguous", None, None, "IndexError", None),
        ("KeyError: 'Forbidden'", "ambiguous", None, None, "KeyError", None),
        ("Error: Command timed out after 300s", "ambiguous", None, None, "command_timeout", None),
        ("Error: Command 'make' timed out after 5 seconds", "ambiguous", None, None, "command_timeout", None),
        ("Error: execution timed out", "ambiguous", None, None, "command_timeout", None),
        (
            "Error: read timed out",
            "transient",
            "words:transient:timed out",
            "unknown_outcome",
            "timeout",
            None,
        ),
        (
            "Error: Rate limit reached",
            "transient",
            "words:transient:ate limit",
            "not_executed",
            "rate_limit",
            None,
        ),
        (
            "Error: Permission denied",
            "unrecoverable",
            "words:unrecoverable:ermission denied",
            None,
            "permission",
            None,
        ),
        (
            "Error: path must not be empty",
            "fixable",
            "words:fixable:must not be empty",
            None,
            "empty_value",
            None,
        ),
        ("Error: not available", "ambiguous", None, None, "not_available", None),
    ],
)
def test_rule_outcome_family_status(
    content: str, kind: str, rule: str | None, outcome: str | None, family: str | None, status: Any
) -> None:
    v = inspect_result(content)
    assert v.failed
    assert (v.kind, v.rule, v.outcome, v.family, v.status) == (kind, rule, outcome, family, status)


def test_priority_unrecoverable_then_transient_then_fixable() -> None:
    assert (
        inspect_result("Error: Permission denied; connection reset; validation error").kind == "unrecoverable"
    )
    assert inspect_result("Error: connection reset; validation error").kind == "transient"
    assert inspect_result("Error: validation error").kind == "fixable"
    assert inspect_result("Error: 503 Service Unavailable: Forbidden").kind == "unrecoverable"


def test_structure_beats_words_within_a_kind() -> None:
    v = inspect_result("Error: HTTP 503: the service is temporarily unavailable")
    assert v.rule == "http:503"


def test_not_executed_only_when_every_clue_says_so() -> None:
    v = inspect_result(
        "requests.exceptions.ConnectionError: Max retries exceeded (Caused by NewConnectionError: Connection refused)"
    )
    assert (v.kind, v.outcome) == ("transient", "not_executed")
    v = inspect_result(
        "requests.exceptions.ConnectionError: ('Connection aborted.', RemoteDisconnected('x'))"
    )
    assert (v.kind, v.outcome) == ("transient", "unknown_outcome")
    v = inspect_result("Error: fetch failed")
    assert (v.kind, v.outcome) == ("transient", "unknown_outcome")


# --- traps ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "Error code: 429 - {'error': {'code': 'insufficient_quota'}}",
        "Error: 429 You exceeded your current quota, please check your plan and billing details.",
        "Error: You have run out of credits",
        "Error: Your credit balance is too low to access the API.",
        "Error: 429 Quota exceeded for quota metric 'Requests per day'",
        "Error: RESOURCE_EXHAUSTED: daily quota exhausted",
        "Error: Rate limit reached on requests per day (RPD)",
        "Error: billing_hard_limit_reached",
    ],
)
def test_quota_traps_are_unrecoverable(content: str) -> None:
    v = inspect_result(content)
    assert (v.kind, v.rule, v.family) == ("unrecoverable", "trap:quota", "quota")


@pytest.mark.parametrize(
    "content",
    [
        "Error: 429 Quota exceeded for quota metric 'Requests per minute'",
        "Error: 429 Too Many Requests",
        "Error: Rate limit reached for tokens per min (TPM)",
    ],
)
def test_rate_limits_stay_transient(content: str) -> None:
    assert inspect_result(content).kind == "transient"


# --- stays ambiguous -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [
        "Error: TypeError(\"'NoneType' object is not subscriptable\")\n Please fix your mistakes.",
        "IndexError: list index out of range",
        "Error: 404 Not Found",
        "Error: Command timed out after 30s",
        "Error: not available",
        "FileNotFoundError: [Errno 2] No such file or directory: 'x'",
        "Error: order not found",
        "Error: payment method not found",
        '{"error": "Insufficient funds"}',
        "Error: User not authenticated. Please log in",
        "Error: something went wrong",
        "Error: found 503 lines and 403 warnings",
    ],
)
def test_stays_ambiguous(content: str) -> None:
    v = inspect_result(content, client="langchain" if "Please fix" in content else None)
    assert v.failed and v.kind == "ambiguous" and v.rule is None and v.outcome is None


def test_status_numbers_in_prose_are_not_a_status() -> None:
    v = inspect_result("Error: processed 503 rows, 429 skipped")
    assert v.kind == "ambiguous" and v.status is None


# --- retry_after ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "seconds"),
    [
        ("Error: HTTP 429 Too Many Requests (retry after 3s)", 3.0),
        ("Error: 429 Retry-After: 120", 120.0),
        ("Error: rate limited, retry-after-ms: 1500", 1.5),
        ("Error: Rate limit reached. Please try again in 1.5s.", 1.5),
        ("Error: Rate limit reached. Please try again in 250ms.", 0.25),
        ("Error: Rate limit reached. Please try again in 1m30s.", 90.0),
        ('{"error": "ratelimited", "retry_after": 7}', 7.0),
        ("Error: 503 Service Unavailable, retry in 2 minutes", 120.0),
    ],
)
def test_retry_after_from_text(content: str, seconds: float) -> None:
    assert inspect_result(content).retry_after == pytest.approx(seconds)


# --- the 4 KB window --------------------------------------------------------------------------------


def test_only_the_first_4kb_is_classified() -> None:
    late = "Error: something odd\n" + "a" * 5000 + " Forbidden"
    assert inspect_result(late).kind == "ambiguous"
    early = "Error: something odd\n" + "a" * 3000 + " Forbidden"
    assert inspect_result(early).kind == "unrecoverable"


def test_10mb_result_with_late_word_is_not_unrecoverable() -> None:
    huge = "Error: upload failed\n" + "x" * 5120 + " Forbidden " + "y" * 10_000_000
    start = time.perf_counter()
    v = inspect_result(huge)
    assert time.perf_counter() - start < 0.5
    assert v.failed and v.kind == "ambiguous"


def test_window_starts_after_leading_blanks() -> None:
    assert inspect_result(" " * 6000 + "Error: 403 Forbidden").kind == "unrecoverable"


# --- templates limit what is read --------------------------------------------------------------------


def test_langchain_invocation_kwargs_are_not_read() -> None:
    text = (
        "Error invoking tool 'q' with kwargs {'text': 'Permission denied rate limit'} with error:\n"
        " text: Field required\n Please fix the error and try again."
    )
    v = inspect_result(text, client="langchain")
    assert (v.kind, v.rule) == ("fixable", "template:langchain:tool-invocation")


def test_mcp_withheld_message_is_ambiguous() -> None:
    v = inspect_result("Error executing tool run_query", is_error=True, client="mcp")
    assert v.kind == "ambiguous"


def test_shell_output_words_are_not_read() -> None:
    text = "Command: ./deploy.sh\nStdout: 403 Forbidden\nStderr: rate limit\nError: (none)\nExit Code: 1"
    v = inspect_result(text, client="qwen-code")
    assert (v.failed, v.kind, v.family) == (True, "ambiguous", "exit_code")
    # the same text flagged by another client is still shell output
    assert inspect_result(text, is_error=True).kind == "ambiguous"


def test_pydantic_echoed_input_is_not_read() -> None:
    text = "Error: 1 validation error for Q\nq\n  Input should be a valid integer [type=int_parsing, input_value='Forbidden', input_type=str]"
    assert inspect_result(text).kind == "fixable"


# --- data-driven rules ----------------------------------------------------------------------------


def test_every_scanner_entry_is_found_in_context() -> None:
    # Every word, code name and marker of the rule data is found by the one-pass scanner,
    # wherever its anchor falls, surrounded by ordinary text.
    texts = {w.text for w in R.WORDS} | set(R.ERRNO) | set(R.GRPC_WORDS) | {m.text for m in R.MARKERS}
    for text in sorted(texts):
        padded = f"lorem ipsum ({text}) dolor sit amet"
        found = {entry.text for _, entry in _SCANNER.hits(padded)}
        assert text in found, text


def test_no_word_repeats_a_structured_name() -> None:
    # errno and gRPC names are matched from their own tables (the structured rule wins), and
    # the gRPC views (numbers, Go names, bare words) are derived from the one status table.
    texts = {w.text for w in R.WORDS}
    assert not texts & (set(R.ERRNO) | set(R.GRPC_WORDS))
    assert R.GRPC_NUMBERS[14] == "UNAVAILABLE" and R.GRPC_ALIASES["Canceled"] == "CANCELLED"
    assert set(R.GRPC_NUMBERS.values()) == set(R.GRPC_ALIASES.values()) == set(R.GRPC_STATUS)
    assert all(R.GRPC_STATUS[n].source.startswith(f"gRPC {i}") for i, n in R.GRPC_NUMBERS.items())


def test_every_http_status_in_the_table_is_read() -> None:
    for code, rule in R.HTTP_STATUS.items():
        v = inspect_result(f"Error: HTTP {code}")
        assert v.status == code
        assert v.kind == (rule.kind or "ambiguous"), code


def test_every_errno_in_the_table_is_read() -> None:
    for name, rule in R.ERRNO.items():
        v = inspect_result(f"Error: {name}: something")
        assert v.kind == (rule.kind or "ambiguous"), name


def test_every_grpc_code_is_read() -> None:
    for name, rule in R.GRPC_STATUS.items():
        v = inspect_result(f"Error: status = StatusCode.{name}")
        assert v.kind == (rule.kind or "ambiguous"), name
        assert v.status == name


def test_every_rule_entry_names_its_source() -> None:
    assert all(w.source for w in R.WORDS)
    assert all(t.source for t in R.TEMPLATES)
    assert all(s.source for s in R.SHELL_FORMATS)
    assert all(m.source for m in R.MARKERS)
    assert all(e.source for e in R.EXCEPTIONS)
    for table in (
        R.HTTP_STATUS,
        R.GRPC_STATUS,
        R.ERRNO,
        R.JSONRPC,
        R.SQLSTATE,
        R.SQLSTATE_CLASSES,
        R.AWS_ERROR_CODES,
    ):
        assert all(rule.source for rule in table.values())  # type: ignore[attr-defined]
    assert all(source for _, _, source in R.GENERIC_STARTS)


# --- public API shape ----------------------------------------------------------------------------


def test_not_failed_is_the_shared_constant() -> None:
    assert inspect_result("all fine") is NOT_FAILED


def test_inspect_message_uses_the_message_fields() -> None:
    msg = Message("tool", "Unknown tool: x", tool_call_id="c1", name="x", client="mcp")
    v = inspect_message(msg)
    assert (v.kind, v.detection) == ("fixable", "mcp:unknown-tool")
    msg = Message("tool", "fine", tool_call_id="c1", exception=PermissionError(13, "Permission denied"))
    assert inspect_message(msg).kind == "unrecoverable"
    msg = Message("tool", "fine", tool_call_id="c1", is_error=True)
    assert inspect_message(msg).kind == "ambiguous"


def test_cached_and_uncached_verdicts_agree() -> None:
    text = "Error: HTTP 429 Too Many Requests (retry after 3s)"
    first = inspect_result(text)
    _inspect_text.cache_clear()
    assert inspect_result(text) == first
    assert inspect_result([{"type": "text", "text": text}]) == first


def test_internal_errors_fail_open(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolerr._classify as classify

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(classify, "_classify", broken)
    verdict = inspect_result("Error: 503 Service Unavailable", exception=TimeoutError())
    assert (verdict.failed, verdict.kind, verdict.detection) == (True, "ambiguous", "exception")
