# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""Mako behind three templating tools of an agent: ``render_template`` (a template the model
wrote, rendered with the variables it gave, through the tool's ``TemplateLookup`` so that it
may include the stored partials), ``render_stored_template`` (a template file of the tool's
template directory that the model names, rendered with the variables it gave) and
``compile_templates`` (every template of a directory compiled to Python modules in an output
directory, ``TemplateLookup(module_directory=...)``). The tool renders with
``strict_undefined=True`` (https://docs.makotemplates.org/en/latest/runtime.html "Strict
undefined"); ``preview_template`` renders without it.

Labels follow the cause that was set up:

- fixable: a template the model wrote that Mako's lexer or compiler rejects
  (``SyntaxException``: an unterminated ``${``, a control line left open or closed by the
  wrong keyword, a closing tag that does not match, Python syntax in an expression or a
  ``<%def>`` signature; ``CompileException``: a tag Mako does not have, a missing or unknown
  tag attribute, a control keyword Python has not, a duplicate ``<%block>``, ``import *``;
  ``NameConflictError``: a reserved name, https://docs.makotemplates.org/en/latest/syntax.html
  and https://docs.makotemplates.org/en/latest/runtime.html "Reserved Names"), an exception
  raised inside an expression of the model's template by the values it gave
  (``NameError`` of a variable it did not pass, ``KeyError``, ``AttributeError``,
  ``ZeroDivisionError``, ``TypeError``, ``loop`` outside a loop: ``RuntimeException``; and
  ``NameError("Undefined")`` when ``preview_template`` prints a name it did not pass), a
  reserved word as a variable name, an output encoding the
  model chose that does not exist or cannot encode the text; and, for a stored template, a
  variable the model misspelt or gave with the wrong type (the error names the variable the
  template reads; a corrected call works).
- ambiguous: a template name the model gave that the template directory does not hold
  (``TopLevelLookupException``: a typo, or a file that was never there) and a partial or a
  ``<%def>`` of a stored file that the model's template names but the store lacks; a stored
  template that is itself broken, with only its name in the arguments: a syntax error, a
  ``<%inherit>`` / ``<%include>`` / ``<%namespace>`` of a file the store lacks, an
  expression of the template's own that raises (``ZeroDivisionError``, ``KeyError``,
  ``AttributeError`` on a namespace), a file that is not in the encoding its magic comment
  or the tool declares (``CompileException`` "Unicode decode operation ... failed", a BOM
  conflicting with the magic comment, an unknown encoding name: ``LookupError``); an output
  directory for the compiled modules that is an existing file.
- unrecoverable: a stored template or a module directory the process may not read or write
  (``PermissionError``, raised as an ordinary user: as root the generator drops to
  ``nobody`` for those calls, :mod:`libraries._files`), the ``RLIMIT_FSIZE`` quota while
  writing a compiled module (EFBIG), a stored template that imports a module the
  installation lacks or turns on caching without Beaker installed ("Can't initialize Beaker
  plugin", https://docs.makotemplates.org/en/latest/caching.html), and an installation of
  Mako without one of its modules or without its dependency MarkupSafe.

The quota case sets ``RLIMIT_FSIZE`` to 0: with a small positive limit the first write of the
compiled module is cut short without an error and Mako then fails importing the truncated
module (``AttributeError: ... has no attribute '_magic_number'``), whose text does not carry
the cause (left out).

Not triggerable: Mako does no network I/O and takes no lock, so there is no transient
failure; a template directory the process may not search makes Mako's ``os.path.isfile``
say no and ends in the same ``TopLevelLookupException`` as a missing file (left out, its
cause is not in the error); a compiled module written into a read-only directory directly
under the module directory fails on a ``tempfile.mkstemp`` name that changes on every run,
so the read-only cases compile templates in a sub-directory (the error names the directory
Mako creates); a template the model wrote that imports a module that is not installed is
left out (the model's mistake or a missing installation: a guess).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files, _pkgcopy
from ._common import A, F, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "mako"
REQUIRES = ["Mako==1.4.3"]

# (slug, the model's template) that Mako's lexer or compiler rejects
MODEL_SYNTAX: list[tuple[str, str]] = [
    ("unterminated-expression", "Hello ${name"),
    ("control-line-unterminated", "% if vip:\nWelcome back, ${name}\n"),
    ("control-line-wrong-end", "% for u in users:\n${u}\n% endif"),
    ("control-line-no-colon", "% for u in users\n${u}\n% endfor"),
    ("control-keyword-switch", "% switch plan:\n% endswitch"),
    ("closing-tag-mismatch", "<%def name='row(item)'>${item}</%block>"),
    ("no-such-tag", "<%for u in users>${u}</%for>"),
    ("def-missing-parenthesis", "<%def name='row'>${x}</%def>"),
    ("def-bad-signature", "<%def name='row(item'>${item}</%def>${row(1)}"),
    ("include-missing-file-attribute", "<%include/>"),
    ("include-unknown-attribute", "<%include file='partials/header.mako' args='x=1' bogus='1'/>"),
    ("expression-incomplete", "Total: ${price +}"),
    ("expression-dict-missing-comma", "${ {'plan': 'pro' 'seats': 3} }"),
    ("page-args-order", "<%page args='greeting=\"Hi\", name'/>${greeting} ${name}"),
    ("block-defined-twice", "<%block name='body'>a</%block><%block name='body'>b</%block>"),
    ("import-star", "<%! from datetime import * %>${date.today()}"),
    ("reserved-name-assigned", "<% context = {'user': name} %>${context['user']}"),
]

# (slug, the model's template, the model's variables) raising while rendering
MODEL_RUNTIME: list[tuple[str, str, dict[str, Any]]] = [
    ("undefined-variable", "Hello ${nmae}", {"name": "Ada"}),
    ("key-missing", "Hi ${user['emial']}", {"user": {"email": "ada@example.org"}}),
    ("attribute-on-dict", "Hi ${user.email}", {"user": {"email": "ada@example.org"}}),
    ("divide-by-zero", "Average: ${total / count}", {"total": 120, "count": 0}),
    ("add-str-to-int", "${price + ' EUR'}", {"price": 3}),
    ("loop-over-int", "% for c in count:\n${c}\n% endfor", {"count": 3}),
    ("loop-outside-for", "Row ${loop.index}: ${name}", {"name": "Ada"}),
]


class _Store:
    """The tool's template directory (``ctx.tmp/mako/templates``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.templates = root / "templates"
        self.templates.mkdir(parents=True)

    def put(self, name: str, text: str | bytes) -> str:
        path = self.templates / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode() if isinstance(text, str) else text)
        return name

    def lookup(self, **kwargs: Any) -> Any:
        from mako.lookup import TemplateLookup

        return TemplateLookup(
            directories=[str(self.templates)], strict_undefined=True, input_encoding="utf-8", **kwargs
        )

    def render_model(self, text: str, variables: dict[str, Any], **kwargs: Any) -> Any:
        from mako.template import Template

        template = Template(text, lookup=self.lookup(), uri="message.mako", strict_undefined=True, **kwargs)
        return template.render(**variables)

    def render_stored(self, name: str, variables: dict[str, Any]) -> Any:
        return self.lookup().get_template(name).render(**variables)


RECEIPT = "Receipt for ${customer['name']}\n% for line in lines:\n${line['sku']} x ${line['qty']}\n% endfor\n"
MACROS = "<%def name='money(v)'>${'%.2f' % v}</%def>\n"

# (slug, stored file, its contents, the model's variables): stored templates that are broken
STORED_BROKEN: list[tuple[str, str, str | bytes, dict[str, Any]]] = [
    (
        "syntax-unterminated-if",
        "emails/welcome.mako",
        "Hello ${name}\n% if vip:\nWelcome back\n",
        {"name": "Ada"},
    ),
    (
        "syntax-def-signature",
        "emails/reset.mako",
        "<%def name='link(url'>${url}</%def>Reset: ${link(url)}\n",
        {"url": "https://example.org/r/1"},
    ),
    (
        "block-defined-twice",
        "reports/summary.mako",
        "<%block name='body'>${title}</%block>\n<%block name='body'>again</%block>\n",
        {"title": "Q3"},
    ),
    (
        "inherit-missing-layout",
        "pages/about.mako",
        "<%inherit file='/layout.mako'/>About ${company}\n",
        {"company": "Acme"},
    ),
    (
        "include-missing-partial",
        "pages/contact.mako",
        "<%include file='/partials/footer.mako'/>Write to ${email}\n",
        {"email": "hi@example.org"},
    ),
    (
        "namespace-missing-file",
        "pages/team.mako",
        "<%namespace name='h' file='/helpers.mako'/>${h.avatar(name)}\n",
        {"name": "Ada"},
    ),
    (
        "namespace-missing-def",
        "pages/pricing.mako",
        "<%namespace name='fmt' file='/macros.mako'/>Price: ${fmt.currency(price)}\n",
        {"price": 9.5},
    ),
    (
        "own-division-by-zero",
        "reports/stats.mako",
        "<% rows = [] %>${title}: average ${sum(rows) / len(rows)}\n",
        {"title": "Q3"},
    ),
    (
        "own-key-missing",
        "emails/greeting.mako",
        "<% labels = {'subject': 'Hello'} %>${labels['greeting']}, ${name}\n",
        {"name": "Ada"},
    ),
    ("not-utf8", "emails/cafe.mako", "Café ${name}\n".encode("latin-1"), {"name": "Ada"}),
    ("utf16", "emails/notice.mako", "Notice for ${name}\n".encode("utf-16"), {"name": "Ada"}),
    (
        "magic-comment-ascii",
        "emails/menu.mako",
        "## -*- coding: ascii -*-\nCafé menu for ${name}\n".encode(),
        {"name": "Ada"},
    ),
    (
        "magic-comment-unknown",
        "emails/legacy.mako",
        b"## -*- coding: latin-9x -*-\nHello ${name}\n",
        {"name": "Ada"},
    ),
    (
        "bom-conflicts-magic",
        "emails/bom.mako",
        b"\xef\xbb\xbf## -*- coding: latin-1 -*-\nHello ${name}\n",
        {"name": "Ada"},
    ),
]


def cases(ctx: Context) -> Iterator[Case]:
    store = _Store(ctx.tmp / "mako")
    store.put("macros.mako", MACROS)
    store.put("invoices/receipt.mako", RECEIPT)

    for slug, text in MODEL_SYNTAX:
        exc = _catch(lambda: store.render_model(text, {"name": "Ada", "users": ["Ada"], "total": 3}))
        yield Case(
            f"mako-{slug}",
            LIBRARY,
            f"template the model wrote does not compile ({slug})",
            F,
            None,
            exc,
            "render_template",
            {"template": text, "variables": {"name": "Ada", "users": ["Ada"], "total": 3}},
        )
    for slug, text, variables in MODEL_RUNTIME:
        exc = _catch(lambda: store.render_model(text, variables))
        yield Case(
            f"mako-render-{slug}",
            LIBRARY,
            f"the model's template fails on the variables it gave ({slug})",
            F,
            None,
            exc,
            "render_template",
            {"template": text, "variables": variables},
        )

    # a variable named like one of Mako's reserved names
    variables = {"context": {"user": "Ada"}}
    exc = _catch(lambda: store.render_model("Hi ${user}", variables))
    yield Case(
        "mako-render-reserved-variable",
        LIBRARY,
        "variable the model gave has a reserved name",
        F,
        None,
        exc,
        "render_template",
        {"template": "Hi ${user}", "variables": variables},
    )
    # an undefined name without strict_undefined: Mako's UNDEFINED refuses to be printed
    exc = _catch(lambda: _preview("Dear ${custmer},", {"customer": "Ada"}))
    yield Case(
        "mako-preview-undefined",
        LIBRARY,
        "the model's template prints a variable it did not pass",
        F,
        None,
        exc,
        "preview_template",
        {"template": "Dear ${custmer},", "variables": {"customer": "Ada"}},
    )
    # output encodings the model chose
    for slug, encoding in (("output-encoding-ascii", "ascii"), ("output-encoding-unknown", "utf-8-bom")):
        exc = _catch(lambda: store.render_model("Café ${name}", {"name": "Zoë"}, output_encoding=encoding))
        yield Case(
            f"mako-render-{slug}",
            LIBRARY,
            "output encoding the model chose",
            F,
            None,
            exc,
            "render_template",
            {"template": "Café ${name}", "variables": {"name": "Zoë"}, "output_encoding": encoding},
        )

    # the model's template names a partial or a def the store lacks
    for slug, text in (
        ("include-missing-partial", "<%include file='partials/header.mako'/>Hi ${name}"),
        ("namespace-missing-def", "<%namespace name='fmt' file='macros.mako'/>${fmt.currency(9.5)} ${name}"),
        ("inherit-missing-layout", "<%inherit file='layouts/base.mako'/>Hi ${name}"),
    ):
        exc = _catch(lambda: store.render_model(text, {"name": "Ada"}))
        yield Case(
            f"mako-render-{slug}",
            LIBRARY,
            "stored partial, layout or def the model's template names does not exist",
            A,
            None,
            exc,
            "render_template",
            {"template": text, "variables": {"name": "Ada"}},
        )

    # stored templates: names the store lacks
    for slug, name in (
        ("stored-missing", "invoices/reciept.mako"),
        ("stored-missing-extension", "invoices/receipt.html"),
    ):
        variables = {"customer": {"name": "Ada"}, "lines": []}
        exc = _catch(lambda: store.render_stored(name, variables))
        yield Case(
            f"mako-{slug}",
            LIBRARY,
            "stored template the model named does not exist",
            A,
            None,
            exc,
            "render_stored_template",
            {"name": name, "variables": variables},
        )

    # stored template, the model's variables misspelt or of the wrong type
    for slug, variables in (
        ("stored-variable-misspelt", {"custmer": {"name": "Ada"}, "lines": [{"sku": "KB-1", "qty": 2}]}),
        ("stored-variable-not-list", {"customer": {"name": "Ada"}, "lines": 3}),
        ("stored-variable-string", {"customer": "Ada", "lines": [{"sku": "KB-1", "qty": 2}]}),
        (
            "stored-variable-missing-key",
            {"customer": {"name": "Ada"}, "lines": [{"sku": "KB-1", "quantity": 2}]},
        ),
    ):
        exc = _catch(lambda: store.render_stored("invoices/receipt.mako", variables))
        yield Case(
            f"mako-{slug}",
            LIBRARY,
            "variables the model gave do not fit the stored template",
            F,
            None,
            exc,
            "render_stored_template",
            {"name": "invoices/receipt.mako", "variables": variables},
        )

    # stored templates that are broken themselves
    for slug, name, content, variables in STORED_BROKEN:
        store.put(name, content)
        exc = _catch(lambda: store.render_stored(name, variables))
        yield Case(
            f"mako-stored-{slug}",
            LIBRARY,
            f"stored template is broken ({slug})",
            A,
            None,
            exc,
            "render_stored_template",
            {"name": name, "variables": variables},
        )

    yield from _refusals(ctx, store)


def _preview(text: str, variables: dict[str, Any]) -> Any:
    from mako.template import Template

    return Template(text, uri="preview.mako").render(**variables)


def _compile_all(source: Path, output: Path) -> None:
    """``compile_templates``: every ``*.mako`` under ``source`` compiled into ``output``."""
    from mako.lookup import TemplateLookup

    lookup = TemplateLookup(directories=[str(source)], module_directory=str(output), input_encoding="utf-8")
    for path in sorted(source.rglob("*.mako")):
        lookup.get_template(path.relative_to(source).as_posix())


def _refusals(ctx: Context, store: _Store) -> Iterator[Case]:
    # stored templates the installation cannot serve
    for slug, name, content, variables in (
        (
            "stored-imports-missing-module",
            "reports/money.mako",
            "<%! from shop_filters import money %>Total: ${money(total)}\n",
            {"total": 12.5},
        ),
        (
            "stored-cache-without-beaker",
            "reports/cached.mako",
            "<%page cached='True'/>Report ${title}\n",
            {"title": "Q3"},
        ),
    ):
        store.put(name, content)
        # Mako and MarkupSafe only: the other installed packages (Beaker, were it installed,
        # and whatever module the template imports) are out of reach
        with _pkgcopy.broken_install(ctx.tmp, ["mako", "markupsafe"], hide=("beaker",)):
            exc = _catch(lambda: store.render_stored(name, variables))
        yield Case(
            f"mako-{slug}",
            LIBRARY,
            "stored template needs a module the installation lacks",
            U,
            None,
            exc,
            "render_stored_template",
            {"name": name, "variables": variables},
        )

    # a stored template the process may not read
    store.put("invoices/private.mako", RECEIPT)
    (store.templates / "invoices/private.mako").chmod(0o000)
    _files.read_only_dir(store.root / "ro-probe")  # makes the directories searchable by nobody
    variables = {"customer": {"name": "Ada"}, "lines": []}
    exc = _files.denied(lambda: store.render_stored("invoices/private.mako", variables))
    yield Case(
        "mako-stored-unreadable",
        LIBRARY,
        "stored template not readable (permissions)",
        U,
        None,
        exc,
        "render_stored_template",
        {"name": "invoices/private.mako", "variables": variables},
    )

    # compile_templates
    site = ctx.tmp / "site"
    (site / "templates" / "pages").mkdir(parents=True)
    (site / "templates" / "pages" / "home.mako").write_text("<h1>${title}</h1>\n")
    ro = _files.read_only_dir(site / "build-ro")
    exc = _files.denied(lambda: _compile_all(site / "templates", ro))
    yield Case(
        "mako-compile-output-read-only",
        LIBRARY,
        "output directory not writable (permissions)",
        U,
        None,
        exc,
        "compile_templates",
        {"directory": str(site / "templates"), "output_dir": str(ro)},
    )
    with _files.file_size_limit(0):
        exc = _catch(lambda: _compile_all(site / "templates", site / "build-quota"))
    yield Case(
        "mako-compile-file-size-limit",
        LIBRARY,
        "file size limit reached (quota)",
        U,
        None,
        exc,
        "compile_templates",
        {"directory": str(site / "templates"), "output_dir": str(site / "build-quota")},
    )
    (site / "build.log").write_text("ok\n")
    exc = _catch(lambda: _compile_all(site / "templates", site / "build.log"))
    yield Case(
        "mako-compile-output-is-file",
        LIBRARY,
        "output directory the model named is an existing file",
        A,
        None,
        exc,
        "compile_templates",
        {"directory": str(site / "templates"), "output_dir": str(site / "build.log")},
    )
    broken = ctx.tmp / "site-broken" / "templates"
    (broken / "pages").mkdir(parents=True)
    (broken / "pages" / "home.mako").write_text("<h1>${title}</h1>\n% for p in posts:\n${p}\n")
    exc = _catch(lambda: _compile_all(broken, ctx.tmp / "site-broken" / "build"))
    yield Case(
        "mako-compile-stored-syntax-error",
        LIBRARY,
        "template file in the directory is broken",
        A,
        None,
        exc,
        "compile_templates",
        {"directory": str(broken), "output_dir": str(ctx.tmp / "site-broken" / "build")},
    )

    # installations without one of Mako's modules or without MarkupSafe
    for slug, drop, hide in (
        ("module-missing-lexer", ("mako/lexer.py",), ()),
        ("module-missing-runtime", ("mako/runtime.py",), ()),
        ("markupsafe-missing", (), ("markupsafe",)),
    ):
        with _pkgcopy.broken_install(ctx.tmp, ["mako"], drop=drop, hide=hide):
            exc = _catch(lambda: importlib.import_module("mako.template"))
        yield Case(
            f"mako-{slug}",
            LIBRARY,
            "installation lacks a module Mako needs",
            U,
            None,
            exc,
            "render_template",
            {"template": "Hello ${name}", "variables": {"name": "Ada"}},
        )
