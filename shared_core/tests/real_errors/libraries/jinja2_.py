# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""Jinja2: templates and variables the model wrote in its arguments (fixable); a template
directory on disk (ambiguous); the sandbox's refusals (unrecoverable)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from generate import A, Case, F, U, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "jinja2"
REQUIRES = ["Jinja2>=3.1.4,<4"]

MODEL_TEMPLATES: list[tuple[str, str]] = [
    ("unclosed-variable", "Hello {{ name }"),
    ("unclosed-block", "{% if admin %}Hi"),
    ("unclosed-for", "{% for u in users %}{{ u }}"),
    ("endfor-for-if", "{% if x %}a{% endfor %}"),
    ("unknown-tag", "{% switch x %}{% endswitch %}"),
    ("elif-misspelled", "{% if a %}1{% elsif b %}2{% endif %}"),
    ("django-filter-args", "{{ name|truncatechars:10 }}"),
    ("unknown-filter", "{{ price|currency }}"),
    ("unknown-test", "{% if x is positive %}y{% endif %}"),
    ("handlebars-each", "{{#each items}}{{this}}{{/each}}"),
    ("mustache-section", "{{#admin}}hi{{/admin}}"),
    ("python-fstring", "{{ f'{name}' }}"),
    ("unclosed-string", "{{ 'hello }}"),
    ("unclosed-paren", "{{ format(name }}"),
    ("unclosed-comment", "{# note"),
    ("extra-endblock", "text{% endblock %}"),
    ("block-twice", "{% block a %}{% endblock %}{% block a %}{% endblock %}"),
    ("set-no-value", "{% set x %}"),
    ("macro-bad-args", "{% macro m(a=1, b) %}{% endmacro %}"),
    ("for-in-missing", "{% for u users %}{% endfor %}"),
    ("operator-triple-equals", "{{ a === b }}"),
    ("and-ampersand", "{% if a && b %}x{% endif %}"),
    ("dict-colon-missing", "{{ {'a' 1} }}"),
    ("raw-unclosed", "{% raw %}{{ x }}"),
    ("import-without-as", "{% import 'macros.html' %}"),
    ("filter-block-unclosed", "{% filter upper %}hi"),
    ("call-keyword-after-star", "{{ f(**kw, a=1) }}"),
]

MODEL_RENDERS: list[tuple[str, str, dict[str, object]]] = [
    ("undefined-variable", "Hello {{ nmae }}", {"name": "Ann"}),
    ("undefined-attribute", "{{ user.emial }}", {"user": {"email": "a@b"}}),
    ("undefined-in-loop", "{% for i in itmes %}{{ i }}{% endfor %}", {"items": [1]}),
    ("none-attribute", "{{ order.total.amount }}", {"order": {"total": None}}),
    ("index-out-of-range", "{{ items[5] }}", {"items": [1, 2]}),
    ("divide-by-zero", "{{ total / count }}", {"total": 1, "count": 0}),
    ("int-filter-string-op", "{{ price + ' EUR' }}", {"price": 3}),
    ("not-iterable", "{% for c in count %}{% endfor %}", {"count": 3}),
    ("undefined-macro-call", "{{ render_row(row) }}", {"row": 1}),
    ("format-mismatch", "{{ '%d items'|format('many') }}", {}),
]


def cases(ctx: Context) -> Iterator[Case]:
    import jinja2
    from jinja2.sandbox import SandboxedEnvironment

    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    for name, text in MODEL_TEMPLATES:
        exc = _catch(lambda: env.from_string(text).render())
        yield Case(
            f"jinja2-{name}",
            LIBRARY,
            f"template from the arguments ({name})",
            F,
            None,
            exc,
            "render_template",
            {"template": text},
        )
    for name, text, data in MODEL_RENDERS:
        exc = _catch(lambda: env.from_string(text).render(**data))
        yield Case(
            f"jinja2-{name}",
            LIBRARY,
            f"variables from the arguments ({name})",
            F,
            None,
            exc,
            "render_template",
            {"template": text, "variables": data},
        )

    files = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ctx.tmp)), undefined=jinja2.StrictUndefined)
    exc = _catch(lambda: files.get_template("email/welcome.html"))
    yield Case(
        "jinja2-template-missing",
        LIBRARY,
        "template file does not exist",
        A,
        None,
        exc,
        "render_template",
        {"template_name": "email/welcome.html"},
    )
    (ctx.tmp / "base.html").write_text("<html>{% block body %}</html>\n")
    exc = _catch(lambda: files.get_template("base.html"))
    yield Case(
        "jinja2-template-file-broken",
        LIBRARY,
        "template file on disk is broken",
        A,
        None,
        exc,
        "render_template",
        {"template_name": "base.html"},
    )
    (ctx.tmp / "page.html").write_text('{% extends "layout.html" %}\n')
    exc = _catch(lambda: files.get_template("page.html").render())
    yield Case(
        "jinja2-parent-missing",
        LIBRARY,
        "parent template file does not exist",
        A,
        None,
        exc,
        "render_template",
        {"template_name": "page.html"},
    )

    sandbox = SandboxedEnvironment()
    for name, text in [
        ("sandbox-dunder", "{{ ''.__class__.__mro__[1].__subclasses__() }}"),
        ("sandbox-globals", "{{ cycler.__init__.__globals__.os.popen('id').read() }}"),
    ]:
        exc = _catch(lambda: sandbox.from_string(text).render())
        yield Case(
            f"jinja2-{name}",
            LIBRARY,
            "sandbox refuses unsafe access",
            U,
            None,
            exc,
            "render_template",
            {"template": text},
        )
