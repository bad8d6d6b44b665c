# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""ruamel.yaml behind an agent's configuration-editing tools: YAML and edit options the
model wrote (fixable), configuration files and remote documents the tool read where the
model only named them (ambiguous), a remote configuration stream cut or stalled
mid-transfer (transient), and the tool's safe loader, the file system and the
installation refusing (unrecoverable).

The tools (every one loads with ``YAML(typ=..., pure=True)``; the round-trip ``rt`` loader
keeps comments, order and anchors when a file is written back):

- ``validate_yaml`` ``{"yaml", "mode"?}``: loads the model's text with ``YAML(typ=mode)``
  (``rt`` unless the model picks ``safe`` or ``base``);
- ``load_values`` ``{"yaml"}``: loads the model's text with the tool's safe loader
  (``typ="safe"``), to hand plain values on;
- ``format_yaml`` ``{"yaml", "indent"?, "width"?, "yaml_version"?}``: round-trips the
  model's text with the layout options it gave (``YAML.indent()``, ``.width``,
  ``.version``);
- ``write_config`` ``{"path", "yaml"}``: loads the model's text and dumps it to the path;
- ``get_config_value`` / ``set_config_value`` / ``delete_config_key`` ``{"path", "key",
  "value"?}``: round-trip edits of a file at a dotted key path (``spec.containers.0.image``:
  integer segments index sequences, ``CommentedMap`` / ``CommentedSeq`` item access);
- ``annotate_config`` ``{"path", "key", "comment"}``: ``yaml_add_eol_comment`` on the key,
  then the tool re-loads what it would write before writing it;
- ``anchor_config`` ``{"path", "key", "anchor"}``: ``yaml_set_anchor(anchor,
  always_dump=True)`` on the mapping at the key, then dumps;
- ``move_config_key`` ``{"path", "key", "position"}``: ``CommentedMap.insert(position,
  key, value)`` to reorder a key;
- ``load_remote_config`` ``{"url"}``: ``YAML().load()`` (or ``load_all()``) reading the
  body of ``urllib.request.urlopen(url)`` as a stream (the tool's config server on
  127.0.0.1, 1 s timeout).

Labels follow the cause that was set up (docs: https://yaml.dev/doc/ruamel.yaml/api/ --
"Duplicate keys", "Indentation of block sequences", "Output of ``dump()`` as a string",
``YAML(typ=...)``; https://yaml.dev/doc/ruamel.yaml/detail/ comments and anchors; the
YAML 1.2 spec https://yaml.org/spec/1.2.2/ for tags, directives, aliases and merge keys).
Fixable: text the model wrote that ruamel.yaml rejects -- a duplicate key or merge key
(``DuplicateKeyError``, which ruamel.yaml raises by default, "To suppress this check
see ..."), a merge of a sequence, an undefined alias, two documents for ``load``, a
``%YAML`` directive other than 1.1/1.2, an explicit ``!!int`` / ``!!bool`` /
``!!timestamp`` / ``!!binary`` tag on a value of another form, a control
character, tabs, unclosed flow collections and quotes -- and edit options the model
wrote: a ``typ`` ruamel.yaml does not know or that only dumps (``full``), an indent or
width that is not a number, a YAML version outside 1.1/1.2, a comment with a line break
that breaks the written document, an anchor with a space or a flow indicator
(``EmitterError``), a position that is not an integer, and a path to write whose
directory does not exist or that is a directory.

Ambiguous: the model only named the file (or the key path in it) and the cause is in what
the tool read -- a file that does not exist, a key or sequence index the file does not
have (a typo, or a file of another shape: like a record that is not found), a top-level
sequence where a mapping was expected, and files that are not valid YAML: duplicate keys
or merge keys written by someone else, git conflict markers, an unrendered Helm
template, tabs, Latin-1 or UTF-16 bytes (``ReaderError``), two documents, an undefined
alias, a merge of a sequence; the same for a remote document with duplicate keys.

Transient (unknown outcome: the request was sent): the config server stalls after the
headers or mid-body (``TimeoutError`` inside ruamel.yaml's ``Reader``), resets the
connection mid-body, cuts a chunked body, or closes early on a ``Content-Length`` body,
which ``http.client`` ends quietly so that ruamel.yaml parses a truncated document and
raises a ``ScannerError`` -- the cause (a cut transfer) is the same as a reset: the same
call succeeds once the transfer completes.

Unrecoverable: the tool's safe loader refuses Python tags (``!!python/object/apply``,
``!!python/object/new``, ``!!python/name``: "could not determine a constructor", no
rewording of the same payload passes); files and directories the process may not read
or write, a file size limit (``RLIMIT_FSIZE``: EFBIG, as a full quota) and an
installation without one of ruamel.yaml's modules.

Not triggerable: ruamel.yaml takes no lock and opens no connection of its own (its only
network-shaped failures are those of the stream the tool hands it); ``ruamel.yaml.clib``
is optional and ``pure=True`` is used, so no C-extension failure; JSON arguments are
always representable, so no ``RepresenterError`` comes from the model's values; an EOL
comment on a key that does not exist and ``yaml_set_comment_before_after_key`` are
silently ignored or written as comments (no error); an unknown tag under the round-trip
loader is kept as a ``TaggedScalar`` (no error).
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import socket
import struct
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files, _pkgcopy
from ._common import UO, A, F, T, U, raw_server

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "ruamel.yaml"
REQUIRES = ["ruamel.yaml==0.19.1"]

DEPLOY = """\
# web deployment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web  # the service name
  labels:
    app: web
spec:
  replicas: 3
  template:
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports:
        - containerPort: 80
"""


def _yaml(typ: str = "rt") -> Any:
    from ruamel.yaml import YAML

    return YAML(typ=typ, pure=True)


def _seg(segment: str) -> Any:
    return int(segment) if segment.lstrip("-").isdigit() else segment


def _walk(data: Any, segments: list[str]) -> Any:
    node = data
    for segment in segments:
        node = node[_seg(segment)]
    return node


# ---- the tools ---------------------------------------------------------------------------


def validate_yaml(text: str, mode: str = "rt") -> Any:
    return _yaml(mode).load(text)


def load_values(text: str) -> Any:
    return _yaml("safe").load(text)


def format_yaml(
    text: str, indent: dict[str, Any] | None = None, width: Any = None, version: Any = None
) -> str:
    yaml = _yaml()
    data = yaml.load(text)
    if indent:
        yaml.indent(**indent)
    if width is not None:
        yaml.width = width
    if version is not None:
        yaml.version = version
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def write_config(path: str, text: str) -> None:
    yaml = _yaml()
    yaml.dump(yaml.load(text), Path(path))


def get_config_value(path: str, key: str) -> Any:
    return _walk(_yaml().load(Path(path)), key.split("."))


def set_config_value(path: str, key: str, value: Any) -> None:
    yaml = _yaml()
    data = yaml.load(Path(path))
    *parents, last = key.split(".")
    _walk(data, parents)[_seg(last)] = value
    yaml.dump(data, Path(path))


def delete_config_key(path: str, key: str) -> None:
    yaml = _yaml()
    data = yaml.load(Path(path))
    *parents, last = key.split(".")
    del _walk(data, parents)[_seg(last)]
    yaml.dump(data, Path(path))


def annotate_config(path: str, key: str, comment: str) -> None:
    yaml = _yaml()
    data = yaml.load(Path(path))
    *parents, last = key.split(".")
    _walk(data, parents).yaml_add_eol_comment(comment, _seg(last))
    out = io.StringIO()
    yaml.dump(data, out)
    _yaml().load(out.getvalue())  # what would be written must load again
    Path(path).write_text(out.getvalue())


def anchor_config(path: str, key: str, anchor: str) -> None:
    yaml = _yaml()
    data = yaml.load(Path(path))
    _walk(data, key.split(".")).yaml_set_anchor(anchor, always_dump=True)
    yaml.dump(data, Path(path))


def move_config_key(path: str, key: str, position: Any) -> None:
    yaml = _yaml()
    data = yaml.load(Path(path))
    *parents, last = key.split(".")
    parent = _walk(data, parents)
    parent.insert(position, last, parent.pop(last))
    yaml.dump(data, Path(path))


def load_remote_config(url: str, every: bool = False) -> Any:
    with urllib.request.urlopen(url, timeout=1.0) as response:
        yaml = _yaml()
        return list(yaml.load_all(response)) if every else yaml.load(response)


# ---- the model's YAML ------------------------------------------------------------------

# (slug, the YAML the model wrote, cause)
MODEL_YAML: list[tuple[str, str, str]] = [
    ("duplicate-key", "name: web\nreplicas: 2\nname: api\n", "the same key twice in a mapping"),
    ("duplicate-merge-key", "defaults: &d {retries: 3}\nlimits: &l {cpu: 1}\njob:\n  <<: *d\n  <<: *l\n", "two merge keys in one mapping"),
    ("merge-sequence", "ports: &p [80, 443]\nservice:\n  <<: *p\n", "merge key given a sequence"),
    ("undefined-alias", "base: &base {image: nginx}\nweb: *bsae\n", "alias to an anchor never defined"),
    ("two-documents", "name: web\n---\nname: worker\n", "two documents for one load"),
    ("yaml-directive-2", "%YAML 2.0\n---\nname: web\n", "YAML directive of a major version that does not exist"),
    ("yaml-directive-1-3", "%YAML 1.3\n---\nname: web\n", "YAML directive of a minor version ruamel.yaml does not know"),
    ("int-tag-word", "replicas: !!int three\n", "explicit !!int tag on a word"),
    ("bool-tag-word", "enabled: !!bool maybe\n", "explicit !!bool tag on a word"),
    ("timestamp-tag-relative", "deploy_at: !!timestamp tomorrow 9am\n", "explicit !!timestamp tag on a relative date"),
    ("binary-tag-not-base64", "cert: !!binary not*base64\n", "explicit !!binary tag on text that is not base64"),
    ("control-character", "banner: ready\x1b[0m\n", "terminal escape character in a value"),
    ("tab-indent", "spec:\n\treplicas: 3\n", "tab used for indentation"),
    ("unclosed-flow-sequence", "args: [--port, 8080\nimage: web\n", "flow sequence never closed"),
    ("unclosed-quote", "command: 'echo it''s done\n", "single-quoted scalar never closed"),
]  # fmt: skip

# (slug, the Python tag the safe loader refuses)
PYTHON_TAGS: list[tuple[str, str]] = [
    ("python-apply", "on_start: !!python/object/apply:os.system ['restart web']\n"),
    ("python-new", "client: !!python/object/new:http.client.HTTPConnection ['db.internal']\n"),
    ("python-name", "handler: !!python/name:app.handlers.on_deploy\n"),
]


def _model_cases(ctx: Context) -> Iterator[Case]:
    for slug, text, cause in MODEL_YAML:
        exc = _catch(lambda: validate_yaml(text))
        yield Case(
            f"ruamel-{slug}",
            LIBRARY,
            f"the model's YAML: {cause}",
            F,
            None,
            exc,
            "validate_yaml",
            {"yaml": text},
        )

    text = "name: web\nreplicas: 3\n"
    for mode, cause in (
        ("fast", "a loader type ruamel.yaml does not know"),
        ("full", "a type that only dumps"),
    ):
        exc = _catch(lambda: validate_yaml(text, mode))
        yield Case(
            f"ruamel-mode-{mode}",
            LIBRARY,
            f"the model's mode: {cause}",
            F,
            None,
            exc,
            "validate_yaml",
            {"yaml": text, "mode": mode},
        )

    for slug, text in PYTHON_TAGS:
        exc = _catch(lambda: load_values(text))
        yield Case(
            f"ruamel-safe-{slug}",
            LIBRARY,
            "the tool's safe loader refuses a Python tag",
            U,
            None,
            exc,
            "load_values",
            {"yaml": text},
        )

    text = "spec:\n  replicas: 3\n  ports:\n  - 80\n"
    formats: list[tuple[str, dict[str, Any], str]] = [
        ("indent-word", {"indent": {"mapping": "two", "sequence": 4, "offset": 2}}, "indent given as a word"),
        ("width-word", {"width": "wide"}, "line width given as a word"),
        ("version-1-3", {"yaml_version": "1.3"}, "YAML version 1.3 (only 1.1 and 1.2 exist)"),
    ]
    for slug, options, cause in formats:
        exc = _catch(
            lambda: format_yaml(
                text, options.get("indent"), options.get("width"), options.get("yaml_version")
            )
        )
        yield Case(
            f"ruamel-format-{slug}",
            LIBRARY,
            f"the model's format option: {cause}",
            F,
            None,
            exc,
            "format_yaml",
            {"yaml": text, **options},
        )


# ---- edits of files --------------------------------------------------------------------


def _edit_cases(ctx: Context, fresh: Callable[[str, str], Path]) -> Iterator[Case]:
    # the model's own edit arguments
    edits: list[tuple[str, str, dict[str, Any], Callable[[str], Any], str]] = [
        ("comment-newline", "annotate_config", {"key": "spec.replicas", "comment": "scaled up for launch\nreviewed: yes"}, lambda p: annotate_config(p, "spec.replicas", "scaled up for launch\nreviewed: yes"), "comment with a line break that becomes a key"),
        ("comment-newline-dash", "annotate_config", {"key": "metadata.name", "comment": "renamed\n- old: www"}, lambda p: annotate_config(p, "metadata.name", "renamed\n- old: www"), "comment with a line break that becomes a sequence item"),
        ("anchor-space", "anchor_config", {"key": "metadata.labels", "anchor": "common labels"}, lambda p: anchor_config(p, "metadata.labels", "common labels"), "anchor name with a space"),
        ("anchor-comma", "anchor_config", {"key": "spec.template", "anchor": "pod,template"}, lambda p: anchor_config(p, "spec.template", "pod,template"), "anchor name with a flow indicator"),
        ("anchor-empty", "anchor_config", {"key": "metadata.labels", "anchor": ""}, lambda p: anchor_config(p, "metadata.labels", ""), "empty anchor name"),
        ("move-position-text", "move_config_key", {"key": "spec.replicas", "position": "first"}, lambda p: move_config_key(p, "spec.replicas", "first"), "position given as a word"),
    ]  # fmt: skip
    for slug, tool, args, fn, cause in edits:
        path = fresh(f"{slug}.yaml", DEPLOY)
        exc = _catch(lambda: fn(str(path)))
        yield Case(
            f"ruamel-{slug}",
            LIBRARY,
            f"the model's edit: {cause}",
            F,
            None,
            exc,
            tool,
            {"path": str(path), **args},
        )

    text = "name: web\nreplicas: 3\n"
    missing_dir = ctx.tmp / "configs" / "staging" / "web.yaml"
    exc = _catch(lambda: write_config(str(missing_dir), text))
    yield Case(
        "ruamel-write-dir-missing",
        LIBRARY,
        "the model's path: a directory that does not exist",
        F,
        None,
        exc,
        "write_config",
        {"path": str(missing_dir), "yaml": text},
    )
    exc = _catch(lambda: write_config(str(ctx.tmp), text))
    yield Case(
        "ruamel-write-path-is-directory",
        LIBRARY,
        "the model's path names a directory",
        F,
        None,
        exc,
        "write_config",
        {"path": str(ctx.tmp), "yaml": text},
    )

    # what the model named does not exist in the file (a typo, or a file of another shape)
    lookups: list[tuple[str, str, dict[str, Any], Callable[[str], Any], str]] = [
        ("key-missing", "get_config_value", {"key": "spec.template.metadata.labels"}, lambda p: get_config_value(p, "spec.template.metadata.labels"), "key path the file does not have"),
        ("key-missing-set", "set_config_value", {"key": "spec.strategy.rollingUpdate.maxSurge", "value": 1}, lambda p: set_config_value(p, "spec.strategy.rollingUpdate.maxSurge", 1), "parent key the file does not have"),
        ("index-out-of-range", "set_config_value", {"key": "spec.template.spec.containers.1.image", "value": "redis:7"}, lambda p: set_config_value(p, "spec.template.spec.containers.1.image", "redis:7"), "sequence index the file does not have"),
        ("delete-key-missing", "delete_config_key", {"key": "metadata.annotations"}, lambda p: delete_config_key(p, "metadata.annotations"), "key to delete the file does not have"),
        ("delete-index-out-of-range", "delete_config_key", {"key": "spec.template.spec.containers.0.ports.2"}, lambda p: delete_config_key(p, "spec.template.spec.containers.0.ports.2"), "sequence item to delete the file does not have"),
        ("move-key-missing", "move_config_key", {"key": "metadata.namespace", "position": 0}, lambda p: move_config_key(p, "metadata.namespace", 0), "key to move the file does not have"),
    ]  # fmt: skip
    for slug, tool, args, fn, cause in lookups:
        path = fresh(f"{slug}.yaml", DEPLOY)
        exc = _catch(lambda: fn(str(path)))
        yield Case(f"ruamel-{slug}", LIBRARY, cause, A, None, exc, tool, {"path": str(path), **args})

    path = ctx.tmp / "deploy-prod.yaml"
    exc = _catch(lambda: set_config_value(str(path), "spec.replicas", 5))
    yield Case(
        "ruamel-file-missing",
        LIBRARY,
        "config file does not exist",
        A,
        None,
        exc,
        "set_config_value",
        {"path": str(path), "key": "spec.replicas", "value": 5},
    )
    path = fresh("list-manifest.yaml", "- kind: Service\n  name: web\n- kind: Deployment\n  name: web\n")
    exc = _catch(lambda: get_config_value(str(path), "kind"))
    yield Case(
        "ruamel-file-top-level-list",
        LIBRARY,
        "file holds a sequence of documents where a mapping was expected",
        A,
        None,
        exc,
        "get_config_value",
        {"path": str(path), "key": "kind"},
    )

    # files that are not valid YAML: written by someone else, the model only named them
    conflict = DEPLOY.replace(
        "  replicas: 3\n", "<<<<<<< HEAD\n  replicas: 3\n=======\n  replicas: 5\n>>>>>>> scale-up\n"
    )
    helm = DEPLOY.replace("  replicas: 3\n", "  replicas: {{ .Values.replicaCount }}\n").replace(
        "spec:\n  replicas", "{{- if .Values.enabled }}\nspec:\n  replicas"
    )
    bad_files: list[tuple[str, bytes, str]] = [
        ("duplicate-key", DEPLOY.replace("  replicas: 3\n", "  replicas: 3\n  replicas: 5\n").encode(), "file has a duplicate key"),
        ("duplicate-merge-key", b"base: &b {cpu: 1}\nextra: &e {mem: 2}\nspec:\n  <<: *b\n  <<: *e\n  replicas: 3\n", "file has two merge keys in a mapping"),
        ("git-conflict", conflict.encode(), "file has git conflict markers"),
        ("helm-template", helm.encode(), "file is an unrendered Helm template"),
        ("tab-indent", DEPLOY.replace("  replicas: 3", "\treplicas: 3").encode(), "file indented with a tab"),
        ("latin1", DEPLOY.replace("web deployment", "web déploiement").encode("latin-1"), "file is Latin-1, not UTF-8"),
        ("utf16-no-bom", DEPLOY.encode("utf-16-le"), "file is UTF-16 without a byte-order mark"),
        ("two-documents", (DEPLOY + "---\napiVersion: v1\nkind: Service\n").encode(), "file holds two documents"),
        ("undefined-alias", DEPLOY.replace("    app: web\n", "    app: web\n    tier: *tier\n").encode(), "file refers to an undefined alias"),
        ("merge-sequence", b"ports: &p [80, 443]\nspec:\n  <<: *p\n  replicas: 3\n", "file merges a sequence"),
    ]  # fmt: skip
    for slug, content, cause in bad_files:
        path = fresh(f"file-{slug}.yaml", "")
        path.write_bytes(content)
        exc = _catch(lambda: set_config_value(str(path), "spec.replicas", 4))
        yield Case(
            f"ruamel-file-{slug}",
            LIBRARY,
            cause,
            A,
            None,
            exc,
            "set_config_value",
            {"path": str(path), "key": "spec.replicas", "value": 4},
        )


# ---- the remote configuration stream ----------------------------------------------------

_ALLOW = ", ".join(f"10.0.{i // 250}.{i % 250}/32" for i in range(400))
_BODY = (DEPLOY + f"allowlist: [{_ALLOW}]\n").encode()  # one document of 6 kB
_DOCS = ("\n---\n".join([DEPLOY] * 40)).encode()


def _remote(mode: str) -> Callable[[socket.socket], None]:
    def handle(conn: socket.socket) -> None:
        conn.recv(65536)
        body = _DOCS if mode.startswith("docs-") else _BODY
        head = b"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: application/yaml\r\n"
        if mode == "chunked-cut":
            conn.sendall(
                head + b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % 4000 + body[:4000] + b"\r\n"
            )
            time.sleep(0.1)
            return
        conn.sendall(head + b"Content-Length: %d\r\n\r\n" % len(body))
        if mode == "stall-headers":
            time.sleep(3.0)
            return
        conn.sendall(body[:3000])
        if mode in ("stall-body", "docs-stall"):
            time.sleep(3.0)
        elif mode in ("reset", "docs-reset"):
            time.sleep(0.1)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        else:  # "close": closed before the length announced
            time.sleep(0.1)

    return handle


def _remote_cases(ctx: Context) -> Iterator[Case]:
    streams: list[tuple[str, str, bool]] = [
        ("stall-headers", "the config server sent the headers, then nothing (read timeout)", False),
        ("stall-body", "the config server stalled mid-body (read timeout)", False),
        ("reset", "the connection was reset mid-body", False),
        ("close", "the config server closed before the announced length (truncated document)", False),
        ("chunked-cut", "the chunked body was cut off", False),
        ("docs-reset", "the connection was reset mid-stream of documents", True),
        ("docs-stall", "the config server stalled mid-stream of documents (read timeout)", True),
    ]
    for mode, cause, every in streams:
        with raw_server(_remote(mode)) as port:
            ctx.name_port(port, "CONFIGPORT")
            url = f"http://127.0.0.1:{port}/v1/config/web.yaml"
            exc = _catch(lambda: load_remote_config(url, every))
        yield Case(
            f"ruamel-remote-{mode}",
            LIBRARY,
            cause,
            T,
            UO,
            exc,
            "load_remote_config",
            {"url": url.replace(str(port), "CONFIGPORT")},
        )

    dup = (DEPLOY.replace("kind: Deployment\n", "kind: Deployment\nkind: StatefulSet\n")).encode()

    def handle(conn: socket.socket) -> None:
        conn.recv(65536)
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: application/yaml\r\nContent-Length: %d\r\n\r\n"
            % len(dup)
            + dup
        )

    with raw_server(handle) as port:
        ctx.name_port(port, "CONFIGPORT")
        url = f"http://127.0.0.1:{port}/v1/config/web.yaml"
        exc = _catch(lambda: load_remote_config(url))
    yield Case(
        "ruamel-remote-duplicate-key",
        LIBRARY,
        "the remote document has a duplicate key",
        A,
        None,
        exc,
        "load_remote_config",
        {"url": url.replace(str(port), "CONFIGPORT")},
    )


# ---- refusals -------------------------------------------------------------------------


def _missing_module(ctx: Context, name: str) -> BaseException:
    """Importing ruamel.yaml from a copy of the installed package without ``name``."""
    spec = importlib.util.find_spec("ruamel.yaml")
    assert spec is not None and spec.origin is not None
    src = Path(spec.origin).parent
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("ruamel",)):
        root = Path(sys.path[0])
        _pkgcopy._mirror(src, root / "ruamel" / "yaml", {f"ruamel/yaml/{name}"}, {}, "ruamel/yaml/")
        importlib.invalidate_caches()
        return _catch(lambda: importlib.import_module("ruamel.yaml"))


def _refusal_cases(ctx: Context, fresh: Callable[[str, str], Path]) -> Iterator[Case]:
    _files.read_only_dir(ctx.tmp / "ro-probe")  # makes ctx.tmp searchable by nobody
    path = fresh("secrets.yaml", DEPLOY)
    path.chmod(0o000)
    exc = _files.denied(lambda: get_config_value(str(path), "spec.replicas"))
    yield Case(
        "ruamel-file-unreadable",
        LIBRARY,
        "config file not readable (permissions)",
        U,
        None,
        exc,
        "get_config_value",
        {"path": str(path), "key": "spec.replicas"},
    )
    path = fresh("deploy-locked.yaml", DEPLOY)
    path.chmod(0o444)
    exc = _files.denied(lambda: set_config_value(str(path), "spec.replicas", 6))
    yield Case(
        "ruamel-file-read-only",
        LIBRARY,
        "config file not writable (permissions)",
        U,
        None,
        exc,
        "set_config_value",
        {"path": str(path), "key": "spec.replicas", "value": 6},
    )
    ro = _files.read_only_dir(ctx.tmp / "shared-configs")
    text = "name: web\nreplicas: 3\n"
    exc = _files.denied(lambda: write_config(str(ro / "web.yaml"), text))
    yield Case(
        "ruamel-dir-read-only",
        LIBRARY,
        "config directory not writable (permissions)",
        U,
        None,
        exc,
        "write_config",
        {"path": str(ro / "web.yaml"), "yaml": text},
    )
    path = fresh("deploy-quota.yaml", DEPLOY)
    value = "x" * 600
    with _files.file_size_limit(len(DEPLOY) + 16):
        exc = _catch(lambda: set_config_value(str(path), "metadata.labels.description", value))
    yield Case(
        "ruamel-file-size-limit",
        LIBRARY,
        "file size limit reached (quota)",
        U,
        None,
        exc,
        "set_config_value",
        {"path": str(path), "key": "metadata.labels.description", "value": value},
    )
    big = "notes: |\n" + "  deploy window: Saturday 02:00-04:00 UTC\n" * 40
    with _files.file_size_limit(256):
        exc = _catch(lambda: write_config(str(path.parent / "runbook.yaml"), big))
    yield Case(
        "ruamel-write-size-limit",
        LIBRARY,
        "file size limit reached (quota)",
        U,
        None,
        exc,
        "write_config",
        {"path": str(path.parent / "runbook.yaml"), "yaml": big},
    )
    for name in ("scanner.py", "emitter.py"):
        exc = _missing_module(ctx, name)
        yield Case(
            f"ruamel-module-missing-{name.removesuffix('.py')}",
            LIBRARY,
            f"installed module file missing (ruamel/yaml/{name})",
            U,
            None,
            exc,
            "validate_yaml",
            {"yaml": "name: web\n"},
        )


def cases(ctx: Context) -> Iterator[Case]:
    root = ctx.tmp / "configs"
    root.mkdir()
    names: set[str] = set()

    def fresh(name: str, text: str) -> Path:
        assert name not in names, name
        names.add(name)
        path = root / name
        path.write_text(text)
        return path

    yield from _model_cases(ctx)
    yield from _edit_cases(ctx, fresh)
    yield from _remote_cases(ctx)
    yield from _refusal_cases(ctx, fresh)
