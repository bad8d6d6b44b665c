"""paho-mqtt against real ``mosquitto`` brokers (Debian package ``mosquitto``) on
127.0.0.1: one requiring a password (``password_file``, no anonymous clients), one open to
anonymous clients that rejects empty client ids (``allow_zero_length_clientid false``);
MQTT 3.1.1 and 5.0 CONNACK refusals as ``paho.mqtt.publish``/``subscribe`` raise them
(``MQTTException``), the client's own checks on topics, QoS, payloads and connection
arguments, its outgoing queue, and connections that never reach a broker.

Labels by the cause set up: a topic, filter, QoS, payload or connection argument the model
wrote that paho rejects is fixable; a broker refusing the credentials or client id, and a
TLS or WebSocket client against a plain MQTT listener (configuration), are unrecoverable;
refused connections, DNS, a missing socket, publishing while disconnected and a full
outgoing queue are transient, not executed; a file that does not exist (the TLS CA) is
ambiguous, as in ``csv_.py``. CONNACK reason codes: MQTT 3.1.1 section
3.2.2.3 and MQTT 5.0 section 3.2.2.2 (https://docs.oasis-open.org/mqtt/mqtt/v5.0/mqtt-v5.0.html);
mosquitto.conf(5)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from generate import Case

from ._common import NE, A, F, T, U, catch, free_port, process

LIBRARY = "paho-mqtt"
REQUIRES = ["paho-mqtt>=2.1,<3"]


def available() -> str | None:
    if shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto").exists():
        return "mosquitto is not installed (Debian package mosquitto)"
    if shutil.which("mosquitto_passwd") is None:
        return "mosquitto_passwd is not installed (Debian package mosquitto)"
    return None


def _binary() -> str:
    return shutil.which("mosquitto") or "/usr/sbin/mosquitto"


@contextmanager
def _broker(tmp: Path, name: str, *lines: str) -> Iterator[int]:
    port = free_port()
    conf = tmp / f"{name}.conf"
    run_as = ["user root"] if os.geteuid() == 0 else []  # else it drops to "mosquitto"
    conf.write_text("\n".join([f"listener {port} 127.0.0.1", "persistence false", *run_as, *lines, ""]))
    with process([_binary(), "-c", str(conf)], port):
        yield port


def cases(ctx: Any) -> Iterator[Case]:
    import paho.mqtt.client as mqtt
    import paho.mqtt.publish as publish
    import paho.mqtt.subscribe as subscribe
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    def case(
        cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException, args: dict[str, Any]
    ) -> Case:
        """``args``: the model's arguments to ``mqtt``; the broker's host and port, credentials
        and TLS or transport settings are the tool's configuration unless the case is the
        model's to fix."""
        return Case(f"mqtt-{cid}", LIBRARY, cause, kind, outcome, exc, "mqtt", arguments=args)

    pub = {"action": "publish", "topic": "a/b", "payload": "x"}

    def client(protocol: Any = mqtt.MQTTv311, **kwargs: Any) -> Any:
        return mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=protocol, **kwargs)

    tmp: Path = ctx.tmp
    passwords = tmp / "passwords"
    subprocess.run(
        ["mosquitto_passwd", "-b", "-c", str(passwords), "app", "s3cret"], check=True, capture_output=True
    )
    passwords.chmod(0o644)
    good = {"username": "app", "password": "s3cret"}
    with _broker(tmp, "auth", "allow_anonymous false", f"password_file {passwords}") as port:
        ctx.name_port(port, "MQTTPORT")
        at = {"hostname": "127.0.0.1", "port": port, "client_id": "tool"}
        # (id, cause, the model's arguments, the call): the credentials are the tool's
        refusals: list[tuple[str, str, dict[str, Any], Any]] = [
            (
                "anonymous",
                "broker requires credentials (3.1.1)",
                pub,
                lambda: publish.single("a/b", "x", **at),
            ),
            (
                "wrong-password",
                "wrong password (3.1.1)",
                pub,
                lambda: publish.single("a/b", "x", auth={"username": "app", "password": "wrong"}, **at),
            ),
            (
                "unknown-user",
                "unknown user (3.1.1)",
                pub,
                lambda: publish.single("a/b", "x", auth={"username": "bob", "password": "s3cret"}, **at),
            ),
            (
                "v5-anonymous",
                "broker requires credentials (5.0)",
                pub,
                lambda: publish.single("a/b", "x", protocol=mqtt.MQTTv5, **at),
            ),
            (
                "v5-wrong-password",
                "wrong password (5.0)",
                pub,
                lambda: publish.single(
                    "a/b", "x", auth={"username": "app", "password": "wrong"}, protocol=mqtt.MQTTv5, **at
                ),
            ),
            (
                "subscribe-wrong-password",
                "wrong password on subscribe.simple",
                {"action": "subscribe", "topic": "a/#"},
                lambda: subscribe.simple("a/#", auth={"username": "app", "password": "nope"}, **at),
            ),
        ]
        for cid, cause, args, fn in refusals:
            yield case(cid, cause, U, None, catch(fn), args)
        exc = catch(lambda: publish.single("a/b", "x", transport="websockets", auth=good, **at))
        cause = "WebSocket client against a plain MQTT listener"
        yield case("websocket-plain-listener", cause, U, None, exc, pub)
        exc = catch(lambda: publish.single("a/b", "x", tls={"ca_certs": None}, auth=good, **at))
        yield case("tls-plain-listener", "TLS client against a plain MQTT listener", U, None, exc, pub)
        # fixable: the model passed an auth object of its own
        exc = catch(lambda: publish.single("a/b", "x", auth={"password": "s3cret"}, **at))
        args = {**pub, "auth": {"password": "s3cret"}}
        yield case("auth-no-username", "auth without a username", F, None, exc, args)
    with _broker(tmp, "open", "allow_anonymous true", "allow_zero_length_clientid false") as port:
        ctx.name_port(port, "MQTTPORT2")
        at = {"hostname": "127.0.0.1", "port": port}
        exc = catch(lambda: publish.single("a/b", "x", client_id="", protocol=mqtt.MQTTv5, **at))
        yield case("v5-empty-client-id", "empty client id refused by the broker (5.0)", U, None, exc, pub)
        # the client's own checks on what the model asked to publish or subscribe
        c = client(client_id="tool")
        c.connect("127.0.0.1", port)
        c.loop_start()
        v5 = client(mqtt.MQTTv5, client_id="tool5")
        # (id, cause, the model's arguments, the call); the broker's host and port are the tool's
        calls: list[tuple[str, str, dict[str, Any], Any]] = [
            (
                "publish-wildcard-plus",
                "publish to a topic with +",
                {"action": "publish", "topic": "sensors/+/temp", "payload": "1"},
                lambda: c.publish("sensors/+/temp", "1"),
            ),
            (
                "publish-wildcard-hash",
                "publish to a topic with #",
                {"action": "publish", "topic": "sensors/#", "payload": "1"},
                lambda: c.publish("sensors/#", "1"),
            ),
            (
                "publish-empty-topic",
                "publish to an empty topic",
                {"action": "publish", "topic": "", "payload": "1"},
                lambda: c.publish("", "1"),
            ),
            # the 70,000-char topic is stored as its first 200 chars
            (
                "publish-topic-long",
                "topic longer than 65535 bytes",
                {"value": "t" * 200 + "..."},
                lambda: c.publish("t" * 70_000, "1"),
            ),
            (
                "subscribe-bad-filter",
                "# not last in a filter",
                {"action": "subscribe", "topic": "sensors/#/temp"},
                lambda: c.subscribe("sensors/#/temp"),
            ),
            (
                "subscribe-plus-inside",
                "+ inside a filter level",
                {"action": "subscribe", "topic": "sensors/a+/temp"},
                lambda: c.subscribe("sensors/a+/temp"),
            ),
            (
                "subscribe-empty-list",
                "subscribe to an empty list",
                {"action": "subscribe", "topic": []},
                lambda: c.subscribe([]),
            ),
            (
                "unsubscribe-empty",
                "unsubscribe from an empty topic",
                {"action": "unsubscribe", "topic": ""},
                lambda: c.unsubscribe(""),
            ),
            (
                "publish-qos",
                "publish with QoS 3",
                {"action": "publish", "topic": "a/b", "payload": "1", "qos": 3},
                lambda: c.publish("a/b", "1", qos=3),
            ),
            (
                "subscribe-qos",
                "subscribe with QoS 5",
                {"action": "subscribe", "topic": "a/b", "qos": 5},
                lambda: c.subscribe("a/b", qos=5),
            ),
            (
                "will-qos",
                "last will with QoS -1",
                {"action": "connect", "will": {"topic": "a/will", "payload": "bye", "qos": -1}},
                lambda: client().will_set("a/will", "bye", qos=-1),
            ),
            (
                "simple-qos",
                "subscribe.simple with QoS 3",
                {"action": "subscribe", "topic": "a/b", "qos": 3},
                lambda: subscribe.simple("a/b", qos=3, hostname="127.0.0.1", port=port),
            ),
            (
                "payload-type",
                "payload of an unsupported type (dict)",
                {"action": "publish", "topic": "a/b", "payload": {"t": 21}},
                lambda: c.publish("a/b", {"t": 21}),
            ),
            (
                "payload-list",
                "payload of an unsupported type (list)",
                {"action": "publish", "topic": "a/b", "payload": [1, 2]},
                lambda: c.publish("a/b", [1, 2]),
            ),
            (
                "connect-port",
                "port out of range",
                {"action": "connect", "host": "127.0.0.1", "port": 70000},
                lambda: client().connect("127.0.0.1", 70000),
            ),
            (
                "connect-host",
                "empty host",
                {"action": "connect", "host": ""},
                lambda: client().connect("", port),
            ),
            (
                "connect-keepalive",
                "negative keepalive",
                {"action": "connect", "keepalive": -5},
                lambda: client().connect("127.0.0.1", port, keepalive=-5),
            ),
            (
                "bind-port",
                "bind port out of range",
                {"action": "connect", "bind_port": -1},
                lambda: client().connect("127.0.0.1", port, bind_port=-1),
            ),
            (
                "clean-start-v311",
                "clean_start on an MQTT 3.1.1 client",
                {"action": "connect", "clean_start": True},
                lambda: client().connect("127.0.0.1", port, clean_start=True),
            ),
            (
                "properties-v311",
                "properties on an MQTT 3.1.1 connect",
                {"action": "connect", "properties": {}},
                lambda: client().connect("127.0.0.1", port, properties=Properties(PacketTypes.CONNECT)),
            ),
            (
                "clean-session-v5",
                "clean_session on an MQTT 5.0 client",
                {"action": "connect", "protocol": "MQTTv5", "clean_session": True},
                lambda: client(mqtt.MQTTv5, clean_session=True),
            ),
            (
                "transport",
                "unknown transport",
                {"action": "connect", "transport": "quic"},
                lambda: client(transport="quic"),
            ),
            (
                "property-packet",
                "a property that does not apply to PUBLISH",
                {"action": "publish", "properties": {"SessionExpiryInterval": 10}},
                lambda: setattr(Properties(PacketTypes.PUBLISH), "SessionExpiryInterval", 10),
            ),
            (
                "property-name",
                "an unknown MQTT 5.0 property",
                {"action": "publish", "properties": {"Priority": 1}},
                lambda: setattr(Properties(PacketTypes.PUBLISH), "Priority", 1),
            ),
            (
                "multiple-empty",
                "publish.multiple with no message",
                {"action": "publish_multiple", "messages": []},
                lambda: publish.multiple([], hostname="127.0.0.1", port=port),
            ),
            (
                "multiple-type",
                "publish.multiple with a message of the wrong type",
                {"action": "publish_multiple", "messages": ["a/b"]},
                lambda: publish.multiple(["a/b"], hostname="127.0.0.1", port=port),
            ),
            (
                "simple-count",
                "subscribe.simple with msg_count 0",
                {"action": "subscribe", "topic": "a/b", "msg_count": 0},
                lambda: subscribe.simple("a/b", msg_count=0, hostname="127.0.0.1", port=port),
            ),
            (
                "inflight",
                "max_inflight_messages below zero",
                {"action": "configure", "max_inflight_messages": -1},
                lambda: v5.max_inflight_messages_set(-1),
            ),
            (
                "queue-size-type",
                "max_queued_messages not an int",
                {"action": "configure", "max_queued_messages": "ten"},
                lambda: v5.max_queued_messages_set("ten"),
            ),
            (
                "connect-timeout",
                "negative connect timeout",
                {"action": "connect", "connect_timeout": -1},
                lambda: setattr(client(), "connect_timeout", -1),
            ),
            (
                "will-no-topic",
                "last will without a topic",
                {**pub, "will": {"payload": "bye"}},
                lambda: publish.single("a/b", "x", will={"payload": "bye"}, hostname="127.0.0.1", port=port),
            ),
        ]
        for cid, cause, args, fn in calls:
            yield case(cid, cause, F, None, catch(fn), args)
        ca = str(tmp / "ca.pem")
        exc = catch(lambda: publish.single("a/b", "x", tls={"ca_certs": ca}, hostname="127.0.0.1", port=port))
        yield case(
            "tls-ca-missing",
            "TLS CA file that does not exist",
            A,
            None,
            exc,
            {**pub, "tls": {"ca_certs": ca}},
        )
        c.loop_stop()
        c.disconnect()
    # connections that never reach a broker, and what the client does meanwhile
    offline = client(client_id="offline")
    exc = catch(lambda: offline.publish("a/b", "x", qos=1).wait_for_publish(1))
    yield case("not-connected", "publish while not connected", T, NE, exc, {**pub, "qos": 1})
    offline.max_queued_messages_set(1)
    infos = [offline.publish("a/b", str(i), qos=1) for i in range(3)]
    exc = catch(lambda: infos[-1].wait_for_publish(1))
    args = {**pub, "payload": "2", "qos": 1}  # the last of three
    yield case("queue-full", "outgoing queue full (max_queued_messages)", T, NE, exc, args)
    exc = catch(lambda: publish.single("a/b", "x", hostname="127.0.0.1", port=ctx.dead))
    yield case("refused", "connection refused", T, NE, exc, pub)
    exc = catch(lambda: publish.single("a/b", "x", hostname="broker.nonexistent.invalid"))
    yield case("dns", "DNS name does not resolve", T, NE, exc, pub)
    exc = catch(lambda: client(transport="unix").connect(str(tmp / "mosquitto.sock")))
    yield case(
        "unix-socket-missing", "unix socket of a broker not running", T, NE, exc, {"action": "connect"}
    )
    exc = catch(lambda: subscribe.simple("a/b", hostname="127.0.0.1", port=ctx.dead))
    args = {"action": "subscribe", "topic": "a/b"}
    yield case("subscribe-refused", "connection refused on subscribe.simple", T, NE, exc, args)
