"""typesense: the official Python client (``typesense.Client`` with one node) behind a
search tool, pointed at a local stand-in of a Typesense server: the client's own exception
classes (``RequestMalformed`` 400, ``RequestUnauthorized`` 401, ``RequestForbidden`` 403,
``ObjectNotFound`` 404, ``ObjectAlreadyExists`` 409, ``ObjectUnprocessable`` 422,
``ServerError`` 500 and any other 5xx, ``ServiceUnavailable`` 503, the base
``TypesenseClientError`` for a status without a class of its own (429) and for its own
checks), ``InvalidParameter`` and ``ConfigError`` from its argument and configuration
checks, ``httpx``'s ``ConnectError`` / ``ReadTimeout`` / ``ReadError`` /
``RemoteProtocolError`` for the transport (the client retries them on its nodes), and
``json``'s ``JSONDecodeError`` for a 200 that is not JSON.

Statuses follow Typesense's "API errors" page
(typesense.org/docs/30.1/api/api-errors.html: 400 malformed, 401 API key wrong, 404 not
found, 409 already exists, 422 well-formed but cannot be processed, 503 "temporarily
offline. Please try again later.") and bodies are the server's ``{"message": ...}`` with
the texts of its source (github.com/typesense/typesense, ``src/http_server.cpp``: 401
"Forbidden - a valid `x-typesense-api-key` header must be sent.", 429 "Rate limit exceeded
or blocked", 503 "Not Ready or Lagging"; ``src/auth_manager.cpp``: 403 "Forbidden." for a
scoped key used outside searches; ``src/raft_server.cpp`` / ``src/batched_indexer.cpp``:
422 "Rejecting write: running out of resource type: OUT_OF_DISK", "Skipping writes.",
"Another collection update operation is in progress."; ``src/collection.cpp``,
``src/filter.cpp``, ``src/validator.cpp``, ``src/field.cpp``, ``src/collection_manager.cpp``,
``src/core_api.cpp`` for the search, schema, document and parameter messages). Labels, by
the cause set up:

- fixable: a value the model wrote that the server refuses: a ``query_by`` / ``sort_by`` /
  ``facet_by`` field that is not (searchable, sortable, facetable) in the schema (the
  server answers these with 404 / 400 although the collection exists), a filter
  expression it cannot parse or whose value does not fit the field, no search field, a
  document field of the wrong type or missing, a schema without fields / with an unknown
  data type / with a default sorting field it does not declare, an import action or
  batch size out of its vocabulary, key actions in the wrong format, too many searches in
  one multi-search, a query string over 4000 characters, and the client's own checks (a
  search parameter that is an object, an empty list of documents to import);
- unrecoverable: the API key is wrong or lacks the action (401), a scoped search-only key
  used for a write (403), a write refused because the node runs out of disk or memory
  (422, ``disk-used-max-percentage`` / ``memory-used-max-percentage``), a node set to skip
  writes, a model that needs more memory than the node has, a tool configured without an
  API key;
- ambiguous: a collection, document, alias, synonym set or preset that is not found (a
  typo or deleted: the model cannot tell), a collection or document that already exists,
  a document the tool READ from a file (the model named the path) that the schema
  refuses, a server that could not write to its storage (500 with nothing more), a reply
  the client cannot read (an HTML 200, an import reply that is not JSON lines);
- transient: 503 "Not Ready or Lagging" (a node catching up), 429 rate limit, 422 "Another
  collection update operation is in progress.", 409 "Another snapshot is in progress.",
  refused, DNS (not executed); a proxy's 502 / 504, read timeout, reset, close (unknown
  outcome). ``-retried`` cases keep the client's own retry (``num_retries=1``, no pause).

Not triggered: per-document failures of an import (the client returns them in a list,
raising nothing), streaming conversation errors (need a conversation model), the 403 of a
scoped key with a bad signature (the same text as the write case, another cause: left
out as a guess).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "typesense"
REQUIRES = ["typesense==2.1.1"]

_DOCS = "Typesense API errors (typesense.org/docs/30.1/api/api-errors.html)"
_SRC = "typesense server source, github.com/typesense/typesense"
_KEY = "xyz-search-tool-key"


def _m(status: int, message: str, where: str) -> Reply:
    return Reply(status, {"message": message}, {}, f"{_DOCS}; {_SRC} {where}")


_NGINX_502 = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"  # fmt: skip
_NGINX_504 = "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"  # fmt: skip

# The tools' declared parameters (one schema per tool, as its author wrote it).
_STR = {"type": "string"}
PARAMETERS: dict[str, dict[str, Any]] = {
    "search_documents": {
        "type": "object",
        "properties": {
            "collection": {**_STR, "description": "Name of the collection to search"},
            "q": {**_STR, "description": "Search text; * for all documents"},
            "query_by": {**_STR, "description": "Comma-separated fields to search in"},
            "filter_by": {"description": "Filter expression, e.g. year:>2000 && genre:=fiction"},
            "sort_by": {**_STR, "description": "Sort expression, e.g. rating:desc"},
            "facet_by": {**_STR, "description": "Comma-separated fields to facet on"},
            "per_page": {"type": "integer", "description": "Results per page"},
        },
        "required": ["collection", "q"],
    },
    "multi_search": {
        "type": "object",
        "properties": {
            "searches": {
                "type": "array",
                "items": {"type": "object"},
                "description": "Searches to run together, each with collection, q and query_by",
            }
        },
        "required": ["searches"],
    },
    "get_document": {
        "type": "object",
        "properties": {
            "collection": {**_STR, "description": "Collection name"},
            "id": {**_STR, "description": "Document id"},
        },
        "required": ["collection", "id"],
    },
    "delete_document": {
        "type": "object",
        "properties": {
            "collection": {**_STR, "description": "Collection name"},
            "id": {**_STR, "description": "Document id"},
        },
        "required": ["collection", "id"],
    },
    "index_document": {
        "type": "object",
        "properties": {
            "collection": {**_STR, "description": "Collection name"},
            "document": {"type": "object", "description": "The document to add, as JSON"},
            "action": {**_STR, "enum": ["create", "upsert"], "description": "create or upsert"},
        },
        "required": ["collection", "document"],
    },
    "index_document_file": {
        "type": "object",
        "properties": {
            "collection": {**_STR, "description": "Collection name"},
            "path": {**_STR, "description": "Path of a JSON file holding one document"},
        },
        "required": ["collection", "path"],
    },
    "import_documents": {
        "type": "object",
        "properties": {
            "collection": {**_STR, "description": "Collection name"},
            "documents": {"type": "array", "items": {"type": "object"}, "description": "Documents to import"},
            "action": {**_STR, "description": "Import action: create, upsert, update or emplace"},
            "batch_size": {"type": "integer", "description": "Documents per server batch"},
        },
        "required": ["collection", "documents"],
    },
    "create_collection": {
        "type": "object",
        "properties": {
            "name": {**_STR, "description": "Collection name"},
            "fields": {
                "type": "array",
                "items": {"type": "object"},
                "description": "Schema fields, each with name and type",
            },
            "default_sorting_field": {**_STR, "description": "Numeric field to sort by default"},
        },
        "required": ["name"],
    },
    "update_collection_schema": {
        "type": "object",
        "properties": {
            "name": {**_STR, "description": "Collection name"},
            "fields": {"type": "array", "items": {"type": "object"}, "description": "Fields to add or drop"},
        },
        "required": ["name", "fields"],
    },
    "delete_collection": {
        "type": "object",
        "properties": {"name": {**_STR, "description": "Collection name"}},
        "required": ["name"],
    },
    "get_alias": {
        "type": "object",
        "properties": {"alias": {**_STR, "description": "Alias name"}},
        "required": ["alias"],
    },
    "get_synonym_set": {
        "type": "object",
        "properties": {"name": {**_STR, "description": "Synonym set name"}},
        "required": ["name"],
    },
    "create_api_key": {
        "type": "object",
        "properties": {
            "description": {**_STR, "description": "What the key is for"},
            "actions": {"description": 'Allowed actions, e.g. ["documents:search"]'},
            "collections": {"type": "array", "items": _STR, "description": "Collections the key may use"},
        },
        "required": ["description", "actions", "collections"],
    },
    "delete_api_key": {
        "type": "object",
        "properties": {"key_id": {"type": "integer", "description": "Id of the API key to revoke"}},
        "required": ["key_id"],
    },
    "take_snapshot": {
        "type": "object",
        "properties": {
            "snapshot_path": {**_STR, "description": "Directory on the server to write the snapshot to"}
        },
        "required": ["snapshot_path"],
    },
}

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the model's arguments
    ("query-by-unknown-field", "search_titel", _m(404, "Could not find a field named `titel` in the schema.", "src/collection.cpp"), F, None, "query_by names a field that is not in the schema"),
    ("sort-by-unknown-field", "search_sort", _m(404, "Could not find a field named `price` in the schema for sorting.", "src/collection.cpp"), F, None, "sort_by on a field that is not sortable"),
    ("facet-by-unknown-field", "search_facet", _m(400, "Could not find a facet field named `author` in the schema.", "src/collection.cpp"), F, None, "facet_by on a field that is not a facet"),
    ("filter-unparsable", "search_filter_syntax", _m(400, "Could not parse the filter query.", "src/filter.cpp"), F, None, "filter expression cannot be parsed"),
    ("filter-unbalanced", "search_filter_paren", _m(400, "Could not parse the filter query: unbalanced parentheses.", "src/filter.cpp"), F, None, "filter expression with unbalanced parentheses"),
    ("filter-not-int32", "search_filter_value", _m(400, "Error with filter field `year`: Not an int32.", "src/filter.cpp"), F, None, "filter value does not fit the int32 field"),
    ("no-search-fields", "search_no_query_by", _m(400, "No search fields specified for the query.", "src/collection.cpp"), F, None, "search without query_by"),
    ("query-string-too-long", "search_long", _m(400, "Query string exceeds max allowed length of 4000. Use the /multi_search end-point for larger payloads.", "src/http_server.cpp"), F, None, "query string over 4000 characters"),
    ("multi-search-limit", "multi_search", _m(400, "Number of multi searches exceeds `limit_multi_searches` parameter.", "src/core_api.cpp"), F, None, "more searches than one multi-search may hold"),
    ("document-field-type", "create_doc", _m(400, "Field `year` must be an int32.", "src/validator.cpp"), F, None, "document field of the wrong type"),
    ("document-field-not-array", "create_doc_tags", _m(400, "Field `tags` must be an array.", "src/validator.cpp"), F, None, "document field not an array"),
    ("filter-empty-value", "search_filter_empty", _m(400, "Error with filter field `genre`: Filter value cannot be empty.", "src/filter.cpp"), F, None, "filter without a value"),
    ("collection-name-empty", "create_coll_noname", _m(400, "Parameter `name` must be a non-empty string.", "src/collection_manager.cpp"), F, None, "collection name empty"),
    ("document-field-missing", "create_doc_missing", _m(400, "Field `title` has been declared in the schema, but is not found in the document.", "src/validator.cpp"), F, None, "document lacks a required field"),
    ("schema-no-fields", "create_coll_bare", _m(400, "Parameter `fields` is required.", "src/collection_manager.cpp"), F, None, "collection schema without fields"),
    ("schema-bad-type", "create_coll_type", _m(400, "Field `year` has an invalid data type `integer`, see docs for supported data types.", "src/field.cpp"), F, None, "schema field with an unknown data type"),
    ("schema-default-sorting", "create_coll_sort", _m(400, "Default sorting field is defined as `rating` but is not found in the schema.", "src/field.cpp"), F, None, "default sorting field not declared"),
    ("import-action", "import_action", _m(400, "Parameter `action` must be a create|update|upsert.", "src/core_api.cpp"), F, None, "import action not one of the values"),
    ("import-batch-size", "import_batch", _m(400, "Parameter `batch_size` must be a positive integer.", "src/core_api.cpp"), F, None, "import batch size not positive"),
    ("key-actions-format", "create_key_str", _m(400, "Wrong format for `actions`. It should be an array of string.", "src/auth_manager.cpp"), F, None, "key actions not an array of strings"),
    # credentials, the node's resources and configuration
    ("unauthorized", "search", _m(401, "Forbidden - a valid `x-typesense-api-key` header must be sent.", "src/http_server.cpp"), U, None, "API key wrong or revoked"),
    ("unauthorized-write", "delete_coll", _m(401, "Forbidden - a valid `x-typesense-api-key` header must be sent.", "src/http_server.cpp"), U, None, "API key lacks the collections:delete action"),
    ("scoped-key-write", "create_doc_ok", _m(403, "Forbidden.", "src/auth_manager.cpp"), U, None, "scoped search-only key used for a write"),
    ("out-of-disk", "create_doc_ok", _m(422, "Rejecting write: running out of resource type: OUT_OF_DISK", "src/raft_server.cpp"), U, None, "node over its disk-used-max-percentage"),
    ("out-of-memory", "import_ok", _m(422, "Rejecting write: running out of resource type: OUT_OF_MEMORY", "src/batched_indexer.cpp"), U, None, "node over its memory-used-max-percentage"),
    ("skip-writes", "create_doc_ok", _m(422, "Skipping writes.", "src/raft_server.cpp"), U, None, "node configured to skip writes"),
    ("model-memory", "create_coll_embed", _m(400, "Memory required to load the model exceeds free memory available.", "src/embedder_manager.cpp"), U, None, "embedding model needs more memory than the node has"),
    # not found, already there, the server's state
    ("collection-not-found", "search", _m(404, "Collection not found", "src/core_api.cpp"), A, None, "collection not found"),
    ("document-not-found", "get_doc", _m(404, "Could not find a document with id: 124", "src/collection.cpp"), A, None, "document not found"),
    ("delete-document-not-found", "delete_doc", _m(404, "Could not find a document with id: 124", "src/collection.cpp"), A, None, "document to delete not found"),
    ("alias-not-found", "get_alias", Reply(404, {"message": "Not Found"}, {}, f"{_DOCS}; {_SRC} src/core_api.cpp (set_404)"), A, None, "alias not found"),
    ("synonym-set-not-found", "get_synonym_set", _m(404, "Synonym set `clothing-synonyms` not found.", "src/collection_manager.cpp"), A, None, "synonym set not found"),
    ("api-key-not-found", "delete_key", _m(404, "Not found.", "src/auth_manager.cpp"), A, None, "API key id not found"),
    ("collection-exists", "create_coll_ok", _m(409, "A collection with name `books` already exists.", "src/collection_manager.cpp"), A, None, "collection already exists"),
    ("document-exists", "create_doc_ok", _m(409, "A document with id 124 already exists.", "src/collection.cpp"), A, None, "document id already exists"),
    ("file-document-type", "create_doc_file", _m(400, "Field `year` must be an int32.", "src/validator.cpp"), A, None, "document read from the file has a field of the wrong type"),
    ("file-document-missing", "create_doc_file", _m(400, "Field `title` has been declared in the schema, but is not found in the document.", "src/validator.cpp"), A, None, "document read from the file lacks a required field"),
    ("storage-write-failed", "create_coll_ok", _m(500, "Could not write to on-disk storage.", "src/collection_manager.cpp"), A, None, "server could not write to its storage"),
    # load, outages
    ("not-ready-or-lagging", "search", _m(503, "Not Ready or Lagging", "src/http_server.cpp"), T, NE, "node not ready or lagging behind"),
    ("rate-limited", "search", _m(429, "Rate limit exceeded or blocked", "src/http_server.cpp"), T, NE, "rate limit of the key or IP exceeded"),
    ("alter-in-progress", "alter_coll", _m(422, "Another collection update operation is in progress.", "src/raft_server.cpp"), T, NE, "another schema change still running"),
    ("snapshot-in-progress", "snapshot", _m(409, "Another snapshot is in progress.", "src/core_api.cpp"), T, NE, "another snapshot still running"),
    ("bad-gateway", "create_doc_ok", Reply(502, _NGINX_502, {}, "nginx's default error page in front of the node"), T, UO, "proxy could not reach the node (502)"),
]  # fmt: skip

# with the client's own retry (num_retries=1, no pause)
_RETRIED: list[tuple[str, str, Reply, str, str | None, str]] = [
    ("gateway-timeout-retried", "search", Reply(504, _NGINX_504, {}, "nginx's default error page in front of the node"), T, UO, "gateway timeout (after the client's retry)"),
    ("not-ready-or-lagging-retried", "search", _m(503, "Not Ready or Lagging", "src/http_server.cpp"), T, NE, "node not ready or lagging (after the client's retry)"),
]  # fmt: skip

# replies the client cannot read: (key, call, reply, cause)
_BAD_DATA: list[tuple[str, str, Reply, str]] = [
    ("html-200", "search", Reply(200, "<html><body><h1>Sign in</h1><p>Your session has expired.</p></body></html>"), "a proxy's HTML page instead of search results"),
    ("import-reply-not-jsonl", "import_ok", Reply(200, '{"success": true}\n<html>upstream reset</html>', {}, "", "text/plain; charset=utf-8"), "import reply that is not JSON lines"),
]  # fmt: skip


_CAUSE = {key: cause for key, _, _, cause in _saas.TRANSPORT}


def _client(base_port: int, retries: int = 0, **extra: Any) -> Any:
    import typesense

    config: dict[str, Any] = {
        "nodes": [{"host": "127.0.0.1", "port": base_port, "protocol": "http"}],
        "api_key": _KEY,
        "connection_timeout_seconds": _saas.TIMEOUT,
        "num_retries": retries,
        "retry_interval_seconds": 0,
    }
    config.update(extra)
    return typesense.Client(config)


def _calls(c: Any, files: Path) -> dict[str, tuple[str, dict[str, Any], Any]]:
    """call -> (tool, the model's arguments, the call); the node and the key are the tool's."""
    books = c.collections["books"]

    def search(args: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        params = {k: v for k, v in args.items() if k != "collection"}
        return ("search_documents", args, lambda: c.collections[args["collection"]].documents.search(params))

    def create_doc(doc: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        return (
            "index_document",
            {"collection": "books", "document": doc},
            lambda: books.documents.create(doc),
        )

    def create_coll(schema: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        return ("create_collection", schema, lambda: c.collections.create(schema))

    def from_file() -> Any:
        doc = json.loads((files / "new_book.json").read_text(encoding="utf-8"))
        return books.documents.upsert(doc)

    good = {"id": "124", "title": "The Left Hand of Darkness", "author": "Ursula K. Le Guin", "year": 1969}
    fields = [{"name": "title", "type": "string"}, {"name": "year", "type": "int32"}]
    docs = [good, {"id": "125", "title": "Kindred", "author": "Octavia E. Butler", "year": 1979}]
    searches = [{"collection": "books", "q": f"term {i}", "query_by": "title"} for i in range(60)]
    return {
        "search": search({"collection": "books", "q": "darkness", "query_by": "title"}),
        "search_titel": search({"collection": "books", "q": "darkness", "query_by": "titel"}),
        "search_sort": search({"collection": "books", "q": "*", "query_by": "title", "sort_by": "price:asc"}),
        "search_facet": search({"collection": "books", "q": "*", "query_by": "title", "facet_by": "author"}),
        "search_filter_syntax": search({"collection": "books", "q": "*", "query_by": "title", "filter_by": "year > 1970"}),
        "search_filter_paren": search({"collection": "books", "q": "*", "query_by": "title", "filter_by": "(year:>1970 && author:=Butler"}),
        "search_filter_value": search({"collection": "books", "q": "*", "query_by": "title", "filter_by": "year:>nineteen-seventy"}),
        "search_filter_empty": search({"collection": "books", "q": "*", "query_by": "title", "filter_by": "genre:="}),
        "search_no_query_by": search({"collection": "books", "q": "darkness"}),
        "search_long": search({"collection": "books", "q": "darkness " * 500, "query_by": "title"}),
        "multi_search": ("multi_search", {"searches": searches}, lambda: c.multi_search.perform({"searches": searches}, {})),
        "get_doc": ("get_document", {"collection": "books", "id": "124"}, lambda: books.documents["124"].retrieve()),
        "delete_doc": ("delete_document", {"collection": "books", "id": "124"}, lambda: books.documents["124"].delete()),
        "create_doc": create_doc({**good, "year": "1969"}),
        "create_doc_tags": create_doc({**good, "tags": "classic"}),
        "create_doc_missing": create_doc({"id": "124", "author": "Ursula K. Le Guin", "year": 1969}),
        "create_doc_ok": create_doc(good),
        "create_doc_file": ("index_document_file", {"collection": "books", "path": "new_book.json"}, from_file),
        "import_ok": ("import_documents", {"collection": "books", "documents": docs, "action": "upsert"}, lambda: books.documents.import_(docs, {"action": "upsert"})),
        "import_action": ("import_documents", {"collection": "books", "documents": docs, "action": "replace"}, lambda: books.documents.import_(docs, {"action": "replace"})),
        "import_batch": ("import_documents", {"collection": "books", "documents": docs, "batch_size": 0}, lambda: books.documents.import_(docs, {"batch_size": 0})),
        "create_coll_ok": create_coll({"name": "books", "fields": fields}),
        "create_coll_noname": create_coll({"name": "", "fields": fields}),
        "create_coll_bare": create_coll({"name": "books"}),
        "create_coll_type": create_coll({"name": "books", "fields": [{"name": "title", "type": "string"}, {"name": "year", "type": "integer"}]}),
        "create_coll_sort": create_coll({"name": "books", "fields": fields, "default_sorting_field": "rating"}),
        "create_coll_embed": create_coll({"name": "books", "fields": [*fields, {"name": "embedding", "type": "float[]", "embed": {"from": ["title"], "model_config": {"model_name": "ts/e5-large"}}}]}),
        "delete_coll": ("delete_collection", {"name": "books"}, lambda: books.delete()),
        "alter_coll": ("update_collection_schema", {"name": "books", "fields": [{"name": "pages", "type": "int32"}]}, lambda: books.update({"fields": [{"name": "pages", "type": "int32"}]})),
        "get_alias": ("get_alias", {"alias": "books-live"}, lambda: c.aliases["books-live"].retrieve()),
        "get_synonym_set": ("get_synonym_set", {"name": "clothing-synonyms"}, lambda: c.synonym_sets["clothing-synonyms"].retrieve()),
        "create_key_str": ("create_api_key", {"description": "search only", "actions": "documents:search", "collections": ["books"]}, lambda: c.keys.create({"description": "search only", "actions": "documents:search", "collections": ["books"]})),
        "delete_key": ("delete_api_key", {"key_id": 17}, lambda: c.keys[17].delete()),
        "snapshot": ("take_snapshot", {"snapshot_path": "/var/lib/typesense/snapshots"}, lambda: c.operations.perform("snapshot", {"snapshot_path": "/var/lib/typesense/snapshots"})),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    files = ctx.tmp / "typesense"
    files.mkdir(exist_ok=True)
    (files / "new_book.json").write_text(
        json.dumps({"id": "126", "title": "Dawn", "author": "Octavia E. Butler", "year": "1987"}),
        encoding="utf-8",
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
        return generate.Case(
            f"typesense-{cid}",
            LIBRARY,
            cause,
            kind,
            outcome,
            exc,
            tool,
            arguments=args,
            parameters=PARAMETERS[tool],
        )

    def run(port: int, retries: int, call: str, key: str) -> tuple[str, dict[str, Any], BaseException]:
        c = _client(port, retries)  # a fresh client: no node marked unhealthy by the last case
        try:
            tool, args, fn = _calls(c, files)[call]
            return tool, args, _saas.caught(key, fn)
        finally:
            c.api_call.close()

    with _saas.service(ctx, "TYPESENSEPORT", "Typesense") as svc:
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            svc.reply(reply)
            tool, args, exc = run(svc.port, 0, call, key)
            yield case(key, cause, kind, outcome, exc, tool, args)
        for key, call, reply, kind, outcome, cause in _RETRIED:
            svc.reply(reply)
            tool, args, exc = run(svc.port, 1, call, key)
            yield case(key, cause, kind, outcome, exc, tool, args)
        for key, call, reply, cause in _BAD_DATA:
            svc.reply(reply)
            tool, args, exc = run(svc.port, 0, call, key)
            yield case(key, cause, A, None, exc, tool, args)
        for behaviour in (_saas.HANG, _saas.RESET, _saas.CLOSE):
            svc.reply(behaviour)
            for call in ("search", "create_doc_ok") if behaviour == _saas.HANG else ("search",):
                tool, args, exc = run(svc.port, 0, call, behaviour)
                cause = _CAUSE[behaviour]
                yield case(f"{behaviour}-{tool}", cause, T, UO, exc, tool, args)

    # nobody listens / the name does not resolve: nothing was sent
    for key, port_or_host in (("refused", ctx.dead), ("dns", None)):
        if port_or_host is None:
            c = _client(
                8108, 0, nodes=[{"host": "search.unreachable-host.invalid", "port": 8108, "protocol": "http"}]
            )
        else:
            c = _client(port_or_host, 0)
        tool, args, fn = _calls(c, files)["search"]
        cause = _CAUSE[key]
        yield case(key, cause, T, NE, _saas.caught(key, fn), tool, args)
        c.api_call.close()

    # the client's own checks of the model's arguments
    c = _client(ctx.dead, 0)
    books = c.collections["books"]
    local = [
        ("filter-object", "filter_by written as an object", lambda: books.documents.search({"q": "*", "query_by": "title", "filter_by": {"year": {"gt": 1970}}}),
         "search_documents", {"collection": "books", "q": "*", "query_by": "title", "filter_by": {"year": {"gt": 1970}}}),
        ("import-empty", "empty list of documents to import", lambda: books.documents.import_([], {"action": "create"}),
         "import_documents", {"collection": "books", "documents": [], "action": "create"}),
    ]  # fmt: skip
    for key, cause, fn, tool, args in local:
        yield case(key, cause, F, None, _saas.caught(key, fn), tool, args)
    c.api_call.close()

    # the tool's configuration: no API key set
    import typesense

    no_key = _saas.caught(
        "config-no-api-key",
        lambda: typesense.Client({"nodes": [{"host": "127.0.0.1", "port": ctx.dead, "protocol": "http"}]}),
    )
    yield case(
        "config-no-api-key",
        "tool configured without an API key",
        U,
        None,
        no_key,
        "search_documents",
        {"collection": "books", "q": "darkness", "query_by": "title"},
    )
