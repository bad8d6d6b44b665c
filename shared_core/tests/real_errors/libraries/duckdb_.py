# ruff: noqa: B023 - each lambda is called at once
"""DuckDB, the in-process engine itself (no server): the model's SQL and arguments (parser,
binder, catalog, conversion errors), constraints, files the tool reads (CSV, JSON, Parquet,
a database file) that are broken, and the engine's own limits and state: ``memory_limit``, a
read-only database, a file locked by another process (a
second interpreter holding it), a write-write conflict between two transactions, an
interrupted query and a closed connection.

Labels follow the corpus' conventions (``libraries/sqlalchemy_pg.py``, ``libraries/_common.py``):
a statement or argument the model wrote that DuckDB rejects is fixable; the same reader
failing on a file the tool read (not a value in the call) is ambiguous, and so is a path
that does not exist (as ``csv_.py``, ``pandas_.py``); constraint
conflicts (duplicate key, foreign key, already exists) and data-dependent failures are
ambiguous; read-only mode and the memory limit are unrecoverable; a lock held by another
process and a transaction conflict (``TransactionContext Error: Conflict``, DuckDB's
optimistic concurrency: https://duckdb.org/docs/stable/connect/concurrency) are transient,
turned away before acting."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from typing import Any

from generate import Case

from ._common import NE, A, F, T, U, catch

LIBRARY = "duckdb"
REQUIRES = ["duckdb>=1.1,<3"]


def cases(ctx: Any) -> Iterator[Case]:
    import duckdb

    def case(
        cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException, args: dict[str, Any]
    ) -> Case:
        """``args``: the model's arguments to ``query``, its SQL (``sql``), parameters
        (``params``) or a database file (``database``)."""
        return Case(f"duckdb-{cid}", LIBRARY, cause, kind, outcome, exc, "query", arguments=args)

    def sql_case(cid: str, cause: str, kind: str, outcome: str | None, sql: str) -> Case:
        """The case of running the model's ``sql`` on ``con``."""
        return case(cid, cause, kind, outcome, catch(lambda: con.execute(sql)), {"sql": sql})

    def read_case(cid: str, cause: str, sql: str) -> Case:
        """The case of the model's ``sql`` reading a file (ambiguous unless told)."""
        return case(cid, cause, A, None, catch(lambda: con.execute(sql).fetchall()), {"sql": sql})

    tmp = ctx.tmp
    con = duckdb.connect()
    con.execute(
        "CREATE TYPE mood AS ENUM ('happy', 'sad');"
        "CREATE TABLE teams (id INTEGER PRIMARY KEY, name VARCHAR NOT NULL);"
        "CREATE TABLE members (id INTEGER PRIMARY KEY, email VARCHAR UNIQUE NOT NULL,"
        " age INTEGER CHECK (age >= 0), team_id INTEGER REFERENCES teams(id), mood mood);"
        "INSERT INTO teams VALUES (1, 'core'), (2, 'web');"
        "INSERT INTO members VALUES (1, 'ann@example.com', 30, 1, 'happy'),"
        " (2, 'bob@example.com', 40, 1, 'sad');"
        "CREATE SEQUENCE ticket START 1 MAXVALUE 2;"
        "CREATE MACRO twice(x) AS x * 2;"
    )
    con.execute("SELECT nextval('ticket'), nextval('ticket')")
    statements: list[tuple[str, str, str, str]] = [
        ("syntax", "parser error: misspelt keyword", F, "SELEC * FROM members"),
        ("syntax-unclosed", "parser error: unterminated string", F, "SELECT 'abc FROM members"),
        ("no-table", "table does not exist", F, "SELECT * FROM orders"),
        ("no-column", "column does not exist", F, "SELECT name FROM members"),
        ("no-function", "function does not exist", F, "SELECT nosuchfn(1)"),
        ("ambiguous-column", "ambiguous column reference", F, "SELECT id FROM members, teams"),
        ("group-by", "column must appear in GROUP BY", F, "SELECT email, count(*) FROM members"),
        ("no-overload", "no function matches the argument types", F, "SELECT 'a' + 1"),
        ("bad-cast", "string cannot be cast to INTEGER", F, "SELECT 'abc'::INTEGER"),
        ("int-overflow", "integer overflow in an expression", F, "SELECT 2147483647::INTEGER + 1"),
        ("bad-date", "invalid date literal", F, "SELECT DATE '2024-02-30'"),
        ("bad-blob", "invalid hex escape in a BLOB literal", F, "SELECT '\\xZZ'::BLOB"),
        ("bad-enum", "value not in the ENUM", F, "UPDATE members SET mood = 'angry' WHERE id = 1"),
        ("bad-regex", "invalid regular expression", F, "SELECT regexp_matches('a', '(unclosed')"),
        ("bad-json-literal", "malformed JSON literal", F, "SELECT json_extract('{bad', '$.a')"),
        ("no-type", "unknown column type", F, "CREATE TABLE things (x FOO)"),
        ("insert-arity", "INSERT with the wrong number of values", F, "INSERT INTO teams VALUES (3)"),
        ("macro-arity", "macro called with the wrong number of arguments", F, "SELECT twice(1, 2)"),
        ("unknown-setting", "unknown configuration parameter", F, "SET nosuch_setting = 1"),
        ("bad-setting", "invalid value for a setting", F, "SET memory_limit = 'lots'"),
        ("unknown-pragma", "unknown PRAGMA", F, "PRAGMA nosuch_pragma"),
        ("drop-missing", "DROP of a table that does not exist", F, "DROP TABLE orders"),
        ("not-null", "NOT NULL constraint", F, "INSERT INTO teams VALUES (3, NULL)"),
        (
            "check",
            "CHECK constraint",
            F,
            "INSERT INTO members VALUES (3, 'c@example.com', -1, 1, 'happy')",
        ),
        ("primary-key", "duplicate primary key", A, "INSERT INTO teams VALUES (1, 'again')"),
        (
            "unique",
            "duplicate value in a UNIQUE column",
            A,
            "INSERT INTO members VALUES (3, 'ann@example.com', 20, 1, 'happy')",
        ),
        (
            "foreign-key",
            "referenced row does not exist",
            A,
            "INSERT INTO members VALUES (3, 'c@example.com', 20, 9, 'happy')",
        ),
        ("fk-delete", "delete of a row still referenced", A, "DELETE FROM teams WHERE id = 1"),
        ("table-exists", "table already exists", A, "CREATE TABLE teams (id INTEGER)"),
        ("drop-referenced", "drop of a table other tables reference", A, "DROP TABLE teams"),
        ("subquery-rows", "scalar subquery returned several rows", A, "SELECT (SELECT id FROM members)"),
        (
            "data-cast",
            "stored value cannot be cast (data-dependent)",
            A,
            "SELECT email::INTEGER FROM members",
        ),
        ("sequence-exhausted", "sequence reached its MAXVALUE", U, "SELECT nextval('ticket')"),
    ]
    for cid, cause, kind, sql in statements:
        yield sql_case(cid, cause, kind, None, sql)
    # parameters the model passed
    params: list[tuple[str, str, str, Any, Any]] = [
        (
            "param-count",
            "fewer parameters than placeholders",
            "SELECT * FROM members WHERE id = ? AND age > ?",
            [1],
            [1],
        ),
        (
            "param-name",
            "named parameter missing",
            "SELECT * FROM members WHERE id = $id",
            {"ident": 1},
            {"ident": 1},
        ),
        # a value JSON cannot carry: the tool turned the model's {} into an object it does not convert
        (
            "param-type",
            "parameter of an unsupported Python type",
            "SELECT * FROM members WHERE id = ?",
            [{}],
            [object()],
        ),
        (
            "param-value",
            "parameter that does not convert to the column type",
            "SELECT * FROM members WHERE id = ?",
            ["one"],
            ["one"],
        ),
    ]
    for cid, cause, sql, model_params, passed in params:
        exc = catch(lambda: con.execute(sql, passed))
        yield case(cid, cause, F, None, exc, {"sql": sql, "params": model_params})
    # files: a path the model named in its SQL, and files the tool read (the arguments hold the SQL)
    yield sql_case(
        "csv-missing", "CSV path that does not exist", A, None, f"SELECT * FROM read_csv('{tmp}/missing.csv')"
    )
    yield sql_case(
        "copy-dir-missing",
        "COPY into a directory that does not exist",
        A,
        None,
        f"COPY teams TO '{tmp}/no/such/dir/out.csv'",
    )
    yield sql_case(
        "glob-nomatch", "glob that matches no file", A, None, f"SELECT * FROM read_csv('{tmp}/*.nomatch')"
    )
    (tmp / "ragged.csv").write_text("id,name\n1,ann\n2,bob,extra,fields\n3,cy\n")
    sql = (
        f"SELECT * FROM read_csv('{tmp}/ragged.csv', auto_detect=false, delim=',', header=true,"
        " columns={'id': 'INTEGER', 'name': 'VARCHAR'})"
    )
    yield read_case("csv-ragged", "CSV file with a ragged row", sql)
    (tmp / "typed.csv").write_text("id,age\n1,30\n2,forty\n")
    sql = (
        f"SELECT * FROM read_csv('{tmp}/typed.csv', columns={{'id': 'INTEGER', 'age': 'INTEGER'}},"
        " header=true)"
    )
    yield read_case("csv-bad-value", "CSV file value not matching its column type", sql)
    (tmp / "latin.csv").write_bytes(b"id,name\n1,caf\xe9\n")
    yield read_case(
        "csv-encoding", "CSV file that is not UTF-8", f"SELECT * FROM read_csv('{tmp}/latin.csv')"
    )
    sql = f"SELECT * FROM read_csv('{tmp}/typed.csv', columns={{'id': 'NOTATYPE'}})"
    exc = catch(lambda: con.execute(sql).fetchall())
    yield case("csv-column-type", "unknown type in read_csv's columns argument", F, None, exc, {"sql": sql})
    (tmp / "broken.json").write_text('[{"id": 1, "name": "ann"}, {"id": 2, "name": ')
    yield read_case("json-file", "truncated JSON file", f"SELECT * FROM read_json('{tmp}/broken.json')")
    (tmp / "fake.parquet").write_bytes(b"PAR1" + b"\x00" * 64 + b"not a parquet footer")
    yield read_case(
        "parquet-corrupt", "file that is not Parquet", f"SELECT * FROM read_parquet('{tmp}/fake.parquet')"
    )
    # database files the model named
    (tmp / "garbage.duckdb").write_bytes(b"garbage " * 2000)
    path = str(tmp / "garbage.duckdb")
    exc = catch(lambda: duckdb.connect(path))
    yield case("db-corrupt", "database file that is not a DuckDB file", A, None, exc, {"database": path})
    path = str(tmp / "no" / "dir" / "app.duckdb")
    exc = catch(lambda: duckdb.connect(path))
    yield case(
        "db-dir-missing", "database path in a directory that does not exist", A, None, exc, {"database": path}
    )
    # a database on disk: read-only, attached twice, locked by another process
    db = tmp / "app.duckdb"
    with duckdb.connect(str(db)) as w:
        w.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR)")
    ro = duckdb.connect(str(db), read_only=True)
    sql = "INSERT INTO items VALUES (1, 'x')"
    exc = catch(lambda: ro.execute(sql))
    yield case("read-only", "write to a database opened read-only", U, None, exc, {"sql": sql})
    ro.close()
    con.execute(f"ATTACH '{db}' AS app (READ_ONLY)")  # the tool's setup
    yield sql_case(
        "attached-read-only",
        "write to a database attached read-only",
        U,
        None,
        "CREATE TABLE app.more (x INTEGER)",
    )
    yield sql_case(
        "attach-alias", "database alias already in use", A, None, f"ATTACH '{tmp}/other.duckdb' AS app"
    )
    yield sql_case("use-missing", "USE of a database that is not attached", F, None, "USE nosuchdb")
    con.execute("DETACH app")
    holder = shutil.copy(os.path.realpath(sys.executable), tmp / "python")
    site = os.path.dirname(os.path.dirname(duckdb.__file__))
    script = (
        f"import duckdb, time; c = duckdb.connect({str(db)!r}); print('ready', flush=True); time.sleep(30)"
    )
    # a copy of the interpreter in the temporary directory, so that the lock message names
    # a path that is normalised; its libpython (if shared) is found beside the original
    libs = os.pathsep.join(
        filter(None, [os.path.join(sys.base_prefix, "lib"), os.environ.get("LD_LIBRARY_PATH")])
    )
    env = {**os.environ, "PYTHONPATH": site, "PYTHONHOME": sys.base_prefix, "LD_LIBRARY_PATH": libs}
    proc = subprocess.Popen([holder, "-c", script], stdout=subprocess.PIPE, env=env)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
        exc = catch(lambda: duckdb.connect(str(db)))
        yield case("locked", "database file locked by another process", T, NE, exc, {"database": str(db)})
    finally:
        proc.kill()
        proc.wait(timeout=10)
    # concurrency: two transactions update the same row
    a, b = con.cursor(), con.cursor()
    a.execute("BEGIN")
    b.execute("BEGIN")
    a.execute("UPDATE members SET age = 31 WHERE id = 1")
    sql = "UPDATE members SET age = 32 WHERE id = 1"
    exc = catch(lambda: b.execute(sql))
    yield case("write-conflict", "conflict with a concurrent transaction's update", T, NE, exc, {"sql": sql})
    a.execute("COMMIT")
    b.execute("ROLLBACK")
    yield sql_case("commit-no-transaction", "COMMIT with no transaction open", F, None, "COMMIT")
    con.execute("BEGIN")
    catch(lambda: con.execute("SELECT nosuchfn(1)"))
    yield sql_case(
        "aborted-transaction", "statement after an error in the same transaction", A, None, "SELECT 1"
    )
    con.execute("ROLLBACK")
    # limits
    big = "SELECT i, repeat('x', 100) AS s FROM range(3000000) r(i) ORDER BY s, i DESC"
    mem = duckdb.connect(config={"memory_limit": "30MB", "threads": 1})
    mem.execute("SET temp_directory = ''")
    exc = catch(lambda: mem.execute(big))
    yield case("memory-limit", "memory_limit reached (no temp directory)", U, None, exc, {"sql": big})
    mem.close()
    # the tool interrupts a long query (its own deadline), and uses a closed connection
    slow = duckdb.connect()
    timer = threading.Timer(0.3, slow.interrupt)
    timer.start()
    sql = "SELECT count(*) FROM range(100000000000) a"
    exc = catch(lambda: slow.execute(sql).fetchall())
    timer.join()
    yield case("interrupted", "query interrupted by the tool's deadline", A, None, exc, {"sql": sql})
    slow.close()
    exc = catch(lambda: slow.execute("SELECT 1"))
    yield case("closed", "connection already closed", A, None, exc, {"sql": "SELECT 1"})
    con.close()
