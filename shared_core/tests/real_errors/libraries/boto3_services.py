# ruff: noqa: B023 - each lambda is called at once
"""boto3 (services beyond the live corpus' DynamoDB): S3's REST-XML errors, Lambda's and SES
v2's REST-JSON errors as botocore's ``ClientError`` (and the modelled subclasses boto3
exposes), plus botocore's transport failures, through ``boto3.client(...,
endpoint_url=...)`` pointed at a local stand-in of the service endpoints.

Bodies and statuses as AWS documents them: S3 error responses and the list of error codes
(docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html), Lambda Invoke's errors
(docs.aws.amazon.com/lambda/latest/api/API_Invoke.html#API_Invoke_Errors), SES v2
SendEmail's errors (docs.aws.amazon.com/ses/latest/APIReference-V2/API_SendEmail.html#
API_SendEmail_Errors) and the REST-JSON error shape (``X-Amzn-ErrorType`` header, JSON
``message``). Retries are off (``total_max_attempts=1``) but for one case.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "boto3"
REQUIRES = ["boto3>=1.34,<2"]

_S3 = "Amazon S3 error responses (docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html)"
_LAMBDA = "Lambda Invoke errors (docs.aws.amazon.com/lambda/latest/api/API_Invoke.html#API_Invoke_Errors)"
_SES = "SES v2 SendEmail errors (docs.aws.amazon.com/ses/latest/APIReference-V2/API_SendEmail.html)"
_RID = "4442587FB7D0A2F9"
_HOST = "nz2dNLrCoBhfF1lGkMDqBJR4A1eHlhJzP2EGHmq2ZKqVzKvvM0nXQTmUMyWOv0z7/vN7QgOnqSI="


def _s3(status: int, code: str, message: str, **extra: str) -> Reply:
    fields = "".join(f"<{k}>{v}</{k}>" for k, v in extra.items())
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<Error><Code>{code}</Code><Message>{message}</Message>{fields}"
        f"<RequestId>{_RID}</RequestId><HostId>{_HOST}</HostId></Error>"
    )
    return Reply(status, body, {"x-amz-request-id": _RID, "x-amz-id-2": _HOST}, _S3, "application/xml")


def _rest_json(status: int, code: str, message: str, source: str, **extra: Any) -> Reply:
    return Reply(
        status,
        {"Type": "User" if status < 500 else "Service", "message": message, **extra},
        {
            "x-amzn-RequestId": "6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
            "X-Amzn-ErrorType": f"{code}:http://internal.amazon.com/coral/com.amazonaws.awsmessaging/",
        },
        source,
        "application/json",
    )


_B = "acme-reports"
_SCENARIOS: list[tuple[str, str, Reply, str, str | None, str]] = [
    (
        "s3_no_such_key",
        "get_object",
        _s3(404, "NoSuchKey", "The specified key does not exist.", Key="2026/q3.csv"),
        A,
        None,
        "object key not found",
    ),
    (
        "s3_no_such_bucket",
        "put_object",
        _s3(404, "NoSuchBucket", "The specified bucket does not exist", BucketName=_B),
        A,
        None,
        "bucket not found",
    ),
    (
        "s3_no_such_upload",
        "complete_upload",
        _s3(
            404,
            "NoSuchUpload",
            "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.",
            UploadId="VXBsb2FkIElE",
        ),
        A,
        None,
        "multipart upload not found",
    ),
    (
        "s3_no_such_lifecycle",
        "get_lifecycle",
        _s3(404, "NoSuchLifecycleConfiguration", "The lifecycle configuration does not exist", BucketName=_B),
        A,
        None,
        "bucket has no lifecycle configuration",
    ),
    (
        "s3_bucket_exists",
        "create_bucket",
        _s3(
            409,
            "BucketAlreadyExists",
            "The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.",
            BucketName=_B,
        ),
        A,
        None,
        "bucket name taken by another account",
    ),
    (
        "s3_bucket_owned",
        "create_bucket",
        _s3(
            409,
            "BucketAlreadyOwnedByYou",
            "Your previous request to create the named bucket succeeded and you already own it.",
            BucketName=_B,
        ),
        A,
        None,
        "bucket already created by the caller",
    ),
    (
        "s3_bucket_not_empty",
        "delete_bucket",
        _s3(409, "BucketNotEmpty", "The bucket you tried to delete is not empty", BucketName=_B),
        A,
        None,
        "bucket not empty",
    ),
    (
        "s3_precondition",
        "put_object_if",
        _s3(
            412,
            "PreconditionFailed",
            "At least one of the pre-conditions you specified did not hold",
            Condition="If-None-Match",
        ),
        A,
        None,
        "conditional write: the object already exists",
    ),
    (
        "s3_conditional_conflict",
        "put_object_if",
        _s3(
            409,
            "ConditionalRequestConflict",
            "A conflicting operation occurred. If using PutObject you can retry the request. If using multipart upload you should initiate another CreateMultipartUpload request and re-upload each part.",
            Key="2026/q3.csv",
        ),
        A,
        None,
        "concurrent conditional write conflict",
    ),
    (
        "s3_operation_aborted",
        "put_object",
        _s3(
            409,
            "OperationAborted",
            "A conflicting conditional operation is currently in progress against this resource. Try again.",
        ),
        T,
        NE,
        "conflicting operation in progress (try again)",
    ),
    (
        "s3_access_denied",
        "get_object",
        _s3(
            403,
            "AccessDenied",
            'User: arn:aws:iam::123456789012:user/agent is not authorized to perform: s3:GetObject on resource: "arn:aws:s3:::acme-reports/2026/q3.csv" because no identity-based policy allows the s3:GetObject action',
        ),
        U,
        None,
        "IAM policy denies the action",
    ),
    (
        "s3_all_access_disabled",
        "get_object",
        _s3(
            403,
            "AllAccessDisabled",
            "All access to this Amazon S3 resource has been disabled. Contact AWS Support for further assistance.",
        ),
        U,
        None,
        "all access to the resource disabled",
    ),
    (
        "s3_account_problem",
        "put_object",
        _s3(
            403,
            "AccountProblem",
            "There is a problem with your AWS account that prevents the operation from completing successfully. Contact AWS Support for further assistance.",
        ),
        U,
        None,
        "problem with the AWS account",
    ),
    (
        "s3_invalid_access_key",
        "list_objects",
        _s3(
            403,
            "InvalidAccessKeyId",
            "The AWS access key ID you provided does not exist in our records.",
            AWSAccessKeyId="AKIAIOSFODNN7EXAMPLE",
        ),
        U,
        None,
        "access key ID unknown",
    ),
    (
        "s3_signature",
        "list_objects",
        _s3(
            403,
            "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
            AWSAccessKeyId="AKIAIOSFODNN7EXAMPLE",
        ),
        U,
        None,
        "secret key wrong (signature mismatch)",
    ),
    (
        "s3_expired_token",
        "list_objects",
        _s3(400, "ExpiredToken", "The provided token has expired."),
        U,
        None,
        "session token expired",
    ),
    (
        "s3_invalid_object_state",
        "get_object",
        _s3(
            403,
            "InvalidObjectState",
            "The operation is not valid for the object's storage class",
            StorageClass="GLACIER",
        ),
        U,
        None,
        "object archived in Glacier (restore first)",
    ),
    (
        "s3_too_many_buckets",
        "create_bucket",
        _s3(400, "TooManyBuckets", "You have attempted to create more buckets than allowed"),
        U,
        None,
        "account bucket limit reached",
    ),
    (
        "s3_invalid_bucket_name",
        "create_bucket",
        _s3(400, "InvalidBucketName", "The specified bucket is not valid.", BucketName="Acme_Reports"),
        F,
        None,
        "bucket name invalid",
    ),
    (
        "s3_invalid_argument",
        "put_object",
        _s3(
            400,
            "InvalidArgument",
            "x-amz-server-side-encryption header is not supported for this operation.",
            ArgumentName="x-amz-server-side-encryption",
            ArgumentValue="aws:kmss",
        ),
        F,
        None,
        "argument value invalid",
    ),
    (
        "s3_entity_too_large",
        "put_object",
        _s3(
            400,
            "EntityTooLarge",
            "Your proposed upload exceeds the maximum allowed size",
            ProposedSize="5368709121",
            MaxSizeAllowed="5368709120",
        ),
        F,
        None,
        "single PUT above 5 GB",
    ),
    (
        "s3_entity_too_small",
        "complete_upload",
        _s3(
            400,
            "EntityTooSmall",
            "Your proposed upload is smaller than the minimum allowed object size.",
            ProposedSize="1024",
            MinSizeAllowed="5242880",
            PartNumber="1",
        ),
        F,
        None,
        "multipart part below 5 MB",
    ),
    (
        "s3_key_too_long",
        "put_object",
        _s3(400, "KeyTooLongError", "Your key is too long", Size="1100", MaxSizeAllowed="1024"),
        F,
        None,
        "object key too long",
    ),
    (
        "s3_malformed_xml",
        "put_lifecycle",
        _s3(
            400,
            "MalformedXML",
            "The XML you provided was not well-formed or did not validate against our published schema",
        ),
        F,
        None,
        "configuration XML invalid",
    ),
    (
        "s3_invalid_range",
        "get_object_range",
        _s3(
            416,
            "InvalidRange",
            "The requested range is not satisfiable",
            RangeRequested="bytes=900-999",
            ActualObjectSize="512",
        ),
        F,
        None,
        "byte range beyond the object",
    ),
    (
        "s3_invalid_request",
        "put_object",
        _s3(400, "InvalidRequest", "Missing required header for this request: Content-MD5"),
        F,
        None,
        "required header missing",
    ),
    (
        "s3_request_timeout",
        "put_object",
        _s3(
            400,
            "RequestTimeout",
            "Your socket connection to the server was not read from or written to within the timeout period. Idle connections will be closed.",
        ),
        T,
        UO,
        "S3 timed out reading the upload",
    ),
    (
        "s3_slow_down",
        "put_object",
        _s3(503, "SlowDown", "Please reduce your request rate."),
        T,
        NE,
        "request rate too high (SlowDown)",
    ),
    (
        "s3_service_unavailable",
        "get_object",
        _s3(503, "ServiceUnavailable", "Service is unable to handle request."),
        T,
        NE,
        "service unavailable",
    ),
    (
        "s3_internal",
        "put_object",
        _s3(500, "InternalError", "We encountered an internal error. Please try again."),
        T,
        UO,
        "internal error",
    ),
    (
        "s3_head_404",
        "head_object",
        Reply(404, "", {"x-amz-request-id": _RID}, "HEAD answers carry no body (ErrorResponses.html)"),
        A,
        None,
        "object not found (HEAD, no body)",
    ),
    (
        "s3_head_403",
        "head_object",
        Reply(403, "", {"x-amz-request-id": _RID}, "HEAD answers carry no body (ErrorResponses.html)"),
        U,
        None,
        "access denied (HEAD, no body)",
    ),
    (
        "lambda_not_found",
        "invoke",
        _rest_json(
            404,
            "ResourceNotFoundException",
            "Function not found: arn:aws:lambda:us-east-1:123456789012:function:resize-image",
            _LAMBDA,
        ),
        A,
        None,
        "function not found",
    ),
    (
        "lambda_concurrency",
        "invoke",
        _rest_json(
            429,
            "TooManyRequestsException",
            "Rate Exceeded.",
            _LAMBDA,
            Reason="ReservedFunctionConcurrentInvocationLimitExceeded",
            retryAfterSeconds="1",
        ),
        T,
        NE,
        "reserved concurrency exhausted",
    ),
    (
        "lambda_invalid_param",
        "invoke",
        _rest_json(
            400,
            "InvalidRequestContentException",
            "Could not parse request body into json: Could not parse payload into json: Unexpected character ('o' (code 111)): was expecting null, true, false",
            _LAMBDA,
        ),
        F,
        None,
        "payload not JSON",
    ),
    (
        "lambda_too_large",
        "invoke",
        _rest_json(
            413,
            "RequestTooLargeException",
            "Request must be smaller than 6291456 bytes for the InvokeFunction operation",
            _LAMBDA,
        ),
        F,
        None,
        "payload above 6 MB",
    ),
    (
        "lambda_conflict",
        "update_code",
        _rest_json(
            409,
            "ResourceConflictException",
            "The operation cannot be performed at this time. An update is in progress for resource: arn:aws:lambda:us-east-1:123456789012:function:resize-image",
            _LAMBDA,
        ),
        A,
        None,
        "function update in progress",
    ),
    (
        "lambda_code_storage",
        "update_code",
        _rest_json(400, "CodeStorageExceededException", "Code storage limit exceeded.", _LAMBDA),
        U,
        None,
        "account code storage full",
    ),
    (
        "lambda_service",
        "invoke",
        _rest_json(500, "ServiceException", "The AWS Lambda service encountered an internal error.", _LAMBDA),
        T,
        UO,
        "Lambda internal error",
    ),
    (
        "lambda_not_ready",
        "invoke",
        _rest_json(
            502,
            "ResourceNotReadyException",
            "The function is currently in the following state: Pending",
            _LAMBDA,
        ),
        T,
        NE,
        "function still being created",
    ),
    (
        "lambda_kms_denied",
        "invoke",
        _rest_json(
            502,
            "KMSAccessDeniedException",
            "Lambda was unable to decrypt the environment variables because KMS access was denied. Please check the function's KMS key settings. KMS Exception: AccessDeniedException",
            _LAMBDA,
        ),
        U,
        None,
        "function cannot decrypt its environment (KMS)",
    ),
    (
        "lambda_ec2_throttled",
        "invoke",
        _rest_json(
            502,
            "EC2ThrottledException",
            "Lambda was throttled by Amazon EC2 during Lambda function initialization using the execution role provided for the function.",
            _LAMBDA,
        ),
        T,
        NE,
        "EC2 throttled the function's initialization",
    ),
    (
        "lambda_access_denied",
        "invoke",
        _rest_json(
            403,
            "AccessDeniedException",
            "User: arn:aws:iam::123456789012:user/agent is not authorized to perform: lambda:InvokeFunction on resource: arn:aws:lambda:us-east-1:123456789012:function:resize-image",
            _LAMBDA,
        ),
        U,
        None,
        "not authorized to invoke",
    ),
    (
        "ses_not_verified",
        "send_email",
        _rest_json(
            400,
            "MessageRejected",
            "Email address is not verified. The following identities failed the check in region US-EAST-1: noreply@acme.example",
            _SES,
        ),
        U,
        None,
        "sender identity not verified",
    ),
    (
        "ses_daily_quota",
        "send_email",
        _rest_json(400, "LimitExceededException", "Daily message quota exceeded.", _SES),
        U,
        None,
        "daily sending quota exhausted",
    ),
    (
        "ses_rate",
        "send_email",
        _rest_json(429, "TooManyRequestsException", "Maximum sending rate exceeded.", _SES),
        T,
        NE,
        "sending rate exceeded",
    ),
    (
        "ses_sending_paused",
        "send_email",
        _rest_json(400, "SendingPausedException", "Sending is paused for this account.", _SES),
        U,
        None,
        "account sending paused",
    ),
    (
        "ses_account_suspended",
        "send_email",
        _rest_json(
            400, "AccountSuspendedException", "The account has been suspended from sending email.", _SES
        ),
        U,
        None,
        "account suspended",
    ),
    (
        "ses_mail_from",
        "send_email",
        _rest_json(
            400,
            "MailFromDomainNotVerifiedException",
            "The MAIL FROM domain bounce.acme.example is not verified.",
            _SES,
        ),
        U,
        None,
        "MAIL FROM domain not verified",
    ),
    (
        "ses_bad_request",
        "send_email",
        _rest_json(400, "BadRequestException", "Missing final '@domain'", _SES),
        F,
        None,
        "recipient address malformed",
    ),
    (
        "ses_not_found",
        "send_email",
        _rest_json(404, "NotFoundException", "Configuration set <marketing> does not exist.", _SES),
        A,
        None,
        "configuration set not found",
    ),
]


_OBJ = {"bucket": _B, "key": "2026/q3.csv"}
_PUT = {**_OBJ, "body": "a,b\n1,2\n"}
_INVOKE = {"function_name": "resize-image", "payload": '{"key": "a.png"}'}
_EMAIL = {"from": "noreply@acme.example", "to": ["jane@example.com"], "subject": "Hi", "body": "Hello"}

# What the service's answer says the model sent (the stand-in does not read the request,
# nor does the exception show it): the arguments of those calls.
_SENT: dict[str, dict[str, Any]] = {
    "s3_invalid_bucket_name": {"bucket": "Acme_Reports"},
    "s3_invalid_argument": {**_PUT, "server_side_encryption": "aws:kmss"},
    "s3_key_too_long": {**_PUT, "key": "2026/" + "x" * 1091 + ".csv"},  # 1,100 bytes
    "lambda_invalid_param": {**_INVOKE, "payload": "open a.png"},
    "ses_bad_request": {**_EMAIL, "to": ["jane"]},
    "ses_not_found": {**_EMAIL, "configuration_set": "marketing"},
}


def cases(ctx: Any) -> Iterator[generate.Case]:
    import boto3
    from botocore.config import Config

    def clients(base: str, attempts: int = 1) -> dict[str, Any]:
        cfg = Config(
            retries={"total_max_attempts": attempts, "mode": "standard"},
            connect_timeout=_saas.TIMEOUT,
            read_timeout=_saas.TIMEOUT,
            s3={"addressing_style": "path"},
        )
        kw = {
            "endpoint_url": base,
            "region_name": "us-east-1",
            "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
            "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "config": cfg,
        }
        return {name: boto3.client(name, **kw) for name in ("s3", "lambda", "sesv2")}

    # call -> (tool, the model's arguments, the call); the endpoint, region and keys are the
    # tool's configuration
    calls: dict[str, tuple[str, dict[str, Any], Any]] = {
        "get_object": ("read_object", _OBJ, lambda c: c["s3"].get_object(Bucket=_B, Key="2026/q3.csv")),
        "get_object_range": (
            "read_object",
            {**_OBJ, "range": "bytes=900-999"},
            lambda c: c["s3"].get_object(Bucket=_B, Key="2026/q3.csv", Range="bytes=900-999"),
        ),
        "head_object": ("stat_object", _OBJ, lambda c: c["s3"].head_object(Bucket=_B, Key="2026/q3.csv")),
        "put_object": (
            "write_object",
            _PUT,
            lambda c: c["s3"].put_object(Bucket=_B, Key="2026/q3.csv", Body=b"a,b\n1,2\n"),
        ),
        "put_object_if": (
            "write_object",
            {**_OBJ, "body": "a,b\n", "if_none_match": "*"},
            lambda c: c["s3"].put_object(Bucket=_B, Key="2026/q3.csv", Body=b"a,b\n", IfNoneMatch="*"),
        ),
        "complete_upload": (
            "finish_upload",
            {
                "bucket": _B,
                "key": "big.bin",
                "upload_id": "VXBsb2FkIElE",
                "parts": [{"ETag": '"a1b2"', "PartNumber": 1}],
            },
            lambda c: c["s3"].complete_multipart_upload(
                Bucket=_B,
                Key="big.bin",
                UploadId="VXBsb2FkIElE",
                MultipartUpload={"Parts": [{"ETag": '"a1b2"', "PartNumber": 1}]},
            ),
        ),
        "get_lifecycle": (
            "get_lifecycle",
            {"bucket": _B},
            lambda c: c["s3"].get_bucket_lifecycle_configuration(Bucket=_B),
        ),
        "put_lifecycle": (
            "set_lifecycle",
            {
                "bucket": _B,
                "rules": [
                    {
                        "ID": "expire",
                        "Status": "Enabled",
                        "Filter": {"Prefix": "tmp/"},
                        "Expiration": {"Days": 7},
                    }
                ],
            },
            lambda c: c["s3"].put_bucket_lifecycle_configuration(
                Bucket=_B,
                LifecycleConfiguration={
                    "Rules": [
                        {
                            "ID": "expire",
                            "Status": "Enabled",
                            "Filter": {"Prefix": "tmp/"},
                            "Expiration": {"Days": 7},
                        }
                    ]
                },
            ),
        ),
        "create_bucket": ("create_bucket", {"bucket": _B}, lambda c: c["s3"].create_bucket(Bucket=_B)),
        "delete_bucket": ("delete_bucket", {"bucket": _B}, lambda c: c["s3"].delete_bucket(Bucket=_B)),
        "list_objects": (
            "list_objects",
            {"bucket": _B, "prefix": "2026/"},
            lambda c: c["s3"].list_objects_v2(Bucket=_B, Prefix="2026/"),
        ),
        "invoke": (
            "invoke_function",
            _INVOKE,
            lambda c: c["lambda"].invoke(FunctionName="resize-image", Payload=b'{"key": "a.png"}'),
        ),
        "update_code": (
            "deploy_function",
            {"function_name": "resize-image", "s3_bucket": _B, "s3_key": "build/resize.zip"},
            lambda c: c["lambda"].update_function_code(
                FunctionName="resize-image", S3Bucket=_B, S3Key="build/resize.zip"
            ),
        ),
        "send_email": (
            "send_email",
            _EMAIL,
            lambda c: c["sesv2"].send_email(
                FromEmailAddress="noreply@acme.example",
                Destination={"ToAddresses": ["jane@example.com"]},
                Content={"Simple": {"Subject": {"Data": "Hi"}, "Body": {"Text": {"Data": "Hello"}}}},
            ),
        ),
    }

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"boto3-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _saas.service(ctx, "AWSPORT", "AmazonS3") as svc:
        c = clients(svc.base)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            try:
                exc = _saas.catch(lambda: fn(c))
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, _SENT.get(key, args))
        for service, call in (("s3", "get_object"), ("lambda", "invoke")):
            tool, args, fn = calls[call]
            for key, kind, outcome, cause in _saas.TRANSPORT:
                svc.reply(key)
                base = {"refused": _saas.dead_base(ctx), "dns": "https://aws.unreachable-host.invalid"}.get(
                    key, svc.base
                )
                cb = clients(base)
                yield case(f"{service}-{key}", cause, kind, outcome, _saas.catch(lambda: fn(cb)), tool, args)
        # botocore's own retry (standard mode, 2 attempts) of S3's SlowDown
        svc.reply(_s3(503, "SlowDown", "Please reduce your request rate."))
        retrying = clients(svc.base, attempts=2)
        exc = _saas.catch(lambda: calls["put_object"][2](retrying))
        cause = "request rate too high (after retries)"
        yield case("s3_slow_down-retried", cause, T, NE, exc, "write_object", _PUT)
        # botocore's own parameter validation (nothing sent)
        exc = _saas.catch(lambda: c["s3"].get_object(Bucket=_B))
        yield case(
            "s3_param_missing",
            "required parameter missing (client-side validation)",
            F,
            None,
            exc,
            "read_object",
            {"bucket": _B},
        )
        exc = _saas.catch(lambda: c["lambda"].invoke(FunctionName=["resize-image"]))
        yield case(
            "lambda_param_type",
            "parameter of the wrong type (client-side validation)",
            F,
            None,
            exc,
            "invoke_function",
            {"function_name": ["resize-image"]},
        )
