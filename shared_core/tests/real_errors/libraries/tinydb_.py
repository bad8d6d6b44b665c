# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""TinyDB behind a document-store tool: the model's queries, documents, operations and paths
(fixable) against JSON database files on disk that are corrupt, of the wrong shape or hold
values of another type than the query expects (ambiguous), and files, directories, modes,
size limits and installations that refuse (unrecoverable).

Labels follow the cause that was set up. ``query_documents`` / ``insert_document`` /
``update_documents`` / ``remove_documents`` build TinyDB calls from the model's arguments:
a query without a field (``ValueError: Query has no path``), a regular expression the model
wrote (``re.error``), a comparison value of the wrong type for the stored field, a list
operator given a scalar, a document that is not an object, ``remove()`` / ``get()`` /
``upsert()`` without a condition or id (TinyDB's ``RuntimeError`` / ``ValueError``), an
update operation on a field the document lacks (``KeyError``) or with a value of the wrong
type, a database path in a directory that does not exist or naming a directory: a corrected
call works, fixable (TinyDB docs: https://tinydb.readthedocs.io/en/latest/usage.html
"Queries", "Advanced queries", "Updating data", "Handling data" and the API reference
https://tinydb.readthedocs.io/en/latest/api.html ``Table.remove`` / ``Table.get`` /
``Table.upsert``). A document inserted with a ``doc_id`` that already exists ("Document with
ID 1 already exists") is a conflict with the stored state: ambiguous.

``JSONStorage`` reads the whole file with ``json.load`` on every access
(https://tinydb.readthedocs.io/en/latest/usage.html "Storage & Middleware"): a truncated
file, an HTML page saved in its place, a file that is not UTF-8, a top-level list or string,
a table that is a list, a document id that is not an integer, or a stored value whose type
makes the model's (correct) comparison fail are data the model never wrote: ambiguous, with
only the path (and the query) in the arguments. A file or directory the process may not
read or write, a database the tool opened read-only (``access_mode="r"``: "Cannot write to
the database"), a file size limit (``RLIMIT_FSIZE``: EFBIG, as a full quota) and an
installation without one of TinyDB's modules are unrecoverable within the run.

Not triggerable: TinyDB takes no lock on its file (the docs' "TinyDB is not thread-safe"
note) and does no network I/O, so no "locked" or transient failure exists through it; a
regular-expression test on a stored non-string value, or a list operator on a stored
scalar, is caught by TinyDB and simply does not match (no error to record); a document id
the model made up in ``get`` / ``update`` / ``remove`` returns ``None`` / ``[]``, not an
error.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files, _pkgcopy
from ._common import A, F, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "tinydb"
REQUIRES = ["tinydb>=4.8,<5"]

PEOPLE = '{"_default": {"1": {"name": "Ada", "age": 36, "tags": ["math"]}, "2": {"name": "Alan", "age": 41}}}'


def _db(path: Path, text: str | bytes = PEOPLE, **kwargs: Any) -> Any:
    from tinydb import TinyDB

    if isinstance(text, str):
        text = text.encode()
    path.write_bytes(text)
    db = TinyDB(str(path), **kwargs)
    _OPENED.append(db)
    return db


def _model_calls(
    ctx: Context,
) -> list[tuple[str, str, dict[str, Any], Callable[[Any, str], Any]]]:
    """(slug, tool, the model's arguments less the path, the call on a fresh database)."""
    from tinydb import Query
    from tinydb.operations import add, delete, increment, subtract

    q = Query()
    return [
        (
            "query-no-field",
            "query_documents",
            {"field": "", "op": "==", "value": "Ada"},
            lambda db, p: db.search(q == "Ada"),
        ),
        (
            "query-compare-str-to-int",
            "query_documents",
            {"field": "age", "op": ">", "value": "30"},
            lambda db, p: db.search(q.age > "30"),
        ),
        (
            "query-compare-list-to-int",
            "query_documents",
            {"field": "age", "op": "<=", "value": [40]},
            lambda db, p: db.search(q.age <= [40]),
        ),
        (
            "query-regex-unterminated-set",
            "query_documents",
            {"field": "name", "op": "search", "value": "[A-"},
            lambda db, p: db.search(q.name.search("[A-")),
        ),
        (
            "query-regex-nothing-to-repeat",
            "query_documents",
            {"field": "name", "op": "search", "value": "*da"},
            lambda db, p: db.search(q.name.search("*da")),
        ),
        (
            "query-regex-unbalanced-paren",
            "query_documents",
            {"field": "name", "op": "matches", "value": "(Ada|Alan"},
            lambda db, p: db.search(q.name.matches("(Ada|Alan")),
        ),
        (
            "query-regex-trailing-backslash",
            "query_documents",
            {"field": "name", "op": "matches", "value": "Ad\\"},
            lambda db, p: db.search(q.name.matches("Ad\\")),
        ),
        (
            "query-regex-not-string",
            "query_documents",
            {"field": "name", "op": "search", "value": 42},
            lambda db, p: db.search(q.name.search(42)),
        ),
        (
            "query-regex-flags-string",
            "query_documents",
            {"field": "name", "op": "matches", "value": "ada", "flags": "i"},
            lambda db, p: db.search(q.name.matches("ada", flags="i")),
        ),
        (
            "query-one-of-scalar",
            "query_documents",
            {"field": "age", "op": "one_of", "value": 36},
            lambda db, p: db.search(q.age.one_of(36)),
        ),
        (
            "query-all-scalar",
            "query_documents",
            {"field": "tags", "op": "all", "value": 5},
            lambda db, p: db.search(q.tags.all(5)),
        ),
        ("get-no-condition", "get_document", {}, lambda db, p: db.get()),
        ("remove-no-condition", "remove_documents", {}, lambda db, p: db.remove()),
        (
            "upsert-no-condition",
            "upsert_document",
            {"document": {"name": "Grace", "age": 85}},
            lambda db, p: db.upsert({"name": "Grace", "age": 85}),
        ),
        (
            "insert-string",
            "insert_document",
            {"document": "name=Grace, age=85"},
            lambda db, p: db.insert("name=Grace, age=85"),
        ),
        (
            "insert-list",
            "insert_document",
            {"document": [["name", "Grace"]]},
            lambda db, p: db.insert([["name", "Grace"]]),
        ),
        (
            "insert-many-one-not-object",
            "insert_documents",
            {"documents": [{"name": "Grace"}, "Barbara"]},
            lambda db, p: db.insert_multiple([{"name": "Grace"}, "Barbara"]),
        ),
        (
            "update-fields-string",
            "update_documents",
            {"fields": "age=37", "field": "name", "value": "Ada"},
            lambda db, p: db.update("age=37", q.name == "Ada"),
        ),
        (
            "update-increment-unknown-field",
            "update_documents",
            {"operation": "increment", "target": "visits", "field": "name", "value": "Ada"},
            lambda db, p: db.update(increment("visits"), q.name == "Ada"),
        ),
        (
            "update-delete-unknown-field",
            "update_documents",
            {"operation": "delete", "target": "nickname", "field": "name", "value": "Ada"},
            lambda db, p: db.update(delete("nickname"), q.name == "Ada"),
        ),
        (
            "update-add-string-to-int",
            "update_documents",
            {"operation": "add", "target": "age", "amount": "1", "field": "name", "value": "Ada"},
            lambda db, p: db.update(add("age", "1"), q.name == "Ada"),
        ),
        (
            "update-subtract-from-name",
            "update_documents",
            {"operation": "subtract", "target": "name", "amount": 1, "field": "name", "value": "Ada"},
            lambda db, p: db.update(subtract("name", 1), q.name == "Ada"),
        ),
        (
            "update-multiple-pair-missing",
            "update_documents",
            {"updates": [[{"age": 37}]]},
            lambda db, p: db.update_multiple([({"age": 37},)]),
        ),
        (
            "open-dir-missing",
            "open_database",
            {"path": str(ctx.tmp / "no-such-dir" / "people.json")},
            lambda db, p: _open(ctx.tmp / "no-such-dir" / "people.json"),
        ),
        (
            "open-readonly-missing-file",
            "query_documents",
            {"path": str(ctx.tmp / "peopel.json"), "field": "age", "op": ">", "value": 30},
            lambda db, p: _open(ctx.tmp / "peopel.json", access_mode="r").search(q.age > 30),
        ),
        (
            "open-path-is-directory",
            "open_database",
            {"path": str(ctx.tmp)},
            lambda db, p: _open(ctx.tmp),
        ),
    ]


def _open(path: Path, **kwargs: Any) -> Any:
    from tinydb import TinyDB

    db = TinyDB(str(path), **kwargs)
    _OPENED.append(db)
    return db


_OPENED: list[Any] = []


def _close_all() -> None:
    """Close every database a case opened (their file handles)."""
    while _OPENED:
        db = _OPENED.pop()
        try:
            db.close()
        except (OSError, ValueError):
            db.storage._handle.close()


# (slug, file contents) of database files that are not what TinyDB wrote
BAD_FILES: list[tuple[str, bytes]] = [
    ("truncated", PEOPLE[:40].encode()),
    ("html-page", b"<html><body><h1>502 Bad Gateway</h1></body></html>\n"),
    ("not-utf8", b'\xff\xfe{\x00"\x00_\x00d\x00e\x00f\x00"\x00:\x00 \x00{\x00}\x00}\x00'),
    ("top-level-list", b'[{"name": "Ada"}, {"name": "Alan"}]'),
    ("top-level-string", b'"people"'),
    ("table-is-list", b'{"_default": [{"name": "Ada"}]}'),
    ("git-conflict", ("<<<<<<< HEAD\n" + PEOPLE + "\n=======\n{}\n>>>>>>> branch\n").encode()),
    ("trailing-comma", b'{"_default": {"1": {"name": "Ada", "age": 36},}}'),
]


def cases(ctx: Context) -> Iterator[Case]:
    from tinydb import Query
    from tinydb.table import Document

    q = Query()
    n = 0

    def fresh() -> Path:
        nonlocal n
        n += 1
        return ctx.tmp / f"people-{n}.json"

    for slug, tool, args, fn in _model_calls(ctx):
        path = fresh()
        exc = _catch(lambda: fn(_db(path), str(path)))
        full = args if "path" in args else {"path": str(path), **args}
        yield Case(f"tinydb-{slug}", LIBRARY, f"the model's argument ({slug})", F, None, exc, tool, full)

    # a doc_id the model gave that the file already holds: a conflict with stored state
    path = fresh()
    exc = _catch(lambda: _db(path).insert(Document({"name": "Grace"}, doc_id=1)))
    yield Case(
        "tinydb-insert-doc-id-exists",
        LIBRARY,
        "document id already exists in the database",
        A,
        None,
        exc,
        "insert_document",
        {"path": str(path), "doc_id": 1, "document": {"name": "Grace"}},
    )

    # database files on disk that are corrupt or of another shape
    reads: list[tuple[str, str, dict[str, Any], Callable[[Any], Any]]] = [
        (
            "query",
            "query_documents",
            {"field": "age", "op": ">", "value": 30},
            lambda db: db.search(q.age > 30),
        ),
        (
            "insert",
            "insert_document",
            {"document": {"name": "Grace", "age": 85}},
            lambda db: db.insert({"name": "Grace", "age": 85}),
        ),
    ]
    for slug, content in BAD_FILES:
        for op, tool, args, fn in reads:
            path = fresh()
            exc = _catch(lambda: fn(_db(path, content)))
            yield Case(
                f"tinydb-file-{slug}-{op}",
                LIBRARY,
                f"database file on disk is corrupt ({slug})",
                A,
                None,
                exc,
                tool,
                {"path": str(path), **args},
            )
    stored = [
        (
            "file-doc-id-not-int",
            b'{"_default": {"ada": {"name": "Ada", "age": 36}}}',
            "insert_document",
            {"document": {"name": "Grace"}},
            lambda db: db.insert({"name": "Grace"}),
        ),
        (
            "file-doc-id-not-int-get",
            b'{"_default": {"ada": {"name": "Ada", "age": 36}}}',
            "get_document",
            {"field": "name", "op": "==", "value": "Ada"},
            lambda db: db.get(q.name == "Ada"),
        ),
        (
            "file-age-stored-as-text",
            b'{"_default": {"1": {"name": "Ada", "age": "thirty-six"}}}',
            "query_documents",
            {"field": "age", "op": ">", "value": 30},
            lambda db: db.search(q.age > 30),
        ),
        (
            "file-age-stored-as-list",
            b'{"_default": {"1": {"name": "Ada", "age": [36]}}}',
            "query_documents",
            {"field": "age", "op": "<", "value": 40},
            lambda db: db.search(q.age < 40),
        ),
        (
            "file-visits-stored-as-text",
            b'{"_default": {"1": {"name": "Ada", "visits": "3"}}}',
            "update_documents",
            {"operation": "increment", "target": "visits", "field": "name", "value": "Ada"},
            lambda db: db.update(_increment("visits"), q.name == "Ada"),
        ),
    ]
    for slug, content, tool, args, fn in stored:
        path = fresh()
        exc = _catch(lambda: fn(_db(path, content)))
        yield Case(
            f"tinydb-{slug}",
            LIBRARY,
            "database file holds values of another type",
            A,
            None,
            exc,
            tool,
            {"path": str(path), **args},
        )

    try:
        yield from _refusals(ctx, fresh)
    finally:
        _close_all()


def _increment(field: str) -> Any:
    from tinydb.operations import increment

    return increment(field)


def _refusals(ctx: Context, fresh: Callable[[], Path]) -> Iterator[Case]:
    from tinydb import Query

    q = Query()
    # a file the process may not read or write
    path = fresh()
    path.write_text(PEOPLE)
    path.chmod(0o000)
    _files.read_only_dir(ctx.tmp / "ro-probe")  # makes ctx.tmp searchable by nobody
    exc = _files.denied(lambda: _open(path).search(q.age > 30))
    yield Case(
        "tinydb-file-unreadable",
        LIBRARY,
        "database file not readable (permissions)",
        U,
        None,
        exc,
        "query_documents",
        {"path": str(path), "field": "age", "op": ">", "value": 30},
    )
    path = fresh()
    path.write_text(PEOPLE)
    path.chmod(0o444)
    exc = _files.denied(lambda: _open(path).insert({"name": "Grace"}))
    yield Case(
        "tinydb-file-read-only",
        LIBRARY,
        "database file not writable (permissions)",
        U,
        None,
        exc,
        "insert_document",
        {"path": str(path), "document": {"name": "Grace"}},
    )
    ro = _files.read_only_dir(ctx.tmp / "shared")
    exc = _files.denied(lambda: _open(ro / "people.json"))
    yield Case(
        "tinydb-dir-read-only",
        LIBRARY,
        "directory not writable (permissions)",
        U,
        None,
        exc,
        "open_database",
        {"path": str(ro / "people.json")},
    )

    # the tool opened the database read-only
    path = fresh()
    exc = _catch(lambda: _db(path, access_mode="r").insert({"name": "Grace"}))
    yield Case(
        "tinydb-access-mode-read-only",
        LIBRARY,
        "database opened read-only by the tool",
        U,
        None,
        exc,
        "insert_document",
        {"path": str(path), "document": {"name": "Grace"}},
    )
    path = fresh()
    exc = _catch(lambda: _db(path, access_mode="r").remove(q.name == "Ada"))
    yield Case(
        "tinydb-access-mode-read-only-remove",
        LIBRARY,
        "database opened read-only by the tool",
        U,
        None,
        exc,
        "remove_documents",
        {"path": str(path), "field": "name", "op": "==", "value": "Ada"},
    )

    # a file size limit (a full quota)
    path = fresh()
    db = _db(path)
    with _files.file_size_limit(len(PEOPLE) + 16):
        exc = _catch(lambda: db.insert({"name": "Grace Hopper", "age": 85, "bio": "x" * 200}))
    yield Case(
        "tinydb-file-size-limit",
        LIBRARY,
        "file size limit reached (quota)",
        U,
        None,
        exc,
        "insert_document",
        {"path": str(path), "document": {"name": "Grace Hopper", "age": 85, "bio": "x" * 200}},
    )

    # installations that lack one of TinyDB's modules
    for mod in ("storages", "queries", "table"):
        with _pkgcopy.broken_install(ctx.tmp, ["tinydb"], drop=(f"tinydb/{mod}.py",)):
            exc = _catch(lambda: importlib.import_module("tinydb"))
        yield Case(
            f"tinydb-module-missing-{mod}",
            LIBRARY,
            f"installed module file missing (tinydb/{mod}.py)",
            U,
            None,
            exc,
            "query_documents",
            {"path": str(ctx.tmp / "people.json"), "field": "age", "op": ">", "value": 30},
        )
