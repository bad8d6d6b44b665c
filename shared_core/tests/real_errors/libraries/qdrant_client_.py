# ruff: noqa: B023 - each lambda is called at once
"""qdrant-client: Qdrant's REST errors as the client raises them (``UnexpectedResponse``,
``ResourceExhaustedResponse`` for a 429 with ``Retry-After``, ``ResponseHandlingException``
wrapping httpx's transport errors), through ``QdrantClient(url=...)`` and
``AsyncQdrantClient`` pointed at a local stand-in of a Qdrant server; plus the client's own
checks (pydantic models, its local in-memory engine ``QdrantClient(":memory:")``).

Bodies are Qdrant's ``ErrorResponse`` (``{"status": {"error": ...}, "time": ...}``, the
OpenAPI schema of api.qdrant.tech/api-reference); the texts are the server's own error
displays (qdrant/qdrant ``lib/storage/src/content_manager/errors.rs`` ``StorageError`` and
``lib/collection/src/operations/types.rs`` ``CollectionError``: ``Wrong input: ..``,
``Not found: ..``, ``Bad request: ..``, ``Service internal error: ..``, ``Rate limiting
exceeded: ..`` with ``Retry-After``, ``Forbidden: ..``), statuses as its REST layer maps
them (400, 403, 404, 408, 409, 429, 500, 503); the API key's 401 text is that of
qdrant.tech/documentation/guides/security; strict mode's limits
(qdrant.tech/documentation/guides/administration#strict-mode) give the 403 / 429 bodies.

Labels: a vector of the wrong size, an unknown vector name, a filter on a field with no
index, a malformed id or model -> fixable; API key missing / wrong, read-only JWT,
strict-mode collection limits, a locked (read-only) cluster, disk full -> unrecoverable;
rate limit (429), shard unavailable (503) -> transient, not executed; a server-side
timeout (408), an internal error (500), a read timeout / reset -> transient, unknown
outcome; collection already exists, not found -> ambiguous, as the other modules label
them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "qdrant-client"
REQUIRES = ["qdrant-client>=1.9,<2"]

_ERR = "Qdrant ErrorResponse (api.qdrant.tech/api-reference) with qdrant/qdrant StorageError / CollectionError texts"
_SEC = "Qdrant security guide (qdrant.tech/documentation/guides/security)"
_STRICT = "Qdrant strict mode (qdrant.tech/documentation/guides/administration#strict-mode)"


def _q(status: int, error: str, source: str = _ERR, **headers: str) -> Reply:
    return Reply(status, {"status": {"error": error}, "time": 0.000412}, headers, source)


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # the call's arguments
    (
        "dimension_mismatch",
        "upsert",
        _q(400, "Wrong input: Vector dimension error: expected dim: 384, got 4"),
        F,
        None,
        "vector of the wrong dimension",
    ),
    (
        "query_dimension_mismatch",
        "query_768",
        _q(400, "Wrong input: Vector dimension error: expected dim: 384, got 768"),
        F,
        None,
        "query vector of the wrong dimension",
    ),
    (
        "vector_name_missing",
        "query_named",
        _q(400, "Wrong input: Not existing vector name error: text-dense"),
        F,
        None,
        "unknown named vector",
    ),
    (
        "index_required",
        "query_filter",
        _q(
            400,
            'Bad request: Index required but not found for "city" of one of the following types: [keyword]. Help: Create an index for this key or use a different filter.',
        ),
        F,
        None,
        "filter on a payload field without an index",
    ),
    (
        "json_deserialize",
        "upsert_str_id",
        _q(
            400,
            "Format error in JSON body: data did not match any variant of untagged enum ExtendedPointId at line 1 column 26",
        ),
        F,
        None,
        "point id neither an integer nor a UUID",
    ),
    (
        "bad_uuid",
        "retrieve",
        _q(
            400,
            "Wrong input: Unable to parse UUID: invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `x` at 1",
        ),
        F,
        None,
        "malformed UUID point id",
    ),
    (
        "hnsw_validation",
        "create_size_0",
        _q(400, "Validation error in JSON body: [vectors.size: value 0 invalid, must be 1 or larger]"),
        F,
        None,
        "collection vector size 0",
    ),
    # credentials, permissions, limits of the deployment
    (
        "no_api_key",
        "query",
        Reply(401, "Must provide an API key or an Authorization bearer token", {}, _SEC),
        U,
        None,
        "API key missing",
    ),
    (
        "invalid_api_key",
        "upsert",
        Reply(403, "Invalid API key or JWT", {}, _SEC),
        U,
        None,
        "API key wrong",
    ),
    (
        "jwt_read_only",
        "upsert",
        _q(403, "Forbidden: Write access to collection docs is required", _SEC),
        U,
        None,
        "JWT grants read-only access",
    ),
    (
        "jwt_no_collection",
        "query",
        _q(403, "Forbidden: Access to collection docs is required", _SEC),
        U,
        None,
        "JWT does not cover the collection",
    ),
    (
        "strict_max_collection_vectors",
        "upsert",
        _q(
            403,
            "Forbidden: Max vectors storage size limit of 1073741824 bytes reached! Help: Reduce the collection size or increase the limit",
            _STRICT,
        ),
        U,
        None,
        "collection storage limit reached (strict mode)",
    ),
    (
        "locked",
        "upsert",
        _q(403, "Forbidden: Write operations are forbidden: maintenance in progress"),
        U,
        None,
        "writes locked on the cluster",
    ),
    (
        "disk_full",
        "upsert",
        _q(500, "Service internal error: File IO error: No space left on device (os error 28)"),
        U,
        None,
        "disk full on the server",
    ),
    (
        "out_of_memory",
        "upsert",
        _q(500, "Out of memory, free: 10485760, Failed to allocate memory for HNSW graph"),
        U,
        None,
        "server out of memory",
    ),
    # conflicts, not found
    (
        "collection_exists",
        "create",
        _q(409, "Wrong input: Collection `docs` already exists!"),
        A,
        None,
        "collection already exists",
    ),
    (
        "collection_not_found",
        "query",
        _q(404, "Not found: Collection `docs` doesn't exist!"),
        A,
        None,
        "collection not found",
    ),
    (
        "collection_not_found_get",
        "get_collection",
        _q(404, "Not found: Collection `docs` doesn't exist!"),
        A,
        None,
        "collection not found (info)",
    ),
    (
        "point_not_found",
        "set_payload",
        _q(404, "Not found: No point with id 42 found"),
        A,
        None,
        "point not found",
    ),
    (
        "alias_not_found",
        "delete_alias",
        _q(404, "Not found: Alias docs-live does not exists!"),
        A,
        None,
        "alias not found",
    ),
    # the service's side
    (
        "rate_limited",
        "upsert",
        _q(
            429,
            "Rate limiting exceeded: Write rate limit exceeded: Operation requires 1 tokens but only 0.0 were available. Retry after 1s",
            _STRICT,
            **{"Retry-After": "1"},
        ),
        T,
        NE,
        "write rate limit (429 with Retry-After)",
    ),
    (
        "rate_limited_read",
        "query",
        _q(
            429,
            "Rate limiting exceeded: Read rate limit exceeded: Operation requires 1 tokens but only 0.0 were available. Retry after 2s",
            _STRICT,
            **{"Retry-After": "2"},
        ),
        T,
        NE,
        "read rate limit (429 with Retry-After)",
    ),
    (
        "rate_limited_no_header",
        "query",
        _q(429, "Rate limiting exceeded: Read rate limit exceeded, retry later", _STRICT),
        T,
        NE,
        "rate limit (429 without Retry-After)",
    ),
    (
        "shard_unavailable",
        "query",
        _q(503, "Service unavailable: No active replica for shard 3 of collection docs"),
        T,
        NE,
        "no active replica for the shard",
    ),
    (
        "server_timeout",
        "query",
        _q(408, "Timeout error: Operation 'Search' timed out after 5 seconds"),
        T,
        UO,
        "search timed out on the server",
    ),
    (
        "internal",
        "upsert",
        _q(500, "Service internal error: Can't reach one of the workers: channel closed"),
        T,
        UO,
        "internal error",
    ),
    (
        "gateway_html",
        "query",
        Reply(
            502,
            "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\r\n",
            {},
            "nginx in front of the cluster",
        ),
        T,
        UO,
        "bad gateway from the proxy in front",
    ),
]


_VEC = [0.1, 0.2, 0.3, 0.4]
_COSINE_384 = {"size": 384, "distance": "Cosine"}


def _calls() -> dict[str, tuple[str, dict[str, Any], Any]]:
    """call -> (tool, the arguments the model wrote, the client call they are passed to)."""
    from qdrant_client import models

    def create(c: Any, a: dict[str, Any]) -> Any:
        return c.create_collection(
            a["collection_name"], vectors_config=models.VectorParams(**a["vectors_config"])
        )

    def upsert(c: Any, a: dict[str, Any]) -> Any:
        return c.upsert(a["collection_name"], points=[models.PointStruct(**p) for p in a["points"]])

    def query_filter(c: Any, a: dict[str, Any]) -> Any:
        return c.query_points(**{**a, "query_filter": models.Filter.model_validate(a["query_filter"])})

    def delete_alias(c: Any, a: dict[str, Any]) -> Any:
        delete = models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=a["alias_name"]))
        return c.update_collection_aliases(change_aliases_operations=[delete])

    point = {"id": 1, "vector": _VEC, "payload": {"city": "Lyon"}}
    query = {"collection_name": "docs", "query": _VEC, "limit": 5}
    city = {"must": [{"key": "city", "match": {"value": "Lyon"}}]}
    return {
        "create": ("create_collection", {"collection_name": "docs", "vectors_config": _COSINE_384}, create),
        "create_size_0": (
            "create_collection",
            {"collection_name": "docs", "vectors_config": {"size": 0, "distance": "Cosine"}},
            create,
        ),
        "get_collection": ("get_collection", {"collection_name": "docs"}, lambda c, a: c.get_collection(**a)),
        "upsert": ("upsert_points", {"collection_name": "docs", "points": [point]}, upsert),
        "upsert_str_id": (
            "upsert_points",
            {"collection_name": "docs", "points": [{**point, "id": "doc-1"}]},
            upsert,
        ),
        "query": ("query_points", query, lambda c, a: c.query_points(**a)),
        "query_768": ("query_points", {**query, "query": [0.1] * 768}, lambda c, a: c.query_points(**a)),
        "query_named": ("query_points", {**query, "using": "text-dense"}, lambda c, a: c.query_points(**a)),
        "query_filter": ("query_points", {**query, "query_filter": city}, query_filter),
        "retrieve": (
            "retrieve_points",
            {"collection_name": "docs", "ids": ["x1b4e28ba-2fa1-11d2-883f-0016d3cca427"]},
            lambda c, a: c.retrieve(**a),
        ),
        "set_payload": (
            "set_payload",
            {"collection_name": "docs", "payload": {"city": "Paris"}, "points": [42]},
            lambda c, a: c.set_payload(**a),
        ),
        "delete_alias": ("delete_alias", {"alias_name": "docs-live"}, delete_alias),
    }


def cases(ctx: Any) -> Iterator[generate.Case]:
    from qdrant_client import AsyncQdrantClient, QdrantClient, models

    calls = _calls()

    def client(base: str) -> Any:
        return QdrantClient(url=base, timeout=1, check_compatibility=False)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"qdrant-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "QDRANTPORT", "qdrant") as svc:
        c = client(svc.base)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(c, args)), tool, args)

        # the client's own models reject the call's arguments (nothing is sent)
        model_checks: list[tuple[str, str, str, dict[str, Any], Any]] = [
            (
                "model_size_str",
                "vector size not an integer",
                "create_collection",
                {"vectors_config": {"size": "large", "distance": "Cosine"}},
                lambda: models.VectorParams(size="large", distance=models.Distance.COSINE),  # type: ignore[arg-type]
            ),
            (
                "model_distance",
                "unknown distance name",
                "create_collection",
                {"vectors_config": {"size": 384, "distance": "Cosinus"}},
                lambda: models.VectorParams(size=384, distance="Cosinus"),  # type: ignore[arg-type]
            ),
            (
                "model_point_id_float",
                "point id a float",
                "upsert_points",
                {"points": [{"id": 1.5, "vector": [0.1, 0.2]}]},
                lambda: models.PointStruct(id=1.5, vector=[0.1, 0.2]),  # type: ignore[arg-type]
            ),
            (
                "model_range_str",
                "range bound not a number",
                "query_points",
                {"range": {"gte": "ten"}},
                lambda: models.Range(gte="ten"),  # type: ignore[arg-type]
            ),
        ]
        for key, cause, tool, args, fn in model_checks:
            yield case(key, cause, F, None, _saas.catch(fn), tool, args)

        # the client's in-memory engine (its own code answers)
        mem = QdrantClient(":memory:")
        mem.create_collection(
            "docs", vectors_config=models.VectorParams(size=4, distance=models.Distance.COSINE)
        )
        local: list[tuple[str, str, str, str, dict[str, Any], Any]] = [
            (
                "local_dimension",
                "vector of the wrong dimension (local engine)",
                F,
                "upsert_points",
                {"collection_name": "docs", "points": [{"id": 1, "vector": [0.1, 0.2]}]},
                lambda: mem.upsert("docs", points=[models.PointStruct(id=1, vector=[0.1, 0.2])]),
            ),
            (
                "local_empty_vector",
                "empty vector (local engine)",
                F,
                "upsert_points",
                {"collection_name": "docs", "points": [{"id": 2, "vector": []}]},
                lambda: mem.upsert("docs", points=[models.PointStruct(id=2, vector=[])]),
            ),
            (
                "local_nan",
                "vector with NaN (local engine)",
                F,
                "upsert_points",
                # JSON has no NaN: the model's "NaN", which the tool read as float("nan")
                {"collection_name": "docs", "points": [{"id": 3, "vector": [0.1, "NaN", 0.2, 0.3]}]},
                lambda: mem.upsert(
                    "docs", points=[models.PointStruct(id=3, vector=[0.1, float("nan"), 0.2, 0.3])]
                ),
            ),
            (
                "local_vector_name",
                "unknown named vector (local engine)",
                F,
                "query_points",
                {"collection_name": "docs", "query": [0.1, 0.2, 0.3, 0.4], "using": "text-dense"},
                lambda: mem.query_points("docs", query=[0.1, 0.2, 0.3, 0.4], using="text-dense"),
            ),
            (
                "local_no_collection",
                "collection not found (local engine)",
                A,
                "query_points",
                {"collection_name": "articles", "query": [0.1, 0.2, 0.3, 0.4]},
                lambda: mem.query_points("articles", query=[0.1, 0.2, 0.3, 0.4]),
            ),
        ]
        for key, cause, kind, tool, args, fn in local:
            yield case(key, cause, kind, None, _saas.catch(fn), tool, args)

        tool, args, fn = calls["upsert"]
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            cb = client(base)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(cb, args)), tool, args)

        async def run_async() -> list[generate.Case]:
            out = []

            async def query(base: str, args: dict[str, Any]) -> None:
                ac = AsyncQdrantClient(url=base, timeout=1, check_compatibility=False)
                try:
                    await ac.query_points(**args)
                finally:
                    await ac.close()

            for key in (
                "query_dimension_mismatch",
                "no_api_key",
                "rate_limited_read",
                "collection_not_found",
                "server_timeout",
            ):
                _k, call, reply, kind, outcome, cause = next(s for s in _SCENARIOS if s[0] == key)
                args = calls[call][1]
                svc.reply(reply)
                try:
                    await query(svc.base, args)
                    raise AssertionError("raised nothing")
                except Exception as exc:
                    out.append(case(f"async-{key}", cause, kind, outcome, exc, "query_points", args))
            for key, kind, outcome, cause in _saas.TRANSPORT:
                svc.reply(key)
                base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
                args = calls["query"][1]
                try:
                    await query(base, args)
                    raise AssertionError("raised nothing")
                except Exception as exc:
                    out.append(case(f"async-{key}", cause, kind, outcome, exc, "query_points", args))
            return out

        yield from asyncio.run(run_async())
