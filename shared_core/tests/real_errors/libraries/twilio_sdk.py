# ruff: noqa: B023 - each lambda is called at once
"""twilio: the Twilio REST API's errors as ``TwilioRestException`` and the transport's
failures (``TwilioHttpClient`` over requests), with the Api, Verify and Sync domains'
``base_url`` pointed at a local stand-in of api.twilio.com.

Bodies are Twilio's error representation (twilio.com/docs/usage/twilios-response#response-
formats-exceptions: ``code``, ``message``, ``more_info``, ``status``) with the codes and
messages of the error and warning dictionary (twilio.com/docs/api/errors/<code>).

``TwilioRestException.__str__`` colours its text when stderr is a terminal: the stored texts
are those of a non-interactive run (pytest's captured stderr, a redirected
``python -m libraries``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "twilio"
REQUIRES = ["twilio>=9,<10"]

_AC = "AC0123456789abcdef0123456789abcdef"


def _t(status: int, code: int, message: str) -> Reply:
    return Reply(
        status,
        {
            "code": code,
            "message": message,
            "more_info": f"https://www.twilio.com/docs/errors/{code}",
            "status": status,
        },
        {"Twilio-Request-Id": "RQ0123456789abcdef0123456789abcdef"},
        f"Twilio error dictionary: twilio.com/docs/api/errors/{code}",
    )


_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    ("20003_auth", "sms", _t(401, 20003, "Authenticate"), U, None, "account SID / auth token not accepted"),
    ("20005_inactive", "sms", _t(401, 20005, "Account not active"), U, None, "account suspended or closed"),
    (
        "20008_test_credentials",
        "fetch_message",
        _t(403, 20008, "Resource not accessible with Test Account Credentials"),
        U,
        None,
        "test credentials used for a live-only resource",
    ),
    (
        "20404_not_found",
        "fetch_message",
        _t(
            404,
            20404,
            f"The requested resource /2010-04-01/Accounts/{_AC}/Messages/SM0123456789abcdef0123456789abcdef.json was not found",
        ),
        A,
        None,
        "message not found",
    ),
    ("20429_rate", "sms", _t(429, 20429, "Too Many Requests"), T, NE, "too many concurrent requests"),
    ("20001_unknown_param", "sms", _t(400, 20001, "Unknown parameter: Bdy"), F, None, "unknown parameter"),
    (
        "21211_invalid_to",
        "sms",
        _t(400, 21211, "Invalid 'To' Phone Number: +1555012"),
        F,
        None,
        "'To' number invalid",
    ),
    (
        "21212_invalid_from",
        "sms",
        _t(400, 21212, "Invalid From Number (caller ID): 12345"),
        F,
        None,
        "'From' number invalid",
    ),
    (
        "21602_body_required",
        "sms",
        _t(400, 21602, "Message body is required."),
        F,
        None,
        "message body missing",
    ),
    (
        "21604_to_required",
        "sms",
        _t(400, 21604, "A 'To' phone number is required."),
        F,
        None,
        "'To' number missing",
    ),
    (
        "21614_not_mobile",
        "sms",
        _t(400, 21614, "'To' number is not a valid mobile number"),
        F,
        None,
        "'To' number cannot receive SMS",
    ),
    (
        "21617_too_long",
        "sms",
        _t(400, 21617, "The concatenated message body exceeds the 1600 character limit."),
        F,
        None,
        "message body too long",
    ),
    ("21620_media_url", "sms", _t(400, 21620, "Invalid media URL(s)"), F, None, "media URL invalid"),
    (
        "21606_from_not_capable",
        "sms",
        _t(
            400,
            21606,
            "The From phone number +15005550001 is not a valid, SMS-capable inbound phone number or short code for your account.",
        ),
        U,
        None,
        "'From' number not SMS-capable on the account",
    ),
    (
        "21608_unverified_trial",
        "sms",
        _t(
            400,
            21608,
            "The number +1415555XXXX is unverified. Trial accounts cannot send messages to unverified numbers; verify +1415555XXXX at twilio.com/user/account/phone-numbers/verified, or purchase a Twilio number to send messages to unverified numbers.",
        ),
        U,
        None,
        "trial account cannot message an unverified number",
    ),
    (
        "21610_unsubscribed",
        "sms",
        _t(400, 21610, "Attempt to send to unsubscribed recipient"),
        U,
        None,
        "recipient opted out (STOP)",
    ),
    (
        "21408_geo_permission",
        "sms",
        _t(
            400,
            21408,
            "Permission to send an SMS has not been enabled for the region indicated by the 'To' number: +8613800000000.",
        ),
        U,
        None,
        "SMS geo permission not enabled for the region",
    ),
    ("21201_call_no_to", "call", _t(400, 21201, "No 'To' number is specified"), F, None, "call without 'To'"),
    (
        "21205_url_required",
        "call",
        _t(400, 21205, "Url parameter is required."),
        F,
        None,
        "call without TwiML URL",
    ),
    (
        "21215_geo_call",
        "call",
        _t(
            400,
            21215,
            "Account not authorized to call +882161234567. Perhaps you need to enable some international permissions: https://www.twilio.com/console/voice/calls/geo-permissions/low-risk",
        ),
        U,
        None,
        "voice geo permission not enabled",
    ),
    (
        "21219_unverified_call",
        "call",
        _t(
            400,
            21219,
            "The number +1415555XXXX is unverified. Trial accounts may only make calls to verified numbers.",
        ),
        U,
        None,
        "trial account cannot call an unverified number",
    ),
    (
        "60200_verify_param",
        "verify",
        _t(400, 60200, "Invalid parameter `To`: +1555"),
        F,
        None,
        "verification 'To' invalid",
    ),
    (
        "60203_max_send",
        "verify",
        _t(429, 60203, "Max send attempts reached"),
        T,
        NE,
        "verification send attempts limit for now",
    ),
    (
        "60410_verify_blocked",
        "verify",
        _t(403, 60410, "Verification delivery attempt blocked"),
        U,
        None,
        "verification delivery blocked (fraud guard)",
    ),
    (
        "54301_unique_name",
        "sync_doc",
        _t(409, 54301, "Unique name already exists"),
        A,
        None,
        "sync document unique name already exists",
    ),
    ("20422_invalid", "sync_doc", _t(422, 20422, "Invalid Parameter"), F, None, "invalid parameter"),
    (
        "20500_internal",
        "sms",
        _t(500, 20500, "An internal server error has occurred"),
        T,
        UO,
        "internal server error",
    ),
    ("20503_unavailable", "sms", _t(503, 20503, "Service unavailable"), T, NE, "service unavailable"),
    (
        "502_html",
        "sms",
        Reply(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", {}, "a gateway's page"),
        T,
        UO,
        "bad gateway (no Twilio body)",
    ),
]


_SMS = {"to": "+14155550100", "from": "+15005550006", "body": "Your order shipped"}
_CALL = {"to": "+14155550100", "from": "+15005550006", "url": "https://example.com/twiml"}

# What the API's answer says the model sent in the request's form body (which the stand-in
# does not read, nor the exception show): the arguments of those calls.
_SENT: dict[str, dict[str, Any]] = {
    "20001_unknown_param": {"to": "+14155550100", "from": "+15005550006", "Bdy": "Your order shipped"},
    "21211_invalid_to": {**_SMS, "to": "+1555012"},
    "21212_invalid_from": {**_SMS, "from": "12345"},
    "21602_body_required": {"to": "+14155550100", "from": "+15005550006"},
    "21604_to_required": {"from": "+15005550006", "body": "Your order shipped"},
    "21617_too_long": {**_SMS, "body": "Your order shipped. " * 81},
    "21620_media_url": {**_SMS, "media_url": ["example.com/label.png"]},
    "21606_from_not_capable": {**_SMS, "from": "+15005550001"},
    "21408_geo_permission": {**_SMS, "to": "+8613800000000"},
    "21201_call_no_to": {"from": "+15005550006", "url": "https://example.com/twiml"},
    "21205_url_required": {"to": "+14155550100", "from": "+15005550006"},
    "21215_geo_call": {**_CALL, "to": "+882161234567"},
    "60200_verify_param": {"to": "+1555", "channel": "sms"},
}


def cases(ctx: Any) -> Iterator[generate.Case]:
    from twilio.http.http_client import TwilioHttpClient
    from twilio.rest import Client

    def client(base: str, retries: int | None = None) -> Any:
        c = Client(
            _AC,
            "0123456789abcdef0123456789abcdef",
            http_client=TwilioHttpClient(timeout=_saas.TIMEOUT, max_retries=retries),
        )
        for domain in (c.api, c.verify, c.sync):
            domain.base_url = base
        return c

    # call -> (tool, the model's arguments, the call); the Verify and Sync service SIDs are
    # the tool's configuration
    calls: dict[str, tuple[str, dict[str, Any], Any]] = {
        "sms": (
            "send_sms",
            _SMS,
            lambda c: c.messages.create(to="+14155550100", from_="+15005550006", body="Your order shipped"),
        ),
        "fetch_message": (
            "get_message",
            {"message_sid": "SM0123456789abcdef0123456789abcdef"},
            lambda c: c.messages("SM0123456789abcdef0123456789abcdef").fetch(),
        ),
        "call": (
            "make_call",
            _CALL,
            lambda c: c.calls.create(
                to="+14155550100", from_="+15005550006", url="https://example.com/twiml"
            ),
        ),
        "verify": (
            "send_verification",
            {"to": "+14155550100", "channel": "sms"},
            lambda c: c.verify.v2.services("VA0123456789abcdef0123456789abcdef").verifications.create(
                to="+14155550100", channel="sms"
            ),
        ),
        "sync_doc": (
            "create_document",
            {"unique_name": "order-8812"},
            lambda c: c.sync.v1.services("IS0123456789abcdef0123456789abcdef").documents.create(
                unique_name="order-8812"
            ),
        ),
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
        return generate.Case(f"twilio-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "TWILIOPORT", "") as svc:
        c = client(svc.base)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(lambda: fn(c))
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, _SENT.get(key, args))
        tool, args, fn = calls["sms"]
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": "https://api.unreachable-host.invalid"}.get(
                key, svc.base
            )
            cb = client(base)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(cb)), tool, args)
        retrying = client(_saas.dead_base(ctx), retries=1)
        yield case(
            "refused-retried",
            "connection refused (after retries)",
            T,
            NE,
            _saas.catch(lambda: fn(retrying)),
            tool,
            args,
        )
