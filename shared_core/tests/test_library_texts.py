"""Issue 11 without the libraries: their text formats, and exceptions shaped as theirs
(module and class names, attributes), classified as on the live corpus
(tests/real_errors, nox -s real_errors)."""

from __future__ import annotations

import builtins
import socket
from http import HTTPStatus
from typing import Any

import pytest
from toolerr import inspect_result


@pytest.mark.parametrize(
    ("text", "kind", "outcome"),
    [
        ('Could not connect to the endpoint URL: "http://127.0.0.1:9/"', "transient", "not_executed"),
        ('Read timeout on endpoint URL: "http://127.0.0.1:9/"', "transient", "unknown_outcome"),
        ("Unable to locate credentials", "unrecoverable", None),
        (
            "Cannot connect to host api.example.com:443 ssl:default [Connection refused]",
            "transient",
            "not_executed",
        ),
        ("Connection timeout to host http://127.0.0.1:9/x", "transient", "not_executed"),
        ("503 backend unavailable", "transient", "not_executed"),
        ("429 GET https://translate.googleapis.com/v3: Quota exceeded per day", "unrecoverable", None),
        ("Connection error.", "transient", "unknown_outcome"),
        ("All connection attempts failed", "transient", "not_executed"),
        ("[Errno -2] Name or service not known", "transient", "not_executed"),
        (
            "'P' is too short\n\nFailed validating 'minLength' in schema['properties']['city']:",
            "fixable",
            None,
        ),
        ('near "SELEC": syntax error', "fixable", None),
        ("no such column: name", "fixable", None),
        ("UNIQUE constraint failed: users.email", "ambiguous", None),
        ('relation "orders" does not exist\nLINE 1: SELECT * FROM orders', "fixable", None),
        ("deadlock detected", "transient", "not_executed"),
        ("Invalid timezone: 'Mars/Phobos'", "fixable", None),
        # google-adk 2.x for a tool name the model made up: its function response and its ValueError
        (
            "Invoking `get_wether()` failed as no tool with that name is available.",
            "fixable",
            None,
        ),
        (
            "Tool 'get_wether' not found.\nAvailable tools: get_weather\n\nPossible causes:\n"
            "  1. LLM hallucinated the function name - review agent instruction clarity",
            "fixable",
            None,
        ),
        ("Cannot specify both 'path' and 'content'", "fixable", None),
        # as the reference servers return them (packages/mcp/tests/test_reference_server_errors.py)
        ("Invalid timezone: 'No time zone found with key Mars/Olympus_Mons'", "fixable", None),
        ("Invalid time format. Expected HH:MM [24-hour format]", "fixable", None),
        ("Cannot specify both head and tail parameters simultaneously", "fixable", None),
        ("Could not find exact match for edit:\nthree", "fixable", None),
        (
            "Access denied - path outside allowed directories: /etc/passwd not in /tmp/w",
            "unrecoverable",
            None,
        ),
        ("Ref 'no-such-branch' did not resolve to an object", "ambiguous", None),
        ("Cannot create branch 'main': refs/heads/main already exists", "ambiguous", None),
        (
            "Failed to fetch http://127.0.0.1:9/: ConnectError('All connection attempts failed')",
            "transient",
            "not_executed",
        ),
        (
            "ResourceExhausted(\"Quota exceeded for quota metric 'Requests' and limit 'Requests per minute'\")",
            "transient",
            "not_executed",
        ),
        ("Invalid API key: check the timezone settings", "unrecoverable", None),
        ("Error code: 400 - Billing hard limit has been reached", "unrecoverable", None),
    ],
)
def test_library_text(text: str, kind: str, outcome: str | None) -> None:
    verdict = inspect_result(f"Error executing tool t: {text}", client="mcp")
    assert (verdict.kind, verdict.outcome) == (kind, outcome), verdict


def _shaped(module: str, name: str, base: type[BaseException] = Exception, **attrs: Any) -> BaseException:
    cls = type(name, (base,), {"__module__": module})
    exc = cls("failed")
    for key, value in attrs.items():
        setattr(exc, key, value)
    return exc


class _Response:
    def __init__(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.status_code = status
        self._content = body
        self.headers = headers or {}


def test_a_429_whose_body_says_the_quota_is_gone_is_unrecoverable() -> None:
    body = b'{"error": {"code": "insufficient_quota", "message": "You exceeded your current quota"}}'
    exc = _shaped("httpx", "HTTPStatusError", response=_Response(429, body))
    verdict = inspect_result("Client error '429 Too Many Requests'", exception=exc)
    assert verdict.kind == "unrecoverable" and verdict.status == 429


def test_a_403_with_no_rate_left_is_a_rate_limit() -> None:
    exc = _shaped(
        "requests.exceptions", "HTTPError", response=_Response(403, b"{}", {"x-ratelimit-remaining": "0"})
    )
    verdict = inspect_result("403 Client Error: Forbidden", exception=exc)
    assert (verdict.kind, verdict.outcome) == ("transient", "not_executed")


def test_an_api_error_code_beats_the_status_class() -> None:
    exc = _shaped(
        "google.api_core.exceptions", "BadRequest", code=HTTPStatus.BAD_REQUEST, reason="API_KEY_INVALID"
    )
    verdict = inspect_result("400 API key not valid", exception=exc)
    assert verdict.kind == "unrecoverable"
    assert type(verdict.status) is int and verdict.status == 400


def test_aws_not_found_sent_with_400_stays_ambiguous() -> None:
    response = {"Error": {"Code": "ResourceNotFoundException"}, "ResponseMetadata": {"HTTPStatusCode": 400}}
    exc = _shaped("botocore.errorfactory", "ResourceNotFoundException", response=response)
    assert inspect_result("An error occurred (ResourceNotFoundException)", exception=exc).kind == "ambiguous"


def test_dns_failure_is_turned_away() -> None:
    exc = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    verdict = inspect_result("gaierror", exception=exc)
    assert (verdict.kind, verdict.outcome) == ("transient", "not_executed")


def test_an_exception_group_is_decided_from_its_members() -> None:
    ExceptionGroup = builtins.ExceptionGroup
    group = ExceptionGroup(
        "unhandled errors in a TaskGroup", [ConnectionRefusedError(111, "refused"), ValueError("x")]
    )
    verdict = inspect_result("unhandled errors in a TaskGroup (2 sub-exceptions)", exception=group)
    assert (verdict.kind, verdict.outcome) == ("transient", "not_executed")
    group = ExceptionGroup("g", [TimeoutError("timed out"), ConnectionRefusedError(111, "refused")])
    assert inspect_result("g", exception=group).outcome == "unknown_outcome"
    group = ExceptionGroup("g", [PermissionError(13, "Permission denied"), TimeoutError()])
    assert inspect_result("g", exception=group).kind == "unrecoverable"


def test_the_cause_decides_the_outcome() -> None:
    exc = _shaped("openai", "APIConnectionError")
    exc.__cause__ = ConnectionRefusedError(111, "Connection refused")
    verdict = inspect_result("Connection error.", exception=exc)
    assert (verdict.kind, verdict.outcome) == ("transient", "not_executed")
    exc.__cause__ = TimeoutError("timed out")
    assert inspect_result("Connection error.", exception=exc).outcome == "unknown_outcome"
