# ruff: noqa: B023 - each lambda is called at once
"""elasticsearch (elasticsearch-py 8): Elasticsearch's error responses as the client raises
them (``NotFoundError``, ``ConflictError``, ``BadRequestError``, ``AuthenticationException``,
``AuthorizationException``, ``ApiError``; ``helpers.BulkIndexError``) and the transport's
failures (``elastic_transport.ConnectionError`` / ``ConnectionTimeout``), pointed at a local
stand-in cluster.

Bodies are Elasticsearch's error object (``{"error": {"root_cause": [...], "type",
"reason", ...}, "status": N}``, elastic.co/guide/en/elasticsearch/reference/8.15/
common-options.html#common-options-error-options) with the exception types and reasons the
server writes: index and document APIs (docs/index_.html: 409 version conflicts), search
(search-search.html: 400 parsing / search_phase_execution), security (401 / 403
security_exception), disk-based shard allocation (modules-cluster.html#disk-based-shard-
allocation: the flood-stage read-only-allow-delete block), circuit breakers
(circuit-breaker-errors.html: durability TRANSIENT / PERMANENT) and thread pool rejections
(429 es_rejected_execution_exception).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "elasticsearch"
REQUIRES = ["elasticsearch>=8.10,<9"]

_ERR = "Elasticsearch error responses (elastic.co/guide/en/elasticsearch/reference/8.15/common-options.html)"
_PRODUCT = {"X-Elastic-Product": "Elasticsearch"}


def _e(
    status: int,
    type_: str,
    reason: str,
    source: str = _ERR,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> Reply:
    cause = {"type": type_, "reason": reason, **{k: v for k, v in extra.items() if k != "caused_by"}}
    err: dict[str, Any] = {"root_cause": [cause], **cause}
    if "caused_by" in extra:
        err["caused_by"] = extra["caused_by"]
    return Reply(status, {"error": err, "status": status}, {**_PRODUCT, **(headers or {})}, source)


_IDX = {
    "resource.type": "index_or_alias",
    "resource.id": "logs-2026",
    "index_uuid": "_na_",
    "index": "logs-2026",
}
_UUID = "k3Xr9QwTTm2-Zb1y0aV4fA"
_AUTHN = {"WWW-Authenticate": 'Basic realm="security" charset="UTF-8", Bearer realm="security", ApiKey'}

_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    (
        "index_not_found",
        "search",
        _e(404, "index_not_found_exception", "no such index [logs-2026]", **_IDX),
        A,
        None,
        "index not found",
    ),
    (
        "document_missing",
        "update",
        _e(
            404,
            "document_missing_exception",
            "[7]: document missing",
            index_uuid=_UUID,
            shard="0",
            index="logs",
        ),
        A,
        None,
        "document to update not found",
    ),
    (
        "ml_job_missing",
        "ml_job",
        _e(404, "resource_not_found_exception", "No known job with id 'churn-model'"),
        A,
        None,
        "ML job not found",
    ),
    (
        "index_exists",
        "create_index",
        _e(
            400,
            "resource_already_exists_exception",
            f"index [logs/{_UUID}] already exists",
            index_uuid=_UUID,
            index="logs",
        ),
        A,
        None,
        "index already exists",
    ),
    (
        "version_conflict_create",
        "create_doc",
        _e(
            409,
            "version_conflict_engine_exception",
            "[7]: version conflict, document already exists (current version [1])",
            index_uuid=_UUID,
            shard="0",
            index="logs",
        ),
        A,
        None,
        "document already exists (op_type create)",
    ),
    (
        "version_conflict_seqno",
        "index_doc_cas",
        _e(
            409,
            "version_conflict_engine_exception",
            "[7]: version conflict, required seqNo [5], primary term [1]. current document has seqNo [7] and primary term [1]",
            index_uuid=_UUID,
            shard="0",
            index="logs",
        ),
        A,
        None,
        "document changed since it was read (if_seq_no)",
    ),
    (
        "mapper_parsing",
        "index_doc",
        _e(
            400,
            "mapper_parsing_exception",
            "failed to parse field [age] of type [long] in document with id '7'. Preview of field's value: 'forty'",
            caused_by={"type": "number_format_exception", "reason": 'For input string: "forty"'},
        ),
        F,
        None,
        "field value does not fit the mapping",
    ),
    (
        "strict_mapping",
        "index_doc",
        _e(
            400,
            "strict_dynamic_mapping_exception",
            "[1:15] mapping set to strict, dynamic introduction of [nickname] within [_doc] is not allowed",
        ),
        F,
        None,
        "unknown field under a strict mapping",
    ),
    (
        "parsing_malformed",
        "search",
        _e(
            400,
            "parsing_exception",
            "[match] query malformed, no start_object after query name",
            line=1,
            col=20,
        ),
        F,
        None,
        "query malformed",
    ),
    (
        "parsing_unknown_query",
        "search",
        _e(400, "parsing_exception", "unknown query [matchh] did you mean [match]?", line=1, col=20),
        F,
        None,
        "unknown query type",
    ),
    (
        "x_content_unknown_field",
        "search",
        _e(400, "x_content_parse_exception", "[1:22] [bool] unknown field [mustt] did you mean [must]?"),
        F,
        None,
        "unknown field in the query",
    ),
    (
        "search_shard_failure",
        "search",
        _e(
            400,
            "search_phase_execution_exception",
            "all shards failed",
            phase="query",
            grouped=True,
            failed_shards=[
                {
                    "shard": 0,
                    "index": "logs",
                    "node": "n1",
                    "reason": {
                        "type": "query_shard_exception",
                        "reason": 'failed to create query: For input string: "abc"',
                        "index": "logs",
                    },
                }
            ],
            caused_by={"type": "number_format_exception", "reason": 'For input string: "abc"'},
        ),
        F,
        None,
        "query value of the wrong type for the field",
    ),
    (
        "fielddata_text",
        "search",
        _e(
            400,
            "illegal_argument_exception",
            "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [status] in order to load field data by uninverting the inverted index. Note that this can use significant memory.",
        ),
        F,
        None,
        "sorting or aggregating on a text field",
    ),
    (
        "result_window",
        "search",
        _e(
            400,
            "illegal_argument_exception",
            "Result window is too large, from + size must be less than or equal to: [10000] but was [10010]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.",
        ),
        F,
        None,
        "from + size above the result window",
    ),
    (
        "validation_missing_index",
        "search",
        _e(400, "action_request_validation_exception", "Validation Failed: 1: index is missing;"),
        F,
        None,
        "request validation failed",
    ),
    (
        "invalid_index_name",
        "create_index",
        _e(
            400,
            "invalid_index_name_exception",
            "Invalid index name [Logs], must be lowercase",
            index_uuid="_na_",
            index="Logs",
        ),
        F,
        None,
        "index name not lowercase",
    ),
    (
        "unknown_setting",
        "create_index",
        _e(
            400,
            "illegal_argument_exception",
            "unknown setting [index.number_of_shard] did you mean [index.number_of_shards]?",
        ),
        F,
        None,
        "unknown index setting",
    ),
    (
        "script_compile",
        "update",
        _e(
            400,
            "script_exception",
            "compile error",
            script_stack=["ctx._source.count +=", "                    ^---- HERE"],
            script="ctx._source.count +=",
            lang="painless",
        ),
        F,
        None,
        "script does not compile",
    ),
    (
        "total_fields_limit",
        "index_doc",
        _e(
            400,
            "illegal_argument_exception",
            "Limit of total fields [1000] has been exceeded while adding new fields [3]",
        ),
        U,
        None,
        "index mapping field limit reached",
    ),
    (
        "max_shards",
        "create_index",
        _e(
            400,
            "validation_exception",
            "Validation Failed: 1: this action would add [2] shards, but this cluster currently has [1000]/[1000] maximum normal shards open;",
        ),
        U,
        None,
        "cluster shard limit reached",
    ),
    (
        "authn_failed",
        "search",
        _e(
            401,
            "security_exception",
            "unable to authenticate user [agent] for REST request [/logs/_search]",
            headers=_AUTHN,
            header={"WWW-Authenticate": _AUTHN["WWW-Authenticate"]},
        ),
        U,
        None,
        "authentication failed",
    ),
    (
        "authn_missing",
        "search",
        _e(
            401,
            "security_exception",
            "missing authentication credentials for REST request [/logs/_search]",
            headers=_AUTHN,
        ),
        U,
        None,
        "no credentials sent",
    ),
    (
        "api_key_expired",
        "search",
        _e(
            401,
            "security_exception",
            "unable to authenticate with provided credentials and anonymous access is not allowed for this request",
            headers=_AUTHN,
            additional_unsuccessful_credentials="API key: api key is expired",
        ),
        U,
        None,
        "API key expired",
    ),
    (
        "authz_denied",
        "search",
        _e(
            403,
            "security_exception",
            "action [indices:data/read/search] is unauthorized for user [agent] with effective roles [viewer] on indices [logs], this action is granted by the index privileges [read,all]",
        ),
        U,
        None,
        "role lacks the index privilege",
    ),
    (
        "license",
        "ml_job",
        _e(
            403,
            "security_exception",
            "current license is non-compliant for [ml]",
            **{"license.expired.feature": "ml"},
        ),
        U,
        None,
        "feature not available on the license",
    ),
    (
        "flood_stage_403",
        "index_doc",
        _e(
            403,
            "cluster_block_exception",
            "index [logs] blocked by: [FORBIDDEN/12/index read-only / allow delete (api)];",
        ),
        U,
        None,
        "disk full: flood-stage read-only-allow-delete block (7.x form)",
    ),
    (
        "flood_stage_429",
        "index_doc",
        _e(
            429,
            "cluster_block_exception",
            "index [logs] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];",
        ),
        U,
        None,
        "disk full: flood-stage watermark block",
    ),
    (
        "write_block",
        "index_doc",
        _e(403, "cluster_block_exception", "index [logs] blocked by: [FORBIDDEN/8/index write (api)];"),
        U,
        None,
        "index write-blocked",
    ),
    (
        "rejected_execution",
        "index_doc",
        _e(
            429,
            "es_rejected_execution_exception",
            "rejected execution of coordinating operation [coordinating_and_primary_bytes=105906176, replica_bytes=0, all_bytes=105906176, coordinating_operation_bytes=1048576, max_coordinating_and_primary_bytes=106954752]",
        ),
        T,
        NE,
        "indexing pressure rejected the request",
    ),
    (
        "search_queue_full",
        "search",
        _e(
            429,
            "es_rejected_execution_exception",
            "rejected execution of TimedRunnable{original=ActionRunnable#wrap[...]} on TaskExecutionTimeTrackingEsThreadPoolExecutor[name = n1/search, queue capacity = 1000, task execution EWMA = 2.1ms, total task execution time = 8.2h]",
        ),
        T,
        NE,
        "search thread pool queue full",
    ),
    (
        "breaker_transient",
        "search",
        _e(
            429,
            "circuit_breaking_exception",
            "[parent] Data too large, data for [<http_request>] would be [1031831040/984mb], which is larger than the limit of [1020054732/972.7mb], real usage: [1031830952/984mb], new bytes reserved: [88/88b]",
            bytes_wanted=1031831040,
            bytes_limit=1020054732,
            durability="TRANSIENT",
        ),
        T,
        NE,
        "parent circuit breaker tripped (transient)",
    ),
    (
        "breaker_permanent",
        "search",
        _e(
            429,
            "circuit_breaking_exception",
            "[fielddata] Data too large, data for [status] would be [623326302/594.4mb], which is larger than the limit of [623326003/594.4mb]",
            bytes_wanted=623326302,
            bytes_limit=623326003,
            durability="PERMANENT",
        ),
        U,
        None,
        "fielddata circuit breaker tripped (permanent)",
    ),
    (
        "no_shard_available",
        "search",
        _e(
            503,
            "search_phase_execution_exception",
            "all shards failed",
            phase="query",
            grouped=True,
            failed_shards=[],
        ),
        T,
        NE,
        "no shard available for the search",
    ),
    (
        "master_not_discovered",
        "create_index",
        _e(
            503,
            "master_not_discovered_exception",
            "NodeDisconnectedException[[n2][10.0.0.2:9300][cluster:monitor/state] disconnected]",
        ),
        T,
        NE,
        "no elected master",
    ),
    (
        "state_not_recovered",
        "search",
        _e(
            503,
            "cluster_block_exception",
            "blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];",
        ),
        T,
        NE,
        "cluster state not yet recovered",
    ),
    (
        "internal",
        "search",
        _e(
            500,
            "exception",
            "java.lang.IllegalStateException: unexpected docvalues type NONE for field 'status' (expected one of [SORTED, SORTED_SET])",
        ),
        T,
        UO,
        "internal server error",
    ),
    (
        "too_large_413",
        "index_doc",
        Reply(413, "", _PRODUCT, "http.max_content_length (modules-network.html)"),
        F,
        None,
        "request body above http.max_content_length",
    ),
]


def _search(es: Any, args: dict[str, Any]) -> Any:
    """The search tool: the model's ``from`` is the client's ``from_``."""
    return es.search(**{("from_" if key == "from" else key): value for key, value in args.items()})


_DOC = {"message": "hi", "age": "forty"}
# call -> (tool, the arguments the model wrote, the client call they are passed to)
_CALLS: dict[str, tuple[str, dict[str, Any], Any]] = {
    "search": ("search_logs", {"index": "logs", "query": {"match": {"message": "timeout"}}}, _search),
    "update": (
        "update_document",
        {"index": "logs", "id": "7", "doc": {"count": 1}},
        lambda es, a: es.update(**a),
    ),
    "ml_job": ("get_ml_job", {"job_id": "churn-model"}, lambda es, a: es.ml.get_jobs(**a)),
    "create_index": ("create_index", {"index": "logs"}, lambda es, a: es.indices.create(**a)),
    "create_doc": (
        "create_document",
        {"index": "logs", "id": "7", "document": {"message": "hi"}},
        lambda es, a: es.create(**a),
    ),
    "index_doc_cas": (
        "index_document",
        {"index": "logs", "id": "7", "document": {"message": "hi"}, "if_seq_no": 5, "if_primary_term": 1},
        lambda es, a: es.index(**a),
    ),
    "index_doc": (
        "index_document",
        {"index": "logs", "id": "7", "document": _DOC},
        lambda es, a: es.index(**a),
    ),
}
# scenarios whose error names a value the model wrote: the arguments that value is in (the
# stand-in answers the same whatever is sent; these are what the call sends)
_MODEL_ARGS: dict[str, dict[str, Any]] = {
    "index_not_found": {"index": "logs-2026", "query": {"match": {"message": "timeout"}}},
    "strict_mapping": {"index": "logs", "id": "7", "document": {"message": "hi", "nickname": "Al"}},
    "parsing_malformed": {"index": "logs", "query": {"match": "timeout"}},
    "parsing_unknown_query": {"index": "logs", "query": {"matchh": {"message": "timeout"}}},
    "x_content_unknown_field": {
        "index": "logs",
        "query": {"bool": {"mustt": [{"match": {"message": "timeout"}}]}},
    },
    "search_shard_failure": {"index": "logs", "query": {"term": {"age": "abc"}}},
    "fielddata_text": {"index": "logs", "query": {"match": {"message": "timeout"}}, "sort": "status"},
    "result_window": {"index": "logs", "query": {"match": {"message": "timeout"}}, "from": 10000, "size": 10},
    "validation_missing_index": {"query": {"match": {"message": "timeout"}}},
    "invalid_index_name": {"index": "Logs"},
    "unknown_setting": {"index": "logs", "settings": {"index.number_of_shard": 1}},
    "script_compile": {
        "index": "logs",
        "id": "7",
        "script": {"source": "ctx._source.count +=", "lang": "painless"},
    },
}


def _bulk_item(status: int, error: dict[str, Any]) -> dict[str, Any]:
    return {"index": {"_index": "logs", "_id": "7", "status": status, "error": error}}


def cases(ctx: Any) -> Iterator[generate.Case]:
    from elasticsearch import Elasticsearch, helpers

    def client(base: str, retries: int = 0) -> Any:
        return Elasticsearch(base, request_timeout=_saas.TIMEOUT, max_retries=retries, retry_on_timeout=False)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"es-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "ESPORT", "") as svc:
        es = client(svc.base)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = _CALLS[call]
            args = _MODEL_ARGS.get(key, args)
            svc.reply(reply)
            try:
                exc = _saas.catch(lambda: fn(es, args))
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)
        # GET of a missing document: 404 with found: false (docs/get.html)
        svc.reply(
            Reply(404, {"_index": "logs", "_id": "7", "found": False}, _PRODUCT, "Get API (docs-get.html)")
        )
        yield case(
            "doc_not_found",
            "document not found",
            A,
            None,
            _saas.catch(lambda: es.get(index="logs", id="7")),
            "get_document",
            {"index": "logs", "id": "7"},
        )
        # helpers.bulk: item failures inside a 200 answer (docs-bulk.html), raised by the helper
        bulk = [
            (
                "bulk_mapper_parsing",
                _bulk_item(
                    400,
                    {
                        "type": "mapper_parsing_exception",
                        "reason": "failed to parse field [age] of type [long] in document with id '7'. Preview of field's value: 'forty'",
                    },
                ),
                F,
                None,
                "bulk item does not fit the mapping",
            ),
            (
                "bulk_version_conflict",
                {
                    "create": {
                        "_index": "logs",
                        "_id": "7",
                        "status": 409,
                        "error": {
                            "type": "version_conflict_engine_exception",
                            "reason": "[7]: version conflict, document already exists (current version [1])",
                            "index_uuid": _UUID,
                            "shard": "0",
                            "index": "logs",
                        },
                    }
                },
                A,
                None,
                "bulk item already exists",
            ),
            (
                "bulk_rejected",
                _bulk_item(
                    429,
                    {
                        "type": "es_rejected_execution_exception",
                        "reason": "rejected execution of coordinating operation [coordinating_and_primary_bytes=105906176, replica_bytes=0, all_bytes=105906176, coordinating_operation_bytes=1048576, max_coordinating_and_primary_bytes=106954752]",
                    },
                ),
                T,
                NE,
                "bulk item rejected by indexing pressure",
            ),
            (
                "bulk_flood_stage",
                _bulk_item(
                    429,
                    {
                        "type": "cluster_block_exception",
                        "reason": "index [logs] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];",
                    },
                ),
                U,
                None,
                "bulk item blocked: disk full",
            ),
        ]
        for key, item, kind, outcome, cause in bulk:
            svc.reply(
                Reply(
                    200, {"took": 3, "errors": True, "items": [item]}, _PRODUCT, "Bulk API (docs-bulk.html)"
                )
            )
            op = "create" if "create" in item else "index"
            actions = [
                {"_op_type": op, "_index": "logs", "_id": "7", "_source": {"message": "hi", "age": "forty"}}
            ]
            exc = _saas.catch(lambda: helpers.bulk(es, actions, max_retries=0))
            yield case(key, cause, kind, outcome, exc, "bulk_index", {"actions": actions})
        tool, args, fn = _CALLS["search"]
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": "http://es.unreachable-host.invalid:9200"}.get(
                key, svc.base
            )
            eb = client(base)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(eb, args)), tool, args)
        er = client(_saas.dead_base(ctx), retries=1)
        exc = _saas.catch(lambda: fn(er, args))
        yield case("refused-retried", "connection refused (after retries)", T, NE, exc, tool, args)
        # the client's own argument checks (nothing sent)
        exc = _saas.catch(lambda: es.get(index="logs"))
        yield case(
            "missing_id",
            "required argument missing (client-side check)",
            F,
            None,
            exc,
            "get_document",
            {"index": "logs"},
        )
        # a server that is not Elasticsearch (no X-Elastic-Product header)
        svc.reply(Reply(200, {"took": 1, "hits": {"hits": []}}, {}, "product check (elasticsearch-py 8)"))
        exc = _saas.catch(lambda: client(svc.base).search(index="logs", query={"match_all": {}}))
        yield case(
            "unsupported_product",
            "the URL points at a server that is not Elasticsearch",
            U,
            None,
            exc,
            tool,
            {"index": "logs", "query": {"match_all": {}}},
        )
