# ruff: noqa: B023 - each lambda is called at once
"""opensearch-py: OpenSearch's error responses as the client raises them (``NotFoundError``,
``ConflictError``, ``RequestError``, ``AuthenticationException``, ``AuthorizationException``,
``TransportError`` for the other statuses, ``SerializationError`` for a body it cannot read,
``helpers.BulkIndexError``), the transport's failures (``ConnectionError``,
``ConnectionTimeout``, ``SSLError``; urllib3 under ``OpenSearch``, aiohttp under
``AsyncOpenSearch``) and the client's own checks (the DSL's ``UnknownDslObject`` /
``ValidationException`` / ``ValueError``, ``TypeError`` for an option the API does not
take), through ``OpenSearch(hosts=[...])`` pointed at a local stand-in cluster.

Bodies are OpenSearch's error object ``{"error": {"root_cause": [...], "type", "reason",
...}, "status": N}`` with the exception types, reasons and statuses the server writes:
the document APIs (docs.opensearch.org/latest/api-reference/document-apis/: 404 index or
document missing, 409 version conflicts, 400 mapper parsing), the query DSL
(docs.opensearch.org/latest/query-dsl/: 400 ``parsing_exception``,
``x_content_parse_exception``, ``search_phase_execution_exception``), bucket aggregations
(``search.max_buckets``, docs.opensearch.org/latest/aggregations/bucket/index/), the
Security plugin (docs.opensearch.org/latest/security/access-control/permissions/: 401
``Unauthorized`` as text, 403 ``security_exception`` "no permissions for [...]"), disk
watermarks (docs.opensearch.org/latest/install-and-configure/configuring-opensearch/
cluster-settings/: the flood-stage read-only-allow-delete block), circuit breakers
(.../configuring-opensearch/circuit-breaker/: durability TRANSIENT / PERMANENT), thread pool
rejections (429 ``rejected_execution_exception``), the SQL plugin
(docs.opensearch.org/latest/sql-and-ppl/troubleshoot/: ``{"error": {"reason", "details",
"type"}, "status"}``) and a node without the plugin (400 "no handler found for uri").

Labels, by the cause set up:

- fixable: a query, mapping, setting, index name, script, SQL statement, document or
  option the model wrote (unknown query / field, malformed query, a value of the wrong type
  for the field, sorting on a text field, from + size above the result window, too many
  buckets for the interval it chose, a document that does not fit the mapping, an
  uppercase index name, a misspelt setting or field type, a Painless script that does not
  compile, SQL syntax / unknown column / an index pattern whose mappings differ), and the
  client's own checks of the model's arguments (DSL class names, a query object with two
  keys, a required document field left out, a date it cannot parse, an unknown option);
- unrecoverable: credentials refused (401), a role without the privilege (403), an IAM
  policy of an Amazon OpenSearch Service domain that denies the action (403 ``Message``,
  docs.aws.amazon.com/opensearch-service/latest/developerguide/handling-errors.html), the
  flood-stage / read-only / write blocks (disk full, index made read-only), a PERMANENT
  circuit breaker, the mapping's total-fields limit and the cluster's shard limit, the SQL
  plugin not installed, the cluster's TLS certificate not trusted by the tool;
- ambiguous: an index or document named by the model that does not exist (or an index
  named in SQL), an index / document that already exists or changed since it was read
  (409), an alias that points to several indices without a write index (the cluster's
  state, not the call), documents or a bulk body the tool READ from a file the model named
  that the server rejects, a reply the client cannot read (an HTML page, a truncated JSON
  body);
- transient: 429 thread-pool rejections and TRANSIENT circuit breakers, 503 with no shard
  available or no elected cluster manager, a scroll context that expired (restart the
  export), refused / DNS -> not executed; 502 pages, read timeout, reset, close -> unknown
  outcome. ``-retried`` cases keep the transport's retries (``max_retries=1``, statuses
  502/503/504).

Not triggered: a 500 from the server (OpenSearch's own docs do not say whether to retry
one: its label would be a guess), ``ScanError`` (the shards that failed could have failed
for any reason: a guess again), sniffing, AWS SigV4 signing.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U, caught

LIBRARY = "opensearch-py"
REQUIRES = ["opensearch-py==3.2.0", "cryptography>=41,<51"]

_DOCS = "OpenSearch REST API errors (docs.opensearch.org/latest/api-reference/)"
_DSL = "OpenSearch query DSL (docs.opensearch.org/latest/query-dsl/)"
_SEC = "OpenSearch Security permissions (docs.opensearch.org/latest/security/access-control/permissions/)"
_DISK = "OpenSearch cluster settings, disk watermarks (docs.opensearch.org/latest/install-and-configure/configuring-opensearch/cluster-settings/)"
_CB = "OpenSearch circuit breakers (docs.opensearch.org/latest/install-and-configure/configuring-opensearch/circuit-breaker/)"
_SQL = "OpenSearch SQL and PPL troubleshooting (docs.opensearch.org/latest/sql-and-ppl/troubleshoot/)"
_AGGS = "OpenSearch bucket aggregations, search.max_buckets (docs.opensearch.org/latest/aggregations/bucket/index/)"
_AWS = "Amazon OpenSearch Service, troubleshooting (docs.aws.amazon.com/opensearch-service/latest/developerguide/handling-errors.html)"
_UUID = "k3Xr9QwTTm2-Zb1y0aV4fA"
_AUTH = ("agent", "9pX!v2rQ7wLm")


def _e(status: int, type_: str, reason: Any, source: str = _DOCS, headers: dict[str, str] | None = None, root: dict[str, Any] | None = None, **extra: Any) -> Reply:  # fmt: skip
    """OpenSearch's error object; ``root`` replaces the root cause (a wrapped exception)."""
    caused_by = extra.pop("caused_by", None)
    cause = {"type": type_, "reason": reason, **extra}
    err: dict[str, Any] = {"root_cause": [root or cause], **cause}
    if caused_by is not None:
        err["caused_by"] = caused_by
    return Reply(status, {"error": err, "status": status}, headers or {}, source)


def _sql(status: int, type_: str, reason: str, details: str) -> Reply:
    """The SQL plugin's error object (no root cause)."""
    return Reply(
        status, {"error": {"reason": reason, "details": details, "type": type_}, "status": status}, {}, _SQL
    )


def _shard_failure(type_: str, reason: str, status: int = 400, source: str = _DSL, **caused: Any) -> Reply:
    """``search_phase_execution_exception``: all shards failed with ``type_``."""
    root = {"type": type_, "reason": reason, **caused}
    return _e(
        status,
        "search_phase_execution_exception",
        "all shards failed",
        source,
        root=root,
        phase="query",
        grouped=True,
        failed_shards=[{"shard": 0, "index": "logs", "node": "n1", "reason": root}],
        caused_by=root,
    )


_IDX = {
    "index": "logs-2026",
    "resource.id": "logs-2026",
    "resource.type": "index_or_alias",
    "index_uuid": "_na_",
}
_SHARD = {"index_uuid": _UUID, "shard": "0", "index": "logs"}
_FLOOD = "index [logs] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];"  # fmt: skip
_HTML502 = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"  # fmt: skip

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's queries, documents, mappings, settings and statements
    ("parsing_unknown_query", "search_matchh", _e(400, "parsing_exception", "unknown query [matchh] did you mean [match]?", _DSL, line=1, col=20), F, None, "unknown query type"),
    ("parsing_malformed", "search_match_str", _e(400, "parsing_exception", "[match] query malformed, no start_object after query name", _DSL, line=1, col=19), F, None, "query malformed"),
    ("x_content_unknown_field", "search_mustt", _e(400, "x_content_parse_exception", "[1:19] [bool] unknown field [mustt]", _DSL), F, None, "unknown field in a bool query"),
    ("number_format", "search_term_age", _shard_failure("query_shard_exception", 'failed to create query: For input string: "abc"', index="logs", index_uuid=_UUID), F, None, "query value of the wrong type for the field"),
    ("fielddata_text", "search_sort_text", _shard_failure("illegal_argument_exception", "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [status] in order to load field data by uninverting the inverted index. Note that this can use significant memory."), F, None, "sorting on a text field"),
    ("result_window", "search_deep", _shard_failure("illegal_argument_exception", "Result window is too large, from + size must be less than or equal to: [10000] but was [10010]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting."), F, None, "from + size above the result window"),
    ("too_many_buckets", "search_histogram", _shard_failure("too_many_buckets_exception", "Trying to create too many buckets. Must be less than or equal to: [65535] but this number of buckets was exceeded. This limit can be set by changing the [search.max_buckets] cluster level setting.", source=_AGGS, max_buckets=65535), F, None, "histogram interval too fine: too many buckets"),
    ("mapper_parsing_doc", "index_doc_age", _e(400, "mapper_parsing_exception", "failed to parse field [age] of type [long] in document with id '7'. Preview of field's value: 'forty'", caused_by={"type": "number_format_exception", "reason": 'For input string: "forty"'}), F, None, "document value does not fit the field's type"),
    ("strict_mapping", "index_doc_nickname", _e(400, "strict_dynamic_mapping_exception", "mapping set to strict, dynamic introduction of [nickname] within [_doc] is not allowed"), F, None, "unknown field under a strict mapping"),
    ("invalid_index_name", "create_index_upper", _e(400, "invalid_index_name_exception", "Invalid index name [Logs], must be lowercase", index_uuid="_na_", index="Logs"), F, None, "index name not lowercase"),
    ("unknown_setting", "create_index_setting", _e(400, "illegal_argument_exception", "unknown setting [index.number_of_shard] did you mean [index.number_of_shards]?"), F, None, "misspelt index setting"),
    ("mapping_unknown_type", "create_index_mapping", _e(400, "mapper_parsing_exception", "Failed to parse mapping [_doc]: No handler for type [strin] declared on field [name]", root={"type": "mapper_parsing_exception", "reason": "No handler for type [strin] declared on field [name]"}, caused_by={"type": "mapper_parsing_exception", "reason": "No handler for type [strin] declared on field [name]"}), F, None, "field type misspelt in the mapping"),
    ("script_compile", "update_script", _e(400, "illegal_argument_exception", "failed to execute script", root={"type": "script_exception", "reason": "compile error", "script_stack": ["ctx._source.count +=", "                    ^---- HERE"], "script": "ctx._source.count +=", "lang": "painless"}, caused_by={"type": "script_exception", "reason": "compile error", "script_stack": ["ctx._source.count +=", "                    ^---- HERE"], "script": "ctx._source.count +=", "lang": "painless", "position": {"offset": 20, "start": 0, "end": 20}, "caused_by": {"type": "illegal_argument_exception", "reason": "invalid sequence of tokens near ['+='].", "caused_by": {"type": "no_viable_alt_exception", "reason": None}}}), F, None, "Painless script does not compile"),
    ("sql_syntax", "sql_form", _sql(400, "SyntaxCheckException", "Invalid SQL query", "Failed to parse query due to offending symbol [FORM] at: 'SELECT status, count(*) FORM' <--- HERE... More details: Expecting tokens in {<EOF>, ';'}"), F, None, "SQL keyword misspelt"),
    ("sql_unknown_column", "sql_column", _sql(400, "SemanticCheckException", "Invalid SQL query", "can't resolve Symbol(namespace=FIELD_NAME, name=stauts) in type env"), F, None, "SQL names a field the index does not have"),
    ("sql_index_pattern", "sql_pattern", _sql(503, "VerificationException", "There was internal problem at backend", "When using multiple indices, the mappings must be identical."), F, None, "SQL over an index pattern whose mappings differ"),
    # credentials, privileges, the cluster's limits and state
    ("unauthorized", "search", Reply(401, "Unauthorized", {"WWW-Authenticate": 'Basic realm="OpenSearch Security"'}, _SEC, "text/plain; charset=UTF-8"), U, None, "credentials refused"),
    ("no_permissions_search", "search", _e(403, "security_exception", "no permissions for [indices:data/read/search] and User [name=agent, backend_roles=[], requestedTenant=null]", _SEC), U, None, "role lacks the read privilege"),
    ("no_permissions_create", "create_index", _e(403, "security_exception", "no permissions for [indices:admin/create] and User [name=agent, backend_roles=[], requestedTenant=null]", _SEC), U, None, "role may not create indices"),
    ("flood_stage", "index_doc", _e(429, "cluster_block_exception", _FLOOD, _DISK), U, None, "disk full: flood-stage watermark block"),
    ("read_only_allow_delete", "index_doc", _e(403, "cluster_block_exception", "index [logs] blocked by: [FORBIDDEN/12/index read-only / allow delete (api)];", _DISK), U, None, "index read-only (allow delete) after the disk filled"),
    ("write_block", "index_doc", _e(403, "cluster_block_exception", "index [logs] blocked by: [FORBIDDEN/8/index write (api)];"), U, None, "index write-blocked"),
    ("breaker_permanent", "search_sort_keyword", _e(429, "circuit_breaking_exception", "[fielddata] Data too large, data for [status.keyword] would be [623326302/594.4mb], which is larger than the limit of [623326003/594.4mb]", _CB, bytes_wanted=623326302, bytes_limit=623326003, durability="PERMANENT"), U, None, "fielddata circuit breaker tripped (permanent)"),
    ("total_fields_limit", "index_doc", _e(400, "illegal_argument_exception", "Limit of total fields [1000] has been exceeded"), U, None, "index mapping's total-fields limit reached"),
    ("max_shards", "create_index", _e(400, "validation_exception", "Validation Failed: 1: this action would add [2] total shards, but this cluster currently has [1000]/[1000] maximum shards open;"), U, None, "cluster shard limit reached"),
    ("aws_iam_denied", "index_doc", Reply(403, '{"Message":"User: arn:aws:iam::123456789012:user/search-agent is not authorized to perform: es:ESHttpPut"}', {"x-amzn-RequestId": "5f3c9a2e-7d41-4b8e-9a0c-2e6f1b7d4c93"}, _AWS, "application/json"), U, None, "IAM policy of the managed domain denies the action"),
    ("sql_plugin_missing", "sql", Reply(400, {"error": "no handler found for uri [/_plugins/_sql] and method [POST]"}, {}, _SQL), U, None, "SQL plugin not installed on the cluster"),
    # not found, already there, changed since read
    ("index_not_found", "search_missing_index", _e(404, "index_not_found_exception", "no such index [logs-2026]", **_IDX), A, None, "index not found"),
    ("document_missing", "update", _e(404, "document_missing_exception", "[7]: document missing", **_SHARD), A, None, "document to update not found"),
    ("index_exists", "create_index", _e(400, "resource_already_exists_exception", f"index [logs/{_UUID}] already exists", index_uuid=_UUID, index="logs"), A, None, "index already exists"),
    ("version_conflict_create", "create_doc", _e(409, "version_conflict_engine_exception", "[7]: version conflict, document already exists (current version [1])", **_SHARD), A, None, "document already exists (op_type create)"),
    ("version_conflict_seqno", "index_doc_cas", _e(409, "version_conflict_engine_exception", "[7]: version conflict, required seqNo [5], primary term [1]. current document has seqNo [7] and primary term [1]", **_SHARD), A, None, "document changed since it was read (if_seq_no)"),
    ("alias_no_write_index", "index_doc", _e(400, "illegal_argument_exception", "no write index is defined for alias [logs]. The write index may be explicitly disabled using is_write_index=false or the alias points to multiple indices without one being designated as a write index"), A, None, "alias points to several indices and none is the write index"),
    ("sql_index_not_found", "sql", _sql(404, "IndexNotFoundException", "Error occurred in OpenSearch engine: no such index [logs-2026]", "org.opensearch.index.IndexNotFoundException: no such index [logs-2026]\nFor more details, please send request for Json format to see the raw response from OpenSearch engine."), A, None, "index named in SQL not found"),
    ("html_200", "search", Reply(200, "<html><head><title>Sign in</title></head><body>Sign in to continue</body></html>", {}, "a proxy's sign-in page"), A, None, "search answered with an HTML page"),
    ("truncated_json", "search", Reply(200, '{"took":3,"timed_out":false,"hits":{"total":{"value":2,"relation":"eq"},"hits":[{"_index":"logs","_id":"7","_source":{"message":"time', {}, "", "application/json; charset=UTF-8"), A, None, "search reply's JSON cut off"),
    # load, availability, outages
    ("rejected_search", "search", _e(429, "rejected_execution_exception", "rejected execution of org.opensearch.common.util.concurrent.TimedRunnable@5a4b3c2d on QueueResizingOpenSearchThreadPoolExecutor[name = n1/search, queue capacity = 1000, min queue capacity = 1000, max queue capacity = 1000, frame size = 2000, targeted response rate = 1s, task execution EWMA = 2.1ms, adjustment amount = 50, org.opensearch.common.util.concurrent.QueueResizingOpenSearchThreadPoolExecutor@1f2e3d4c[Running, pool size = 13, active threads = 13, queued tasks = 1000, completed tasks = 81723654]]"), T, NE, "search thread pool queue full"),
    ("breaker_transient", "search", _e(429, "circuit_breaking_exception", "[parent] Data too large, data for [<http_request>] would be [1031831040/984mb], which is larger than the limit of [1020054732/972.7mb], real usage: [1031830952/984mb], new bytes reserved: [88/88b], usages [request=0/0b, fielddata=0/0b, in_flight_requests=88/88b, accounting=1201314/1.1mb]", _CB, bytes_wanted=1031831040, bytes_limit=1020054732, durability="TRANSIENT"), T, NE, "parent circuit breaker tripped (transient)"),
    ("no_shard_available", "search", _e(503, "search_phase_execution_exception", "all shards failed", phase="query", grouped=True, failed_shards=[]), T, NE, "no shard available for the search"),
    ("cluster_manager_not_discovered", "create_index", _e(503, "cluster_manager_not_discovered_exception", None), T, NE, "no elected cluster manager"),
    ("bad_gateway", "index_doc", Reply(502, _HTML502, {}, "a proxy's 502 page"), T, UO, "proxy's 502 after the request was sent"),
]  # fmt: skip


def _search(client: Any, args: dict[str, Any]) -> Any:
    """The search tool: the body from the model's query, sort, from, size, aggs."""
    body = {key: args[key] for key in ("query", "sort", "from", "size", "aggs") if key in args}
    return client.search(index=args.get("index"), body=body, **args.get("params", {}))


def _doc(client: Any, args: dict[str, Any], op: str = "index") -> Any:
    extra = {k: args[k] for k in ("if_seq_no", "if_primary_term") if k in args}
    call = client.create if op == "create" else client.index
    return call(index=args["index"], id=args["id"], body=args["document"], **extra)


def _index_body(args: dict[str, Any]) -> dict[str, Any]:
    return {key: args[key] for key in ("settings", "mappings") if key in args}


_Q = {"match": {"message": "timeout"}}
# call -> (tool, the arguments the model wrote, the client call they are passed to)
_CALLS: dict[str, tuple[str, dict[str, Any], Callable[[Any, dict[str, Any]], Any]]] = {
    "search": ("search_logs", {"index": "logs", "query": _Q}, _search),
    "search_missing_index": ("search_logs", {"index": "logs-2026", "query": _Q}, _search),
    "search_matchh": ("search_logs", {"index": "logs", "query": {"matchh": {"message": "timeout"}}}, _search),
    "search_match_str": ("search_logs", {"index": "logs", "query": {"match": "timeout"}}, _search),
    "search_mustt": ("search_logs", {"index": "logs", "query": {"bool": {"mustt": [_Q]}}}, _search),
    "search_term_age": ("search_logs", {"index": "logs", "query": {"term": {"age": "abc"}}}, _search),
    "search_sort_text": ("search_logs", {"index": "logs", "query": _Q, "sort": [{"status": "asc"}]}, _search),
    "search_sort_keyword": ("search_logs", {"index": "logs", "query": _Q, "sort": [{"status.keyword": "asc"}]}, _search),
    "search_deep": ("search_logs", {"index": "logs", "query": _Q, "from": 10000, "size": 10}, _search),
    "search_histogram": ("search_logs", {"index": "logs", "query": {"range": {"@timestamp": {"gte": "now-1y"}}}, "size": 0, "aggs": {"per_second": {"date_histogram": {"field": "@timestamp", "fixed_interval": "1s"}}}}, _search),
    "index_doc": ("index_document", {"index": "logs", "id": "7", "document": {"message": "disk check", "age": 40}}, _doc),
    "index_doc_age": ("index_document", {"index": "logs", "id": "7", "document": {"message": "disk check", "age": "forty"}}, _doc),
    "index_doc_nickname": ("index_document", {"index": "logs", "id": "7", "document": {"message": "hi", "nickname": "Al"}}, _doc),
    "index_doc_cas": ("index_document", {"index": "logs", "id": "7", "document": {"message": "hi"}, "if_seq_no": 5, "if_primary_term": 1}, _doc),
    "create_doc": ("create_document", {"index": "logs", "id": "7", "document": {"message": "hi"}}, lambda c, a: _doc(c, a, "create")),
    "update": ("update_document", {"index": "logs", "id": "7", "doc": {"count": 1}}, lambda c, a: c.update(index=a["index"], id=a["id"], body={"doc": a["doc"]})),
    "update_script": ("update_document", {"index": "logs", "id": "7", "script": {"source": "ctx._source.count +=", "lang": "painless"}}, lambda c, a: c.update(index=a["index"], id=a["id"], body={"script": a["script"]})),
    "create_index": ("create_index", {"index": "logs", "settings": {"number_of_shards": 1}}, lambda c, a: c.indices.create(index=a["index"], body=_index_body(a))),
    "create_index_upper": ("create_index", {"index": "Logs"}, lambda c, a: c.indices.create(index=a["index"], body=_index_body(a))),
    "create_index_setting": ("create_index", {"index": "logs", "settings": {"index.number_of_shard": 1}}, lambda c, a: c.indices.create(index=a["index"], body=_index_body(a))),
    "create_index_mapping": ("create_index", {"index": "people", "mappings": {"properties": {"name": {"type": "strin"}}}}, lambda c, a: c.indices.create(index=a["index"], body=_index_body(a))),
    "sql": ("sql_query", {"query": "SELECT status, count(*) FROM logs-2026 GROUP BY status"}, lambda c, a: c.sql.query(body={"query": a["query"]})),
    "sql_form": ("sql_query", {"query": "SELECT status, count(*) FORM logs GROUP BY status"}, lambda c, a: c.sql.query(body={"query": a["query"]})),
    "sql_column": ("sql_query", {"query": "SELECT stauts, count(*) FROM logs GROUP BY stauts"}, lambda c, a: c.sql.query(body={"query": a["query"]})),
    "sql_pattern": ("sql_query", {"query": "SELECT status FROM logs-* WHERE status = 'error'"}, lambda c, a: c.sql.query(body={"query": a["query"]})),
}  # fmt: skip


def _route(svc: _saas.Service, routes: dict[str, Reply], default: Reply) -> None:
    """The stand-in answers by path prefix (a scroll after a search), ``default`` otherwise."""

    def pick(method: str, path: str) -> Reply:
        svc.requests.append((method, path))
        return next((reply for prefix, reply in routes.items() if path.startswith(prefix)), default)

    svc.pick = pick  # type: ignore[method-assign]


@contextmanager
def _tls_service(ctx: Any) -> Iterator[_saas.Service]:
    cert, key = _saas.certificate(ctx.tmp, "opensearch-node1", "opensearch-node1")
    tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    tls.load_cert_chain(cert, key)
    with _saas.service(ctx, "OSTLSPORT", "") as svc:
        server = svc._server
        server.socket = tls.wrap_socket(server.socket, server_side=True)
        yield svc


def cases(ctx: Any) -> Iterator[generate.Case]:
    from opensearchpy import AsyncOpenSearch, Date, Document, Integer, OpenSearch, Q, Search, Text, helpers

    def client(base: str, retries: int = 0, **kwargs: Any) -> Any:
        return OpenSearch(
            [base],
            http_auth=_AUTH,
            timeout=_saas.TIMEOUT,
            max_retries=retries,
            retry_on_timeout=False,
            **kwargs,
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
        return generate.Case(f"opensearch-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    # files the tool reads at the model's request (the model wrote only the path)
    imports = ctx.tmp / "imports"
    imports.mkdir()
    (imports / "tickets.ndjson").write_text(
        '{"id": "T-1", "title": "Printer jam", "priority": 2}\n'
        '{"id": "T-2", "title": "VPN down", "priority": "urgent"}\n',
        encoding="utf-8",
    )
    (imports / "bulk-logs.ndjson").write_text(
        '{"index": {"_index": "logs", "_id": "1"}}\n{"message": "disk check"}\n"message": "boot"\n',
        encoding="utf-8",
    )

    with _saas.service(ctx, "OSPORT", "") as svc:
        os_ = client(svc.base)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = _CALLS[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, caught(key, lambda: fn(os_, args)), tool, args)

        # GET of a missing document: 404 with found: false (document-apis/get-documents/)
        svc.reply(Reply(404, {"_index": "logs", "_id": "7", "found": False}, {}, _DOCS))
        args = {"index": "logs", "id": "7"}
        exc = caught("doc", lambda: os_.get(index="logs", id="7"))
        yield case("document_not_found", "document not found", A, None, exc, "get_document", args)

        # the scroll behind an export expired between two pages (scroll/: search_context_missing)
        page = {"_scroll_id": "FGluY2x1ZGVfY29udGV4dF91dWlkDXF1ZXJ5QW5kRmV0Y2gBFmNrb2xtN", "took": 2, "timed_out": False, "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0}, "hits": {"total": {"value": 25000, "relation": "eq"}, "hits": [{"_index": "logs", "_id": "1", "_source": {"message": "boot"}}]}}  # fmt: skip
        gone = _e(404, "search_phase_execution_exception", "all shards failed", root={"type": "search_context_missing_exception", "reason": "No search context found for id [2217]"}, phase="query", grouped=True, failed_shards=[{"shard": -1, "index": None, "reason": {"type": "search_context_missing_exception", "reason": "No search context found for id [2217]"}}], caused_by={"type": "search_context_missing_exception", "reason": "No search context found for id [2217]"})  # fmt: skip
        _route(svc, {"/_search/scroll": gone}, Reply(200, page))
        args = {"index": "logs", "query": {"match_all": {}}, "path": "exports/logs.ndjson"}
        exc = caught("scroll", lambda: list(helpers.scan(os_, query={"query": {"match_all": {}}}, index="logs", scroll="1m")))  # fmt: skip
        yield case(
            "scroll_expired", "scroll context expired during the export", T, NE, exc, "export_search", args
        )
        del svc.pick  # the class's own again

        # helpers.bulk: item failures inside a 200 answer (document-apis/bulk/)
        bulk = [
            (
                "bulk_mapper_parsing",
                "index",
                400,
                {
                    "type": "mapper_parsing_exception",
                    "reason": "failed to parse field [age] of type [long] in document with id '7'. Preview of field's value: 'forty'",
                },
                F,
                None,
                "bulk document the model wrote does not fit the mapping",
            ),
            (
                "bulk_version_conflict",
                "create",
                409,
                {
                    "type": "version_conflict_engine_exception",
                    "reason": "[7]: version conflict, document already exists (current version [1])",
                    **_SHARD,
                },
                A,
                None,
                "bulk document already exists",
            ),
            (
                "bulk_rejected",
                "index",
                429,
                {
                    "type": "rejected_execution_exception",
                    "reason": "rejected execution of coordinating operation [coordinating_and_primary_bytes=105906176, replica_bytes=0, all_bytes=105906176, coordinating_operation_bytes=1048576, max_coordinating_and_primary_bytes=106954752]",
                },
                T,
                NE,
                "bulk item rejected by indexing pressure",
            ),
        ]
        for key, op, status, error, kind, outcome, cause in bulk:
            item = {op: {"_index": "logs", "_id": "7", "status": status, "error": error}}
            svc.reply(Reply(200, {"took": 3, "errors": True, "items": [item]}, {}, _DOCS))
            docs = [{"_id": "7", "message": "disk check", "age": "forty"}]
            args = {"index": "logs", "documents": docs, "op": op}
            actions = [{"_op_type": op, "_index": "logs", "_id": d["_id"], "_source": {k: v for k, v in d.items() if k != "_id"}} for d in docs]  # fmt: skip
            exc = caught(key, lambda: helpers.bulk(os_, actions, max_retries=0))
            yield case(key, cause, kind, outcome, exc, "bulk_index", args)

        # the server rejects what the tool read from a file the model named
        item = {"index": {"_index": "tickets", "_id": "T-2", "status": 400, "error": {"type": "mapper_parsing_exception", "reason": "failed to parse field [priority] of type [integer] in document with id 'T-2'. Preview of field's value: 'urgent'", "caused_by": {"type": "number_format_exception", "reason": 'For input string: "urgent"'}}}}  # fmt: skip
        svc.reply(Reply(200, {"took": 5, "errors": True, "items": [{"index": {"_index": "tickets", "_id": "T-1", "status": 201, "result": "created"}}, item]}, {}, _DOCS))  # fmt: skip

        def import_file(path: str, index: str) -> Any:
            lines = (ctx.tmp / path).read_text(encoding="utf-8").splitlines()
            docs = [json.loads(line) for line in lines]
            actions = [{"_index": index, "_id": d.pop("id"), "_source": d} for d in docs]
            return helpers.bulk(os_, actions, max_retries=0)

        args = {"index": "tickets", "path": "imports/tickets.ndjson"}
        exc = caught("file", lambda: import_file(args["path"], "tickets"))
        yield case("file_mapper_parsing", "a document in the file the tool read does not fit the mapping", A, None, exc, "import_documents", args)  # fmt: skip
        svc.reply(_e(400, "illegal_argument_exception", "Malformed action/metadata line [3], expected START_OBJECT but found [VALUE_STRING]"))  # fmt: skip
        args = {"path": "imports/bulk-logs.ndjson"}
        body = (ctx.tmp / args["path"]).read_text(encoding="utf-8")
        exc = caught("raw bulk", lambda: os_.bulk(body=body))
        yield case("file_bulk_malformed", "bulk file the tool read has a malformed line", A, None, exc, "bulk_from_file", args)  # fmt: skip

        # the transport's retries (max_retries=1 on 502/503/504) used up
        svc.reply(_e(503, "search_phase_execution_exception", "all shards failed", phase="query", grouped=True, failed_shards=[]))  # fmt: skip
        tool, args, fn = _CALLS["search"]
        exc = caught("retried", lambda: fn(client(svc.base, retries=1), args))
        yield case("no_shard_available-retried", "no shard available (after the transport's retry)", T, NE, exc, tool, args)  # fmt: skip

        # connection-level failures
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": "http://opensearch.unreachable-host.invalid:9200"}.get(key, svc.base)  # fmt: skip
            call = "index_doc" if key in (_saas.RESET, _saas.CLOSE) else "search"
            tool, args, fn = _CALLS[call]
            exc = caught(key, lambda: fn(client(base), args))
            yield case(f"{key}-{call}", cause, kind, outcome, exc, tool, args)

        # the async client (aiohttp) timing out
        async def async_search(base: str, args: dict[str, Any]) -> BaseException:
            ac = AsyncOpenSearch(
                [base], http_auth=_AUTH, timeout=_saas.TIMEOUT, max_retries=0, retry_on_timeout=False
            )
            try:
                await ac.search(index=args["index"], body={"query": args["query"]})
            except BaseException as exc:
                return exc
            finally:
                await ac.close()
            raise AssertionError("async search raised nothing")

        svc.reply(_saas.HANG)
        tool, args, _ = _CALLS["search"]
        exc = asyncio.run(async_search(svc.base, args))
        yield case(f"{_saas.HANG}-async", "read timeout after the request was sent (async client)", T, UO, exc, tool, args)  # fmt: skip

        # the client's own checks (nothing sent): an option the API does not take
        args = {"index": "logs", "query": _Q, "params": {"sizee": 10}}
        exc = caught("kwarg", lambda: _search(os_, args))
        yield case(
            "unknown_option", "search option misspelt (client-side check)", F, None, exc, "search_logs", args
        )

    # the DSL's checks of the model's query and document (nothing sent)
    class Ticket(Document):
        title = Text(required=True)
        priority = Integer()
        opened = Date()

        class Index:
            name = "tickets"

    dsl: list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("dsl_unknown_query", "unknown query type in the DSL", "search_dsl", {"index": "logs", "query": {"matchh": {"message": "timeout"}}}, lambda: Search.from_dict({"query": {"matchh": {"message": "timeout"}}})),
        ("dsl_unknown_agg", "unknown aggregation type in the DSL", "search_dsl", {"index": "logs", "aggs": {"per_day": {"date_histogramm": {"field": "@timestamp", "calendar_interval": "day"}}}}, lambda: Search.from_dict({"aggs": {"per_day": {"date_histogramm": {"field": "@timestamp", "calendar_interval": "day"}}}})),
        ("dsl_two_queries", "query object with two query types", "search_query", {"index": "logs", "query": {"match": {"message": "timeout"}, "term": {"status": "error"}}}, lambda: Q({"match": {"message": "timeout"}, "term": {"status": "error"}})),
        ("dsl_required_field", "required document field left out", "create_ticket", {"priority": 3}, lambda: Ticket(priority=3).save(using=None)),
        ("dsl_bad_date", "date the DSL cannot parse", "create_ticket", {"title": "VPN down", "opened": "next tuesday"}, lambda: Ticket(title="VPN down", opened="next tuesday").save(using=None)),
    ]  # fmt: skip
    for key, cause, tool, args, fn in dsl:
        yield case(key, cause, F, None, caught(key, fn), tool, args)

    # the cluster's certificate (the demo's self-signed one) not trusted by the tool
    with _tls_service(ctx) as tls:
        tool, args, fn = _CALLS["search"]
        c = client(f"https://127.0.0.1:{tls.port}", use_ssl=True, verify_certs=True, ssl_show_warn=False)
        exc = caught("tls", lambda: fn(c, args))
        yield case("tls_untrusted", "cluster's self-signed certificate not trusted by the tool", U, None, exc, tool, args)  # fmt: skip
