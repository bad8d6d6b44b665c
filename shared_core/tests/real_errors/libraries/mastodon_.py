"""Mastodon.py (2.x) behind a social-posting tool, pointed at a local stand-in of a Mastodon
instance's REST API through its ``api_base_url`` option (the tool's access token,
``ratelimit_method="throw"`` so that a 429 raises instead of sleeping, a 1 s
``request_timeout``, and the instance version known to the tool: ``mastodon_version="4.7.0"``
with ``version_check_mode="changed"``, so that nothing is fetched before a call).

It stands in for tweepy, which the brief asked for: tweepy's ``Client`` writes
``https://api.twitter.com`` into every request (``BaseClient.request``: ``host`` is a local
variable, no base-URL option), so pointing it at a stand-in needs a patch of its
internals; and every tweepy 4.x release needs ``oauthlib<4`` or ``requests-oauthlib<2``,
which the corpus environment pins higher (oauthlib 4.0.1, requests-oauthlib 2.0.0).
Mastodon.py covers the same tools for a microblogging API.

The tools: ``post_status`` (text, visibility, reply-to id, a poll, the quote policy),
``post_image`` (a local file and its description), ``delete_status`` and ``pin_status`` (a
status id), ``lookup_account`` (an ``acct``), ``search`` (a query the model wrote and a
result type), ``follow_account`` and ``endorse_account`` (an account id). What they raise:
``MastodonAPIError`` with the status, reason and the body's ``error``
(``MastodonNotFoundError`` 404, ``MastodonUnauthorizedError`` 401,
``MastodonInternalServerError`` / ``BadGatewayError`` / ``ServiceUnavailableError`` /
``GatewayTimeoutError`` for 5xx), ``MastodonRatelimitError`` ("Hit rate limit."),
``MastodonNetworkError`` for the transport, ``MastodonAPIError`` "Could not parse response
as JSON" for a body it cannot read, and the SDK's own checks
(``MastodonIllegalArgumentError``, ``ValueError`` for a visibility,
``MastodonFileNotFoundError`` / ``MastodonIOError`` for the file, ``MastodonVersionError``).

Bodies are Mastodon's ``{"error": "..."}`` (docs.joinmastodon.org/entities/Error/, whose
"Possible reasons" list 400 ParameterMissing, 401 "This API requires an authenticated
user", 403 "This action is not allowed" / "Your login is currently disabled" / "... missing
a confirmed e-mail address" / "... pending approval", 404 "Record not found", 422
RecordInvalid "Validation failed: ...", RecordNotUnique "Duplicate record" and "This method
requires an authenticated user", 429, 503 "Remote data could not be fetched" and "There was
a temporary problem serving your request, please try again"); the statuses and accounts
methods pages (docs.joinmastodon.org/methods/statuses/, /methods/accounts/: "The access
token is invalid", "Validation failed: Text can't be blank", "Validation failed: You have
already pinned the maximum number of posts", "Validation failed: You must be already
following the person you want to endorse", "This action is outside the authorized
scopes"); the rate limits page (docs.joinmastodon.org/api/rate-limits/: ``X-RateLimit-*``
headers, 300 calls / 5 minutes, 30 deletions / 30 minutes).

Labels by the cause set up. Fixable: the model's text (blank, over the 500-character limit),
a poll with one option, a media description over 1500 characters, a search without a
query, a visibility / result type / quote policy not in the SDK's closed lists, a
``quote_id`` (a Fedibird option), a file path that does not exist or is a folder.
Unrecoverable: the token (invalid, without the scope, without a user), an instance in
secure mode, the user's login disabled / unconfirmed / pending, an action the target's
block forbids, an instance older than the method. Ambiguous: a status or account not found
(deleted, never existed, a typo), already pinned, the pin limit reached, endorsing someone
not followed, replies the SDK cannot read. Transient: 429, 503 (remote data, temporary
problem), refused, DNS -> not executed; 500 / 502 / 504 pages, read timeout, reset, close ->
unknown outcome.

Not triggered: OAuth app registration and log-in (``Mastodon.create_app`` / ``log_in``:
another surface), streaming, the ``pace`` / ``wait`` rate-limit modes (they sleep).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "Mastodon.py"
REQUIRES = ["Mastodon.py>=2.3,<3"]

_ERR = "Mastodon Error entity (docs.joinmastodon.org/entities/Error/)"
_STATUSES = "Mastodon statuses methods (docs.joinmastodon.org/methods/statuses/)"
_ACCOUNTS = "Mastodon accounts methods (docs.joinmastodon.org/methods/accounts/)"
_LIMITS = "Mastodon rate limits (docs.joinmastodon.org/api/rate-limits/)"
_TOKEN = "ZA-Yj3aBD8U8Cm7lKUp-lm9O9BmDgdhHzDeqsY8tlL0"
_STATUS = "113287654321098765"
_ACCOUNT = "109302436954721982"
_TEXT = "Release 2.4 is out: faster sync, fewer surprises. Changelog: https://example.org/changelog"
_LONG = ("Thread on what we learned migrating our queue workers to the new scheduler: " * 8).strip()


def _e(status: int, message: str, source: str = _ERR, **headers: str) -> Reply:
    return Reply(status, {"error": message}, headers, source)


_RATE = {"X-RateLimit-Limit": "30", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "2026-12-01T00:30:00.000000Z"}  # fmt: skip
_RAILS_500 = "<!DOCTYPE html><html><head><title>We're sorry, but something went wrong (500)</title></head><body><div class=\"dialog\"><h1>We're sorry, but something went wrong.</h1></div></body></html>"  # fmt: skip


def _page(status: str) -> str:
    return f"<html><head><title>{status}</title></head><body><center><h1>{status}</h1></center><hr><center>nginx</center></body></html>"  # fmt: skip


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply | str, str, str | None, str]] = [
    # the model's text and parameters
    ("text-blank", "post_blank", _e(422, "Validation failed: Text can't be blank", _STATUSES), F, None, "status text blank"),
    ("text-too-long", "post_long", _e(422, "Validation failed: Text character limit of 500 exceeded"), F, None, "status text over the instance's 500 characters"),
    ("poll-one-option", "post_poll", _e(422, "Validation failed: Poll options must have more than one item"), F, None, "poll with a single option"),
    ("description-too-long", "post_image_long", _e(422, "Validation failed: Description is too long (maximum is 1500 characters)"), F, None, "media description over 1500 characters"),
    ("search-without-query", "search_blank", _e(400, "param is missing or the value is empty: q"), F, None, "search query left empty"),
    # the token, the user, the instance
    ("token-invalid", "post", _e(401, "The access token is invalid", _STATUSES), U, None, "access token revoked or invalid"),
    ("secure-mode", "lookup", _e(401, "This API requires an authenticated user", _ACCOUNTS), U, None, "instance in secure mode, token has no user"),
    ("user-required", "follow", _e(422, "This method requires an authenticated user", _ACCOUNTS), U, None, "app token without an authorized user"),
    ("outside-scopes", "delete", _e(403, "This action is outside the authorized scopes", _ACCOUNTS), U, None, "token lacks the write:statuses scope"),
    ("login-disabled", "post", _e(403, "Your login is currently disabled", _ACCOUNTS), U, None, "account disabled by a moderator"),
    ("login-unconfirmed", "follow", _e(403, "Your login is missing a confirmed e-mail address", _ACCOUNTS), U, None, "account's e-mail not confirmed"),
    ("login-pending", "post_image", _e(403, "Your login is currently pending approval", _ACCOUNTS), U, None, "account awaiting approval"),
    ("not-permitted", "follow", _e(403, "This action is not allowed"), U, None, "target account blocks the user"),
    # records and stored state
    ("status-not-found", "delete", _e(404, "Record not found", _STATUSES), A, None, "status not found (deleted, never existed)"),
    ("account-not-found", "lookup", _e(404, "Record not found", _ACCOUNTS), A, None, "account not found"),
    ("follow-not-found", "follow", _e(404, "Record not found", _ACCOUNTS), A, None, "account id not found"),
    ("reply-target-not-found", "post_reply", _e(404, "Record not found"), A, None, "status replied to not found"),
    ("already-pinned", "pin", _e(422, "Duplicate record"), A, None, "status already pinned"),
    ("pin-limit", "pin", _e(422, "Validation failed: You have already pinned the maximum number of posts", _STATUSES), A, None, "pin limit reached"),
    ("endorse-not-following", "endorse", _e(422, "Validation failed: You must be already following the person you want to endorse", _ACCOUNTS), A, None, "endorsing an account not followed"),
    # load, outages
    ("rate-limited-delete", "delete", _e(429, "Too many requests", _LIMITS, **_RATE), T, NE, "deletion limit (30 / 30 min) hit"),
    ("rate-limited-post", "post", _e(429, "Too many requests", _LIMITS, **dict(_RATE, **{"X-RateLimit-Limit": "300"})), T, NE, "rate limit (300 / 5 min) hit"),
    ("remote-unavailable", "lookup", _e(503, "Remote data could not be fetched"), T, NE, "remote instance did not answer the WebFinger lookup"),
    ("temporary-problem", "post_image", _e(503, "There was a temporary problem serving your request, please try again"), T, NE, "media storage call failed"),
    ("internal-error", "search", Reply(500, _RAILS_500, {}, "Mastodon's 500 page"), T, UO, "500 page"),
    ("bad-gateway", "post", Reply(502, _page("502 Bad Gateway"), {}, "a proxy's page"), T, UO, "502 after the post was sent"),
    ("gateway-timeout", "follow", Reply(504, _page("504 Gateway Time-out"), {}, "a proxy's page"), T, UO, "504 after the follow was sent"),
]  # fmt: skip

# replies the SDK cannot read: (key, call, reply, cause)
_BAD_DATA: list[tuple[str, str, Reply, str]] = [
    ("html-200", "lookup", Reply(200, "<html><head><title>Mastodon</title></head><body>Sign in to continue</body></html>"), "an HTML page instead of the account"),
    ("truncated-json", "search", Reply(200, '{"accounts": [], "statuses": [{"id": "113287654321098765", "content": "<p>rust', {}, "", "application/json"), "search results cut off"),
]  # fmt: skip


def _calls(m: Any, image: str) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the token and instance are the tool's."""
    described = "x" * 1600
    poll = {"options": ["Friday"], "expires_in": 86400}
    return {
        "post": ("post_status", {"status": _TEXT, "visibility": "public"}, lambda: m.status_post(_TEXT, visibility="public")),
        "post_blank": ("post_status", {"status": "", "visibility": "public"}, lambda: m.status_post("", visibility="public")),
        "post_long": ("post_status", {"status": _LONG, "visibility": "public"}, lambda: m.status_post(_LONG, visibility="public")),
        "post_poll": ("post_status", {"status": "Release party: which day?", "poll": poll}, lambda: m.status_post("Release party: which day?", poll=m.make_poll(**poll))),
        "post_reply": ("post_status", {"status": "Thanks, fixed in 2.4.1!", "in_reply_to_id": "113287650000000001"}, lambda: m.status_post("Thanks, fixed in 2.4.1!", in_reply_to_id="113287650000000001")),
        "post_image": ("post_image", {"path": image, "description": "Launch banner"}, lambda: m.media_post(image, description="Launch banner")),
        "post_image_long": ("post_image", {"path": image, "description": described}, lambda: m.media_post(image, description=described)),
        "delete": ("delete_status", {"status_id": _STATUS}, lambda: m.status_delete(_STATUS)),
        "pin": ("pin_status", {"status_id": _STATUS}, lambda: m.status_pin(_STATUS)),
        "lookup": ("lookup_account", {"acct": "alice@mastodon.social"}, lambda: m.account_lookup("alice@mastodon.social")),
        "search": ("search", {"q": "#rustlang async", "type": "statuses"}, lambda: m.search_v2("#rustlang async", result_type="statuses")),
        "search_blank": ("search", {"q": "", "type": "accounts"}, lambda: m.search_v2("", result_type="accounts")),
        "follow": ("follow_account", {"account_id": _ACCOUNT}, lambda: m.account_follow(_ACCOUNT)),
        "endorse": ("endorse_account", {"account_id": _ACCOUNT}, lambda: m.account_endorse(_ACCOUNT)),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    from mastodon import Mastodon

    def client(base: str, version: str = "4.7.0") -> Any:
        return Mastodon(
            access_token=_TOKEN,
            api_base_url=base,
            ratelimit_method="throw",
            request_timeout=_saas.TIMEOUT,
            mastodon_version=version,
            version_check_mode="changed",
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
        return generate.Case(f"mastodon-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    uploads = ctx.tmp / "uploads"
    uploads.mkdir()
    banner = uploads / "banner.png"
    banner.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    image = str(banner)

    with _saas.service(ctx, "MASTODONPORT", "Mastodon") as svc:
        calls = _calls(client(svc.base), image)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)
        for key, call, reply, cause in _BAD_DATA:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, A, None, _saas.caught(key, fn), tool, args)
        for (key, kind, outcome, cause), call in zip(
            _saas.TRANSPORT, ("post", "lookup", "post", "delete", "follow"), strict=True
        ):
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            tool, args, fn = _calls(client(base), image)[call]
            yield case(key, cause, kind, outcome, _saas.caught(key, fn), tool, args)

    # the SDK's own checks (nothing sent)
    m = client(_saas.dead_base(ctx))
    old = client(_saas.dead_base(ctx), version="4.3.0")
    missing, folder = str(uploads / "launch-banner.png"), str(uploads)
    # (key, cause, kind, tool, the model's arguments, the call)
    local: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("visibility-invalid", "visibility not one of public / unlisted / private / direct", F, "post_status", {"status": _TEXT, "visibility": "followers"}, lambda: m.status_post(_TEXT, visibility="followers")),
        ("result-type-invalid", "search type not one of accounts / hashtags / statuses", F, "search", {"q": "alice", "type": "users"}, lambda: m.search_v2("alice", result_type="users")),
        ("quote-policy-invalid", "quote policy not one of public / followers / nobody", F, "post_status", {"status": _TEXT, "quote_approval_policy": "everyone"}, lambda: m.status_post(_TEXT, quote_approval_policy="everyone")),
        ("quote-id-option", "quote_id given (a Fedibird option) instead of quoted_status_id", F, "post_status", {"status": _TEXT, "quote_id": _STATUS}, lambda: m.status_post(_TEXT, quote_id=_STATUS)),
        ("image-missing", "file to upload does not exist", F, "post_image", {"path": missing, "description": "Launch banner"}, lambda: m.media_post(missing, description="Launch banner")),
        ("image-directory", "path to upload is a folder", F, "post_image", {"path": folder, "description": "Launch banner"}, lambda: m.media_post(folder, description="Launch banner")),
        ("instance-too-old", "instance older than the version the method needs", U, "post_status", {"status": _TEXT, "visibility": "public"}, lambda: old.status_post(_TEXT, visibility="public")),
    ]  # fmt: skip
    for key, cause, kind, tool, args, fn in local:
        yield case(key, cause, kind, None, _saas.caught(key, fn), tool, args)
