# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""pika (AMQP 0-9-1) behind messaging tools, against a real RabbitMQ node (Debian package
rabbitmq-server) that the module starts on free 127.0.0.1 ports with everything under its
temporary directory (its own ``epmd``, node name, Mnesia and log directories, a
configuration file with ``max_message_size`` 1 MiB, no plugins, so no management plugin),
and stops at the end. ``rabbitmqctl`` creates the vhosts, users, permissions, topic
permissions and limits the cases need, raises a memory alarm, closes connections and stops
and starts the application; the node is also frozen (``SIGSTOP``) while a client uses it.
Two 127.0.0.1 stand-ins answer what a port that is not RabbitMQ's answers: an SSH server's
banner and an AMQP 1.0 broker's protocol header (AMQP 1.0 section 2.2: a server that does
not support the requested version sends the header of one it supports and closes).

The tools (the broker's address, vhost ``shop`` and the account ``agent`` are the tools'
configuration; each call opens a ``BlockingConnection``): ``publish_message`` (publisher
confirms on, ``mandatory``; exchange, routing key, body and properties from the model),
``publish_file`` (a message, body and properties, read from a JSON file the model names),
``declare_queue`` / ``declare_exchange`` (names, flags and ``arguments`` the model wrote),
``check_queue`` (a passive declare), ``get_message`` (``basic.get``), ``consume_messages``
(``basic.qos`` with the model's prefetch, then ``consume`` until a message or the
timeout), ``ack_message``, ``bind_queue`` / ``bind_exchange``, ``delete_queue`` /
``delete_exchange`` (with ``if_unused`` / ``if_empty``), ``open_vhost`` (a connection to
the vhost the model names) and ``check_broker_url`` (a URL the model wrote, parsed by
``URLParameters``).

Labels by the cause set up, with the AMQP 0-9-1 reply codes
(https://www.rabbitmq.com/amqp-0-9-1-reference.html#constants: 403 ACCESS_REFUSED, 404
NOT_FOUND, 405 RESOURCE_LOCKED, 406 PRECONDITION_FAILED, 320 CONNECTION_FORCED, 501
FRAME_ERROR, 503 COMMAND_INVALID, 530 NOT_ALLOWED, 540 NOT_IMPLEMENTED), RabbitMQ's guides
(https://www.rabbitmq.com/docs/queues, /docs/access-control, /docs/vhosts,
/docs/maxlength, /docs/ttl, /docs/quorum-queues, /docs/streams, /docs/confirms,
/docs/connection-blocked, /docs/heartbeats) and pika's exceptions
(https://pika.readthedocs.io/en/stable/modules/exceptions.html):

- fixable: what the model wrote that the broker or pika refuses: an exchange type not in
  the closed list (503 ``unknown exchange type``), a queue name with the reserved ``amq.``
  prefix (403), queue arguments of the wrong type or out of range (406 ``invalid arg``: a
  negative ``x-max-length``, a string TTL, ``x-queue-type`` / ``x-overflow`` values not in
  their lists, ``x-max-priority`` above 255, ``x-expires`` 0, a number as
  ``x-dead-letter-exchange``, a stream's ``x-max-age`` without a valid unit), properties
  that quorum queues do not have (non-durable, exclusive, ``x-max-priority``), a negative
  per-message ``expiration`` (406), a binding to the default exchange (403), a non-zero
  ``prefetch_size`` (540), a consumer on a stream without a prefetch count (406), pika's
  own checks of the values it encodes (a queue name over 255 bytes ``ShortStringTooLong``,
  a float table value ``UnsupportedAMQPFieldException``, an integer past 64 bits, a
  priority past 255 and a prefetch count past 65535 ``struct.error``, a negative prefetch
  count ``ValueError``, a number as routing key or expiration ``AssertionError``, an object
  as body ``AttributeError``), and URL options ``URLParameters`` rejects (a heartbeat that
  is not a number, an unknown option).
- ambiguous: a queue or exchange the model named that does not exist (404 on get, publish,
  passive declare, bind), a routing key no queue is bound to (``UnroutableError``
  with ``mandatory``), a vhost the model named that does not exist (530 ``vhost ... not
  found``: deleted, never there or mistyped), conflicts with stored state (406
  ``inequivalent arg`` on a redeclare with other arguments, durability or type; a queue or
  exchange ``in use`` or ``not empty`` on a conditional delete; 405 ``RESOURCE_LOCKED`` for
  an exclusive queue another connection owns; 403 ``in exclusive use`` for a queue with an
  exclusive consumer; 403 for an exchange declared ``internal``), a delivery tag this
  channel never delivered (406 ``unknown delivery tag``), and messages read from a file the
  model named whose stored properties pika or the broker refuse.
- unrecoverable: the configured credentials (403 login refused, pika's
  ``ProbableAuthenticationError``), an authentication mechanism the broker does not offer
  (``AuthenticationError``), the account's permissions (530 no access to the vhost; 403
  configure, write and read permissions, a topic permission), the configured vhost gone
  (530), a user connection limit of 0 (530), the vhost's queue limit used up (406), an
  exchange type whose plugin is not enabled (503 ``x-delayed-message``), the node's
  ``max_message_size`` (406) and frame size (501 for a header table larger than a frame),
  and a configured port that is not an AMQP 0-9-1 listener (an SSH server, an AMQP 1.0-only
  broker: ``IncompatibleProtocolError``).
- transient: a connection refused while the node's application is stopped (a restart), a
  host name that does not resolve, a node that stops answering during the handshake
  (``AMQPConnectorStackTimeout``), the vhost's or the user's connection limit and the user's
  channel limit reached while other connections hold them (530), an operator closing the
  connection (320, before the next call) and a queue at ``x-max-length`` or
  ``x-max-length-bytes`` with ``x-overflow: reject-publish`` (``NackError``: rejected until
  consumers drain it), all not executed; a node shutting down while a consumer waited
  (320), missed heartbeats while a confirm was awaited (``AMQPHeartbeatTimeout``) and a
  publish held by a memory alarm past ``blocked_connection_timeout``
  (``ConnectionBlockedTimeout``): unknown outcome.

Not triggered: a consumer cancelled by the broker when its queue is deleted (pika's
``BlockingChannel.consume`` ends without raising), a duplicate consumer tag and reuse of a
closed channel or connection (the tool's own bookkeeping, not the model's or the broker's),
``basic.get`` on a stream queue (540: whether the model should have used another tool is
not a change of its arguments), deleting a system exchange (403: whether anything the model
could write would serve its purpose is a guess), a call on an idle connection after the
application stopped (it read a connection reset, not the 320 a waiting consumer reads:
not shown to be stable), 504 CHANNEL_ERROR and 505
UNEXPECTED_FRAME (client bugs pika does not produce), TLS errors (need certificates) and a
disk alarm (the same ``ConnectionBlockedTimeout`` as the memory alarm). Texts are RabbitMQ
3.10's (Debian 12); other broker versions word some messages differently.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from ._common import NE, UO, A, F, T, U, free_port, raw_server, wait_port

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "pika"
REQUIRES = ["pika==1.4.4"]

_RABBIT_BIN = Path("/usr/lib/rabbitmq/bin")
_SERVER, _CTL = _RABBIT_BIN / "rabbitmq-server", _RABBIT_BIN / "rabbitmqctl"
_EPMD_CANDIDATES = ("/usr/bin/epmd", "/usr/lib/erlang/bin/epmd")

PUB, PUBF, DQ, DX, CHK, GET, CONS, ACK = (
    "publish_message",
    "publish_file",
    "declare_queue",
    "declare_exchange",
    "check_queue",
    "get_message",
    "consume_messages",
    "ack_message",
)
BINDQ, BINDX, DELQ, DELX, VHOST, URL = (
    "bind_queue",
    "bind_exchange",
    "delete_queue",
    "delete_exchange",
    "open_vhost",
    "check_broker_url",
)
AGENT_PASSWORD = "agent-pw-5"
CaseFn = Callable[[str, str, str, "str | None", BaseException, str, dict[str, Any]], Case]


def _epmd() -> str | None:
    return next((p for p in _EPMD_CANDIDATES if os.path.exists(p)), None)


def available() -> str | None:
    for path in (_SERVER, _CTL):
        if not path.exists():
            return f"RabbitMQ's {path.name} is not installed (Debian package rabbitmq-server)"
    if _epmd() is None:
        return "Erlang's epmd is not installed (Debian package erlang-base)"
    return None


class Broker:
    """A RabbitMQ node of this module's own (its epmd, node name and directories)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        base = ctx.tmp / "rabbitmq"
        base.mkdir()
        self.base = base
        self.port, self.dist, self.epmd_port = free_port(), free_port(), free_port()
        ctx.name_port(self.port, "AMQPPORT")
        (base / "rabbitmq.conf").write_text(
            "max_message_size = 1048576\nlog.console = false\nlog.file.level = warning\n"
        )
        (base / "enabled_plugins").write_text("[].\n")
        (base / "rabbitmq-env.conf").write_text("")
        self.env = {
            **os.environ,
            "HOME": str(base),
            "RABBITMQ_NODENAME": "toolerr_pika@localhost",
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(self.dist),
            "ERL_EPMD_PORT": str(self.epmd_port),
            "RABBITMQ_MNESIA_BASE": str(base / "mnesia"),
            "RABBITMQ_LOG_BASE": str(base / "log"),
            "RABBITMQ_CONFIG_FILE": str(base / "rabbitmq.conf"),
            "RABBITMQ_ADVANCED_CONFIG_FILE": str(base / "advanced.config"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(base / "enabled_plugins"),
            "RABBITMQ_CONF_ENV_FILE": str(base / "rabbitmq-env.conf"),
            "RABBITMQ_PID_FILE": str(base / "rabbitmq.pid"),
            "RABBITMQ_FEATURE_FLAGS_FILE": str(base / "feature_flags"),
        }

    def ctl(self, *args: str) -> str:
        done = subprocess.run(
            [str(_CTL), *args], env=self.env, capture_output=True, text=True, timeout=120, cwd=self.base
        )
        if done.returncode != 0:
            raise RuntimeError(f"rabbitmqctl {' '.join(args)}: {done.stdout[-1000:]} {done.stderr[-1000:]}")
        return done.stdout

    @contextmanager
    def running(self) -> Iterator[Broker]:
        epmd = subprocess.Popen(
            [str(_epmd()), "-port", str(self.epmd_port)],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        server = None
        try:
            wait_port(self.epmd_port, timeout=20)
            server = subprocess.Popen(
                [str(_SERVER)],
                env=self.env,
                cwd=self.base,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            wait_port(self.port, timeout=120)
            self.ctl("await_startup")
            yield self
        finally:
            if server is not None:
                self.cont()
                try:
                    self.ctl("stop")
                except Exception:
                    pass
                try:
                    server.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait(timeout=10)
            epmd.terminate()
            try:
                epmd.wait(timeout=10)
            except subprocess.TimeoutExpired:
                epmd.kill()
                epmd.wait(timeout=10)

    def beam(self) -> int:
        return int((self.base / "rabbitmq.pid").read_text().strip())

    def stop(self) -> None:
        os.kill(self.beam(), signal.SIGSTOP)

    def cont(self) -> None:
        try:
            os.kill(self.beam(), signal.SIGCONT)
        except (OSError, ValueError):
            pass

    def params(
        self, user: str = "agent", password: str = AGENT_PASSWORD, vhost: str = "shop", **kw: Any
    ) -> Any:
        import pika

        kw.setdefault("connection_attempts", 1)
        kw.setdefault("socket_timeout", 5)
        kw.setdefault("stack_timeout", 10)
        return pika.ConnectionParameters(
            "127.0.0.1", self.port, vhost, pika.PlainCredentials(user, password), **kw
        )

    def connect(
        self, user: str = "agent", password: str = AGENT_PASSWORD, vhost: str = "shop", **kw: Any
    ) -> Any:
        import pika

        return pika.BlockingConnection(self.params(user, password, vhost, **kw))


class Tools:
    """The agent's tools: each call opens its own connection with the tool's account."""

    def __init__(
        self, broker: Broker, user: str = "agent", password: str = AGENT_PASSWORD, vhost: str = "shop"
    ):
        self.broker, self.user, self.password, self.vhost = broker, user, password, vhost
        self.opened: list[Any] = []

    def channel(self, **kw: Any) -> Any:
        conn = self.broker.connect(self.user, self.password, self.vhost, **kw)
        self.opened.append(conn)
        return conn.channel()

    def close(self) -> None:
        for conn in self.opened:
            try:
                conn.close()
            except Exception:
                pass
        self.opened.clear()

    def publish(
        self,
        exchange: str,
        routing_key: Any,
        body: Any,
        headers: dict[str, Any] | None = None,
        expiration: Any = None,
        priority: Any = None,
        **conn_kw: Any,
    ) -> Callable[[], Any]:
        import pika

        def run() -> Any:
            ch = self.channel(**conn_kw)
            ch.confirm_delivery()
            props = pika.BasicProperties(
                content_type="application/json",
                delivery_mode=pika.DeliveryMode.Persistent,
                headers=headers,
                expiration=expiration,
                priority=priority,
            )
            ch.basic_publish(exchange, routing_key, body, props, mandatory=True)
            # the broker checks a per-message expiration when it enqueues: a round trip
            # after the confirm surfaces a channel it closed
            ch.basic_qos(prefetch_count=0)

        return run

    def publish_file(self, path: Path, exchange: str, routing_key: str) -> Callable[[], Any]:
        def run() -> Any:
            message = json.loads(path.read_text())
            props = message.get("properties", {})
            body = message["body"]
            if not isinstance(body, str):
                body = json.dumps(body)
            return self.publish(
                exchange,
                routing_key,
                body,
                headers=props.get("headers"),
                expiration=props.get("expiration"),
                priority=props.get("priority"),
            )()

        return run

    def declare_queue(
        self,
        queue: str,
        durable: bool = True,
        exclusive: bool = False,
        auto_delete: bool = False,
        arguments: dict[str, Any] | None = None,
    ) -> Callable[[], Any]:
        return lambda: self.channel().queue_declare(
            queue, durable=durable, exclusive=exclusive, auto_delete=auto_delete, arguments=arguments
        )

    def declare_exchange(
        self, exchange: str, kind: str, durable: bool = True, arguments: dict[str, Any] | None = None
    ) -> Callable[[], Any]:
        return lambda: self.channel().exchange_declare(exchange, kind, durable=durable, arguments=arguments)

    def check_queue(self, queue: str) -> Callable[[], Any]:
        return lambda: self.channel().queue_declare(queue, passive=True)

    def get(self, queue: str) -> Callable[[], Any]:
        def run() -> Any:
            ch = self.channel()
            method, _props, body = ch.basic_get(queue)
            if method is not None:
                ch.basic_ack(method.delivery_tag)
            return body

        return run

    def consume(
        self, queue: str, prefetch_count: int | None = 10, prefetch_size: int = 0, timeout: float = 1.0
    ) -> Callable[[], Any]:
        def run() -> Any:
            ch = self.channel()
            if prefetch_count is not None or prefetch_size:
                ch.basic_qos(prefetch_size=prefetch_size, prefetch_count=prefetch_count or 0)
            for method, _props, body in ch.consume(queue, inactivity_timeout=timeout):
                if method is not None:
                    ch.basic_ack(method.delivery_tag)
                return body
            return None

        return run

    def ack(self, delivery_tag: int) -> Callable[[], Any]:
        def run() -> Any:
            ch = self.channel()
            ch.basic_ack(delivery_tag)
            ch.basic_qos(prefetch_count=0)  # a round trip: the broker's answer to the ack

        return run

    def bind_queue(self, queue: str, exchange: str, routing_key: str) -> Callable[[], Any]:
        return lambda: self.channel().queue_bind(queue, exchange, routing_key)

    def bind_exchange(self, destination: str, source: str, routing_key: str) -> Callable[[], Any]:
        return lambda: self.channel().exchange_bind(destination, source, routing_key)

    def delete_queue(self, queue: str, if_unused: bool = False, if_empty: bool = False) -> Callable[[], Any]:
        return lambda: self.channel().queue_delete(queue, if_unused=if_unused, if_empty=if_empty)

    def delete_exchange(self, exchange: str, if_unused: bool = False) -> Callable[[], Any]:
        return lambda: self.channel().exchange_delete(exchange, if_unused=if_unused)


def _setup(b: Broker) -> None:
    for vhost in ("shop", "small", "archive"):
        b.ctl("add_vhost", vhost)
    users = [
        ("agent", AGENT_PASSWORD, "shop", (".*", ".*", ".*")),
        ("reader", "reader-pw", "shop", ("", "", ".*")),
        ("intake", "intake-pw", "shop", ("^intake\\..*", "^intake\\..*", "^intake\\..*")),
        ("outsider", "outsider-pw", None, None),
        ("worker", "worker-pw", "shop", (".*", ".*", ".*")),
        ("batch", "batch-pw", "shop", (".*", ".*", ".*")),
        ("frozen", "frozen-pw", "shop", (".*", ".*", ".*")),
    ]
    for user, password, vhost, perms in users:
        b.ctl("add_user", user, password)
        if vhost is not None and perms is not None:
            b.ctl("set_permissions", "-p", vhost, user, *perms)
    b.ctl("set_permissions", "-p", "small", "agent", ".*", ".*", ".*")
    b.ctl("set_permissions", "-p", "archive", "agent", ".*", ".*", ".*")
    b.ctl("set_topic_permissions", "-p", "shop", "agent", "amq.topic", "^orders\\.eu\\..*", "^orders\\..*")
    b.ctl("set_vhost_limits", "-p", "small", '{"max-queues": 2, "max-connections": 1}')
    b.ctl("set_user_limits", "worker", '{"max-connections": 1}')
    b.ctl("set_user_limits", "batch", '{"max-channels": 1}')
    b.ctl("set_user_limits", "frozen", '{"max-connections": 0}')
    conn = b.connect()
    ch = conn.channel()
    ch.queue_declare("orders", durable=True)
    ch.queue_declare("invoices", durable=True)
    ch.exchange_declare("billing", "direct", durable=True)
    ch.queue_bind("invoices", "billing", "invoice.created")
    ch.exchange_declare("events", "topic", durable=True)
    ch.exchange_declare("audit.internal", "fanout", durable=True, internal=True)
    ch.queue_declare("ticks", durable=True, arguments={"x-queue-type": "stream"})
    ch.queue_declare("tasks", durable=True)
    ch.confirm_delivery()
    ch.basic_publish("", "invoices", b'{"invoice": 17}')
    conn.close()


def _model_args(b: Broker, t: Tools, case: CaseFn) -> Iterator[Case]:
    """The model's own mistakes in what it wrote."""

    def dq(slug: str, cause: str, queue: str, arguments: dict[str, Any] | None = None, **flags: Any) -> Case:
        args: dict[str, Any] = {"queue": queue, "durable": flags.pop("durable", True), **flags}
        if arguments is not None:
            args["arguments"] = arguments
        fn = t.declare_queue(queue, args["durable"], arguments=arguments, **flags)
        return case(slug, cause, F, None, _catch(fn), DQ, args)

    yield case(
        "exchange-type-typo",
        "exchange type not one of direct/fanout/topic/headers (503 COMMAND_INVALID)",
        F,
        None,
        _catch(t.declare_exchange("notifications", "fanoutt")),
        DX,
        {"exchange": "notifications", "type": "fanoutt", "durable": True},
    )
    yield dq("queue-reserved-prefix", "queue name with the reserved amq. prefix (403)", "amq.orders.retry")
    yield dq(
        "max-length-negative",
        "x-max-length below 0 (406 invalid arg)",
        "orders.capped",
        {"x-max-length": -1},
    )
    yield dq(
        "ttl-as-string",
        "x-message-ttl written as a string (406 invalid arg)",
        "orders.delayed",
        {"x-message-ttl": "60000"},
    )
    yield dq(
        "queue-type-typo",
        "x-queue-type not classic/quorum/stream (406 invalid arg)",
        "payments",
        {"x-queue-type": "quorom"},
    )
    yield dq(
        "overflow-value",
        "x-overflow not drop-head/reject-publish/reject-publish-dlx (406 invalid arg)",
        "orders.bounded",
        {"x-max-length": 1000, "x-overflow": "reject"},
    )
    yield dq(
        "max-priority-range",
        "x-max-priority above 255 (406 invalid arg)",
        "orders.priority",
        {"x-max-priority": 300},
    )
    yield dq("expires-zero", "x-expires of 0 ms (406 invalid arg)", "session.replies", {"x-expires": 0})
    yield dq(
        "dead-letter-number",
        "x-dead-letter-exchange given a number (406 invalid type)",
        "orders.main",
        {"x-dead-letter-exchange": 5},
    )
    yield dq(
        "stream-max-age-unit",
        "a stream's x-max-age without a valid unit (406 invalid arg)",
        "clicks",
        {"x-queue-type": "stream", "x-max-age": "7days"},
    )
    yield dq(
        "quorum-non-durable",
        "a quorum queue declared non-durable (406 invalid property)",
        "payments.q",
        {"x-queue-type": "quorum"},
        durable=False,
    )
    yield dq(
        "quorum-exclusive",
        "a quorum queue declared exclusive (406 invalid property)",
        "payments.replies",
        {"x-queue-type": "quorum"},
        exclusive=True,
    )
    yield dq(
        "quorum-priority",
        "x-max-priority on a quorum queue (406, not supported by the queue type)",
        "payments.prio",
        {"x-queue-type": "quorum", "x-max-priority": 10},
    )
    yield dq(
        "max-length-float",
        "x-max-length given 1.5 (pika cannot encode a float table value)",
        "orders.half",
        {"x-max-length": 1.5},
    )
    yield dq(
        "max-length-huge",
        "x-max-length past a 64-bit integer (struct.error)",
        "orders.huge",
        {"x-max-length": 10**20},
    )
    name = "orders." + "backfill-" * 33
    yield dq("queue-name-too-long", "queue name over 255 bytes (ShortStringTooLong)", name)
    yield case(
        "expiration-negative",
        "per-message expiration '-1' (406 invalid expiration)",
        F,
        None,
        _catch(t.publish("", "orders", '{"order": 1}', expiration="-1")),
        PUB,
        {"exchange": "", "routing_key": "orders", "body": '{"order": 1}', "expiration": "-1"},
    )
    yield case(
        "expiration-number",
        "expiration given as a number, the property is a string (AssertionError)",
        F,
        None,
        _catch(t.publish("", "orders", '{"order": 3}', expiration=60000)),
        PUB,
        {"exchange": "", "routing_key": "orders", "body": '{"order": 3}', "expiration": 60000},
    )
    yield case(
        "priority-range",
        "message priority 300, the property is an octet (struct.error)",
        F,
        None,
        _catch(t.publish("", "orders", '{"order": 4}', priority=300)),
        PUB,
        {"exchange": "", "routing_key": "orders", "body": '{"order": 4}', "priority": 300},
    )
    yield case(
        "routing-key-number",
        "routing key given as a number (AssertionError)",
        F,
        None,
        _catch(t.publish("billing", 42, '{"invoice": 42}')),
        PUB,
        {"exchange": "billing", "routing_key": 42, "body": '{"invoice": 42}'},
    )
    body = {"order": 5, "status": "paid"}
    yield case(
        "body-object",
        "body given as a JSON object, the tool takes a string (AttributeError in pika)",
        F,
        None,
        _catch(t.publish("", "orders", body)),
        PUB,
        {"exchange": "", "routing_key": "orders", "body": body},
    )
    yield case(
        "bind-default-exchange",
        "binding to the default exchange '' (403 operation not permitted)",
        F,
        None,
        _catch(t.bind_queue("orders", "", "orders")),
        BINDQ,
        {"queue": "orders", "exchange": "", "routing_key": "orders"},
    )
    for slug, cause, kw in [
        (
            "prefetch-size",
            "a non-zero prefetch_size (540 NOT_IMPLEMENTED)",
            {"prefetch_count": 10, "prefetch_size": 1024},
        ),
        ("prefetch-count-range", "prefetch_count above 65535 (struct.error)", {"prefetch_count": 70000}),
        ("prefetch-count-negative", "negative prefetch_count (ValueError)", {"prefetch_count": -1}),
    ]:
        yield case(slug, cause, F, None, _catch(t.consume("orders", **kw)), CONS, {"queue": "orders", **kw})
    yield case(
        "stream-no-prefetch",
        "a consumer on a stream queue without a prefetch count (406)",
        F,
        None,
        _catch(t.consume("ticks", prefetch_count=None)),
        CONS,
        {"queue": "ticks"},
    )
    import pika

    for slug, cause, url in [
        (
            "url-heartbeat",
            "heartbeat option that is not a number (ValueError)",
            "amqp://rabbit.internal:5672/shop?heartbeat=soon",
        ),
        (
            "url-unknown-option",
            "an option URLParameters does not know",
            "amqp://rabbit.internal/shop?timeout=5",
        ),
    ]:
        yield case(slug, cause, F, None, _catch(lambda: pika.URLParameters(url)), URL, {"url": url})


def _state(b: Broker, t: Tools, case: CaseFn) -> Iterator[Case]:
    """Names that do not exist and conflicts with what the broker holds."""
    yield case(
        "get-unknown-queue",
        "the queue the model named does not exist (404)",
        A,
        None,
        _catch(t.get("order-events")),
        GET,
        {"queue": "order-events"},
    )
    yield case(
        "publish-unknown-exchange",
        "the exchange the model named does not exist (404)",
        A,
        None,
        _catch(t.publish("order-events", "order.created", '{"order": 7}')),
        PUB,
        {"exchange": "order-events", "routing_key": "order.created", "body": '{"order": 7}'},
    )
    yield case(
        "check-unknown-queue",
        "passive declare of a queue that does not exist (404)",
        A,
        None,
        _catch(t.check_queue("refunds")),
        CHK,
        {"queue": "refunds"},
    )
    yield case(
        "bind-unknown-exchange",
        "binding to an exchange that does not exist (404)",
        A,
        None,
        _catch(t.bind_queue("orders", "order-events", "order.*")),
        BINDQ,
        {"queue": "orders", "exchange": "order-events", "routing_key": "order.*"},
    )
    yield case(
        "unroutable",
        "no queue bound for the routing key, published mandatory (UnroutableError)",
        A,
        None,
        _catch(t.publish("billing", "invoice.voided", '{"invoice": 9}')),
        PUB,
        {"exchange": "billing", "routing_key": "invoice.voided", "body": '{"invoice": 9}'},
    )
    yield case(
        "vhost-unknown",
        "the vhost the model named does not exist (530)",
        A,
        None,
        _catch(lambda: b.connect(vhost="shop-staging")),
        VHOST,
        {"vhost": "shop-staging"},
    )
    args = {"x-message-ttl": 60000}
    yield case(
        "redeclare-arguments",
        "the queue exists without the x-message-ttl the model gave (406 inequivalent arg)",
        A,
        None,
        _catch(t.declare_queue("orders", True, arguments=args)),
        DQ,
        {"queue": "orders", "durable": True, "arguments": args},
    )
    yield case(
        "redeclare-durable",
        "the queue exists as durable, redeclared transient (406 inequivalent arg)",
        A,
        None,
        _catch(t.declare_queue("orders", False)),
        DQ,
        {"queue": "orders", "durable": False},
    )
    yield case(
        "redeclare-exchange-type",
        "the exchange exists as direct, redeclared topic (406 inequivalent arg)",
        A,
        None,
        _catch(t.declare_exchange("billing", "topic")),
        DX,
        {"exchange": "billing", "type": "topic", "durable": True},
    )
    yield case(
        "delete-not-empty",
        "conditional delete of a queue holding messages (406 not empty)",
        A,
        None,
        _catch(t.delete_queue("invoices", if_empty=True)),
        DELQ,
        {"queue": "invoices", "if_empty": True},
    )
    yield case(
        "delete-exchange-in-use",
        "conditional delete of an exchange with bindings (406 in use)",
        A,
        None,
        _catch(t.delete_exchange("billing", if_unused=True)),
        DELX,
        {"exchange": "billing", "if_unused": True},
    )
    yield case(
        "publish-internal-exchange",
        "the exchange the model named is declared internal (403)",
        A,
        None,
        _catch(t.publish("audit.internal", "", '{"event": "login"}')),
        PUB,
        {"exchange": "audit.internal", "routing_key": "", "body": '{"event": "login"}'},
    )
    yield case(
        "ack-unknown-tag",
        "a delivery tag this channel never delivered (406 unknown delivery tag)",
        A,
        None,
        _catch(t.ack(42)),
        ACK,
        {"delivery_tag": 42},
    )

    # another connection of the same service owns an exclusive queue and consumes
    # exclusively from another one
    owner = b.connect()
    och = owner.channel()
    och.queue_declare("replies.worker-7", exclusive=True)
    och.basic_consume("tasks", lambda *_: None, exclusive=True)
    yield case(
        "exclusive-queue-declare",
        "an exclusive queue of another connection (405 RESOURCE_LOCKED)",
        A,
        None,
        _catch(t.declare_queue("replies.worker-7", False)),
        DQ,
        {"queue": "replies.worker-7", "durable": False},
    )
    yield case(
        "exclusive-consumer",
        "another connection consumes exclusively from the queue (403 in exclusive use)",
        A,
        None,
        _catch(t.consume("tasks")),
        CONS,
        {"queue": "tasks", "prefetch_count": 10},
    )
    yield case(
        "delete-in-use",
        "conditional delete of a queue with a consumer (406 in use)",
        A,
        None,
        _catch(t.delete_queue("tasks", if_unused=True)),
        DELQ,
        {"queue": "tasks", "if_unused": True},
    )
    owner.close()

    # messages the tool reads from a file the model names
    outbox = b.ctx.tmp / "outbox"
    outbox.mkdir()
    files = {
        "retry-0412.json": {"body": {"order": 412}, "properties": {"priority": 900}},
        "retry-0413.json": {"body": {"order": 413}, "properties": {"expiration": "-5000"}},
        "retry-0414.json": {"body": {"order": 414}, "properties": {"headers": {"attempt": 2.5}}},
    }
    for name, message in files.items():
        (outbox / name).write_text(json.dumps(message))
    for slug, name, cause in [
        ("file-priority", "retry-0412.json", "the stored message's priority is 900 (struct.error)"),
        ("file-expiration", "retry-0413.json", "the stored message's expiration is negative (406)"),
        (
            "file-header-float",
            "retry-0414.json",
            "the stored message's header holds a float pika cannot encode",
        ),
    ]:
        fn = t.publish_file(outbox / name, "", "orders")
        args = {"path": f"outbox/{name}", "exchange": "", "routing_key": "orders"}
        yield case(slug, cause, A, None, _catch(fn), PUBF, args)


def _refused(b: Broker, t: Tools, case: CaseFn) -> Iterator[Case]:
    """Credentials, permissions, limits and features of the installation."""
    import pika

    q = {"queue": "orders"}
    yield case(
        "wrong-password",
        "the configured password is wrong (403 login refused)",
        U,
        None,
        _catch(lambda: b.connect(password="agent-pw-4")),
        GET,
        q,
    )
    yield case(
        "external-mechanism",
        "the tool authenticates with EXTERNAL, which the broker does not offer",
        U,
        None,
        _catch(
            lambda: pika.BlockingConnection(
                pika.ConnectionParameters(
                    "127.0.0.1", b.port, "shop", pika.credentials.ExternalCredentials(), connection_attempts=1
                )
            )
        ),
        GET,
        q,
    )
    yield case(
        "vhost-access-refused",
        "the account has no permissions on the vhost (530)",
        U,
        None,
        _catch(lambda: b.connect("outsider", "outsider-pw")),
        GET,
        q,
    )
    b.ctl("delete_vhost", "archive")
    yield case(
        "configured-vhost-gone",
        "the vhost the tool is configured with was deleted (530)",
        U,
        None,
        _catch(lambda: b.connect(vhost="archive")),
        GET,
        q,
    )
    yield case(
        "user-connections-zero",
        "the account's connection limit is 0 (530)",
        U,
        None,
        _catch(lambda: b.connect("frozen", "frozen-pw")),
        GET,
        q,
    )
    reader = Tools(b, "reader", "reader-pw")
    yield case(
        "write-refused",
        "the account has no write permission on the exchange (403)",
        U,
        None,
        _catch(reader.publish("billing", "invoice.created", '{"invoice": 18}')),
        PUB,
        {"exchange": "billing", "routing_key": "invoice.created", "body": '{"invoice": 18}'},
    )
    yield case(
        "configure-refused",
        "the account has no configure permission (403)",
        U,
        None,
        _catch(reader.declare_queue("reports.daily")),
        DQ,
        {"queue": "reports.daily", "durable": True},
    )
    reader.close()
    intake = Tools(b, "intake", "intake-pw")
    yield case(
        "read-refused",
        "the account's read permission covers intake.* queues only (403)",
        U,
        None,
        _catch(intake.get("orders")),
        GET,
        q,
    )
    intake.close()
    yield case(
        "topic-refused",
        "the account's topic permission allows orders.eu.* only (403)",
        U,
        None,
        _catch(t.publish("amq.topic", "orders.us.created", '{"order": 8}')),
        PUB,
        {"exchange": "amq.topic", "routing_key": "orders.us.created", "body": '{"order": 8}'},
    )
    yield case(
        "exchange-plugin-missing",
        "x-delayed-message exchange type: the plugin is not enabled (503)",
        U,
        None,
        _catch(
            t.declare_exchange("orders.later", "x-delayed-message", arguments={"x-delayed-type": "direct"})
        ),
        DX,
        {"exchange": "orders.later", "type": "x-delayed-message", "arguments": {"x-delayed-type": "direct"}},
    )
    setup = b.connect(vhost="small")
    sch = setup.channel()
    sch.queue_declare("small.one", durable=True)
    sch.queue_declare("small.two", durable=True)
    setup.close()
    small = Tools(b, vhost="small")
    yield case(
        "vhost-queue-limit",
        "the vhost's max-queues limit is used up (406)",
        U,
        None,
        _catch(small.declare_queue("small.three")),
        DQ,
        {"queue": "small.three", "durable": True},
    )
    small.close()
    big = "x" * 1_200_000
    (b.ctx.tmp / "outbox" / "catalog-export.json").write_text(json.dumps({"body": big}))
    yield case(
        "message-too-large",
        "the message is larger than the node's max_message_size (406)",
        U,
        None,
        _catch(t.publish_file(b.ctx.tmp / "outbox" / "catalog-export.json", "", "orders")),
        PUBF,
        {"path": "outbox/catalog-export.json", "exchange": "", "routing_key": "orders"},
    )
    headers = {"trace": "<200000 characters>"}
    yield case(
        "header-frame-too-large",
        "a header table larger than the negotiated frame_max (501 FRAME_ERROR)",
        U,
        None,
        _catch(t.publish("", "orders", '{"order": 6}', headers={"trace": "t" * 200_000})),
        PUB,
        {"exchange": "", "routing_key": "orders", "body": '{"order": 6}', "headers": headers},
    )

    def ssh(conn: socket.socket) -> None:
        conn.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n")
        time.sleep(1)

    def amqp10(conn: socket.socket) -> None:
        conn.recv(8)
        conn.sendall(b"AMQP\x00\x01\x00\x00")

    for slug, cause, handler, name in [
        ("port-is-ssh", "the configured port is an SSH server", ssh, "SSHPORT"),
        ("port-is-amqp10", "the configured broker speaks AMQP 1.0 only", amqp10, "AMQP10PORT"),
    ]:
        with raw_server(handler) as port:
            b.ctx.name_port(port, name)
            exc = _catch(
                lambda: pika.BlockingConnection(
                    pika.ConnectionParameters(
                        "127.0.0.1",
                        port,
                        "shop",
                        pika.PlainCredentials("agent", AGENT_PASSWORD),
                        connection_attempts=1,
                        stack_timeout=5,
                    )
                )
            )
        yield case(slug, cause, U, None, exc, GET, q)


def _transient(b: Broker, t: Tools, case: CaseFn) -> Iterator[Case]:
    import pika

    q = {"queue": "orders"}
    # connection and channel limits held by other connections of the same accounts
    holder = b.connect(vhost="small")
    yield case(
        "vhost-connection-limit",
        "the vhost's max-connections are in use (530)",
        T,
        NE,
        _catch(lambda: b.connect(vhost="small")),
        GET,
        {"queue": "small.one"},
    )
    holder.close()
    worker = b.connect("worker", "worker-pw")
    worker.channel()
    yield case(
        "user-connection-limit",
        "the account's max-connections are in use (530)",
        T,
        NE,
        _catch(lambda: b.connect("worker", "worker-pw")),
        GET,
        q,
    )
    worker.close()
    # the account's one channel is held by another of its connections: the user limit
    # counts channels across connections
    other = b.connect("batch", "batch-pw")
    other.channel()
    batch = Tools(b, "batch", "batch-pw")
    yield case(
        "user-channel-limit",
        "the account's max-channels are in use by another connection (530)",
        T,
        NE,
        _catch(batch.get("orders")),
        GET,
        q,
    )
    batch.close()
    other.close()

    # a bounded queue that rejects publishes while full
    setup = b.connect()
    sch = setup.channel()
    sch.queue_declare("notifications", arguments={"x-max-length": 2, "x-overflow": "reject-publish"})
    sch.queue_declare("webhooks", arguments={"x-max-length-bytes": 64, "x-overflow": "reject-publish"})
    sch.confirm_delivery()
    for i in range(2):
        sch.basic_publish("", "notifications", f'{{"n": {i}}}'.encode())
    sch.basic_publish("", "webhooks", b"w" * 60)
    setup.close()
    body = '{"user": 5, "text": "order shipped"}'
    yield case(
        "queue-full",
        "the queue is at x-max-length with reject-publish (nack)",
        T,
        NE,
        _catch(t.publish("", "notifications", body)),
        PUB,
        {"exchange": "", "routing_key": "notifications", "body": body},
    )
    body = '{"hook": "order.paid"}'
    yield case(
        "queue-bytes-full",
        "the queue is at x-max-length-bytes with reject-publish (nack)",
        T,
        NE,
        _catch(t.publish("", "webhooks", body)),
        PUB,
        {"exchange": "", "routing_key": "webhooks", "body": body},
    )

    # a memory alarm blocks publishers
    conn = b.connect(blocked_connection_timeout=1)
    ch = conn.channel()
    ch.confirm_delivery()
    b.ctl("set_vm_memory_high_watermark", "0.0000001")
    try:
        time.sleep(0.5)
        exc = _catch(lambda: ch.basic_publish("", "orders", b'{"order": 10}', mandatory=True))
    finally:
        b.ctl("set_vm_memory_high_watermark", "0.4")
    yield case(
        "blocked-memory-alarm",
        "publish held by a memory alarm past blocked_connection_timeout",
        T,
        UO,
        exc,
        PUB,
        {"exchange": "", "routing_key": "orders", "body": '{"order": 10}'},
    )

    # the node stops answering (frozen): a handshake, then a confirm awaited
    conn = b.connect(heartbeat=1)
    ch = conn.channel()
    ch.confirm_delivery()
    b.stop()
    try:
        exc = _catch(lambda: ch.basic_publish("", "orders", b'{"order": 11}', mandatory=True))
        stalled = _catch(lambda: b.connect(stack_timeout=2))
    finally:
        b.cont()
    yield case(
        "heartbeat-timeout",
        "the node stopped answering while a confirm was awaited (missed heartbeats)",
        T,
        UO,
        exc,
        PUB,
        {"exchange": "", "routing_key": "orders", "body": '{"order": 11}'},
    )
    yield case(
        "handshake-timeout",
        "the node accepted the connection but did not answer the handshake",
        T,
        NE,
        stalled,
        GET,
        q,
    )

    # an operator closes the connections between two calls of a tool that keeps its
    # connection
    kept = b.connect()
    kch = kept.channel()
    kch.basic_get("orders")
    b.ctl("close_all_connections", "-p", "shop", "maintenance: connections closed by the operator")
    time.sleep(0.5)
    yield case(
        "closed-by-operator",
        "an operator closed the connection before the call (320 CONNECTION_FORCED)",
        T,
        NE,
        _catch(lambda: kch.basic_get("orders")),
        GET,
        q,
    )

    # the node's application stops while a consumer waits, then refuses connections
    conn = b.connect()
    ch = conn.channel()
    ch.queue_purge("orders")
    stopper = threading.Timer(0.5, lambda: b.ctl("stop_app"))
    stopper.start()

    def consume() -> Any:
        for method, _props, _body in ch.consume("orders", inactivity_timeout=20):
            if method is not None:
                return method
        return None

    try:
        exc = _catch(consume)
    finally:
        stopper.join()
    yield case(
        "node-shutdown",
        "the node shut down while the consumer waited (320 CONNECTION_FORCED)",
        T,
        UO,
        exc,
        CONS,
        {"queue": "orders", "prefetch_count": 10},
    )
    refused = _catch(lambda: b.connect())
    b.ctl("start_app")
    wait_port(b.port, timeout=60)
    yield case("refused", "the node is restarting: connection refused", T, NE, refused, GET, q)
    yield case(
        "dns",
        "the configured host name does not resolve",
        T,
        NE,
        _catch(
            lambda: pika.BlockingConnection(
                pika.ConnectionParameters("rabbitmq.shop.invalid", 5672, "shop", connection_attempts=1)
            )
        ),
        GET,
        q,
    )


def cases(ctx: Context) -> Iterator[Case]:
    def case(
        slug: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> Case:
        return Case(f"pika-{slug}", LIBRARY, cause, kind, outcome, exc, tool, args)

    broker = Broker(ctx)
    with broker.running() as b:
        _setup(b)
        t = Tools(b)
        for part in (_model_args, _state, _refused, _transient):
            for c in part(b, t, case):
                yield c
                t.close()
        t.close()
