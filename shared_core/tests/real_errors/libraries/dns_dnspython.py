# ruff: noqa: B023 - each lambda is called at once
"""dnspython against a DNS server on 127.0.0.1 (UDP and TCP, written with dnspython's own
message code) that answers each query name with the rcode or misbehaviour set up
(NXDOMAIN, SERVFAIL, REFUSED, NOTIMP, FORMERR, silence, garbage, refused transfers), and
dnspython's own checks of names, types and zone files."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from generate import Case

from ._common import NE, UO, A, F, T, U, catch, free_port

LIBRARY = "dnspython"
REQUIRES = ["dnspython>=2.4,<3"]


def _answer(wire: bytes) -> bytes | None:
    import dns.message
    import dns.rcode
    import dns.rdatatype
    import dns.rrset

    query = dns.message.from_wire(wire)
    label = query.question[0].name.labels[0].decode()
    rcodes = {
        "nx": dns.rcode.NXDOMAIN,
        "servfail": dns.rcode.SERVFAIL,
        "refused": dns.rcode.REFUSED,
        "notimp": dns.rcode.NOTIMP,
        "formerr": dns.rcode.FORMERR,
        "notauth": dns.rcode.NOTAUTH,
        "yxdomain": dns.rcode.YXDOMAIN,
    }
    if label == "silent":
        return None
    if label == "garbage":
        return b"\x00\x01garbage"
    response = dns.message.make_response(query)
    if label in rcodes:
        response.set_rcode(rcodes[label])
    elif query.question[0].rdtype in (dns.rdatatype.AXFR, dns.rdatatype.IXFR):
        response.set_rcode(dns.rcode.NOTAUTH if label == "notauthzone" else dns.rcode.REFUSED)
    elif label == "truncated":
        response.flags |= dns.flags.TC
    elif label != "empty":
        response.answer.append(dns.rrset.from_text(query.question[0].name, 60, "IN", "A", "192.0.2.1"))
    return response.to_wire()


@contextmanager
def _server() -> Iterator[int]:
    import dns.flags  # noqa: F401 (used by _answer)

    port = free_port()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    udp.settimeout(0.1)
    tcp = socket.socket()
    tcp.bind(("127.0.0.1", port))
    tcp.listen(8)
    tcp.settimeout(0.1)
    stop = threading.Event()

    def serve_udp() -> None:
        while not stop.is_set():
            try:
                wire, addr = udp.recvfrom(4096)
            except OSError:
                continue
            reply = _answer(wire)
            if reply is not None:
                udp.sendto(reply, addr)

    def serve_tcp() -> None:
        while not stop.is_set():
            try:
                conn, _ = tcp.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(1.0)
                try:
                    (length,) = struct.unpack("!H", conn.recv(2))
                    wire = conn.recv(length)
                    if b"\x09truncated" in wire:
                        continue  # closes the TCP connection without an answer
                    reply = _answer(wire)
                    if reply is not None:
                        conn.sendall(struct.pack("!H", len(reply)) + reply)
                except (OSError, struct.error):
                    pass

    threads = [threading.Thread(target=f, daemon=True) for f in (serve_udp, serve_tcp)]
    for t in threads:
        t.start()
    try:
        yield port
    finally:
        stop.set()
        for t in threads:
            t.join()
        udp.close()
        tcp.close()


def _resolver(port: int, lifetime: float = 1.0) -> Any:
    import dns.resolver

    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers = ["127.0.0.1"]
    resolver.port = port
    resolver.timeout = resolver.lifetime = lifetime
    resolver.cache = None
    return resolver


def cases(ctx: Any) -> Iterator[Case]:
    import dns.message
    import dns.name
    import dns.query
    import dns.rdata
    import dns.rdataclass
    import dns.rdatatype
    import dns.resolver
    import dns.reversename
    import dns.tsigkeyring
    import dns.zone

    def case(
        cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException, arguments: dict[str, Any]
    ) -> Case:
        return Case(f"dns-{cid}", LIBRARY, cause, kind, outcome, exc, "dns_lookup", arguments=arguments)

    def lookup(name: str, rdtype: str) -> dict[str, Any]:
        """The model's arguments: the name and the type (the nameserver is the tool's)."""
        return {"name": name, "type": rdtype}

    with _server() as port:
        ctx.name_port(port, "DNSPORT")
        r = _resolver(port)
        answers = [
            ("nxdomain", "nx.example.com", "A", A, None, "name does not exist (NXDOMAIN)"),
            ("noanswer", "empty.example.com", "MX", A, None, "no record of that type (NOERROR, empty)"),
            ("servfail", "servfail.example.com", "A", T, NE, "server failure (SERVFAIL)"),
            ("refused", "refused.example.com", "A", U, None, "server refuses to answer (REFUSED, policy)"),
            ("notimp", "notimp.example.com", "A", U, None, "query kind not implemented (NOTIMP)"),
            ("formerr", "formerr.example.com", "A", U, None, "server cannot parse the query (FORMERR)"),
            ("notauth", "notauth.example.com", "A", U, None, "server not authoritative (NOTAUTH)"),
            (
                "yxdomain",
                "yxdomain.example.com",
                "A",
                F,
                None,
                "name too long after DNAME substitution (YXDOMAIN)",
            ),
            ("timeout", "silent.example.com", "A", T, UO, "no answer within the lifetime"),
            (
                "truncated-tcp-closed",
                "truncated.example.com",
                "A",
                T,
                UO,
                "truncated answer, TCP retry closed",
            ),
        ]
        for cid, name, rdtype, kind, outcome, cause in answers:
            lifetime = 0.3 if cid == "timeout" else 1.0
            exc = catch(lambda: _resolver(port, lifetime).resolve(name, rdtype))
            yield case(cid, cause, kind, outcome, exc, lookup(name, rdtype))
        searching = _resolver(port)
        searching.search = [dns.name.from_text("corp.example"), dns.name.from_text("nx.example")]
        exc = catch(lambda: searching.resolve("nx", "A", search=True))
        yield case("search-nxdomain", "no name of the search list exists", A, None, exc, lookup("nx", "A"))
        yield case(
            "metaquery",
            "ANY query refused by the resolver",
            F,
            None,
            catch(lambda: r.resolve("example.com", "ANY")),
            lookup("example.com", "ANY"),
        )
        exc = catch(lambda: r.resolve_address("192.0.2.1.5"))
        yield case(
            "bad-address", "reverse lookup of a malformed address", F, None, exc, {"address": "192.0.2.1.5"}
        )
        q = dns.message.make_query("silent.example.com", "A")
        exc = catch(lambda: dns.query.udp(q, "127.0.0.1", port=port, timeout=0.3))
        yield case(
            "query-timeout",
            "UDP query unanswered within the timeout",
            T,
            UO,
            exc,
            lookup("silent.example.com", "A"),
        )
        q = dns.message.make_query("garbage.example.com", "A")
        exc = catch(lambda: dns.query.udp(q, "127.0.0.1", port=port, timeout=1))
        yield case(
            "query-garbage",
            "malformed answer to a direct query",
            A,
            None,
            exc,
            lookup("garbage.example.com", "A"),
        )
        q = dns.message.make_query("truncated.example.com", "A")
        exc = catch(lambda: dns.query.udp(q, "127.0.0.1", port=port, timeout=1, raise_on_truncation=True))
        yield case(
            "query-truncated",
            "truncated UDP answer (raise_on_truncation)",
            A,
            None,
            exc,
            lookup("truncated.example.com", "A"),
        )
        exc = catch(
            lambda: dns.zone.from_xfr(dns.query.xfr("127.0.0.1", "example.com", port=port, timeout=1))
        )
        yield case("axfr-refused", "zone transfer refused", U, None, exc, lookup("example.com", "AXFR"))
        exc = catch(
            lambda: dns.zone.from_xfr(dns.query.xfr("127.0.0.1", "notauthzone.example", port=port, timeout=1))
        )
        yield case(
            "axfr-notauth",
            "zone transfer: server not authoritative",
            U,
            None,
            exc,
            lookup("notauthzone.example", "AXFR"),
        )
        zone = dns.zone.Zone("example.com.")
        exc = catch(lambda: dns.query.inbound_xfr("127.0.0.1", zone, port=port, timeout=1))
        yield case(
            "inbound-xfr-refused",
            "inbound zone transfer refused",
            U,
            None,
            exc,
            lookup("example.com.", "AXFR"),
        )
    dead = _resolver(ctx.dead, 0.5)
    yield case(
        "all-refused",
        "nameserver port closed (no answer)",
        T,
        NE,
        catch(lambda: dead.resolve("example.com", "A")),
        lookup("example.com", "A"),
    )
    q = dns.message.make_query("example.com", "A")
    exc = catch(lambda: dns.query.tcp(q, "127.0.0.1", port=ctx.dead, timeout=1))
    yield case("tcp-refused", "TCP query: connection refused", T, NE, exc, lookup("example.com", "A"))
    unconfigured = dns.resolver.Resolver(configure=False)
    exc = catch(lambda: unconfigured.resolve("example.com", "A"))
    yield case("no-nameservers", "resolver without any nameserver", U, None, exc, lookup("example.com", "A"))
    exc = catch(lambda: dns.resolver.Resolver(filename=str(ctx.tmp / "no-resolv.conf")))
    # the model's lookup never began: the tool's resolv.conf is missing
    yield case(
        "no-resolv-conf", "resolver configuration file missing", U, None, exc, lookup("example.com", "A")
    )
    exc = catch(lambda: setattr(_resolver(ctx.dead), "nameservers", ["dns.example.com:53"]))
    yield case(
        "bad-nameserver",
        "nameserver is not an address",
        F,
        None,
        exc,
        {**lookup("example.com", "A"), "nameservers": ["dns.example.com:53"]},
    )
    long_label = "a" * 64 + ".com"
    long_name = ".".join(["abcdefghij"] * 30)
    local: list[tuple[str, str, dict[str, Any], Any]] = [
        (
            "empty-label",
            "name with an empty label",
            {"name": "www..example.com"},
            lambda: dns.name.from_text("www..example.com"),
        ),
        (
            "label-too-long",
            "label longer than 63 octets",
            {"name": long_label},
            lambda: dns.name.from_text(long_label),
        ),
        (
            "name-too-long",
            "name longer than 255 octets",
            {"name": long_name},
            lambda: dns.name.from_text(long_name),
        ),
        (
            "bad-escape",
            "bad escape in a name",
            {"name": "a\\9.example.com"},
            lambda: dns.name.from_text("a\\9.example.com"),
        ),
        ("unknown-type", "unknown record type", {"type": "AAAAA"}, lambda: dns.rdatatype.from_text("AAAAA")),
        (
            "bad-a-rdata",
            "A record with an invalid address",
            {"class": "IN", "type": "A", "data": "300.1.1.1"},
            lambda: dns.rdata.from_text("IN", "A", "300.1.1.1"),
        ),
        (
            "bad-mx-rdata",
            "MX record without a preference",
            {"class": "IN", "type": "MX", "data": "mail.example.com."},
            lambda: dns.rdata.from_text("IN", "MX", "mail.example.com."),
        ),
        (
            "zone-no-soa",
            "zone without an SOA record",
            {"zone": "@ 300 IN NS ns1\n", "origin": "example.com."},
            lambda: dns.zone.from_text("@ 300 IN NS ns1\n", origin="example.com."),
        ),
        (
            "zone-no-origin",
            "zone text without an origin",
            {"zone": "www 300 IN A 192.0.2.1\n"},
            lambda: dns.zone.from_text("www 300 IN A 192.0.2.1\n"),
        ),
        (
            "zone-syntax",
            "zone line with an unknown type",
            {"zone": "www 300 IN FROB x\n", "origin": "example.com."},
            lambda: dns.zone.from_text("www 300 IN FROB x\n", origin="example.com."),
        ),
        (
            "txt-unterminated",
            "TXT record with an unterminated quote",
            {"class": "IN", "type": "TXT", "data": '"abc'},
            lambda: dns.rdata.from_text("IN", "TXT", '"abc'),
        ),
        (
            "tsig-secret",
            "TSIG secret not base64",
            {"keyring": {"key.": "not base64!"}},
            lambda: dns.tsigkeyring.from_text({"key.": "not base64!"}),
        ),
    ]
    for cid, cause, arguments, fn in local:
        yield case(cid, cause, F, None, catch(fn), arguments)
