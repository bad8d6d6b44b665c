# ruff: noqa: B023 - each lambda is called at once
"""azure-storage-blob: Azure Blob Storage's errors as the SDK raises them (azure-core's
``ResourceNotFoundError``, ``ResourceExistsError``, ``ResourceModifiedError``,
``ClientAuthenticationError``, ``HttpResponseError`` carrying the storage error code;
``ServiceRequestError`` / ``ServiceResponseError`` from the transport; the SDK's own
``ValueError`` / ``TypeError`` on arguments), through ``BlobServiceClient`` (sync and
``aio``) pointed at a local stand-in of ``<account>.blob.core.windows.net`` (a path-style
account URL, as for Azurite).

Bodies are the Blob service's XML error document (``<Error><Code>..</Code><Message>..
RequestId:..Time:..</Message></Error>``) with the ``x-ms-error-code`` header, from
"Status and error codes" (learn.microsoft.com/rest/api/storageservices/status-and-error-codes2),
"Common REST API error codes" (learn.microsoft.com/rest/api/storageservices/common-rest-api-error-codes)
and "Blob Storage error codes" (learn.microsoft.com/rest/api/storageservices/blob-service-error-codes):
codes, statuses and messages verbatim. A HEAD request's error has no body (only the header),
as the service sends it. The SDK's retries are off (``retry_total=0``) but for one case.

Labels: a container / blob / block name or value the call gave that the service rejects
-> fixable; authentication, authorization, a disabled account, an immutable or archived
blob, the block-count limit -> unrecoverable; ``ServerBusy`` (503) and a container still
being deleted or a blob being rehydrated -> transient, not executed; ``InternalError`` /
``OperationTimedOut`` (500) and read timeouts / resets -> transient, unknown outcome;
"already exists", a lease held by another party, a failed condition (the blob changed)
and not found (is the name the caller's or is it gone?) -> ambiguous, as the other
modules label them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "azure-storage-blob"
REQUIRES = ["azure-storage-blob>=12.19,<13", "aiohttp>=3.9,<4"]

_COMMON = "Azure Storage common REST API error codes (learn.microsoft.com/rest/api/storageservices/common-rest-api-error-codes)"
_BLOB = (
    "Azure Blob Storage error codes (learn.microsoft.com/rest/api/storageservices/blob-service-error-codes)"
)
_ACCOUNT = "devstoreaccount1"
# Azurite's published development key (not a secret).
_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
_REQ_ID = "c6e3a1d2-201e-0042-7b1c-4f8a2b000000"


def _az(
    status: int, code: str, message: str, source: str = _BLOB, head: bool = False, **headers: str
) -> Reply:
    hdrs = {"x-ms-error-code": code, "x-ms-request-id": _REQ_ID, "x-ms-version": "2025-01-05", **headers}
    if head:
        return Reply(status, b"", hdrs, source, "application/xml")
    body = (
        '<?xml version="1.0" encoding="utf-8"?><Error><Code>'
        f"{code}</Code><Message>{message}\nRequestId:{_REQ_ID}\nTime:2026-12-01T00:00:00.0000000Z"
        "</Message></Error>"
    )
    return Reply(status, "\ufeff" + body, hdrs, source, "application/xml")


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    # names and values the call gave
    (
        "invalid_resource_name",
        "create_container",
        _az(400, "InvalidResourceName", "The specified resource name contains invalid characters.", _COMMON),
        F,
        None,
        "container name with invalid characters",
    ),
    (
        "out_of_range_input",
        "create_container",
        _az(400, "OutOfRangeInput", "One of the request inputs is out of range.", _COMMON),
        F,
        None,
        "container name too short / long",
    ),
    (
        "invalid_range",
        "download_range",
        _az(416, "InvalidRange", "The range specified is invalid for the current size of the resource."),
        F,
        None,
        "download range beyond the blob's size",
    ),
    (
        "invalid_blob_tier",
        "set_tier",
        _az(400, "InvalidBlobTier", "The specified blob tier is invalid."),
        F,
        None,
        "invalid access tier name",
    ),
    (
        "invalid_header_value",
        "upload",
        _az(
            400,
            "InvalidHeaderValue",
            "The value provided for one of the HTTP headers was not in the correct format.",
            _COMMON,
        ),
        F,
        None,
        "header value (content settings / metadata) in the wrong format",
    ),
    (
        "invalid_metadata",
        "set_metadata",
        _az(
            400,
            "InvalidMetadata",
            "The specified metadata is invalid. It includes characters that are not permitted.",
            _COMMON,
        ),
        F,
        None,
        "metadata name with characters not permitted",
    ),
    (
        "invalid_block_list",
        "commit_blocks",
        _az(400, "InvalidBlockList", "The specified block list is invalid."),
        F,
        None,
        "block list names blocks never staged",
    ),
    (
        "invalid_block_id",
        "stage_block",
        _az(
            400,
            "InvalidBlockId",
            "The specified block ID is invalid. The block ID must be Base64-encoded.",
        ),
        F,
        None,
        "block id not valid Base64 / of unequal length",
    ),
    (
        "request_body_too_large",
        "upload",
        _az(
            413,
            "RequestBodyTooLarge",
            "The request body is too large and exceeds the maximum permissible limit.",
            _COMMON,
        ),
        F,
        None,
        "upload body over the single-put limit",
    ),
    (
        "snapshots_present",
        "delete_blob",
        _az(409, "SnapshotsPresent", "This operation is not permitted because the blob has snapshots."),
        F,
        None,
        "delete without delete_snapshots on a blob that has snapshots",
    ),
    (
        "invalid_blob_type",
        "append",
        _az(409, "InvalidBlobType", "The blob type is invalid for this operation."),
        F,
        None,
        "append block to a block blob",
    ),
    (
        "invalid_query_parameter",
        "list_blobs",
        _az(
            400,
            "InvalidQueryParameterValue",
            "An invalid value was specified for one of the query parameters in the request URI.",
            _COMMON,
        ),
        F,
        None,
        "invalid query parameter value (listing prefix / marker)",
    ),
    # credentials, permissions, account and blob state
    (
        "authentication_failed",
        "download",
        _az(
            403,
            "AuthenticationFailed",
            "Server failed to authenticate the request. Make sure the value of the Authorization header is formed correctly including the signature.",
            _COMMON,
        ),
        U,
        None,
        "account key wrong (signature does not match)",
    ),
    (
        "invalid_authentication_info",
        "download",
        _az(
            401,
            "InvalidAuthenticationInfo",
            "Server failed to authenticate the request. Please refer to the information in the www-authenticate header.",
            _COMMON,
        ),
        U,
        None,
        "malformed authorization (credential misconfigured)",
    ),
    (
        "authorization_permission_mismatch",
        "upload",
        _az(
            403,
            "AuthorizationPermissionMismatch",
            "This request is not authorized to perform this operation using this permission.",
            _BLOB,
        ),
        U,
        None,
        "SAS / role lacks write permission",
    ),
    (
        "authorization_failure",
        "list_blobs",
        _az(403, "AuthorizationFailure", "This request is not authorized to perform this operation.", _BLOB),
        U,
        None,
        "not authorized (network rules / RBAC)",
    ),
    (
        "source_ip_mismatch",
        "download",
        _az(
            403,
            "AuthorizationSourceIPMismatch",
            "This request is not authorized to perform this operation using this source IP 203.0.113.7.",
        ),
        U,
        None,
        "SAS restricted to another source IP",
    ),
    (
        "account_disabled",
        "create_container",
        _az(403, "AccountIsDisabled", "The specified account is disabled.", _COMMON),
        U,
        None,
        "storage account disabled",
    ),
    (
        "insufficient_account_permissions",
        "set_tier",
        _az(
            403,
            "InsufficientAccountPermissions",
            "The account being accessed does not have sufficient permissions to execute this operation.",
            _COMMON,
        ),
        U,
        None,
        "account kind does not allow the operation",
    ),
    (
        "blob_archived",
        "download",
        _az(409, "BlobArchived", "This operation is not permitted on an archived blob."),
        U,
        None,
        "blob in the archive tier (must be rehydrated first)",
    ),
    (
        "blob_immutable",
        "delete_blob",
        _az(
            409,
            "BlobImmutableDueToPolicy",
            "This operation is not permitted as the blob is immutable due to a policy.",
        ),
        U,
        None,
        "immutability policy forbids deletion",
    ),
    (
        "block_count_exceeds_limit",
        "commit_blocks",
        _az(
            409,
            "BlockCountExceedsLimit",
            "The committed block count cannot exceed the maximum limit of 50,000 blocks.",
        ),
        U,
        None,
        "blob reached the committed block limit",
    ),
    # conflicts, conditions, not found
    (
        "container_already_exists",
        "create_container",
        _az(409, "ContainerAlreadyExists", "The specified container already exists."),
        A,
        None,
        "container already exists",
    ),
    (
        "blob_already_exists",
        "upload",
        _az(409, "BlobAlreadyExists", "The specified blob already exists."),
        A,
        None,
        "blob already exists (overwrite off)",
    ),
    (
        "lease_id_missing",
        "delete_blob",
        _az(
            412,
            "LeaseIdMissing",
            "There is currently a lease on the blob and no lease ID was specified in the request.",
        ),
        A,
        None,
        "blob leased by another client",
    ),
    (
        "lease_already_present",
        "acquire_lease",
        _az(409, "LeaseAlreadyPresent", "There is already a lease present."),
        A,
        None,
        "lease already held",
    ),
    (
        "condition_not_met",
        "upload_if_match",
        _az(
            412,
            "ConditionNotMet",
            "The condition specified in the conditional header(s) was not met for a write operation.",
            _COMMON,
        ),
        A,
        None,
        "blob changed since its ETag was read",
    ),
    (
        "container_not_found",
        "list_blobs",
        _az(404, "ContainerNotFound", "The specified container does not exist."),
        A,
        None,
        "container not found",
    ),
    (
        "blob_not_found",
        "download",
        _az(404, "BlobNotFound", "The specified blob does not exist."),
        A,
        None,
        "blob not found",
    ),
    (
        "blob_not_found_head",
        "properties",
        _az(404, "BlobNotFound", "", head=True),
        A,
        None,
        "blob not found (HEAD: no body)",
    ),
    (
        "resource_not_found",
        "delete_container",
        _az(404, "ResourceNotFound", "The specified resource does not exist.", _COMMON),
        A,
        None,
        "resource not found",
    ),
    # the service's side
    (
        "container_being_deleted",
        "create_container",
        _az(409, "ContainerBeingDeleted", "The specified container is being deleted."),
        T,
        NE,
        "container of that name still being deleted (retry later)",
    ),
    (
        "blob_being_rehydrated",
        "download",
        _az(
            409,
            "BlobBeingRehydrated",
            "This operation is not permitted because the blob is being rehydrated.",
        ),
        T,
        NE,
        "blob being rehydrated from archive",
    ),
    (
        "server_busy",
        "upload",
        _az(
            503,
            "ServerBusy",
            "The server is currently unable to receive requests. Please retry your request.",
            _COMMON,
        ),
        T,
        NE,
        "server busy",
    ),
    (
        "server_busy_ingress",
        "upload",
        _az(503, "ServerBusy", "Ingress is over the account limit.", _COMMON),
        T,
        NE,
        "account ingress over the limit (throttled)",
    ),
    (
        "server_busy_ops",
        "list_blobs",
        _az(503, "ServerBusy", "Operations per second is over the account limit.", _COMMON),
        T,
        NE,
        "account operations per second over the limit (throttled)",
    ),
    (
        "internal_error",
        "upload",
        _az(
            500,
            "InternalError",
            "The server encountered an internal error. Please retry the request.",
            _COMMON,
        ),
        T,
        UO,
        "internal error",
    ),
    (
        "operation_timed_out",
        "commit_blocks",
        _az(
            500,
            "OperationTimedOut",
            "The operation could not be completed within the permitted time.",
            _COMMON,
        ),
        T,
        UO,
        "operation timed out on the server",
    ),
]


def _blob(name: str = "q3/summary.csv", **more: Any) -> dict[str, Any]:
    """The arguments the model wrote naming a blob of its container (and more of the call's)."""
    return {"container": "reports-2026", "blob": name, **more}


_UPLOAD = _blob(data="region,total\n", overwrite=False)

# call -> (tool, the model's arguments, the call); the account URL and key are the tool's
_CALLS: dict[str, tuple[str, dict[str, Any], Any]] = {
    "create_container": (
        "create_container",
        {"container": "reports-2026"},
        lambda s: s.create_container("reports-2026"),
    ),
    "delete_container": (
        "delete_container",
        {"container": "reports-2026"},
        lambda s: s.delete_container("reports-2026"),
    ),
    "list_blobs": (
        "list_blobs",
        {"container": "reports-2026", "prefix": "q3/"},
        lambda s: list(s.get_container_client("reports-2026").list_blobs(name_starts_with="q3/")),
    ),
    "upload": (
        "upload_blob",
        _UPLOAD,
        lambda s: s.get_blob_client("reports-2026", "q3/summary.csv").upload_blob(
            b"region,total\n", overwrite=False
        ),
    ),
    "upload_if_match": (
        "upload_blob",
        _blob(data="region,total\n", overwrite=True, etag='"0x8DCF1A2B3C4D5E6"'),
        lambda s: s.get_blob_client("reports-2026", "q3/summary.csv").upload_blob(
            b"region,total\n", overwrite=True, etag='"0x8DCF1A2B3C4D5E6"', match_condition=_match()
        ),
    ),
    "download": (
        "download_blob",
        _blob(),
        lambda s: s.get_blob_client("reports-2026", "q3/summary.csv").download_blob().readall(),
    ),
    "download_range": (
        "download_blob",
        _blob(offset=4096, length=512),
        lambda s: (
            s.get_blob_client("reports-2026", "q3/summary.csv")
            .download_blob(offset=4096, length=512)
            .readall()
        ),
    ),
    "properties": (
        "get_blob_properties",
        _blob(),
        lambda s: s.get_blob_client("reports-2026", "q3/summary.csv").get_blob_properties(),
    ),
    "delete_blob": (
        "delete_blob",
        _blob(),
        lambda s: s.get_blob_client("reports-2026", "q3/summary.csv").delete_blob(),
    ),
    "set_tier": (
        "set_blob_tier",
        _blob(tier="Cool"),
        lambda s: s.get_blob_client("reports-2026", "q3/summary.csv").set_standard_blob_tier("Cool"),
    ),
    "set_metadata": (
        "set_blob_metadata",
        _blob(metadata={"owner": "finance"}),
        lambda s: s.get_blob_client("reports-2026", "q3/summary.csv").set_blob_metadata({"owner": "finance"}),
    ),
    "commit_blocks": (
        "commit_block_list",
        _blob("q3/big.bin", block_ids=["YmxvY2stMDAwMQ==", "YmxvY2stMDAwMg=="]),
        lambda s: s.get_blob_client("reports-2026", "q3/big.bin").commit_block_list(
            ["YmxvY2stMDAwMQ==", "YmxvY2stMDAwMg=="]
        ),
    ),
    "stage_block": (
        "stage_block",
        _blob("q3/big.bin", block_id="YmxvY2stMDAwMQ==", data="chunk"),
        lambda s: s.get_blob_client("reports-2026", "q3/big.bin").stage_block("YmxvY2stMDAwMQ==", b"chunk"),
    ),
    "append": (
        "append_block",
        _blob("q3/log.txt", data="line\n"),
        lambda s: s.get_blob_client("reports-2026", "q3/log.txt").append_block(b"line\n"),
    ),
    "acquire_lease": (
        "acquire_lease",
        _blob(lease_duration=60),
        lambda s: s.get_blob_client("reports-2026", "q3/summary.csv").acquire_lease(lease_duration=60),
    ),
}


def _match() -> Any:
    from azure.core import MatchConditions

    return MatchConditions.IfNotModified


def cases(ctx: Any) -> Iterator[generate.Case]:
    from azure.storage.blob import BlobClient, BlobServiceClient, LinearRetry
    from azure.storage.blob.aio import BlobServiceClient as AsyncBlobServiceClient

    opts = {"retry_total": 0, "connection_timeout": _saas.TIMEOUT, "read_timeout": _saas.TIMEOUT}

    def client(base: str, **kw: Any) -> Any:
        return BlobServiceClient(
            f"{base}/{_ACCOUNT}", credential={"account_name": _ACCOUNT, "account_key": _KEY}, **{**opts, **kw}
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
        return generate.Case(f"azure-blob-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "AZUREBLOBPORT", "Windows-Azure-Blob/1.0 Microsoft-HTTPAPI/2.0") as svc:
        c = client(svc.base)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = _CALLS[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(c)), tool, args)

        # the SDK's own checks of the call's arguments (nothing is sent)
        blob = c.get_blob_client("reports-2026", "q3/summary.csv")
        blob_url = f"{svc.base}/{_ACCOUNT}"
        local: list[tuple[str, str, str, dict[str, Any], Any]] = [
            (
                "length_without_offset",
                "download range: length without offset",
                "download_blob",
                _blob(length=512),
                lambda: blob.download_blob(length=512),
            ),
            (
                "upload_int",
                "upload data of an unsupported type (int)",
                "upload_blob",
                _blob(data=12345),
                lambda: blob.upload_blob(12345),
            ),
            (
                "upload_bad_type",
                "unsupported blob type",
                "upload_blob",
                _blob(data="x", blob_type="ZipBlob"),
                lambda: blob.upload_blob(b"x", blob_type="ZipBlob"),
            ),
            (
                "page_not_aligned",
                "page range not aligned to 512 bytes",
                "upload_page",
                _blob("disk.vhd", data="x" * 100, offset=0, length=100),
                lambda: c.get_blob_client("reports-2026", "disk.vhd").upload_page(
                    b"x" * 100, offset=0, length=100
                ),
            ),
            (
                "blob_url_no_name",
                "blob URL without container and blob name",
                "open_blob_url",
                {"blob_url": blob_url},
                lambda: BlobClient.from_blob_url(blob_url),
            ),
            (
                "account_url_none",
                "account URL not a string",
                "open_account",
                {"account_url": None},
                lambda: BlobServiceClient(None),  # type: ignore[arg-type]
            ),
            (
                "delete_snapshot_conflict",
                "delete_snapshots given with a specific snapshot",
                "delete_blob",
                _blob(snapshot="2026-11-30T00:00:00.0000000Z", delete_snapshots="include"),
                lambda: c.get_blob_client(
                    "reports-2026", "q3/summary.csv", snapshot="2026-11-30T00:00:00.0000000Z"
                ).delete_blob(delete_snapshots="include"),
            ),
        ]
        for key, cause, tool, args, fn in local:
            yield case(key, cause, F, None, _saas.catch(fn), tool, args)

        tool, args, fn = _CALLS["upload"]
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
            cb = client(base)
            yield case(key, cause, kind, outcome, _saas.catch(lambda: fn(cb)), tool, args)
        retrying = client(
            _saas.dead_base(ctx), retry_policy=LinearRetry(backoff=0, retry_total=1, random_jitter_range=0)
        )
        yield case(
            "refused-retried",
            "connection refused (after retries)",
            T,
            NE,
            _saas.catch(lambda: fn(retrying)),
            tool,
            args,
        )

        async def run_async() -> list[generate.Case]:
            out = []

            def aclient(base: str) -> Any:
                return AsyncBlobServiceClient(
                    f"{base}/{_ACCOUNT}", credential={"account_name": _ACCOUNT, "account_key": _KEY}, **opts
                )

            async def upload(s: Any) -> None:
                async with s:
                    await s.get_blob_client("reports-2026", "q3/summary.csv").upload_blob(
                        b"region,total\n", overwrite=False
                    )

            for key in (
                "blob_already_exists",
                "authentication_failed",
                "server_busy",
                "internal_error",
                "invalid_header_value",
            ):
                _k, _call, reply, kind, outcome, cause = next(s for s in _SCENARIOS if s[0] == key)
                svc.reply(reply)
                try:
                    await upload(aclient(svc.base))
                    raise AssertionError("raised nothing")
                except Exception as exc:
                    out.append(case(f"async-{key}", cause, kind, outcome, exc, "upload_blob", _UPLOAD))
            for key, kind, outcome, cause in _saas.TRANSPORT:
                svc.reply(key)
                base = {"refused": _saas.dead_base(ctx), "dns": _saas.DNS_BASE}.get(key, svc.base)
                try:
                    await upload(aclient(base))
                    raise AssertionError("raised nothing")
                except Exception as exc:
                    out.append(case(f"async-{key}", cause, kind, outcome, exc, "upload_blob", _UPLOAD))
            return out

        yield from asyncio.run(run_async())
