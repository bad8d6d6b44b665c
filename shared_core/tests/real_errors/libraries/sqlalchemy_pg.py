# ruff: noqa: B023 - each lambda is called at once
"""SQLAlchemy with psycopg over a throwaway PostgreSQL server on 127.0.0.1 (started by
:func:`generate.postgres`; Debian package ``postgresql``): SQLSTATE errors as SQLAlchemy
wraps them, concurrency (serialization, deadlock, NOWAIT locks), limits (connections,
temp files, statement and idle timeouts) and connection failures."""

from __future__ import annotations

import glob
import os
import shutil
import threading
import time
from collections.abc import Iterator
from typing import Any

import generate
from generate import Case

from ._common import NE, UO, A, F, T, U, catch, once_served

LIBRARY = "sqlalchemy"
REQUIRES = ["SQLAlchemy>=2.1,<2.2", "psycopg[binary]>=3.1,<4"]


def available() -> str | None:
    search = os.pathsep.join([os.environ.get("PATH", ""), *sorted(glob.glob("/usr/lib/postgresql/*/bin"))])
    if shutil.which("initdb", path=search) is None:
        return "PostgreSQL's initdb is not installed (Debian package postgresql)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser (initdb refuses root)"
    return None


def cases(ctx: Any) -> Iterator[Case]:
    with generate.postgres(ctx.tmp) as dsn:
        assert dsn is not None, "PostgreSQL could not be started"
        port = generate._pg_port[0]
        ctx.name_port(port, "PGPORT")
        yield from _cases(ctx, f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres")


def _cases(ctx: Any, url: str) -> Iterator[Case]:
    import sqlalchemy as sa

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        sql: str = "SELECT 1",
        params: dict[str, Any] | None = None,
    ) -> Case:
        """``sql``, ``params``: what the model wrote (a connection's failure: the plain query sent)."""
        args: dict[str, Any] = {"query": sql} if params is None else {"query": sql, "params": params}
        return Case(f"sqlapg-{cid}", LIBRARY, cause, kind, outcome, exc, "query", arguments=args)

    engine = sa.create_engine(url, poolclass=sa.NullPool, connect_args={"connect_timeout": 2})
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "CREATE TYPE mood AS ENUM ('happy', 'sad');"
            "CREATE TABLE teams (id int PRIMARY KEY, name varchar(5) NOT NULL);"
            "CREATE TABLE members (id int PRIMARY KEY, email text UNIQUE NOT NULL,"
            " age int CHECK (age >= 0), team_id int REFERENCES teams(id), mood mood, profile jsonb);"
            "CREATE VIEW team_sizes AS SELECT team_id, count(*) FROM members GROUP BY team_id;"
            "INSERT INTO teams VALUES (1, 'core'), (2, 'web');"
            "INSERT INTO members (id, email, age, team_id) VALUES (1, 'ann@example.com', 30, 1),"
            " (2, 'bob@example.com', 40, 1);"
            "CREATE ROLE reader LOGIN; GRANT SELECT ON members TO reader;"
            "CREATE ROLE limited LOGIN CONNECTION LIMIT 1"
        )
    statements: list[tuple[str, str, str, str]] = [
        (
            "unique",
            "unique violation (23505)",
            A,
            "INSERT INTO members (id, email) VALUES (3, 'ann@example.com')",
        ),
        (
            "foreign-key",
            "foreign key: the referenced row does not exist (23503)",
            A,
            "INSERT INTO members (id, email, team_id) VALUES (3, 'c@example.com', 9)",
        ),
        ("not-null", "not-null violation (23502)", F, "INSERT INTO members (id) VALUES (3)"),
        (
            "check",
            "check violation (23514)",
            F,
            "INSERT INTO members (id, email, age) VALUES (3, 'c@example.com', -1)",
        ),
        ("bad-int", "invalid text representation (22P02)", F, "SELECT * FROM members WHERE id = 'abc'"),
        ("int-range", "integer out of range (22003)", F, "SELECT 2147483647::int + 1"),
        ("too-long", "value too long for varchar(5) (22001)", F, "INSERT INTO teams VALUES (3, 'platform')"),
        ("bad-date", "date field out of range (22008)", F, "SELECT '2024-02-30'::date"),
        (
            "bad-json",
            "invalid JSON input (22P02)",
            F,
            "UPDATE members SET profile = '{name: ann}' WHERE id = 1",
        ),
        ("bad-enum", "invalid enum value (22P02)", F, "UPDATE members SET mood = 'angry' WHERE id = 1"),
        ("bad-regex", "invalid regular expression (2201B)", F, "SELECT 'a' ~ '(unclosed'"),
        ("undefined-table", "undefined table (42P01)", F, "SELECT * FROM orders"),
        ("undefined-column", "undefined column (42703)", F, "SELECT name FROM members"),
        ("syntax", "syntax error (42601)", F, "SELEC * FROM members"),
        ("undefined-function", "undefined function (42883)", F, "SELECT nosuchfn(1)"),
        ("ambiguous-column", "ambiguous column (42702)", F, "SELECT id FROM members, teams"),
        ("group-by", "column must appear in GROUP BY (42803)", F, "SELECT email, count(*) FROM members"),
        (
            "div-zero",
            "division by zero (22012, data-dependent)",
            A,
            "SELECT 1 / (age - 30) FROM members WHERE id = 1",
        ),
        (
            "subquery-rows",
            "subquery returned more than one row (21000)",
            A,
            "SELECT (SELECT id FROM members)",
        ),
        ("table-exists", "relation already exists (42P07)", A, "CREATE TABLE teams (id int)"),
        ("column-exists", "column already exists (42701)", A, "ALTER TABLE teams ADD COLUMN name text"),
        ("dependent-objects", "drop blocked by dependent objects (2BP01)", A, "DROP TABLE members"),
        (
            "multiple-commands",
            "several commands in one prepared statement (42601)",
            F,
            "SELECT 1; SELECT %(x)s",
        ),
    ]
    for cid, cause, kind, sql in statements:
        with engine.connect() as conn:
            params = {"x": 1} if "%(x)s" in sql else None
            exc = catch(lambda: conn.exec_driver_sql(sql, params))
            yield case(cid, cause, kind, None, exc, sql, params)
    with engine.connect() as conn:
        catch(lambda: conn.exec_driver_sql("SELECT nosuchfn(1)"))
        exc = catch(lambda: conn.exec_driver_sql("SELECT 1"))
        yield case(
            "in-failed-transaction", "statement after an error in the same transaction (25P02)", A, None, exc
        )
    with engine.connect() as conn:
        conn.exec_driver_sql("SET statement_timeout = '100ms'")
        exc = catch(lambda: conn.exec_driver_sql("SELECT pg_sleep(2)"))
        yield case(
            "statement-timeout", "the statement's own timeout (57014)", A, None, exc, "SELECT pg_sleep(2)"
        )
    with engine.connect() as conn:
        conn.exec_driver_sql("SET temp_file_limit = '64kB'; SET work_mem = '64kB'")
        sql = "SELECT g FROM generate_series(1, 200000) g ORDER BY md5(g::text)"
        exc = catch(lambda: conn.exec_driver_sql(sql))
        yield case("temp-file-limit", "temp_file_limit exceeded (53400)", U, None, exc, sql)
    reader = sa.create_engine(url.replace("postgres@", "reader@"), poolclass=sa.NullPool)
    with reader.connect() as conn:
        exc = catch(lambda: conn.exec_driver_sql("DELETE FROM members"))
        yield case("privilege", "insufficient privilege (42501)", U, None, exc, "DELETE FROM members")
    with engine.connect() as conn:
        conn.exec_driver_sql("SET TRANSACTION READ ONLY")
        exc = catch(lambda: conn.exec_driver_sql("DELETE FROM members"))
        yield case("read-only", "read-only transaction (25006)", U, None, exc, "DELETE FROM members")
    # concurrency
    a, b = engine.connect(), engine.connect()
    for c in (a, b):
        c.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
        c.exec_driver_sql("SELECT sum(age) FROM members")
    a.exec_driver_sql("UPDATE members SET age = age + 1 WHERE id = 1")
    b.exec_driver_sql("UPDATE members SET age = age + 1 WHERE id = 2")
    a.commit()
    # the tool commits b's update at the end of the call
    exc = catch(b.commit)
    sql = "UPDATE members SET age = age + 1 WHERE id = 2"
    yield case("serialization", "serialization failure (40001)", T, NE, exc, sql)
    a.close()
    b.close()
    a, b = engine.connect(), engine.connect()
    for c in (a, b):
        c.exec_driver_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        c.exec_driver_sql("SELECT age FROM members WHERE id = 1")
    a.exec_driver_sql("UPDATE members SET age = 50 WHERE id = 1")
    a.commit()
    sql = "UPDATE members SET age = 51 WHERE id = 1"
    exc = catch(lambda: b.exec_driver_sql(sql))
    yield case("concurrent-update", "row changed by a concurrent transaction (40001)", T, NE, exc, sql)
    a.close()
    b.close()
    a, b = engine.connect(), engine.connect()
    a.exec_driver_sql("UPDATE members SET age = 1 WHERE id = 1")
    b.exec_driver_sql("UPDATE members SET age = 2 WHERE id = 2")
    errors: list[BaseException] = []

    def cross(conn: Any, row: int) -> None:
        try:
            conn.exec_driver_sql(f"UPDATE members SET age = 3 WHERE id = {row}")
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=cross, args=(a, 2))
    t.start()
    time.sleep(0.5)  # a waits first: its deadlock_timeout ends first, a gets the error
    cross(b, 1)
    t.join()
    for c in (a, b):
        c.rollback()
        c.close()
    # a's statement (it waits first)
    yield case(
        "deadlock", "deadlock detected (40P01)", T, NE, errors[0], "UPDATE members SET age = 3 WHERE id = 2"
    )
    a = engine.connect()
    a.exec_driver_sql("SELECT * FROM members WHERE id = 1 FOR UPDATE")
    with engine.connect() as conn:
        sql = "SELECT * FROM members WHERE id = 1 FOR UPDATE NOWAIT"
        exc = catch(lambda: conn.exec_driver_sql(sql))
    yield case("nowait", "row locked by another transaction, NOWAIT (55P03)", T, NE, exc, sql)
    with engine.connect() as conn:
        conn.exec_driver_sql("SET lock_timeout = '100ms'")
        sql = "LOCK TABLE members IN ACCESS EXCLUSIVE MODE"
        exc = catch(lambda: conn.exec_driver_sql(sql))
    yield case("lock-timeout", "lock timeout (55P03)", T, NE, exc, sql)
    a.rollback()
    a.close()
    # connections
    limited = sa.create_engine(url.replace("postgres@", "limited@"), poolclass=sa.NullPool)
    held = limited.connect()
    yield case(
        "role-connection-limit", "too many connections for the role (53300)", T, NE, catch(limited.connect)
    )
    held.close()
    held = []
    exc = None
    for _ in range(12):
        try:
            held.append(engine.connect())
        except sa.exc.OperationalError as e:
            exc = e
            break
    assert exc is not None
    yield case("too-many-clients", "server connection slots exhausted (53300)", T, NE, exc)
    for c in held:
        c.close()
    once_served(lambda: engine.connect().close(), sa.exc.OperationalError)  # the slots are free again
    with engine.connect() as conn:
        conn.exec_driver_sql("SET idle_in_transaction_session_timeout = '100ms'")
        conn.exec_driver_sql("SELECT 1")
        time.sleep(0.4)
        exc = catch(lambda: conn.exec_driver_sql("SELECT 1"))
        yield case("idle-timeout", "session ended by the idle-in-transaction timeout", A, None, exc)
    killed = engine.connect()
    pid = killed.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    with engine.connect() as conn:
        conn.exec_driver_sql(f"SELECT pg_terminate_backend({pid})")
    exc = catch(lambda: killed.exec_driver_sql("SELECT 1"))
    yield case("terminated", "server closed the connection (57P01)", T, UO, exc)
    no_db = sa.create_engine(url.rsplit("/", 1)[0] + "/nosuchdb", poolclass=sa.NullPool)
    yield case("no-database", "database does not exist (3D000)", U, None, catch(no_db.connect))
    no_role = sa.create_engine(url.replace("postgres@", "nosuchuser@"), poolclass=sa.NullPool)
    yield case("no-role", "role does not exist (28000)", U, None, catch(no_role.connect))
    dead = sa.create_engine(
        f"postgresql+psycopg://postgres@127.0.0.1:{ctx.dead}/postgres", poolclass=sa.NullPool
    )
    yield case("refused", "connection refused", T, NE, catch(dead.connect))
    dns = sa.create_engine(
        "postgresql+psycopg://postgres@db.nonexistent.invalid/postgres", poolclass=sa.NullPool
    )
    yield case("dns", "DNS name does not resolve", T, NE, catch(dns.connect))
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP VIEW team_sizes; DROP TABLE members, teams; DROP TYPE mood")
        conn.exec_driver_sql("DROP ROLE reader; DROP ROLE limited")
    engine.dispose()
