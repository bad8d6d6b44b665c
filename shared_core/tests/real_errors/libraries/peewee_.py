"""peewee behind a database tool: a SQLite file and a real PostgreSQL server on 127.0.0.1
(``initdb`` / ``pg_ctl`` via :func:`generate.postgres`), reached through peewee's own
``SqliteDatabase`` / ``PostgresqlDatabase`` (psycopg2), its models and ``execute_sql``.

Labels follow the cause that was set up:

- fixable: the model's SQL text (syntax, an unknown table or column it invented), a field
  name or value it wrote that the model class or the database refuses (peewee's
  ``ValueError`` "Unrecognized field name", ``int()`` of its text, NOT NULL / CHECK /
  FOREIGN KEY / length / type violations of the values it passed, a record id that does
  not exist: ``<Model>DoesNotExist``), a database path in a folder that does not exist or
  a database name it made up (peewee docs: https://docs.peewee-orm.com/en/latest/peewee/api.html
  "Model.get_by_id", "Model.update", "Database.execute_sql"; https://docs.peewee-orm.com/en/latest/peewee/database.html
  "Error handling"; PostgreSQL error codes class 22 data exception, 23 integrity constraint
  violation, 42 syntax error or access rule violation:
  https://www.postgresql.org/docs/current/errcodes-appendix.html).
- ambiguous: a UNIQUE violation (the row already exists), a database FILE the tool opened
  that is not a database or is malformed, and rows written by another program that peewee's
  fields cannot convert on read (an ``DecimalField``, ``UUIDField`` or ``IPField``
  holding text SQLite's type affinity let through): the same ``ValueError`` /
  ``InvalidOperation`` / ``error`` the model's own text gets, from data it did not
  write.
- transient: SQLite "database is locked" (another connection holds the write lock past the
  busy timeout; https://www.sqlite.org/rescode.html#busy), PostgreSQL lock timeout (55P03),
  serialization failure (40001), deadlock (40P01), too many clients (53300), connection
  limit of the role, refused connection, a host name that does not resolve -> not executed;
  statement timeout (57014) and a backend terminated mid-query (57P01, connection closed) ->
  unknown outcome.
- unrecoverable: permission denied on a table (42501), a read-only transaction (25006), a
  login role that does not exist, a SQLite file this user may not write, a file size quota
  ("database or disk is full"), and a psycopg2 that is not installed (peewee's
  ``ImproperlyConfigured``: :mod:`libraries._pkgcopy`).

Not triggered: MySQL (no server binary here); PostgreSQL disk full (needs a small
filesystem); SQLite's bound-variable limit (this build allows more than a tool would pass);
reads of an ``IntegerField`` or ``JSONField`` holding text (peewee returns the raw value);
text in an integer or decimal column on SQLite (stored as given: those two cases are
PostgreSQL's only). Under a file-size quota SQLite reports "disk I/O error" (EFBIG).
"""

from __future__ import annotations

import importlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import generate
from generate import Case, _catch

from . import _files, _pkgcopy
from ._common import NE, UO, A, F, T, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "peewee"
REQUIRES = ["peewee>=3.17,<4", "psycopg2-binary>=2.9,<3"]

Q, CR, G, UP, OP = "query_database", "create_record", "get_record", "update_records", "open_database"


def available() -> str | None:
    import glob
    import shutil

    search = os.pathsep.join([os.environ.get("PATH", ""), *sorted(glob.glob("/usr/lib/postgresql/*/bin"))])
    if shutil.which("initdb", path=search) is None:
        return "PostgreSQL's initdb is not installed (Debian package postgresql)"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser (initdb refuses root)"
    return None


def _models(db: Any) -> tuple[Any, Any]:
    import peewee as pw

    class Customer(pw.Model):
        email = pw.CharField(max_length=40, unique=True)
        name = pw.CharField(max_length=20)
        credits = pw.IntegerField(default=0, constraints=[pw.Check("credits >= 0")])

        class Meta:
            database = db
            table_name = "customers"

    class Order(pw.Model):
        customer = pw.ForeignKeyField(Customer, backref="orders")
        total = pw.DecimalField(max_digits=10, decimal_places=2)
        placed = pw.DateField()
        status = pw.CharField(max_length=10, default="new")

        class Meta:
            database = db
            table_name = "orders"

    db.create_tables([Customer, Order])
    ann = Customer.create(email="ann@example.com", name="Ann", credits=5)
    Order.create(customer=ann, total="12.50", placed="2024-03-10")
    return Customer, Order


def _shared_calls(
    db: Any, Customer: Any, Order: Any
) -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, tool, arguments, call) of the model's bad arguments, for either database."""

    def sql(text: str) -> Callable[[], Any]:
        return lambda: db.execute_sql(text).fetchall()

    def create(table: Any, fields: dict[str, Any]) -> Callable[[], Any]:
        return lambda: _atomic(db, lambda: table.create(**fields))

    def update(table: Any, fields: dict[str, Any], where_id: int) -> Callable[[], Any]:
        return lambda: _atomic(db, lambda: table.update(fields).where(table.id == where_id).execute())

    return [
        ("sql-syntax", Q, {"sql": "SELEC * FROM customers"}, sql("SELEC * FROM customers")),
        ("sql-unknown-table", Q, {"sql": "SELECT * FROM custmers"}, sql("SELECT * FROM custmers")),
        (
            "sql-unknown-column",
            Q,
            {"sql": "SELECT emial FROM customers"},
            sql("SELECT emial FROM customers"),
        ),
        (
            "sql-unclosed-quote",
            Q,
            {"sql": "SELECT * FROM customers WHERE name = 'Ann"},
            sql("SELECT * FROM customers WHERE name = 'Ann"),
        ),
        (
            "sql-unknown-function",
            Q,
            {"sql": "SELECT date_trunc_month(placed) FROM orders"},
            sql("SELECT date_trunc_month(placed) FROM orders"),
        ),
        (
            "create-missing-name",
            CR,
            {"table": "customers", "fields": {"email": "bob@example.com"}},
            create(Customer, {"email": "bob@example.com"}),
        ),
        (
            "create-negative-credits",
            CR,
            {"table": "customers", "fields": {"email": "cy@example.com", "name": "Cy", "credits": -3}},
            create(Customer, {"email": "cy@example.com", "name": "Cy", "credits": -3}),
        ),
        (
            "create-credits-text",
            CR,
            {"table": "customers", "fields": {"email": "di@example.com", "name": "Di", "credits": "ten"}},
            create(Customer, {"email": "di@example.com", "name": "Di", "credits": "ten"}),
        ),
        (
            "create-unknown-customer",
            CR,
            {"table": "orders", "fields": {"customer": 999, "total": "5.00", "placed": "2024-03-11"}},
            create(Order, {"customer": 999, "total": "5.00", "placed": "2024-03-11"}),
        ),
        (
            "create-total-text",
            CR,
            {"table": "orders", "fields": {"customer": 1, "total": "12,50", "placed": "2024-03-11"}},
            create(Order, {"customer": 1, "total": "12,50", "placed": "2024-03-11"}),
        ),
        (
            "update-unknown-field",
            UP,
            {"table": "customers", "id": 1, "set": {"emial": "ann@new.example"}},
            update(Customer, {"emial": "ann@new.example"}, 1),
        ),
        (
            "update-credits-negative",
            UP,
            {"table": "customers", "id": 1, "set": {"credits": -1}},
            update(Customer, {"credits": -1}, 1),
        ),
        (
            "get-unknown-id",
            G,
            {"table": "customers", "id": 4242},
            lambda: Customer.get_by_id(4242),
        ),
        (
            "get-id-text",
            G,
            {"table": "orders", "id": "ord_1"},
            lambda: Order.get_by_id("ord_1"),
        ),
        (
            "get-by-email-missing",
            G,
            {"table": "customers", "email": "nobody@example.com"},
            lambda: Customer.get(Customer.email == "nobody@example.com"),
        ),
    ]


def _atomic(db: Any, fn: Callable[[], Any]) -> Any:
    with db.atomic():
        return fn()


# ---------------------------------------------------------------- SQLite

# values SQLite's type affinity stores as text without complaint (no failure to record)
SQLITE_STORES = ("create-credits-text", "create-total-text")


def _sqlite_cases(ctx: Context) -> Iterator[Case]:
    import peewee as pw

    path = ctx.tmp / "shop.db"
    db = pw.SqliteDatabase(str(path), pragmas={"foreign_keys": 1}, timeout=0.2)
    Customer, Order = _models(db)
    for slug, tool, args, fn in _shared_calls(db, Customer, Order):
        if slug in SQLITE_STORES:
            continue
        yield Case(f"peewee-sqlite-{slug}", LIBRARY, f"argument ({slug})", F, None, _catch(fn), tool, args)

    exc = _catch(lambda: db.execute_sql("SELECT * FROM customers WHERE id = ?", (1, 2)))
    yield Case(
        "peewee-sqlite-param-count",
        LIBRARY,
        "two parameters for one placeholder",
        F,
        None,
        exc,
        Q,
        {"sql": "SELECT * FROM customers WHERE id = ?", "params": [1, 2]},
    )

    # a path the model gave, in a folder that does not exist
    wrong = str(ctx.tmp / "dbs" / "shop.db")
    exc = _catch(lambda: pw.SqliteDatabase(wrong).connect())
    yield Case(
        "peewee-sqlite-no-such-folder",
        LIBRARY,
        "database path in a missing folder",
        F,
        None,
        exc,
        OP,
        {"path": wrong},
    )

    # a conflict: the email is already there
    exc = _catch(lambda: _atomic(db, lambda: Customer.create(email="ann@example.com", name="Ann B")))
    args = {"table": "customers", "fields": {"email": "ann@example.com", "name": "Ann B"}}
    yield Case("peewee-sqlite-unique-email", LIBRARY, "email already exists", A, None, exc, CR, args)

    # rows another program wrote (SQLite's type affinity keeps the text)
    db.execute_sql(
        "INSERT INTO orders (customer_id, total, placed, status) VALUES (1, 'twelve', '2024-03-12', 'new')"
    )
    exc = _catch(lambda: [o.total for o in Order.select().order_by(Order.id)])
    yield Case(
        "peewee-sqlite-read-bad-decimal",
        LIBRARY,
        "a row in the database holds text in a decimal column",
        A,
        None,
        exc,
        "list_records",
        {"table": "orders"},
    )
    yield from _sqlite_typed_reads(ctx)
    yield from _sqlite_lock(ctx, path, db)
    db.close()
    yield from _sqlite_files(ctx)


def _sqlite_typed_reads(ctx: Context) -> Iterator[Case]:
    import peewee as pw

    path = ctx.tmp / "devices.db"
    db = pw.SqliteDatabase(str(path))

    class Device(pw.Model):
        uid = pw.UUIDField()
        ip = pw.IPField(null=True)
        seen = pw.TimestampField(null=True)

        class Meta:
            database = db
            table_name = "devices"

    db.create_tables([Device])
    # rows another program wrote: a uid that is not a UUID, an address stored as text
    db.execute_sql("INSERT INTO devices (uid, ip) VALUES ('dev-0042', NULL)")
    db.execute_sql("INSERT INTO devices (uid, ip) VALUES ('6f1c2a3e4b5d4e6f8a9b0c1d2e3f4a5b', '10.0.0.7')")
    exc = _catch(lambda: Device.get_by_id(1).uid)
    args: dict[str, Any] = {"table": "devices", "id": 1}
    yield Case("peewee-sqlite-read-bad-uuid", LIBRARY, "a row holds a malformed UUID", A, None, exc, G, args)
    exc = _catch(lambda: Device.get_by_id(2).ip)
    args = {"table": "devices", "id": 2}
    yield Case("peewee-sqlite-read-bad-ip", LIBRARY, "a row holds an address as text", A, None, exc, G, args)
    uid = "6f1c2a3e4b5d4e6f8a9b0c1d2e3f4a5c"
    calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
        (
            "create-bad-ip",
            CR,
            {"table": "devices", "fields": {"uid": uid, "ip": "10.0.0.300"}},
            lambda: _atomic(db, lambda: Device.create(uid=uid, ip="10.0.0.300")),
        ),
        (
            "filter-ip-hostname",
            G,
            {"table": "devices", "ip": "gateway.local"},
            lambda: Device.get(Device.ip == "gateway.local"),
        ),
        (
            "create-seen-words",
            CR,
            {"table": "devices", "fields": {"uid": uid, "seen": "yesterday"}},
            lambda: _atomic(db, lambda: Device.create(uid=uid, seen="yesterday")),
        ),
    ]
    for slug, tool, args, fn in calls:
        yield Case(f"peewee-sqlite-{slug}", LIBRARY, f"argument ({slug})", F, None, _catch(fn), tool, args)
    db.close()


def _sqlite_lock(ctx: Context, path: Path, db: Any) -> Iterator[Case]:
    holder = sqlite3.connect(str(path), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        exc = _catch(lambda: db.execute_sql("UPDATE customers SET credits = credits + 1 WHERE id = 1"))
        args = {"sql": "UPDATE customers SET credits = credits + 1 WHERE id = 1"}
        yield Case(
            "peewee-sqlite-locked", LIBRARY, "another connection holds the write lock", T, NE, exc, Q, args
        )
        exc = _catch(lambda: db.execute_sql("SELECT count(*) FROM customers").fetchall())
        yield Case(
            "peewee-sqlite-locked-read",
            LIBRARY,
            "another connection holds an exclusive lock",
            T,
            NE,
            exc,
            Q,
            {"sql": "SELECT count(*) FROM customers"},
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def _sqlite_files(ctx: Context) -> Iterator[Case]:
    import peewee as pw

    def query(path: Path, sql: str) -> Callable[[], Any]:
        def run() -> Any:
            db = pw.SqliteDatabase(str(path))
            try:
                return db.execute_sql(sql).fetchall()
            finally:
                db.close()

        return run

    notdb = ctx.tmp / "export.db"
    notdb.write_bytes(b"id,email\n1,ann@example.com\n" * 200)
    exc = _catch(query(notdb, "SELECT * FROM customers"))
    args = {"path": str(notdb), "sql": "SELECT * FROM customers"}
    yield Case(
        "peewee-sqlite-file-not-a-database", LIBRARY, "file on disk is not a database", A, None, exc, Q, args
    )

    good = ctx.tmp / "inventory.db"
    conn = sqlite3.connect(str(good))
    conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, note TEXT)")
    conn.executemany(
        "INSERT INTO items (name, note) VALUES (?, ?)", [(f"item{i}", "x" * 300) for i in range(400)]
    )
    conn.commit()
    conn.close()
    data = bytearray(good.read_bytes())
    for page in range(2, len(data) // 4096):
        data[page * 4096 : page * 4096 + 16] = b"\xff" * 16
    broken = ctx.tmp / "inventory-copy.db"
    broken.write_bytes(bytes(data))
    exc = _catch(query(broken, "SELECT count(*), max(note) FROM items"))
    args = {"path": str(broken), "sql": "SELECT count(*), max(note) FROM items"}
    yield Case(
        "peewee-sqlite-file-malformed", LIBRARY, "database file on disk is corrupt", A, None, exc, Q, args
    )

    missing = ctx.tmp / "reports.db"
    exc = _catch(query(missing, "SELECT * FROM report_runs"))
    args = {"path": str(missing), "sql": "SELECT * FROM report_runs"}
    yield Case(
        "peewee-sqlite-new-file-no-table",
        LIBRARY,
        "path the model gave is not the database (a new empty one is created)",
        F,
        None,
        exc,
        Q,
        args,
    )

    # a database this user may only read
    ro_dir = _files.read_only_dir(ctx.tmp / "shared")
    ro = ro_dir / "ledger.db"
    ro_dir.chmod(0o755)
    conn = sqlite3.connect(str(ro))
    conn.execute("CREATE TABLE ledger (id INTEGER PRIMARY KEY, amount INTEGER)")
    conn.commit()
    conn.close()
    ro.chmod(0o444)
    ro_dir.chmod(0o555)
    exc = _files.denied(query(ro, "INSERT INTO ledger (amount) VALUES (5)"))
    args = {"path": str(ro), "sql": "INSERT INTO ledger (amount) VALUES (5)"}
    yield Case(
        "peewee-sqlite-read-only-file",
        LIBRARY,
        "database file not writable by this user",
        U,
        None,
        exc,
        Q,
        args,
    )
    private = ctx.tmp / "private"
    private.mkdir(mode=0o700)
    secret = private / "hr.db"
    sqlite3.connect(str(secret)).close()
    exc = _files.denied(query(secret, "SELECT 1"))
    yield Case(
        "peewee-sqlite-no-permission",
        LIBRARY,
        "database in a folder this user may not enter",
        U,
        None,
        exc,
        Q,
        {"path": str(secret), "sql": "SELECT 1"},
    )

    big = ctx.tmp / "archive.db"
    db = pw.SqliteDatabase(str(big))
    db.execute_sql("CREATE TABLE blobs (id INTEGER PRIMARY KEY, body TEXT)")
    with _files.file_size_limit(64 * 1024):
        exc = _catch(lambda: db.execute_sql("INSERT INTO blobs (body) VALUES (?)", ("y" * 200_000,)))
    db.close()
    args = {"table": "blobs", "fields": {"body": "<200000 characters>"}}
    yield Case("peewee-sqlite-disk-full", LIBRARY, "file size quota reached", U, None, exc, CR, args)


# ---------------------------------------------------------------- PostgreSQL


def _pg_cases(ctx: Context, port: int) -> Iterator[Case]:
    import peewee as pw
    import psycopg2

    def pg(user: str = "postgres", database: str = "postgres", **kw: Any) -> Any:
        return pw.PostgresqlDatabase(
            database, user=user, host="127.0.0.1", port=port, connect_timeout=2, **kw
        )

    admin = psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres")
    admin.autocommit = True
    cur = admin.cursor()
    db = pg()
    Customer, Order = _models(db)
    Customer.create(email="bo@example.com", name="Bo", credits=2)
    for slug, tool, args, fn in _shared_calls(db, Customer, Order):
        yield Case(f"peewee-pg-{slug}", LIBRARY, f"argument ({slug})", F, None, _catch(fn), tool, args)

    model_calls: list[tuple[str, str, dict[str, Any], Callable[[], Any]]] = [
        (
            "name-too-long",
            CR,
            {
                "table": "customers",
                "fields": {"email": "fb@example.com", "name": "Frederick Bartholomew III"},
            },
            lambda: _atomic(
                db, lambda: Customer.create(email="fb@example.com", name="Frederick Bartholomew III")
            ),
        ),
        (
            "date-out-of-range",
            CR,
            {"table": "orders", "fields": {"customer": 1, "total": "3.00", "placed": "2024-02-30"}},
            lambda: _atomic(db, lambda: Order.create(customer=1, total="3.00", placed="2024-02-30")),
        ),
        (
            "sql-division-by-zero",
            Q,
            {
                "sql": "SELECT total / (credits - credits) FROM orders JOIN customers ON customers.id = customer_id"
            },
            lambda: db.execute_sql(
                "SELECT total / (credits - credits) FROM orders JOIN customers ON customers.id = customer_id"
            ).fetchall(),
        ),
        (
            "sql-bad-cast",
            Q,
            {"sql": "SELECT * FROM orders WHERE placed > 'last week'"},
            lambda: db.execute_sql("SELECT * FROM orders WHERE placed > 'last week'").fetchall(),
        ),
        (
            "sql-group-by",
            Q,
            {"sql": "SELECT customer_id, status, sum(total) FROM orders GROUP BY customer_id"},
            lambda: db.execute_sql(
                "SELECT customer_id, status, sum(total) FROM orders GROUP BY customer_id"
            ).fetchall(),
        ),
        (
            "sql-ambiguous-column",
            Q,
            {"sql": "SELECT id FROM orders JOIN customers ON customers.id = orders.customer_id"},
            lambda: db.execute_sql(
                "SELECT id FROM orders JOIN customers ON customers.id = orders.customer_id"
            ).fetchall(),
        ),
        (
            "sql-type-mismatch",
            Q,
            {"sql": "SELECT * FROM customers WHERE credits = 'five'"},
            lambda: db.execute_sql("SELECT * FROM customers WHERE credits = 'five'").fetchall(),
        ),
        (
            "database-unknown",
            OP,
            {"database": "shop_prod"},
            lambda: pg(database="shop_prod").connect(),
        ),
    ]
    for slug, tool, args, fn in model_calls:
        yield Case(f"peewee-pg-{slug}", LIBRARY, f"argument ({slug})", F, None, _catch(fn), tool, args)

    exc = _catch(lambda: _atomic(db, lambda: Customer.create(email="bo@example.com", name="Bo")))
    args = {"table": "customers", "fields": {"email": "bo@example.com", "name": "Bo"}}
    yield Case("peewee-pg-unique-email", LIBRARY, "email already exists", A, None, exc, CR, args)
    exc = _catch(lambda: db.execute_sql("CREATE TABLE customers (id serial)"))
    yield Case(
        "peewee-pg-table-exists",
        LIBRARY,
        "table already exists",
        A,
        None,
        exc,
        Q,
        {"sql": "CREATE TABLE customers (id serial)"},
    )
    db.rollback()

    # roles: one without grants, one read-only, one limited to a connection
    cur.execute("DROP ROLE IF EXISTS analyst; DROP ROLE IF EXISTS viewer; DROP ROLE IF EXISTS batch")
    cur.execute(
        "CREATE ROLE analyst LOGIN; CREATE ROLE viewer LOGIN; CREATE ROLE batch LOGIN CONNECTION LIMIT 1"
    )
    cur.execute(
        "GRANT SELECT, INSERT ON customers TO viewer; ALTER ROLE viewer SET default_transaction_read_only = on"
    )
    cur.execute("GRANT SELECT, UPDATE ON customers TO batch")
    analyst = pg(user="analyst")
    exc = _catch(lambda: analyst.execute_sql("SELECT * FROM customers").fetchall())
    yield Case(
        "peewee-pg-permission-denied",
        LIBRARY,
        "login role has no grant on the table",
        U,
        None,
        exc,
        Q,
        {"sql": "SELECT * FROM customers"},
    )
    analyst.close()
    viewer = pg(user="viewer")
    exc = _catch(
        lambda: viewer.execute_sql("INSERT INTO customers (email, name) VALUES ('gil@example.com', 'Gil')")
    )
    args = {"sql": "INSERT INTO customers (email, name) VALUES ('gil@example.com', 'Gil')"}
    yield Case(
        "peewee-pg-read-only", LIBRARY, "login role's transactions are read-only", U, None, exc, Q, args
    )
    viewer.close()
    exc = _catch(lambda: pg(user="etl_writer").connect())
    yield Case(
        "peewee-pg-role-missing", LIBRARY, "configured login role does not exist", U, None, exc, OP, {}
    )

    batch = pg(user="batch")
    batch.connect()
    exc = _catch(lambda: pg(user="batch").connect())
    yield Case(
        "peewee-pg-role-connection-limit",
        LIBRARY,
        "login role at its connection limit",
        T,
        NE,
        exc,
        OP,
        {},
    )
    batch.close()

    yield from _pg_concurrency(pg, cur)

    exc = _catch(
        lambda: pw.PostgresqlDatabase("postgres", user="postgres", host="127.0.0.1", port=ctx.dead).connect()
    )
    yield Case("peewee-pg-refused", LIBRARY, "server not listening", T, NE, exc, OP, {})
    exc = _catch(
        lambda: pw.PostgresqlDatabase(
            "postgres", user="postgres", host="db.internal.example", port=5432
        ).connect()
    )
    yield Case("peewee-pg-dns", LIBRARY, "host name does not resolve", T, NE, exc, OP, {})

    # too many clients: every slot taken
    cur.execute("SHOW max_connections")
    taken = []
    exc = None
    for _ in range(20):
        try:
            taken.append(psycopg2.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres"))
        except psycopg2.OperationalError:
            break
    exc = _catch(lambda: pg().connect())
    for conn in taken:
        conn.close()
    yield Case("peewee-pg-too-many-clients", LIBRARY, "server at max_connections", T, NE, exc, OP, {})

    with _pkgcopy.broken_install(ctx.tmp, ["peewee"], hide=("psycopg2", "peewee", "playhouse")):
        broken = importlib.import_module("peewee")
        exc = _catch(lambda: broken.PostgresqlDatabase("postgres", host="127.0.0.1", port=port).connect())
    yield Case("peewee-pg-driver-missing", LIBRARY, "psycopg2 not installed", U, None, exc, OP, {})
    db.close()
    admin.close()


def _pg_concurrency(pg: Callable[..., Any], cur: Any) -> Iterator[Case]:
    a, b = pg(), pg()
    a.connect()
    b.connect()
    # lock timeout: a row another transaction holds
    a.execute_sql("BEGIN")
    a.execute_sql("UPDATE customers SET credits = credits + 1 WHERE id = 1")
    b.execute_sql("SET lock_timeout = '200ms'")
    exc = _catch(lambda: b.execute_sql("UPDATE customers SET credits = 0 WHERE id = 1"))
    b.rollback()
    b.execute_sql("SET lock_timeout = 0")
    a.execute_sql("ROLLBACK")
    args = {"sql": "UPDATE customers SET credits = 0 WHERE id = 1"}
    yield Case("peewee-pg-lock-timeout", LIBRARY, "row locked by another transaction", T, NE, exc, Q, args)

    # serialization failure
    b.execute_sql("BEGIN ISOLATION LEVEL REPEATABLE READ")
    b.execute_sql("SELECT credits FROM customers WHERE id = 1").fetchall()
    a.execute_sql("UPDATE customers SET credits = credits + 1 WHERE id = 1")
    exc = _catch(lambda: b.execute_sql("UPDATE customers SET credits = credits + 2 WHERE id = 1"))
    b.rollback()
    args = {"sql": "UPDATE customers SET credits = credits + 2 WHERE id = 1"}
    yield Case("peewee-pg-serialization", LIBRARY, "concurrent update (repeatable read)", T, NE, exc, Q, args)

    # deadlock: another session holds row 1 and wants row 2; b holds row 2 and wants row 1
    locked, go = threading.Event(), threading.Event()

    def other() -> None:
        c = pg()  # its own connection (peewee's connections are per thread)
        try:
            c.execute_sql("BEGIN")
            c.execute_sql("SET LOCAL deadlock_timeout = '5s'")
            c.execute_sql("UPDATE customers SET credits = credits + 1 WHERE id = 1")
            locked.set()
            go.wait(5)
            c.execute_sql("UPDATE customers SET credits = credits + 1 WHERE id = 2")
            c.execute_sql("ROLLBACK")
        finally:
            c.close()

    b.execute_sql("BEGIN")
    b.execute_sql("SET LOCAL deadlock_timeout = '100ms'")
    b.execute_sql("UPDATE customers SET credits = credits + 1 WHERE id = 2")
    thread = threading.Thread(target=other)
    thread.start()
    locked.wait(5)
    go.set()
    time.sleep(0.2)
    exc = _catch(lambda: b.execute_sql("UPDATE customers SET credits = credits + 1 WHERE id = 1"))
    b.rollback()
    thread.join()
    args = {"sql": "UPDATE customers SET credits = credits + 1 WHERE id = 1"}
    yield Case("peewee-pg-deadlock", LIBRARY, "deadlock with another transaction", T, NE, exc, Q, args)

    # statement timeout: the server cancels a long query
    b.execute_sql("SET statement_timeout = '200ms'")
    exc = _catch(lambda: b.execute_sql("SELECT count(*) FROM generate_series(1, 100000000)").fetchall())
    b.rollback()
    args = {"sql": "SELECT count(*) FROM generate_series(1, 100000000)"}
    yield Case(
        "peewee-pg-statement-timeout",
        LIBRARY,
        "statement cancelled by statement_timeout",
        T,
        UO,
        exc,
        Q,
        args,
    )
    b.execute_sql("SET statement_timeout = 0")

    # the backend terminated mid-query
    pid = b.execute_sql("SELECT pg_backend_pid()").fetchone()[0]
    killer = threading.Timer(0.3, lambda: cur.execute("SELECT pg_terminate_backend(%s)", (pid,)))
    killer.start()
    exc = _catch(
        lambda: b.execute_sql(
            "UPDATE customers SET credits = credits + pg_sleep(5)::text::int * 0 + 1 WHERE id = 2"
        )
    )
    killer.join()
    args = {"sql": "UPDATE customers SET credits = credits + pg_sleep(5)::text::int * 0 + 1 WHERE id = 2"}
    yield Case(
        "peewee-pg-terminated", LIBRARY, "server terminated the connection mid-query", T, UO, exc, Q, args
    )
    exc = _catch(lambda: b.execute_sql("SELECT 1").fetchall())
    yield Case(
        "peewee-pg-connection-gone",
        LIBRARY,
        "connection closed by the server before this query",
        T,
        NE,
        exc,
        Q,
        {"sql": "SELECT 1"},
    )
    a.close()


def cases(ctx: Context) -> Iterator[Case]:
    yield from _sqlite_cases(ctx)
    with generate.postgres(ctx.tmp) as dsn:
        assert dsn is not None, "PostgreSQL could not be started"
        port = generate._pg_port[0]
        ctx.name_port(port, "PGPORT")
        yield from _pg_cases(ctx, port)
