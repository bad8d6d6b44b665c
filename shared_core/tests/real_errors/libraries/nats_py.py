# ruff: noqa: B023 - each lambda is awaited at once, in its own loop turn
"""nats-py behind messaging tools, against real ``nats-server`` processes (Debian package
nats-server) that the module starts on free 127.0.0.1 ports with a configuration file under
its temporary directory: accounts and users with publish/subscribe permissions, an account
without JetStream and one with small JetStream limits, ``max_payload`` 4096 and
``max_control_line`` 1024, JetStream's store directory under the same temporary directory;
the same server stopped (``SIGSTOP``) while a client uses it, and throwaway servers killed
while a client uses them.

The tools (the server's URL and the account's credentials are the tool's configuration; each
call opens a pedantic connection without reconnecting, does what the model asked, flushes,
and raises what the server reported asynchronously, the ``error_cb`` / ``last_error`` of the
client, as ``nats-py`` leaves permission violations to the error callback): ``nats_publish``,
``nats_request``, ``nats_subscribe``, ``nats_publish_file`` (the payload read from a file the
model names), ``nats_replay`` (messages read from a JSON-lines file the model names), the
JetStream tools ``js_create_stream`` / ``js_update_stream`` / ``js_stream_info`` /
``js_publish`` / ``js_get_message`` / ``js_create_consumer`` / ``js_consumer_info`` /
``js_fetch``, the key-value tools ``kv_get`` / ``kv_put`` / ``kv_create``
/ ``kv_update`` / ``kv_create_bucket`` / ``kv_import`` (pairs read from a JSON file the model
names) and the object-store tools ``obj_get`` / ``obj_rename``.

Labels by the cause set up (server configuration and protocol errors:
https://docs.nats.io/running-a-nats-service/configuration,
https://docs.nats.io/reference/reference-protocols/nats-protocol#-err; JetStream API error
codes: https://github.com/nats-io/nats-server/blob/main/server/errors.json;
subject naming: https://docs.nats.io/nats-concepts/subjects):

- fixable: a subject, queue group, header name or payload the model wrote that the client
  or the pedantic server refuses (``BadSubjectError``, "invalid publish subject" for a
  wildcard or an empty token, ``BadHeaderError``, ``MaxPayloadError`` past the server's
  ``max_payload``, "maximum control line exceeded" for a 1,500-character subject), stream,
  consumer, bucket and key names that break the naming rules (nats-py's ``ValueError``,
  ``InvalidBucketNameError``, ``InvalidKeyError``), and stream / consumer configurations the
  JetStream API rejects: an invalid subject (10052), subjects overlapping the JetStream API,
  replicas on a single server (10074), a retention policy not in the closed list ("invalid
  JSON", 10025), a storage type change (10052), a filter outside the stream's subjects
  (10093), a start sequence missing (10094), a rate limit or heartbeat on a pull consumer
  (10086, 10088), a backoff longer than ``max_deliver`` (10116), sequence 0 (10003), a
  batch size of 0, a message over the stream's or bucket's ``max_msg_size`` (10054), a
  history over 64, and a ``max_bytes`` larger than the account's whole storage limit (10047).
- ambiguous: a stream, consumer, message, key, bucket or object the model named that does
  not exist (10059, 10014, 10037, ``KeyNotFoundError``, ``BucketNotFoundError``,
  ``ObjectNotFoundError``), a subject no stream captures (``NoStreamResponseError``), a
  request nobody answers (no responders: the service may be down or the subject mistyped),
  conflicts with stored state (a stream name in use with another configuration 10058,
  subjects overlapping another stream 10065, the expected last sequence or message id
  10071 / 10070, a key that exists or whose revision moved on, an object name in use, a
  filter already taken on a work-queue stream 10100), stored data that is corrupt (an
  object's metadata that is not JSON, a digest that does not match), and bad data the tool
  read from a file the model named (a payload over ``max_payload``, a subject with a
  space, a key with a space).
- unrecoverable: the configured credentials (``Authorization Violation``), the account's
  permissions (publish, subscribe, queue subscribe, request and JetStream API subjects it
  may not use), JetStream not enabled for the account (10039), the account's JetStream
  limits used up (streams 10027, file 10047 and memory 10028 storage reserved by other
  streams), a stream's ``max_consumers`` (10026), a stream full with ``discard: new`` and
  no age limit (10077), a sealed stream (10109), and a credentials file configured without
  the ``nkeys`` module installed (:mod:`libraries._pkgcopy`).
- transient: a refused connection and a host name that does not resolve -> not executed, as
  is a new connection to a server that stopped answering (its handshake never comes: the
  client's connect timeout) and a publish while the client reconnects with its buffer full
  (``OutboundBufferLimitError``); a request, flush or JetStream publish to a server that
  stopped answering, a responder slower than the timeout, a fetch from a consumer with
  nothing pending and a server killed while a request was outstanding -> unknown outcome.

Not triggered: a duplicate message id (JetStream acknowledges it with ``duplicate: true``,
no error); a stream's ``max_bytes`` with ``discard: new`` (this server version accepted the
messages past it); TLS errors (need certificates and store ``_ssl.c`` line numbers); a slow
consumer (reported through the callback with an object's address, and whether the tool
should retry depends on the consumer); an account or user revoked while connected (the
client only sees the connection close: ``UnexpectedEOF``); a consumer that cannot change
its ack policy (10012: an update the model asked for or a name clash, not knowable); a
server at its ``max_connections`` (the client reads either the server's ``-ERR 'maximum
connections exceeded'`` or the connection reset that follows it, a race); a ``BadTimeoutError``
or ``ConnectionClosedError`` (the tool's own handling of its connection, not the model's).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import signal
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generate import Case

from . import _pkgcopy
from ._common import NE, UO, A, F, T, U, free_port, process

LIBRARY = "nats-py"
REQUIRES = ["nats-py==2.16.0"]

PUB, REQ, SUB = "nats_publish", "nats_request", "nats_subscribe"
PUBFILE, REPLAY = "nats_publish_file", "nats_replay"
CREATE, UPDATE, INFO, JPUB = "js_create_stream", "js_update_stream", "js_stream_info", "js_publish"
GETMSG, CCREATE, CINFO, FETCH = "js_get_message", "js_create_consumer", "js_consumer_info", "js_fetch"
KGET, KPUT, KCREATE, KUPDATE, KBUCKET, KIMPORT = (
    "kv_get",
    "kv_put",
    "kv_create",
    "kv_update",
    "kv_create_bucket",
    "kv_import",
)
OGET, ORENAME = "obj_get", "obj_rename"

APP_PERMISSIONS = {
    "publish": {
        "allow": [
            "orders.>",
            "svc.>",
            "events.>",
            "audit.>",
            "archive.>",
            "jobs.>",
            "uploads.>",
            "tasks.>",
            "invoices.>",
            "$JS.API.>",
            "$JS.ACK.>",
            "$KV.>",
            "$O.>",
            "_INBOX.>",
        ],
        "deny": ["orders.audit"],
    },
    "subscribe": {"allow": ["orders.>", "svc.>", "_INBOX.>"], "deny": ["orders.audit"]},
}
# a user of the same account who may publish orders but not use the JetStream API
PUBLISHER_PERMISSIONS = {"publish": {"allow": ["orders.>"]}, "subscribe": {"allow": ["_INBOX.>"]}}


def _binary() -> str | None:
    return shutil.which(
        "nats-server", path=os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/bin"])
    )


def available() -> str | None:
    if _binary() is None:
        return "nats-server is not installed (Debian package nats-server)"
    return None


def _config(tmp: Path, name: str, port: int, body: dict[str, Any]) -> Path:
    """A server configuration file (JSON is valid NATS configuration syntax)."""
    conf = tmp / f"{name}.conf"
    conf.write_text(json.dumps({"listen": f"127.0.0.1:{port}", **body}, indent=1))
    return conf


@contextmanager
def _server(tmp: Path, name: str, body: dict[str, Any], port: int | None = None) -> Iterator[tuple[int, Any]]:
    port = port or free_port()
    conf = _config(tmp, name, port, body)
    binary = _binary()
    assert binary is not None
    with process([binary, "-c", str(conf)], port) as proc:
        try:
            yield port, proc
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)


def _main_config(tmp: Path) -> dict[str, Any]:
    return {
        "max_payload": 4096,
        "max_control_line": 1024,
        "jetstream": {
            "store_dir": str(tmp / "jetstream"),
            "max_memory_store": 16 * 1024 * 1024,
            "max_file_store": 256 * 1024 * 1024,
        },
        "accounts": {
            "APP": {
                "jetstream": {
                    "max_mem": 1024 * 1024,
                    "max_file": 8 * 1024 * 1024,
                    "max_streams": 40,
                    "max_consumers": 100,
                },
                "users": [
                    {"user": "app", "password": "s3cret", "permissions": APP_PERMISSIONS},
                    {"user": "publisher", "password": "pub-pw", "permissions": PUBLISHER_PERMISSIONS},
                    {"user": "admin", "password": "adm1n"},
                ],
            },
            "SMALL": {
                "jetstream": {
                    "max_mem": 64 * 1024,
                    "max_file": 64 * 1024,
                    "max_streams": 3,
                    "max_consumers": 10,
                },
                "users": [{"user": "small", "password": "sm4ll"}],
            },
            "NOJS": {"users": [{"user": "nojs", "password": "n0js"}]},
        },
    }


class Tools:
    """What every tool does around the model's operation: connect with the tool's
    credentials, run it, flush, and raise the error the server reported (the client's
    ``error_cb`` for permission violations, ``last_error`` for errors that close the
    connection), or the operation's own exception."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def connect(
        self, user: str = "app", password: str = "s3cret", **options: Any
    ) -> tuple[Any, list[Any]]:
        import nats

        reported: list[BaseException] = []

        async def on_error(exc: BaseException) -> None:
            reported.append(exc)

        options.setdefault("allow_reconnect", False)
        options.setdefault("connect_timeout", 2)
        options.setdefault("max_reconnect_attempts", 1)  # a second try at connecting, then give up
        options.setdefault("reconnect_time_wait", 0.1)
        nc = await nats.connect(
            self.url, user=user, password=password, error_cb=on_error, pedantic=True, **options
        )
        return nc, reported

    async def call(
        self,
        op: Callable[[Any], Awaitable[Any]],
        user: str = "app",
        password: str = "s3cret",
        settle: float = 5.0,
        **options: Any,
    ) -> Any:
        import nats.errors

        nc, reported = await self.connect(user, password, **options)
        try:
            try:
                result = await op(nc)
                await nc.flush(timeout=2)
            except nats.errors.TimeoutError as exc:
                error = await _reported(nc, reported, settle)
                if error is not None:  # the request never reached a subscriber: the server said why
                    raise error from exc
                raise
            error = await _reported(nc, reported, settle)
            if error is not None:
                raise error
            return result
        finally:
            await _close(nc)

    async def js(
        self,
        op: Callable[[Any], Awaitable[Any]],
        user: str = "app",
        password: str = "s3cret",
        settle: float = 5.0,
    ) -> Any:
        return await self.call(lambda nc: op(nc.jetstream(timeout=2)), user, password, settle)


async def _reported(nc: Any, reported: list[BaseException], wait: float = 5.0) -> BaseException | None:
    """The error the server sends after the operation (it comes after the flush's PONG when
    the client wrote its PING before the buffered command)."""
    deadline = time.monotonic() + wait
    while not reported and nc.last_error is None and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    return reported[0] if reported else nc.last_error


async def _close(nc: Any) -> None:
    """Close a client whose server may be gone (closing then fails too)."""
    try:
        await asyncio.wait_for(nc.close(), 5)
    except (OSError, asyncio.TimeoutError):
        pass


async def _catch(fn: Callable[[], Awaitable[Any]]) -> BaseException:
    try:
        await fn()
    except BaseException as exc:
        return exc
    raise AssertionError(f"{fn} raised nothing")


def cases(ctx: Any) -> Iterator[Case]:
    out: list[Case] = []
    asyncio.run(_cases(ctx, out))
    yield from out


async def _cases(ctx: Any, out: list[Case]) -> None:
    tmp: Path = ctx.tmp

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> None:
        out.append(Case(f"nats-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args))

    with _server(tmp, "main", _main_config(tmp)) as (port, proc):
        ctx.name_port(port, "NATSPORT")
        tools = Tools(f"nats://127.0.0.1:{port}")
        await _setup(tools, tmp)
        await _auth(tools, case, tmp)
        await _core(tools, case, tmp)
        await _jetstream(tools, case)
        await _key_value(tools, case, tmp)
        await _stopped(tools, proc, case)
    await _unreachable(ctx, case)
    await _killed(tmp, case)


async def _setup(tools: Tools, tmp: Path) -> None:
    """The streams, consumers, buckets and objects the cases meet (as the account's admin)."""
    from nats.js import api

    async def setup(js: Any) -> None:
        await js.add_stream(name="ORDERS", subjects=["orders.>"])
        await js.publish("orders.new", b'{"id": 1}', headers={"Nats-Msg-Id": "o-1"})
        await js.publish("orders.new", b'{"id": 2}', headers={"Nats-Msg-Id": "o-2"})
        await js.add_consumer(
            "ORDERS", durable_name="billing", ack_policy="explicit", filter_subject="orders.>"
        )
        await js.add_stream(name="EVENTS", subjects=["events.>"], max_msgs=3, discard="new")
        for i in range(3):
            await js.publish("events.login", f'{{"n": {i}}}'.encode())
        await js.add_stream(name="AUDIT", subjects=["audit.>"], max_consumers=1)
        await js.add_consumer("AUDIT", durable_name="archiver")
        await js.add_stream(name="ARCHIVE", subjects=["archive.>"])
        await js.publish("archive.2023", b"closed")
        await js.update_stream(api.StreamConfig(name="ARCHIVE", subjects=["archive.>"], sealed=True))
        await js.add_stream(name="JOBS", subjects=["jobs.>"], retention="workqueue")
        await js.add_consumer("JOBS", durable_name="resize", filter_subject="jobs.resize")
        await js.add_stream(name="UPLOADS", subjects=["uploads.>"], max_msg_size=1024)
        await js.add_stream(name="TASKS", subjects=["tasks.>"])
        await js.add_consumer("TASKS", durable_name="worker", ack_policy="explicit")
        kv = await js.create_key_value(bucket="config", history=5, max_value_size=256)
        await kv.put("db.host", b"10.0.0.5")
        await kv.put("db.host", b"10.0.0.6")
        await kv.put("feature.beta", b"on")
        await kv.delete("feature.beta")
        obs = await js.create_object_store("reports")
        await obs.put("q1.csv", b"region,total\neu,10\n")
        await obs.put("q4.csv", b"region,total\nus,7\n")
        # another program wrote metadata that is not JSON for q2.csv, and q3.csv's digest
        # does not match its chunks (a copy of q1.csv's metadata under another name)
        await js.publish(_meta("reports", "q2.csv"), b"{not json")
        info = (await obs.get_info("q1.csv")).as_dict()
        info.update(name="q3.csv", digest="SHA-256=" + base64.urlsafe_b64encode(bytes(32)).decode())
        await js.publish(_meta("reports", "q3.csv"), json.dumps(info).encode())

    await tools.js(setup, "admin", "adm1n", settle=0)

    async def small(js: Any) -> None:
        await js.add_stream(name="METRICS", subjects=["metrics.>"], max_bytes=48 * 1024)
        await js.add_stream(name="CACHE", subjects=["cache.>"], max_bytes=48 * 1024, storage="memory")

    await tools.js(small, "small", "sm4ll", settle=0)


def _meta(bucket: str, name: str) -> str:
    return f"$O.{bucket}.M." + base64.urlsafe_b64encode(name.encode()).decode()


async def _auth(tools: Tools, case: Any, tmp: Path) -> None:
    pub = {"subject": "orders.new", "payload": '{"id": 41}'}

    def publish(nc: Any) -> Any:
        return nc.publish("orders.new", b'{"id": 41}')

    refusals = [
        ("wrong-password", "the configured password is wrong", "app", "wrong"),
        ("unknown-user", "the configured user does not exist", "ops", "s3cret"),
        ("no-credentials", "no credentials configured on a server that requires them", "", ""),
    ]
    for cid, cause, user, password in refusals:
        exc = await _catch(lambda: tools.call(publish, user, password))
        case(cid, cause, U, None, exc, PUB, pub)

    # the permissions of the tool's user (APP_PERMISSIONS)
    calls: list[tuple[str, str, str, dict[str, Any], Callable[[Any], Awaitable[Any]]]] = [
        (
            "publish-denied",
            "publish to a subject the user's permissions deny",
            PUB,
            {"subject": "orders.audit", "payload": '{"id": 41}'},
            lambda nc: nc.publish("orders.audit", b'{"id": 41}'),
        ),
        (
            "publish-not-allowed",
            "publish to a subject outside the user's allowed subjects",
            PUB,
            {"subject": "billing.invoices", "payload": '{"amount": 12}'},
            lambda nc: nc.publish("billing.invoices", b'{"amount": 12}'),
        ),
        (
            "subscribe-denied",
            "subscribe to subjects outside the user's allowed subjects",
            SUB,
            {"subject": "billing.>"},
            lambda nc: nc.subscribe("billing.>"),
        ),
        (
            "queue-subscribe-denied",
            "queue subscription to a subject the user's permissions deny",
            SUB,
            {"subject": "orders.audit", "queue": "auditors"},
            lambda nc: nc.subscribe("orders.audit", queue="auditors"),
        ),
        (
            "request-denied",
            "request on a subject the user may not publish to",
            REQ,
            {"subject": "billing.quote", "payload": '{"sku": "A-1"}'},
            lambda nc: nc.request("billing.quote", b'{"sku": "A-1"}', timeout=1),
        ),
    ]
    for cid, cause, tool, args, op in calls:
        exc = await _catch(lambda: tools.call(op))
        case(cid, cause, U, None, exc, tool, args)
    exc = await _catch(
        lambda: tools.call(lambda nc: nc.jetstream(timeout=1).stream_info("ORDERS"), "publisher", "pub-pw")
    )
    case(
        "jetstream-api-denied",
        "the user may not use the JetStream API",
        U,
        None,
        exc,
        INFO,
        {"stream": "ORDERS"},
    )
    exc = await _catch(lambda: tools.js(lambda js: js.stream_info("ORDERS"), "nojs", "n0js"))
    case(
        "jetstream-not-enabled",
        "JetStream not enabled for the account",
        U,
        None,
        exc,
        INFO,
        {"stream": "ORDERS"},
    )
    # a credentials file in the tool's configuration needs the nkeys module, not installed
    creds = tmp / "agent.creds"
    creds.write_text(
        "-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QifQ.e30.c2ln\n------END NATS USER JWT------\n"
    )
    with _pkgcopy.broken_install(tmp, ["nats"], hide=("nkeys",)):
        import nats as fresh

        exc = await _catch(
            lambda: fresh.connect(tools.url, user_credentials=str(creds), allow_reconnect=False)
        )
    case(
        "nkeys-missing",
        "credentials file configured but the nkeys module is not installed",
        U,
        None,
        exc,
        PUB,
        pub,
    )


async def _core(tools: Tools, case: Any, tmp: Path) -> None:
    """Core NATS: what the model wrote, and what a file it named held."""
    big = "x" * 5000
    long_subject = "orders." + "x" * 1500
    calls: list[tuple[str, str, str, dict[str, Any], Callable[[Any], Awaitable[Any]]]] = [
        (
            "publish-empty-subject",
            "publish to an empty subject",
            PUB,
            {"subject": "", "payload": "hi"},
            lambda nc: nc.publish("", b"hi"),
        ),
        (
            "publish-space-subject",
            "publish to a subject with a space",
            PUB,
            {"subject": "orders new", "payload": "hi"},
            lambda nc: nc.publish("orders new", b"hi"),
        ),
        (
            "publish-wildcard",
            "publish to a subject with a wildcard (pedantic server)",
            PUB,
            {"subject": "alerts.*", "payload": "hi"},
            lambda nc: nc.publish("alerts.*", b"hi"),
        ),
        (
            "publish-empty-token",
            "publish to a subject with an empty token (pedantic server)",
            PUB,
            {"subject": "alerts..cpu", "payload": "hi"},
            lambda nc: nc.publish("alerts..cpu", b"hi"),
        ),
        (
            "subscribe-wildcard-middle",
            "subscribe with > before the last token",
            SUB,
            {"subject": "orders.>.eu"},
            lambda nc: nc.subscribe("orders.>.eu"),
        ),
        (
            "subscribe-queue-space",
            "queue group name with a space",
            SUB,
            {"subject": "orders.new", "queue": "order workers"},
            lambda nc: nc.subscribe("orders.new", queue="order workers"),
        ),
        (
            "publish-max-payload",
            "payload larger than the server's max_payload",
            PUB,
            {"subject": "orders.new", "payload": big[:200] + "... (5000 characters)"},
            lambda nc: nc.publish("orders.new", big.encode()),
        ),
        (
            "publish-bad-header",
            "header name with a space",
            PUB,
            {"subject": "orders.new", "payload": "hi", "headers": {"trace id": "abc"}},
            lambda nc: nc.publish("orders.new", b"hi", headers={"trace id": "abc"}),
        ),
        (
            "publish-control-line",
            "subject longer than the server's max_control_line",
            PUB,
            {"subject": long_subject[:200] + "... (1507 characters)", "payload": "hi"},
            lambda nc: nc.publish(long_subject, b"hi"),
        ),
    ]
    for cid, cause, tool, args, op in calls:
        # as a user without permissions: they would refuse an invalid subject first
        exc = await _catch(lambda: tools.call(op, "admin", "adm1n"))
        case(cid, cause, F, None, exc, tool, args)
    exc = await _catch(
        lambda: tools.call(lambda nc: nc.request("svc.inventory", b'{"sku": "A-1"}', timeout=1))
    )
    args = {"subject": "svc.inventory", "payload": '{"sku": "A-1"}'}
    case("no-responders", "request on a subject nobody subscribes to", A, None, exc, REQ, args)
    # data the tool read from a file the model named
    exports = tmp / "exports"
    exports.mkdir()
    (exports / "q1-report.csv").write_text("region,total\n" + "eu-west,1000\n" * 500)
    exc = await _catch(
        lambda: tools.call(lambda nc: nc.publish("orders.report", (exports / "q1-report.csv").read_bytes()))
    )
    args = {"subject": "orders.report", "path": "exports/q1-report.csv"}
    case(
        "file-over-max-payload",
        "file the model named is larger than max_payload",
        A,
        None,
        exc,
        PUBFILE,
        args,
    )
    (exports / "replay.jsonl").write_text(
        '{"subject": "svc.replay.orders", "payload": "a"}\n{"subject": "svc.replay orders", "payload": "b"}\n'
    )

    async def replay(nc: Any) -> None:
        for line in (exports / "replay.jsonl").read_text().splitlines():
            message = json.loads(line)
            await nc.publish(message["subject"], message["payload"].encode())

    exc = await _catch(lambda: tools.call(replay))
    args = {"path": "exports/replay.jsonl"}
    case(
        "replay-file-bad-subject",
        "a subject with a space in the file the model named",
        A,
        None,
        exc,
        REPLAY,
        args,
    )


async def _jetstream(tools: Tools, case: Any) -> None:
    from nats.js import api

    def js(
        cid: str,
        cause: str,
        kind: str,
        tool: str,
        args: dict[str, Any],
        op: Callable[[Any], Awaitable[Any]],
        user: str = "app",
        password: str = "s3cret",
    ) -> Awaitable[None]:
        async def run() -> None:
            exc = await _catch(lambda: tools.js(op, user, password))
            case(cid, cause, kind, None, exc, tool, args)

        return run()

    # fixable: the stream or consumer configuration the model wrote
    await js(
        "stream-name-dot",
        "stream name with a dot",
        F,
        CREATE,
        {"name": "orders.v2", "subjects": ["orders2.>"]},
        lambda j: j.add_stream(name="orders.v2", subjects=["orders2.>"]),
    )
    await js(
        "stream-invalid-subject",
        "stream subject with an empty token",
        F,
        CREATE,
        {"name": "PAYMENTS", "subjects": ["payments..eu"]},
        lambda j: j.add_stream(name="PAYMENTS", subjects=["payments..eu"]),
    )
    await js(
        "stream-api-subjects",
        "stream subjects overlapping the JetStream API",
        F,
        CREATE,
        {"name": "EVERYTHING", "subjects": ["$JS.API.>"]},
        lambda j: j.add_stream(name="EVERYTHING", subjects=["$JS.API.>"]),
    )
    await js(
        "stream-replicas",
        "three replicas on a server that is not clustered",
        F,
        CREATE,
        {"name": "PAYMENTS", "subjects": ["payments.>"], "num_replicas": 3},
        lambda j: j.add_stream(name="PAYMENTS", subjects=["payments.>"], num_replicas=3),
    )
    await js(
        "stream-retention",
        "retention policy not one of limits/interest/workqueue",
        F,
        CREATE,
        {"name": "PAYMENTS", "subjects": ["payments.>"], "retention": "forever"},
        lambda j: j.add_stream(name="PAYMENTS", subjects=["payments.>"], retention="forever"),
    )
    await js(
        "stream-max-bytes-over-account",
        "max_bytes larger than the account's whole storage limit",
        F,
        CREATE,
        {"name": "PAYMENTS", "subjects": ["payments.>"], "max_bytes": 1073741824},
        lambda j: j.add_stream(name="PAYMENTS", subjects=["payments.>"], max_bytes=1 << 30),
    )
    await js(
        "stream-update-storage",
        "update that changes a stream's storage type",
        F,
        UPDATE,
        {"name": "ORDERS", "subjects": ["orders.>"], "storage": "memory"},
        lambda j: j.update_stream(api.StreamConfig(name="ORDERS", subjects=["orders.>"], storage="memory")),
    )
    await js(
        "consumer-name-dot",
        "consumer name with a dot",
        F,
        CCREATE,
        {"stream": "ORDERS", "durable_name": "billing.v2"},
        lambda j: j.add_consumer("ORDERS", durable_name="billing.v2"),
    )
    await js(
        "consumer-filter-outside",
        "consumer filter outside the stream's subjects",
        F,
        CCREATE,
        {"stream": "ORDERS", "durable_name": "invoicing", "filter_subject": "billing.>"},
        lambda j: j.add_consumer("ORDERS", durable_name="invoicing", filter_subject="billing.>"),
    )
    await js(
        "consumer-start-seq-missing",
        "deliver policy by_start_sequence without opt_start_seq",
        F,
        CCREATE,
        {"stream": "ORDERS", "durable_name": "replay", "deliver_policy": "by_start_sequence"},
        lambda j: j.add_consumer("ORDERS", durable_name="replay", deliver_policy="by_start_sequence"),
    )
    await js(
        "consumer-pull-rate-limit",
        "rate limit on a pull consumer",
        F,
        CCREATE,
        {"stream": "ORDERS", "durable_name": "slow", "rate_limit_bps": 1000},
        lambda j: j.add_consumer("ORDERS", durable_name="slow", rate_limit_bps=1000),
    )
    await js(
        "consumer-pull-heartbeat",
        "idle heartbeat on a pull consumer",
        F,
        CCREATE,
        {"stream": "ORDERS", "durable_name": "watch", "idle_heartbeat": 5},
        lambda j: j.add_consumer("ORDERS", durable_name="watch", idle_heartbeat=5),
    )
    await js(
        "consumer-backoff",
        "backoff with more steps than max_deliver allows",
        F,
        CCREATE,
        {"stream": "ORDERS", "durable_name": "retry", "max_deliver": 2, "backoff": [1, 5, 30]},
        lambda j: j.add_consumer("ORDERS", durable_name="retry", max_deliver=2, backoff=[1, 5, 30]),
    )
    await js(
        "get-message-seq-zero",
        "message sequence 0",
        F,
        GETMSG,
        {"stream": "ORDERS", "seq": 0},
        lambda j: j.get_msg("ORDERS", 0),
    )

    async def fetch(j: Any, durable: str, batch: int, timeout: float) -> Any:
        sub = await j.pull_subscribe_bind(durable, stream="TASKS" if durable == "worker" else "ORDERS")
        return await sub.fetch(batch, timeout=timeout)

    await js(
        "fetch-batch-zero",
        "fetch batch of 0 messages",
        F,
        FETCH,
        {"stream": "ORDERS", "durable": "billing", "batch": 0},
        lambda j: fetch(j, "billing", 0, 1),
    )
    await js(
        "publish-over-max-msg-size",
        "message larger than the stream's max_msg_size",
        F,
        JPUB,
        {"subject": "uploads.avatar", "payload": "x" * 200 + "... (2000 characters)"},
        lambda j: j.publish("uploads.avatar", b"x" * 2000),
    )
    # ambiguous: names of things that do not exist, and stored state
    await js(
        "stream-not-found",
        "stream the model named does not exist",
        A,
        INFO,
        {"stream": "ORDERZ"},
        lambda j: j.stream_info("ORDERZ"),
    )
    await js(
        "consumer-not-found",
        "consumer the model named does not exist",
        A,
        CINFO,
        {"stream": "ORDERS", "consumer": "shipping"},
        lambda j: j.consumer_info("ORDERS", "shipping"),
    )
    await js(
        "message-not-found",
        "message sequence past the stream's last",
        A,
        GETMSG,
        {"stream": "ORDERS", "seq": 99},
        lambda j: j.get_msg("ORDERS", 99),
    )
    await js(
        "stream-name-in-use",
        "stream name already in use with another configuration",
        A,
        CREATE,
        {"name": "ORDERS", "subjects": ["orders.*"]},
        lambda j: j.add_stream(name="ORDERS", subjects=["orders.*"]),
    )
    await js(
        "stream-subjects-overlap",
        "stream subjects overlapping another stream's",
        A,
        CREATE,
        {"name": "SHIPMENTS", "subjects": ["orders.shipped"]},
        lambda j: j.add_stream(name="SHIPMENTS", subjects=["orders.shipped"]),
    )
    await js(
        "publish-wrong-last-sequence",
        "expected last sequence is not the stream's (another message came first)",
        A,
        JPUB,
        {"subject": "orders.new", "payload": '{"id": 3}', "expected_last_seq": 1},
        lambda j: j.publish("orders.new", b'{"id": 3}', headers={"Nats-Expected-Last-Sequence": "1"}),
    )
    await js(
        "publish-wrong-last-msg-id",
        "expected last message id is not the stream's",
        A,
        JPUB,
        {"subject": "orders.new", "payload": '{"id": 3}', "expected_last_msg_id": "o-1"},
        lambda j: j.publish("orders.new", b'{"id": 3}', headers={"Nats-Expected-Last-Msg-Id": "o-1"}),
    )
    await js(
        "publish-no-stream",
        "publish to a subject no stream captures",
        A,
        JPUB,
        {"subject": "invoices.new", "payload": '{"id": 7}'},
        lambda j: j.publish("invoices.new", b'{"id": 7}'),
    )
    await js(
        "workqueue-filter-taken",
        "work-queue stream already has a consumer on that filter",
        A,
        CCREATE,
        {"stream": "JOBS", "durable_name": "thumbs", "filter_subject": "jobs.resize"},
        lambda j: j.add_consumer("JOBS", durable_name="thumbs", filter_subject="jobs.resize"),
    )
    # unrecoverable: limits of the account and of the streams, a sealed stream
    await js(
        "stream-max-consumers",
        "stream's max_consumers reached",
        U,
        CCREATE,
        {"stream": "AUDIT", "durable_name": "exporter"},
        lambda j: j.add_consumer("AUDIT", durable_name="exporter"),
    )
    await js(
        "stream-full",
        "stream at max_msgs with discard new and no age limit",
        U,
        JPUB,
        {"subject": "events.login", "payload": '{"n": 3}'},
        lambda j: j.publish("events.login", b'{"n": 3}'),
    )
    await js(
        "stream-sealed",
        "publish to a sealed stream",
        U,
        JPUB,
        {"subject": "archive.2023", "payload": "late"},
        lambda j: j.publish("archive.2023", b"late"),
    )
    small = ("small", "sm4ll")
    await js(
        "account-file-storage-used",
        "account's file storage already reserved by other streams",
        U,
        CREATE,
        {"name": "LOGS", "subjects": ["logs.>"], "max_bytes": 32768},
        lambda j: j.add_stream(name="LOGS", subjects=["logs.>"], max_bytes=32 * 1024),
        *small,
    )
    await js(
        "account-memory-used",
        "account's memory storage already reserved by other streams",
        U,
        CREATE,
        {"name": "SESSIONS", "subjects": ["sessions.>"], "max_bytes": 32768, "storage": "memory"},
        lambda j: j.add_stream(
            name="SESSIONS", subjects=["sessions.>"], max_bytes=32 * 1024, storage="memory"
        ),
        *small,
    )
    await tools.js(
        lambda j: j.add_stream(name="TRACES", subjects=["traces.>"], max_bytes=8 * 1024), *small, 0
    )
    await js(
        "account-max-streams",
        "account's max_streams reached",
        U,
        CREATE,
        {"name": "LOGS", "subjects": ["logs.>"], "max_bytes": 4096},
        lambda j: j.add_stream(name="LOGS", subjects=["logs.>"], max_bytes=4096),
        *small,
    )


async def _key_value(tools: Tools, case: Any, tmp: Path) -> None:
    from nats.js import api

    async def kv(j: Any, bucket: str = "config") -> Any:
        return await j.key_value(bucket)

    calls: list[tuple[str, str, str, str, dict[str, Any], Callable[[Any], Awaitable[Any]]]] = [
        (
            "kv-key-space",
            "key with a space",
            F,
            KPUT,
            {"bucket": "config", "key": "db host", "value": "10.0.0.7"},
            lambda j: _then(kv(j), lambda b: b.put("db host", b"10.0.0.7")),
        ),
        (
            "kv-bucket-name-space",
            "bucket name with a space",
            F,
            KBUCKET,
            {"bucket": "app config"},
            lambda j: j.create_key_value(bucket="app config"),
        ),
        (
            "kv-history-over-64",
            "bucket history over 64",
            F,
            KBUCKET,
            {"bucket": "audit-trail", "history": 100},
            lambda j: j.create_key_value(bucket="audit-trail", history=100),
        ),
        (
            "kv-value-too-large",
            "value larger than the bucket's max_value_size",
            F,
            KPUT,
            {"bucket": "config", "key": "tls.cert", "value": "A" * 200 + "... (400 characters)"},
            lambda j: _then(kv(j), lambda b: b.put("tls.cert", b"A" * 400)),
        ),
        (
            "kv-key-not-found",
            "key the model named does not exist",
            A,
            KGET,
            {"bucket": "config", "key": "db.port"},
            lambda j: _then(kv(j), lambda b: b.get("db.port")),
        ),
        (
            "kv-bucket-not-found",
            "bucket the model named does not exist",
            A,
            KGET,
            {"bucket": "settings", "key": "db.host"},
            lambda j: _then(kv(j, "settings"), lambda b: b.get("db.host")),
        ),
        (
            "kv-create-exists",
            "create a key that already exists",
            A,
            KCREATE,
            {"bucket": "config", "key": "db.host", "value": "10.0.0.9"},
            lambda j: _then(kv(j), lambda b: b.create("db.host", b"10.0.0.9")),
        ),
        (
            "kv-update-stale-revision",
            "update with a revision another writer has moved past",
            A,
            KUPDATE,
            {"bucket": "config", "key": "db.host", "value": "10.0.0.9", "revision": 1},
            lambda j: _then(kv(j), lambda b: b.update("db.host", b"10.0.0.9", last=1)),
        ),
        (
            "obj-not-found",
            "object the model named does not exist",
            A,
            OGET,
            {"bucket": "reports", "name": "q9.csv"},
            lambda j: _then(j.object_store("reports"), lambda o: o.get("q9.csv")),
        ),
        (
            "obj-bad-metadata",
            "object metadata stored by another program is not JSON",
            A,
            OGET,
            {"bucket": "reports", "name": "q2.csv"},
            lambda j: _then(j.object_store("reports"), lambda o: o.get("q2.csv")),
        ),
        (
            "obj-digest-mismatch",
            "object chunks do not match the stored digest",
            A,
            OGET,
            {"bucket": "reports", "name": "q3.csv"},
            lambda j: _then(j.object_store("reports"), lambda o: o.get("q3.csv")),
        ),
        (
            "obj-rename-exists",
            "rename an object to a name in use",
            A,
            ORENAME,
            {"bucket": "reports", "name": "q1.csv", "new_name": "q4.csv"},
            lambda j: _then(
                j.object_store("reports"), lambda o: o.update_meta("q1.csv", api.ObjectMeta(name="q4.csv"))
            ),
        ),
    ]
    for cid, cause, kind, tool, args, op in calls:
        exc = await _catch(lambda: tools.js(op))
        case(cid, cause, kind, None, exc, tool, args)
    (tmp / "imports").mkdir()
    (tmp / "imports" / "settings.json").write_text('{"db.host": "10.0.0.8", "cache ttl": "60"}')

    async def load(j: Any) -> None:
        bucket = await j.key_value("config")
        for key, value in json.loads((tmp / "imports" / "settings.json").read_text()).items():
            await bucket.put(key, value.encode())

    exc = await _catch(lambda: tools.js(load))
    args = {"bucket": "config", "path": "imports/settings.json"}
    case("kv-import-bad-key", "a key with a space in the file the model named", A, None, exc, KIMPORT, args)


async def _then(first: Awaitable[Any], then: Callable[[Any], Awaitable[Any]]) -> Any:
    return await then(await first)


async def _stopped(tools: Tools, proc: Any, case: Any) -> None:
    """A consumer and a responder with nothing for the tool, then the server stops answering
    (``SIGSTOP``) while the tool's connection is open."""

    async def fetch_idle(j: Any) -> Any:
        sub = await j.pull_subscribe_bind("worker", stream="TASKS")
        return await sub.fetch(1, timeout=0.5)

    exc = await _catch(lambda: tools.js(fetch_idle, settle=0.5))
    args = {"stream": "TASKS", "durable": "worker", "batch": 1, "timeout": 0.5}
    case("fetch-nothing-pending", "fetch from a consumer with nothing pending", T, UO, exc, FETCH, args)

    # a responder that takes longer than the request's timeout
    slow_nc, _ = await tools.connect("admin", "adm1n")

    async def slowly(msg: Any) -> None:
        await asyncio.sleep(2)

    await slow_nc.subscribe("svc.report", cb=slowly)
    await slow_nc.flush()
    exc = await _catch(
        lambda: tools.call(lambda nc: nc.request("svc.report", b'{"month": 3}', timeout=0.5), settle=0.5)
    )
    args = {"subject": "svc.report", "payload": '{"month": 3}', "timeout": 0.5}
    case("request-slow-responder", "responder slower than the request timeout", T, UO, exc, REQ, args)
    await _close(slow_nc)

    nc, _ = await tools.connect()
    js = nc.jetstream(timeout=0.5)
    await _pause(proc)
    try:
        exc = await _catch(lambda: nc.request("svc.quote", b'{"sku": "A-1"}', timeout=0.5))
        args = {"subject": "svc.quote", "payload": '{"sku": "A-1"}'}
        case("server-paused-request", "server stopped answering during a request", T, UO, exc, REQ, args)

        async def publish() -> None:
            await nc.publish("svc.heartbeat", b'{"id": 5}')
            await nc.flush(timeout=0.5)

        exc = await _catch(publish)
        args = {"subject": "svc.heartbeat", "payload": '{"id": 5}'}
        case("server-paused-flush", "server stopped answering before the flush", T, UO, exc, PUB, args)
        exc = await _catch(lambda: js.publish("orders.new", b'{"id": 6}'))
        args = {"subject": "orders.new", "payload": '{"id": 6}'}
        case(
            "server-paused-js-publish",
            "server stopped answering during a JetStream publish",
            T,
            UO,
            exc,
            JPUB,
            args,
        )
        exc = await _catch(lambda: tools.connect(connect_timeout=0.5))
        args = {"subject": "orders.new", "payload": '{"id": 7}'}
        case(
            "server-paused-connect",
            "new connection to a server that stopped answering",
            T,
            NE,
            exc,
            PUB,
            args,
        )
    finally:
        proc.send_signal(signal.SIGCONT)
    await _close(nc)


async def _pause(proc: Any, timeout: float = 10.0) -> None:
    """``SIGSTOP`` the server, and wait until each of its threads is stopped."""
    proc.send_signal(signal.SIGSTOP)
    deadline = time.monotonic() + timeout
    while True:
        states = [_state(task) for task in Path(f"/proc/{proc.pid}/task").iterdir()]
        if all(state == "T" for state in states):
            return
        assert time.monotonic() < deadline, f"the server did not stop: {states}"
        await asyncio.sleep(0.01)


def _state(task: Path) -> str:
    try:
        return (task / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:  # a thread that exited
        return "T"


async def _unreachable(ctx: Any, case: Any) -> None:
    pub = {"subject": "orders.new", "payload": '{"id": 41}'}
    exc = await _catch(lambda: Tools(f"nats://127.0.0.1:{ctx.dead}").connect())
    case("refused", "connection refused", T, NE, exc, PUB, pub)
    exc = await _catch(lambda: Tools("nats://nats.nonexistent.invalid:4222").connect())
    case("dns", "server host name does not resolve", T, NE, exc, PUB, pub)


async def _quiet(exc: BaseException) -> None:
    """An error callback that does not print (the tool raises what connect raises)."""


async def _killed(tmp: Path, case: Any) -> None:
    """Servers killed while a request is outstanding, and while a client reconnects."""
    import nats

    with _server(tmp, "doomed", {}) as (port, proc):
        url = f"nats://127.0.0.1:{port}"
        responder = await nats.connect(url, allow_reconnect=False, error_cb=_quiet)
        await responder.subscribe("svc.payroll")  # takes the request, never answers
        await responder.flush()
        nc = await nats.connect(url, allow_reconnect=False, error_cb=_quiet)

        async def kill() -> None:
            await asyncio.sleep(0.2)
            proc.kill()
            proc.wait()

        killer = asyncio.create_task(kill())
        exc = await _catch(lambda: nc.request("svc.payroll", b'{"run": "2024-03"}', timeout=1))
        await killer
        args = {"subject": "svc.payroll", "payload": '{"run": "2024-03"}'}
        case(
            "server-killed-request", "server killed while the request was outstanding", T, UO, exc, REQ, args
        )
        await _close(nc)
        await _close(responder)
    with _server(tmp, "restarting", {}) as (port, proc):
        url = f"nats://127.0.0.1:{port}"
        nc = await nats.connect(
            url, error_cb=_quiet, max_reconnect_attempts=-1, reconnect_time_wait=30, pending_size=2048
        )
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while not nc.is_reconnecting:
            assert time.monotonic() < deadline, "the client did not notice the server stop"
            await asyncio.sleep(0.02)
        for i in range(3):  # buffered while the server is away
            await nc.publish("metrics.cpu", b"%d" % i + b" " * 500)
        exc = await _catch(lambda: nc.publish("metrics.cpu", b"3" + b" " * 500))
        args = {"subject": "metrics.cpu", "payload": "3" + " " * 500}
        case(
            "reconnect-buffer-full",
            "publish while reconnecting with the outgoing buffer full",
            T,
            NE,
            exc,
            PUB,
            args,
        )
        await _close(nc)
