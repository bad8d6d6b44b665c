# ruff: noqa: B023 - each lambda is called at once
"""asyncpg against a throwaway PostgreSQL server on 127.0.0.1 (started by
:func:`generate.postgres`, like ``sqlalchemy_pg.py``; Debian package ``postgresql``), its
``pg_hba.conf`` rewritten and reloaded to require passwords for one role and reject another:
SQLSTATE errors as asyncpg raises them (``asyncpg.exceptions``), the client's own argument
checks (argument count and types, codecs), concurrency (serialization, deadlock, NOWAIT and
lock timeouts), limits (connection slots, ``temp_file_limit``, the statement timeout),
authentication and connection failures, and a server shutting down.

Labels follow ``sqlalchemy_pg.py`` (the same SQLSTATEs through another driver) and the corpus'
conventions: SQL or arguments the model wrote are fixable; duplicate key, foreign key,
"already exists", data-dependent errors and an application's own ``RAISE`` are ambiguous;
privileges, authentication, read-only and resource limits are unrecoverable; serialization,
deadlock, lock and connection-slot errors, refused connections and a server that cannot
accept connections now (57P03) are transient, not executed; the client's own timeout and a
connection terminated mid-session are transient with an unknown outcome. SQLSTATE meanings:
https://www.postgresql.org/docs/current/errcodes-appendix.html"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import generate
from generate import Case

from ._common import NE, UO, A, F, T, U, raw_server

LIBRARY = "asyncpg"
REQUIRES = ["asyncpg>=0.29,<0.33"]


def available() -> str | None:
    search = os.pathsep.join([os.environ.get("PATH", ""), *sorted(glob.glob("/usr/lib/postgresql/*/bin"))])
    if shutil.which("initdb", path=search) is None:
        return "PostgreSQL's initdb is not installed (Debian package postgresql)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser (initdb refuses root)"
    return None


HBA = """\
local all all trust
host all pwuser 127.0.0.1/32 scram-sha-256
host all blocked 127.0.0.1/32 reject
host all all 127.0.0.1/32 trust
"""


def cases(ctx: Any) -> Iterator[Case]:
    with generate.postgres(ctx.tmp) as dsn:
        assert dsn is not None, "PostgreSQL could not be started"
        port = generate._pg_port[0]
        ctx.name_port(port, "PGPORT")
        out: list[Case] = []
        asyncio.run(_cases(ctx, port, out))
    yield from out


async def _catch(fn: Callable[[], Awaitable[Any]]) -> BaseException:
    try:
        await fn()
    except BaseException as exc:
        return exc
    raise AssertionError(f"{fn} raised nothing")


async def _cases(ctx: Any, port: int, out: list[Case]) -> None:
    import asyncpg

    def case(
        cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException, args: dict[str, Any]
    ) -> None:
        out.append(Case(f"asyncpg-{cid}", LIBRARY, cause, kind, outcome, exc, "query", arguments=args))

    # a call whose connection fails before any SQL runs: the model's query is a plain one (the
    # host, port, role, password, database and SSL mode are the tool's configuration)
    plain = {"query": "SELECT 1"}

    async def connect(**kwargs: Any) -> Any:
        kwargs.setdefault("user", "postgres")
        kwargs.setdefault("port", port)
        kwargs.setdefault("database", "postgres")
        return await asyncpg.connect(host="127.0.0.1", timeout=3, **kwargs)

    admin = await connect()
    await admin.execute(
        "CREATE TYPE mood AS ENUM ('happy', 'sad');"
        "CREATE TABLE teams (id int PRIMARY KEY, name varchar(5) NOT NULL);"
        "CREATE TABLE members (id int PRIMARY KEY, email text UNIQUE NOT NULL,"
        " age int CHECK (age >= 0), team_id int REFERENCES teams(id), mood mood, profile jsonb);"
        "CREATE VIEW team_sizes AS SELECT team_id, count(*) FROM members GROUP BY team_id;"
        "INSERT INTO teams VALUES (1, 'core'), (2, 'web');"
        "INSERT INTO members (id, email, age, team_id) VALUES (1, 'ann@example.com', 30, 1),"
        " (2, 'bob@example.com', 40, 1);"
        "CREATE FUNCTION close_order(id int) RETURNS void LANGUAGE plpgsql AS $$ BEGIN"
        " RAISE EXCEPTION 'order % is already closed', id USING ERRCODE = 'P0001'; END $$;"
        "CREATE ROLE reader LOGIN; GRANT SELECT ON members TO reader;"
        "CREATE ROLE limited LOGIN CONNECTION LIMIT 1;"
        "SET password_encryption = 'scram-sha-256';"
        "CREATE ROLE pwuser LOGIN PASSWORD 's3cret'; CREATE ROLE blocked LOGIN;"
        "CREATE ROLE nologin NOLOGIN"
    )
    data = Path(ctx.tmp) / "pg"
    (data / "pg_hba.conf").write_text(HBA)
    await admin.execute("SELECT pg_reload_conf()")
    statements: list[tuple[str, str, str, str]] = [
        ("syntax", "syntax error (42601)", F, "SELEC * FROM members"),
        ("undefined-table", "undefined table (42P01)", F, "SELECT * FROM orders"),
        ("undefined-column", "undefined column (42703)", F, "SELECT name FROM members"),
        ("undefined-function", "undefined function (42883)", F, "SELECT nosuchfn(1)"),
        ("ambiguous-column", "ambiguous column (42702)", F, "SELECT id FROM members, teams"),
        ("group-by", "column must appear in GROUP BY (42803)", F, "SELECT email, count(*) FROM members"),
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
        ("not-null", "not-null violation (23502)", F, "INSERT INTO members (id) VALUES (3)"),
        (
            "check",
            "check violation (23514)",
            F,
            "INSERT INTO members (id, email, age) VALUES (3, 'c@example.com', -1)",
        ),
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
        ("table-exists", "relation already exists (42P07)", A, "CREATE TABLE teams (id int)"),
        ("dependent-objects", "drop blocked by dependent objects (2BP01)", A, "DROP TABLE members"),
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
        ("raise", "the application's own RAISE EXCEPTION (P0001)", A, "SELECT close_order(7)"),
        ("create-role-exists", "role already exists (42710)", A, "CREATE ROLE reader"),
    ]
    for cid, cause, kind, sql in statements:
        case(cid, cause, kind, None, await _catch(lambda: admin.fetch(sql)), {"query": sql})
    # the client's own checks on the arguments the model passed
    with_params: list[tuple[str, str, str, list[Any]]] = [
        (
            "arg-count",
            "more arguments than the query's placeholders",
            "SELECT * FROM members WHERE id = $1",
            [1, 2],
        ),
        (
            "arg-type",
            "argument of the wrong Python type for int",
            "SELECT * FROM members WHERE id = $1",
            ["abc"],
        ),
        (
            "arg-jsonb",
            "dict passed for jsonb without a codec",
            "SELECT * FROM members WHERE profile = $1",
            [{"a": 1}],
        ),
        ("arg-date", "string passed for a date parameter", "SELECT $1::date", ["2024-01-01"]),
        (
            "multiple-commands",
            "several commands in one prepared statement (42601)",
            "SELECT 1; SELECT $1",
            [1],
        ),
    ]
    for cid, cause, sql, params in with_params:
        exc = await _catch(lambda: admin.fetch(sql, *params))
        case(cid, cause, F, None, exc, {"query": sql, "params": params})
    exc = await _catch(lambda: admin.copy_records_to_table("orders", records=[(1,)]))
    case(
        "copy-no-table",
        "COPY into a table that does not exist",
        F,
        None,
        exc,
        {"table": "orders", "records": [[1]]},
    )
    many = {"query": "INSERT INTO teams VALUES ($1, $2)", "rows": [[5, "ops"], [6, "a", "b"]]}
    exc = await _catch(lambda: admin.executemany(many["query"], [tuple(row) for row in many["rows"]]))
    case("executemany-row", "executemany row with too many values", F, None, exc, many)
    exc = await _catch(lambda: admin.set_type_codec("nosuchtype", encoder=str, decoder=str))
    case("codec-type", "codec for a type that does not exist", F, None, exc, {"type": "nosuchtype"})
    exc = await _catch(lambda: admin.fetchval("SELECT 1", column=3))
    case(
        "fetchval-column",
        "fetchval column index out of range",
        F,
        None,
        exc,
        {"query": "SELECT 1", "column": 3},
    )
    # state of the session and of other transactions
    tr = admin.transaction()
    await tr.start()
    await _catch(lambda: admin.execute("SELECT nosuchfn(1)"))
    exc = await _catch(lambda: admin.execute("SELECT 1"))
    case(
        "in-failed-transaction",
        "statement after an error in the same transaction (25P02)",
        A,
        None,
        exc,
        {"query": "SELECT 1"},
    )
    await tr.rollback()
    conn = await connect()
    await conn.execute("SET statement_timeout = '100ms'")
    exc = await _catch(lambda: conn.execute("SELECT pg_sleep(2)"))
    case(
        "statement-timeout",
        "the statement's own timeout (57014)",
        A,
        None,
        exc,
        {"query": "SELECT pg_sleep(2)"},
    )
    await conn.execute("SET statement_timeout = 0; SET temp_file_limit = '64kB'; SET work_mem = '64kB'")
    big = "SELECT g FROM generate_series(1, 200000) g ORDER BY md5(g::text)"
    exc = await _catch(lambda: conn.fetch(big))
    case("temp-file-limit", "temp_file_limit exceeded (53400)", U, None, exc, {"query": big})
    exc = await _catch(lambda: conn.execute("SELECT pg_sleep(2)", timeout=0.2))
    case("client-timeout", "the client's own command timeout", T, UO, exc, {"query": "SELECT pg_sleep(2)"})
    tr = conn.transaction(readonly=True)
    await tr.start()
    exc = await _catch(lambda: conn.execute("DELETE FROM members"))
    case("read-only", "read-only transaction (25006)", U, None, exc, {"query": "DELETE FROM members"})
    await tr.rollback()
    busy = asyncio.ensure_future(conn.execute("SELECT pg_sleep(0.3)"))
    await asyncio.sleep(0.05)
    exc = await _catch(lambda: conn.execute("SELECT 1"))
    case(
        "operation-in-progress",
        "connection already running another query",
        A,
        None,
        exc,
        {"query": "SELECT 1"},
    )
    await busy
    await conn.close()
    exc = await _catch(lambda: conn.execute("SELECT 1"))
    case("closed", "connection already closed", A, None, exc, {"query": "SELECT 1"})
    reader = await connect(user="reader")
    exc = await _catch(lambda: reader.execute("DELETE FROM members"))
    case("privilege", "insufficient privilege (42501)", U, None, exc, {"query": "DELETE FROM members"})
    exc = await _catch(lambda: reader.execute("CREATE ROLE newrole"))
    case(
        "create-role-denied",
        "permission denied to create a role (42501)",
        U,
        None,
        exc,
        {"query": "CREATE ROLE newrole"},
    )
    await reader.close()
    # concurrency
    a, b = await connect(), await connect()
    ta, tb = a.transaction(isolation="serializable"), b.transaction(isolation="serializable")
    await ta.start()
    await tb.start()
    for c in (a, b):
        await c.fetch("SELECT sum(age) FROM members")
    await a.execute("UPDATE members SET age = age + 1 WHERE id = 1")
    await b.execute("UPDATE members SET age = age + 1 WHERE id = 2")
    await ta.commit()
    # the call that fails is the model's COMMIT of its transaction
    case(
        "serialization", "serialization failure (40001)", T, NE, await _catch(tb.commit), {"query": "COMMIT"}
    )
    ta, tb = a.transaction(isolation="repeatable_read"), b.transaction(isolation="repeatable_read")
    await ta.start()
    await tb.start()
    for c in (a, b):
        await c.fetch("SELECT age FROM members WHERE id = 1")
    await a.execute("UPDATE members SET age = 50 WHERE id = 1")
    await ta.commit()
    update = "UPDATE members SET age = 51 WHERE id = 1"
    exc = await _catch(lambda: b.execute(update))
    case(
        "concurrent-update", "row changed by a concurrent transaction (40001)", T, NE, exc, {"query": update}
    )
    await tb.rollback()
    ta, tb = a.transaction(), b.transaction()
    await ta.start()
    await tb.start()
    await a.execute("UPDATE members SET age = 1 WHERE id = 1")
    await b.execute("UPDATE members SET age = 2 WHERE id = 2")
    updates = ["UPDATE members SET age = 3 WHERE id = 2", "UPDATE members SET age = 3 WHERE id = 1"]
    first = asyncio.ensure_future(a.execute(updates[0]))
    await asyncio.sleep(0.5)  # a waits first: its deadlock_timeout ends first, a gets the error
    second = asyncio.ensure_future(b.execute(updates[1]))
    results = await asyncio.gather(first, second, return_exceptions=True)
    errors = [(r, sql) for r, sql in zip(results, updates, strict=True) if isinstance(r, BaseException)]
    case("deadlock", "deadlock detected (40P01)", T, NE, errors[0][0], {"query": errors[0][1]})
    await ta.rollback()
    await tb.rollback()
    ta = a.transaction()
    await ta.start()
    await a.execute("SELECT * FROM members WHERE id = 1 FOR UPDATE")
    nowait = "SELECT * FROM members WHERE id = 1 FOR UPDATE NOWAIT"
    exc = await _catch(lambda: b.execute(nowait))
    case("nowait", "row locked by another transaction, NOWAIT (55P03)", T, NE, exc, {"query": nowait})
    tb = b.transaction()
    await tb.start()
    await b.execute("SET LOCAL lock_timeout = '100ms'")
    lock = "LOCK TABLE members IN ACCESS EXCLUSIVE MODE"
    exc = await _catch(lambda: b.execute(lock))
    case("lock-timeout", "lock timeout (55P03)", T, NE, exc, {"query": lock})
    await tb.rollback()
    await ta.rollback()
    await a.close()
    await b.close()
    # a session the server ends while its statement runs
    killed = await connect()
    pid = await killed.fetchval("SELECT pg_backend_pid()")
    slow = "UPDATE members SET age = age + 1, email = email WHERE pg_sleep(2) IS NOT NULL"
    running = asyncio.ensure_future(killed.execute(slow))
    await asyncio.sleep(0.3)
    await admin.execute(f"SELECT pg_terminate_backend({pid})")
    exc = await _catch(lambda: running)
    case("terminated", "session terminated during a statement (57P01)", T, UO, exc, {"query": slow})
    # connection slots
    held = [await connect(user="limited")]
    exc = await _catch(lambda: connect(user="limited"))
    case("role-connection-limit", "too many connections for the role (53300)", T, NE, exc, plain)
    for c in held:
        await c.close()
    held = []
    exc = None
    for _ in range(12):
        try:
            held.append(await connect())
        except asyncpg.PostgresError as e:
            exc = e
            break
    assert exc is not None
    case("too-many-clients", "server connection slots exhausted (53300)", T, NE, exc, plain)
    for c in held:
        await c.close()
    for _ in range(100):  # until the server has seen them close (a slot is free again)
        try:
            await (await connect()).close()
            break
        except asyncpg.TooManyConnectionsError:
            await asyncio.sleep(0.1)
    # authentication and connection
    case(
        "no-database",
        "database does not exist (3D000)",
        U,
        None,
        await _catch(lambda: connect(database="nosuchdb")),
        plain,
    )
    exc = await _catch(lambda: connect(user="nosuchuser"))
    case("no-role", "role does not exist (28000)", U, None, exc, plain)
    exc = await _catch(lambda: connect(user="pwuser", password="wrong"))
    case("wrong-password", "password authentication failed (28P01)", U, None, exc, plain)
    exc = await _catch(lambda: connect(user="pwuser"))
    case("no-password", "password required, none given", U, None, exc, plain)
    exc = await _catch(lambda: connect(user="blocked"))
    case("hba-reject", "pg_hba.conf rejects the role", U, None, exc, plain)
    case(
        "nologin",
        "role not permitted to log in (28000)",
        U,
        None,
        await _catch(lambda: connect(user="nologin")),
        plain,
    )
    exc = await _catch(lambda: connect(ssl="require"))
    case("ssl-rejected", "server does not support SSL", U, None, exc, plain)
    case("refused", "connection refused", T, NE, await _catch(lambda: connect(port=ctx.dead)), plain)
    exc = await _catch(lambda: asyncpg.connect(host="db.nonexistent.invalid", user="postgres", timeout=3))
    case("dns", "DNS name does not resolve", T, NE, exc, plain)
    # a DSN the model wrote in its arguments
    dsn = "mysql://127.0.0.1/postgres"
    exc = await _catch(lambda: asyncpg.connect(dsn, timeout=3))
    case("bad-dsn", "DSN with a scheme that is not postgres", F, None, exc, {"dsn": dsn, **plain})

    def silent(sock: Any) -> None:
        time.sleep(1.5)

    with raw_server(silent) as sport:
        ctx.name_port(sport, "SILENTPORT")
        exc = await _catch(
            lambda: asyncpg.connect(host="127.0.0.1", port=sport, user="postgres", timeout=0.3)
        )
        case("connect-timeout", "server accepts but never answers the startup", T, NE, exc, plain)
    # a server shutting down (smart mode waits for the open session)
    search = os.pathsep.join([os.environ.get("PATH", ""), *sorted(glob.glob("/usr/lib/postgresql/*/bin"))])
    pg_ctl = shutil.which("pg_ctl", path=search)
    assert pg_ctl is not None
    as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    subprocess.run(
        [*as_user, pg_ctl, "-D", str(data), "-m", "smart", "stop", "-W"], capture_output=True, timeout=30
    )
    exc = None
    for _ in range(50):
        exc = await _catch(lambda: connect())
        if isinstance(exc, asyncpg.CannotConnectNowError):
            break
        await asyncio.sleep(0.05)
    case("shutting-down", "the database system is shutting down (57P03)", T, NE, exc, plain)
    await admin.close()
