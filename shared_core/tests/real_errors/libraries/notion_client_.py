"""notion-client: the Notion API's errors as the SDK raises them (``APIResponseError`` with
its ``APIErrorCode``, ``HTTPResponseError`` for a body that is not Notion's,
``RequestTimeoutError``) and its httpx transport failures, through ``Client(base_url=...)``
and ``AsyncClient`` pointed at a local stand-in of api.notion.com.

Bodies are Notion's error object (``{"object": "error", "status", "code", "message"}``)
with the codes and messages of developers.notion.com/reference/status-codes; the request
limits (developers.notion.com/reference/request-limits) give the 429 ``rate_limited`` with
``Retry-After`` and the size-limit validation errors. The SDK's retries are off
(``retry=False``) but for one case.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "notion-client"
REQUIRES = ["notion-client>=2.2,<4"]

_CODES = "Notion API status codes (developers.notion.com/reference/status-codes)"
_LIMITS = "Notion API request limits (developers.notion.com/reference/request-limits)"
_DB = "5f2c8d7e-1a3b-4c5d-9e6f-7a8b9c0d1e2f"


def _n(status: int, code: str, message: str, source: str = _CODES, **headers: str) -> Reply:
    body = {
        "object": "error",
        "status": status,
        "code": code,
        "message": message,
        "request_id": "2f1e0d9c-8b7a-4655-9443-3322110ffeed",
    }
    return Reply(
        status, body, {"x-notion-request-id": "2f1e0d9c-8b7a-4655-9443-3322110ffeed", **headers}, source
    )


_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    (
        "invalid_json",
        "create_page",
        _n(400, "invalid_json", "Error parsing JSON body."),
        F,
        None,
        "body not valid JSON",
    ),
    (
        "invalid_request_url",
        "query",
        _n(400, "invalid_request_url", "Invalid request URL."),
        F,
        None,
        "request URL invalid",
    ),
    (
        "invalid_request",
        "query",
        _n(400, "invalid_request", "This request is not supported."),
        F,
        None,
        "request not supported",
    ),
    (
        "validation_uuid",
        "create_page",
        _n(
            400,
            "validation_error",
            "body failed validation: body.parent.database_id should be a valid uuid, instead was `roadmap`.",
        ),
        F,
        None,
        "parent id not a UUID",
    ),
    (
        "validation_property",
        "create_page",
        _n(400, "validation_error", "Status is not a property that exists."),
        F,
        None,
        "property does not exist on the database",
    ),
    (
        "validation_select",
        "create_page",
        _n(400, "validation_error", "Invalid select option, commas not allowed: Done, shipped"),
        F,
        None,
        "select option invalid",
    ),
    (
        "validation_children_limit",
        "append",
        _n(
            400,
            "validation_error",
            "body failed validation: body.children.length should be ≤ `100`, instead was `120`.",
            _LIMITS,
        ),
        F,
        None,
        "too many blocks in one request",
    ),
    (
        "validation_text_limit",
        "append",
        _n(
            400,
            "validation_error",
            "body failed validation: body.children[0].paragraph.rich_text[0].text.content.length should be ≤ `2000`, instead was `2400`.",
            _LIMITS,
        ),
        F,
        None,
        "rich text content too long",
    ),
    (
        "unauthorized",
        "query",
        _n(401, "unauthorized", "API token is invalid."),
        U,
        None,
        "integration token invalid",
    ),
    (
        "restricted_resource",
        "create_page",
        _n(403, "restricted_resource", "Insufficient permissions for this endpoint."),
        U,
        None,
        "integration lacks the capability",
    ),
    (
        "object_not_found",
        "query",
        _n(
            404,
            "object_not_found",
            f"Could not find database with ID: {_DB}. Make sure the relevant pages and databases are shared with your integration.",
        ),
        A,
        None,
        "database not found or not shared with the integration",
    ),
    (
        "page_not_found",
        "retrieve_page",
        _n(
            404,
            "object_not_found",
            f"Could not find page with ID: {_DB}. Make sure the relevant pages and databases are shared with your integration.",
        ),
        A,
        None,
        "page not found or not shared",
    ),
    (
        "conflict_error",
        "update_page",
        _n(409, "conflict_error", "Conflict occurred while saving. Please try again."),
        A,
        None,
        "data collision while saving",
    ),
    (
        "archived",
        "update_page",
        _n(
            400,
            "validation_error",
            "Can't edit block that is archived. You must unarchive the block before editing.",
        ),
        A,
        None,
        "page archived",
    ),
    (
        "rate_limited",
        "query",
        _n(
            429,
            "rate_limited",
            "You have been rate limited. Please try again in a few minutes.",
            _LIMITS,
            **{"Retry-After": "3"},
        ),
        T,
        NE,
        "rate limited",
    ),
    (
        "internal_server_error",
        "create_page",
        _n(500, "internal_server_error", "Unexpected error occurred."),
        T,
        UO,
        "internal server error",
    ),
    (
        "bad_gateway",
        "create_page",
        _n(
            502,
            "bad_gateway",
            "Notion encountered an issue while attempting to complete this request. Please try again.",
        ),
        T,
        UO,
        "upstream failure inside Notion",
    ),
    (
        "service_unavailable",
        "query",
        _n(
            503,
            "service_unavailable",
            "Notion is unavailable. This can occur when the time to respond to a request takes longer than 60 seconds, the maximum request timeout. Please try again later.",
        ),
        T,
        NE,
        "service unavailable",
    ),
    (
        "database_unavailable",
        "query",
        _n(
            503,
            "database_connection_unavailable",
            "Notion's database is unavailable or in an unqueryable state. Try again later.",
        ),
        T,
        NE,
        "Notion's database unavailable",
    ),
    (
        "gateway_timeout",
        "query",
        _n(
            504,
            "gateway_timeout",
            "Notion timed out while attempting to complete this request. Please try again later.",
        ),
        T,
        UO,
        "gateway timeout",
    ),
    (
        "html_502",
        "query",
        Reply(
            502,
            "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>cloudflare</center></body></html>",
            {},
            "a CDN's page (no Notion body)",
        ),
        T,
        UO,
        "bad gateway page from the CDN",
    ),
]

_PAGE = {
    "parent": {"database_id": _DB},
    "properties": {"Name": {"title": [{"text": {"content": "Ship v2"}}]}},
}


_UPDATE = {"page_id": _DB, "properties": {"Status": {"select": {"name": "Done"}}}}
_APPEND = {"block_id": _DB, "children": [{"paragraph": {"rich_text": [{"text": {"content": "x"}}]}}]}
_SEARCH = {"query": "roadmap"}


def _calls(c: Any) -> dict[str, tuple[str, dict[str, Any], Any]]:
    """call -> (tool, the model's arguments, the call); the token and base URL are the tool's."""
    return {
        "create_page": ("create_page", _PAGE, lambda: c.pages.create(**_PAGE)),
        "retrieve_page": ("get_page", {"page_id": _DB}, lambda: c.pages.retrieve(page_id=_DB)),
        "update_page": ("update_page", _UPDATE, lambda: c.pages.update(**_UPDATE)),
        "append": ("append_blocks", _APPEND, lambda: c.blocks.children.append(**_APPEND)),
        "query": ("search", _SEARCH, lambda: c.search(**_SEARCH)),
    }


def cases(ctx: Any) -> Iterator[generate.Case]:
    from notion_client import AsyncClient, Client

    def client(base: str, retry: bool = False) -> Any:
        return Client(
            auth="secret_abcdefghijklmnopqrstuvwxyz0123456789ABCDEF",
            base_url=base,
            timeout_ms=int(_saas.TIMEOUT * 1000),
            retry=retry,
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
        return generate.Case(f"notion-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "NOTIONPORT", "cloudflare") as svc:
        calls = _calls(client(svc.base))
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
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
            tool, args, fn = _calls(client(base))["create_page"]
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)
        # the SDK's own retry of a 429 (Retry-After: 0)
        svc.reply(
            _n(
                429,
                "rate_limited",
                "You have been rate limited. Please try again in a few minutes.",
                _LIMITS,
                **{"Retry-After": "0"},
            )
        )
        from notion_client.client import RetryOptions

        retrying = Client(
            auth="secret_abcdefghijklmnopqrstuvwxyz0123456789ABCDEF",
            base_url=svc.base,
            timeout_ms=int(_saas.TIMEOUT * 1000),
            retry=RetryOptions(max_retries=1, initial_retry_delay_ms=0, max_retry_delay_ms=0),
        )
        yield case(
            "rate_limited-retried",
            "rate limited (after retries)",
            T,
            NE,
            _saas.catch(_calls(retrying)["query"][2]),
            "search",
            _SEARCH,
        )

        async def run_async() -> list[generate.Case]:
            out = []
            for key in ("validation_uuid", "unauthorized", "object_not_found", "rate_limited", "bad_gateway"):
                _k, call, reply, kind, outcome, cause = next(s for s in _SCENARIOS if s[0] == key)
                svc.reply(reply)
                async with AsyncClient(
                    auth="secret_abc", base_url=svc.base, timeout_ms=int(_saas.TIMEOUT * 1000), retry=False
                ) as ac:
                    try:
                        if call == "create_page":
                            await ac.pages.create(**_PAGE)
                        else:
                            await ac.search(**_SEARCH)
                        raise AssertionError("raised nothing")
                    except Exception as exc:
                        tool, args, _fn = _calls(None)[call]
                        out.append(case(f"async-{key}", cause, kind, outcome, exc, tool, args))
            for key, kind, outcome, cause in _saas.TRANSPORT:
                svc.reply(key)
                base = {"refused": _saas.dead_base(ctx), "dns": "https://api.unreachable-host.invalid"}.get(
                    key, svc.base
                )
                async with AsyncClient(
                    auth="secret_abc", base_url=base, timeout_ms=int(_saas.TIMEOUT * 1000), retry=False
                ) as ac:
                    try:
                        await ac.pages.create(**_PAGE)
                        raise AssertionError("raised nothing")
                    except Exception as exc:
                        out.append(case(f"async-{key}", cause, kind, outcome, exc, "create_page", _PAGE))
            return out

        yield from asyncio.run(run_async())
