# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""sqlite-utils' Python API behind a database tool: the model's tables, columns, rows, SQL,
parameters, types and paths (fixable) against database files and import files on disk that
are corrupt or hold data that breaks the model's (valid) request, and rows or tables that
already exist (ambiguous); a database another connection holds locked (transient); files,
directories, size limits, read-only opens, and SQLite builds or installations without a
feature (unrecoverable).

Labels follow the cause set up. A table, column, primary key, index, SQL text, JSON path,
parameter count or column type the model wrote raises ``sqlite_utils.db.NotFoundError``,
``AlterError``, ``InvalidColumns``, ``KeyError`` (an unknown column type), ``AssertionError``
or SQLite's own ``OperationalError`` / ``ProgrammingError`` / ``IntegrityError`` (datatype
mismatch): a corrected call works, fixable (docs: https://sqlite-utils.datasette.io/en/stable/python-api.html
"Retrieving a specific record" -> ``NotFoundError``, "Inserting data", "Adding foreign key
constraints" -> ``AlterError``, "Transforming a table", "Extracting columns", "Running
queries"). A path in a directory that does not exist, or naming a directory, gives SQLite's
"unable to open database file": fixable. A ``rows_from_file`` format the model named that
does not exist is fixable; the same function failing on the bytes of an import file on disk
(bad JSON, a CSV it cannot sniff, non-UTF-8) is ambiguous
(https://sqlite-utils.datasette.io/en/stable/python-api.html "Reading rows from a file").

A file that is not a SQLite database, or whose pages are damaged ("file is not a database",
"database disk image is malformed", https://www.sqlite.org/rescode.html SQLITE_NOTADB /
SQLITE_CORRUPT), a stored row whose JSON ``json_extract`` cannot parse ("malformed JSON"),
stored rows that break a UNIQUE index or STRICT column type the model's (valid) transform adds,
and a primary key or table or view that already exists: ambiguous, only the path and the
request in the arguments. "database is locked" (SQLITE_BUSY, https://www.sqlite.org/rescode.html#busy:
another connection holds a conflicting lock; the statement was not run) is transient, not
executed. A read-only file or directory (as an ordinary user), a database opened read-only
(``mode=ro``: SQLITE_READONLY), a file size limit (``RLIMIT_FSIZE``, as a full quota), a
Python whose ``sqlite3`` cannot load extensions (SpatiaLite), no SpatiaLite functions, and
an installation without one of sqlite-utils' modules or its ``sqlite-fts4`` dependency are
unrecoverable within the run.

Not triggerable: sqlite-utils does no network I/O (no timeout, reset or server error); a
``lookup`` / ``upsert`` of values the model made up creates rows instead of failing.
"""

from __future__ import annotations

import importlib
import io
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files, _pkgcopy
from ._common import NE, A, F, T, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "sqlite-utils"
REQUIRES = ["sqlite-utils>=3.36,<4"]

DOGS = [
    {"id": 1, "name": "Cleo", "age": 5, "meta": '{"breed": "terrier"}'},
    {"id": 2, "name": "Pancakes", "age": 4, "meta": '{"breed": "poodle"}'},
]


def _seed(path: Path) -> Any:
    from sqlite_utils import Database

    db = Database(str(path))
    db["dogs"].insert_all(DOGS, pk="id")
    db["owners"].insert({"id": 1, "name": "Sam"}, pk="id")
    db.create_view("old_dogs", "select * from dogs where age > 4")
    return db


def _rows(result: Any) -> Any:
    return list(result) if hasattr(result, "__next__") else result


# (slug, tool, the model's arguments less the path, the call on a fresh seeded database)
MODEL: list[tuple[str, str, dict[str, Any], Callable[[Any], Any]]] = [
    ("get-unknown-id", "get_row", {"table": "dogs", "pk": 99}, lambda db: db["dogs"].get(99)),
    ("get-unknown-table", "get_row", {"table": "cats", "pk": 1}, lambda db: db["cats"].get(1)),
    ("get-name-as-pk", "get_row", {"table": "dogs", "pk": "Cleo"}, lambda db: db["dogs"].get("Cleo")),
    (
        "update-unknown-id",
        "update_row",
        {"table": "dogs", "pk": 99, "updates": {"age": 6}},
        lambda db: db["dogs"].update(99, {"age": 6}),
    ),
    (
        "update-unknown-column",
        "update_row",
        {"table": "dogs", "pk": 1, "updates": {"nmae": "Cleo B"}},
        lambda db: db["dogs"].update(1, {"nmae": "Cleo B"}),
    ),
    ("delete-unknown-id", "delete_row", {"table": "dogs", "pk": 42}, lambda db: db["dogs"].delete(42)),
    (
        "insert-unknown-column-no-alter",
        "insert_rows",
        {"table": "dogs", "rows": [{"id": 3, "nmae": "Rex"}], "alter": False},
        lambda db: db["dogs"].insert_all([{"id": 3, "nmae": "Rex"}], alter=False),
    ),
    (
        "insert-text-into-integer-pk",
        "insert_rows",
        {"table": "owners", "rows": [{"id": "two", "name": "Kim"}]},
        lambda db: db["owners"].insert_all([{"id": "two", "name": "Kim"}]),
    ),
    (
        "upsert-without-pk-value",
        "upsert_rows",
        {"table": "dogs", "rows": [{"name": "Rex"}], "pk": "id"},
        lambda db: db["dogs"].upsert_all([{"name": "Rex"}], pk="id"),
    ),
    (
        "query-syntax",
        "run_query",
        {"sql": "SELEC * FROM dogs"},
        lambda db: _rows(db.query("SELEC * FROM dogs")),
    ),
    (
        "query-unknown-table",
        "run_query",
        {"sql": "select * from cats"},
        lambda db: _rows(db.query("select * from cats")),
    ),
    (
        "query-unknown-column",
        "run_query",
        {"sql": "select colour from dogs"},
        lambda db: _rows(db.query("select colour from dogs")),
    ),
    (
        "query-too-many-params",
        "run_query",
        {"sql": "select * from dogs where id = ?", "params": [1, 2]},
        lambda db: _rows(db.query("select * from dogs where id = ?", [1, 2])),
    ),
    (
        "query-named-param-missing",
        "run_query",
        {"sql": "select * from dogs where id = :id", "params": {"dog_id": 1}},
        lambda db: _rows(db.query("select * from dogs where id = :id", {"dog_id": 1})),
    ),
    (
        "query-string-as-params",
        "run_query",
        {"sql": "select * from dogs where name = ?", "params": "Cleo"},
        lambda db: _rows(db.execute("select * from dogs where name = ?", "Cleo")),
    ),
    (
        "query-json-path",
        "run_query",
        {"sql": "select json_extract(meta, 'breed') from dogs"},
        lambda db: _rows(db.query("select json_extract(meta, 'breed') from dogs")),
    ),
    (
        "query-unclosed-quote",
        "run_query",
        {"sql": "select * from dogs where name = 'Cleo"},
        lambda db: _rows(db.query("select * from dogs where name = 'Cleo")),
    ),
    (
        "where-incomplete",
        "find_rows",
        {"table": "dogs", "where": "age >"},
        lambda db: _rows(db["dogs"].rows_where("age >")),
    ),
    (
        "where-unknown-column",
        "find_rows",
        {"table": "dogs", "where": "colour = ?", "params": ["red"]},
        lambda db: _rows(db["dogs"].rows_where("colour = ?", ["red"])),
    ),
    (
        "where-order-by-unknown",
        "find_rows",
        {"table": "dogs", "order_by": "weight"},
        lambda db: _rows(db["dogs"].rows_where(order_by="weight")),
    ),
    (
        "where-select-unknown",
        "find_rows",
        {"table": "dogs", "select": "nme"},
        lambda db: _rows(db["dogs"].rows_where(select="nme")),
    ),
    (
        "where-params-short",
        "count_rows",
        {"table": "dogs", "where": "age > ? and name = ?", "params": [3]},
        lambda db: db["dogs"].count_where("age > ? and name = ?", [3]),
    ),
    (
        "delete-where-unknown-column",
        "delete_rows",
        {"table": "owners", "where": "email = ?", "params": ["s@x.org"]},
        lambda db: db["owners"].delete_where("email = ?", ["s@x.org"]),
    ),
    (
        "index-unknown-column",
        "create_index",
        {"table": "dogs", "columns": ["weight"]},
        lambda db: db["dogs"].create_index(["weight"]),
    ),
    (
        "index-unknown-table",
        "create_index",
        {"table": "cats", "columns": ["name"]},
        lambda db: db["cats"].create_index(["name"]),
    ),
    (
        "fk-unknown-column",
        "add_foreign_key",
        {"table": "dogs", "column": "owner_id", "other_table": "owners"},
        lambda db: db["dogs"].add_foreign_key("owner_id", "owners", "id"),
    ),
    (
        "fk-unknown-other-table",
        "add_foreign_key",
        {"table": "dogs", "column": "name", "other_table": "people"},
        lambda db: db["dogs"].add_foreign_key("name", "people", "id"),
    ),
    (
        "add-column-type-unknown",
        "add_column",
        {"table": "dogs", "column": "photo", "type": "BLOBBY"},
        lambda db: db["dogs"].add_column("photo", "BLOBBY"),
    ),
    (
        "add-column-duplicate",
        "add_column",
        {"table": "dogs", "column": "name", "type": "text"},
        lambda db: db["dogs"].add_column("name", "text"),
    ),
    (
        "transform-type-unknown",
        "transform_table",
        {"table": "dogs", "types": {"age": "decimal"}},
        lambda db: db["dogs"].transform(types={"age": "decimal"}),
    ),
    (
        "extract-unknown-column",
        "extract_columns",
        {"table": "dogs", "columns": ["colour"]},
        lambda db: db["dogs"].extract(["colour"]),
    ),
    (
        "fts-unknown-column",
        "enable_search",
        {"table": "dogs", "columns": ["bio"]},
        lambda db: db["dogs"].enable_fts(["bio"]),
    ),
    (
        "convert-unknown-column",
        "convert_column",
        {"table": "dogs", "column": "weight", "operation": "upper"},
        lambda db: db["dogs"].convert("weight", str.upper),
    ),
    ("drop-unknown-table", "drop_table", {"table": "cats"}, lambda db: db["cats"].drop()),
    (
        "view-syntax",
        "create_view",
        {"name": "young_dogs", "sql": "selec * from dogs where age < 5"},
        lambda db: db.create_view("young_dogs", "selec * from dogs where age < 5"),
    ),
]


def _rows_from(data: bytes, fmt: Any = None) -> Any:
    from sqlite_utils.utils import rows_from_file

    rows, _ = rows_from_file(io.BytesIO(data), format=fmt)
    return list(rows)


def cases(ctx: Context) -> Iterator[Case]:
    from sqlite_utils import Database
    from sqlite_utils.utils import Format

    n = 0

    def fresh() -> Path:
        nonlocal n
        n += 1
        return ctx.tmp / f"kennel-{n}.db"

    def case(
        slug: str,
        cause: str,
        kind: str,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
        outcome: str | None = None,
    ) -> Case:
        return Case(f"sqlite-utils-{slug}", LIBRARY, cause, kind, outcome, exc, tool, args)

    for slug, tool, args, fn in MODEL:
        path = fresh()
        exc = _catch(lambda: fn(_seed(path)))
        yield case(slug, f"the model's argument ({slug})", F, exc, tool, {"path": str(path), **args})

    # paths the model wrote
    bad = ctx.tmp / "no-such-dir" / "kennel.db"
    yield case(
        "open-dir-missing",
        "database path in a directory that does not exist",
        F,
        _catch(lambda: Database(str(bad))),
        "run_query",
        {"path": str(bad), "sql": "select 1"},
    )
    yield case(
        "open-path-is-directory",
        "database path names a directory",
        F,
        _catch(lambda: Database(str(ctx.tmp))),
        "run_query",
        {"path": str(ctx.tmp), "sql": "select 1"},
    )
    yield case(
        "import-format-unknown",
        "import format the model named does not exist",
        F,
        _catch(lambda: _rows_from(b"id,name\n3,Rex\n", "xml")),
        "import_rows",
        {"path": str(ctx.tmp / "dogs.csv"), "table": "dogs", "format": "xml"},
    )
    yield case(
        "import-format-wrong",
        "the model named JSON for a CSV file",
        F,
        _catch(lambda: _rows_from(b"id,name\n3,Rex\n", Format.JSON)),
        "import_rows",
        {"path": str(ctx.tmp / "dogs.csv"), "table": "dogs", "format": "json"},
    )

    # conflicts with stored state
    conflicts: list[tuple[str, str, dict[str, Any], Callable[[Any], Any]]] = [
        (
            "insert-pk-exists",
            "insert_rows",
            {"table": "dogs", "rows": [{"id": 1, "name": "Rex"}]},
            lambda db: db["dogs"].insert_all([{"id": 1, "name": "Rex"}]),
        ),
        (
            "create-table-exists",
            "create_table",
            {"table": "dogs", "columns": {"id": "int", "name": "str"}},
            lambda db: db.create_table("dogs", {"id": int, "name": str}),
        ),
        (
            "create-view-exists",
            "create_view",
            {"name": "old_dogs", "sql": "select * from dogs where age > 10"},
            lambda db: db.create_view("old_dogs", "select * from dogs where age > 10"),
        ),
        (
            "create-index-name-exists",
            "create_index",
            {"table": "owners", "columns": ["name"], "index_name": "idx_name"},
            lambda db: (
                db["dogs"].create_index(["name"], index_name="idx_name"),
                db["owners"].create_index(["name"], index_name="idx_name"),
            ),
        ),
    ]
    for slug, tool, args, fn in conflicts:
        path = fresh()
        exc = _catch(lambda: fn(_seed(path)))
        yield case(slug, "already exists in the database", A, exc, tool, {"path": str(path), **args})
    # stored rows that break a constraint the model's valid request adds
    path = fresh()
    db = _seed(path)
    db["dogs"].insert({"id": 3, "name": "Cleo", "age": 2})
    yield case(
        "data-duplicate-breaks-unique",
        "stored rows hold duplicates",
        A,
        _catch(lambda: db["dogs"].create_index(["name"], unique=True)),
        "create_index",
        {"path": str(path), "table": "dogs", "columns": ["name"], "unique": True},
    )
    path = fresh()
    db = _seed(path)
    db["dogs"].insert({"id": 3, "name": "Rex", "age": 2, "meta": "{breed: mutt"})
    yield case(
        "data-malformed-json",
        "a stored row holds malformed JSON",
        A,
        _catch(lambda: _rows(db.query("select json_extract(meta, '$.breed') from dogs"))),
        "run_query",
        {"path": str(path), "sql": "select json_extract(meta, '$.breed') from dogs"},
    )
    path = fresh()
    db = _seed(path)
    db["dogs"].insert({"id": 3, "name": "Rex", "age": "two"})
    yield case(
        "data-text-breaks-integer-type",
        "a stored row holds text in an integer column",
        A,
        _catch(
            lambda: (
                db.execute("create table dogs2 (id integer primary key, age integer) strict")
                and db.execute("insert into dogs2 select id, age from dogs")
            )
        ),
        "copy_table",
        {"path": str(path), "table": "dogs", "to": "dogs2", "strict": True},
    )

    yield from _files_on_disk(ctx, fresh, case)
    yield from _locked(ctx, fresh, case)
    yield from _refusals(ctx, fresh, case)


def _files_on_disk(ctx: Context, fresh: Callable[[], Path], case: Callable[..., Case]) -> Iterator[Case]:
    from sqlite_utils import Database

    # database files that are not what SQLite wrote
    html = fresh()
    html.write_bytes(b"<html><body><h1>404 Not Found</h1></body></html>\n" * 20)
    good = fresh()
    db = _seed(good)
    db["dogs"].insert_all([{"id": i, "name": f"dog {i}" * 20, "age": i % 15} for i in range(3, 400)])
    db.conn.close()
    data = good.read_bytes()
    truncated = fresh()
    truncated.write_bytes(data[: len(data) // 3])
    garbled = fresh()
    garbled.write_bytes(data[:4096] + bytes(range(256)) * 16 + data[8192:])
    header = fresh()
    header.write_bytes(b"SQLite format 2\x00" + data[16:])
    for slug, path in (
        ("html", html),
        ("truncated", truncated),
        ("garbled-page", garbled),
        ("bad-header", header),
    ):
        calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
            ("count", "count_rows", {"table": "dogs"}, lambda: Database(str(path))["dogs"].count),
            (
                "query",
                "run_query",
                {"sql": "select name from dogs where age > 10"},
                lambda: _rows(Database(str(path)).query("select name from dogs where age > 10")),
            ),
            (
                "insert",
                "insert_rows",
                {"table": "dogs", "rows": [{"id": 500, "name": "Rex"}]},
                lambda: Database(str(path))["dogs"].insert_all([{"id": 500, "name": "Rex"}]),
            ),
        ]
        for op, tool, args, fn in calls:
            yield case(
                f"file-{slug}-{op}",
                f"database file on disk is corrupt ({slug})",
                A,
                _catch(fn),
                tool,
                {"path": str(path), **args},
            )

    # import files on disk
    imports = [
        ("import-json-truncated", b'[{"id": 3, "name": "Rex"}, {"id": 4, "na', Format_("JSON")),
        ("import-nl-bad-line", b'{"id": 3, "name": "Rex"}\n{id: 4}\n', Format_("NL")),
        ("import-csv-not-utf8", b"\xff\xfeid,name\n3,Rex\n", Format_("CSV")),
    ]
    for slug, content, fmt in imports:
        path = ctx.tmp / f"{slug}.dat"
        path.write_bytes(content)
        yield case(
            slug,
            "import file on disk is malformed",
            A,
            _catch(lambda: _rows_from(path.read_bytes(), fmt)),
            "import_rows",
            {"path": str(path), "table": "dogs"},
        )


def Format_(name: str) -> Any:
    from sqlite_utils.utils import Format

    return Format[name]


def _locked(ctx: Context, fresh: Callable[[], Path], case: Callable[..., Case]) -> Iterator[Case]:
    from sqlite_utils import Database

    path = fresh()
    _seed(path).conn.close()
    holder = sqlite3.connect(str(path), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        calls: list[tuple[str, str, dict[str, Any], Callable[[Any], Any]]] = [
            (
                "insert",
                "insert_rows",
                {"table": "dogs", "rows": [{"id": 3, "name": "Rex"}]},
                lambda db: db["dogs"].insert_all([{"id": 3, "name": "Rex"}]),
            ),
            (
                "update",
                "update_row",
                {"table": "dogs", "pk": 1, "updates": {"age": 6}},
                lambda db: db["dogs"].update(1, {"age": 6}),
            ),
            (
                "query",
                "run_query",
                {"sql": "select * from dogs"},
                lambda db: _rows(db.query("select * from dogs")),
            ),
            (
                "create-table",
                "create_table",
                {"table": "walks", "columns": {"dog_id": "int", "km": "float"}},
                lambda db: db.create_table("walks", {"dog_id": int, "km": float}),
            ),
            ("count", "count_rows", {"table": "dogs"}, lambda db: db["dogs"].count),
        ]
        for op, tool, args, fn in calls:
            exc = _catch(lambda: fn(Database(sqlite3.connect(str(path), timeout=0.05))))
            yield case(
                f"locked-{op}",
                "database locked by another connection",
                T,
                exc,
                tool,
                {"path": str(path), **args},
                NE,
            )
    finally:
        holder.rollback() if holder.in_transaction else None
        holder.close()


def _refusals(ctx: Context, fresh: Callable[[], Path], case: Callable[..., Case]) -> Iterator[Case]:
    from sqlite_utils import Database

    path = fresh()
    _seed(path).conn.close()
    path.chmod(0o444)
    _files.read_only_dir(ctx.tmp / "ro-probe")  # ctx.tmp searchable by an ordinary user
    yield case(
        "file-read-only",
        "database file not writable (permissions)",
        U,
        _files.denied(lambda: Database(str(path))["dogs"].insert({"id": 3, "name": "Rex"})),
        "insert_rows",
        {"path": str(path), "table": "dogs", "rows": [{"id": 3, "name": "Rex"}]},
    )
    path = fresh()
    _seed(path).conn.close()
    path.chmod(0o000)
    yield case(
        "file-unreadable",
        "database file not readable (permissions)",
        U,
        _files.denied(lambda: _rows(Database(str(path)).query("select * from dogs"))),
        "run_query",
        {"path": str(path), "sql": "select * from dogs"},
    )
    ro = _files.read_only_dir(ctx.tmp / "shared")
    yield case(
        "dir-read-only",
        "directory not writable (permissions)",
        U,
        _files.denied(lambda: Database(str(ro / "kennel.db"))["dogs"].insert({"id": 1})),
        "insert_rows",
        {"path": str(ro / "kennel.db"), "table": "dogs", "rows": [{"id": 1}]},
    )
    path = fresh()
    _seed(path).conn.close()
    for op, tool, args, fn in (
        (
            "insert",
            "insert_rows",
            {"table": "dogs", "rows": [{"id": 3, "name": "Rex"}]},
            lambda db: db["dogs"].insert({"id": 3, "name": "Rex"}),
        ),
        (
            "create-table",
            "create_table",
            {"table": "walks", "columns": {"dog_id": "int"}},
            lambda db: db.create_table("walks", {"dog_id": int}),
        ),
    ):
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        yield case(
            f"opened-read-only-{op}",
            "database opened read-only by the tool",
            U,
            _catch(lambda: fn(Database(conn))),
            tool,
            {"path": str(path), **args},
        )
        conn.close()
    path = fresh()
    db = _seed(path)
    size = path.stat().st_size
    with _files.file_size_limit(size):
        exc = _catch(lambda: db["dogs"].insert_all([{"id": 3, "name": "Rex " * 3000}]))
    yield case(
        "file-size-limit",
        "file size limit reached (quota)",
        U,
        exc,
        "insert_rows",
        {"path": str(path), "table": "dogs", "rows": [{"id": 3, "name": "Rex " * 3000}]},
    )
    path = fresh()
    db = _seed(path)
    yield case(
        "spatialite-no-extension-loading",
        "Python's sqlite3 built without extension loading",
        U,
        _catch(db.init_spatialite),
        "enable_spatial",
        {"path": str(path)},
    )
    yield case(
        "spatialite-not-loaded",
        "SpatiaLite functions not available",
        U,
        _catch(lambda: db["dogs"].create_spatial_index("geometry")),
        "create_spatial_index",
        {"path": str(path), "table": "dogs", "column": "geometry"},
    )
    with _pkgcopy.broken_install(
        ctx.tmp,
        ["sqlite_utils"],
        hide=("sqlite_fts4", "click", "click_default_group", "tabulate", "dateutil"),
    ):
        exc = _catch(lambda: importlib.import_module("sqlite_utils"))
    yield case(
        "dependency-missing",
        "a dependency of sqlite-utils (python-dateutil) not installed",
        U,
        exc,
        "run_query",
        {"path": str(ctx.tmp / "kennel.db"), "sql": "select 1"},
    )
    with _pkgcopy.broken_install(
        ctx.tmp,
        ["sqlite_utils", "sqlite_fts4", "dateutil", "six", "click", "click_default_group", "tabulate"],
        drop=("sqlite_utils/utils.py",),
        hide=("six",),
    ):
        exc = _catch(lambda: importlib.import_module("sqlite_utils"))
    yield case(
        "module-missing-utils",
        "installed module file missing (sqlite_utils/utils.py)",
        U,
        exc,
        "run_query",
        {"path": str(ctx.tmp / "kennel.db"), "sql": "select 1"},
    )
