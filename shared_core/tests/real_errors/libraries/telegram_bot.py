# ruff: noqa: B023 - each lambda is called at once
"""python-telegram-bot: the Telegram Bot API's errors as the library raises them
(``BadRequest``, ``Forbidden``, ``InvalidToken``, ``Conflict``, ``RetryAfter``,
``ChatMigrated``, ``NetworkError``, ``TimedOut``), through ``Bot(base_url=...)`` with its
``HTTPXRequest`` pointed at a local stand-in of api.telegram.org (the Bot API server also
runs locally as telegram-bot-api; ``base_url`` is how the library is pointed at one).

Bodies are the Bot API's error object of core.telegram.org/bots/api#making-requests
(``{"ok": false, "error_code": .., "description": ..}``, with ``parameters`` as
core.telegram.org/bots/api#responseparameters describes them: ``retry_after`` for flood
control, ``migrate_to_chat_id`` for a group upgraded to a supergroup); the descriptions are
the ones the Bot API returns for each cause (``Bad Request: chat not found``, ``Forbidden:
bot was blocked by the user``, ``Too Many Requests: retry after N``, ``Conflict:
terminated by other getUpdates request ..``), the limits those of
core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this and
core.telegram.org/bots/api#getfile (20 MB downloads).

Labels: text, entities, markup, a file id, a parse mode, a chat id that moved (the new id
is in the error) the call gave -> fixable; a wrong token, a bot blocked / kicked / not
allowed to write first, missing admin rights, a file over the Bot API's download limit, a
callback query too old to answer, a webhook set while polling -> unrecoverable; flood
control (429 ``retry_after``) -> transient, not executed; 5xx gateways and read timeouts /
resets -> transient, unknown outcome; chat / message not found and another instance
polling the same bot (409) -> ambiguous, as the other modules label them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "python-telegram-bot"
REQUIRES = ["python-telegram-bot>=21,<23"]

_API = "Telegram Bot API: making requests (core.telegram.org/bots/api#making-requests)"
_PARAMS = "Telegram Bot API: ResponseParameters (core.telegram.org/bots/api#responseparameters)"
_FAQ = "Telegram Bots FAQ: hitting limits (core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this)"
_TOKEN = "7412839502:AAF3kq9Zr8Xp1Lw0Yb5Tn2Mv6Hc4Jd7Es0Q"
_CHAT = -1001234567890


def _tg(status: int, description: str, source: str = _API, parameters: dict[str, Any] | None = None) -> Reply:
    body: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
    if parameters:
        body["parameters"] = parameters
    return Reply(status, body, {}, source)


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the call's arguments
    ("text_empty", "send", _tg(400, "Bad Request: message text is empty"), F, None, "empty message text"),
    (
        "text_too_long",
        "send",
        _tg(400, "Bad Request: message is too long"),
        F,
        None,
        "message over 4096 characters",
    ),
    (
        "parse_entities",
        "send_md",
        _tg(
            400, "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 12"
        ),
        F,
        None,
        "Markdown entity not closed",
    ),
    ("parse_mode", "send_md", _tg(400, "Bad Request: unsupported parse_mode"), F, None, "unknown parse mode"),
    (
        "button_data",
        "send",
        _tg(400, "Bad Request: BUTTON_DATA_INVALID"),
        F,
        None,
        "callback data over 64 bytes",
    ),
    (
        "file_identifier",
        "photo",
        _tg(400, "Bad Request: wrong file identifier/HTTP URL specified"),
        F,
        None,
        "file id / URL not valid",
    ),
    (
        "photo_dimensions",
        "photo",
        _tg(400, "Bad Request: PHOTO_INVALID_DIMENSIONS"),
        F,
        None,
        "photo dimensions not accepted",
    ),
    (
        "not_modified",
        "edit",
        _tg(
            400,
            "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
        ),
        F,
        None,
        "edit with the same content",
    ),
    (
        "cant_edit",
        "edit",
        _tg(400, "Bad Request: message can't be edited"),
        F,
        None,
        "message not editable by the bot",
    ),
    (
        "chat_migrated",
        "send",
        _tg(
            400,
            "Bad Request: group chat was upgraded to a supergroup chat",
            _PARAMS,
            {"migrate_to_chat_id": -1009876543210},
        ),
        F,
        None,
        "group upgraded: use the new chat id",
    ),
    (
        "keyboard_button",
        "send",
        _tg(
            400,
            "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
        ),
        F,
        None,
        "inline button without an action",
    ),
    ("chat_id_empty", "send", _tg(400, "Bad Request: chat_id is empty"), F, None, "chat id empty"),
    # token, permissions, the bot's standing, limits
    ("unauthorized", "send", _tg(401, "Unauthorized"), U, None, "bot token revoked / wrong"),
    ("token_not_found", "send", _tg(404, "Not Found"), U, None, "bot token malformed"),
    ("blocked", "send", _tg(403, "Forbidden: bot was blocked by the user"), U, None, "user blocked the bot"),
    (
        "kicked",
        "send",
        _tg(403, "Forbidden: bot was kicked from the group chat"),
        U,
        None,
        "bot removed from the group",
    ),
    (
        "cant_initiate",
        "send",
        _tg(403, "Forbidden: bot can't initiate conversation with a user"),
        U,
        None,
        "user never started the bot",
    ),
    ("deactivated", "send", _tg(403, "Forbidden: user is deactivated"), U, None, "user account deleted"),
    (
        "not_member",
        "send",
        _tg(403, "Forbidden: bot is not a member of the channel chat"),
        U,
        None,
        "bot not in the channel",
    ),
    ("to_bot", "send", _tg(403, "Forbidden: bot can't send messages to bots"), U, None, "recipient is a bot"),
    (
        "need_admin",
        "pin",
        _tg(400, "Bad Request: not enough rights to manage pinned messages in the chat"),
        U,
        None,
        "bot lacks the admin right",
    ),
    (
        "ban_admin",
        "ban",
        _tg(400, "Bad Request: need administrator rights in the channel chat"),
        U,
        None,
        "bot not an administrator",
    ),
    (
        "file_too_big",
        "get_file",
        _tg(
            400,
            "Bad Request: file is too big",
            "Telegram Bot API: getFile (core.telegram.org/bots/api#getfile)",
        ),
        U,
        None,
        "file over the Bot API's 20 MB download limit",
    ),
    (
        "query_too_old",
        "answer",
        _tg(400, "Bad Request: query is too old and response timeout expired or query ID is invalid"),
        U,
        None,
        "callback query expired",
    ),
    (
        "webhook_active",
        "updates",
        _tg(
            409,
            "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
        ),
        U,
        None,
        "polling while a webhook is set",
    ),
    # not found, conflicts
    ("chat_not_found", "send", _tg(400, "Bad Request: chat not found"), A, None, "chat not found"),
    (
        "message_to_edit",
        "edit",
        _tg(400, "Bad Request: message to edit not found"),
        A,
        None,
        "message to edit not found",
    ),
    (
        "message_to_delete",
        "delete",
        _tg(400, "Bad Request: message to delete not found"),
        A,
        None,
        "message to delete not found",
    ),
    ("user_not_found", "ban", _tg(400, "Bad Request: user not found"), A, None, "user not found"),
    (
        "other_instance",
        "updates",
        _tg(
            409,
            "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
        ),
        A,
        None,
        "another instance polling the same bot",
    ),
    # the service's side
    (
        "flood",
        "send",
        _tg(429, "Too Many Requests: retry after 35", _FAQ, {"retry_after": 35}),
        T,
        NE,
        "flood control (retry_after)",
    ),
    (
        "flood_group",
        "send",
        _tg(429, "Too Many Requests: retry after 3", _FAQ, {"retry_after": 3}),
        T,
        NE,
        "group message rate limit",
    ),
    (
        "bad_gateway",
        "send",
        Reply(
            502,
            "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n",
            {},
            "api.telegram.org's nginx front",
        ),
        T,
        UO,
        "bad gateway",
    ),
    ("internal", "send", _tg(500, "Internal Server Error"), T, UO, "internal server error"),
]


# the arguments the model wrote for each call (the token and base URL are the tool's; the
# polling timeout of get_updates is the tool's too: the model passed nothing)
_ARGS: dict[str, dict[str, Any]] = {
    "send": {"chat_id": _CHAT, "text": "Deploy finished"},
    "send_md": {"chat_id": _CHAT, "text": "*Deploy finished", "parse_mode": "Markdown"},
    "photo": {"chat_id": _CHAT, "photo": "AgACAgIAAxkBAAIBY2Zk7xQ"},
    "edit": {"chat_id": _CHAT, "message_id": 42, "text": "Deploy finished"},
    "delete": {"chat_id": _CHAT, "message_id": 42},
    "pin": {"chat_id": _CHAT, "message_id": 42},
    "ban": {"chat_id": _CHAT, "user_id": 556677889},
    "get_file": {"file_id": "BQACAgIAAxkBAAIBZ2Zk8Aa"},
    "answer": {"callback_query_id": "4382bfdwdsb323b2d9", "text": "Done"},
    "updates": {},
}


def _call(bot: Any, call: str) -> Any:
    args = _ARGS[call]
    return {
        "send": lambda: bot.send_message(**args),
        "send_md": lambda: bot.send_message(**args),
        "photo": lambda: bot.send_photo(**args),
        "edit": lambda: bot.edit_message_text(**args),
        "delete": lambda: bot.delete_message(**args),
        "pin": lambda: bot.pin_chat_message(**args),
        "ban": lambda: bot.ban_chat_member(**args),
        "get_file": lambda: bot.get_file(**args),
        "answer": lambda: bot.answer_callback_query(**args),
        "updates": lambda: bot.get_updates(timeout=0, **args),
    }[call]()


_TOOLS = {
    "send": "send_message",
    "send_md": "send_message",
    "photo": "send_photo",
    "edit": "edit_message",
    "delete": "delete_message",
    "pin": "pin_message",
    "ban": "ban_member",
    "get_file": "get_file",
    "answer": "answer_callback",
    "updates": "get_updates",
}


def cases(ctx: Any) -> Iterator[generate.Case]:
    from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
    from telegram.request import HTTPXRequest

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"telegram-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    def bot(base: str) -> Any:
        t = _saas.TIMEOUT
        request = HTTPXRequest(connect_timeout=t, read_timeout=t, write_timeout=t, pool_timeout=t)
        return Bot(_TOKEN, base_url=f"{base}/bot", request=request, get_updates_request=request)

    async def catch(coro_fn: Any) -> BaseException:
        try:
            await coro_fn()
        except Exception as exc:
            return exc
        raise AssertionError("raised nothing")

    logging.getLogger("telegram").setLevel(logging.CRITICAL)
    with _saas.service(ctx, "TELEGRAMPORT", "nginx/1.18.0") as svc:

        async def run() -> list[generate.Case]:
            out = []
            b = bot(svc.base)
            for key, call, reply, kind, outcome, cause in _SCENARIOS:
                svc.reply(reply)
                exc = await catch(lambda: _call(b, call))
                out.append(case(key, cause, kind, outcome, exc, _TOOLS[call], _ARGS[call]))
            # the library's own checks of the call's arguments (nothing is sent)
            document = ctx.tmp / "reports" / "q3.pdf"
            local: list[tuple[str, str, str, dict[str, Any], Any]] = [
                (
                    "local_keyboard_flat",
                    "inline keyboard not a list of rows",
                    "send_message",
                    {
                        "chat_id": _CHAT,
                        "text": "Approve?",
                        "reply_markup": {"inline_keyboard": [{"text": "Yes", "callback_data": "y"}]},
                    },
                    lambda: b.send_message(
                        chat_id=_CHAT,
                        text="Approve?",
                        reply_markup=InlineKeyboardMarkup([InlineKeyboardButton("Yes", callback_data="y")]),
                    ),
                ),
                (
                    "local_location_missing",
                    "location without latitude / longitude",
                    "send_location",
                    {"chat_id": _CHAT},
                    lambda: b.send_location(chat_id=_CHAT),
                ),
                (
                    "local_contact_missing",
                    "contact without phone number / first name",
                    "send_contact",
                    {"chat_id": _CHAT, "first_name": "Ada"},
                    lambda: b.send_contact(chat_id=_CHAT, first_name="Ada"),
                ),
                (
                    "local_missing_file",
                    "document path that does not exist",
                    "send_document",
                    {"chat_id": _CHAT, "document": str(document)},
                    lambda: b.send_document(chat_id=_CHAT, document=document),
                ),
            ]
            for key, cause, tool, args, fn in local:
                out.append(case(key, cause, F, None, await catch(fn), tool, args))
            for call in ("send", "updates"):
                for key, kind, outcome, cause in _saas.TRANSPORT:
                    svc.reply(key)
                    base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
                    exc = await catch(lambda: _call(bot(base), call))
                    out.append(case(f"{key}-{call}", cause, kind, outcome, exc, _TOOLS[call], _ARGS[call]))
            return out

        yield from asyncio.run(run())
