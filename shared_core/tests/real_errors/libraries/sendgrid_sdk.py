"""sendgrid: Twilio SendGrid's v3 API errors as ``python_http_client`` raises them for the
SDK (``BadRequestsError``, ``UnauthorizedError``, ``ForbiddenError``, ``NotFoundError``,
``PayloadTooLargeError``, ``TooManyRequestsError``, ``InternalServerError``,
``ServiceUnavailableError``) and urllib's transport failures, through
``SendGridAPIClient(host=...)`` pointed at a local stand-in of api.sendgrid.com.

Bodies are SendGrid's ``{"errors": [{"message", "field", "help"}]}`` with the messages of
the Mail Send errors page (docs.sendgrid.com/api-reference/mail-send/errors) and the v3
API's rate limit answer (docs.sendgrid.com/api-reference/how-to-use-the-sendgrid-v3-api/
rate-limits: 429 with ``X-RateLimit-*`` headers).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "sendgrid"
REQUIRES = ["sendgrid>=6.10,<7"]

_MAIL = "SendGrid Mail Send errors (docs.sendgrid.com/api-reference/mail-send/errors)"
_RATE = "SendGrid v3 rate limits (docs.sendgrid.com/api-reference/how-to-use-the-sendgrid-v3-api/rate-limits)"


def _sg(status: int, message: str, field: str | None = None, source: str = _MAIL, **headers: str) -> Reply:
    return Reply(
        status, {"errors": [{"message": message, "field": field, "help": None}]}, dict(headers), source
    )


_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    (
        "from_not_verified",
        "send",
        _sg(
            403,
            "The from address does not match a verified Sender Identity. Mail cannot be sent until this error is resolved. Visit https://sendgrid.com/docs/for-developers/sending-email/sender-identity/ to see the Sender Identity requirements",
            "from",
        ),
        U,
        None,
        "sender identity not verified",
    ),
    (
        "personalizations_required",
        "send",
        _sg(
            400,
            "The personalizations field is required and must have at least one personalization.",
            "personalizations",
        ),
        F,
        None,
        "no recipients given",
    ),
    (
        "invalid_to",
        "send",
        _sg(400, "Does not contain a valid address.", "personalizations.0.to.0.email"),
        F,
        None,
        "recipient address invalid",
    ),
    (
        "subject_required",
        "send",
        _sg(
            400,
            "The subject is required. You can get around this requirement if you use a template with a subject defined or if every personalization has a subject defined.",
            "subject",
        ),
        F,
        None,
        "subject missing",
    ),
    (
        "content_required",
        "send",
        _sg(
            400,
            "Unless a valid template_id is provided, the content parameter is required. There must be at least one defined content block. We typically suggest both text/plain and text/html blocks are included, but only one block is required.",
            "content",
        ),
        F,
        None,
        "content missing",
    ),
    (
        "template_not_found",
        "send",
        _sg(400, "The template_id must be a valid GUID, you provided 'welcome-email'.", "template_id"),
        F,
        None,
        "template id not a GUID",
    ),
    (
        "send_at_past",
        "send",
        _sg(400, "The send_at parameter cannot be more than 72 hours in the future.", "send_at"),
        F,
        None,
        "send_at too far ahead",
    ),
    (
        "bad_key",
        "send",
        _sg(401, "The provided authorization grant is invalid, expired, or revoked"),
        U,
        None,
        "API key invalid or revoked",
    ),
    (
        "wrong_credentials",
        "send",
        _sg(401, "Permission denied, wrong credentials"),
        U,
        None,
        "wrong credentials",
    ),
    ("max_credits", "send", _sg(401, "Maximum credits exceeded"), U, None, "account email credits exhausted"),
    ("scope_forbidden", "add_contacts", _sg(403, "access forbidden"), U, None, "API key lacks the scope"),
    (
        "list_not_found",
        "get_list",
        _sg(
            404,
            "list ID does not exist",
            "list_id",
            "SendGrid Marketing lists API (docs.sendgrid.com/api-reference/lists/get-a-list-by-id)",
        ),
        A,
        None,
        "contact list not found",
    ),
    (
        "payload_too_large",
        "send",
        _sg(413, "The JSON payload you have included in your request is too large."),
        F,
        None,
        "request above 20 MB",
    ),
    (
        "rate_limit",
        "send",
        _sg(
            429,
            "too many requests",
            source=_RATE,
            **{"X-RateLimit-Limit": "600", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1764547260"},
        ),
        T,
        NE,
        "rate limit",
    ),
    ("internal", "send", _sg(500, "An internal server error occurred."), T, UO, "internal server error"),
    (
        "unavailable",
        "send",
        Reply(503, "Service Unavailable", {}, "a gateway's 503"),
        T,
        NE,
        "service unavailable",
    ),
]


# the arguments the model wrote for each tool
_SEND = {
    "from_email": "noreply@acme.example",
    "to_emails": "jane@example.com",
    "subject": "Receipt",
    "plain_text_content": "Thanks",
}
_CONTACTS = {"contacts": [{"email": "jane@example.com"}]}
_LIST = {"list_id": "b2f1"}


def cases(ctx: Any) -> Iterator[generate.Case]:
    from sendgrid import SendGridAPIClient
    from sendgrid.helpers.mail import Mail

    def client(base: str) -> Any:
        sg = SendGridAPIClient(
            "SG.aBcDeFgHiJkLmNoPqRsTuV.wXyZ0123456789aBcDeFgHiJkLmNoPqRsTuVwXyZ01", host=base
        )
        sg.client.timeout = _saas.TIMEOUT
        return sg

    def calls(sg: Any) -> dict[str, tuple[str, dict[str, Any], Any]]:
        """call -> (tool, the model's arguments, the call); the API key and host are the tool's."""
        return {
            "send": ("send_email", _SEND, lambda: sg.send(Mail(**_SEND))),
            "add_contacts": (
                "add_contacts",
                _CONTACTS,
                lambda: sg.client.marketing.contacts.put(request_body=_CONTACTS),
            ),
            "get_list": ("get_list", _LIST, lambda: sg.client.marketing.lists._(_LIST["list_id"]).get()),
        }

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"sendgrid-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "SENDGRIDPORT", "nginx") as svc:
        c = calls(client(svc.base))
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = c[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": "https://api.unreachable-host.invalid"}.get(
                key, svc.base
            )
            tool, args, fn = calls(client(base))["send"]
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)
        # the helper's own checks (nothing sent)
        bad_to = {
            "from_email": "noreply@acme.example",
            "to_emails": 42,
            "subject": "x",
            "plain_text_content": "y",
        }
        exc = _saas.catch(lambda: Mail(**bad_to))
        yield case(
            "to_not_email",
            "recipient of the wrong type (client-side check)",
            F,
            None,
            exc,
            "send_email",
            bad_to,
        )
