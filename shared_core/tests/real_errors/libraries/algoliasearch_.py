"""algoliasearch (v4): the Algolia Search REST API's errors as the SDK raises them
(``RequestException`` with the body's ``message`` and the status for a 4xx,
``AlgoliaUnreachableHostException`` once its retry strategy has given up on every host
after a 5xx or a read timeout, the ``requests`` transport errors it lets through, the
``Exception`` of its ``wait_for_task`` helper) through ``SearchClientSync`` whose
``SearchConfig.hosts`` is one local stand-in of ``<APP_ID>-dsn.algolia.net``, and the
SDK's own client-side errors (``ValueError`` for a required parameter missing, pydantic's
``ValidationError`` from its request models, ``ValidUntilNotFoundException`` and
``binascii.Error`` from its secured-API-key helper, ``ValueError`` for a config without
application id).

Bodies are Algolia's ``{"message": ..., "status": ...}`` with the statuses of the REST API
reference (algolia.com/doc/rest-api/search: 400 bad request or request argument, 402
feature not in the plan, 403 invalid credentials or ACL, 404 resource does not exist, 429
too many requests, 5xx retried on the next host) and the messages of Algolia's
troubleshooting pages (support.algolia.com "Invalid Application-ID or API key", "Method
not allowed with this API key", "Index does not exist", "ObjectID does not exist",
"Record quota exceeded", "Record at the position ... is too big", the filters syntax
errors). The client is new for every case: the SDK marks a host down for 5 minutes after a
5xx or a timeout. Labels: a parameter, filter, record or name the model wrote -> fixable;
key, ACL, plan or quota -> unrecoverable; index / object / rule / key not found ->
ambiguous, as the other SaaS modules label them; 429 / 503 / refused / DNS -> transient,
not executed; 500 / 502 / 504 / read timeout / reset / close and a task still not
published when the helper stops polling -> transient, unknown outcome. The SDK's 429
retries are off (``max_rate_limit_retries = 0``) but for one case.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "algoliasearch"
REQUIRES = ["algoliasearch>=4.10,<5"]

_API = "Algolia Search REST API (algolia.com/doc/rest-api/search)"
_HELP = "Algolia troubleshooting (support.algolia.com)"
_APP = "LATENCY7Q"
_KEY = "6be0576ff61c053d5f9a3225e2a90f76"


def _a(status: int, message: str, source: str = _HELP, **headers: str) -> Reply:
    return Reply(status, {"message": message, "status": status}, headers, source)


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    (
        "filters_syntax",
        "search",
        _a(400, "filters: Unexpected token string(in) expected end of filter at col 17"),
        F,
        None,
        "filters expression malformed",
    ),
    (
        "numeric_filter",
        "search",
        _a(400, "Invalid syntax for numeric condition:price>"),
        F,
        None,
        "numeric filter without a value",
    ),
    (
        "unknown_parameter",
        "search",
        _a(400, "Unknown parameter: hitPerPage", _API),
        F,
        None,
        "search parameter misspelled",
    ),
    (
        "record_too_big",
        "save",
        _a(
            400,
            "Record at the position 0 objectID=sku-1042 is too big size=112408/10000 bytes. Please have a look at https://www.algolia.com/doc/guides/sending-and-managing-data/prepare-your-data/in-depth/index-and-records-size-and-usage-limitations/#record-size-limits",
        ),
        F,
        None,
        "record over the size limit",
    ),
    (
        "facet_not_searchable",
        "facet",
        _a(
            400,
            "Cannot search in `brand` attribute, you need to add `searchable(brand)` to attributesForFaceting.",
        ),
        F,
        None,
        "facet not declared searchable",
    ),
    (
        "invalid_setting",
        "settings",
        _a(400, "Invalid value for 'customRanking': expected an array of strings", _API),
        F,
        None,
        "setting of the wrong type",
    ),
    (
        "index_name_invalid",
        "move",
        _a(400, "Index name is not valid: it must not contain a slash", _API),
        F,
        None,
        "destination index name invalid",
    ),
    # credentials, ACL, plan, quota
    (
        "invalid_credentials",
        "search",
        _a(403, "Invalid Application-ID or API key"),
        U,
        None,
        "application id or API key wrong",
    ),
    (
        "method_not_allowed",
        "delete_index",
        _a(403, "Method not allowed with this API key"),
        U,
        None,
        "key lacks the deleteIndex ACL",
    ),
    (
        "index_not_allowed",
        "search",
        _a(403, "Index not allowed with this API key"),
        U,
        None,
        "key restricted to other indices",
    ),
    (
        "record_quota",
        "save",
        _a(403, "Record quota exceeded, change plan or delete records."),
        U,
        None,
        "plan's record quota spent",
    ),
    (
        "feature_not_in_plan",
        "settings",
        _a(402, "This feature is not available with your plan", _API),
        U,
        None,
        "feature not in the plan",
    ),
    # not found
    (
        "index_does_not_exist",
        "search",
        _a(404, "Index does not exist"),
        A,
        None,
        "index not found",
    ),
    (
        "object_does_not_exist",
        "get_object",
        _a(404, "ObjectID does not exist"),
        A,
        None,
        "record not found",
    ),
    (
        "rule_does_not_exist",
        "get_rule",
        _a(404, "Rule does not exist", _API),
        A,
        None,
        "rule not found",
    ),
    (
        "key_does_not_exist",
        "get_key",
        _a(404, "Key does not exist", _API),
        A,
        None,
        "API key not found",
    ),
    # load, outages
    (
        "too_many_requests",
        "search",
        _a(429, "Too many requests", _API),
        T,
        NE,
        "rate limited",
    ),
    (
        "unavailable",
        "search",
        _a(503, "Service Unavailable", _API),
        T,
        NE,
        "the host unavailable (503)",
    ),
    (
        "internal",
        "save",
        _a(500, "Internal error", _API),
        T,
        UO,
        "internal error on the host",
    ),
    (
        "bad_gateway",
        "save",
        Reply(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", {}, "a proxy in front of the API"),
        T,
        UO,
        "bad gateway page",
    ),
    (
        "gateway_timeout",
        "search",
        Reply(
            504, "<html><body><h1>504 Gateway Time-out</h1></body></html>", {}, "a proxy in front of the API"
        ),
        T,
        UO,
        "gateway timeout",
    ),
]


# the arguments the model wrote for each call of ``_calls`` (the index, the query, the records)
_SEARCH = {"index": "products", "query": "red shoes", "filters": "brand:nike"}
_SAVE = {"index": "products", "objects": [{"objectID": "sku-1042", "name": "Red shoe"}]}
_ARGS: dict[str, dict[str, Any]] = {
    "search": _SEARCH,
    "save": _SAVE,
    "facet": {"index": "products", "facet": "brand"},
    "settings": {"index": "products", "settings": {"customRanking": ["desc(popularity)"]}},
    "move": {"index": "products_tmp", "operation": "move", "destination": "products"},
    "delete_index": {"index": "products_old"},
    "get_object": {"index": "products", "object_id": "sku-1042"},
    "get_rule": {"index": "products", "rule_id": "boost-sale"},
    "get_key": {"key": _KEY},
}


def _calls(c: Any) -> dict[str, tuple[str, Any]]:
    return {
        "search": (
            "search_products",
            lambda: c.search_single_index("products", {"query": "red shoes", "filters": "brand:nike"}),
        ),
        "save": (
            "index_products",
            lambda: c.save_objects("products", [{"objectID": "sku-1042", "name": "Red shoe"}]),
        ),
        "facet": ("search_facets", lambda: c.search_for_facet_values("products", "brand")),
        "settings": (
            "update_settings",
            lambda: c.set_settings("products", {"customRanking": ["desc(popularity)"]}),
        ),
        "move": (
            "move_index",
            lambda: c.operation_index("products_tmp", {"operation": "move", "destination": "products"}),
        ),
        "delete_index": ("delete_index", lambda: c.delete_index("products_old")),
        "get_object": ("get_product", lambda: c.get_object("products", "sku-1042")),
        "get_rule": ("get_rule", lambda: c.get_rule("products", "boost-sale")),
        "get_key": ("get_api_key", lambda: c.get_api_key(_KEY)),
    }


def cases(ctx: Any) -> Iterator[generate.Case]:
    from algoliasearch.http.hosts import Host, HostsCollection
    from algoliasearch.search.client import SearchClient, SearchClientSync
    from algoliasearch.search.config import SearchConfig
    from algoliasearch.search.models import IndexSettings, OperationIndexParams, SearchParamsObject

    def config(host: str, port: int | None, rate_retries: int = 0) -> Any:
        config = SearchConfig(_APP, _KEY)
        config.hosts = HostsCollection([Host(host, scheme="http", port=port)])
        ms = int(_saas.TIMEOUT * 1000)
        config.connect_timeout = config.read_timeout = config.write_timeout = ms
        config.max_rate_limit_retries = rate_retries
        return config

    def client(host: str, port: int | None, rate_retries: int = 0) -> Any:
        return SearchClientSync.create_with_config(config(host, port, rate_retries))

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        arguments: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"algolia-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=arguments)

    with _saas.service(ctx, "ALGOLIAPORT", "nginx") as svc:
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, fn = _calls(client("127.0.0.1", svc.port))[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, _ARGS[call])
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            host, port = {
                "refused": ("127.0.0.1", ctx.dead),
                "dns": ("api.unreachable-host.invalid", None),
            }.get(key, ("127.0.0.1", svc.port))
            tool, fn = _calls(client(host, port))["save"]
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, _SAVE)
        # the SDK's own wait on a 429 (Retry-After: 1), then the 429 again
        svc.reply(_a(429, "Too many requests", _API, **{"Retry-After": "1"}))
        tool, fn = _calls(client("127.0.0.1", svc.port, rate_retries=1))["search"]
        yield case(
            "too_many_requests-retried",
            "rate limited (after the SDK's wait)",
            T,
            NE,
            _saas.catch(fn),
            tool,
            _SEARCH,
        )
        # wait_for_task stops polling a task still not published (the task id is the
        # service's answer to the model's save)
        svc.reply(Reply(200, {"status": "notPublished", "pendingTask": True}))
        c = client("127.0.0.1", svc.port)
        yield case(
            "wait_for_task-gave-up",
            "task not yet published when the helper stopped polling",
            T,
            UO,
            _saas.catch(lambda: c.wait_for_task("products", 42, max_retries=2)),
            "index_products",
            _SAVE,
        )

        # the asyncio client (aiohttp transport)
        async def run_async() -> list[generate.Case]:
            out = []
            keys = ["invalid_credentials", "index_does_not_exist", "too_many_requests", "unavailable"]
            for key in keys + [t[0] for t in _saas.TRANSPORT]:
                host, port = {
                    "refused": ("127.0.0.1", ctx.dead),
                    "dns": ("api.unreachable-host.invalid", None),
                }.get(key, ("127.0.0.1", svc.port))
                scenario = next((s for s in _SCENARIOS if s[0] == key), None)
                if scenario is not None:
                    svc.reply(scenario[2])
                    kind, outcome, cause = scenario[3], scenario[4], scenario[5]
                else:
                    svc.reply(key)
                    kind, outcome, cause = next(t[1:] for t in _saas.TRANSPORT if t[0] == key)
                ac = SearchClient.create_with_config(config(host, port))
                try:
                    await ac.search_single_index("products", {"query": "red shoes", "filters": "brand:nike"})
                    raise AssertionError(f"{key} raised nothing")
                except AssertionError:
                    raise
                except Exception as exc:
                    out.append(case(f"async-{key}", cause, kind, outcome, exc, "search_products", _SEARCH))
                finally:
                    await ac.close()
            return out

        yield from asyncio.run(run_async())

    # the SDK's own checks (no request sent)
    c = client("127.0.0.1", ctx.dead)
    secured = "dGFnRmlsdGVycz1wdWJsaWM="
    local: list[tuple[str, str, Any, str, str, dict[str, Any]]] = [
        (
            "index-name-empty",
            "index name empty",
            lambda: c.search_single_index("", {"query": "red shoes"}),
            F,
            "search_products",
            {"index": "", "query": "red shoes"},
        ),
        (
            "object-id-empty",
            "object id empty",
            lambda: c.get_object("products", ""),
            F,
            "get_product",
            {"index": "products", "object_id": ""},
        ),
        (
            "body-none",
            "record to save missing",
            lambda: c.save_object("products", None),
            F,
            "index_products",
            {"index": "products", "object": None},
        ),
        (
            "batch-size-zero",
            "batch size 0",
            lambda: c.save_objects("products", [{"objectID": "1"}], batch_size=0),
            F,
            "index_products",
            {"index": "products", "objects": [{"objectID": "1"}], "batch_size": 0},
        ),
        (
            "hits-per-page-text",
            "hitsPerPage given as text",
            lambda: c.search_single_index("products", SearchParamsObject.from_dict({"hitsPerPage": "ten"})),
            F,
            "search_products",
            {"index": "products", "hitsPerPage": "ten"},
        ),
        (
            "operation-enum",
            "index operation not move or copy",
            lambda: OperationIndexParams.from_dict({"operation": "rename", "destination": "products"}),
            F,
            "move_index",
            {"operation": "rename", "destination": "products"},
        ),
        (
            "searchable-attributes-str",
            "searchableAttributes given as a string",
            lambda: IndexSettings(searchable_attributes="title"),
            F,
            "update_settings",
            {"settings": {"searchable_attributes": "title"}},
        ),
        (
            "secured-key-malformed",
            "secured API key not base64",
            lambda: c.get_secured_api_key_remaining_validity("abc"),
            F,
            "key_validity",
            {"secured_api_key": "abc"},
        ),
        (
            "secured-key-no-valid-until",
            "secured API key without validUntil",
            lambda: c.get_secured_api_key_remaining_validity(secured),
            F,
            "key_validity",
            {"secured_api_key": secured},
        ),
        (
            "app-id-missing",
            "tool configured without application id",
            lambda: SearchClientSync("", _KEY),
            U,
            "search_products",
            _SEARCH,
        ),
    ]
    for key, cause, fn, kind, tool, arguments in local:
        yield case(key, cause, kind, None, _saas.catch(fn), tool, arguments)
