# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""PyYAML: YAML the model wrote in its arguments (fixable), files the tool read from disk
(ambiguous) and the loader's safety and depth limits (unrecoverable)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from generate import A, Case, F, U, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "pyyaml"
REQUIRES = ["PyYAML>=6.0,<7"]

# (name, the YAML an LLM wrote): each malformed in its own way
MODEL_YAML: list[tuple[str, str]] = [
    ("tab-indent", "steps:\n\t- name: build\n"),
    ("tab-after-key", "name:\tdeploy\nreplicas:\n\t3\n"),
    ("unclosed-flow-seq", "tags: [web, api\nname: x\n"),
    ("unclosed-flow-map", "env: {DEBUG: 1, LEVEL: info\n"),
    ("unclosed-double-quote", 'message: "hello world\nnext: 1\n'),
    ("unclosed-single-quote", "message: 'it is\nnext: 1\n"),
    ("bad-indent-mapping", "server:\n  host: a\n port: 80\n"),
    ("mapping-in-sequence-indent", "items:\n  - a\n  b: 1\n"),
    ("colon-in-value", "title: Error: the build failed: again\n"),
    ("key-after-scalar", "name: web\n  image: nginx\n"),
    ("unknown-escape", 'path: "C:\\Users\\me"\n'),
    ("bad-unicode-escape", 'text: "\\uZZZZ"\n'),
    ("undefined-alias", "base: &b {a: 1}\nchild: *missing\n"),
    ("anchor-no-name", "base: & {a: 1}\n"),
    ("alias-no-name", "x: *\n"),
    ("custom-tag", "secret: !vault abc123\n"),
    ("at-sign-start", "handle: @someone\n"),
    ("backtick-start", "cmd: `ls -la`\n"),
    ("percent-directive-midway", "a: 1\n%YAML 1.2\n---\nb: 2\n"),
    ("doc-end-junk", "a: 1\n... extra\n"),
    ("flow-seq-colon", "[a: b: c]\n"),
    ("flow-map-extra-close", "env: {A: 1}}\n"),
    ("block-seq-in-flow", "x: [\n- a\n- b]\n"),
    ("question-mark-key", "? complex\n? : b\n  - c\n"),
    ("literal-block-bad-indicator", "script: |x\n  echo hi\n"),
    ("folded-indent-zero", "text: >0\n  hi\n"),
    ("json-trailing-comma-nested", '{"a": [1, 2,], "b": {"c": 1,}\n'),
    ("markdown-fence", "```yaml\nname: x\n  - y\n```\n"),
    ("list-then-map-same-level", "- a\n- b\nkey: value\n"),
    ("map-then-list-same-level", "key: value\n- a\n"),
    ("double-colon-key", "a:: 1\nb: [\n"),
    ("multiline-plain-key", "first\nsecond: 1\nthird\n"),
    ("control-char", "name: bad\x07value\n"),
    ("bom-midstream", "a: 1\n\ufeffb: [\n"),
    ("nested-quote", 'q: "he said "hi""\n'),
    ("directive-unknown-version", "%YAML 2.0\n---\na: 1\n"),
    ("duplicate-yaml-directive", "%YAML 1.1\n%YAML 1.1\n---\na: 1\n"),
    ("tag-directive-bad", "%TAG ! \n---\na: 1\n"),
    ("merge-bad-value", "b: &b [1, 2]\nc:\n  <<: *b\n"),
    ("unhashable-key", "? [a, b]\n: 1\n? {x: 1}\n: 2\n"),
    ("set-bad-value", "s: !!set [a, b]\n"),
    ("binary-bad", "img: !!binary not*base64\n"),
    ("timestamp-bad", "when: !!timestamp next tuesday\n"),
    ("int-tag-bad", "n: !!int twelve\n"),
    ("float-tag-bad", "x: !!float 1,5\n"),
    ("omap-bad", "o: !!omap {a: 1}\n"),
    ("seq-item-no-space", "steps:\n  -build\n  - test: 1\n"),
    ("key-with-brackets", "matrix[0]: [1, 2\n"),
    ("windows-path-unquoted-flow", "paths: [C:\\temp, {a}\n"),
    ("helm-template-braces", "image: {{ .Values.image }}\n"),
    ("ansible-jinja-unquoted", "msg: {{ item }} done\n"),
    ("pipe-in-flow", "cmd: [grep x | wc -l, {]\n"),
]


def _load(text: str) -> None:
    import yaml

    yaml.safe_load(text)


def cases(ctx: Context) -> Iterator[Case]:
    import yaml

    for name, text in MODEL_YAML:
        exc = _catch(lambda: _load(text))
        yield Case(
            f"pyyaml-{name}",
            LIBRARY,
            f"YAML from the arguments ({name})",
            F,
            None,
            exc,
            "parse_yaml",
            arguments={"yaml": text},
        )
    # several documents where one was asked for
    text = "a: 1\n---\nb: 2\n"
    exc = _catch(lambda: yaml.safe_load(text))
    yield Case(
        "pyyaml-several-docs",
        LIBRARY,
        "two documents for safe_load",
        F,
        None,
        exc,
        "parse_yaml",
        arguments={"yaml": text},
    )

    # files the tool read from disk: not the model's text
    exc = _catch(lambda: yaml.safe_load(open(ctx.tmp / "config.yaml")))  # noqa: SIM115
    yield Case(
        "pyyaml-file-missing",
        LIBRARY,
        "config file does not exist",
        A,
        None,
        exc,
        "load_config",
        arguments={"path": str(ctx.tmp / "config.yaml")},
    )
    corrupt = ctx.tmp / "deploy.yaml"
    corrupt.write_bytes(b"replicas: 3\nimage: \xff\xfe\x00web\n")
    exc = _catch(lambda: yaml.safe_load(corrupt.open("rb")))
    yield Case(
        "pyyaml-file-not-utf8",
        LIBRARY,
        "file on disk not UTF-8",
        A,
        None,
        exc,
        "load_config",
        arguments={"path": str(corrupt)},
    )
    broken = ctx.tmp / "values.yaml"
    broken.write_text("image:\n  tag: 1.2\n   repo: x\n")
    exc = _catch(lambda: yaml.safe_load(broken.open()))
    yield Case(
        "pyyaml-file-corrupt",
        LIBRARY,
        "file on disk is broken YAML",
        A,
        None,
        exc,
        "load_config",
        arguments={"path": str(broken)},
    )

    # the safe loader refuses what would run code: no rewording of the same payload passes
    for name, text in [
        ("unsafe-apply", "x: !!python/object/apply:os.system ['id']\n"),
        ("unsafe-object", "x: !!python/object:subprocess.Popen {args: [ls]}\n"),
        ("unsafe-module", "x: !!python/module:os\n"),
        ("unsafe-name", "when: !!python/name:os.getcwd\n"),
    ]:
        exc = _catch(lambda: yaml.safe_load(text))
        yield Case(
            f"pyyaml-{name}",
            LIBRARY,
            "safe loader refuses a Python tag",
            U,
            None,
            exc,
            "parse_yaml",
            arguments={"yaml": text},
        )
    # a nesting deeper than the interpreter's recursion limit
    text = "[" * 20000 + "]" * 20000
    exc = _catch(lambda: yaml.safe_load(text))
    yield Case(
        "pyyaml-too-deep",
        LIBRARY,
        "nesting beyond the recursion limit",
        U,
        None,
        exc,
        "parse_yaml",
        # 40,000 characters: only the first 200 are stored
        arguments={"value": text[:200] + "..."},
    )
