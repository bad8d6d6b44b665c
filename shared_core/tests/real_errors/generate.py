# ruff: noqa: B023, SIM115 - each lambda is called at once; files are left to raise
"""The live corpus: failures raised by the real libraries, labelled by the cause triggered.

Each case is triggered through the library's own code (a real request to a 127.0.0.1
server of :mod:`servers`, botocore's ``Stubber``, a real SQLite file, a real PostgreSQL
server where one can be started, real subprocesses and asyncio tasks). The label is the
cause that was set up (``rate limit`` -> transient, turned away; ``read timeout`` ->
transient, unknown outcome; ``quota exhausted`` -> unrecoverable ...), never what toolerr
says. DNS failures use ``*.invalid`` names, which :func:`offline_dns` answers locally with
the resolver's own error (RFC 6761 reserves the name; nothing is sent).

``python generate.py`` rewrites ``live_corpus.jsonl`` (texts with ports and addresses
normalised); the test session regenerates it and compares.
"""

from __future__ import annotations

import asyncio
import builtins
import errno
import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import servers
from servers import GRPC_DETAILS, route

T, F, U, A = "transient", "fixable", "unrecoverable", "ambiguous"
NE, UO = "not_executed", "unknown_outcome"
CORPUS = Path(__file__).parent / "live_corpus.jsonl"
TIMEOUT = 0.3


class ToolFailure(Exception):
    """A tool's own exception, raised from the library's."""


@dataclass
class Case:
    id: str
    library: str
    cause: str
    kind: str
    outcome: str | None
    exc: BaseException
    tool: str = "call_service"
    # The JSON arguments the model wrote in the tool call that failed (values the tool read
    # from a file, a service or its configuration are not in them); None: not recorded.
    arguments: dict[str, Any] | None = None
    # The JSON schema of the tool's parameters as its author declared them to the model (what
    # an adapter or a gateway holds beside the call: a function tool's ``parameters``, an MCP
    # tool's ``inputSchema``); None: not recorded.
    parameters: dict[str, Any] | None = None


def exc_type(exc: BaseException) -> str:
    cls = type(exc)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


# Scenarios whose cause is only in the response body or headers: a plain HTTP client's
# message (``429 Too Many Requests``) does not carry it.
BODY_ONLY = ("rest_429_quota", "goo_quota_day", "oai_insufficient_quota", "rest_github_rate")
# Clients whose exception keeps the body already read (httpx, requests), or whose body
# arrived with the headers and is peeked without being consumed (urllib HTTPError); aiohttp
# ClientResponseError keeps only the headers (no body).
_KEEPS_BODY = ("httpx-", "requests-", "urllib-", "group-quota", "chain-quota")


def evidence(case: Case) -> str:
    """Where the cause of a case can be read, by construction: ``both`` (the exception and
    its text), ``exception`` (only the exception object: a body, a header, a chained cause,
    group members, a message that is empty), ``none`` (neither: the same exception and text
    come from different causes)."""
    cid = case.id
    if cid in ("json-decode", "json-decode-empty"):
        return "none"  # the same JSONDecodeError and text as a server's HTML page
    if any(cid.endswith(name) for name in BODY_ONLY):
        if cid.endswith("rest_github_rate") or cid.startswith(_KEEPS_BODY):
            return "exception"
        return "none"  # aiohttp drops the body
    if cid.startswith(("chain-", "group-")) or cid == "aiohttp-bad-scheme" or not str(case.exc):
        return "exception"
    return "both"


def framework_texts(case: Case) -> dict[str, str]:
    """What each framework puts in the tool message for this exception (the templates the
    core's client rules name)."""
    exc = case.exc
    return {
        # langgraph.prebuilt.tool_node TOOL_CALL_ERROR_TEMPLATE
        "langchain": f"Error: {exc!r}\n Please fix your mistakes.",
        # agents.tool default_tool_error_function
        "openai-agents": f"An error occurred while running the tool. Please try again. Error: {exc}",
        # mcp.server.fastmcp Tool.run -> ToolError
        "mcp": f"Error executing tool {case.tool}: {exc}",
    }


def _catch(fn: Callable[[], Any]) -> BaseException:
    try:
        fn()
    except BaseException as exc:
        return exc
    raise AssertionError(f"{fn} raised nothing")


async def _acatch(coro: Any) -> BaseException:
    try:
        await coro
    except BaseException as exc:
        return exc
    raise AssertionError("raised nothing")


DNS_ANSWERED: list[str] = []  # the .invalid names answered locally (checked by the tests)


@contextmanager
def offline_dns() -> Iterator[None]:
    """``*.invalid`` names fail with the resolver's own NXDOMAIN error, without a query."""
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host or "")
        if name.rstrip(".").endswith(".invalid"):
            DNS_ANSWERED.append(name)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
    try:
        yield
    finally:
        socket.getaddrinfo = real  # type: ignore[assignment]


# Labels of the HTTP scenarios, from the cause each one stands for.
HTTP_LABELS: dict[str, tuple[str, str | None, str]] = {
    "oai_rate_limit": (T, NE, "rate limit (requests per minute)"),
    "oai_tokens_rate_limit": (T, NE, "rate limit (tokens per minute)"),
    "oai_insufficient_quota": (U, None, "quota exhausted (429 insufficient_quota)"),
    "oai_billing_hard_limit": (U, None, "billing hard limit reached"),
    "oai_invalid_api_key": (U, None, "invalid API key"),
    "oai_no_org": (U, None, "account without organisation"),
    "oai_org_disabled": (U, None, "organisation disabled"),
    "oai_region": (U, None, "region not supported"),
    "oai_model_access": (U, None, "project has no access to the model"),
    "oai_bad_param": (F, None, "invalid parameter value"),
    "oai_context_length": (F, None, "input too long for the model"),
    "oai_server_error": (T, UO, "server error after the request was sent"),
    "oai_overloaded": (T, NE, "engine overloaded (503)"),
    "ant_overloaded": (T, NE, "overloaded_error (529)"),
    "ant_rate_limit": (T, NE, "rate_limit_error"),
    "ant_auth": (U, None, "authentication_error"),
    "ant_permission": (U, None, "permission_error"),
    "ant_credit": (U, None, "credit balance too low"),
    "ant_spend_limit": (U, None, "usage limit reached until a date"),
    "ant_bad_request": (F, None, "missing request field"),
    "ant_too_large": (F, None, "request too large"),
    "ant_not_found": (A, None, "model not found (is the name the caller's?)"),
    "ant_api_error": (T, UO, "api_error (500)"),
    "goo_quota_day": (U, None, "daily quota exhausted"),
    "goo_rate": (T, NE, "resource exhausted (rate)"),
    "goo_billing": (U, None, "billing disabled"),
    "goo_api_key": (U, None, "API key not valid (sent as 400 INVALID_ARGUMENT)"),
    "goo_invalid": (F, None, "invalid argument value"),
    "goo_unauth": (U, None, "invalid credentials"),
    "goo_not_found": (A, None, "entity not found"),
    "goo_unavailable": (T, NE, "service unavailable (503)"),
    "goo_internal": (T, UO, "internal error (500)"),
    "goo_deadline": (T, UO, "deadline exceeded (504)"),
    "rest_400": (F, None, "invalid argument format"),
    "rest_401": (U, None, "bad credentials"),
    "rest_403": (U, None, "forbidden"),
    "rest_github_rate": (T, NE, "rate limit sent as 403"),
    "rest_404": (A, None, "not found"),
    "rest_408": (T, UO, "request timeout (408)"),
    "rest_409": (A, None, "conflict"),
    "rest_422": (F, None, "request validation failed"),
    "rest_429": (T, NE, "too many requests"),
    "rest_429_quota": (U, None, "quota exhausted (429 with insufficient_quota body)"),
    "rest_500": (T, UO, "internal server error"),
    "rest_502": (T, UO, "bad gateway"),
    "rest_503": (T, NE, "service unavailable"),
    "rest_504": (T, UO, "gateway timeout"),
}
AWS_LABELS: dict[str, tuple[str, str | None]] = {
    "ThrottlingException": (T, NE),
    "ProvisionedThroughputExceededException": (T, NE),
    "ResourceNotFoundException": (A, None),
    "ValidationException": (F, None),
    "AccessDeniedException": (U, None),
    "UnrecognizedClientException": (U, None),
    "ExpiredTokenException": (U, None),
    "ConditionalCheckFailedException": (A, None),
    "RequestLimitExceeded": (T, NE),
    "InternalServerError": (T, UO),
    "ServiceUnavailable": (T, NE),
}
REST = [name for name in HTTP_LABELS if name.startswith("rest_")]
GENERIC_HTTP = [*REST, "goo_quota_day", "goo_unavailable", "oai_insufficient_quota"]


# --- plain HTTP clients --------------------------------------------------------------------


def _transport_scenarios(port: int, dead: int) -> list[tuple[str, str, str, str | None, str]]:
    """(name, url, kind, outcome, cause) of the connection-level failures."""
    base = f"http://127.0.0.1:{port}/s"
    return [
        ("refused", f"http://127.0.0.1:{dead}/v1/items", T, NE, "connection refused"),
        ("dns", "http://api.nonexistent-host.invalid/v1/items", T, NE, "DNS name does not resolve"),
        ("read_timeout", f"{base}/{route('hang')}", T, UO, "read timeout after the request was sent"),
        ("reset", f"{base}/{route('reset')}", T, UO, "connection reset after the request was sent"),
        ("closed", f"{base}/{route('close')}", T, UO, "server closed the connection without answering"),
    ]


def httpx_cases(port: int, dead: int) -> Iterator[Case]:
    import httpx

    base = f"http://127.0.0.1:{port}/s"
    with httpx.Client(timeout=TIMEOUT) as client:
        for name in GENERIC_HTTP:
            kind, outcome, cause = HTTP_LABELS[name]
            exc = _catch(lambda: client.get(f"{base}/{route(name)}/v1/items").raise_for_status())
            yield Case(f"httpx-{name}", "httpx", cause, kind, outcome, exc, "fetch")
        for name, url, kind, outcome, cause in _transport_scenarios(port, dead):
            exc = _catch(lambda: client.post(url, json={"q": 1}))
            yield Case(f"httpx-{name}", "httpx", cause, kind, outcome, exc, "fetch")
        exc = _catch(lambda: client.get("ftp://127.0.0.1/file"))
        yield Case("httpx-bad-scheme", "httpx", "URL with an unsupported scheme", F, None, exc, "fetch")
        exc = _catch(lambda: client.get("http://"))
        yield Case("httpx-empty-host", "httpx", "URL without a host", F, None, exc, "fetch")
        exc = _catch(lambda: client.get(f"{base}/{route('rest_html')}").json())
        yield Case(
            "httpx-html-not-json",
            "httpx",
            "the service answered HTML where JSON was expected",
            A,
            None,
            exc,
            "fetch",
        )

    async def run_async() -> list[Case]:
        out = []
        async with httpx.AsyncClient(timeout=TIMEOUT) as client:
            for name in ("rest_429", "rest_503", "oai_insufficient_quota"):
                kind, outcome, cause = HTTP_LABELS[name]
                resp = await client.get(f"{base}/{route(name)}")
                exc = _catch(resp.raise_for_status)
                out.append(Case(f"httpx-async-{name}", "httpx", cause, kind, outcome, exc, "fetch"))
            for name, url, kind, outcome, cause in _transport_scenarios(port, dead):
                exc = await _acatch(client.get(url))
                out.append(Case(f"httpx-async-{name}", "httpx", cause, kind, outcome, exc, "fetch"))
        return out

    yield from asyncio.run(run_async())


def requests_cases(port: int, dead: int) -> Iterator[Case]:
    import requests

    base = f"http://127.0.0.1:{port}/s"
    with requests.Session() as s:
        for name in GENERIC_HTTP:
            kind, outcome, cause = HTTP_LABELS[name]
            exc = _catch(lambda: s.get(f"{base}/{route(name)}", timeout=TIMEOUT).raise_for_status())
            yield Case(f"requests-{name}", "requests", cause, kind, outcome, exc, "fetch")
        for name, url, kind, outcome, cause in _transport_scenarios(port, dead):
            exc = _catch(lambda: s.post(url, json={"q": 1}, timeout=TIMEOUT))
            yield Case(f"requests-{name}", "requests", cause, kind, outcome, exc, "fetch")
        exc = _catch(lambda: s.get("127.0.0.1/items", timeout=TIMEOUT))
        yield Case("requests-missing-schema", "requests", "URL without a scheme", F, None, exc, "fetch")
        exc = _catch(lambda: s.get("http://", timeout=TIMEOUT))
        yield Case("requests-no-host", "requests", "URL without a host", F, None, exc, "fetch")
        exc = _catch(lambda: s.get("gopher://127.0.0.1/x", timeout=TIMEOUT))
        yield Case("requests-bad-scheme", "requests", "URL with an unsupported scheme", F, None, exc, "fetch")
        exc = _catch(lambda: s.get(f"{base}/{route('rest_html')}", timeout=TIMEOUT).json())
        yield Case(
            "requests-html-not-json", "requests", "HTML where JSON was expected", A, None, exc, "fetch"
        )


def urllib3_cases(port: int, dead: int) -> Iterator[Case]:
    import urllib3

    http = urllib3.PoolManager(timeout=urllib3.Timeout(connect=TIMEOUT, read=TIMEOUT), retries=False)
    for name, url, kind, outcome, cause in _transport_scenarios(port, dead):
        exc = _catch(lambda: http.request("GET", url))
        yield Case(f"urllib3-{name}", "urllib3", cause, kind, outcome, exc, "fetch")
    retrying = urllib3.PoolManager(timeout=TIMEOUT, retries=urllib3.Retry(total=1, backoff_factor=0))
    for name, url, kind, outcome, cause in _transport_scenarios(port, dead)[:3]:
        exc = _catch(lambda: retrying.request("GET", url))
        yield Case(
            f"urllib3-retries-{name}", "urllib3", cause + " (after retries)", kind, outcome, exc, "fetch"
        )
    status_retry = urllib3.PoolManager(
        timeout=TIMEOUT,
        retries=urllib3.Retry(
            total=1, status_forcelist=[429, 503], backoff_factor=0, respect_retry_after_header=False
        ),
    )
    for name in ("rest_429", "rest_503"):
        kind, outcome, cause = HTTP_LABELS[name]
        exc = _catch(lambda: status_retry.request("GET", f"http://127.0.0.1:{port}/s/{route(name)}"))
        yield Case(
            f"urllib3-retries-{name}", "urllib3", cause + " (after retries)", kind, outcome, exc, "fetch"
        )
    exc = _catch(lambda: http.request("GET", "http://[::1"))
    yield Case("urllib3-bad-url", "urllib3", "malformed URL", F, None, exc, "fetch")


def urllib_cases(port: int, dead: int) -> Iterator[Case]:
    import urllib.request

    base = f"http://127.0.0.1:{port}/s"
    for name in GENERIC_HTTP:
        kind, outcome, cause = HTTP_LABELS[name]
        exc = _catch(lambda: urllib.request.urlopen(f"{base}/{route(name)}", timeout=TIMEOUT))
        yield Case(f"urllib-{name}", "urllib.request", cause, kind, outcome, exc, "fetch")
    for name, url, kind, outcome, cause in _transport_scenarios(port, dead):
        exc = _catch(lambda: urllib.request.urlopen(url, data=b"{}", timeout=TIMEOUT))
        yield Case(f"urllib-{name}", "urllib.request", cause, kind, outcome, exc, "fetch")
    exc = _catch(lambda: urllib.request.urlopen("htp://example.invalid/x", timeout=TIMEOUT))
    yield Case(
        "urllib-unknown-url-type", "urllib.request", "URL with an unknown scheme", F, None, exc, "fetch"
    )
    exc = _catch(lambda: urllib.request.urlopen("not a url", timeout=TIMEOUT))
    yield Case("urllib-not-a-url", "urllib.request", "not a URL", F, None, exc, "fetch")


def aiohttp_cases(port: int, dead: int) -> Iterator[Case]:
    import aiohttp

    base = f"http://127.0.0.1:{port}/s"

    async def run() -> list[Case]:
        out = []
        timeout = aiohttp.ClientTimeout(total=None, sock_read=TIMEOUT, sock_connect=TIMEOUT)
        # the threaded resolver (socket.getaddrinfo, answered by offline_dns), never aiodns
        connector = aiohttp.TCPConnector(resolver=aiohttp.ThreadedResolver())
        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as s:
            for name in GENERIC_HTTP:
                kind, outcome, cause = HTTP_LABELS[name]

                async def status(name: str = name) -> None:
                    async with s.get(f"{base}/{route(name)}") as resp:
                        resp.raise_for_status()

                out.append(
                    Case(f"aiohttp-{name}", "aiohttp", cause, kind, outcome, await _acatch(status()), "fetch")
                )
            for name, url, kind, outcome, cause in _transport_scenarios(port, dead):

                async def call(url: str = url) -> None:
                    async with s.post(url, json={"q": 1}) as resp:
                        await resp.read()

                out.append(
                    Case(f"aiohttp-{name}", "aiohttp", cause, kind, outcome, await _acatch(call()), "fetch")
                )

            async def total() -> None:
                async with s.get(
                    f"{base}/{route('hang')}", timeout=aiohttp.ClientTimeout(total=TIMEOUT)
                ) as resp:
                    await resp.read()

            out.append(
                Case(
                    "aiohttp-total-timeout",
                    "aiohttp",
                    "total timeout",
                    T,
                    UO,
                    await _acatch(total()),
                    "fetch",
                )
            )

            async def bad_url() -> None:
                async with s.get("ftp://127.0.0.1/x") as resp:
                    await resp.read()

            out.append(
                Case(
                    "aiohttp-bad-scheme",
                    "aiohttp",
                    "unsupported URL scheme",
                    F,
                    None,
                    await _acatch(bad_url()),
                    "fetch",
                )
            )

            async def html() -> None:
                async with s.get(f"{base}/{route('rest_html')}") as resp:
                    await resp.json()

            out.append(
                Case(
                    "aiohttp-html-not-json",
                    "aiohttp",
                    "HTML where JSON was expected",
                    A,
                    None,
                    await _acatch(html()),
                    "fetch",
                )
            )
        return out

    yield from asyncio.run(run())


# --- vendor SDKs ---------------------------------------------------------------------------


def openai_cases(port: int, dead: int) -> Iterator[Case]:
    import openai

    def call(base_url: str) -> Any:
        client = openai.OpenAI(api_key="sk-test", base_url=base_url, max_retries=0, timeout=TIMEOUT)
        return client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
        )

    for name in [n for n in HTTP_LABELS if n.startswith("oai_")] + [
        "rest_502",
        "rest_504",
        "rest_404",
        "rest_409",
        "rest_422",
    ]:
        kind, outcome, cause = HTTP_LABELS[name]
        exc = _catch(lambda: call(f"http://127.0.0.1:{port}/s/{route(name)}/v1"))
        yield Case(f"openai-{name}", "openai", cause, kind, outcome, exc, "ask_model")
    for name, url, kind, outcome, cause in _transport_scenarios(port, dead):
        exc = _catch(lambda: call(url))
        yield Case(f"openai-{name}", "openai", cause, kind, outcome, exc, "ask_model")

    async def run_async() -> list[Case]:
        client = openai.AsyncOpenAI(
            api_key="sk-test",
            base_url=f"http://127.0.0.1:{port}/s/{route('oai_insufficient_quota')}/v1",
            max_retries=0,
        )
        exc = await _acatch(client.embeddings.create(model="text-embedding-3-small", input="hi"))
        dead_client = openai.AsyncOpenAI(
            api_key="sk-test", base_url=f"http://127.0.0.1:{dead}/v1", max_retries=1
        )
        exc2 = await _acatch(dead_client.embeddings.create(model="text-embedding-3-small", input="hi"))
        return [
            Case("openai-async-quota", "openai", "quota exhausted", U, None, exc, "embed"),
            Case(
                "openai-async-refused-retried",
                "openai",
                "connection refused (after a retry)",
                T,
                NE,
                exc2,
                "embed",
            ),
        ]

    yield from asyncio.run(run_async())


def anthropic_cases(port: int, dead: int) -> Iterator[Case]:
    import anthropic

    def call(base_url: str) -> Any:
        client = anthropic.Anthropic(api_key="sk-ant-test", base_url=base_url, max_retries=0, timeout=TIMEOUT)
        return client.messages.create(
            model="claude-x", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
        )

    for name in [n for n in HTTP_LABELS if n.startswith("ant_")] + ["rest_503", "rest_422", "rest_409"]:
        kind, outcome, cause = HTTP_LABELS[name]
        exc = _catch(lambda: call(f"http://127.0.0.1:{port}/s/{route(name)}"))
        yield Case(f"anthropic-{name}", "anthropic", cause, kind, outcome, exc, "ask_model")
    for name, url, kind, outcome, cause in _transport_scenarios(port, dead):
        exc = _catch(lambda: call(url.rsplit("/v1", 1)[0]))
        yield Case(f"anthropic-{name}", "anthropic", cause, kind, outcome, exc, "ask_model")


# --- AWS -----------------------------------------------------------------------------------


def botocore_cases(port: int, dead: int) -> Iterator[Case]:
    import botocore.session
    from botocore.config import Config
    from botocore.stub import Stubber

    os.environ.update(
        AWS_SHARED_CREDENTIALS_FILE="/nonexistent/credentials",
        AWS_CONFIG_FILE="/nonexistent/config",
        AWS_EC2_METADATA_DISABLED="true",
    )
    for key in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_DEFAULT_REGION",
        "AWS_REGION",
    ):
        os.environ.pop(key, None)
    session = botocore.session.get_session()
    config = Config(
        retries={"max_attempts": 1, "mode": "standard"}, read_timeout=TIMEOUT, connect_timeout=TIMEOUT
    )

    def client(
        service: str, endpoint: str | None = None, creds: bool = True, region: str | None = "us-east-1"
    ) -> Any:
        kwargs: dict[str, Any] = {"config": config}
        if creds:
            kwargs.update(aws_access_key_id="AKIDTEST", aws_secret_access_key="secret")
        return session.create_client(service, region_name=region, endpoint_url=endpoint, **kwargs)

    # Real HTTP round trips: DynamoDB's JSON protocol against the local server.
    for code, (kind, outcome) in AWS_LABELS.items():
        ddb = client("dynamodb", f"http://127.0.0.1:{port}/s/{route('aws_' + code)}")
        exc = _catch(lambda: ddb.get_item(TableName="orders", Key={"id": {"S": "1"}}))
        yield Case(f"botocore-ddb-{code}", "botocore", f"DynamoDB {code}", kind, outcome, exc, "get_item")
    for name, url, kind, outcome, cause in _transport_scenarios(port, dead):
        ddb = client("dynamodb", url.rsplit("/v1", 1)[0])
        exc = _catch(lambda: ddb.get_item(TableName="orders", Key={"id": {"S": "1"}}))
        yield Case(f"botocore-{name}", "botocore", cause, kind, outcome, exc, "get_item")
    exc = _catch(lambda: client("dynamodb", f"http://127.0.0.1:{port}", creds=False).list_tables())
    yield Case(
        "botocore-no-credentials", "botocore", "no credentials configured", U, None, exc, "list_tables"
    )
    exc = _catch(
        lambda: session.create_client(
            "dynamodb", region_name=None, aws_access_key_id="a", aws_secret_access_key="b"
        )
    )
    yield Case("botocore-no-region", "botocore", "no region configured", U, None, exc, "list_tables")
    ddb = client("dynamodb", f"http://127.0.0.1:{port}")
    exc = _catch(lambda: ddb.get_item(TableName="orders"))
    yield Case("botocore-param-missing", "botocore", "missing required parameter", F, None, exc, "get_item")
    exc = _catch(lambda: ddb.get_item(TableName=5, Key={"id": {"S": "1"}}))
    yield Case("botocore-param-type", "botocore", "parameter of the wrong type", F, None, exc, "get_item")
    exc = _catch(lambda: ddb.get_item(TableName="orders", Key={"id": {"S": "1"}}, Bogus=1))
    yield Case("botocore-param-unknown", "botocore", "unknown parameter", F, None, exc, "get_item")

    # botocore's Stubber: the service's error codes for S3, Lambda, STS, SQS.
    stubbed = [
        (
            "s3",
            "get_object",
            {"Bucket": "b", "Key": "k"},
            "NoSuchKey",
            "The specified key does not exist.",
            404,
            A,
            None,
        ),
        (
            "s3",
            "get_object",
            {"Bucket": "b", "Key": "k"},
            "NoSuchBucket",
            "The specified bucket does not exist",
            404,
            A,
            None,
        ),
        ("s3", "get_object", {"Bucket": "b", "Key": "k"}, "AccessDenied", "Access Denied", 403, U, None),
        (
            "s3",
            "get_object",
            {"Bucket": "b", "Key": "k"},
            "InvalidAccessKeyId",
            "The AWS Access Key Id you provided does not exist in our records.",
            403,
            U,
            None,
        ),
        (
            "s3",
            "get_object",
            {"Bucket": "b", "Key": "k"},
            "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided.",
            403,
            U,
            None,
        ),
        (
            "s3",
            "get_object",
            {"Bucket": "b", "Key": "k"},
            "SlowDown",
            "Please reduce your request rate.",
            503,
            T,
            NE,
        ),
        (
            "s3",
            "get_object",
            {"Bucket": "b", "Key": "k"},
            "InternalError",
            "We encountered an internal error. Please try again.",
            500,
            T,
            UO,
        ),
        (
            "s3",
            "get_object",
            {"Bucket": "b", "Key": "k"},
            "InvalidRange",
            "The requested range is not satisfiable",
            416,
            F,
            None,
        ),
        (
            "s3",
            "get_object",
            {"Bucket": "b", "Key": "k"},
            "ExpiredToken",
            "The provided token has expired.",
            400,
            U,
            None,
        ),
        ("lambda", "invoke", {"FunctionName": "f"}, "TooManyRequestsException", "Rate Exceeded.", 429, T, NE),
        (
            "lambda",
            "invoke",
            {"FunctionName": "f"},
            "ResourceNotFoundException",
            "Function not found: arn:aws:lambda:us-east-1:123:function:f",
            404,
            A,
            None,
        ),
        (
            "lambda",
            "invoke",
            {"FunctionName": "f"},
            "InvalidParameterValueException",
            "The role defined for the function cannot be assumed by Lambda.",
            400,
            F,
            None,
        ),
        (
            "lambda",
            "invoke",
            {"FunctionName": "f"},
            "ServiceException",
            "The AWS Lambda service encountered an internal error.",
            500,
            T,
            UO,
        ),
        (
            "sts",
            "get_caller_identity",
            {},
            "ExpiredToken",
            "The security token included in the request is expired",
            403,
            U,
            None,
        ),
        (
            "sts",
            "get_caller_identity",
            {},
            "InvalidClientTokenId",
            "The security token included in the request is invalid.",
            403,
            U,
            None,
        ),
        (
            "sqs",
            "get_queue_url",
            {"QueueName": "q"},
            "AWS.SimpleQueueService.NonExistentQueue",
            "The specified queue does not exist.",
            400,
            A,
            None,
        ),
        ("sqs", "get_queue_url", {"QueueName": "q"}, "RequestThrottled", "Request is throttled.", 403, T, NE),
        (
            "dynamodb",
            "put_item",
            {"TableName": "t", "Item": {"id": {"S": "1"}}},
            "TransactionConflictException",
            "Transaction is ongoing for the item",
            400,
            T,
            NE,
        ),
        (
            "dynamodb",
            "put_item",
            {"TableName": "t", "Item": {"id": {"S": "1"}}},
            "ItemCollectionSizeLimitExceededException",
            "Collection size exceeded.",
            400,
            A,
            None,
        ),
    ]
    for service, op, params, code, message, status, kind, outcome in stubbed:
        c = client(service)
        stub = Stubber(c)
        stub.add_client_error(op, service_error_code=code, service_message=message, http_status_code=status)
        with stub:
            exc = _catch(lambda: getattr(c, op)(**params))
        yield Case(f"botocore-stub-{service}-{code}", "botocore", f"{service} {code}", kind, outcome, exc, op)


# --- Google --------------------------------------------------------------------------------

GRPC_LABELS: dict[str, tuple[str, str | None]] = {
    "UNAVAILABLE": (T, NE),
    "RESOURCE_EXHAUSTED": (T, NE),
    "PERMISSION_DENIED": (U, None),
    "UNAUTHENTICATED": (U, None),
    "INVALID_ARGUMENT": (F, None),
    "NOT_FOUND": (A, None),
    "ALREADY_EXISTS": (A, None),
    "INTERNAL": (T, UO),  # as HTTP 500
    "OUT_OF_RANGE": (F, None),
    "UNIMPLEMENTED": (U, None),
    "ABORTED": (T, UO),
}


def google_cases(port: int, dead: int) -> Iterator[Case]:
    import grpc
    import requests
    from google.api_core import exceptions as gexc

    for name in [n for n in HTTP_LABELS if n.startswith("goo_")] + ["rest_502", "rest_503"]:
        kind, outcome, cause = HTTP_LABELS[name]
        resp = requests.get(f"http://127.0.0.1:{port}/s/{route(name)}", timeout=TIMEOUT)
        yield Case(
            f"google-http-{name}",
            "google-api-core",
            cause,
            kind,
            outcome,
            gexc.from_http_response(resp),
            "query",
        )

    with servers.grpc_server() as gport:
        channel = grpc.insecure_channel(f"127.0.0.1:{gport}")
        for code, (kind, outcome) in GRPC_LABELS.items():
            stub = channel.unary_unary(f"/toolerr.Test/{code}")
            exc = _catch(lambda: stub(b"", timeout=2.0))
            cause = f"gRPC {code}: {GRPC_DETAILS[code]}"
            yield Case(f"grpc-{code}", "grpcio", cause, kind, outcome, exc, "query")
            assert isinstance(exc, grpc.RpcError)
            yield Case(
                f"google-grpc-{code}",
                "google-api-core",
                cause,
                kind,
                outcome,
                gexc.from_grpc_error(exc),
                "query",
            )
        slow = channel.unary_unary("/toolerr.Test/SLOW")
        exc = _catch(lambda: slow(b"", timeout=0.2))
        yield Case("grpc-deadline", "grpcio", "deadline passed while the server worked", T, UO, exc, "query")
        yield Case(
            "google-grpc-deadline",
            "google-api-core",
            "deadline passed",
            T,
            UO,
            gexc.from_grpc_error(exc),
            "query",
        )  # type: ignore[arg-type]
        future = slow.future(b"", timeout=2.0)
        future.cancel()
        channel.close()
    dead_channel = grpc.insecure_channel(f"127.0.0.1:{dead}")
    exc = _catch(lambda: dead_channel.unary_unary("/toolerr.Test/UNAVAILABLE")(b"", timeout=1.0))
    yield Case("grpc-refused", "grpcio", "connection refused", T, NE, exc, "query")
    yield Case(
        "google-grpc-refused",
        "google-api-core",
        "connection refused",
        T,
        NE,
        gexc.from_grpc_error(exc),
        "query",
    )  # type: ignore[arg-type]
    dead_channel.close()
    dns_channel = grpc.insecure_channel("unix:/nonexistent/toolerr.sock")
    exc = _catch(lambda: dns_channel.unary_unary("/toolerr.Test/UNAVAILABLE")(b"", timeout=1.0))
    yield Case("grpc-no-address", "grpcio", "no address reachable", T, NE, exc, "query")
    dns_channel.close()


# --- validation libraries ------------------------------------------------------------------


def pydantic_cases() -> Iterator[Case]:
    from typing import Literal

    import pydantic

    class Forecast(pydantic.BaseModel):
        model_config = pydantic.ConfigDict(extra="forbid")
        city: str
        days: int = pydantic.Field(ge=1, le=14)
        unit: Literal["C", "F"] = "C"
        email: str | None = None

        @pydantic.field_validator("city")
        @classmethod
        def known(cls, v: str) -> str:
            if not v.strip():
                raise ValueError("city must not be blank")
            return v

    inputs = [
        ("missing", {"days": 3}),
        ("type", {"city": "Paris", "days": "three"}),
        ("range", {"city": "Paris", "days": 40}),
        ("literal", {"city": "Paris", "days": 3, "unit": "K"}),
        ("extra", {"city": "Paris", "days": 3, "when": "now"}),
        ("validator", {"city": "  ", "days": 3}),
        ("several", {"city": 5, "days": 0}),
        ("not-object", ["Paris", 3]),
    ]
    for name, data in inputs:
        exc = _catch(lambda: Forecast.model_validate(data))
        yield Case(
            f"pydantic-{name}", "pydantic", f"arguments fail the model ({name})", F, None, exc, "forecast"
        )
    exc = _catch(lambda: Forecast.model_validate_json('{"city": "Paris", "days": 3'))
    yield Case("pydantic-json", "pydantic", "arguments are not valid JSON", F, None, exc, "forecast")
    adapter = pydantic.TypeAdapter(list[int])
    exc = _catch(lambda: adapter.validate_python(["1", "x"]))
    yield Case("pydantic-adapter", "pydantic", "list item of the wrong type", F, None, exc, "forecast")

    @pydantic.validate_call
    def search(query: str, limit: int = 10) -> None: ...

    exc = _catch(lambda: search(limit="many"))  # type: ignore[call-arg, arg-type]
    yield Case("pydantic-validate-call", "pydantic", "call arguments fail validation", F, None, exc, "search")


def jsonschema_cases() -> Iterator[Case]:
    import jsonschema

    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 2, "maxLength": 20, "pattern": "^[A-Za-z ]+$"},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "unit": {"enum": ["C", "F"]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2, "uniqueItems": True},
            "when": {"type": "string", "const": "today"},
            "range": {"type": "object", "properties": {"from": {"type": "string"}}, "required": ["from"]},
        },
        "required": ["city"],
        "additionalProperties": False,
        "dependentRequired": {"days": ["unit"]},
    }
    instances = [
        ("required", {}),
        ("type", {"city": 3}),
        ("minLength", {"city": "P"}),
        ("maxLength", {"city": "P" * 30}),
        ("pattern", {"city": "Paris1"}),
        ("minimum", {"city": "Paris", "days": 0, "unit": "C"}),
        ("maximum", {"city": "Paris", "days": 99, "unit": "C"}),
        ("enum", {"city": "Paris", "unit": "K"}),
        ("additionalProperties", {"city": "Paris", "country": "FR"}),
        ("maxItems", {"city": "Paris", "tags": ["a", "b", "c"]}),
        ("uniqueItems", {"city": "Paris", "tags": ["a", "a"]}),
        ("const", {"city": "Paris", "when": "tomorrow"}),
        ("nested-required", {"city": "Paris", "range": {}}),
        ("dependentRequired", {"city": "Paris", "days": 3}),
        ("not-object", ["Paris"]),
    ]
    for name, instance in instances:
        exc = _catch(lambda: jsonschema.validate(instance, schema))
        yield Case(
            f"jsonschema-{name}",
            "jsonschema",
            f"arguments fail the schema ({name})",
            F,
            None,
            exc,
            "forecast",
        )


# --- databases -----------------------------------------------------------------------------


def sqlite_cases(tmp: Path) -> Iterator[Case]:
    db = tmp / "app.db"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT UNIQUE NOT NULL, age INTEGER CHECK (age >= 0))"
    )
    con.execute("INSERT INTO users (email, age) VALUES ('a@example.com', 30)")
    con.commit()
    queries = [
        ("syntax", "SELEC * FROM users", F, "SQL syntax error"),
        ("no-table", "SELECT * FROM orders", F, "missing table"),
        ("no-column", "SELECT name FROM users", F, "missing column"),
        ("no-function", "SELECT nosuchfn(id) FROM users", F, "unknown function"),
        (
            "unique",
            "INSERT INTO users (email, age) VALUES ('a@example.com', 1)",
            A,
            "unique constraint (the row exists)",
        ),
        ("not-null", "INSERT INTO users (age) VALUES (1)", F, "NOT NULL constraint"),
        ("check", "INSERT INTO users (email, age) VALUES ('b@example.com', -1)", F, "CHECK constraint"),
        ("mismatch", "INSERT INTO users (id, email) VALUES ('x', 'c@example.com')", F, "datatype mismatch"),
        ("incomplete", "SELECT * FROM users WHERE", F, "incomplete input"),
        ("ambiguous-column", "SELECT id FROM users, users AS u2", F, "ambiguous column name"),
    ]
    for name, sql, kind, cause in queries:
        exc = _catch(lambda: con.execute(sql))
        yield Case(f"sqlite-{name}", "sqlite3", cause, kind, None, exc, "query")
    exc = _catch(lambda: con.execute("SELECT * FROM users WHERE id = ?", (1, 2)))
    yield Case("sqlite-bindings", "sqlite3", "wrong number of bindings", F, None, exc, "query")
    exc = _catch(lambda: con.executemany("SELECT 1; SELECT 2", []))
    yield Case("sqlite-two-statements", "sqlite3", "two statements at once", F, None, exc, "query")
    # locked: another connection holds a write lock
    other = sqlite3.connect(db, timeout=0)
    con.rollback()
    con.execute("BEGIN EXCLUSIVE")
    exc = _catch(lambda: other.execute("INSERT INTO users (email, age) VALUES ('d@example.com', 1)"))
    yield Case("sqlite-locked", "sqlite3", "database locked by another writer", T, NE, exc, "query")
    con.rollback()
    other.close()
    con.close()
    ro = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    exc = _catch(lambda: ro.execute("DELETE FROM users"))
    yield Case("sqlite-readonly", "sqlite3", "read-only database", U, None, exc, "query")
    ro.close()
    exc = _catch(lambda: sqlite3.connect(tmp / "missing-dir" / "x.db"))
    yield Case("sqlite-cannot-open", "sqlite3", "database file cannot be opened", A, None, exc, "query")
    junk = tmp / "junk.db"
    junk.write_bytes(b"this is not a database file at all" * 100)
    exc = _catch(lambda: sqlite3.connect(junk).execute("SELECT 1 FROM sqlite_master"))
    yield Case("sqlite-not-a-database", "sqlite3", "file is not a database", A, None, exc, "query")
    closed = sqlite3.connect(":memory:")
    closed.close()
    exc = _catch(lambda: closed.execute("SELECT 1"))
    yield Case("sqlite-closed", "sqlite3", "closed connection", A, None, exc, "query")


@contextmanager
def postgres(tmp: Path) -> Iterator[str | None]:
    """A throwaway PostgreSQL server on 127.0.0.1 (None if it cannot be started here)."""
    import glob
    import shutil

    # on the PATH, or where Debian's postgresql packages put them
    search = os.pathsep.join([os.environ.get("PATH", ""), *sorted(glob.glob("/usr/lib/postgresql/*/bin"))])
    initdb = shutil.which("initdb", path=search)
    pg_ctl = shutil.which("pg_ctl", path=search)
    if initdb is None or pg_ctl is None:
        yield None
        return
    data = tmp / "pg"
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: run it as the postgres account
        if shutil.which("runuser") is None:
            yield None
            return
        as_user = ["runuser", "-u", "postgres", "--"]
        os.chmod(tmp, 0o777)
    port = servers.refused_port()
    _pg_port[:] = [port]
    env = {**os.environ, "LC_ALL": "C"}
    try:
        data.mkdir()
        if as_user:
            shutil.chown(data, "postgres")
        subprocess.run(
            [*as_user, initdb, "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
            check=True,
            capture_output=True,
            env=env,
            timeout=120,
        )
        subprocess.run(
            [
                *as_user,
                pg_ctl,
                "-D",
                str(data),
                "-w",
                "-t",
                "60",
                "-l",
                str(data / "log"),
                "-o",
                f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c max_connections=8 -c fsync=off",
                "start",
            ],
            check=True,
            capture_output=True,
            env=env,
            timeout=90,
        )
    except (subprocess.SubprocessError, OSError):
        yield None
        return
    try:
        yield f"host=127.0.0.1 port={port} user=postgres dbname=postgres connect_timeout=2"
    finally:
        subprocess.run(
            [*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
            env=env,
            timeout=60,
        )


def psycopg_cases(dsn: str, dead: int) -> Iterator[Case]:
    import psycopg

    admin = psycopg.connect(dsn, autocommit=True)
    admin.execute("DROP TABLE IF EXISTS accounts; DROP ROLE IF EXISTS reader")
    admin.execute(
        "CREATE TABLE accounts (id int PRIMARY KEY, owner text NOT NULL, balance int CHECK (balance >= 0))"
    )
    admin.execute("INSERT INTO accounts VALUES (1, 'ann', 10), (2, 'bob', 20)")
    admin.execute("CREATE ROLE reader LOGIN")
    queries = [
        ("syntax", "SELEC * FROM accounts", F, "SQL syntax error (42601)"),
        ("no-table", "SELECT * FROM orders", F, "undefined table (42P01)"),
        ("no-column", "SELECT name FROM accounts", F, "undefined column (42703)"),
        ("no-function", "SELECT nosuchfn(1)", F, "undefined function (42883)"),
        ("bad-int", "SELECT 'abc'::int", F, "invalid text representation (22P02)"),
        ("div-zero", "SELECT 1/0", A, "division by zero (22012; data-dependent, as ZeroDivisionError)"),
        ("not-null", "INSERT INTO accounts (id) VALUES (3)", F, "not-null violation (23502)"),
        ("check", "INSERT INTO accounts VALUES (3, 'cy', -5)", F, "check violation (23514)"),
        ("unique", "INSERT INTO accounts VALUES (1, 'dup', 1)", A, "unique violation (23505)"),
        ("bad-date", "SELECT '2024-13-45'::date", F, "datetime field overflow (22008)"),
    ]
    for name, sql, kind, cause in queries:
        exc = _catch(lambda: admin.execute(sql))
        yield Case(f"psycopg-{name}", "psycopg", cause, kind, None, exc, "query")
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("SET statement_timeout = '100ms'")
        exc = _catch(lambda: c.execute("SELECT pg_sleep(2)"))
        yield Case(
            "psycopg-statement-timeout",
            "psycopg",
            "the statement's own timeout (57014; DELIVERY.md 3: stays ambiguous)",
            A,
            None,
            exc,
            "query",
        )
    reader_dsn = dsn.replace("user=postgres", "user=reader")
    with psycopg.connect(reader_dsn, autocommit=True) as c:
        exc = _catch(lambda: c.execute("DELETE FROM accounts"))
        yield Case("psycopg-privilege", "psycopg", "insufficient privilege (42501)", U, None, exc, "query")
    with psycopg.connect(dsn) as c:
        c.execute("SET TRANSACTION READ ONLY")
        exc = _catch(lambda: c.execute("DELETE FROM accounts"))
        yield Case("psycopg-read-only", "psycopg", "read-only transaction (25006)", U, None, exc, "query")
    # serialization failure: two serializable transactions write what the other read
    a = psycopg.connect(dsn)
    b = psycopg.connect(dsn)
    for c in (a, b):
        c.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
    a.execute("SELECT sum(balance) FROM accounts")
    b.execute("SELECT sum(balance) FROM accounts")
    a.execute("UPDATE accounts SET balance = balance + 1 WHERE id = 1")
    b.execute("UPDATE accounts SET balance = balance + 1 WHERE id = 2")
    a.commit()
    exc = _catch(b.commit)
    yield Case("psycopg-serialization", "psycopg", "serialization failure (40001)", T, NE, exc, "query")
    a.close()
    b.close()
    # deadlock
    import threading

    a = psycopg.connect(dsn)
    b = psycopg.connect(dsn)
    a.execute("UPDATE accounts SET balance = 1 WHERE id = 1")
    b.execute("UPDATE accounts SET balance = 2 WHERE id = 2")
    errors: list[BaseException] = []

    def lock_other(conn: Any, row: int) -> None:
        try:
            conn.execute("UPDATE accounts SET balance = 3 WHERE id = %s", (row,))
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=lock_other, args=(a, 2))
    t.start()
    import time

    time.sleep(0.2)
    lock_other(b, 1)
    t.join()
    for c in (a, b):
        c.rollback()
        c.close()
    yield Case("psycopg-deadlock", "psycopg", "deadlock (40P01)", T, NE, errors[0], "query")
    # lock not available
    a = psycopg.connect(dsn)
    a.execute("LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE")
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("SET lock_timeout = '100ms'")
        exc = _catch(lambda: c.execute("SELECT * FROM accounts"))
    a.rollback()
    a.close()
    yield Case("psycopg-lock-timeout", "psycopg", "lock not available (55P03)", T, NE, exc, "query")
    exc = _catch(lambda: psycopg.connect(dsn.replace("dbname=postgres", "dbname=nosuchdb")))
    yield Case("psycopg-no-database", "psycopg", "database does not exist (3D000)", U, None, exc, "query")
    exc = _catch(lambda: psycopg.connect(dsn.replace("user=postgres", "user=nosuchuser")))
    yield Case("psycopg-no-role", "psycopg", "role does not exist (28000)", U, None, exc, "query")
    exc = _catch(lambda: psycopg.connect(f"host=127.0.0.1 port={dead} user=postgres connect_timeout=2"))
    yield Case("psycopg-refused", "psycopg", "connection refused", T, NE, exc, "query")
    exc = _catch(lambda: psycopg.connect("host=db.nonexistent.invalid user=postgres connect_timeout=2"))
    yield Case("psycopg-dns", "psycopg", "DNS name does not resolve", T, NE, exc, "query")
    killed = psycopg.connect(dsn, autocommit=True)
    pid = killed.info.backend_pid
    admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    exc = _catch(lambda: killed.execute("SELECT 1"))
    yield Case("psycopg-terminated", "psycopg", "server closed the connection (57P01)", T, UO, exc, "query")
    admin.execute("DROP TABLE accounts; DROP ROLE reader")
    admin.close()


# --- the standard library ------------------------------------------------------------------


def stdlib_cases(tmp: Path, port: int, dead: int) -> Iterator[Case]:
    secret = tmp / "secret.txt"
    secret.write_text("x")
    secret.chmod(0)
    as_root = os.geteuid() == 0
    exc = _catch(lambda: open(tmp / "nope.txt"))
    yield Case("os-not-found", "builtins", "file does not exist", A, None, exc, "read_file")
    if not as_root:
        exc = _catch(lambda: open(secret))
        yield Case("os-permission", "builtins", "permission denied", U, None, exc, "read_file")
    exc = _catch(lambda: os.open("/proc/1/mem", os.O_WRONLY))
    if isinstance(exc, PermissionError):
        yield Case("os-permission-proc", "builtins", "permission denied", U, None, exc, "read_file")
    exc = _catch(lambda: open(tmp))
    yield Case("os-is-directory", "builtins", "path is a directory", F, None, exc, "read_file")
    exc = _catch(lambda: open(tmp / "secret.txt" / "x"))
    yield Case("os-not-directory", "builtins", "path component is a file", F, None, exc, "read_file")
    exc = _catch(lambda: os.mkdir(tmp))
    yield Case("os-exists", "builtins", "file exists", A, None, exc, "mkdir")
    exc = _catch(
        lambda: (open("/dev/full", "w").write("x" * 10_000) and None) or open("/dev/full", "w").close()
    )
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        yield Case("os-no-space", "builtins", "no space left on device", U, None, exc, "write_file")
    exc = _catch(lambda: (tmp / "ro").mkdir() or os.rmdir("/proc/self"))
    yield Case("os-rmdir-proc", "builtins", "path is not a directory (a symlink)", F, None, exc, "delete")

    def sock_connect(port_: int) -> None:
        with socket.create_connection(("127.0.0.1", port_), timeout=TIMEOUT):
            pass

    exc = _catch(lambda: sock_connect(dead))
    yield Case("socket-refused", "builtins", "connection refused", T, NE, exc, "connect")

    def sock_hang() -> None:
        with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) as s:
            s.sendall(f"GET /s/{route('hang')} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            s.recv(10)

    exc = _catch(sock_hang)
    yield Case("socket-timeout", "builtins", "read timeout", T, UO, exc, "connect")

    def sock_reset() -> None:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as s:
            s.sendall(f"GET /s/{route('reset')} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            s.settimeout(1.0)
            s.recv(10)
            s.recv(10)

    exc = _catch(sock_reset)
    if isinstance(exc, ConnectionResetError):
        yield Case("socket-reset", "builtins", "connection reset by peer", T, UO, exc, "connect")

    def sock_dns() -> None:
        socket.getaddrinfo("mail.nonexistent.invalid", 25)

    exc = _catch(sock_dns)
    yield Case("socket-dns", "builtins", "DNS name does not resolve", T, NE, exc, "connect")

    # model-supplied values
    yield Case(
        "builtin-int", "builtins", "argument not a number", F, None, _catch(lambda: int("three")), "compute"
    )
    yield Case(
        "builtin-float", "builtins", "argument not a number", F, None, _catch(lambda: float("1,5")), "compute"
    )
    from datetime import date, datetime
    from zoneinfo import ZoneInfo

    yield Case(
        "builtin-date",
        "builtins",
        "date out of range",
        F,
        None,
        _catch(lambda: date(2024, 13, 45)),
        "schedule",
    )
    yield Case(
        "builtin-isoformat",
        "builtins",
        "bad ISO date",
        F,
        None,
        _catch(lambda: datetime.fromisoformat("next tuesday")),
        "schedule",
    )
    yield Case(
        "builtin-strptime",
        "builtins",
        "date not in the format",
        F,
        None,
        _catch(lambda: datetime.strptime("2024/01/02", "%Y-%m-%d")),
        "schedule",
    )
    yield Case(
        "builtin-zoneinfo",
        "builtins",
        "unknown time zone",
        F,
        None,
        _catch(lambda: ZoneInfo("Mars/Phobos")),
        "get_time",
    )

    def kwargs_tool(city: str, days: int = 1) -> None: ...

    yield Case(
        "builtin-unexpected-kwarg",
        "builtins",
        "unexpected argument",
        F,
        None,
        _catch(lambda: kwargs_tool(city="x", day=3)),
        "forecast",
    )  # type: ignore[call-arg]
    yield Case(
        "builtin-missing-arg",
        "builtins",
        "missing argument",
        F,
        None,
        _catch(lambda: kwargs_tool()),
        "forecast",
    )  # type: ignore[call-arg]
    yield Case(
        "json-decode",
        "json",
        "arguments are not valid JSON",
        F,
        None,
        _catch(lambda: json.loads('{"city": "Paris",}')),
        "forecast",
    )
    yield Case(
        "json-decode-empty", "json", "empty JSON text", F, None, _catch(lambda: json.loads("")), "forecast"
    )
    yield Case(
        "builtin-regex",
        "re",
        "invalid regular expression",
        F,
        None,
        _catch(lambda: re.compile("(unclosed")),
        "grep",
    )
    import ipaddress
    import urllib.parse

    yield Case(
        "builtin-ip",
        "ipaddress",
        "invalid IP address",
        F,
        None,
        _catch(lambda: ipaddress.ip_address("300.1.1.1")),
        "ping",
    )
    yield Case(
        "builtin-url-port",
        "urllib.parse",
        "URL with a bad port",
        F,
        None,
        _catch(lambda: urllib.parse.urlsplit("http://host:99999/").port),
        "fetch",
    )
    import base64

    yield Case(
        "builtin-base64",
        "binascii",
        "invalid base64 input",
        F,
        None,
        _catch(lambda: base64.b64decode("abc", validate=True)),
        "decode",
    )
    yield Case("builtin-key", "builtins", "unknown key", A, None, _catch(lambda: {"a": 1}["b"]), "lookup")
    yield Case("builtin-zero", "builtins", "division by zero", A, None, _catch(lambda: 1 / 0), "compute")

    # subprocesses
    yield Case(
        "subprocess-exit",
        "subprocess",
        "command exited non-zero",
        A,
        None,
        _catch(lambda: subprocess.run([sys.executable, "-c", "import sys; sys.exit(3)"], check=True)),
        "run",
    )
    yield Case(
        "subprocess-timeout",
        "subprocess",
        "the command's own timeout",
        A,
        None,
        _catch(lambda: subprocess.run([sys.executable, "-c", "import time; time.sleep(5)"], timeout=0.3)),
        "run",
    )
    yield Case(
        "subprocess-missing",
        "subprocess",
        "executable not found",
        A,
        None,
        _catch(lambda: subprocess.run(["/nonexistent/tool", "--help"])),
        "run",
    )

    # asyncio timeouts and exception groups
    async def hang() -> None:
        await asyncio.sleep(5)

    async def asyncio_cases() -> list[Case]:
        import httpx

        out = [
            Case(
                "asyncio-wait-for",
                "asyncio",
                "operation timed out",
                T,
                UO,
                await _acatch(asyncio.wait_for(hang(), 0.05)),
                "fetch",
            ),
        ]

        async def timeout_block() -> None:
            async with asyncio.timeout(0.05):
                await hang()

        out.append(
            Case(
                "asyncio-timeout",
                "asyncio",
                "operation timed out",
                T,
                UO,
                await _acatch(timeout_block()),
                "fetch",
            )
        )

        async def conn(port_: int) -> None:
            await asyncio.open_connection("127.0.0.1", port_)

        out.append(
            Case(
                "asyncio-refused", "asyncio", "connection refused", T, NE, await _acatch(conn(dead)), "fetch"
            )
        )

        async def group(*coros: Any) -> None:
            """An ExceptionGroup of every member's failure (as anyio and TaskGroup raise; all
            members awaited, so the group is the same on every run)."""
            got = await asyncio.gather(*coros, return_exceptions=True)
            raise builtins.ExceptionGroup(
                "unhandled errors in a TaskGroup", [e for e in got if isinstance(e, Exception)]
            )

        async def group_refused() -> None:
            await group(conn(dead), conn(dead))

        out.append(
            Case(
                "group-refused",
                "asyncio",
                "every member: connection refused",
                T,
                NE,
                await _acatch(group_refused()),
                "fetch",
            )
        )

        async def bad_value(text: str) -> None:
            int(text)

        async def group_values() -> None:
            await group(bad_value("x"), bad_value("y"))

        out.append(
            Case(
                "group-values",
                "asyncio",
                "every member: bad argument",
                F,
                None,
                await _acatch(group_values()),
                "compute",
            )
        )

        async def denied() -> None:
            async with httpx.AsyncClient() as c:
                (await c.get(f"http://127.0.0.1:{port}/s/{route('rest_403')}")).raise_for_status()

        async def group_mixed() -> None:
            await group(denied(), conn(dead))

        out.append(
            Case(
                "group-mixed",
                "asyncio",
                "members: forbidden and refused (forbidden wins)",
                U,
                None,
                await _acatch(group_mixed()),
                "fetch",
            )
        )

        async def fetch(url: str) -> None:
            async with httpx.AsyncClient(timeout=TIMEOUT) as c:
                (await c.get(url)).raise_for_status()

        async def group_429() -> None:
            await group(
                fetch(f"http://127.0.0.1:{port}/s/{route('rest_429')}"),
                fetch(f"http://127.0.0.1:{port}/s/{route('rest_503')}"),
            )

        out.append(
            Case(
                "group-http-turned-away",
                "asyncio",
                "members: 429 and 503",
                T,
                NE,
                await _acatch(group_429()),
                "fetch",
            )
        )

        async def group_quota() -> None:
            async with asyncio.TaskGroup() as tg:
                tg.create_task(fetch(f"http://127.0.0.1:{port}/s/{route('rest_429_quota')}"))

        out.append(
            Case(
                "group-quota",
                "asyncio",
                "member: quota exhausted",
                U,
                None,
                await _acatch(group_quota()),
                "fetch",
            )
        )
        return out

    yield from asyncio.run(asyncio_cases())

    # chains: a tool's own exception raised from the library's
    def wrapped(inner: Callable[[], Any], message: str) -> None:
        try:
            inner()
        except Exception as e:
            raise ToolFailure(message) from e

    import httpx

    def refused() -> None:
        httpx.get(f"http://127.0.0.1:{dead}/x", timeout=TIMEOUT)

    def forbidden() -> None:
        httpx.get(f"http://127.0.0.1:{port}/s/{route('rest_403')}", timeout=TIMEOUT).raise_for_status()

    def quota() -> None:
        httpx.get(
            f"http://127.0.0.1:{port}/s/{route('oai_insufficient_quota')}", timeout=TIMEOUT
        ).raise_for_status()

    yield Case(
        "chain-refused",
        "chain",
        "raised from: connection refused",
        T,
        NE,
        _catch(lambda: wrapped(refused, "weather service request failed")),
        "weather",
    )
    yield Case(
        "chain-forbidden",
        "chain",
        "raised from: 403",
        U,
        None,
        _catch(lambda: wrapped(forbidden, "could not load the report")),
        "report",
    )
    yield Case(
        "chain-quota",
        "chain",
        "raised from: 429 insufficient_quota",
        U,
        None,
        _catch(lambda: wrapped(quota, "summarisation failed")),
        "summarise",
    )

    def implicit() -> None:
        try:
            refused()
        except Exception:
            raise RuntimeError("lookup failed") from None if False else RuntimeError("lookup failed")

    yield Case(
        "chain-context", "chain", "raised during: connection refused", T, NE, _catch(implicit), "lookup"
    )


# --- all -----------------------------------------------------------------------------------


def generate(with_postgres: bool = True) -> list[Case]:
    """Every case, triggered live. Takes a few seconds (plus PostgreSQL's start)."""
    cases: list[Case] = []
    _normalise_ports.clear()  # ports other generators named are not this corpus's
    with (
        warnings.catch_warnings(),
        offline_dns(),
        tempfile.TemporaryDirectory() as tmpname,
        servers.held_refused_port() as dead,
    ):
        warnings.simplefilter("ignore")
        tmp = Path(tmpname)
        with servers.http_server() as port:
            for gen in (
                httpx_cases,
                requests_cases,
                urllib3_cases,
                urllib_cases,
                aiohttp_cases,
                openai_cases,
                anthropic_cases,
                botocore_cases,
                google_cases,
            ):
                cases.extend(gen(port, dead))
            cases.extend(pydantic_cases())
            cases.extend(jsonschema_cases())
            cases.extend(sqlite_cases(tmp))
            cases.extend(stdlib_cases(tmp, port, dead))
        if with_postgres:
            with postgres(tmp) as dsn:
                if dsn is not None:
                    cases.extend(psycopg_cases(dsn, dead))
        _normalise_ports.update({port: "PORT", dead: "DEADPORT"})
        if _pg_port:
            _normalise_ports[_pg_port[0]] = "PGPORT"
    return cases


_normalise_ports: dict[int, str] = {}
_pg_port: list[int] = []
_ADDRESSES = re.compile(r"0x[0-9a-f]{6,16}")


def normalise(text: str, tmp_dirs: tuple[str, ...] = ()) -> str:
    """The text with what differs between runs replaced (ports, object addresses, temp dirs)."""
    for port, name in _normalise_ports.items():
        text = re.sub(rf"\b{port}\b", name, text)
    text = text.replace(sys.executable, "PYTHON")
    text = re.sub(r"(Process|transaction) \d+", r"\1 N", text)
    text = re.sub(r"\d+\.\d{6,}", "N.N", text)
    text = _ADDRESSES.sub("0xADDR", text)
    text = re.sub(r"after \d+\.\d+ seconds", "after N seconds", text)
    text = re.sub(r"tuple \(\d+,\d+\)", "tuple (N,N)", text)
    text = re.sub(r"[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT", "DATE", text)
    text = re.sub(r"\b([A-Za-z-]+)/\d+(?:\.\d+)+", r"\1/VERSION", text)
    text = re.sub(r"/tmp/tmp[\w]+", "/tmp/TMP", text)
    # what a client accepts depends on the codecs installed beside it (aiohttp adds zstd when
    # backports.zstd is there, which another corpus library may bring)
    text = re.sub(r"'Accept-Encoding': '[^'\n]*'", "'Accept-Encoding': 'ENCODINGS'", text)
    # where the interpreter's recursion limit is hit (a C call or Python code) varies
    text = text.replace(
        "maximum recursion depth exceeded while calling a Python object", "maximum recursion depth exceeded"
    )
    text = re.sub(r"\bpid \d+|PID \d+|process \d+", "pid N", text)
    text = re.sub(r"\(\d+\.\d+ms\)|\d+ ms\b", "N ms", text)
    return text


def record(case: Case) -> dict[str, Any]:
    """What the JSONL stores for one case (normalised: comparable between runs)."""
    texts = framework_texts(case)
    return {
        "id": case.id,
        "library": case.library,
        "exception": exc_type(case.exc),
        "cause": case.cause,
        "kind": case.kind,
        "outcome": case.outcome,
        "evidence": evidence(case),
        "str": normalise(str(case.exc)),
        "texts": {k: normalise(v) for k, v in texts.items()},
        **({} if case.arguments is None else {"arguments": _normalised_json(case.arguments)}),
        **({} if case.parameters is None else {"parameters": _normalised_json(case.parameters)}),
    }


def _normalised_json(value: Any) -> Any:
    """``value`` (JSON) with :func:`normalise` applied to its strings (temp dirs, ports)."""
    if isinstance(value, str):
        return normalise(value)
    if isinstance(value, dict):
        return {str(k): _normalised_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normalised_json(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    raise TypeError(f"arguments must be JSON values, not {type(value).__name__}")


def write(cases: list[Case], path: Path = CORPUS) -> None:
    with path.open("w", encoding="utf-8") as f:
        for case in cases:
            f.write(json.dumps(record(case), ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    import generate as this  # the module by its own name (class names in the records)

    all_cases = this.generate()
    this.write(all_cases)
    print(f"{len(all_cases)} cases -> {CORPUS}")
