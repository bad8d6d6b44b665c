"""google-cloud-storage behind a storage tool, pointed at a local stand-in of the Cloud
Storage JSON API on 127.0.0.1 through the ``STORAGE_EMULATOR_HOST`` variable the client
honours (project ``acme-analytics``; anonymous credentials, which the emulator setting
gives, and for the 401 ``authError`` cases a bare OAuth access token without a refresh
token, so that google-auth's refresh on 401 fails as it does for such a tool); every call passes
``retry=None`` and a 1 s timeout but for the cases of the client's own retry policy.

The stand-in answers the JSON API's documented errors: the ``{"error": {"code",
"message", "errors": [{"domain", "reason", "message"}]}}`` object with the statuses and
reasons of "HTTP status and error codes for JSON"
(cloud.google.com/storage/docs/json_api/v1/status-codes: 400 invalid / required /
userProjectMissing, 401 authError / required, 403 forbidden / accountDisabled /
retentionPolicyNotMet / userProjectAccountProblem, 404 notFound, 409 conflict, 412
conditionNotMet, 413 uploadTooLarge, 416 requestedRangeNotSatisfiable, 429
rateLimitExceeded, 500 / 503 backendError, 502, 504), messages as Cloud Storage writes them
(the bucket naming rules: cloud.google.com/storage/docs/buckets#naming; uniform
bucket-level access: cloud.google.com/storage/docs/uniform-bucket-level-access; retention
policies: cloud.google.com/storage/docs/bucket-lock; request rate limits:
cloud.google.com/storage/quotas). The client raises ``google.api_core.exceptions`` built
from that object (``NotFound``, ``Forbidden``, ``TooManyRequests`` ...), ``requests``'
transport errors for connection failures (``retry=None``), ``RetryError`` when its
``DEFAULT_RETRY`` gives up, ``DataCorruption`` when a download's ``x-goog-hash`` does not
match the bytes.

Labels follow the cause set up. Fixable: a bucket name, location, range, lifecycle value,
chunk size, URI, encoding, expiry or local path the model wrote.
Unrecoverable: credentials, permissions, a disabled account or billing account, a
requester-pays bucket the tool has no billing project for, a retention policy that forbids
the delete, legacy ACLs disabled by uniform bucket-level access, signing without a private
key, a local directory or file the tool's user may not use, a file size limit.
Ambiguous: not found / already exists / not empty / a precondition that no longer holds
(as the other SaaS modules label them), a 500 with no body, and data the SERVICE sent that
the client cannot read (an HTML page where JSON was expected, a metadata timestamp or size
it cannot parse, bytes that do not match their checksum or are not the text the headers
say). Transient: 429 rateLimitExceeded, 503, refused, DNS, the retry policy giving up on
503 -> not executed; 500 backendError, 502, 504, read timeout, reset, close -> unknown
outcome.

Not triggered: a broken installation (the ``google`` namespace package cannot be copied
piecewise by ``_pkgcopy``); resumable uploads' 308 / session expiry (uploads here are
single multipart requests); ``userRateLimitExceeded`` of the older APIs.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import generate

from libraries import _files, _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "google-cloud-storage"
REQUIRES = ["google-cloud-storage>=2.18,<4"]

_ERR = "Cloud Storage JSON API status codes (cloud.google.com/storage/docs/json_api/v1/status-codes)"
_BUCKET = "reports-2026"
_KEY = "q3/summary.csv"
_PROJECT = "acme-analytics"
_SA = "svc-reports@acme-analytics.iam.gserviceaccount.com"
_HTML502 = "<!DOCTYPE html>\n<html lang=en>\n  <meta charset=utf-8>\n  <title>Error 502 (Server Error)!!1</title>\n  <p><b>502.</b> <ins>That's an error.</ins>\n  <p>The server encountered a temporary error and could not complete your request.<p>Please try again in 30 seconds.  <ins>That's all we know.</ins>\n"
_HTML504 = "<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center></body></html>"


def _e(status: int, reason: str, message: str, source: str = _ERR) -> Reply:
    body = {
        "error": {
            "code": status,
            "message": message,
            "errors": [{"message": message, "domain": "global", "reason": reason}],
        }
    }
    return Reply(status, body, {"X-GUploader-UploadID": "ADPycdsQ5x8mT3kLw2pYz"}, source)


def _denied(perm: str, what: str = "object") -> str:
    return f"{_SA} does not have {perm} access to the Google Cloud Storage {what}. Permission '{perm}' denied on resource (or it may not exist)."


# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply | str, str, str | None, str]] = [
    # the model's arguments
    ("bucket_name_invalid", "create_spaced", _e(400, "invalid", "Invalid bucket name: 'Reports 2026'"), F, None, "bucket name with a capital and a space"),
    ("bucket_name_gs_url", "list_gs", _e(400, "invalid", "Invalid bucket name: 'gs://reports-2026'"), F, None, "a gs:// URL given as the bucket name"),
    ("location_invalid", "create_location", _e(400, "invalid", "The specified location constraint is not valid."), F, None, "bucket location that does not exist"),
    ("range_not_satisfiable", "download_range", _e(416, "requestedRangeNotSatisfiable", "The requested range cannot be satisfied."), F, None, "byte range past the object's end"),
    ("lifecycle_invalid", "lifecycle", _e(400, "invalid", "Invalid argument."), F, None, "lifecycle rule with a negative age"),
    ("upload_too_large", "upload", _e(413, "uploadTooLarge", "Upload request is too large."), F, None, "upload over the size limit"),
    # credentials, permissions, billing, bucket settings
    ("invalid_credentials", "list", _e(401, "authError", "Invalid Credentials"), U, None, "access token not valid, no refresh token"),
    ("token_expired_download", "download", _e(401, "authError", "Invalid Credentials"), U, None, "access token expired, no refresh token"),
    ("anonymous_caller", "download", _e(401, "required", "Anonymous caller does not have storage.objects.get access to the Google Cloud Storage object. Permission 'storage.objects.get' denied on resource (or it may not exist)."), U, None, "no credentials configured"),
    ("forbidden_create", "upload", _e(403, "forbidden", _denied("storage.objects.create")), U, None, "service account may not create objects"),
    ("forbidden_list", "list", _e(403, "forbidden", _denied("storage.objects.list", "bucket")), U, None, "service account may not list the bucket"),
    ("account_disabled", "list", _e(403, "accountDisabled", "The account for the specified project has been disabled."), U, None, "project's account disabled"),
    ("billing_closed", "download", _e(403, "userProjectAccountProblem", "The billing account for the owning project is disabled in state closed"), U, None, "billing account closed"),
    ("user_project_missing", "download", _e(400, "required", "Bucket is a requester pays bucket but no user project provided."), U, None, "requester-pays bucket, no billing project configured"),
    ("retention_policy", "delete_blob", _e(403, "retentionPolicyNotMet", f"Object '{_BUCKET}/{_KEY}' is subject to bucket's retention policy or object retention and cannot be deleted or overwritten until 2027-06-30T00:00:00.000000-00:00"), U, None, "object under a retention policy"),
    ("uniform_access", "make_public", _e(400, "invalid", "Cannot insert legacy ACL for an object when uniform bucket-level access is enabled. Read more at https://cloud.google.com/storage/docs/uniform-bucket-level-access"), U, None, "legacy ACLs disabled on the bucket"),
    # not found, already there, state
    ("object_not_found", "download", _e(404, "notFound", f"No such object: {_BUCKET}/{_KEY}"), A, None, "object not found"),
    ("bucket_not_found", "list", _e(404, "notFound", "The specified bucket does not exist."), A, None, "bucket not found"),
    ("blob_metadata_not_found", "get_blob_meta", _e(404, "notFound", f"No such object: {_BUCKET}/{_KEY}"), A, None, "object not found (metadata)"),
    ("bucket_owned", "create", _e(409, "conflict", "Your previous request to create the named bucket succeeded and you already own it."), A, None, "bucket already exists (ours)"),
    ("bucket_taken", "create", _e(409, "conflict", "The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again."), A, None, "bucket name taken by another project"),
    ("bucket_not_empty", "delete_bucket", _e(409, "conflict", "The bucket you tried to delete is not empty."), A, None, "bucket to delete is not empty"),
    ("condition_not_met", "upload_new", _e(412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold."), A, None, "object already exists (create-only upload)"),
    ("error_500_no_body", "upload", Reply(500, "", {}, "a server's bare 500", "text/plain"), A, None, "internal error, nothing more said (no body)"),
    # load, outages
    ("rate_object", "upload", _e(429, "rateLimitExceeded", f"The rate of change requests to the object {_BUCKET}/{_KEY} exceeds the rate limit. Please reduce the rate of create, update, and delete requests."), T, NE, "object mutation rate limit"),
    ("rate_buckets", "create", _e(429, "rateLimitExceeded", "The project exceeded the rate limit for creating and deleting buckets."), T, NE, "bucket creation rate limit"),
    ("backend_503", "list", _e(503, "backendError", "We encountered an internal error. Please try again."), T, NE, "service unavailable (503)"),
    ("backend_503_download", "download", _e(503, "backendError", "We encountered an internal error. Please try again."), T, NE, "service unavailable (503) on a download"),
    ("backend_500", "upload", _e(500, "backendError", "We encountered an internal error. Please try again."), T, UO, "internal error after the upload was sent"),
    ("backend_500_delete", "delete_blob", _e(500, "backendError", "We encountered an internal error. Please try again."), T, UO, "internal error during a delete"),
    ("bad_gateway", "upload", Reply(502, _HTML502, {}, "Google front end's 502 page"), T, UO, "502 page"),
    ("gateway_timeout", "delete_blob", Reply(504, _HTML504, {}, "a proxy's page"), T, UO, "gateway timeout"),
    # what the service sent cannot be read
    ("metadata_html", "get_blob_meta", Reply(200, "<html><head><title>Sign in - Google Accounts</title></head><body>Sign in</body></html>", {}, "a captive portal"), A, None, "metadata answered with an HTML page"),
    ("metadata_bad_updated", "blob_updated", Reply(200, {"kind": "storage#object", "name": _KEY, "bucket": _BUCKET, "size": "2048", "updated": "yesterday"}), A, None, "object's 'updated' timestamp not a date"),
    ("metadata_bad_size", "blob_size", Reply(200, {"kind": "storage#object", "name": _KEY, "bucket": _BUCKET, "size": "2 KB"}), A, None, "object's 'size' not a number"),
    ("list_bad_item", "list", Reply(200, {"kind": "storage#objects", "items": [{"kind": "storage#object", "bucket": _BUCKET, "size": "10"}]}), A, None, "listing's item without a name"),
    ("download_checksum", "download", Reply(200, b"region,revenue\nEMEA,1200\n", {"x-goog-hash": "crc32c=AAAAAA==,md5=1B2M2Y8AsgTpgAmY7PhCfg=="}), A, None, "downloaded bytes do not match their checksum"),
    ("download_not_utf8", "download_text", Reply(200, "région,revenue\n".encode("latin-1"), {"Content-Type": "text/csv; charset=utf-8"}, "", "text/csv; charset=utf-8"), A, None, "object's text not the UTF-8 its headers say"),
]  # fmt: skip


_TOKEN_SCENARIOS = ("invalid_credentials", "token_expired_download")


def _calls(client: Any, tmp: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the project and endpoint are the tool's."""
    where = {"bucket": _BUCKET, "key": _KEY}
    content = "region,revenue\nEMEA,1200\n"
    kw: dict[str, Any] = {"retry": None, "timeout": _saas.TIMEOUT}
    bucket = client.bucket(_BUCKET)
    blob = bucket.blob(_KEY)

    def reload(attr: str) -> Any:
        b = client.bucket(_BUCKET).blob(_KEY)
        b.reload(**kw)
        return getattr(b, attr)

    def lifecycle() -> Any:
        b = client.bucket(_BUCKET)
        b.add_lifecycle_delete_rule(age=-5)
        return b.patch(**kw)

    return {
        "download": ("read_object", where, lambda: blob.download_as_bytes(**kw)),
        "download_text": ("read_object", where, lambda: blob.download_as_text(**kw)),
        "download_range": ("read_object", {**where, "start": 10485760, "end": 10486271}, lambda: blob.download_as_bytes(start=10485760, end=10486271, **kw)),
        "upload": ("write_object", {**where, "content": content}, lambda: blob.upload_from_string(content, **kw)),
        "upload_new": ("write_object", {**where, "content": content, "overwrite": False}, lambda: blob.upload_from_string(content, if_generation_match=0, **kw)),
        "list": ("list_objects", {"bucket": _BUCKET, "prefix": "q3/"}, lambda: [b.name for b in client.list_blobs(_BUCKET, prefix="q3/", **kw)]),
        "list_gs": ("list_objects", {"bucket": "gs://reports-2026", "prefix": "q3/"}, lambda: list(client.list_blobs("gs://reports-2026", prefix="q3/", **kw))),
        "create": ("create_bucket", {"bucket": _BUCKET, "location": "EU"}, lambda: client.create_bucket(_BUCKET, location="EU", **kw)),
        "create_spaced": ("create_bucket", {"bucket": "Reports 2026", "location": "EU"}, lambda: client.create_bucket("Reports 2026", location="EU", **kw)),
        "create_location": ("create_bucket", {"bucket": _BUCKET, "location": "mars-central1"}, lambda: client.create_bucket(_BUCKET, location="mars-central1", **kw)),
        "delete_bucket": ("delete_bucket", {"bucket": _BUCKET}, lambda: client.bucket(_BUCKET).delete(**kw)),
        "delete_blob": ("delete_object", where, lambda: blob.delete(**kw)),
        "get_blob_meta": ("object_info", where, lambda: reload("size")),
        "blob_updated": ("object_info", where, lambda: reload("updated")),
        "blob_size": ("object_info", where, lambda: reload("size")),
        "make_public": ("share_object", where, lambda: blob.make_public(**kw)),
        "lifecycle": ("set_lifecycle", {"bucket": _BUCKET, "delete_after_days": -5}, lifecycle),
    }  # fmt: skip


@contextmanager
def _emulator(host: str) -> Iterator[None]:
    saved = os.environ.get("STORAGE_EMULATOR_HOST")
    os.environ["STORAGE_EMULATOR_HOST"] = host
    try:
        yield
    finally:
        if saved is None:
            del os.environ["STORAGE_EMULATOR_HOST"]
        else:
            os.environ["STORAGE_EMULATOR_HOST"] = saved


def cases(ctx: Any) -> Iterator[generate.Case]:
    from google.api_core.retry import Retry
    from google.cloud import storage
    from google.cloud.storage.retry import DEFAULT_RETRY
    from google.oauth2.credentials import Credentials

    def client(host: str, credentials: Any = None) -> Any:
        with _emulator(host):
            return storage.Client(project=_PROJECT, credentials=credentials)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"gcs-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    where = {"bucket": _BUCKET, "key": _KEY}
    with _saas.service(ctx, "GCSPORT", "UploadServer") as svc:
        c = client(svc.base)
        calls = _calls(c, ctx.tmp)
        # a tool given a bare OAuth access token (no refresh token): a 401 makes google-auth try to refresh it
        token_calls = _calls(client(svc.base, Credentials("ya29.a0AfB_byQ5x8mT3kLw2pYz0123456789")), ctx.tmp)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = (token_calls if key in _TOKEN_SCENARIOS else calls)[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": "http://storage.unreachable-host.invalid"}.get(
                key, svc.base
            )
            tool, args, fn = _calls(client(base), ctx.tmp)["upload"]
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)
        for key, kind, outcome, cause in _saas.TRANSPORT[2:4]:
            svc.reply(key)
            tool, args, fn = calls["list"]
            yield case(f"{key}-list", f"{cause} (a listing)", kind, outcome, _saas.catch(fn), tool, args)

        # the client's own retry policy, its deadline cut short (it gives up with RetryError)
        svc.reply(_e(503, "backendError", "We encountered an internal error. Please try again."))
        retry = DEFAULT_RETRY.with_timeout(0.2).with_delay(initial=0.05, maximum=0.05)
        exc = _saas.catch(
            lambda: list(c.list_blobs(_BUCKET, prefix="q3/", retry=retry, timeout=_saas.TIMEOUT))
        )
        yield case(
            "backend_503-retried",
            "service unavailable (after the client's retries)",
            T,
            NE,
            exc,
            "list_objects",
            {"bucket": _BUCKET, "prefix": "q3/"},
        )
        svc.reply(
            _e(
                429,
                "rateLimitExceeded",
                f"The rate of change requests to the object {_BUCKET}/{_KEY} exceeds the rate limit. Please reduce the rate of create, update, and delete requests.",
            )
        )
        retry = Retry(predicate=DEFAULT_RETRY._predicate, initial=0.05, maximum=0.05, timeout=0.2)
        exc = _saas.catch(
            lambda: c.bucket(_BUCKET).blob(_KEY).download_as_bytes(retry=retry, timeout=_saas.TIMEOUT)
        )
        yield case(
            "rate_object-retried",
            "object rate limit (after the client's retries)",
            T,
            NE,
            exc,
            "read_object",
            where,
        )

        # a 200 download, with the model's encoding, and to local files
        svc.reply(Reply(200, b"region,revenue\n" + b"EMEA,1200\n" * 400, {}))
        blob = c.bucket(_BUCKET).blob(_KEY)
        kw: dict[str, Any] = {"retry": None, "timeout": _saas.TIMEOUT}
        yield case(
            "encoding-unknown",
            "text encoding that does not exist",
            F,
            None,
            _saas.catch(lambda: blob.download_as_text(encoding="utf-9", **kw)),
            "read_object",
            {**where, "encoding": "utf-9"},
        )
        locked = _files.read_only_dir(ctx.tmp / "gcs-readonly")
        target = str(locked / "summary.csv")
        yield case(
            "download-read-only-dir",
            "download into a directory the tool's user may not write",
            U,
            None,
            _files.denied(lambda: blob.download_to_filename(target, **kw)),
            "download_object",
            {**where, "path": target},
        )
        big = str(ctx.tmp / "gcs-big.csv")
        with _files.file_size_limit(1024):
            exc = _saas.catch(lambda: blob.download_to_filename(big, **kw))
        yield case(
            "download-file-too-large",
            "download past the process's file size limit",
            U,
            None,
            exc,
            "download_object",
            {**where, "path": big},
        )
        missing_dir = str(ctx.tmp / "exports" / "q3" / "summary.csv")
        yield case(
            "download-missing-dir",
            "download path in a folder that does not exist",
            F,
            None,
            _saas.catch(lambda: blob.download_to_filename(missing_dir, **kw)),
            "download_object",
            {**where, "path": missing_dir},
        )

    # the client's own checks and the local files the model named (nothing is sent)
    c = client(_saas.dead_base(ctx))
    blob = c.bucket(_BUCKET).blob(_KEY)
    missing = str(ctx.tmp / "exports" / "q3-summary.csv")
    folder = ctx.tmp / "gcs-exports"
    folder.mkdir()
    secret = ctx.tmp / "gcs-private.csv"
    secret.write_text("a,b\n")
    secret.chmod(0o600)

    # (key, cause, kind, tool, the model's arguments, the call)
    local: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("bucket-leading-dash", "bucket name starting with '-'", F, "list_objects", {"bucket": "-reports-2026", "prefix": "q3/"}, lambda: c.bucket("-reports-2026")),
        ("bucket-trailing-slash", "bucket name ending with '/'", F, "read_object", {"bucket": "reports-2026/", "key": _KEY}, lambda: c.bucket("reports-2026/")),
        ("uri-s3-scheme", "an s3:// URI for a Cloud Storage object", F, "read_object", {"uri": "s3://reports-2026/q3/summary.csv"}, lambda: storage.Blob.from_uri("s3://reports-2026/q3/summary.csv", client=c)),
        ("uri-no-scheme", "object URI without gs://", F, "read_object", {"uri": "reports-2026/q3/summary.csv"}, lambda: storage.Blob.from_uri("reports-2026/q3/summary.csv", client=c)),
        ("chunk-size", "chunk size not a multiple of 256 KiB", F, "write_object", {**where, "content": "a", "chunk_size": 1000000}, lambda: c.bucket(_BUCKET).blob(_KEY, chunk_size=1000000)),
        ("upload-missing-file", "local file the model named does not exist", F, "upload_file", {**where, "path": missing}, lambda: blob.upload_from_filename(missing, retry=None)),
        ("upload-directory", "local path the model named is a directory", F, "upload_file", {**where, "path": str(folder)}, lambda: blob.upload_from_filename(str(folder), retry=None)),
        ("signed-url-no-key", "signing without a private key (anonymous credentials)", U, "share_object", {**where, "expires_minutes": 60}, lambda: blob.generate_signed_url(expiration=datetime.timedelta(minutes=60), version="v4")),
    ]  # fmt: skip
    for key, cause, kind, tool, args, fn in local:
        try:
            exc = _saas.catch(fn)
        except AssertionError:
            raise AssertionError(key) from None
        yield case(key, cause, kind, None, exc, tool, args)
    yield case(
        "upload-unreadable-file",
        "local file the tool's user may not read",
        U,
        None,
        _files.denied(lambda: blob.upload_from_filename(str(secret), retry=None)),
        "upload_file",
        {**where, "path": str(secret)},
    )
