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


# --- a body's error code over the HTTP status class it came with ----------------------------


@pytest.mark.parametrize(
    ("status", "body", "kind", "outcome"),
    [
        # Meilisearch: a feature of the instance, not the call
        (
            400,
            b'{"code": "feature_not_enabled", "message": "Using the route requires a feature."}',
            "unrecoverable",
            None,
        ),
        (
            400,
            b'{"error": {"code": "facet_search_disabled", "message": "The facet search is off."}}',
            "unrecoverable",
            None,
        ),
        # Salesforce's errorCode list: an existing record, a lock, a permission
        (400, b'[{"message": "duplicate value found", "errorCode": "DUPLICATE_VALUE"}]', "ambiguous", None),
        (
            400,
            b'[{"message": "unable to obtain exclusive access", "errorCode": "UNABLE_TO_LOCK_ROW"}]',
            "transient",
            "not_executed",
        ),
        (400, b'[{"message": "x", "errorCode": "INSUFFICIENT_ACCESS_OR_READONLY"}]', "unrecoverable", None),
        # the code says what the status says, or says the call is wrong: the status decides
        (
            400,
            b'[{"message": "bad", "errorCode": "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST"}]',
            "fixable",
            None,
        ),
        (400, b'{"code": "invalid_input", "message": "invalid input in field name"}', "fixable", None),
        (
            500,
            b'{"code": "internal", "message": "An internal error has occurred."}',
            "transient",
            "unknown_outcome",
        ),
        # a 429 is itself specific: a per-minute quota is a rate limit
        (429, b'{"error": {"code": "quota_exceeded", "message": "slow down"}}', "transient", "not_executed"),
    ],
)
def test_a_body_code_that_names_a_state_beats_the_status_class(
    status: int, body: bytes, kind: str, outcome: str | None
) -> None:
    verdict = inspect_result("x", exception=_status_error(status, body))
    assert (verdict.kind, verdict.outcome) == (kind, outcome)


def test_a_code_in_the_message_of_an_sdk_error_is_read() -> None:
    # simple-salesforce and minio put the service's code in the message, not a body
    SalesforceMalformedRequest = fake("simple_salesforce.exceptions", "SalesforceMalformedRequest")
    exc = with_attrs(
        SalesforceMalformedRequest(
            "Malformed request https://x/services/data/v59.0/sobjects/Contact/. Response content: "
            "[{'message': 'duplicate value found', 'errorCode': 'DUPLICATE_VALUE', 'fields': []}]"
        ),
        response=Response(400),
    )
    assert inspect_result("x", exception=exc).kind == "ambiguous"
    S3Error = fake("minio.error", "S3Error")
    exc = with_attrs(
        S3Error("S3 operation failed; code: XMinioAdminBucketQuotaExceeded, message: Bucket quota exceeded"),
        response=Response(400),
    )
    assert inspect_result("x", exception=exc).kind == "unrecoverable"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ('HTTP Error 400: {"error": {"code": "feature_not_enabled", "message": "x"}}', "unrecoverable"),
        (
            "400 Bad Request: [{'message': 'duplicate value found', 'errorCode': 'DUPLICATE_VALUE'}]",
            "ambiguous",
        ),
        ('HTTP Error 400: {"error": {"code": "invalid_input", "message": "x"}}', "fixable"),
        ("400 Bad Request: Error code: no_space_left_on_device.", "unrecoverable"),
        # a code without a key is prose, not a code
        ("400 Bad Request: the feature_not_enabled flag was sent", "fixable"),
    ],
)
def test_a_body_code_in_a_text_beats_the_status_class(text: str, kind: str) -> None:
    assert inspect_result(text, is_error=True).kind == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a service that will not say whether the thing is missing or hidden: stays ambiguous
        (
            "ApiError: There is no content with the given id, or the calling user does not have "
            "permission to view the content",
            "ambiguous",
        ),
        ("Object 'ANALYTICS.PUBLIC.T' does not exist or not authorized.", "ambiguous"),
        ("HTTP 403: Forbidden: you do not have permission to view it", "unrecoverable"),
        # MySQL's SQLSTATE 42000 is also a syntax error's: the message says which
        (
            "OperationalError: (1142, \"SELECT command denied to user 'r'@'127.0.0.1' for table `s`.`t`\")",
            "unrecoverable",
        ),
        (
            "OperationalError: (1226, \"User 'b' has exceeded the 'max_user_connections' resource "
            '(current value: 1)")',
            "transient",
        ),
        (
            "OperationalError: (1226, \"User 't' has exceeded the 'max_queries_per_hour' resource "
            '(current value: 2)")',
            "unrecoverable",
        ),
        # an API key missing or refused; billing not enabled
        ("GeocoderQueryError: The provided API key is invalid.", "unrecoverable"),
        ("ValueError: Must provide API key or enterprise credentials when creating client.", "unrecoverable"),
        ("GeocoderQueryError: You must enable Billing on the Google Cloud Project", "unrecoverable"),
    ],
)
def test_state_and_hidden_resources_in_library_messages(text: str, kind: str) -> None:
    assert inspect_result(text, is_error=True).kind == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        # a record the model named that is not there, inside a 400 or a BadRequest class
        ("BadRequest: Chat not found", "ambiguous"),
        ("BadRequest: Message to edit not found", "ambiguous"),
        ("HTTPError: User 'jdoe2' does not exist.", "ambiguous"),
        ("HTTPError: No project could be found with key 'OPSX'.", "ambiguous"),
        (
            'GithubException: No commit found for SHA: 0000000: 422 {"message": "No commit found"}',
            "ambiguous",
        ),
        # a name that happens to be an entity noun, in the model's own vocabulary: not a record
        ('Catalog Error: Table with name orders does not exist! Did you mean "members"?', "fixable"),
        ('relation "orders" does not exist', "fixable"),
        # rights the caller lacks, inside a 400
        ("BadRequest: Not enough rights to manage pinned messages in the chat", "unrecoverable"),
        ("BadRequest: Need administrator rights in the channel chat", "unrecoverable"),
        ('nats: permissions violation for publish to "billing.invoices"', "unrecoverable"),
        # stored state: versions, sequences, duplicate and foreign keys
        ("InvalidRequest: check-and-set parameter did not match the current version", "ambiguous"),
        ("KeyWrongLastSequenceError: nats: wrong last sequence: 2", "ambiguous"),
        ("IntegrityError: (1062, \"Duplicate entry 'ann@example.com' for key 'email'\")", "ambiguous"),
        (
            "IntegrityError: (1452, 'Cannot add or update a child row: a foreign key constraint fails')",
            "ambiguous",
        ),
        # limits of the installation, not of the call
        (
            "ValueError: Exceeds the limit (4300 digits) for integer string conversion: value has 5000 "
            "digits; use sys.set_int_max_str_digits() to increase the limit",
            "unrecoverable",
        ),
        (
            "BadRequestError(400, 'validation_exception', 'Validation Failed: 1: this action would add "
            "[2] shards, but this cluster currently has [1000]/[1000] maximum shards open;')",
            "unrecoverable",
        ),
        (
            "nats: BadRequestError: code=400 err_code=10026 description='maximum consumers limit reached'",
            "unrecoverable",
        ),
        (
            "nats: BadRequestError: code=400 err_code=10027 description='maximum number of streams reached'",
            "unrecoverable",
        ),
        # a maximum that is a busy server or a client's own retries, not a quota
        ("503 Service Unavailable: maximum number of concurrent requests reached", "transient"),
        ("maximum number of retries exceeded", "ambiguous"),
        # a login that names the user it could not find: credentials, not a missing record
        ("401 Unauthorized: User not found", "unrecoverable"),
        ("Authentication failed: user not found", "unrecoverable"),
        ("Invalid credentials: the user does not exist or the password is incorrect", "unrecoverable"),
        ("openai.RateLimitError: Rate limit reached for gpt-4o", "transient"),
        # a token valid from a later time; a rate limit's "budget"; a cipher's check; a code
        # that only starts like an auth code
        ("ImmatureSignatureError: The token is not yet valid (nbf)", "transient"),
        ("RatelimitBudgetExceeded: Rate limit budget exceeded!", "transient"),
        ("Budget exceeded for this billing account", "unrecoverable"),
        ("InvalidRequest: cipher: message authentication failed", "ambiguous"),
        ("Message authentication failed", "ambiguous"),
        ("paramiko.ssh_exception.AuthenticationException: Authentication failed.", "unrecoverable"),
        ("400 Bad Request: Error code: invalid_api_key_actions. Error message: Unknown value", "fixable"),
    ],
)
def test_named_records_rights_state_and_limits_beat_the_class(text: str, kind: str) -> None:
    assert inspect_result(text, is_error=True).kind == kind


NatsServerError = fake("nats.js.errors", "ServerError")
NatsBadRequestError = fake("nats.js.errors", "BadRequestError")


def _nats(cls: type[Exception], code: int, err_code: int, description: str) -> BaseException:
    exc = cls()
    return with_attrs(exc, code=code, err_code=err_code, description=description)


@pytest.mark.parametrize(
    ("exc", "kind", "rule"),
    [
        # a configuration error sent as a 500: the server's code, not the class, decides
        (_nats(NatsServerError, 500, 10052, "invalid subject"), "fixable", "nats:10052"),
        (
            _nats(NatsServerError, 500, 10047, "insufficient storage resources available"),
            "unrecoverable",
            "nats:10047",
        ),
        (
            _nats(NatsBadRequestError, 400, 10027, "maximum number of streams reached"),
            "unrecoverable",
            "nats:10027",
        ),
        (_nats(NatsBadRequestError, 400, 10058, "stream name already in use"), "ambiguous", None),
        # a stream being torn down (server state): the table leaves it to the status
        (_nats(NatsServerError, 500, 10096, "stream not valid"), "transient", None),
        # a code the table leaves to the status class
        (
            _nats(NatsBadRequestError, 400, 10083, "consumer idle heartbeat needs to be >= 100ms"),
            "fixable",
            None,
        ),
    ],
)
def test_nats_jetstream_err_code_beats_the_status_class(
    exc: BaseException, kind: str, rule: str | None
) -> None:
    verdict = inspect_result("", exception=exc)
    assert verdict.kind == kind
    if rule is not None:
        assert verdict.rule == rule


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("nats: ServerError: code=500 err_code=10052 description='invalid subject'", "fixable"),
        (
            "nats: ServiceUnavailableError: code=503 err_code=10039 description='JetStream not enabled for account'",
            "unrecoverable",
        ),
        ("nats: NotFoundError: code=404 err_code=10059 description='stream not found'", "ambiguous"),
        ("nats: BadRequestError: code=400 err_code=10071 description='wrong last sequence: 2'", "ambiguous"),
    ],
)
def test_nats_jetstream_err_code_in_text(text: str, kind: str) -> None:
    assert inspect_result(text, is_error=True).kind == kind


PikaConnectionError = fake("pika.exceptions", "AMQPConnectionError")
PikaConnectionClosedByBroker = fake("pika.exceptions", "ConnectionClosedByBroker", (PikaConnectionError,))
PikaChannelClosedByBroker = fake("pika.exceptions", "ChannelClosedByBroker")


def _amqp(cls: type[Exception], reply_code: int, reply_text: str) -> BaseException:
    return with_attrs(cls(reply_code, reply_text), reply_code=reply_code, reply_text=reply_text)


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        # the broker refused a command: not a connection that failed
        # command-invalid: a mistyped exchange type, or a plugin the broker lacks
        (
            _amqp(PikaConnectionClosedByBroker, 503, "COMMAND_INVALID - unknown exchange type 'fanoutt'"),
            "ambiguous",
        ),
        (_amqp(PikaConnectionClosedByBroker, 540, "NOT_IMPLEMENTED - prefetch_size!=0 (1024)"), "fixable"),
        (
            _amqp(PikaChannelClosedByBroker, 406, "PRECONDITION_FAILED - inequivalent arg 'durable'"),
            "ambiguous",
        ),
        (_amqp(PikaChannelClosedByBroker, 404, "NOT_FOUND - no queue 'orders' in vhost 'shop'"), "ambiguous"),
        (
            _amqp(PikaConnectionClosedByBroker, 320, "CONNECTION_FORCED - broker forced connection closure"),
            "transient",
        ),
        # a code the table leaves to the words: a permission
        (
            _amqp(
                PikaChannelClosedByBroker, 403, "ACCESS_REFUSED - access to queue 'q' refused for user 'u'"
            ),
            "unrecoverable",
        ),
    ],
)
def test_amqp_reply_code_beats_the_connection_class(exc: BaseException, kind: str) -> None:
    assert inspect_result("", exception=exc).kind == kind


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (
            "ChannelClosedByBroker: (406, \"PRECONDITION_FAILED - inequivalent arg 'x-message-ttl'\")",
            "ambiguous",
        ),
        (
            "ConnectionClosedByBroker: (503, \"COMMAND_INVALID - unknown exchange type 'fanoutt'\")",
            "ambiguous",
        ),
        (
            "ConnectionClosedByBroker: (320, 'CONNECTION_FORCED - broker forced connection closure')",
            "transient",
        ),
    ],
)
def test_amqp_reply_names_in_text(text: str, kind: str) -> None:
    assert inspect_result(text, is_error=True).kind == kind
