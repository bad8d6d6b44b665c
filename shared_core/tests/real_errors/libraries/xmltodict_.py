# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""xmltodict behind XML tools: XML text and parse options the model wrote, and the dicts it
asked to write as XML (fixable); XML files on disk and documents answered by a feed or SOAP
service on 127.0.0.1 that are not well-formed, use entities, or are not XML at all
(ambiguous); a feed whose connection times out, is reset or closed while ``xmltodict.parse``
is still reading the body (transient); an installation without xmltodict and the operating
system's refusals (unrecoverable).

Labels follow the cause. ``parse_xml`` passes the model's text to ``xmltodict.parse``, so
expat's ``ExpatError`` ("mismatched tag", "not well-formed (invalid token)", "no element
found", "junk after document element", "undefined entity", "unbound prefix" with
``process_namespaces=True``), the ``LookupError`` of an ``encoding`` it named and the
``ValueError`` "entities are disabled" (xmltodict 1.0 refuses a DTD's entity declarations
by default, ``disable_entities=True``) are the model's to fix
(https://github.com/martinblech/xmltodict README "parse", "disable_entities";
https://docs.python.org/3/library/pyexpat.html "ExpatError Exceptions"). ``write_xml``
passes the model's dict to ``xmltodict.unparse``: "Document must have exactly one root.",
"document with multiple roots", the element and attribute name checks of xmltodict 1.0
("Invalid element name: whitespace not allowed"), "Comment text cannot contain '--'" and
the ``AttributeError`` of a document that is a list or a string are fixable (README
"unparse"). The same parser failing on a file on disk (truncated, an HTML page, Latin-1
bytes without a declaration, two documents concatenated) or on a service's answer (JSON or
an HTML page with 200, a DTD with entities, an entity expansion expat stops with "limit on
input amplification factor (from DTD and entities) breached", a SOAP prefix never declared)
is about data the model never wrote: ambiguous; so is a document read from disk whose nesting
is too deep for ``unparse`` (``RecursionError``).

``xmltodict.parse`` reads a file object in chunks (expat's ``ParseFile``): given the HTTP
response itself, a read timeout, a reset or a close in the middle of the body are raised
from inside it (``TimeoutError``, ``ConnectionResetError``, ``http.client.IncompleteRead``
of a chunked body, or an ``ExpatError`` "no element found" when a body with a
``Content-Length`` just ends early: ``http.client`` reads the early end as the end); the request was sent and answered in part: transient,
unknown outcome, as the corpus labels a read timeout or reset after the request was sent.

Unrecoverable: xmltodict not installed (:mod:`libraries._pkgcopy`, the installed packages
out of reach), a file the tool may not read, a full device (``/dev/full``), the file size
quota (``RLIMIT_FSIZE``). A path the model named that does not exist or is a folder is
fixable.

Not triggerable: HTTP statuses (429, 503 ...) and connection refusals are raised by the HTTP
client before xmltodict sees a byte; xmltodict has no limits of its own on size; a deeply
nested document parses without error (expat is not recursive).
"""

from __future__ import annotations

import importlib
import socket
import struct
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import UO, A, Case, F, T, U, _catch

from . import _common, _pkgcopy, _serve
from ._files import denied, file_size_limit

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "xmltodict"
REQUIRES = ["xmltodict>=1.0.4,<1.1"]

TIMEOUT = 0.5


def _parse(text: str | bytes, **kwargs: Any) -> Any:
    import xmltodict

    return xmltodict.parse(text, **kwargs)


def _unparse(doc: Any, **kwargs: Any) -> Any:
    import xmltodict

    return xmltodict.unparse(doc, **kwargs)


MODEL_XML: list[tuple[str, str, dict[str, Any]]] = [
    ("mismatched-tag", "<order><id>1042</id></ordr>", {}),
    ("unclosed-root", "<order><id>1042</id>", {}),
    ("empty", "", {}),
    ("two-roots", "<item>a</item><item>b</item>", {}),
    ("bare-ampersand", "<company>Johnson & Johnson</company>", {}),
    ("bare-less-than", "<rule>price < 100</rule>", {}),
    ("unquoted-attribute", "<order id=1042><total>5</total></order>", {}),
    ("duplicate-attribute", '<order id="1" id="2"/>', {}),
    ("html-entity", "<note>Price:&nbsp;5&euro;</note>", {}),
    ("json-text", '{"order": {"id": 1042}}', {}),
    ("plain-text", "order 1042 shipped", {}),
    ("declaration-not-first", '\n<?xml version="1.0"?><order/>', {}),
    ("html-void-tag", "<p>Line one<br>Line two</p>", {}),
    ("comment-double-dash", "<config><!-- old -- value --><a>1</a></config>", {}),
    ("markdown-fence", "```xml\n<order><id>1</id></order>\n```", {}),
    (
        "unbound-prefix",
        "<soap:Envelope><soap:Body><GetPrice/></soap:Body></soap:Envelope>",
        {"process_namespaces": True},
    ),
    (
        "entity-declaration",
        '<!DOCTYPE note [<!ENTITY company "ACME Ltd">]><note>&company;</note>',
        {},
    ),
    ("encoding-unknown", "<order><id>1042</id></order>", {"encoding": "utf8mb4"}),
]

MODEL_DICTS: list[tuple[str, Any, dict[str, Any]]] = [
    ("two-roots", {"customer": {"name": "Ada"}, "order": {"id": 1}}, {}),
    ("empty-document", {}, {}),
    ("root-is-list", {"item": [{"sku": "A-1"}, {"sku": "A-2"}]}, {}),
    ("document-is-list", [{"item": {"sku": "A-1"}}], {}),
    ("document-is-xml-string", "<order><id>1</id></order>", {}),
    ("element-name-space", {"order": {"order id": 1042}}, {}),
    ("attribute-name-space", {"order": {"@order id": "1042"}}, {}),
    ("comment-double-dash", {"config": {"#comment": "changed -- by ops", "a": 1}}, {}),
    ("indent-null", {"order": {"id": 1}}, {"pretty": True, "indent": None}),
]


def model_cases() -> Iterator[tuple[str, str, dict[str, Any], BaseException]]:
    for slug, text, options in MODEL_XML:
        args: dict[str, Any] = {"xml": text, **options}
        yield f"parse-{slug}", "parse_xml", args, _catch(lambda: _parse(text, **options))
    for slug, doc, options in MODEL_DICTS:
        args = {"document": doc, **options}
        yield f"unparse-{slug}", "write_xml", args, _catch(lambda: _unparse(doc, **options))


FILES: list[tuple[str, bytes]] = [
    (
        "truncated.xml",
        b'<?xml version="1.0"?>\n<orders><order id="1"><total>5</total></order><order id="2"><to',
    ),
    (
        "error-page.xml",
        b"<html><head><title>502 Bad Gateway</title></head><body><hr><center>nginx</center></body></html>",
    ),
    ("latin1.xml", "<customers><customer>Müller</customer></customers>".encode("latin-1")),
    (
        "concatenated.xml",
        b'<?xml version="1.0"?><log><e>1</e></log>\n<?xml version="1.0"?><log><e>2</e></log>\n',
    ),
    ("empty.xml", b""),
    ("html-entity.xml", b"<catalog><item>Caf&eacute; cr&egrave;me</item></catalog>"),
    ("nul-byte.xml", b"<orders><order>1</order>\x00</orders>"),
    ("cp1252-declared-utf8.xml", b'<?xml version="1.0" encoding="UTF-8"?><note>\x93Rush order\x94</note>'),
]

ENTITIES = '<!ENTITY w0 "abcdefghij">' + "".join(
    f'<!ENTITY w{i} "{f"&w{i - 1};" * 10}">' for i in range(1, 9)
)

SERVICE: dict[str, tuple[str, bytes, dict[str, Any], str]] = {
    # path: (content type, body, parse options the tool uses, cause)
    "/feeds/releases.rss": (
        "application/rss+xml",
        b'{"error": {"code": 401, "message": "feed requires a token"}}',
        {},
        "feed service answered JSON instead of XML",
    ),
    "/feeds/status.rss": (
        "application/rss+xml",
        b"<!DOCTYPE html><html><body><p>Down for maintenance<br>Back soon</p></body></html>",
        {},
        "feed service answered an HTML page with 200",
    ),
    "/soap/prices": (
        "text/xml",
        b'<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/hostname">]><r>&x;</r>',
        {},
        "SOAP service answered a document declaring entities",
    ),
    "/soap/stock": (
        "text/xml",
        f'<?xml version="1.0"?><!DOCTYPE r [{ENTITIES}]><r>&w8;</r>'.encode(),
        {"disable_entities": False},
        "SOAP service answered an entity expansion bomb",
    ),
    "/soap/orders": (
        "text/xml",
        b"<soap:Envelope><soap:Body><ns1:Order><ns1:Id>7</ns1:Id></ns1:Order></soap:Body></soap:Envelope>",
        {"process_namespaces": True},
        "SOAP service answered a document with undeclared prefixes",
    ),
    "/feeds/news.atom": (
        "application/atom+xml",
        b'<feed xmlns="http://www.w3.org/2005/Atom"><title>News</title><entry><title>A & B</title></entry></feed>',
        {},
        "feed service answered a document that is not well-formed",
    ),
}


def data_cases(ctx: Context) -> Iterator[tuple[str, str, str, dict[str, Any], BaseException]]:
    """(slug, cause, tool, the model's arguments, exception) of XML the tool read."""
    folder = ctx.tmp / "xml"
    folder.mkdir()
    for name, content in FILES:
        path = folder / name
        path.write_bytes(content)

        def read() -> Any:
            with path.open("rb") as f:
                return _parse(f)

        slug = f"file-{name.removesuffix('.xml')}"
        yield slug, "XML file on disk is malformed", "read_xml_file", {"path": str(path)}, _catch(read)

    pages = {p: (kind, body) for p, (kind, body, _, _) in SERVICE.items()}
    with _serve.documents(pages) as port:
        ctx.name_port(port, "FEEDPORT")
        for page, (_, _, options, cause) in SERVICE.items():
            url = f"http://127.0.0.1:{port}{page}"

            def fetch() -> Any:
                with urllib.request.urlopen(url, timeout=2) as response:
                    return _parse(response, **options)

            slug = "service-" + page.strip("/").replace("/", "-").replace(".", "-")
            yield slug, cause, "fetch_feed", {"url": url}, _catch(fetch)

    # a deeply nested export read from disk, rewritten as XML
    deep = folder / "tree-export.xml"
    deep.write_text("<node>" * 3000 + "</node>" * 3000)

    def convert() -> Any:
        with deep.open("rb") as f:
            doc = _parse(f)
        return _unparse(doc, pretty=True)

    exc = _serve.catch_on_fresh_stack(convert)
    args = {"path": str(deep), "output_format": "pretty"}
    yield "file-too-deep-to-write", "XML file on disk nested too deep to rewrite", "reformat_xml", args, exc


BODY = (
    b'<?xml version="1.0"?><rss version="2.0"><channel>' + b"<item><title>Release notes</title></item>" * 1500
)
BODY += b"</channel></rss>"
PART = 30000


def _head(length: str) -> bytes:
    return f"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n{length}\r\n\r\n".encode()


def _read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk


def _hang(conn: socket.socket) -> None:
    _read_request(conn)
    conn.sendall(_head(f"Content-Length: {len(BODY)}") + BODY[:PART])
    time.sleep(TIMEOUT * 3)


def _reset(conn: socket.socket) -> None:
    _read_request(conn)
    conn.sendall(_head(f"Content-Length: {len(BODY)}") + BODY[:PART])
    time.sleep(0.1)
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def _close(conn: socket.socket) -> None:
    _read_request(conn)
    conn.sendall(_head(f"Content-Length: {len(BODY)}") + BODY[:PART])


def _chunked_close(conn: socket.socket) -> None:
    _read_request(conn)
    conn.sendall(_head("Transfer-Encoding: chunked") + b"%x\r\n" % PART + BODY[:PART] + b"\r\n")


TRANSPORT: list[tuple[str, Callable[[socket.socket], None], str]] = [
    ("feed-read-timeout", _hang, "read timeout in the middle of the body"),
    ("feed-reset", _reset, "connection reset in the middle of the body"),
    ("feed-closed-early", _close, "server closed the connection before the announced length"),
    ("feed-chunked-closed", _chunked_close, "server closed a chunked body before its last chunk"),
]


def transport_cases(ctx: Context) -> Iterator[tuple[str, str, dict[str, Any], BaseException]]:
    for slug, handler, cause in TRANSPORT:
        with _common.raw_server(handler) as port:
            ctx.name_port(port, "FEEDSERVERPORT")
            url = f"http://127.0.0.1:{port}/feeds/releases.rss"

            def fetch() -> Any:
                with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
                    return _parse(response)

            exc = _catch(fetch)
        yield slug, cause, {"url": url}, exc


def os_cases(ctx: Context) -> Iterator[tuple[str, str, str, str, dict[str, Any], BaseException]]:
    """(slug, cause, kind, tool, the model's arguments, exception) of paths and the OS."""
    tmp = ctx.tmp / "os"
    tmp.mkdir()
    tmp.chmod(0o711)
    big = {"orders": {"order": [{"@id": str(i), "total": i * 3, "note": "x" * 40} for i in range(400)]}}

    def read(path: Path) -> Callable[[], Any]:
        def run() -> Any:
            with path.open("rb") as f:
                return _parse(f)

        return run

    def write(path: Path | str) -> Callable[[], Any]:
        def run() -> Any:
            with open(path, "w", encoding="utf-8") as f:
                _unparse(big, output=f)

        return run

    missing = tmp / "exports" / "orders-2024.xml"
    exc = _catch(read(missing))
    yield (
        "path-missing",
        "file path the model gave does not exist",
        F,
        "read_xml_file",
        {"path": str(missing)},
        exc,
    )
    exc = _catch(read(tmp))
    yield (
        "path-is-directory",
        "file path the model gave is a folder",
        F,
        "read_xml_file",
        {"path": str(tmp)},
        exc,
    )
    private = tmp / "payroll.xml"
    private.write_text("<payroll/>")
    private.chmod(0o000)
    exc = denied(read(private))
    yield "permission-read", "file the tool may not read", U, "read_xml_file", {"path": str(private)}, exc
    args: dict[str, Any] = {"path": "/dev/full", "document": "orders export"}
    yield "disk-full", "no space left on the device", U, "write_xml", args, _catch(write("/dev/full"))
    with file_size_limit(4096):
        exc = _catch(write(tmp / "orders.xml"))
    args = {"path": str(tmp / "orders.xml"), "document": "orders export"}
    yield "file-size-limit", "file size quota (RLIMIT_FSIZE) reached", U, "write_xml", args, exc

    with _pkgcopy.broken_install(ctx.tmp, [], hide=("xmltodict",)):
        exc = _catch(lambda: importlib.import_module("xmltodict"))
    args = {"xml": "<order><id>1042</id></order>"}
    yield "not-installed", "xmltodict not installed", U, "parse_xml", args, exc


def cases(ctx: Context) -> Iterator[Case]:
    for slug, tool, args, exc in model_cases():
        yield Case(f"xmltodict-{slug}", LIBRARY, f"XML argument ({slug})", F, None, exc, tool, args)
    for slug, cause, tool, args, exc in data_cases(ctx):
        yield Case(f"xmltodict-{slug}", LIBRARY, cause, A, None, exc, tool, args)
    for slug, cause, args, exc in transport_cases(ctx):
        yield Case(f"xmltodict-{slug}", LIBRARY, cause, T, UO, exc, "fetch_feed", args)
    for slug, cause, kind, tool, args, exc in os_cases(ctx):
        yield Case(f"xmltodict-{slug}", LIBRARY, cause, kind, None, exc, tool, args)
