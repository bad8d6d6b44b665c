# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""xml.etree.ElementTree (the standard library): XML and ElementPath expressions the model
wrote in its arguments (fixable); a file on disk (ambiguous)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import TYPE_CHECKING

from generate import A, Case, F, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "xml.etree"
REQUIRES: list[str] = []  # the standard library

MODEL_XML: list[tuple[str, str]] = [
    ("unclosed-tag", "<order><item>pen</item>"),
    ("mismatched-tag", "<order><item>pen</itme></order>"),
    ("two-roots", "<a/><b/>"),
    ("text-only", "just some text"),
    ("empty", ""),
    ("bare-ampersand", "<q>Tom & Jerry</q>"),
    ("lt-in-text", "<expr>a < b</expr>"),
    ("unquoted-attribute", "<item id=3/>"),
    ("duplicate-attribute", '<item id="1" id="2"/>'),
    ("unknown-entity", "<p>&nbsp;</p>"),
    ("bad-char-ref", "<p>&#xZZ;</p>"),
    ("undeclared-prefix", "<soap:Envelope><soap:Body/></soap:Envelope>"),
    ("space-in-tag-name", "<first name>x</first name>"),
    ("tag-starts-digit", "<1st>x</1st>"),
    ("xml-decl-not-first", '\n<?xml version="1.0"?><a/>'),
    ("junk-after-root", "<a/>trailing"),
    ("control-char", "<a>\x01</a>"),
    ("cdata-unclosed", "<a><![CDATA[x</a>"),
    ("comment-double-dash", "<a><!-- a -- b --></a>"),
    ("html-void-tag", "<p>line<br>next</p>"),
    ("attribute-no-value", "<input disabled/>"),
    ("markdown-fence", "```xml\n<a/>\n```"),
    ("json-instead", '{"order": {"item": "pen"}}'),
    ("single-quote-mixed", "<a b='x\"/>"),
    ("close-without-open", "</a>"),
]

# ElementPath expressions (find/findall) the model wrote
MODEL_PATHS: list[tuple[str, str]] = [
    ("path-absolute", "/order/item"),
    ("path-bad-predicate", "item[@id=3]"),
    ("path-unclosed-predicate", "item[@id='3'"),
    ("path-function", "item[contains(text(), 'pen')]"),
    ("path-position-zero", "item[0]"),
]


def cases(ctx: Context) -> Iterator[Case]:
    for name, text in MODEL_XML:
        exc = _catch(lambda: ET.fromstring(text))
        yield Case(
            f"xml-etree-{name}",
            LIBRARY,
            f"XML from the arguments ({name})",
            F,
            None,
            exc,
            "parse_xml",
            arguments={"xml": text},
        )
    document = "<order><item id='1'>pen</item><price>2</price></order>"
    root = ET.fromstring(document)
    for name, path in MODEL_PATHS:
        exc = _catch(lambda: root.findall(path))
        yield Case(
            f"xml-etree-{name}",
            LIBRARY,
            f"ElementPath from the arguments ({name})",
            F,
            None,
            exc,
            "query_xml",
            arguments={"xml": document, "path": path},
        )

    exc = _catch(lambda: ET.parse(ctx.tmp / "feed.xml"))
    yield Case(
        "xml-etree-file-missing",
        LIBRARY,
        "file does not exist",
        A,
        None,
        exc,
        "read_feed",
        arguments={"path": str(ctx.tmp / "feed.xml")},
    )
    broken = ctx.tmp / "sitemap.xml"
    broken.write_text('<?xml version="1.0"?>\n<urlset><url><loc>x</loc></url>\n')
    exc = _catch(lambda: ET.parse(broken))
    yield Case(
        "xml-etree-file-truncated",
        LIBRARY,
        "file on disk cut short",
        A,
        None,
        exc,
        "read_feed",
        arguments={"path": str(broken)},
    )
    binary = ctx.tmp / "data.xml"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    exc = _catch(lambda: ET.parse(binary))
    yield Case(
        "xml-etree-file-binary",
        LIBRARY,
        "file on disk is not XML",
        A,
        None,
        exc,
        "read_feed",
        arguments={"path": str(binary)},
    )
