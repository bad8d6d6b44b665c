"""MinIO's Python SDK (``minio``) behind an object-storage tool, pointed at a local stand-in
of an S3 endpoint on 127.0.0.1 (``Minio("127.0.0.1:<port>", secure=False,
region="us-east-1")``: path-style requests, signed with Signature V4, no region lookup).

The stand-in answers S3's documented error responses: the XML ``<Error>`` document with
``Code``, ``Message``, ``Resource``, ``RequestId`` (and MinIO's ``BucketName`` / ``Key`` /
``HostId``), the status each code is listed with in Amazon S3's "Error responses" page
(docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html#ErrorCodeList) and, for the
MinIO-only codes (``XMinioStorageFull``, ``XMinioServerNotInitialized``,
``XMinioAdminBucketQuotaExceeded``, ``XMinioInvalidObjectName``), the table in MinIO's
``cmd/api-errors.go`` (github.com/minio/minio). The SDK raises ``S3Error`` for an XML error,
builds one itself for a HEAD answered without a body (404 -> ``NoSuchKey``, 403 ->
``AccessDenied``), ``ServerError`` for a HEAD 5xx, ``InvalidResponseError`` for a non-XML
error page (a proxy's 502 / 504 HTML), and urllib3's ``MaxRetryError`` for connection
failures and, with the SDK's default retry policy (``Retry(status_forcelist=[500, 502,
503, 504])``, here without its back-off), for 5xx answers that outlast the retries.

Labels follow the cause set up. Fixable: a value the model wrote that S3 or the SDK turns
away (bucket names the SDK's ``check_bucket_name`` refuses, an expiry over the 7-day limit
of presigned URLs, tags over S3's limits, a key too long, a range past the object's end, a
storage class or policy text S3 rejects, a local path the model named that is missing or a
directory). Unrecoverable: credentials, signatures, clock skew, disabled accounts, a bucket
quota or a full storage backend, a feature the server does not implement, a region the
tool was not configured for, a local directory or file the tool's user may not write or
read, a file size limit, a broken installation (urllib3 or certifi missing). Ambiguous:
not found / already exists / not empty, as the other SaaS modules label them (a bucket or
key the model may have made up or that someone removed: nothing in the call tells), an
archived object, and data the SERVICE sent that the SDK cannot read (a truncated or HTML
listing, a malformed error document, a date it cannot parse, a 500 with no body at all).
Transient: ``SlowDown`` / ``ServiceUnavailable`` / ``XMinioServerNotInitialized`` (503),
``OperationAborted`` (409, "Try again"), ``RequestTimeout`` (the upload was not read in
time: not stored), refused / DNS -> not executed; ``InternalError`` (500, "Please try
again"), 502 / 504 pages, read timeout, reset, close, a body cut short -> unknown outcome.

Not triggered: S3's multipart-only errors (``NoSuchUpload``, ``EntityTooSmall``: the SDK
sizes parts itself), ``PreconditionFailed`` (the SDK's calls set no condition from the
model's arguments here), STS credential providers (no IAM endpoint here).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import generate

from libraries import _files, _pkgcopy, _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "minio"
REQUIRES = ["minio>=7.2,<8"]

_ERR = "Amazon S3 Error responses (docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html)"
_MINIO = "MinIO cmd/api-errors.go (github.com/minio/minio/blob/master/cmd/api-errors.go)"
_BUCKET = "reports-2026"
_KEY = "q3/summary.csv"
_ACCESS = "AKIAQ5X8MT3KLW2PYZ7E"
_SECRET = "q5X8mT3kLw2pYz0123456789abcdefGHIJKLmnop"
_IDS = {
    "x-amz-request-id": "17E2A4C8D9B3F001",
    "x-amz-id-2": "dd9025bab4ad464b049177c95eb6ebf374d3b3fd1af9251148b658df7ac2e3e8",
}


def _s3(
    status: int,
    code: str,
    message: str,
    resource: str = f"/{_BUCKET}/{_KEY}",
    source: str = _ERR,
    **headers: str,
) -> Reply:
    key = resource.removeprefix(f"/{_BUCKET}").removeprefix("/")
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<Error><Code>{code}</Code><Message>{message}</Message>"
        + (f"<Key>{key}</Key>" if key else "")
        + (f"<BucketName>{_BUCKET}</BucketName>" if resource.startswith(f"/{_BUCKET}") else "")
        + f"<Resource>{resource}</Resource><RequestId>17E2A4C8D9B3F001</RequestId>"
        f"<HostId>{_IDS['x-amz-id-2']}</HostId></Error>"
    )
    return Reply(status, body, {**_IDS, **headers}, source, "application/xml")


_B = f"/{_BUCKET}"
_HTML502 = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"
_HTML504 = "<html><head><title>504 Gateway Time-out</title></head><body><center><h1>504 Gateway Time-out</h1></center><hr><center>nginx</center></body></html>"

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply | str, str, str | None, str]] = [
    # the model's arguments, turned away by S3
    ("invalid_range", "get_range", _s3(416, "InvalidRange", "The requested range is not satisfiable"), F, None, "byte range starts past the object's end"),
    ("key_too_long", "put", _s3(400, "KeyTooLongError", "Your key is too long"), F, None, "object key over 1024 bytes"),
    ("invalid_storage_class", "put_class", _s3(400, "InvalidStorageClass", "The storage class you specified is not valid"), F, None, "storage class not one S3 knows"),
    ("malformed_policy", "set_policy", _s3(400, "MalformedPolicy", "Policy has invalid resource", _B), F, None, "bucket policy names an invalid resource"),
    ("invalid_tag", "set_tags", _s3(400, "InvalidTag", "The TagValue you have provided is invalid"), F, None, "tag value S3 rejects"),
    ("entity_too_large", "put", _s3(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed object size."), F, None, "upload over the size limit"),
    ("invalid_object_name", "put", _s3(400, "XMinioInvalidObjectName", "Object name contains unsupported characters.", source=_MINIO), F, None, "object name with characters MinIO refuses"),
    ("invalid_bucket_name", "make", _s3(400, "InvalidBucketName", "The specified bucket is not valid.", _B), F, None, "bucket name S3 refuses"),
    # credentials, account, configuration
    ("access_denied", "get", _s3(403, "AccessDenied", "Access Denied."), U, None, "key's policy does not allow reading the object"),
    ("invalid_access_key", "list", _s3(403, "InvalidAccessKeyId", "The Access Key Id you provided does not exist in our records.", _B), U, None, "access key unknown"),
    ("signature_mismatch", "put", _s3(403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method."), U, None, "secret key wrong"),
    ("expired_token", "list", _s3(400, "ExpiredToken", "The provided token has expired.", _B), U, None, "session token expired"),
    ("all_access_disabled", "get", _s3(403, "AllAccessDisabled", "All access to this Amazon S3 resource has been disabled."), U, None, "all access to the resource disabled"),
    ("account_problem", "put", _s3(403, "AccountProblem", "There is a problem with your AWS account that prevents the operation from completing successfully."), U, None, "account problem"),
    ("time_skewed", "list", _s3(403, "RequestTimeTooSkewed", "The difference between the request time and the server's time is too large.", _B), U, None, "the tool's clock is off"),
    ("storage_full", "put", _s3(507, "XMinioStorageFull", "Storage backend has reached its minimum free drive threshold. Please delete a few objects to proceed.", source=_MINIO), U, None, "storage backend full"),
    ("bucket_quota", "put", _s3(400, "XMinioAdminBucketQuotaExceeded", "Bucket quota exceeded", source=_MINIO), U, None, "bucket quota spent"),
    ("not_implemented", "lock_config", _s3(501, "NotImplemented", "A header you provided implies functionality that is not implemented", _B), U, None, "object lock not implemented by the server"),
    ("permanent_redirect", "list", _s3(301, "PermanentRedirect", "The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.", _B, **{"x-amz-bucket-region": "eu-west-1"}), U, None, "bucket in a region the tool is not configured for"),
    ("head_forbidden", "stat", Reply(403, b"", _IDS, _ERR), U, None, "key may not read the object (HEAD, no body)"),
    # not found, already there, state
    ("no_such_bucket", "list", _s3(404, "NoSuchBucket", "The specified bucket does not exist", _B), A, None, "bucket not found"),
    ("no_such_key", "get", _s3(404, "NoSuchKey", "The specified key does not exist."), A, None, "object not found"),
    ("head_not_found", "stat", Reply(404, b"", _IDS, _ERR), A, None, "object not found (HEAD, no body)"),
    ("no_such_policy", "get_policy", _s3(404, "NoSuchBucketPolicy", "The bucket policy does not exist", _B), A, None, "bucket has no policy"),
    ("bucket_exists", "make", _s3(409, "BucketAlreadyExists", "The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.", _B), A, None, "bucket name taken by another account"),
    ("bucket_owned", "make", _s3(409, "BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and you already own it.", _B), A, None, "bucket already exists (ours)"),
    ("bucket_not_empty", "remove_bucket", _s3(409, "BucketNotEmpty", "The bucket you tried to delete is not empty", _B), A, None, "bucket to delete is not empty"),
    ("invalid_object_state", "get", _s3(403, "InvalidObjectState", "The operation is not valid for the object's storage class"), A, None, "object archived (needs a restore)"),
    ("error_500_no_body", "put", Reply(500, "", _IDS, "a server's bare 500", "text/plain"), A, None, "internal error, nothing more said (no body)"),
    # load, outages
    ("slow_down", "put", _s3(503, "SlowDown", "Please reduce your request rate."), T, NE, "request rate too high"),
    ("service_unavailable", "list", _s3(503, "ServiceUnavailable", "Service is unable to handle request.", _B), T, NE, "service unavailable"),
    ("server_not_initialized", "get", _s3(503, "XMinioServerNotInitialized", "Server not initialized yet, please try again.", source=_MINIO), T, NE, "server still starting"),
    ("operation_aborted", "make", _s3(409, "OperationAborted", "A conflicting conditional operation is currently in progress against this resource. Try again.", _B), T, NE, "conflicting operation in progress"),
    ("request_timeout", "put", _s3(400, "RequestTimeout", "Your socket connection to the server was not read from or written to within the timeout period."), T, NE, "upload not read in time (not stored)"),
    ("head_unavailable", "stat", Reply(503, b"", _IDS, _ERR), T, NE, "service unavailable (HEAD, no body)"),
    ("internal_error", "put", _s3(500, "InternalError", "We encountered an internal error. Please try again."), T, UO, "internal error after the upload was sent"),
    ("internal_error_delete", "remove", _s3(500, "InternalError", "We encountered an internal error. Please try again."), T, UO, "internal error during a delete"),
    ("bad_gateway_html", "put", Reply(502, _HTML502, {}, "a proxy's page"), T, UO, "proxy's 502 page"),
    ("gateway_timeout_html", "remove", Reply(504, _HTML504, {}, "a proxy's page"), T, UO, "proxy's 504 page"),
    # what the service sent cannot be read
    ("list_truncated_xml", "list", Reply(200, '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>reports-2026</Name><Prefix>q3/</Prefix><KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated><Contents><Key>q3/summary.csv</Key><LastMod', {}, "", "application/xml"), A, None, "listing cut off mid-document"),
    ("list_html", "list", Reply(200, "<html><body><h1>Sign in to continue</h1><form action=/login></body></html>", {}, "a captive portal"), A, None, "listing answered with an HTML page"),
    ("list_bad_date", "list", Reply(200, '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>reports-2026</Name><Prefix>q3/</Prefix><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated><Contents><Key>q3/summary.csv</Key><LastModified>yesterday</LastModified><ETag>"9b2cf535f27731c974343645a3985328"</ETag><Size>2048</Size><StorageClass>STANDARD</StorageClass></Contents></ListBucketResult>', {}, "", "application/xml"), A, None, "listing's LastModified not a date"),
    ("stat_bad_date", "stat", Reply(200, b"a,b\n1,2\n", {"ETag": '"9b2cf535f27731c974343645a3985328"', "Last-Modified": "0"}), A, None, "object's Last-Modified header not a date"),
    ("error_bad_xml", "get", Reply(500, '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>We encountered', _IDS, "", "application/xml"), A, None, "error document cut off"),
    ("short_body", "get", Reply(200, b"region,revenue\nEMEA,1200\n", {"Content-Length": "4096", "Connection": "close", "ETag": '"9b2cf535f27731c974343645a3985328"'}), T, UO, "connection closed before the whole object arrived"),
]  # fmt: skip


def _calls(client: Any, tmp: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the endpoint and keys are the tool's."""
    from minio.commonconfig import Tags

    where = {"bucket": _BUCKET, "key": _KEY}
    content = "region,revenue\nEMEA,1200\n"
    policy = '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["*"]},"Action":["s3:GetObject"],"Resource":["arn:aws:s3:::reports/*"]}]}'
    tags = Tags.new_object_tags()
    tags["team"] = "finance"

    def read(offset: int = 0, length: int = 0) -> bytes:
        response = client.get_object(_BUCKET, _KEY, offset=offset, length=length)
        try:
            return response.read()
        finally:
            response.close()
            response.release_conn()

    def put(**kw: Any) -> Any:
        data = content.encode()
        return client.put_object(_BUCKET, _KEY, io.BytesIO(data), len(data), **kw)

    return {
        "get": ("read_object", where, read),
        "get_range": ("read_object", {**where, "offset": 1048576, "length": 512}, lambda: read(1048576, 512)),
        "put": ("write_object", {**where, "content": content}, put),
        "put_class": (
            "write_object",
            {**where, "content": content, "storage_class": "COLDEST"},
            lambda: put(metadata={"x-amz-storage-class": "COLDEST"}),
        ),
        "stat": ("object_info", where, lambda: client.stat_object(_BUCKET, _KEY).last_modified),
        "list": ("list_objects", {"bucket": _BUCKET, "prefix": "q3/"}, lambda: [o.last_modified for o in client.list_objects(_BUCKET, prefix="q3/")]),
        "make": ("create_bucket", {"bucket": _BUCKET}, lambda: client.make_bucket(_BUCKET)),
        "remove_bucket": ("delete_bucket", {"bucket": _BUCKET}, lambda: client.remove_bucket(_BUCKET)),
        "remove": ("delete_object", where, lambda: client.remove_object(_BUCKET, _KEY)),
        "get_policy": ("get_bucket_policy", {"bucket": _BUCKET}, lambda: client.get_bucket_policy(_BUCKET)),
        "set_policy": ("set_bucket_policy", {"bucket": _BUCKET, "policy": policy}, lambda: client.set_bucket_policy(_BUCKET, policy)),
        "set_tags": ("tag_object", {**where, "tags": {"team": "finance"}}, lambda: client.set_object_tags(_BUCKET, _KEY, tags)),
        "lock_config": ("get_object_lock", {"bucket": _BUCKET}, lambda: client.get_object_lock_config(_BUCKET)),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    import urllib3
    from minio import Minio
    from minio.commonconfig import Tags

    def client(endpoint: str, retries: Any = None) -> Any:
        http = urllib3.PoolManager(
            timeout=urllib3.Timeout(connect=_saas.TIMEOUT, read=_saas.TIMEOUT),
            retries=retries or urllib3.Retry(total=0, raise_on_status=False),
        )
        return Minio(endpoint, _ACCESS, _SECRET, secure=False, region="us-east-1", http_client=http)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"minio-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "S3PORT", "MinIO") as svc:
        endpoint = f"127.0.0.1:{svc.port}"
        calls = _calls(client(endpoint), ctx.tmp)
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
            where = {"refused": f"127.0.0.1:{ctx.dead}", "dns": "s3.unreachable-host.invalid"}.get(
                key, endpoint
            )
            tool, args, fn = _calls(client(where), ctx.tmp)["put"]
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)

        # the SDK's default retry policy (urllib3 Retry on 500/502/503/504), without back-off
        retrying = _calls(
            client(endpoint, urllib3.Retry(total=2, backoff_factor=0, status_forcelist=[500, 502, 503, 504])),
            ctx.tmp,
        )
        for key, call, reply, kind, outcome, cause in [
            ("slow_down-retried", "put", _s3(503, "SlowDown", "Please reduce your request rate."), T, NE, "request rate too high (after the SDK's retries)"),
            ("internal_error-retried", "put", _s3(500, "InternalError", "We encountered an internal error. Please try again."), T, UO, "internal error (after the SDK's retries)"),
            ("unavailable-retried", "list", _s3(503, "ServiceUnavailable", "Service is unable to handle request.", _B), T, NE, "service unavailable (after the SDK's retries)"),
        ]:  # fmt: skip
            tool, args, fn = retrying[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, _saas.catch(fn), tool, args)

        # downloads to local files: a directory the tool may not write, a file size limit
        c = client(endpoint)
        data = b"region,revenue\n" + b"EMEA,1200\n" * 400
        svc.reply(
            Reply(
                200,
                data,
                {
                    "ETag": '"9b2cf535f27731c974343645a3985328"',
                    "Last-Modified": "Tue, 01 Dec 2026 00:00:00 GMT",
                },
            )
        )
        locked = _files.read_only_dir(ctx.tmp / "minio-readonly")
        target = str(locked / "summary.csv")
        yield case(
            "fget-read-only-dir",
            "download into a directory the tool's user may not write",
            U,
            None,
            _files.denied(lambda: c.fget_object(_BUCKET, _KEY, target)),
            "download_object",
            {"bucket": _BUCKET, "key": _KEY, "path": target},
        )
        big = str(ctx.tmp / "minio-big.csv")
        with _files.file_size_limit(1024):
            exc = _saas.catch(lambda: c.fget_object(_BUCKET, _KEY, big))
        yield case(
            "fget-file-too-large",
            "download past the process's file size limit",
            U,
            None,
            exc,
            "download_object",
            {"bucket": _BUCKET, "key": _KEY, "path": big},
        )

    # the SDK's own checks and the local files the model named (nothing is sent)
    c = client(f"127.0.0.1:{ctx.dead}")
    where = {"bucket": _BUCKET, "key": _KEY}
    folder = ctx.tmp / "minio-exports"
    folder.mkdir()
    secret = ctx.tmp / "minio-private.csv"
    secret.write_text("a,b\n")
    secret.chmod(0o600)
    missing = str(ctx.tmp / "exports" / "q3-summary.csv")

    def tags(n: int, key: str = "team", value: str = "finance") -> Any:
        t = Tags.new_object_tags()
        for i in range(n):
            t[f"{key}{i}" if n > 1 else key] = value
        return t

    # (key, cause, kind, tool, the model's arguments, the call)
    local: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("bucket-uppercase", "bucket name with capitals and an underscore", F, "create_bucket", {"bucket": "Reports_2026"}, lambda: c.make_bucket("Reports_2026")),
        ("bucket-too-short", "bucket name of two characters", F, "create_bucket", {"bucket": "q3"}, lambda: c.make_bucket("q3")),
        ("bucket-ip", "bucket name formatted as an IP address", F, "create_bucket", {"bucket": "192.168.10.5"}, lambda: c.make_bucket("192.168.10.5")),
        ("bucket-double-dot", "bucket name with '..'", F, "read_object", {"bucket": "reports..2026", "key": _KEY}, lambda: c.get_object("reports..2026", _KEY)),
        ("bucket-s3-url", "an s3:// URL given as the bucket name", F, "read_object", {"bucket": "s3://reports-2026", "key": _KEY}, lambda: c.get_object("s3://reports-2026", _KEY)),
        ("key-empty", "empty object key", F, "read_object", {"bucket": _BUCKET, "key": ""}, lambda: c.get_object(_BUCKET, "")),
        ("key-dot-dot", "object key with a '..' segment", F, "write_object", {"bucket": _BUCKET, "key": "../etc/summary.csv", "content": "a"}, lambda: c.put_object(_BUCKET, "../etc/summary.csv", io.BytesIO(b"a"), 1)),
        ("presign-30-days", "presigned URL expiry of 30 days (limit 7)", F, "share_object", {**where, "expires_days": 30}, lambda: c.presigned_get_object(_BUCKET, _KEY, expires=timedelta(days=30))),
        ("presign-zero", "presigned URL expiry of 0 seconds", F, "share_object", {**where, "expires_seconds": 0}, lambda: c.presigned_get_object(_BUCKET, _KEY, expires=timedelta(seconds=0))),
        ("tags-too-many", "eleven tags on an object (limit 10)", F, "tag_object", {**where, "tags": {f"team{i}": "finance" for i in range(11)}}, lambda: tags(11)),
        ("tag-key-too-long", "tag key over 128 characters", F, "tag_object", {**where, "tags": {"k" * 129: "finance"}}, lambda: tags(1, "k" * 129)),
        ("tag-value-too-long", "tag value over 256 characters", F, "tag_object", {**where, "tags": {"team": "v" * 257}}, lambda: tags(1, value="v" * 257)),
        ("put-unknown-length", "upload of unknown length without a part size", F, "write_object", {**where, "content": "a", "length": -1}, lambda: c.put_object(_BUCKET, _KEY, io.BytesIO(b"a"), -1)),
        ("put-part-size-small", "part size under 5 MiB", F, "write_object", {**where, "content": "a", "part_size": 1024}, lambda: c.put_object(_BUCKET, _KEY, io.BytesIO(b"a"), -1, part_size=1024)),
        ("fput-missing-file", "local file the model named does not exist", F, "upload_file", {**where, "path": missing}, lambda: c.fput_object(_BUCKET, _KEY, missing)),
        ("fput-directory", "local path the model named is a directory", F, "upload_file", {**where, "path": str(folder)}, lambda: c.fput_object(_BUCKET, _KEY, str(folder))),
        ("fget-into-directory", "download path the model named is a directory", F, "download_object", {**where, "path": str(folder)}, lambda: c.fget_object(_BUCKET, _KEY, str(folder))),
        ("policy-not-text", "policy given as an object, not JSON text", F, "set_bucket_policy", {"bucket": _BUCKET, "policy": {"Version": "2012-10-17"}}, lambda: c.set_bucket_policy(_BUCKET, {"Version": "2012-10-17"})),
    ]  # fmt: skip
    for key, cause, kind, tool, args, fn in local:
        try:
            exc = _saas.catch(fn)
        except AssertionError:
            raise AssertionError(key) from None
        yield case(key, cause, kind, None, exc, tool, args)
    yield case(
        "fput-unreadable-file",
        "local file the tool's user may not read",
        U,
        None,
        _files.denied(lambda: c.fput_object(_BUCKET, _KEY, str(secret))),
        "upload_file",
        {**where, "path": str(secret)},
    )

    # a broken installation: the SDK's dependencies missing
    for dep, present in (("urllib3", ["certifi"]), ("certifi", ["urllib3"])):
        with _pkgcopy.broken_install(ctx.tmp, ["minio", *present], hide=(dep,)):
            exc = _saas.catch(lambda: __import__("minio"))
        yield case(
            f"install-no-{dep}",
            f"{dep} not installed",
            U,
            None,
            exc,
            "list_objects",
            {"bucket": _BUCKET, "prefix": "q3/"},
        )
