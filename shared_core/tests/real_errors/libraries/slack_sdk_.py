# ruff: noqa: B023 - each lambda is called at once
"""slack_sdk: the Slack Web API's errors as ``SlackApiError`` (sync ``WebClient`` over
urllib, ``AsyncWebClient`` over aiohttp), pointed at a local stand-in of slack.com/api.

Slack answers most errors with HTTP 200 and ``{"ok": false, "error": "<code>"}``; the codes
and their meanings are those of each method's page (api.slack.com/methods/<method>, the
"Errors" table) and of api.slack.com/web#evaluating_responses; rate limits are HTTP 429
with ``Retry-After`` (api.slack.com/apis/rate-limits).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "slack_sdk"
REQUIRES = ["slack_sdk>=3.26,<4"]

_WEB = "Slack Web API: api.slack.com/web#evaluating_responses"


def _m(method: str) -> str:
    return f"Slack API method reference: api.slack.com/methods/{method} (Errors)"


def _err(code: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"ok": False, "error": code}
    body.update(extra)
    return body


# (key, method, error body, kind, outcome, cause, source)
_OK_FALSE: list[tuple[str, str, dict[str, Any], str, str | None, str, str]] = [
    # chat.postMessage
    (
        "channel_not_found",
        "chat.postMessage",
        _err("channel_not_found"),
        A,
        None,
        "channel not found",
        _m("chat.postMessage"),
    ),
    (
        "not_in_channel",
        "chat.postMessage",
        _err("not_in_channel"),
        U,
        None,
        "the bot is not a member of the channel (no permission to post)",
        _m("chat.postMessage"),
    ),
    (
        "is_archived",
        "chat.postMessage",
        _err("is_archived"),
        U,
        None,
        "channel has been archived",
        _m("chat.postMessage"),
    ),
    (
        "msg_too_long",
        "chat.postMessage",
        _err("msg_too_long"),
        F,
        None,
        "message text too long",
        _m("chat.postMessage"),
    ),
    (
        "no_text",
        "chat.postMessage",
        _err("no_text"),
        F,
        None,
        "no message text provided",
        _m("chat.postMessage"),
    ),
    (
        "too_many_attachments",
        "chat.postMessage",
        _err("too_many_attachments"),
        F,
        None,
        "too many attachments",
        _m("chat.postMessage"),
    ),
    (
        "invalid_blocks",
        "chat.postMessage",
        _err("invalid_blocks", errors=["must provide a string [json-pointer:/blocks/0/text/text]"]),
        F,
        None,
        "blocks invalid",
        _m("chat.postMessage"),
    ),
    (
        "invalid_blocks_format",
        "chat.postMessage",
        _err("invalid_blocks_format"),
        F,
        None,
        "blocks not a JSON array",
        _m("chat.postMessage"),
    ),
    (
        "restricted_action",
        "chat.postMessage",
        _err("restricted_action"),
        U,
        None,
        "workspace preference prevents posting to the channel",
        _m("chat.postMessage"),
    ),
    (
        "restricted_action_read_only",
        "chat.postMessage",
        _err("restricted_action_read_only_channel"),
        U,
        None,
        "channel is read-only for the caller",
        _m("chat.postMessage"),
    ),
    (
        "duplicate_message_not_found",
        "chat.postMessage",
        _err("duplicate_message_not_found"),
        A,
        None,
        "message referenced for a duplicate was not found",
        _m("chat.postMessage"),
    ),
    (
        "team_access_not_granted",
        "chat.postMessage",
        _err("team_access_not_granted"),
        U,
        None,
        "token not granted access to the workspace",
        _m("chat.postMessage"),
    ),
    (
        "slack_connect_file_link_sharing_blocked",
        "chat.postMessage",
        _err("slack_connect_file_link_sharing_blocked"),
        U,
        None,
        "admin blocks file links in Slack Connect channels",
        _m("chat.postMessage"),
    ),
    # auth / tokens (every method)
    ("invalid_auth", "chat.postMessage", _err("invalid_auth"), U, None, "invalid authentication token", _WEB),
    (
        "not_authed",
        "conversations.list",
        _err("not_authed"),
        U,
        None,
        "no authentication token provided",
        _WEB,
    ),
    (
        "account_inactive",
        "chat.postMessage",
        _err("account_inactive"),
        U,
        None,
        "token belongs to a deleted user or workspace",
        _WEB,
    ),
    ("token_revoked", "users.info", _err("token_revoked"), U, None, "token revoked", _WEB),
    ("token_expired", "users.info", _err("token_expired"), U, None, "token expired", _WEB),
    (
        "missing_scope",
        "chat.postMessage",
        _err("missing_scope", needed="chat:write", provided="channels:read"),
        U,
        None,
        "token lacks the required scope",
        _WEB,
    ),
    (
        "no_permission",
        "conversations.history",
        _err("no_permission"),
        U,
        None,
        "workspace token has no permission",
        _WEB,
    ),
    (
        "not_allowed_token_type",
        "conversations.history",
        _err("not_allowed_token_type"),
        U,
        None,
        "token type not allowed for the method",
        _WEB,
    ),
    (
        "ekm_access_denied",
        "conversations.history",
        _err("ekm_access_denied"),
        U,
        None,
        "administrators suspended the ability to post (EKM)",
        _WEB,
    ),
    (
        "org_login_required",
        "users.info",
        _err("org_login_required"),
        U,
        None,
        "workspace undergoing migration to an Enterprise Organization",
        _WEB,
    ),
    (
        "two_factor_setup_required",
        "users.info",
        _err("two_factor_setup_required"),
        U,
        None,
        "two-factor authentication setup required",
        _WEB,
    ),
    (
        "accesslimited",
        "users.info",
        _err("accesslimited"),
        U,
        None,
        "method access limited on the current network",
        _WEB,
    ),
    ("method_deprecated", "users.info", _err("method_deprecated"), U, None, "method deprecated", _WEB),
    ("deprecated_endpoint", "users.info", _err("deprecated_endpoint"), U, None, "endpoint deprecated", _WEB),
    (
        "team_added_to_org",
        "users.info",
        _err("team_added_to_org"),
        U,
        None,
        "workspace being migrated into an Enterprise Grid org",
        _WEB,
    ),
    # request shape (every method)
    (
        "invalid_arguments",
        "conversations.history",
        _err(
            "invalid_arguments", response_metadata={"messages": ["[ERROR] missing required field: channel"]}
        ),
        F,
        None,
        "required argument missing",
        _WEB,
    ),
    (
        "invalid_arg_name",
        "conversations.history",
        _err("invalid_arg_name"),
        F,
        None,
        "argument name invalid",
        _WEB,
    ),
    (
        "invalid_array_arg",
        "conversations.history",
        _err("invalid_array_arg"),
        F,
        None,
        "array passed where a scalar is expected",
        _WEB,
    ),
    (
        "invalid_charset",
        "chat.postMessage",
        _err("invalid_charset"),
        F,
        None,
        "invalid charset in content-type",
        _WEB,
    ),
    (
        "invalid_form_data",
        "chat.postMessage",
        _err("invalid_form_data"),
        F,
        None,
        "form data malformed",
        _WEB,
    ),
    (
        "invalid_post_type",
        "chat.postMessage",
        _err("invalid_post_type"),
        F,
        None,
        "POST content type not supported",
        _WEB,
    ),
    (
        "missing_post_type",
        "chat.postMessage",
        _err("missing_post_type"),
        F,
        None,
        "POST without a content type",
        _WEB,
    ),
    (
        "invalid_cursor",
        "conversations.list",
        _err("invalid_cursor"),
        F,
        None,
        "pagination cursor invalid",
        _m("conversations.list"),
    ),
    (
        "invalid_limit",
        "conversations.list",
        _err("invalid_limit"),
        F,
        None,
        "limit value invalid",
        _m("conversations.list"),
    ),
    (
        "invalid_types",
        "conversations.list",
        _err("invalid_types"),
        F,
        None,
        "conversation types value invalid",
        _m("conversations.list"),
    ),
    # server side (every method)
    (
        "ratelimited_200",
        "conversations.history",
        _err("ratelimited"),
        T,
        NE,
        "rate limited (ok: false, ratelimited)",
        _WEB,
    ),
    (
        "service_unavailable",
        "chat.postMessage",
        _err("service_unavailable"),
        T,
        NE,
        "service temporarily unavailable",
        _WEB,
    ),
    (
        "fatal_error",
        "chat.postMessage",
        _err("fatal_error"),
        T,
        UO,
        "catastrophic server error, the operation may have partly succeeded",
        _WEB,
    ),
    ("internal_error", "chat.postMessage", _err("internal_error"), T, UO, "internal server error", _WEB),
    (
        "request_timeout",
        "chat.postMessage",
        _err("request_timeout"),
        T,
        UO,
        "request timed out on Slack's side",
        _WEB,
    ),
    # conversations.*
    (
        "name_taken",
        "conversations.create",
        _err("name_taken"),
        A,
        None,
        "a channel with the name already exists",
        _m("conversations.create"),
    ),
    (
        "invalid_name_specials",
        "conversations.create",
        _err("invalid_name_specials"),
        F,
        None,
        "channel name has special characters",
        _m("conversations.create"),
    ),
    (
        "invalid_name_maxlength",
        "conversations.create",
        _err("invalid_name_maxlength"),
        F,
        None,
        "channel name too long",
        _m("conversations.create"),
    ),
    (
        "restricted_action_create",
        "conversations.create",
        _err("restricted_action"),
        U,
        None,
        "workspace preference prevents creating channels",
        _m("conversations.create"),
    ),
    (
        "already_in_channel",
        "conversations.invite",
        _err("already_in_channel"),
        A,
        None,
        "user already in the channel",
        _m("conversations.invite"),
    ),
    (
        "cant_invite_self",
        "conversations.invite",
        _err("cant_invite_self"),
        F,
        None,
        "cannot invite self",
        _m("conversations.invite"),
    ),
    (
        "user_not_found_invite",
        "conversations.invite",
        _err("user_not_found"),
        A,
        None,
        "user to invite not found",
        _m("conversations.invite"),
    ),
    (
        "user_is_restricted",
        "conversations.invite",
        _err("user_is_restricted"),
        U,
        None,
        "guest user cannot invite",
        _m("conversations.invite"),
    ),
    (
        "cant_invite",
        "conversations.invite",
        _err("cant_invite"),
        U,
        None,
        "user cannot be invited to the channel",
        _m("conversations.invite"),
    ),
    # users.info
    ("user_not_found", "users.info", _err("user_not_found"), A, None, "user not found", _m("users.info")),
    (
        "user_not_visible",
        "users.info",
        _err("user_not_visible"),
        U,
        None,
        "caller cannot see the user",
        _m("users.info"),
    ),
    # reactions.add
    (
        "already_reacted",
        "reactions.add",
        _err("already_reacted"),
        A,
        None,
        "reaction already added",
        _m("reactions.add"),
    ),
    (
        "invalid_name_reaction",
        "reactions.add",
        _err("invalid_name"),
        F,
        None,
        "emoji name invalid",
        _m("reactions.add"),
    ),
    (
        "message_not_found_reaction",
        "reactions.add",
        _err("message_not_found"),
        A,
        None,
        "message to react to not found",
        _m("reactions.add"),
    ),
    (
        "too_many_reactions",
        "reactions.add",
        _err("too_many_reactions"),
        U,
        None,
        "message already has the maximum number of reactions",
        _m("reactions.add"),
    ),
    # chat.update
    (
        "cant_update_message",
        "chat.update",
        _err("cant_update_message"),
        U,
        None,
        "message cannot be edited by the caller",
        _m("chat.update"),
    ),
    (
        "edit_window_closed",
        "chat.update",
        _err("edit_window_closed"),
        U,
        None,
        "edit window for the message has closed",
        _m("chat.update"),
    ),
    (
        "message_not_found",
        "chat.update",
        _err("message_not_found"),
        A,
        None,
        "message not found",
        _m("chat.update"),
    ),
    # files
    ("file_not_found", "files.info", _err("file_not_found"), A, None, "file not found", _m("files.info")),
    ("file_deleted", "files.info", _err("file_deleted"), A, None, "file has been deleted", _m("files.info")),
    # plan
    (
        "feature_not_enabled",
        "admin.conversations.setTeams",
        _err("feature_not_enabled"),
        U,
        None,
        "feature not enabled on the workspace's plan",
        _m("admin.conversations.setTeams"),
    ),
]

# HTTP-level answers (not 200)
_HTTP: list[tuple[str, Reply, str, str | None, str]] = [
    (
        "http_429",
        Reply(
            429,
            _err("ratelimited"),
            {"Retry-After": "30"},
            "Slack rate limits: api.slack.com/apis/rate-limits",
        ),
        T,
        NE,
        "rate limited (HTTP 429, Retry-After)",
    ),
    (
        "http_500",
        Reply(500, "<html><body>Internal Server Error</body></html>", {}, "HTTP 500 from the edge"),
        T,
        UO,
        "internal server error (HTTP 500)",
    ),
    (
        "http_503",
        Reply(503, _err("service_unavailable"), {"Retry-After": "5"}, _WEB),
        T,
        NE,
        "service unavailable (HTTP 503)",
    ),
]

# the arguments the model wrote for each method's tool (the token and base URL are the tool's)
_ARGS: dict[str, dict[str, Any]] = {
    "chat.postMessage": {"channel": "C0123456789", "text": "deploy done"},
    "conversations.list": {"limit": 100},
    "users.info": {"user": "U0123456789"},
    "conversations.history": {"channel": "C0123456789"},
    "conversations.create": {"name": "release-notes"},
    "conversations.invite": {"channel": "C0123456789", "users": "U0123456789"},
    "reactions.add": {"channel": "C0123456789", "timestamp": "1700000000.000100", "name": "thumbsup"},
    "chat.update": {"channel": "C0123456789", "ts": "1700000000.000100", "text": "edited"},
    "files.info": {"file": "F0123456789"},
    "admin.conversations.setTeams": {"channel_id": "C0123456789", "team_id": "T0123456789"},
    # the typed methods' calls
    "conversations.info": {"channel": "C0999999999"},
    "files.upload": {"content": "x", "filename": "a.txt", "channel": "C0123456789"},
}


def _tool(method: str) -> str:
    return method.replace(".", "_")


def _call(client: Any, method: str) -> Any:
    return (
        client.api_call(method, json=_ARGS[method])
        if method == "chat.postMessage"
        else client.api_call(method, params=_ARGS[method])
    )


def cases(ctx: Any) -> Iterator[generate.Case]:
    from slack_sdk import WebClient
    from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler
    from slack_sdk.web.async_client import AsyncWebClient

    def case(
        cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException, method: str
    ) -> generate.Case:
        """A call of the tool for ``method`` with the model's arguments ``_ARGS[method]``."""
        args = dict(_ARGS[method])
        return generate.Case(
            f"slack-{cid}", LIBRARY, cause, kind, outcome, exc, _tool(method), arguments=args
        )

    with _saas.service(ctx, "SLACKPORT", "Apache") as svc:
        client = WebClient(
            token="xoxb-test", base_url=f"{svc.base}/api/", timeout=_saas.TIMEOUT, retry_handlers=[]
        )
        for key, method, body, kind, outcome, cause, _src in _OK_FALSE:
            svc.reply(Reply(200, body, {}, _src))
            yield case(key, cause, kind, outcome, _saas.catch(lambda: _call(client, method)), method)
        for key, reply, kind, outcome, cause in _HTTP:
            svc.reply(reply)
            method = "chat.postMessage"
            yield case(key, cause, kind, outcome, _saas.catch(lambda: _call(client, method)), method)
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            c = WebClient(
                token="xoxb-test", base_url=f"{base}/api/", timeout=_saas.TIMEOUT, retry_handlers=[]
            )
            yield case(
                key,
                cause,
                kind,
                outcome,
                _saas.catch(lambda: _call(c, "chat.postMessage")),
                "chat.postMessage",
            )
        # the SDK's own retry of a 429 (one retry, no wait beyond Retry-After: 0)
        svc.reply(Reply(429, _err("ratelimited"), {"Retry-After": "0"}, "api.slack.com/apis/rate-limits"))
        retrying = WebClient(
            token="xoxb-test",
            base_url=f"{svc.base}/api/",
            timeout=_saas.TIMEOUT,
            retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=1)],
        )
        yield case(
            "http_429-retried",
            "rate limited (HTTP 429, after retries)",
            T,
            NE,
            _saas.catch(lambda: _call(retrying, "chat.postMessage")),
            "chat.postMessage",
        )
        # typed methods build the same request through the SDK's own argument handling
        svc.reply(Reply(200, _err("channel_not_found"), {}, _m("conversations.info")))
        yield case(
            "typed-channel_not_found",
            "channel not found",
            A,
            None,
            _saas.catch(lambda: client.conversations_info(**_ARGS["conversations.info"])),
            "conversations.info",
        )
        svc.reply(Reply(200, _err("missing_scope", needed="files:write", provided="chat:write"), {}, _WEB))
        yield case(
            "typed-missing_scope",
            "token lacks the required scope",
            U,
            None,
            _saas.catch(lambda: client.files_upload_v2(**_ARGS["files.upload"])),
            "files.upload",
        )

        async def run_async() -> list[generate.Case]:
            out = []
            aclient = AsyncWebClient(
                token="xoxb-test", base_url=f"{svc.base}/api/", timeout=_saas.TIMEOUT, retry_handlers=[]
            )
            for key in (
                "channel_not_found",
                "invalid_auth",
                "ratelimited_200",
                "fatal_error",
                "invalid_arguments",
            ):
                _key, method, body, kind, outcome, cause, src = next(r for r in _OK_FALSE if r[0] == key)
                svc.reply(Reply(200, body, {}, src))
                try:
                    await aclient.api_call(method, params=_ARGS[method])
                    raise AssertionError("raised nothing")
                except Exception as exc:
                    out.append(case(f"async-{key}", cause, kind, outcome, exc, method))
            for key, reply, kind, outcome, cause in _HTTP:
                svc.reply(reply)
                try:
                    await aclient.api_call("chat.postMessage", json=_ARGS["chat.postMessage"])
                    raise AssertionError("raised nothing")
                except Exception as exc:
                    out.append(case(f"async-{key}", cause, kind, outcome, exc, "chat.postMessage"))
            for key, kind, outcome, cause in _saas.TRANSPORT:
                svc.reply(key)
                base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
                c = AsyncWebClient(
                    token="xoxb-test", base_url=f"{base}/api/", timeout=_saas.TIMEOUT, retry_handlers=[]
                )
                try:
                    await c.api_call("chat.postMessage", json=_ARGS["chat.postMessage"])
                    raise AssertionError("raised nothing")
                except Exception as exc:
                    out.append(case(f"async-{key}", cause, kind, outcome, exc, "chat.postMessage"))
            return out

        yield from asyncio.run(run_async())
