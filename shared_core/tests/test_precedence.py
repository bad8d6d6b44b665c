"""Precedence from the most specific evidence (issue 24): codes and words of the message or
body over the HTTP status class; protocols' own codes never read as HTTP; conflicts stay
ambiguous; the name fallback only where no rule decided."""

from __future__ import annotations

import ftplib
import smtplib
from typing import Any

import pytest
from test_exceptions import Response, fake, with_attrs
from toolerr import inspect_result

HTTPStatusError = fake("httpx", "HTTPStatusError")


def _status_error(status: int, body: bytes, message: str = "the request failed") -> BaseException:
    response = Response(status)
    response._content = body  # type: ignore[attr-defined]
    return with_attrs(HTTPStatusError(message), response=response)


TEXTS: list[tuple[str, str | None, str]] = [
    # (text with an error flag, kind, why)
    ("403 Forbidden: API rate limit exceeded for 10.0.0.1.", "transient", "a 403 that is a rate limit"),
    ("HTTP 503 Service Unavailable: model worker ran out of memory", "unrecoverable", "a 503 out of memory"),
    (
        "500 Internal Server Error: Bind for 0.0.0.0:80 failed: port is already allocated",
        "unrecoverable",
        "port",
    ),
    ("400 Bad Request: your account has been suspended", "unrecoverable", "account state in a 400"),
    ("422 Unprocessable Entity: repository already exists on this account", None, "already exists"),
    ("401 Unauthorized: the password did not match", "unrecoverable", "the status beats a fixable word"),
    ("429 Too Many Requests", "transient", "a bare 429 stays transient (the floor)"),
    ("ValueError: city must be a city name, got '12345'", "fixable", "a validation naming the bad value"),
    ("Argument days has type 'string' but should be 'integer'", "fixable", "a type check"),
    ("500 Syntax error, command unrecognized.", "fixable", "an FTP reply, not an HTTP 500"),
    ("503 Bad sequence of commands.", None, "an FTP reply, not an HTTP 503"),
    ("530 Login incorrect.", "unrecoverable", "an FTP reply"),
    ("WRONGTYPE Operation against a key holding the wrong kind of value", "fixable", "Redis prefix"),
    ("NOAUTH Authentication required.", "unrecoverable", "Redis prefix"),
    ("OOM command not allowed when used memory > 'maxmemory'.", "unrecoverable", "Redis OOM"),
    ("error: pathspec 'nosuch' did not match any file(s) known to git", None, "a missing ref, not an edit"),
    (
        "received 1008 (policy violation) forbidden origin; then sent 1008 (policy violation)",
        "unrecoverable",
        "WS",
    ),
    ("received 1013 (try again later); then sent 1013 (try again later)", "transient", "WebSocket 1013"),
    (
        "Error: ResponseError('WRONGTYPE Operation against a key')",
        "fixable",
        "a bare ResponseError is not urllib3's",
    ),
    ("Error: ReadError('unexpected end of archive')", None, "a bare ReadError names no network error"),
]


@pytest.mark.parametrize(("text", "kind", "why"), TEXTS, ids=[t[2] for t in TEXTS])
def test_text_precedence(text: str, kind: str | None, why: str) -> None:
    verdict = inspect_result(text, is_error=True)
    assert verdict.failed, why
    assert verdict.kind == (kind or "ambiguous"), (why, verdict)


def test_a_403_whose_body_says_rate_limit_is_transient() -> None:
    exc = _status_error(403, b'{"message": "API rate limit exceeded for user ID 1."}')
    verdict = inspect_result("x", exception=exc)
    assert (verdict.kind, verdict.outcome, verdict.status) == ("transient", "not_executed", 403)


def test_a_503_whose_body_names_a_permanent_condition_is_unrecoverable() -> None:
    exc = _status_error(503, b'{"message": "This node is not a swarm manager."}')
    assert inspect_result("x", exception=exc).kind == "unrecoverable"


def test_a_503_whose_body_says_nothing_more_stays_transient() -> None:
    exc = _status_error(503, b'{"message": "upstream unavailable, please retry"}')
    assert inspect_result("x", exception=exc).kind == "transient"


def test_a_422_already_exists_stays_ambiguous() -> None:
    exc = _status_error(422, b'{"message": "Validation Failed", "errors": [{"code": "already_exists"}]}')
    verdict = inspect_result("x", exception=exc)
    assert verdict.failed and verdict.kind == "ambiguous"


def test_slack_error_on_http_200() -> None:
    SlackApiError = fake("slack_sdk.errors", "SlackApiError")

    class SlackResponse:
        status_code = 200
        headers: dict[str, str] = {}  # noqa: RUF012
        data: dict[str, Any] = {"ok": False, "error": "ratelimited"}  # noqa: RUF012

    exc = with_attrs(SlackApiError("The request to the Slack API failed."), response=SlackResponse())
    verdict = inspect_result("x", exception=exc)
    assert (verdict.kind, verdict.rule) == ("transient", "code:ratelimited")
    SlackResponse.data = {"ok": False, "error": "invalid_auth"}
    assert inspect_result("x", exception=with_attrs(SlackApiError("y"), response=SlackResponse())).kind == (
        "unrecoverable"
    )


def test_kubernetes_status_reason() -> None:
    ApiException = fake("kubernetes.client.exceptions", "ApiException")
    body = '{"kind": "Status", "status": "Failure", "reason": "AlreadyExists", "code": 409}'
    exc = with_attrs(ApiException("(409)\nReason: Conflict"), status=409, body=body)
    assert inspect_result("x", exception=exc).kind == "ambiguous"
    body = '{"kind": "Status", "status": "Failure", "reason": "Invalid", "code": 422}'
    assert (
        inspect_result("x", exception=with_attrs(ApiException("(422)"), status=422, body=body)).kind
        == "fixable"
    )


@pytest.mark.parametrize(
    ("exc", "kind", "outcome"),
    [
        (
            smtplib.SMTPAuthenticationError(535, b"5.7.8 Authentication credentials invalid"),
            "unrecoverable",
            None,
        ),
        (smtplib.SMTPSenderRefused(451, b"4.3.0 Temporary server error", "a@b"), "transient", "not_executed"),
        (
            smtplib.SMTPDataError(552, b"Requested mail action aborted: exceeded storage allocation"),
            "unrecoverable",
            None,
        ),
        (smtplib.SMTPRecipientsRefused({"x@y": (550, b"5.1.1 User unknown")}), "ambiguous", None),
        (
            smtplib.SMTPRecipientsRefused({"x@y": (553, b"5.1.3 Bad recipient address syntax")}),
            "fixable",
            None,
        ),
        (smtplib.SMTPSenderRefused(550, b"5.7.1 Sender rejected by policy", "a@b"), "unrecoverable", None),
        (ftplib.error_perm("530 Login incorrect."), "unrecoverable", None),
        (ftplib.error_perm("501 Syntax error in parameters or arguments."), "fixable", None),
        (ftplib.error_perm("550 No such file or directory."), "ambiguous", None),
        (ftplib.error_temp("421 Too many connections (4) from this IP"), "transient", "not_executed"),
        (
            ftplib.error_perm("552 Requested file action aborted. Exceeded storage allocation."),
            "unrecoverable",
            None,
        ),
    ],
    ids=lambda v: str(v)[:40],
)
def test_smtp_and_ftp_replies(exc: BaseException, kind: str, outcome: str | None) -> None:
    verdict = inspect_result("x", exception=exc)
    assert (verdict.kind, verdict.outcome) == (kind, outcome), verdict


def test_websocket_close_code() -> None:
    ConnectionClosedError = fake("websockets.exceptions", "ConnectionClosedError")

    class Close:
        def __init__(self, code: int) -> None:
            self.code = code

    exc = with_attrs(ConnectionClosedError("received 1011; then sent 1011"), rcvd=Close(1011), sent=None)
    verdict = inspect_result("x", exception=exc)
    assert (verdict.kind, verdict.outcome, verdict.rule) == ("transient", "unknown_outcome", "websocket:1011")
    exc = with_attrs(ConnectionClosedError("received 1009; then sent 1009"), rcvd=Close(1009), sent=None)
    assert inspect_result("x", exception=exc).kind == "fixable"


def test_parser_classes_are_fixable_unless_the_message_says_more() -> None:
    ScannerError = fake("yaml.scanner", "ScannerError")
    assert (
        inspect_result("x", exception=ScannerError("mapping values are not allowed here")).kind == "fixable"
    )
    ConstructorError = fake("yaml.constructor", "ConstructorError")
    unsafe = ConstructorError(
        "could not determine a constructor for the tag 'tag:yaml.org,2002:python/name:os.system'"
    )
    assert inspect_result("x", exception=unsafe).kind == "unrecoverable"


def test_a_class_that_names_the_condition_beats_its_status() -> None:
    RepositoryNotFoundError = fake("huggingface_hub.errors", "RepositoryNotFoundError")
    exc = with_attrs(
        RepositoryNotFoundError("401 Client Error. Repository Not Found"), response=Response(401)
    )
    assert inspect_result("x", exception=exc).kind == "ambiguous"


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("SendingPausedException", "unrecoverable"),
        ("MailFromDomainNotVerifiedException", "unrecoverable"),
        ("InvalidRequestContentException", "fixable"),
        ("ThrottlingQueueFullError", "transient"),
        ("WidgetNotFoundError", "ambiguous"),
        ("GizmoError", "ambiguous"),
        ("_InactiveRpcError", "ambiguous"),
    ],
)
def test_name_fallback(name: str, kind: str) -> None:
    cls = fake("some_sdk.errors", name)
    verdict = inspect_result("x", exception=cls("the call failed"))
    assert verdict.failed and verdict.kind == kind


def test_name_fallback_never_beats_a_rule() -> None:
    # the class says "invalid", the body's code says the account is suspended
    InvalidThingError = fake("some_sdk.errors", "InvalidThingError")
    exc = with_attrs(InvalidThingError("no"), response=Response(403))
    assert inspect_result("x", exception=exc).kind == "unrecoverable"
