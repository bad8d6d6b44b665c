# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""email-validator: addresses the model wrote in its arguments, checked for syntax and,
through a DNS server on 127.0.0.1 (written with dnspython's message code), for
deliverability (fixable); addresses read from a file on disk or a CRM on 127.0.0.1, and a
DNS server answering what the validator cannot interpret (ambiguous).

Labels follow the cause: ``send_invite`` validates the model's ``to`` argument, so every
``EmailSyntaxError`` is the model's to fix, and so is an ``EmailUndeliverableError`` for a
domain the DNS server says does not exist (a typo such as ``gmial.com``), publishes a null
MX (RFC 7505), has no MX/A/AAAA, only a private address, or an SPF ``-all`` without MX:
the address named cannot receive mail, another one is needed (email-validator's README:
https://github.com/JoshData/python-email-validator#deliverability-validation). The same
errors for addresses read from a mailing-list file or a CRM answer describe data the model
never wrote: ambiguous. A YXDOMAIN answer reaches the validator's catch-all ("There was an
error while checking ..."): the DNS side misbehaved, the address may be fine: ambiguous.
The validator lets timeouts and failing name servers pass (``unknown-deliverability``), so
it raises nothing transient; nothing it does needs a permission or an optional dependency.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, _catch

from . import _serve

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "email-validator"
REQUIRES = ["email-validator>=2.2,<3", "dnspython>=2.4,<3"]

# (name, the address an LLM wrote)
MODEL_ADDRESSES: list[tuple[str, str]] = [
    ("no-at", "ann.example.com"),
    ("nothing-after-at", "ann@"),
    ("nothing-before-at", "@example.com"),
    ("double-at", "ann@@example.com"),
    ("space-in-local", "ann smith@example.com"),
    ("two-periods", "ann..b@example.com"),
    ("leading-period", ".ann@example.com"),
    ("period-before-at", "ann.@example.com"),
    ("no-tld", "ann@example"),
    ("localhost", "ann@localhost"),
    ("hyphen-after-at", "ann@-example.com"),
    ("trailing-period", "ann@example.com."),
    ("underscore-domain", "ann@exa_mple.com"),
    ("ip-literal", "ann@[127.0.0.1]"),
    ("bare-ip", "ann@192.168.1.1"),
    ("numeric-tld", "ann@example.123"),
    ("quoted-local", '"ann"@example.com'),
    ("comment", "ann(comment)@example.com"),
    ("display-name", "Ann Smith <ann@example.com>"),
    ("mailto", "mailto:ann@example.com"),
    ("label-too-long", "ann@" + "a" * 64 + ".com"),
    ("domain-too-long", "ann@" + ".".join(["abcdefghij" * 5] * 6) + ".com"),
    ("trailing-newline", "ann@example.com\n"),
    ("zero-width-space", "ann\u200b@example.com"),
    ("soft-hyphen", "ann@exa\u00admple.com"),
    ("reserved-invalid", "ann@example.invalid"),
    ("reserved-local", "ann@printer.local"),
    ("reserved-onion", "ann@example.onion"),
    ("comma-list", "ann,bob@example.com"),
    ("bad-punycode", "ann@xn--a.com"),
    ("template", "{{user.email}}"),
    ("empty", ""),
    ("backslash", "ann\\@example.com"),
]

# (name, domain, cause): the DNS server's answer for each domain is set up in _answer
DELIVERABILITY: list[tuple[str, str, str]] = [
    ("dns-nxdomain", "gmial.com", "domain does not exist (NXDOMAIN)"),
    ("dns-null-mx", "noreply-corp.com", "domain publishes a null MX"),
    ("dns-no-records", "parked-domain.com", "domain has no MX, A or AAAA"),
    ("dns-private-a", "intranet-only.com", "domain resolves only to a private address"),
    ("dns-spf-reject-all", "send-nothing.com", "no MX and SPF -all"),
]


def _answer(wire: bytes) -> bytes:
    import dns.message
    import dns.rcode
    import dns.rdatatype
    import dns.rrset

    query = dns.message.from_wire(wire)
    question = query.question[0]
    name = question.name.to_text().rstrip(".")
    rdtype = question.rdtype
    response = dns.message.make_response(query)

    def add(kind: str, value: str) -> None:
        response.answer.append(dns.rrset.from_text(question.name, 60, "IN", kind, value))

    if name == "gmial.com":
        response.set_rcode(dns.rcode.NXDOMAIN)
    elif name == "dname-loop.com":
        response.set_rcode(dns.rcode.YXDOMAIN)
    elif name == "noreply-corp.com" and rdtype == dns.rdatatype.MX:
        add("MX", "0 .")
    elif name == "intranet-only.com" and rdtype == dns.rdatatype.A:
        add("A", "10.0.0.5")
    elif name == "send-nothing.com" and rdtype == dns.rdatatype.A:
        add("A", "93.184.216.34")
    elif name == "send-nothing.com" and rdtype == dns.rdatatype.TXT:
        add("TXT", '"v=spf1 -all"')
    elif name == "example.com" and rdtype == dns.rdatatype.MX:
        add("MX", "10 mx.example.com.")
    return response.to_wire()


@contextmanager
def _dns_server() -> Iterator[int]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.1)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                wire, peer = sock.recvfrom(4096)
            except OSError:
                continue
            sock.sendto(_answer(wire), peer)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        sock.close()


def _resolver(port: int) -> Any:
    import dns.resolver

    resolver = dns.resolver.Resolver(configure=False)
    resolver.nameservers = ["127.0.0.1"]
    resolver.port = port
    resolver.lifetime = 2.0
    return resolver


def cases(ctx: Context) -> Iterator[Case]:
    from email_validator import validate_email

    def syntax(address: str, **options: Any) -> None:
        validate_email(address, check_deliverability=False, **options)

    for name, address in MODEL_ADDRESSES:
        exc = _catch(lambda: syntax(address))
        cause = f"address argument ({name})"
        yield Case(
            f"email-validator-{name}", LIBRARY, cause, F, None, exc, "send_invite", arguments={"to": address}
        )
    address = "j\u00fcrgen@example.com"
    exc = _catch(lambda: syntax(address, allow_smtputf8=False))
    yield Case(
        "email-validator-non-ascii-local",
        LIBRARY,
        "non-ASCII local part where SMTPUTF8 is off",
        F,
        None,
        exc,
        "send_invite",
        arguments={"to": address},
    )
    with _dns_server() as port:
        ctx.name_port(port, "DNSPORT")
        resolver = _resolver(port)

        def deliverable(address: str) -> None:
            validate_email(address, check_deliverability=True, dns_resolver=resolver)

        for name, domain, cause in DELIVERABILITY:
            address = f"ann@{domain}"
            exc = _catch(lambda: deliverable(address))
            yield Case(
                f"email-validator-{name}",
                LIBRARY,
                cause,
                F,
                None,
                exc,
                "send_invite",
                arguments={"to": address},
            )
        exc = _catch(lambda: deliverable("ann@dname-loop.com"))
        yield Case(
            "email-validator-dns-yxdomain",
            LIBRARY,
            "DNS server answers YXDOMAIN",
            A,
            None,
            exc,
            "send_invite",
            arguments={"to": "ann@dname-loop.com"},
        )

        # addresses the tool read from elsewhere: the arguments hold the file's path, the contact's id
        members = ctx.tmp / "members.txt"
        members.write_text("bob@example.com\nann@gmial.com\n")

        def mailing_list() -> None:
            for line in members.read_text().splitlines():
                deliverable(line)

        yield Case(
            "email-validator-file-undeliverable",
            LIBRARY,
            "mailing-list file has an address at a missing domain",
            A,
            None,
            _catch(mailing_list),
            "send_newsletter",
            arguments={"list_path": str(members)},
        )
        legacy = ctx.tmp / "legacy.txt"
        legacy.write_text("bob@example.com\ncarol at example.com\n")

        def legacy_list() -> None:
            for line in legacy.read_text().splitlines():
                syntax(line)

        yield Case(
            "email-validator-file-syntax",
            LIBRARY,
            "mailing-list file has a malformed address",
            A,
            None,
            _catch(legacy_list),
            "send_newsletter",
            arguments={"list_path": str(legacy)},
        )
        subscribers = ctx.tmp / "subscribers.txt"
        exc = _catch(lambda: syntax(subscribers.read_text()))
        yield Case(
            "email-validator-file-missing",
            LIBRARY,
            "list file does not exist",
            A,
            None,
            exc,
            "send_newsletter",
            arguments={"list_path": str(subscribers)},
        )
        crm = {
            "/contacts/41": ("application/json", b'{"name": "Dan", "email": "dan@parked-domain.com"}'),
            "/contacts/42": ("application/json", b'{"name": "Eve", "email": "eve@@example.com"}'),
        }
        with _serve.documents(crm) as crm_port:
            ctx.name_port(crm_port, "CRMPORT")
            for contact in ("41", "42"):
                exc = _catch(
                    lambda: deliverable(json.loads(_serve.get(crm_port, f"/contacts/{contact}"))["email"])
                )
                yield Case(
                    f"email-validator-crm-contact-{contact}",
                    LIBRARY,
                    "contact record from the CRM has a bad address",
                    A,
                    None,
                    exc,
                    "email_contact",
                    arguments={"contact_id": contact},
                )
