# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""lxml: XML and XPath the model wrote in its arguments (fixable); a server's page and
files on disk (ambiguous); libxml2's safety limits (unrecoverable)."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING

from generate import A, Case, F, U, _catch
from servers import route

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "lxml"
REQUIRES = ["lxml>=5.2,<7"]

MODEL_XML: list[tuple[str, str]] = [
    ("unclosed-tag", "<order><item>pen</item>"),
    ("mismatched-tag", "<order><item>pen</itme></order>"),
    ("two-roots", "<a/><b/>"),
    ("text-only", "plain text, no markup"),
    ("bare-ampersand", "<q>Tom & Jerry</q>"),
    ("lt-in-attribute", '<rule test="a < b"/>'),
    ("unquoted-attribute", "<item id=3/>"),
    ("duplicate-attribute", '<item id="1" id="2"/>'),
    ("html-entity", "<p>caf&eacute;</p>"),
    ("bad-char-ref", "<p>&#0;</p>"),
    ("undeclared-prefix", "<soap:Envelope><soap:Body/></soap:Envelope>"),
    ("tag-starts-digit", "<2fa>on</2fa>"),
    ("decl-not-first", ' <?xml version="1.0"?><a/>'),
    ("junk-after-root", "<a/>trailing"),
    ("cdata-unclosed", "<a><![CDATA[x</a>"),
    ("comment-double-dash", "<a><!-- a -- b --></a>"),
    ("html-void-tag", "<p>line<br>next</p>"),
    ("attribute-no-value", "<input disabled/>"),
    ("json-instead", '{"order": {"item": "pen"}}'),
    ("close-without-open", "</a>"),
    ("bad-namespace-uri-prefix", '<x:a xmlns:x=""/>'),
    ("xml-decl-bad-version", '<?xml version="2.0" encoding="UTF-8" standalone="maybe"?><a/>'),
    ("pi-reserved-target", "<a><?xml-stylesheet ?><?xml x?></a>"),
    ("doctype-after-root", "<a/><!DOCTYPE a>"),
    ("svg-unclosed-path", '<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0 L10 10"></svg>'),
    ("markdown-fence", "```xml\n<a/>\n```"),
]

MODEL_XPATH: list[tuple[str, str]] = [
    ("xpath-unclosed-predicate", "//item[@id='3'"),
    ("xpath-unclosed-string", "//item[@id='3]"),
    ("xpath-unknown-function", "//item[starts-with-ci(text(), 'p')]"),
    ("xpath-xpath2-function", "//item[matches(text(), '^p')]"),
    ("xpath-lower-case", "//item[lower-case(text())='pen']"),
    ("xpath-undefined-prefix", "//soap:Body"),
    ("xpath-undefined-variable", "//item[@id=$id]"),
    ("xpath-jquery", "$('#item')"),
    ("xpath-empty", ""),
    ("xpath-trailing-slash", "//order/"),
    ("xpath-double-predicate-close", "//item[1]]"),
    ("xpath-bad-axis", "//item/sibling::price"),
    ("xpath-wrong-arity", "//item[contains(text())]"),
    ("xpath-equals-equals", "//item[@id=='1']"),
    ("xpath-and-ampersand", "//item[@id='1' && @x]"),
]


def cases(ctx: Context) -> Iterator[Case]:
    from lxml import etree

    for name, text in MODEL_XML:
        exc = _catch(lambda: etree.fromstring(text.encode()))
        yield Case(
            f"lxml-{name}",
            LIBRARY,
            f"XML from the arguments ({name})",
            F,
            None,
            exc,
            "parse_xml",
            arguments={"xml": text},
        )
    document = "<order><item id='1'>pen</item><price>2</price></order>"
    root = etree.fromstring(document)
    for name, expr in MODEL_XPATH:
        exc = _catch(lambda: root.xpath(expr))
        yield Case(
            f"lxml-{name}",
            LIBRARY,
            f"XPath from the arguments ({name})",
            F,
            None,
            exc,
            "query_xml",
            arguments={"xml": document, "xpath": expr},
        )
    exc = _catch(lambda: etree.XPath("//item[@id=")())
    yield Case(
        "lxml-xpath-compile",
        LIBRARY,
        "XPath from the arguments does not compile",
        F,
        None,
        exc,
        "query_xml",
        arguments={"xpath": "//item[@id="},
    )
    schema = etree.XMLSchema(
        etree.fromstring(
            '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
            '<xs:element name="order"><xs:complexType><xs:sequence>'
            '<xs:element name="item" type="xs:string" maxOccurs="3"/>'
            '<xs:element name="qty" type="xs:positiveInteger"/>'
            "</xs:sequence></xs:complexType></xs:element></xs:schema>"
        )
    )
    for name, doc in [
        ("schema-missing-element", "<order><item>pen</item></order>"),
        ("schema-bad-type", "<order><item>pen</item><qty>-2</qty></order>"),
        ("schema-unexpected-element", "<order><item>pen</item><qty>1</qty><note/></order>"),
        ("schema-wrong-root", "<invoice/>"),
    ]:
        exc = _catch(lambda: schema.assertValid(etree.fromstring(doc)))
        yield Case(
            f"lxml-{name}",
            LIBRARY,
            f"XML from the arguments fails the schema ({name})",
            F,
            None,
            exc,
            "submit_order",
            arguments={"xml": doc},
        )
    exc = _catch(lambda: etree.XSLT(etree.fromstring("<xsl:stylesheet/>")))
    yield Case(
        "lxml-xslt-bad",
        LIBRARY,
        "stylesheet from the arguments is not XSLT",
        F,
        None,
        exc,
        "transform_xml",
        arguments={"stylesheet": "<xsl:stylesheet/>"},
    )

    # not the model's text: a server's page, files on disk
    url = f"http://127.0.0.1:{ctx.port}/s/{route('rest_404')}"

    def fetch_xml() -> None:
        try:
            urllib.request.urlopen(url, timeout=2)
        except urllib.error.HTTPError as err:
            etree.fromstring(err.read())

    yield Case(
        "lxml-server-json",
        LIBRARY,
        "server sent JSON where XML was expected",
        A,
        None,
        _catch(fetch_xml),
        "fetch_feed",
        arguments={"url": url},
    )
    feed = str(ctx.tmp / "feed.xml")
    exc = _catch(lambda: etree.parse(feed))
    yield Case(
        "lxml-file-missing",
        LIBRARY,
        "file does not exist",
        A,
        None,
        exc,
        "read_feed",
        arguments={"path": feed},
    )
    broken = ctx.tmp / "sitemap.xml"
    broken.write_text('<?xml version="1.0"?>\n<urlset><url><loc>x</loc></url>\n')
    exc = _catch(lambda: etree.parse(str(broken)))
    yield Case(
        "lxml-file-truncated",
        LIBRARY,
        "file on disk cut short",
        A,
        None,
        exc,
        "read_feed",
        arguments={"path": str(broken)},
    )

    # libxml2's limits against entity expansion and huge nodes
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + "".join(
            f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10)
        )
        + "]><lolz>&lol9;</lolz>"
    )
    exc = _catch(lambda: etree.fromstring(laughs))
    yield Case(
        "lxml-entity-amplification",
        LIBRARY,
        "entity expansion refused",
        U,
        None,
        exc,
        "parse_xml",
        arguments={"xml": laughs},
    )
    deep = "<a>" * 300 + "</a>" * 300
    exc = _catch(lambda: etree.fromstring(deep))
    yield Case(
        "lxml-too-deep",
        LIBRARY,
        "nesting beyond libxml2's depth limit",
        U,
        None,
        exc,
        "parse_xml",
        arguments={"xml": deep},
    )
    huge = "<a>" + "x" * 11_000_000 + "</a>"
    exc = _catch(lambda: etree.fromstring(huge, etree.XMLParser(huge_tree=False)))
    yield Case(
        "lxml-huge-text",
        LIBRARY,
        "text node beyond libxml2's size limit",
        U,
        None,
        exc,
        "parse_xml",
        # the model's 11 MB document, cut to its first 200 characters here
        arguments={"value": huge[:200] + "..."},
    )
