"""meilisearch: the official Python client's errors (``MeilisearchApiError`` carrying
Meilisearch's error object, ``MeilisearchCommunicationError`` and
``MeilisearchTimeoutError`` wrapping ``requests``' transport failures, pydantic's
``ValidationError`` / ``TypeError`` when a reply does not fit the client's models,
``requests``' ``JSONDecodeError`` for a 200 that is not JSON, ``ValueError`` from the
client's own argument checks) through ``Client(url=...)`` pointed at a local stand-in of a
Meilisearch server.

Bodies are Meilisearch's error object ``{"message", "code", "type", "link"}`` with the codes,
types and statuses of the "Error codes" reference
(meilisearch.com/docs/reference/errors/error_codes) and of the server's own table
(``meilisearch-types/src/error.rs``: 400 invalid_request, 401/403 auth, 404 not found, 409
already exists, 413 payload_too_large, 415 content type, 422 system (io / disk / files),
500 internal, 503 too_many_search_requests). Labels:

- fixable: a value the model wrote (index uid, filter, sort, limit, search parameter,
  ranking rule, key action or date, task filter, swap list, JSON documents it wrote,
  content type), the client's own checks of the model's arguments (tenant-token uid, rules
  and expiry, ``Index.update`` with nothing to change, chat workspace uid / ``stream``);
- unrecoverable: key missing / invalid / no master key (auth), an experimental feature or
  facet search switched off on the instance, no space left on the device, the database's
  size limit reached;
- ambiguous: an index, document, task or key that is not found, as the other SaaS modules
  label them (the model may have mistyped it, or it was deleted: the model cannot tell),
  an index / key / primary key that already exists, a CSV or NDJSON FILE the tool read and
  sent that the server finds malformed (same ``malformed_payload`` code as the model's own
  JSON: fixable there), ``internal`` / ``invalid_state`` / ``unretrievable_document``
  (a server's internal error with nothing more said), and a reply the client cannot read
  (a task without ``enqueuedAt``, a ``taskUid`` that is not a number, an empty or HTML 200);
- transient: ``too_many_search_requests`` (503 with ``Retry-After``), a dump already being
  processed (409 ``dump_already_processing``: wait until it finishes), refused / DNS (not
  executed); 502 / 504 pages of a proxy, read timeout, reset, close and
  ``wait_for_task`` giving up while the task is still processing (unknown outcome: the
  write may have been done or still be under way).

Not triggered: errors that Meilisearch reports only inside a failed task
(``invalid_document_id``, ``index_primary_key_no_candidate_found``...), since
``wait_for_task`` returns the failed task without raising; federated ``remote_*`` errors.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "meilisearch"
REQUIRES = ["meilisearch>=0.31,<1"]

_CODES = "Meilisearch error codes (meilisearch.com/docs/reference/errors/error_codes)"
_KEY = "f3c1a8e0b7d94e2c9a6b5d4c3b2a1908f7e6d5c4b3a29180"
_KEY_UID = "6062abda-a5aa-4414-ac91-ecd7944c0f8d"


def _e(status: int, code: str, type_: str, message: str, **headers: str) -> Reply:
    body = {
        "message": message,
        "code": code,
        "type": type_,
        "link": f"https://docs.meilisearch.com/errors#{code}",
    }
    return Reply(status, body, headers, _CODES)


_IR, _AUTH, _INT, _SYS = "invalid_request", "auth", "internal", "system"
_TASK = {"taskUid": 147, "indexUid": "movies", "status": "enqueued", "type": "documentAdditionOrUpdate", "enqueuedAt": "2026-12-01T00:00:00.000000Z"}  # fmt: skip

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    ("invalid_index_uid", "create_index_bad", _e(400, "invalid_index_uid", _IR, "`movies!` is not a valid index uid. Index uid can be an integer or a string containing only alphanumeric characters, hyphens (-) and underscores (_), and can not be more than 512 bytes."), F, None, "index uid with a character not allowed"),
    ("invalid_search_filter_attr", "search_filter", _e(400, "invalid_search_filter", _IR, "Attribute `genre` is not filterable. Available filterable attributes are: `id, release_year`.\n1:6 genre = horror"), F, None, "filter on an attribute that is not filterable"),
    ("invalid_search_filter_syntax", "search_filter_syntax", _e(400, "invalid_search_filter", _IR, "Was expecting an operation `=`, `!=`, `>=`, `>`, `<=`, `<`, `IN`, `NOT IN`, `TO`, `EXISTS`, `NOT EXISTS`, `IS NULL`, `IS NOT NULL`, `IS EMPTY`, `IS NOT EMPTY`, `CONTAINS`, `NOT CONTAINS`, `STARTS WITH`, `NOT STARTS WITH`, `_geoRadius`, or `_geoBoundingBox` at `genre horror`.\n1:13 genre horror"), F, None, "filter expression malformed"),
    ("invalid_search_sort", "search_sort", _e(400, "invalid_search_sort", _IR, "Attribute `price` is not sortable. Available sortable attributes are: `release_year`."), F, None, "sort on an attribute that is not sortable"),
    ("invalid_search_limit", "search_limit", _e(400, "invalid_search_limit", _IR, "Invalid value type at `.limit`: expected a positive integer, but found a negative integer: `-5`"), F, None, "negative result limit"),
    ("bad_request_unknown_param", "search_unknown", _e(400, "bad_request", _IR, "Unknown field `filtre`: expected one of `q`, `vector`, `offset`, `limit`, `page`, `hitsPerPage`, `attributesToRetrieve`, `retrieveVectors`, `attributesToCrop`, `cropLength`, `attributesToHighlight`, `showMatchesPosition`, `showRankingScore`, `showRankingScoreDetails`, `filter`, `sort`, `distinct`, `facets`, `highlightPreTag`, `highlightPostTag`, `cropMarker`, `matchingStrategy`, `attributesToSearchOn`, `rankingScoreThreshold`, `locales`"), F, None, "unknown search parameter"),
    ("invalid_search_matching_strategy", "search_strategy", _e(400, "invalid_search_matching_strategy", _IR, "Unknown value `any` at `.matchingStrategy`: expected one of `last`, `all`, `frequency`"), F, None, "matching strategy not one of the values"),
    ("invalid_settings_ranking_rules", "ranking_rules", _e(400, "invalid_settings_ranking_rules", _IR, "Invalid value at `.rankingRules[0]`: `relevance` ranking rule is invalid. Valid ranking rules are words, typo, sort, proximity, attribute, exactness and custom ranking rules."), F, None, "ranking rule name unknown"),
    ("invalid_api_key_actions", "create_key", _e(400, "invalid_api_key_actions", _IR, "Unknown value `documents.create` at `.actions[0]`: expected one of `*`, `search`, `documents.*`, `documents.add`, `documents.get`, `documents.delete`, `indexes.*`, `indexes.create`, `indexes.get`, `indexes.update`, `indexes.delete`, `indexes.swap`, `tasks.*`, `tasks.cancel`, `tasks.delete`, `tasks.get`, `settings.*`, `settings.get`, `settings.update`, `stats.*`, `stats.get`, `metrics.*`, `metrics.get`, `dumps.*`, `dumps.create`, `snapshots.*`, `snapshots.create`, `version`, `keys.create`, `keys.get`, `keys.update`, `keys.delete`, `experimental.get`, `experimental.update`"), F, None, "API key action name unknown"),
    ("invalid_api_key_expires_at", "create_key_date", _e(400, "invalid_api_key_expires_at", _IR, "`2026-13-01` is not a valid date. It should follow the RFC 3339 format to represents a date or datetime in the future or specified as a null value. e.g. 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS'."), F, None, "key expiry date not a valid date"),
    ("invalid_task_types", "get_tasks", _e(400, "invalid_task_types", _IR, "Invalid value in parameter `types`: `documentAdd` is not a valid task type. Available types are `documentAdditionOrUpdate`, `documentEdition`, `documentDeletion`, `settingsUpdate`, `indexCreation`, `indexDeletion`, `indexUpdate`, `indexSwap`, `taskCancelation`, `taskDeletion`, `dumpCreation`, `snapshotCreation`."), F, None, "task type filter unknown"),
    ("missing_task_filters", "delete_tasks", _e(400, "missing_task_filters", _IR, "Query parameters to filter the tasks to delete are missing. Available query parameters are: `uids`, `batchUids`, `indexUids`, `statuses`, `types`, `canceledBy`, `beforeEnqueuedAt`, `afterEnqueuedAt`, `beforeStartedAt`, `afterStartedAt`, `beforeFinishedAt`, `afterFinishedAt`."), F, None, "task deletion without a filter"),
    ("invalid_swap_duplicate", "swap", _e(400, "invalid_swap_duplicate_index_found", _IR, "Indexes must be declared only once during a swap. `movies` was specified several times."), F, None, "same index twice in a swap"),
    ("malformed_payload_json", "add_json", _e(400, "malformed_payload", _IR, "The `json` payload provided is malformed. `Couldn't serialize document value: trailing comma at line 1 column 38`."), F, None, "JSON documents the model wrote are malformed"),
    ("missing_payload", "add_json_empty", _e(400, "missing_payload", _IR, "A json payload is missing."), F, None, "no documents in the request"),
    ("payload_too_large", "add_docs", _e(413, "payload_too_large", _IR, "The provided payload reached the size limit. The maximum accepted payload size is 100 MiB."), F, None, "documents over the payload size limit"),
    ("invalid_content_type", "add_raw", _e(415, "invalid_content_type", _IR, "The Content-Type `application/xml` is invalid. Accepted values for the Content-Type header are: `application/json`, `application/x-ndjson`, `text/csv`"), F, None, "content type not accepted"),
    # credentials, instance configuration, disk
    ("missing_authorization_header", "search", _e(401, "missing_authorization_header", _AUTH, "The Authorization header is missing. It must use the bearer authorization method."), U, None, "no API key configured"),
    ("invalid_api_key", "add_docs", _e(403, "invalid_api_key", _AUTH, "The provided API key is invalid."), U, None, "API key invalid or lacks the action"),
    ("missing_master_key", "get_keys", _e(401, "missing_master_key", _AUTH, "Meilisearch is running without a master key. To access this API endpoint, you must have set a master key at launch."), U, None, "instance runs without a master key"),
    ("feature_not_enabled", "chat", _e(400, "feature_not_enabled", _IR, "Using the `/chats` route requires enabling the `chat completions` experimental feature. See https://github.com/orgs/meilisearch/discussions/835"), U, None, "experimental feature not enabled on the instance"),
    ("facet_search_disabled", "facet_search", _e(400, "facet_search_disabled", _IR, "The facet search is disabled for this index, please set `facetSearch` to `true` in your index settings."), U, None, "facet search switched off in the index settings"),
    ("no_space_left_on_device", "add_docs", _e(422, "no_space_left_on_device", _SYS, "There is no more space left on the device. Consider increasing the size of the disk/partition."), U, None, "disk full on the server"),
    ("database_size_limit_reached", "add_docs", _e(500, "database_size_limit_reached", _INT, "Maximum database size has been reached."), U, None, "database size limit reached"),
    # not found, already there, the server's state
    ("index_not_found", "search", _e(404, "index_not_found", _IR, "Index `movies` not found."), A, None, "index not found"),
    ("document_not_found", "get_document", _e(404, "document_not_found", _IR, "Document `tt0133093` not found."), A, None, "document not found"),
    ("task_not_found", "get_task", _e(404, "task_not_found", _IR, "Task `99999` not found."), A, None, "task not found"),
    ("api_key_not_found", "get_key", _e(404, "api_key_not_found", _IR, f"API key `{_KEY_UID}` not found."), A, None, "API key not found"),
    ("index_already_exists", "create_index", _e(409, "index_already_exists", _IR, "Index `movies` already exists."), A, None, "index already exists"),
    ("api_key_already_exists", "create_key_uid", _e(409, "api_key_already_exists", _IR, f"`uid` field value `{_KEY_UID}` is already an existing API key."), A, None, "API key uid already exists"),
    ("primary_key_already_exists", "update_index", _e(400, "index_primary_key_already_exists", _IR, "Index `movies`: Index already has a primary key: `id`."), A, None, "index already has another primary key"),
    ("internal", "search", _e(500, "internal", _INT, "An internal error has occurred. `Corrupted task queue.`."), A, None, "internal server error"),
    ("invalid_state", "add_docs", _e(500, "invalid_state", _INT, "Database is in an invalid state."), A, None, "database in an invalid state"),
    ("unretrievable_document", "get_document", _e(500, "unretrievable_document", _INT, "Document `tt0133093` could not be retrieved."), A, None, "document could not be retrieved"),
    # load, outages
    ("too_many_search_requests", "search", _e(503, "too_many_search_requests", _SYS, "Too many search requests running at the same time: 1000. Retry after 10s.", **{"Retry-After": "10"}), T, NE, "search queue full"),
    ("dump_already_processing", "dump", _e(409, "dump_already_processing", _IR, "A dump is already processing. You must wait until the current process is finished before requesting another dump."), T, NE, "a dump is already being processed"),
    ("bad_gateway", "add_docs", Reply(502, "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n", {}, "nginx's default error page in front of the server"), T, UO, "proxy could not reach the server (502)"),
    ("gateway_timeout", "search", Reply(504, "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n", {}, "nginx's default error page in front of the server"), T, UO, "gateway timeout"),
]  # fmt: skip

# replies the client cannot read: (key, call, reply, cause)
_BAD_DATA: list[tuple[str, str, Reply, str]] = [
    ("task-no-enqueued-at", "get_task", Reply(200, {**_TASK, "uid": 147, "enqueuedAt": None}), "task read back without enqueuedAt"),
    ("taskinfo-uid-text", "add_docs", Reply(202, {**_TASK, "taskUid": "pending"}), "task info read back with a non-numeric taskUid"),
    ("taskinfo-empty", "add_docs", Reply(202, ""), "empty reply to a document addition"),
    ("html-200", "search", Reply(200, "<html><body><h1>Sign in</h1><p>Your session has expired.</p></body></html>"), "a proxy's HTML page instead of search results"),
    ("key-bad-date", "get_key", Reply(200, {"uid": _KEY_UID, "key": _KEY, "name": "search", "description": None, "actions": ["search"], "indexes": ["*"], "expiresAt": None, "createdAt": "yesterday", "updatedAt": "2026-12-01T00:00:00.000000Z"}), "API key read back with an unreadable date"),
    ("stats-distribution", "stats", Reply(200, {"numberOfDocuments": 3, "isIndexing": False, "fieldDistribution": ["title"]}), "index stats read back with a malformed field distribution"),
]  # fmt: skip


def _calls(client: Any, files: dict[str, bytes]) -> dict[str, tuple[str, dict[str, Any], Any]]:
    """call -> (tool, the model's arguments, the call); the URL and key are the tool's."""
    index = client.index("movies")
    docs = [{"id": "tt0133093", "title": "The Matrix", "release_year": 1999}]
    written = '[{"id": "tt0133093", "title": "x",}]'
    key = {"actions": ["documents.create"], "indexes": ["movies"], "expiresAt": None}
    key_date = {"actions": ["search"], "indexes": ["movies"], "expiresAt": "2026-13-01"}
    key_uid = {"uid": _KEY_UID, "actions": ["search"], "indexes": ["*"], "expiresAt": None}
    m = {"index": "movies"}

    def search(q: str, **params: Any) -> tuple[str, dict[str, Any], Any]:
        return ("search_index", {**m, "query": q, **params}, lambda: index.search(q, params or None))

    return {
        "search": search("matrix"),
        "search_filter": search("matrix", filter="genre = horror"),
        "search_filter_syntax": search("matrix", filter="genre horror"),
        "search_sort": search("matrix", sort=["price:asc"]),
        "search_limit": search("matrix", limit=-5),
        "search_unknown": search("matrix", filtre="release_year > 1990"),
        "search_strategy": search("matrix", matchingStrategy="any"),
        "chat": ("chat_search", {"workspace": "support", "message": "find matrix movies"}, lambda: list(client.create_chat_completion("support", [{"role": "user", "content": "find matrix movies"}]))),
        "facet_search": ("facet_search", {**m, "facet": "genre", "query": "hor"}, lambda: index.facet_search("genre", "hor")),
        "create_index_bad": ("create_index", {"index": "movies!", "primary_key": "id"}, lambda: client.create_index("movies!", {"primaryKey": "id"})),
        "create_index": ("create_index", {"index": "movies", "primary_key": "id"}, lambda: client.create_index("movies", {"primaryKey": "id"})),
        "update_index": ("update_index", {**m, "primary_key": "imdb_id"}, lambda: index.update(primary_key="imdb_id")),
        "ranking_rules": ("update_ranking_rules", {**m, "rules": ["relevance", "words"]}, lambda: index.update_ranking_rules(["relevance", "words"])),
        "create_key": ("create_api_key", key, lambda: client.create_key(key)),
        "create_key_date": ("create_api_key", key_date, lambda: client.create_key(key_date)),
        "create_key_uid": ("create_api_key", key_uid, lambda: client.create_key(key_uid)),
        "get_key": ("get_api_key", {"key": _KEY_UID}, lambda: client.get_key(_KEY_UID)),
        "get_keys": ("list_api_keys", {}, lambda: client.get_keys()),
        "get_tasks": ("list_tasks", {"types": ["documentAdd"]}, lambda: client.get_tasks({"types": ["documentAdd"]})),
        "delete_tasks": ("delete_tasks", {}, lambda: client.delete_tasks({})),
        "get_task": ("get_task", {"task_uid": 99999}, lambda: client.get_task(99999)),
        "swap": ("swap_indexes", {"indexes": ["movies", "movies"]}, lambda: client.swap_indexes([{"indexes": ["movies", "movies"]}])),
        "add_docs": ("add_documents", {**m, "documents": docs}, lambda: index.add_documents(docs)),
        "add_json": ("add_documents_json", {**m, "documents_json": written}, lambda: index.add_documents_json(written)),
        "add_json_empty": ("add_documents_json", {**m, "documents_json": ""}, lambda: index.add_documents_json("")),
        "add_raw": ("add_documents_raw", {**m, "data": "<movie id='1'/>", "content_type": "application/xml"}, lambda: index.add_documents_raw(b"<movie id='1'/>", content_type="application/xml")),
        "add_csv_file": ("import_documents_file", {**m, "path": "exports/movies.csv"}, lambda: index.add_documents_csv(files["movies.csv"])),
        "add_ndjson_file": ("import_documents_file", {**m, "path": "exports/movies.ndjson"}, lambda: index.add_documents_ndjson(files["movies.ndjson"])),
        "get_document": ("get_document", {**m, "document_id": "tt0133093"}, lambda: index.get_document("tt0133093")),
        "stats": ("index_stats", m, lambda: index.get_stats()),
        "dump": ("create_dump", {}, lambda: client.create_dump()),
        "wait": ("wait_for_task", {"task_uid": 147, "timeout_ms": 200}, lambda: client.wait_for_task(147, timeout_in_ms=200, interval_in_ms=50)),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    from meilisearch import Client

    # files the tool reads from disk at the model's request (the model wrote only the path)
    exports = ctx.tmp / "exports"
    exports.mkdir()
    (exports / "movies.csv").write_bytes(
        b'id,title\ntt0133093,"The Matrix\ntt0234215,The Matrix Reloaded,2003\n'
    )
    (exports / "movies.ndjson").write_bytes(
        b'{"id": "tt0133093", "title": "The Matrix"}\n{"id": "tt0234215", "title": \n'
    )
    files = {p.name: p.read_bytes() for p in exports.iterdir()}

    def client(base: str) -> Any:
        return Client(base, _KEY, timeout=_saas.TIMEOUT)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"meilisearch-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "MEILIPORT", "nginx") as svc:
        calls = _calls(client(svc.base), files)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)
        # the server finds a FILE the tool read malformed (the model named only the path)
        csv_err = _e(400, "malformed_payload", _IR, "The `csv` payload provided is malformed: `CSV error: record 2 (line: 3, byte: 31): found record with 3 fields, but the previous record has 2 fields`.")  # fmt: skip
        nd_err = _e(400, "malformed_payload", _IR, "The `ndjson` payload provided is malformed. `Couldn't serialize document value: EOF while parsing a value at line 2 column 41`.")  # fmt: skip
        for key, call, reply, cause in [
            ("malformed_payload-csv-file", "add_csv_file", csv_err, "CSV file the tool read is malformed"),
            (
                "malformed_payload-ndjson-file",
                "add_ndjson_file",
                nd_err,
                "NDJSON file the tool read is malformed",
            ),
        ]:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, A, None, _saas.catch(fn), tool, args)
        for key, call, reply, cause in _BAD_DATA:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, A, None, exc, tool, args)
        # the task stays "processing" past the tool's wait
        svc.reply(
            Reply(
                200,
                {
                    **_TASK,
                    "uid": 147,
                    "status": "processing",
                    "batchUid": 12,
                    "startedAt": "2026-12-01T00:00:01.000000Z",
                },
            )
        )
        tool, args, fn = calls["wait"]
        yield case(
            "wait_for_task-timeout",
            "task still processing when the wait ran out",
            T,
            UO,
            _saas.catch(fn),
            tool,
            args,
        )
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            for call in ("add_docs", "search"):
                tool, args, fn = _calls(client(base), files)[call]
                yield case(f"{key}-{call}", cause, kind, outcome, _saas.catch(fn), tool, args)

    # the client's own checks of the model's arguments (no request sent)
    c = client(_saas.dead_base(ctx))
    import datetime

    past = "2020-01-01T00:00:00+00:00"
    # (key, cause, call, tool, the model's arguments)
    local: list[tuple[str, str, Any, str, dict[str, Any]]] = [
        ("tenant-uid-not-uuid", "tenant token key uid not a UUID", lambda: c.generate_tenant_token("search-key", ["movies"]), "create_tenant_token", {"api_key_uid": "search-key", "search_rules": ["movies"]}),
        ("tenant-no-rules", "tenant token without search rules", lambda: c.generate_tenant_token(_KEY_UID, []), "create_tenant_token", {"api_key_uid": _KEY_UID, "search_rules": []}),
        ("tenant-expired", "tenant token expiry in the past", lambda: c.generate_tenant_token(_KEY_UID, ["movies"], expires_at=datetime.datetime.fromisoformat(past)), "create_tenant_token", {"api_key_uid": _KEY_UID, "search_rules": ["movies"], "expires_at": past}),
        ("update-index-nothing", "index update with neither primary key nor new uid", lambda: c.index("movies").update(), "update_index", {"index": "movies"}),
        ("chat-no-stream", "non-streaming chat asked for", lambda: list(c.create_chat_completion("support", [{"role": "user", "content": "hi"}], stream=False)), "chat_search", {"workspace": "support", "message": "hi", "stream": False}),
        ("chat-workspace-path", "workspace uid with a path separator", lambda: list(c.create_chat_completion("support/../admin", [{"role": "user", "content": "hi"}])), "chat_search", {"workspace": "support/../admin", "message": "hi"}),
        ("chat-workspace-empty", "workspace uid empty", lambda: list(c.create_chat_completion("", [{"role": "user", "content": "hi"}])), "chat_search", {"workspace": "", "message": "hi"}),
    ]  # fmt: skip
    for key, cause, fn, tool, args in local:
        yield case(key, cause, F, None, _saas.catch(fn), tool, args)
