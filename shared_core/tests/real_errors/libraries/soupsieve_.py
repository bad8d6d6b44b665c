# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""Beautiful Soup 4 with Soup Sieve (its CSS selector engine) behind the scraping tools of an
agent that read HTML pages saved in the tool's workspace: ``select_elements`` (the elements a
CSS selector the model wrote matches, with the parser the model names, optional
``namespaces``, ``custom`` selectors and ``limit``), ``extract_text`` (the text of the first
match: ``soup.select_one(selector).get_text()``), ``extract_attribute`` (an attribute of the
first match: ``soup.select_one(selector)[attribute]``) and ``select_feed`` (an XML feed
parsed with bs4's ``"xml"`` builder, the model's namespace prefixes). The tool opens the page
as UTF-8 text and hands the open file to ``BeautifulSoup`` (the docs' own pattern,
https://www.crummy.com/software/BeautifulSoup/bs4/doc/#making-the-soup), so a page that is
not UTF-8 fails inside ``BeautifulSoup`` reading it.

Labels follow the cause that was set up:

- fixable: a selector the model wrote that Soup Sieve rejects (``SelectorSyntaxError``: a
  malformed attribute, id or class selector, an unknown or unsupported pseudo-class, an
  unclosed one, invalid ``:nth-child`` syntax, a dangling combinator, an invalid character,
  an empty selector, an undefined ``:--custom`` selector; ``NotImplementedError`` for a
  pseudo-element, https://facelessuser.github.io/soupsieve/selectors/ and
  https://facelessuser.github.io/soupsieve/api/ "SelectorSyntaxError"), ``custom`` and
  ``namespaces`` options the model wrote that Soup Sieve refuses (a custom name without
  ``:--``, one defined twice, a namespace mapping whose values are not strings or that is
  not a mapping), a ``limit`` or selector of the wrong JSON type, a parser name that is not
  one of Beautiful Soup's tree builder features (``FeatureNotFound`` for ``"html5-lib"``,
  ``"HTML.parser"``: https://www.crummy.com/software/BeautifulSoup/bs4/doc/#specifying-the-parser-to-use
  lists ``html.parser``, ``lxml``, ``lxml-xml`` / ``xml`` and ``html5lib``) and a page path
  that names a directory.
- ambiguous: a page the model named that is not in the workspace, a page that is not UTF-8
  (Latin-1, UTF-16, a PNG saved as ``.html``), a page Python's ``html.parser`` rejects
  (``ParserRejectedMarkup``: a malformed ``<![`` marked section), a page that is not HTML
  at all (JSON, an empty file) where the element is then missing, and a valid selector that
  matches nothing on the page, after which the tool's ``select_one(...)`` is ``None``
  (``AttributeError`` / ``TypeError``) or the element lacks the attribute (``KeyError``):
  the selector may be wrong, or the page may not hold the element (a 404 of an element).
- unrecoverable: a page the process may not read (``PermissionError``, as an ordinary user:
  the generator drops to ``nobody`` for that call as root, :mod:`libraries._files`), and
  installations without a parser library the model asked for (``FeatureNotFound`` for
  ``lxml``, ``html5lib``, ``xml`` where they are not installed: the docs say to install
  them), without Soup Sieve ("Cannot execute CSS selectors because the soupsieve package is
  not installed."), without ``typing_extensions`` (a dependency of bs4 4.13+) or with a file
  of bs4 itself missing.

Not triggerable: a namespace prefix the model used without defining it is not an error in
Soup Sieve (the selector matches nothing, https://facelessuser.github.io/soupsieve/api/
"namespaces"), nor are ``:is()`` / ``:where()`` with an empty or dangling argument (they are
forgiving); Beautiful Soup decodes any byte string it is given (Unicode, Dammit replaces
what it cannot decode), so encoding errors come only from a page read as text; an XML page
that is not well-formed is recovered by lxml without an error; nothing here does network
I/O or waits on a lock, so there is no transient failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files, _pkgcopy
from ._common import A, F, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "beautifulsoup4"
REQUIRES = ["beautifulsoup4==4.15.0", "soupsieve==4.1.4"]

PRODUCTS = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Catalogue</title></head>
<body>
<div id="catalogue">
<article class="product" data-sku="KB-1"><h2 class="title">Keyboard</h2>
<span class="price">49.00</span><a href="/p/kb-1">Details</a></article>
<article class="product" data-sku="MS-2"><h2 class="title">Mouse <em>wireless</em></h2>
<span class="price">19.50</span><a href="/p/ms-2" rel="nofollow">Details</a></article>
</div>
</body></html>
"""

FEED = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
<title>News</title>
<entry><title>Release 2.0</title><media:thumbnail url="https://example.org/t.png"/></entry>
</feed>
"""

# (slug, the model's selector) that Soup Sieve rejects
BAD_SELECTORS: list[tuple[str, str]] = [
    ("attribute-unclosed", "article[data-sku"),
    ("attribute-unquoted-value", "a[href=/p/kb-1]"),
    ("attribute-xpath-style", "a[@href]"),
    ("attribute-bad-flag", "article[data-sku='kb-1' x]"),
    ("pseudo-jquery-first", "article.product:first"),
    ("pseudo-jquery-eq", "article:eq(1)"),
    ("pseudo-contains-unclosed", "h2:-soup-contains('Mouse'"),
    ("pseudo-not-empty", "article:not()"),
    ("nth-child-not-a-number", "article:nth-child(x)"),
    ("combinator-dangling", "article >"),
    ("combinator-doubled", "div >> h2"),
    ("id-starts-with-digit", "#1catalogue"),
    ("xpath", "//article/h2"),
    ("trailing-comma", "h2.title,"),
    ("empty", ""),
    ("unmatched-paren", "article h2)"),
    ("custom-undefined", ":--heading"),
]

PSEUDO_ELEMENTS: list[tuple[str, str]] = [
    ("pseudo-element-scrapy-text", "h2.title::text"),
    ("pseudo-element-scrapy-attr", "a::attr(href)"),
]


class _Pages:
    """The tool's workspace of saved pages (``ctx.tmp/pages``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True)

    def put(self, name: str, content: str | bytes) -> str:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
        return name

    def soup(self, name: str, parser: str = "html.parser") -> Any:
        from bs4 import BeautifulSoup

        with open(self.root / name, encoding="utf-8") as f:
            return BeautifulSoup(f, parser)

    def select(self, name: str, selector: Any, parser: str = "html.parser", **kwargs: Any) -> list[str]:
        return [str(tag) for tag in self.soup(name, parser).select(selector, **kwargs)]

    def text(self, name: str, selector: str) -> str:
        return self.soup(name).select_one(selector).get_text(" ", strip=True)

    def attribute(self, name: str, selector: str, attribute: str) -> str:
        return self.soup(name).select_one(selector)[attribute]


def cases(ctx: Context) -> Iterator[Case]:
    pages = _Pages(ctx.tmp / "pages")
    page = pages.put("shop/products.html", PRODUCTS)
    feed = pages.put("feeds/news.xml", FEED)

    for slug, selector in [*BAD_SELECTORS, *PSEUDO_ELEMENTS]:
        exc = _catch(lambda: pages.select(page, selector))
        yield Case(
            f"soupsieve-{slug}",
            LIBRARY,
            f"CSS selector the model wrote is invalid ({slug})",
            F,
            None,
            exc,
            "select_elements",
            {"path": page, "selector": selector},
        )

    # options the model wrote
    options: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("custom-name-without-dashes", {"selector": ":--heading", "custom": {"heading": "h1, h2"}}, {}),
        (
            "custom-defined-twice",
            {"selector": ":--price", "custom": {":--price": ".price", ":--PRICE": "span"}},
            {},
        ),
        ("custom-selector-invalid", {"selector": "article :--heading", "custom": {":--heading": "h1,"}}, {}),
        ("limit-string", {"selector": "article.product", "limit": "1"}, {}),
        ("selector-list", {"selector": ["h2.title", ".price"]}, {}),
    ]
    for slug, args, _ in options:
        kwargs = {k: v for k, v in args.items() if k != "selector"}
        exc = _catch(lambda: pages.select(page, args["selector"], **kwargs))
        yield Case(
            f"soupsieve-{slug}",
            LIBRARY,
            f"selector option the model wrote is invalid ({slug})",
            F,
            None,
            exc,
            "select_elements",
            {"path": page, **args},
        )
    for slug, namespaces in (
        ("namespaces-value-not-string", {"media": 1}),
        ("namespaces-list", ["media", "http://search.yahoo.com/mrss/"]),
    ):
        exc = _catch(lambda: pages.select(feed, "media|thumbnail", "xml", namespaces=namespaces))
        yield Case(
            f"soupsieve-feed-{slug}",
            LIBRARY,
            "namespace mapping the model wrote is invalid",
            F,
            None,
            exc,
            "select_feed",
            {"path": feed, "selector": "media|thumbnail", "namespaces": namespaces},
        )
    for parser in ("html5-lib", "HTML.parser"):
        exc = _catch(lambda: pages.select(page, "h2.title", parser))
        yield Case(
            f"soupsieve-parser-unknown-{parser.replace('.', '-').lower()}",
            LIBRARY,
            "parser name the model gave is not a Beautiful Soup feature",
            F,
            None,
            exc,
            "select_elements",
            {"path": page, "selector": "h2.title", "parser": parser},
        )
    exc = _catch(lambda: pages.select("shop", "h2.title"))
    yield Case(
        "soupsieve-path-is-directory",
        LIBRARY,
        "page path the model gave is a directory",
        F,
        None,
        exc,
        "select_elements",
        {"path": "shop", "selector": "h2.title"},
    )

    yield from _stored(pages, page)
    yield from _refusals(ctx, pages, page)


def _stored(pages: _Pages, page: str) -> Iterator[Case]:
    # valid selectors that match nothing on the page (or an element without the attribute)
    for slug, tool, args, fn in (
        (
            "no-match-text",
            "extract_text",
            {"selector": "h1.page-title"},
            lambda: pages.text(page, "h1.page-title"),
        ),
        (
            "no-match-text-class",
            "extract_text",
            {"selector": "article.product .rating"},
            lambda: pages.text(page, "article.product .rating"),
        ),
        (
            "no-match-attribute",
            "extract_attribute",
            {"selector": "a.next", "attribute": "href"},
            lambda: pages.attribute(page, "a.next", "href"),
        ),
        (
            "attribute-missing",
            "extract_attribute",
            {"selector": "article.product", "attribute": "data-price"},
            lambda: pages.attribute(page, "article.product", "data-price"),
        ),
        (
            "attribute-missing-rel",
            "extract_attribute",
            {"selector": "article.product a", "attribute": "rel"},
            lambda: pages.attribute(page, "article.product a", "rel"),
        ),
    ):
        exc = _catch(fn)
        yield Case(
            f"soupsieve-{slug}",
            LIBRARY,
            "element or attribute the selector names is not on the page",
            A,
            None,
            exc,
            tool,
            {"path": page, **args},
        )

    for slug, name in (
        ("page-missing", "shop/product.html"),
        ("page-missing-dir", "shop/2024/products.html"),
    ):
        exc = _catch(lambda: pages.select(name, "h2.title"))
        yield Case(
            f"soupsieve-{slug}",
            LIBRARY,
            "page the model named does not exist",
            A,
            None,
            exc,
            "select_elements",
            {"path": name, "selector": "h2.title"},
        )

    # stored pages that are not UTF-8 HTML
    stored: list[tuple[str, str, bytes, str, dict[str, Any]]] = [
        (
            "latin1",
            "shop/fr.html",
            PRODUCTS.replace("Keyboard", "Clavier français").encode("latin-1"),
            "select",
            {},
        ),
        ("utf16", "shop/export.html", PRODUCTS.encode("utf-16"), "select", {}),
        ("png", "shop/banner.html", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10", "select", {}),
        (
            "gzip",
            "shop/download.html",
            b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xb3\xc9(\xc9\xcd\xb1",
            "select",
            {},
        ),
        (
            "windows-1252",
            "shop/quotes.html",
            PRODUCTS.replace("Keyboard", "\u201cPro\u201d Keyboard").encode("cp1252"),
            "select",
            {},
        ),
        ("json", "shop/api.html", b'{"products": [{"sku": "KB-1", "title": "Keyboard"}]}\n', "text", {}),
        ("empty", "shop/empty.html", b"", "text", {}),
        (
            "pdf-text-only",
            "shop/catalogue.html",
            b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n",
            "text",
            {},
        ),
        (
            "marked-section-spaces",
            "shop/word-export.html",
            PRODUCTS.replace("<body>", "<body><![ endif ]>").encode(),
            "select",
            {},
        ),
        (
            "marked-section-unknown",
            "shop/legacy.html",
            PRODUCTS.replace("<body>", "<body><![include-if[ie]]>").encode(),
            "select",
            {},
        ),
    ]
    for slug, name, content, op, _ in stored:
        pages.put(name, content)
        if op == "select":
            exc = _catch(lambda: pages.select(name, "h2.title"))
            tool, args = "select_elements", {"path": name, "selector": "h2.title"}
        else:
            exc = _catch(lambda: pages.text(name, "h2.title"))
            tool, args = "extract_text", {"path": name, "selector": "h2.title"}
        yield Case(
            f"soupsieve-page-{slug}",
            LIBRARY,
            f"stored page is not a UTF-8 HTML page ({slug})",
            A,
            None,
            exc,
            tool,
            args,
        )


def _refusals(ctx: Context, pages: _Pages, page: str) -> Iterator[Case]:
    secret = pages.put("shop/private.html", PRODUCTS)
    (pages.root / secret).chmod(0o000)
    _files.read_only_dir(pages.root / "ro-probe")  # makes the directories searchable by nobody
    exc = _files.denied(lambda: pages.select(secret, "h2.title"))
    yield Case(
        "soupsieve-page-unreadable",
        LIBRARY,
        "page not readable (permissions)",
        U,
        None,
        exc,
        "select_elements",
        {"path": secret, "selector": "h2.title"},
    )

    # installations without a parser library, Soup Sieve, typing_extensions or a bs4 file
    parsers = ["bs4", "soupsieve", "typing_extensions"]
    for parser in ("lxml", "html5lib", "xml"):
        with _pkgcopy.broken_install(ctx.tmp, parsers, hide=("lxml", "html5lib")):
            exc = _catch(lambda: pages.select(page, "h2.title", parser))
        yield Case(
            f"soupsieve-parser-not-installed-{parser}",
            LIBRARY,
            f"parser library not installed ({parser})",
            U,
            None,
            exc,
            "select_elements",
            {"path": page, "selector": "h2.title", "parser": parser},
        )
    for slug, packages, drop in (
        ("soupsieve-not-installed", ["bs4", "typing_extensions"], ()),
        ("soupsieve-module-missing", parsers, ("soupsieve/css_parser.py",)),
        ("typing-extensions-not-installed", ["bs4", "soupsieve"], ()),
        ("bs4-module-missing", parsers, ("bs4/builder/_htmlparser.py",)),
    ):
        with _pkgcopy.broken_install(
            ctx.tmp, packages, drop=drop, hide=("soupsieve", "typing_extensions", "lxml")
        ):
            exc = _catch(lambda: pages.select(page, "h2.title"))
        yield Case(
            f"soupsieve-{slug}",
            LIBRARY,
            "installation lacks a module Beautiful Soup needs",
            U,
            None,
            exc,
            "select_elements",
            {"path": page, "selector": "h2.title"},
        )
