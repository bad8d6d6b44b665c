# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""jsonpatch (with jsonpointer) behind JSON-editing tools: RFC 6902 patches the model writes,
applied to documents it writes, to documents read from files, and patches read from files.

The tools: ``patch_json`` (``jsonpatch.apply_patch(document, patch)``: the model wrote both;
a patch given as a JSON string goes through ``JsonPatch.from_string``), ``patch_file`` (the
document is read from the file the model names, patched with the model's patch and written
back) and ``apply_patch_file`` (both the document and the patch are files the model names).

Labels follow the cause set up (RFC 6902 https://www.rfc-editor.org/rfc/rfc6902 sections 4
and 5, RFC 6901 https://www.rfc-editor.org/rfc/rfc6901 for pointers; the library's docs
https://python-json-patch.readthedocs.io/en/latest/mod-jsonpatch.html):

- fixable: the model's patch is malformed (not an array, an array of strings, an operation
  that is not an object, no ``op`` / an unknown or non-string ``op``, no ``path``, a path
  that is not a string or lacks the leading ``/``, an invalid ``~`` escape, ``value`` or
  ``from`` missing or not a pointer: ``InvalidJsonPatch`` / ``JsonPointerException``), a
  patch string that is not JSON (``json.JSONDecodeError``) or repeats ``op`` (the library's
  duplicate-key handling makes it a list), or it does not fit the document the model wrote
  itself in the same call (``JsonPatchConflict`` / ``JsonPatchPathNotFound``: a member or
  index that is not there, ``-`` with ``replace``, an index with a leading zero, a token
  into a string or a number, a move into its own child, removing the whole document;
  ``JsonPatchTestFailed`` comparing ``36`` with ``"36"``). A corrected call works.
- ambiguous: the same conflicts against a document READ from a file (RFC 6902 section 5:
  an error applying an operation; the file may have changed since the model saw it, or the
  model mistyped a path: the call cannot tell), a ``test`` operation whose precondition the
  stored file no longer meets (section 4.6: the version-check idiom, a conflict with the
  stored state like an etag mismatch), and bad data in the files the model only named: a
  truncated, empty, non-UTF-8, ``null`` or top-level-array document, a patch file holding
  trailing commas, a JSON Merge Patch object (RFC 7386) or an unknown op, and a document
  or patch file that does not exist.
- unrecoverable: a file or folder this user may not read or write, a file size limit
  (``RLIMIT_FSIZE``: EFBIG, as a full quota) when the patched document is written back,
  and an installation without ``jsonpointer`` or ``jsonpatch`` (:mod:`libraries._pkgcopy`).

Not triggerable: jsonpatch does no I/O of its own (no timeout, lock or server error, so no
transient case); ``make_patch``'s ``TypeError`` needs non-string object keys, which JSON
arguments and ``json.loads`` never produce.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files, _pkgcopy
from ._common import A, F, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "jsonpatch"
REQUIRES = ["jsonpatch==1.48", "jsonpointer==3.12"]

PJ, PF, AF = "patch_json", "patch_file", "apply_patch_file"

PERSON: dict[str, Any] = {
    "name": "Ada",
    "age": 36,
    "tags": ["math", "engines"],
    "address": {"street": "12 St James's Square", "city": "London"},
}
CONFIG: dict[str, Any] = {
    "version": 4,
    "database": {"host": "db.internal", "port": 5432},
    "servers": [{"host": "web-1"}, {"host": "web-2"}],
    "logging": "info",
    "features": {"search": True},
}


def _patch_json(document: Any, patch: Any) -> Any:
    import jsonpatch

    return jsonpatch.apply_patch(document, patch)


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _patch_file(root: Path, rel: str, patch: Any) -> Callable[[], Any]:
    def run() -> Any:
        import jsonpatch

        path = root / rel
        new = jsonpatch.apply_patch(_read_json(path), patch)
        path.write_text(json.dumps(new, indent=2), encoding="utf-8")

    return run


def _apply_patch_file(root: Path, rel: str, patch_rel: str) -> Callable[[], Any]:
    def run() -> Any:
        import jsonpatch

        patch = jsonpatch.JsonPatch.from_string((root / patch_rel).read_text(encoding="utf-8"))
        path = root / rel
        new = patch.apply(_read_json(path))
        path.write_text(json.dumps(new, indent=2), encoding="utf-8")

    return run


# (slug, cause, patch) against PERSON, all written by the model
INLINE: list[tuple[str, str, Any]] = [
    (
        "patch-not-array",
        "a single operation object instead of an array",
        {"op": "replace", "path": "/name", "value": "Ada Lovelace"},
    ),
    ("patch-of-strings", "an array of strings, not of operations", ["replace", "/name", "Ada Lovelace"]),
    ("operation-not-object", "an operation written as an array", [["add", "/tags/-", "poetry"]]),
    ("op-missing", "an operation without 'op'", [{"path": "/name", "value": "Ada Lovelace"}]),
    (
        "op-unknown",
        "'update' is not an RFC 6902 op",
        [{"op": "update", "path": "/name", "value": "Ada Lovelace"}],
    ),
    ("path-missing", "an operation without 'path'", [{"op": "remove"}]),
    (
        "path-not-string",
        "'path' given as an array of keys",
        [{"op": "replace", "path": ["address", "city"], "value": "Paris"}],
    ),
    (
        "path-no-slash",
        "a pointer without the leading '/'",
        [{"op": "replace", "path": "name", "value": "Ada Lovelace"}],
    ),
    ("path-bad-escape", "'~2' is not a pointer escape", [{"op": "add", "path": "/tags~2extra", "value": []}]),
    (
        "path-dotted",
        "dotted path instead of a JSON Pointer",
        [{"op": "replace", "path": "/address.city", "value": "Paris"}],
    ),
    ("add-no-value", "'add' without 'value'", [{"op": "add", "path": "/email"}]),
    ("move-no-from", "'move' without 'from'", [{"op": "move", "path": "/town"}]),
    ("copy-from-not-string", "'from' given as a number", [{"op": "copy", "from": 0, "path": "/first_tag"}]),
    (
        "move-into-child",
        "moving a member into itself",
        [{"op": "move", "from": "/address", "path": "/address/previous"}],
    ),
    ("remove-root", "removing the whole document", [{"op": "remove", "path": ""}]),
    (
        "replace-dash",
        "'-' (past the end) with replace",
        [{"op": "replace", "path": "/tags/-", "value": "poetry"}],
    ),
    ("index-leading-zero", "array index '01'", [{"op": "replace", "path": "/tags/01", "value": "poetry"}]),
    (
        "token-into-string",
        "a member of a string value",
        [{"op": "add", "path": "/name/first", "value": "Ada"}],
    ),
    ("token-into-number", "a member of a number", [{"op": "add", "path": "/age/years", "value": 36}]),
    (
        "add-outside-list",
        "index past the end of the array",
        [{"op": "add", "path": "/tags/5", "value": "poetry"}],
    ),
    (
        "remove-missing-member",
        "removing a member the document lacks",
        [{"op": "remove", "path": "/nickname"}],
    ),
    (
        "add-missing-parent",
        "adding under a member that does not exist",
        [{"op": "add", "path": "/contact/email", "value": "ada@example.com"}],
    ),
    (
        "test-type-mismatch",
        "test of 36 against the string '36'",
        [{"op": "test", "path": "/age", "value": "36"}],
    ),
]

# (slug, cause, patch text) the model wrote as a JSON string
INLINE_TEXT: list[tuple[str, str, str]] = [
    (
        "patch-text-single-quotes",
        "patch text with single quotes, not JSON",
        "[{'op': 'replace', 'path': '/name', 'value': 'Ada Lovelace'}]",
    ),
    (
        "patch-text-duplicate-op",
        "an operation with 'op' twice",
        '[{"op": "add", "path": "/email", "op": "replace", "value": "ada@example.com"}]',
    ),
]

# (slug, cause, patch) against CONFIG read from config/app.json
ON_FILE: list[tuple[str, str, Any]] = [
    (
        "file-remove-missing",
        "the stored document lacks the member",
        [{"op": "remove", "path": "/features/beta"}],
    ),
    (
        "file-replace-missing-parent",
        "the stored document has no 'db' member",
        [{"op": "replace", "path": "/db/port", "value": 6432}],
    ),
    (
        "file-replace-index-out",
        "the stored document has two servers",
        [{"op": "replace", "path": "/servers/2/host", "value": "web-3"}],
    ),
    (
        "file-test-version",
        "the stored version is no longer the one tested",
        [{"op": "test", "path": "/version", "value": 3}, {"op": "replace", "path": "/version", "value": 4}],
    ),
    (
        "file-test-missing",
        "the stored document has no etag to test",
        [
            {"op": "test", "path": "/etag", "value": 'W/"a1"'},
            {"op": "add", "path": "/features/beta", "value": True},
        ],
    ),
    (
        "file-add-outside-list",
        "index past the stored array's end",
        [{"op": "add", "path": "/servers/3", "value": {"host": "web-4"}}],
    ),
    (
        "file-add-under-string",
        "the stored 'logging' is a string",
        [{"op": "add", "path": "/logging/level", "value": "debug"}],
    ),
    (
        "file-move-from-missing",
        "the stored document lacks the 'from' member",
        [{"op": "move", "from": "/timeout", "path": "/database/timeout"}],
    ),
    (
        "file-copy-from-index",
        "the stored array has no element 4",
        [{"op": "copy", "from": "/servers/4", "path": "/servers/-"}],
    ),
]


def _inline(ctx: Context) -> Iterator[Case]:
    for slug, cause, patch in INLINE:
        exc = _catch(lambda: _patch_json(json.loads(json.dumps(PERSON)), patch))
        args = {"document": PERSON, "patch": patch}
        yield Case(f"jsonpatch-{slug}", LIBRARY, cause, F, None, exc, PJ, args)
    for slug, cause, text in INLINE_TEXT:
        exc = _catch(lambda: _patch_json(json.loads(json.dumps(PERSON)), text))
        args = {"document": PERSON, "patch": text}
        yield Case(f"jsonpatch-{slug}", LIBRARY, cause, F, None, exc, PJ, args)


def _on_files(ctx: Context) -> Iterator[Case]:
    root = ctx.tmp / "work"
    (root / "config").mkdir(parents=True)
    (root / "patches").mkdir()
    doc = root / "config" / "app.json"
    text = json.dumps(CONFIG, indent=2)
    for slug, cause, patch in ON_FILE:
        doc.write_text(text, encoding="utf-8")
        exc = _catch(_patch_file(root, "config/app.json", patch))
        args = {"path": "config/app.json", "patch": patch}
        yield Case(f"jsonpatch-{slug}", LIBRARY, cause, A, None, exc, PF, args)

    # documents whose bytes are the problem (the model only named them)
    bad_docs: list[tuple[str, str, str, bytes]] = [
        ("doc-truncated", "the stored document is cut short", "config/cache.json", text[:57].encode()),
        ("doc-empty", "the stored document is empty", "config/flags.json", b""),
        (
            "doc-not-utf8",
            "the stored document is Latin-1",
            "config/names.json",
            '{"city": "Zürich"}'.encode("latin-1"),
        ),
        ("doc-null", "the stored document is null", "config/limits.json", b"null"),
        ("doc-array", "the stored document is an array", "config/hosts.json", b'["web-1", "web-2"]'),
    ]
    patch = [{"op": "add", "path": "/owner", "value": "platform-team"}]
    for slug, cause, rel, data in bad_docs:
        (root / rel).write_bytes(data)
        exc = _catch(_patch_file(root, rel, patch))
        args = {"path": rel, "patch": patch}
        yield Case(f"jsonpatch-{slug}", LIBRARY, cause, A, None, exc, PF, args)
    exc = _catch(_patch_file(root, "config/app.prod.json", patch))
    args = {"path": "config/app.prod.json", "patch": patch}
    yield Case("jsonpatch-doc-missing", LIBRARY, "the document file does not exist", A, None, exc, PF, args)

    # patches read from files
    patch_files: list[tuple[str, str, str, str]] = [
        (
            "patch-file-trailing-comma",
            "the patch file has a trailing comma",
            "patches/0041.json",
            '[\n  {"op": "replace", "path": "/version", "value": 5},\n]\n',
        ),
        (
            "patch-file-merge-patch",
            "the patch file is a JSON Merge Patch object",
            "patches/0042.json",
            '{"version": 5, "logging": "debug"}\n',
        ),
        (
            "patch-file-unknown-op",
            "the patch file uses an op that is not RFC 6902",
            "patches/0043.json",
            '[{"op": "merge", "path": "/database", "value": {"pool": 10}}]\n',
        ),
        (
            "patch-file-no-slash",
            "a pointer in the patch file lacks '/'",
            "patches/0044.json",
            '[{"op": "replace", "path": "database/port", "value": 6432}]\n',
        ),
        ("patch-file-empty", "the patch file is empty", "patches/0045.json", ""),
    ]
    for slug, cause, rel, body in patch_files:
        doc.write_text(text, encoding="utf-8")
        (root / rel).write_text(body, encoding="utf-8")
        exc = _catch(_apply_patch_file(root, "config/app.json", rel))
        args = {"path": "config/app.json", "patch_path": rel}
        yield Case(f"jsonpatch-{slug}", LIBRARY, cause, A, None, exc, AF, args)
    exc = _catch(_apply_patch_file(root, "config/app.json", "patches/0046.json"))
    args = {"path": "config/app.json", "patch_path": "patches/0046.json"}
    yield Case(
        "jsonpatch-patch-file-missing", LIBRARY, "the patch file does not exist", A, None, exc, AF, args
    )


def _refusals(ctx: Context) -> Iterator[Case]:
    root = ctx.tmp / "shared"
    text = json.dumps(CONFIG, indent=2)
    patch = [{"op": "replace", "path": "/version", "value": 5}]

    # a folder others may read but not write: the document is read-only
    root.mkdir()
    ro = _files.read_only_dir(root / "ro")
    ro.chmod(0o755)
    (ro / "app.json").write_text(text, encoding="utf-8")
    (ro / "app.json").chmod(0o444)
    ro.chmod(0o555)
    exc = _files.denied(_patch_file(root, "ro/app.json", patch))
    args = {"path": "ro/app.json", "patch": patch}
    yield Case(
        "jsonpatch-doc-read-only", LIBRARY, "document file not writable by this user", U, None, exc, PF, args
    )

    private = root / "private"
    private.mkdir(mode=0o700)
    (private / "secrets.json").write_text('{"version": 1}', encoding="utf-8")
    exc = _files.denied(_patch_file(root, "private/secrets.json", patch))
    args = {"path": "private/secrets.json", "patch": patch}
    yield Case(
        "jsonpatch-doc-no-permission",
        LIBRARY,
        "document in a folder this user may not enter",
        U,
        None,
        exc,
        PF,
        args,
    )

    pub = root / "pub"
    pub.mkdir()
    root.chmod(0o755)
    (pub / "0050.json").write_text(json.dumps(patch), encoding="utf-8")
    (pub / "0050.json").chmod(0o600)
    pub.chmod(0o755)
    (root / "pub-app.json").write_text(text, encoding="utf-8")
    (root / "pub-app.json").chmod(0o666)
    exc = _files.denied(_apply_patch_file(root, "pub-app.json", "pub/0050.json"))
    args = {"path": "pub-app.json", "patch_path": "pub/0050.json"}
    yield Case(
        "jsonpatch-patch-file-no-permission",
        LIBRARY,
        "patch file not readable by this user",
        U,
        None,
        exc,
        AF,
        args,
    )

    big = root / "catalog.json"
    big.write_text('{"items": []}', encoding="utf-8")
    items = [{"sku": f"SKU-{i:05d}", "name": "widget " * 8} for i in range(3000)]
    big_patch = [{"op": "replace", "path": "/items", "value": items}]
    with _files.file_size_limit(64 * 1024):
        exc = _catch(_patch_file(root, "catalog.json", big_patch))
    args = {"path": "catalog.json", "patch": [{"op": "replace", "path": "/items", "value": "<3000 items>"}]}
    yield Case(
        "jsonpatch-write-size-limit",
        LIBRARY,
        "file size quota reached writing the document",
        U,
        None,
        exc,
        PF,
        args,
    )

    patch_doc = [{"op": "add", "path": "/tags/-", "value": "poetry"}]
    with _pkgcopy.broken_install(ctx.tmp, ["jsonpatch"], hide=("jsonpatch", "jsonpointer")):
        exc = _catch(lambda: importlib.import_module("jsonpatch"))
    args = {"document": PERSON, "patch": patch_doc}
    yield Case("jsonpatch-jsonpointer-missing", LIBRARY, "jsonpointer not installed", U, None, exc, PJ, args)
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("jsonpatch", "jsonpointer")):
        exc = _catch(lambda: importlib.import_module("jsonpatch"))
    yield Case("jsonpatch-not-installed", LIBRARY, "jsonpatch not installed", U, None, exc, PJ, args)


def cases(ctx: Context) -> Iterator[Case]:
    yield from _inline(ctx)
    yield from _on_files(ctx)
    yield from _refusals(ctx)
