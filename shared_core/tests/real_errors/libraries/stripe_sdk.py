# ruff: noqa: B023 - each lambda is called at once
"""stripe: the Stripe API's errors as the SDK raises them (``CardError``,
``InvalidRequestError``, ``AuthenticationError``, ``PermissionError``, ``RateLimitError``,
``IdempotencyError``, ``APIError``, ``APIConnectionError``), through ``StripeClient``
pointed at a local stand-in of api.stripe.com.

Bodies are Stripe's error object (docs.stripe.com/api/errors: ``type``, ``code``,
``message``, ``param``, ``decline_code``, ``doc_url``) with the codes and messages of
docs.stripe.com/error-codes and docs.stripe.com/declines/codes; statuses as
docs.stripe.com/api/errors lists them (400, 401, 402, 403, 404, 409, 429, 500).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "stripe"
REQUIRES = ["stripe>=10,<17"]

_ERR = "Stripe API errors: docs.stripe.com/api/errors"
_CODES = "Stripe error codes: docs.stripe.com/error-codes"
_DECLINES = "Stripe decline codes: docs.stripe.com/declines/codes"
_REQ = {"Request-Id": "req_Q5x8mT3kLw2pYz"}


def _e(
    type_: str, message: str, code: str | None = None, param: str | None = None, **extra: Any
) -> dict[str, Any]:
    err: dict[str, Any] = {"type": type_, "message": message}
    if code:
        err["code"] = code
        err["doc_url"] = f"https://stripe.com/docs/error-codes/{code.replace('_', '-')}"
    if param:
        err["param"] = param
    err.update(extra)
    return {"error": err}


def _inv(code: str, message: str, param: str | None = None, status: int = 400) -> Reply:
    return Reply(status, _e("invalid_request_error", message, code, param), _REQ, _CODES)


def _card(decline: str | None, code: str, message: str, param: str | None = None) -> Reply:
    extra = (
        {"decline_code": decline, "charge": "ch_3Q5x8mT3kLw2pYz1"}
        if decline
        else {"charge": "ch_3Q5x8mT3kLw2pYz1"}
    )
    return Reply(402, _e("card_error", message, code, param, **extra), _REQ, _DECLINES)


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    (
        "parameter_missing",
        "pi",
        _inv("parameter_missing", "Missing required param: amount.", "amount"),
        F,
        None,
        "required parameter missing",
    ),
    (
        "parameter_unknown",
        "customer",
        _inv("parameter_unknown", "Received unknown parameter: emial. Did you mean email?", "emial"),
        F,
        None,
        "unknown parameter",
    ),
    (
        "parameter_invalid_integer",
        "pi",
        _inv("parameter_invalid_integer", "Invalid integer: 12.50", "amount"),
        F,
        None,
        "parameter not an integer",
    ),
    (
        "parameter_invalid_empty",
        "customer",
        _inv(
            "parameter_invalid_empty",
            "You passed an empty string for 'email'. We assume empty values are an attempt to unset a parameter; however 'email' cannot be unset. You should remove 'email' from your request or supply a non-empty value.",
            "email",
        ),
        F,
        None,
        "empty string for a parameter",
    ),
    (
        "parameters_exclusive",
        "checkout",
        _inv(
            "parameters_exclusive",
            "You may only specify one of these parameters: customer, customer_email.",
            "customer_email",
        ),
        F,
        None,
        "mutually exclusive parameters both given",
    ),
    (
        "email_invalid",
        "customer",
        _inv("email_invalid", "Invalid email address: jane@", "email"),
        F,
        None,
        "invalid email address",
    ),
    (
        "url_invalid",
        "checkout",
        _inv("url_invalid", "Not a valid URL", "success_url"),
        F,
        None,
        "invalid URL parameter",
    ),
    (
        "amount_too_small",
        "pi",
        _inv("amount_too_small", "Amount must be at least $0.50 usd", "amount"),
        F,
        None,
        "amount below the minimum",
    ),
    (
        "amount_too_large",
        "pi",
        _inv("amount_too_large", "Amount must be no more than $999,999.99", "amount"),
        F,
        None,
        "amount above the maximum",
    ),
    (
        "invalid_currency",
        "pi",
        Reply(
            400,
            _e(
                "invalid_request_error",
                "Invalid currency: usx. Stripe currently supports these currencies: usd, aed, afn, all, amd",
                None,
                "currency",
            ),
            _REQ,
            _ERR,
        ),
        F,
        None,
        "invalid currency code",
    ),
    (
        "invalid_characters",
        "customer",
        _inv(
            "invalid_characters",
            "This value can only contain letters, numbers, spaces, and the following characters: .-_",
            "description",
        ),
        F,
        None,
        "unsupported characters in a parameter",
    ),
    (
        "string_length_exceeds_maximum",
        "customer",
        _inv(
            "string_length_exceeds_maximum",
            "Invalid string: aaaa...aaaa; must be at most 5000 characters",
            "description",
        ),
        F,
        None,
        "string longer than allowed",
    ),
    (
        "invalid_cvc",
        "pm",
        _card(None, "invalid_cvc", "Your card's security code is invalid.", "cvc"),
        F,
        None,
        "card security code malformed",
    ),
    (
        "invalid_expiry_year",
        "pm",
        _card(None, "invalid_expiry_year", "Your card's expiration year is invalid.", "exp_year"),
        F,
        None,
        "card expiry year invalid",
    ),
    (
        "invalid_number",
        "pm",
        _card(None, "invalid_number", "Your card number is invalid.", "number"),
        F,
        None,
        "card number not a valid card number",
    ),
    (
        "incorrect_number",
        "pm",
        _card(None, "incorrect_number", "Your card number is incorrect.", "number"),
        F,
        None,
        "card number incorrect",
    ),
    # auth, permission, account, funds
    (
        "invalid_api_key",
        "customer",
        Reply(
            401,
            _e("invalid_request_error", "Invalid API Key provided: sk_test_********************1234"),
            _REQ,
            _ERR,
        ),
        U,
        None,
        "invalid API key",
    ),
    (
        "api_key_expired",
        "customer",
        _inv("api_key_expired", "Expired API Key provided: sk_live_********************1234", None, 401),
        U,
        None,
        "API key expired",
    ),
    (
        "restricted_key",
        "customer",
        Reply(
            403,
            _e(
                "invalid_request_error",
                "The provided key 'rk_live_********************1234' does not have the required permissions for this endpoint on account 'acct_1Q5x8mT3kLw2pYz'. Having the 'rak_customer_write' permission would allow this request to continue.",
            ),
            _REQ,
            _ERR,
        ),
        U,
        None,
        "restricted key lacks the permission",
    ),
    (
        "secret_key_required",
        "customer",
        _inv(
            "secret_key_required",
            "This API call cannot be made with a publishable API key. Please use a secret API key.",
            None,
            403,
        ),
        U,
        None,
        "publishable key used where a secret key is required",
    ),
    (
        "testmode_charges_only",
        "pi",
        _inv(
            "testmode_charges_only",
            "Your account has not been activated, and can only make test charges. Activate your account to make live charges.",
        ),
        U,
        None,
        "account not activated for live charges",
    ),
    (
        "balance_insufficient",
        "payout",
        _inv(
            "balance_insufficient",
            "You have insufficient funds in your Stripe account for this transfer. Your card balance is too low.",
        ),
        U,
        None,
        "insufficient funds in the Stripe balance",
    ),
    (
        "payouts_not_allowed",
        "payout",
        _inv("payouts_not_allowed", "Payouts have been disabled on this account."),
        U,
        None,
        "payouts disabled on the account",
    ),
    (
        "platform_account_required",
        "transfer",
        _inv("platform_account_required", "Only Stripe Connect platforms can work with other accounts."),
        U,
        None,
        "feature requires a Connect platform account",
    ),
    (
        "account_invalid",
        "transfer",
        _inv(
            "account_invalid",
            "The provided key 'sk_test_***1234' does not have access to account 'acct_1AbCdEf' (or that account does not exist). Application access may have been revoked.",
        ),
        U,
        None,
        "no access to the connected account",
    ),
    (
        "customer_max_subscriptions",
        "subscription",
        _inv(
            "customer_max_subscriptions",
            "This customer has reached the maximum number of active subscriptions (500).",
        ),
        U,
        None,
        "customer at the subscription limit",
    ),
    (
        "payment_method_unactivated",
        "pi",
        _inv(
            "payment_method_unactivated",
            "The operation cannot be performed as the payment method used has not been activated. Activate the payment method in the Dashboard.",
        ),
        U,
        None,
        "payment method not activated on the account",
    ),
    (
        "charge_expired_for_capture",
        "capture",
        _inv(
            "charge_expired_for_capture",
            "This charge cannot be captured because the authorization has expired. Charges must be captured within 7 days.",
        ),
        U,
        None,
        "authorization expired before capture",
    ),
    (
        "card_declined",
        "pi",
        _card("generic_decline", "card_declined", "Your card was declined."),
        U,
        None,
        "card declined by the issuer",
    ),
    (
        "insufficient_funds",
        "pi",
        _card("insufficient_funds", "card_declined", "Your card has insufficient funds."),
        U,
        None,
        "card has insufficient funds",
    ),
    (
        "expired_card",
        "pi",
        _card(None, "expired_card", "Your card has expired.", "exp_month"),
        U,
        None,
        "card expired",
    ),
    (
        "stolen_card",
        "pi",
        _card("stolen_card", "card_declined", "Your card was declined."),
        U,
        None,
        "card reported stolen",
    ),
    (
        "processing_error",
        "pi",
        _card(
            None,
            "processing_error",
            "An error occurred while processing your card. Try again in a little bit.",
        ),
        T,
        NE,
        "processing error, the card was not charged",
    ),
    # not found, already done, conflicts
    (
        "resource_missing_customer",
        "customer_get",
        _inv("resource_missing", "No such customer: 'cus_Q5x8mT3kLw2pYz'", "id", 404),
        A,
        None,
        "customer not found",
    ),
    (
        "resource_missing_price",
        "subscription",
        _inv("resource_missing", "No such price: 'price_1Q5x8mT3kLw2pYz'", "items[0][price]", 400),
        A,
        None,
        "price not found",
    ),
    (
        "resource_already_exists",
        "customer",
        _inv("resource_already_exists", "A resource with the ID 'cus_Q5x8mT3kLw2pYz' already exists."),
        A,
        None,
        "resource already exists",
    ),
    (
        "charge_already_refunded",
        "refund",
        _inv("charge_already_refunded", "Charge ch_3Q5x8mT3kLw2pYz1 has already been refunded."),
        A,
        None,
        "charge already refunded",
    ),
    (
        "charge_already_captured",
        "capture",
        _inv("charge_already_captured", "This charge has already been captured."),
        A,
        None,
        "charge already captured",
    ),
    (
        "payment_intent_unexpected_state",
        "capture",
        _inv(
            "payment_intent_unexpected_state",
            "This PaymentIntent's status is succeeded, but this action requires status requires_capture.",
        ),
        A,
        None,
        "payment intent in an unexpected state",
    ),
    (
        "idempotency_key_in_use",
        "pi",
        _inv(
            "idempotency_key_in_use",
            "There is currently another in-progress request using this idempotency key (that probably means you submitted twice, and the other request is still going through): order-8812. Please try again later.",
            None,
            409,
        ),
        A,
        None,
        "idempotency key in use by another request",
    ),
    (
        "idempotency_error",
        "pi",
        Reply(
            400,
            _e(
                "idempotency_error",
                "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than 'order-8812' if you meant to execute a different request.",
            ),
            _REQ,
            _ERR,
        ),
        A,
        None,
        "idempotency key reused with other parameters",
    ),
    # service side
    (
        "rate_limit",
        "customer",
        _inv(
            "rate_limit",
            "Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.",
            None,
            429,
        ),
        T,
        NE,
        "rate limit",
    ),
    (
        "lock_timeout",
        "customer",
        _inv(
            "lock_timeout",
            "This object cannot be accessed right now because another API request or Stripe process is currently accessing it. If you see this error intermittently, retry the request.",
            None,
            429,
        ),
        T,
        NE,
        "object locked by another request",
    ),
    (
        "api_error",
        "pi",
        Reply(500, _e("api_error", "An unknown error occurred"), _REQ, _ERR),
        T,
        UO,
        "internal error at Stripe",
    ),
    (
        "http_502",
        "pi",
        Reply(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", {}, "a proxy in front of the API"),
        T,
        UO,
        "bad gateway",
    ),
    (
        "http_503",
        "customer",
        Reply(503, _e("api_error", "Stripe is temporarily unavailable. Please try again later."), _REQ, _ERR),
        T,
        NE,
        "service temporarily unavailable",
    ),
]

_PI = {"amount": 1250, "currency": "usd"}
_CUSTOMER = {"email": "jane@example.com"}
_CHECKOUT = {"mode": "payment", "success_url": "https://example.com/ok"}
_PAYOUT = {"amount": 5000, "currency": "usd"}
_TRANSFER = {"amount": 5000, "currency": "usd", "destination": "acct_1AbCdEf"}
_SUBSCRIPTION = {"customer": "cus_Q5x8mT3kLw2pYz", "items": [{"price": "price_1Q5x8mT3kLw2pYz"}]}
_REFUND = {"charge": "ch_3Q5x8mT3kLw2pYz1"}

# call -> (tool, the model's arguments, the call): the parameters the SDK sends are the
# model's; the API key and the API's address are the tool's configuration
_CALLS: dict[str, tuple[str, dict[str, Any], Any]] = {
    "pi": ("create_payment_intent", _PI, lambda c: c.v1.payment_intents.create(params=_PI)),
    "customer": ("create_customer", _CUSTOMER, lambda c: c.v1.customers.create(params=_CUSTOMER)),
    "customer_get": (
        "get_customer",
        {"customer_id": "cus_Q5x8mT3kLw2pYz"},
        lambda c: c.v1.customers.retrieve("cus_Q5x8mT3kLw2pYz"),
    ),
    "checkout": (
        "create_checkout_session",
        _CHECKOUT,
        lambda c: c.v1.checkout.sessions.create(params=_CHECKOUT),
    ),
    "pm": (
        "create_payment_method",
        {"type": "card"},
        lambda c: c.v1.payment_methods.create(params={"type": "card"}),
    ),
    "payout": ("create_payout", _PAYOUT, lambda c: c.v1.payouts.create(params=_PAYOUT)),
    "transfer": ("create_transfer", _TRANSFER, lambda c: c.v1.transfers.create(params=_TRANSFER)),
    "subscription": (
        "create_subscription",
        _SUBSCRIPTION,
        lambda c: c.v1.subscriptions.create(params=_SUBSCRIPTION),
    ),
    "capture": (
        "capture_payment",
        {"payment_intent_id": "pi_3Q5x8mT3kLw2pYz1"},
        lambda c: c.v1.payment_intents.capture("pi_3Q5x8mT3kLw2pYz1"),
    ),
    "refund": ("refund_charge", _REFUND, lambda c: c.v1.refunds.create(params=_REFUND)),
}


def cases(ctx: Any) -> Iterator[generate.Case]:
    import stripe

    def client(base: str, retries: int = 0, async_: bool = False) -> Any:
        http = (
            stripe.HTTPXClient(timeout=_saas.TIMEOUT)
            if async_
            else stripe.RequestsClient(timeout=_saas.TIMEOUT)
        )
        return stripe.StripeClient(
            "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
            base_addresses={"api": base},
            max_network_retries=retries,
            http_client=http,
        )

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"stripe-{cid}", LIBRARY, cause, kind, outcome, exc, tool, args)

    with _saas.service(ctx, "STRIPEPORT") as svc:
        c = client(svc.base)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = _CALLS[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(c)), tool, args)
        tool, args, fn = _CALLS["customer"]
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            cb = client(base)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(cb)), tool, args)
        # the SDK's own retry of a refused connection
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

        async def run_async() -> list[generate.Case]:
            out = []
            ac = client(svc.base, async_=True)
            for key in ("parameter_missing", "card_declined", "rate_limit", "api_error", "idempotency_error"):
                _k, call, reply, kind, outcome, cause = next(s for s in _SCENARIOS if s[0] == key)
                svc.reply(reply)
                tool, args = _CALLS[call][:2]
                try:
                    if call == "pi":
                        await ac.v1.payment_intents.create_async(params=_PI)
                    else:
                        await ac.v1.customers.create_async(params=_CUSTOMER)
                    raise AssertionError("raised nothing")
                except Exception as exc:
                    out.append(case(f"async-{key}", cause, kind, outcome, exc, tool, args))
            for key, kind, outcome, cause in _saas.TRANSPORT:
                svc.reply(key)
                base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
                acb = client(base, async_=True)
                try:
                    await acb.v1.customers.create_async(params=_CUSTOMER)
                    raise AssertionError("raised nothing")
                except Exception as exc:
                    out.append(case(f"async-{key}", cause, kind, outcome, exc, "create_customer", _CUSTOMER))
            return out

        yield from asyncio.run(run_async())
