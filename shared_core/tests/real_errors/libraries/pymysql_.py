# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""PyMySQL behind database tools, against a real MariaDB server (``mariadbd`` from the Debian
package mariadb-server) that the module initialises with ``mariadb-install-db`` in its own
temporary directory and starts on a free 127.0.0.1 port: the server's own error packets
(``pymysql.err.*Error`` carrying MariaDB's code and message) and PyMySQL's client-side
errors (parameter formatting, connection, timeouts, LOAD DATA LOCAL, auth plugins).

The tools: ``query_database`` (the model's SQL, optionally with ``params``, as the
configured account ``agent`` on database ``shop``), ``insert_row`` / ``update_rows`` /
``delete_row`` (statements the tool builds from the model's table, values and id),
``call_procedure`` (``cursor.callproc``), ``use_database``, ``run_sql_file`` (statements
read from a file the model names), ``import_csv`` (server-side ``LOAD DATA INFILE`` of a
file in the import folder, ``--secure-file-priv``), ``upload_csv`` (``LOAD DATA LOCAL
INFILE``) and ``run_report`` (a reporting account's queries).

Labels follow the cause set up, with MariaDB's error reference
(https://mariadb.com/kb/en/mariadb-error-code-reference/) and PyMySQL's exception mapping
(``pymysql/err.py``; https://pymysql.readthedocs.io/en/latest/modules/cursors.html):

- fixable: the model's SQL (1064 syntax, 1146 unknown table, 1054 unknown column, 1052
  ambiguous column, 1305 unknown function / procedure, 4078 a row compared with a scalar,
  1235 LIMIT in an IN subquery, 1139 a regular expression, 1193 a MySQL-only variable, 1136
  column count, 1318 procedure argument count), the values it wrote that the schema refuses
  in strict mode (1406 data too long, 1264 out of range, 1366 incorrect decimal, 1292
  incorrect date, 1265 an ENUM value not in the list, 1364 a required column left out, 1048
  NULL in a NOT NULL column, 4025 a CHECK constraint or a JSON column's ``json_valid``,
  1365 division by 0), a database it named that does not exist (1049, as in the peewee
  module: the server's databases are part of the schema the tool exposes; the account is
  granted the ``shop_*`` databases so that the server says "Unknown database", not 1044),
  and PyMySQL's own checks of the parameters it passed (``not enough arguments for format
  string``, ``not all arguments converted``, a missing named parameter, ``dict can not be
  used as parameter``).
- ambiguous: conflicts with stored state (1062 duplicate entry, 1050 table exists, 1007
  database exists, 1451 a parent row other rows reference), a customer id the model named
  that does not exist (1452: deleted, never there or mistyped), a stored view broken by a
  later ALTER (1356), and bad data the tool READ where the model only named where to read:
  a staging table holding ``'n/a'`` in a quantity (1366 from ``INSERT ... SELECT``), a
  migration file with a syntax error or naming a table that is not there, CSV files with a
  bad integer (1366), a short row (1261), a long row (1262), a value too long (1406), and a
  file that is not in the import folder (13 "Can't get stat", PyMySQL's 1017 "Can't open
  file" for LOAD DATA LOCAL).
- unrecoverable: the configured account's credentials (1045 access denied, with and without
  a password), grants (1044 database, 1142 table, 1143 column, 1227 SUPER), a server
  running ``read_only`` (1290), a READ ONLY session transaction (1792), the account's
  ``MAX_QUERIES_PER_HOUR`` used up (1226), an expired password (1820), a locked account
  (4151), ``LOAD DATA LOCAL`` not enabled in the client (4166), a MEMORY table at
  ``max_heap_table_size`` (1114 "The table ... is full"), ``max_allowed_packet`` (1153), and
  an ed25519 account without the ``pynacl`` module installed (PyMySQL's RuntimeError,
  :mod:`libraries._pkgcopy`).
- transient: 1213 deadlock and 1205 lock wait timeout / NOWAIT ("try restarting
  transaction": the statement was rolled back, not executed), 1040 too many connections,
  the account's ``MAX_USER_CONNECTIONS`` reached (1226), connection refused and a host name
  that does not resolve (2003), a server that accepts but never sends its handshake (2013
  at connect: nothing was sent) and an idle connection the server closed (``wait_timeout``,
  2006 "MySQL server has gone away" when the query is written), all not executed; the
  client's read timeout (2013 ... timed out), ``max_statement_time`` (1969), ``KILL QUERY``
  (1317) and ``KILL`` of the connection (2013) while the statement ran: unknown outcome.

Not triggered: disk full (needs a small filesystem), a server shutting down (1053: a narrow
window), ``secure_file_priv`` refusals of a path outside the import folder (whether the
model could have named an allowed path is a guess), PAM / dialog accounts (PyMySQL fails
with a bare ``IndexError``, a client bug rather than a cause), ``KILL`` of another user's
thread (the message holds a thread id that varies), ``ONLY_FULL_GROUP_BY`` (not in
MariaDB's default sql_mode). Texts are MariaDB 10.11's (Debian 12); other server versions
word some messages differently (``in 'SELECT'`` was ``in 'field list'``).
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _mariadb as mariadb
from . import _pkgcopy
from ._common import NE, UO, A, F, T, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "pymysql"
REQUIRES = ["PyMySQL==1.2.4"]

Q, INS, UPD, DEL, CALL, USE = (
    "query_database",
    "insert_row",
    "update_rows",
    "delete_row",
    "call_procedure",
    "use_database",
)
RUN, IMP, UPL, REP = "run_sql_file", "import_csv", "upload_csv", "run_report"
AGENT_PASSWORD = "agent-pw-7"


def available() -> str | None:
    return mariadb.unavailable()


@contextmanager
def _mariadb(ctx: Context) -> Iterator[int]:
    """A throwaway MariaDB server on 127.0.0.1 (its data directory under ``ctx.tmp``)."""
    imports = ctx.tmp / "imports"
    imports.mkdir()
    options = (f"--secure-file-priv={imports}", "--max-connections=40", "--plugin-load-add=auth_ed25519")
    with mariadb.server(ctx.tmp, *options) as (port, _base):
        ctx.name_port(port, "MARIADBPORT")
        yield port


class _Server:
    def __init__(self, ctx: Context, port: int) -> None:
        import pymysql

        self.ctx, self.port = ctx, port
        self.admin = self.connect("root", "", database=None)
        self.model_conn: Any = None
        self.pymysql = pymysql

    def connect(
        self, user: str = "agent", password: str = AGENT_PASSWORD, database: str | None = "shop", **kw: Any
    ) -> Any:
        import pymysql

        kw.setdefault("autocommit", True)
        kw.setdefault("connect_timeout", 5)
        kw.setdefault("read_timeout", 30)
        return pymysql.connect(
            host="127.0.0.1", port=self.port, user=user, password=password, database=database, **kw
        )

    def admin_sql(self, *statements: str) -> None:
        with self.admin.cursor() as cur:
            for sql in statements:
                cur.execute(sql)


SCHEMA = (
    "CREATE DATABASE shop",
    "USE shop",
    "CREATE TABLE customers (id INT PRIMARY KEY AUTO_INCREMENT, email VARCHAR(40) NOT NULL UNIQUE,"
    " name VARCHAR(20) NOT NULL, credits INT NOT NULL DEFAULT 0,"
    " tier ENUM('free','pro') NOT NULL DEFAULT 'free', born DATE,"
    " CONSTRAINT credits_nonneg CHECK (credits >= 0)) ENGINE=InnoDB",
    "CREATE TABLE orders (id INT PRIMARY KEY AUTO_INCREMENT, customer_id INT NOT NULL,"
    " total DECIMAL(8,2) NOT NULL, qty TINYINT UNSIGNED, meta JSON,"
    " FOREIGN KEY (customer_id) REFERENCES customers(id)) ENGINE=InnoDB",
    "CREATE TABLE staging (sku VARCHAR(20), qty VARCHAR(20)) ENGINE=InnoDB",
    "CREATE TABLE items (sku VARCHAR(10) NOT NULL PRIMARY KEY, qty INT NOT NULL) ENGINE=InnoDB",
    "CREATE TABLE audit_log (id INT PRIMARY KEY AUTO_INCREMENT, note VARCHAR(40)) ENGINE=InnoDB",
    "CREATE TABLE discounts (code VARCHAR(20) PRIMARY KEY, pct INT) ENGINE=InnoDB",
    "INSERT INTO customers (email, name, credits) VALUES ('ann@example.com', 'Ann', 5), ('bo@example.com', 'Bo', 2)",
    "INSERT INTO orders (customer_id, total, qty) VALUES (1, 12.50, 1)",
    "INSERT INTO staging VALUES ('A-1', '3'), ('B-2', 'n/a')",
    "CREATE VIEW discount_view AS SELECT code, pct FROM discounts",
    "ALTER TABLE discounts DROP COLUMN pct",
    "CREATE PROCEDURE add_credit(IN cid INT, IN amount INT)"
    " UPDATE customers SET credits = credits + amount WHERE id = cid",
    "CREATE DATABASE hr",
    f"CREATE USER 'agent'@'%' IDENTIFIED BY '{AGENT_PASSWORD}'",
    "GRANT SELECT, INSERT, UPDATE, DELETE, EXECUTE ON shop.* TO 'agent'@'%'",
    # the shop_* databases (an unknown one is "Unknown database", not "Access denied")
    "GRANT SELECT ON `shop\\_%`.* TO 'agent'@'%'",
    "CREATE USER 'reporting'@'%' IDENTIFIED BY 'rep-pw'",
    "GRANT SELECT ON shop.orders TO 'reporting'@'%'",
    "GRANT SELECT (id, name) ON shop.customers TO 'reporting'@'%'",
    "CREATE USER 'batch'@'%' IDENTIFIED BY 'batch-pw' WITH MAX_USER_CONNECTIONS 1",
    "GRANT SELECT ON shop.* TO 'batch'@'%'",
    "CREATE USER 'trial'@'%' IDENTIFIED BY 'trial-pw' WITH MAX_QUERIES_PER_HOUR 2",
    "GRANT SELECT ON shop.* TO 'trial'@'%'",
    "CREATE USER 'legacy'@'%' IDENTIFIED BY 'legacy-pw' PASSWORD EXPIRE",
    "GRANT SELECT ON shop.* TO 'legacy'@'%'",
    "CREATE USER 'contractor'@'%' IDENTIFIED BY 'contractor-pw' ACCOUNT LOCK",
    "CREATE USER 'writer'@'%' IDENTIFIED BY 'writer-pw'",
    "GRANT SELECT, INSERT ON shop.* TO 'writer'@'%'",
    "CREATE USER 'edsvc'@'%' IDENTIFIED VIA ed25519 USING PASSWORD('ed-pw')",
    "GRANT SELECT ON shop.* TO 'edsvc'@'%'",
)


def _close(conn: Any) -> None:
    """Close a connection that the case may have left closed (``Already closed``)."""
    try:
        conn.close()
    except Exception:
        pass


def _insert_sql(table: str, values: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
    cols = ", ".join(f"`{c}`" for c in values)
    marks = ", ".join(["%s"] * len(values))
    return f"INSERT INTO `{table}` ({cols}) VALUES ({marks})", tuple(values.values())


def _model_calls(s: _Server) -> list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, cause, tool, the model's arguments, call) of the model's own mistakes."""
    conn = s.model_conn = s.connect()

    def sql(text: str, params: Any = None) -> Callable[[], Any]:
        def run() -> Any:
            with conn.cursor() as cur:
                cur.execute(text, params)
                return cur.fetchall()

        return run

    def insert(table: str, values: dict[str, Any]) -> Callable[[], Any]:
        text, params = _insert_sql(table, values)
        return sql(text, params)

    def update(table: str, row_id: int, values: dict[str, Any]) -> Callable[[], Any]:
        sets = ", ".join(f"`{c}` = %s" for c in values)
        return sql(f"UPDATE `{table}` SET {sets} WHERE id = %s", (*values.values(), row_id))

    def call(name: str, args: list[Any]) -> Callable[[], Any]:
        def run() -> Any:
            with conn.cursor() as cur:
                return cur.callproc(name, args)

        return run

    def q(slug: str, cause: str, text: str) -> tuple[str, str, str, dict[str, Any], Callable[[], Any]]:
        return (slug, cause, Q, {"sql": text}, sql(text))

    def qp(
        slug: str, cause: str, text: str, params: Any
    ) -> tuple[str, str, str, dict[str, Any], Callable[[], Any]]:
        return (slug, cause, Q, {"sql": text, "params": params}, sql(text, params))

    def ins(
        slug: str, cause: str, table: str, values: dict[str, Any]
    ) -> tuple[str, str, str, dict[str, Any], Callable[[], Any]]:
        return (slug, cause, INS, {"table": table, "values": values}, insert(table, values))

    def upd(
        slug: str, cause: str, table: str, row_id: int, values: dict[str, Any]
    ) -> tuple[str, str, str, dict[str, Any], Callable[[], Any]]:
        args = {"table": table, "id": row_id, "set": values}
        return (slug, cause, UPD, args, update(table, row_id, values))

    return [
        q("sql-syntax", "misspelt keyword (1064)", "SELEC * FROM customers"),
        q(
            "sql-unclosed-quote",
            "unclosed string literal (1064)",
            "SELECT * FROM customers WHERE name = 'Ann",
        ),
        q("sql-unknown-table", "table name the model invented (1146)", "SELECT * FROM custmers"),
        q("sql-unknown-column", "column name misspelt (1054)", "SELECT emial FROM customers"),
        q(
            "sql-unknown-column-order",
            "ORDER BY a column the table lacks (1054)",
            "SELECT * FROM customers ORDER BY signup_date DESC",
        ),
        q(
            "sql-ambiguous-column",
            "unqualified column of two joined tables (1052)",
            "SELECT id, total FROM orders JOIN customers ON customers.id = orders.customer_id",
        ),
        q(
            "sql-unknown-function",
            "PostgreSQL's date_trunc, not a MariaDB function (1305)",
            "SELECT date_trunc('month', born) AS m, count(*) FROM customers GROUP BY m",
        ),
        q(
            "sql-row-compare",
            "a two-column subquery compared with a scalar (4078)",
            "SELECT * FROM customers WHERE id = (SELECT id, email FROM customers LIMIT 1)",
        ),
        q(
            "sql-limit-in-subquery",
            "LIMIT inside an IN subquery, not supported (1235)",
            "SELECT * FROM customers WHERE id IN (SELECT customer_id FROM orders ORDER BY total DESC LIMIT 5)",
        ),
        q(
            "sql-regexp",
            "regular expression with an unclosed group (1139)",
            "SELECT * FROM customers WHERE name REGEXP '(Ann|Bo'",
        ),
        q(
            "sql-mysql-variable",
            "MySQL's max_execution_time, not a MariaDB variable (1193)",
            "SET SESSION max_execution_time = 2000",
        ),
        q(
            "sql-column-count",
            "fewer values than columns (1136)",
            "INSERT INTO customers (email, name) VALUES ('gus@example.com')",
        ),
        q(
            "sql-division-by-zero",
            "division by zero in an UPDATE, strict mode (1365)",
            "UPDATE customers SET credits = credits / 0 WHERE id = 2",
        ),
        ins(
            "insert-too-long",
            "name longer than VARCHAR(20) (1406)",
            "customers",
            {"email": "cy@example.com", "name": "Cyrillus Maximilian Long"},
        ),
        ins(
            "insert-out-of-range",
            "quantity above TINYINT UNSIGNED (1264)",
            "orders",
            {"customer_id": 1, "total": "5.00", "qty": 300},
        ),
        ins(
            "insert-bad-decimal",
            "total written in words (1366)",
            "orders",
            {"customer_id": 1, "total": "twelve", "qty": 1},
        ),
        ins(
            "insert-bad-date",
            "February 30th (1292)",
            "customers",
            {"email": "di@example.com", "name": "Di", "born": "2024-02-30"},
        ),
        ins(
            "insert-enum",
            "tier not one of the ENUM's values (1265)",
            "customers",
            {"email": "ed@example.com", "name": "Ed", "tier": "gold"},
        ),
        ins(
            "insert-missing-required",
            "NOT NULL column without a default left out (1364)",
            "customers",
            {"email": "fay@example.com"},
        ),
        ins(
            "insert-unknown-column",
            "a column the table does not have (1054)",
            "customers",
            {"email": "gil@example.com", "name": "Gil", "phone": "+44 20 7946 0000"},
        ),
        ins(
            "insert-invalid-json",
            "JSON column given JavaScript-style text (4025 json_valid)",
            "orders",
            {"customer_id": 1, "total": "3.00", "meta": "{gift: true}"},
        ),
        upd("update-null", "NULL in a NOT NULL column (1048)", "customers", 1, {"name": None}),
        upd("update-check", "negative credits against a CHECK (4025)", "customers", 2, {"credits": -3}),
        qp(
            "params-too-few",
            "two placeholders, one parameter",
            "SELECT * FROM customers WHERE tier = %s AND credits > %s",
            ["pro"],
        ),
        qp(
            "params-too-many",
            "one placeholder, two parameters",
            "SELECT * FROM customers WHERE id = %s",
            [1, 2],
        ),
        qp(
            "params-named-missing",
            "named placeholder not among the parameters",
            "SELECT * FROM orders WHERE customer_id = %(customer_id)s",
            {"customer": 1},
        ),
        qp(
            "params-object",
            "an object as a parameter value",
            "SELECT * FROM customers WHERE email = %s",
            [{"email": "ann@example.com"}],
        ),
        (
            "call-unknown-procedure",
            "procedure name the model invented (1305)",
            CALL,
            {"name": "add_credits", "args": [1, 5]},
            call("add_credits", [1, 5]),
        ),
        (
            "call-argument-count",
            "one argument for a two-argument procedure (1318)",
            CALL,
            {"name": "add_credit", "args": [1]},
            call("add_credit", [1]),
        ),
        (
            "use-unknown-database",
            "database name the model made up (1049)",
            USE,
            {"database": "shop_prod"},
            lambda: s.connect(database="shop_prod"),
        ),
    ]


def _conflicts(s: _Server) -> Iterator[Case]:
    conn = s.connect()

    def run(text: str, params: Any = None) -> Callable[[], Any]:
        return lambda: conn.cursor().execute(text, params)

    text, params = _insert_sql("customers", {"email": "ann@example.com", "name": "Ann B"})
    yield Case(
        "pymysql-insert-duplicate-email",
        LIBRARY,
        "a customer with this email already exists (1062)",
        A,
        None,
        _catch(run(text, params)),
        INS,
        {"table": "customers", "values": {"email": "ann@example.com", "name": "Ann B"}},
    )
    yield Case(
        "pymysql-update-duplicate-email",
        LIBRARY,
        "another customer already has this email (1062)",
        A,
        None,
        _catch(run("UPDATE `customers` SET `email` = %s WHERE id = %s", ("ann@example.com", 2))),
        UPD,
        {"table": "customers", "id": 2, "set": {"email": "ann@example.com"}},
    )
    text, params = _insert_sql("orders", {"customer_id": 999, "total": "5.00"})
    yield Case(
        "pymysql-insert-unknown-customer",
        LIBRARY,
        "the customer id the model named does not exist (1452)",
        A,
        None,
        _catch(run(text, params)),
        INS,
        {"table": "orders", "values": {"customer_id": 999, "total": "5.00"}},
    )
    yield Case(
        "pymysql-delete-referenced",
        LIBRARY,
        "the customer still has orders (1451)",
        A,
        None,
        _catch(run("DELETE FROM `customers` WHERE id = %s", (1,))),
        DEL,
        {"table": "customers", "id": 1},
    )
    yield Case(
        "pymysql-view-broken",
        LIBRARY,
        "a stored view references a column dropped since (1356)",
        A,
        None,
        _catch(run("SELECT * FROM discount_view")),
        Q,
        {"sql": "SELECT * FROM discount_view"},
    )
    text = "INSERT INTO orders (customer_id, total, qty) SELECT 1, 1.00, qty FROM staging"
    yield Case(
        "pymysql-insert-select-bad-staging",
        LIBRARY,
        "a staged row holds 'n/a' as a quantity (1366)",
        A,
        None,
        _catch(run(text)),
        Q,
        {"sql": text},
    )
    # the admin tool (DDL) of the same server
    for slug, cause, text in [
        ("create-table-exists", "table already exists (1050)", "CREATE TABLE shop.customers (id INT)"),
        ("create-database-exists", "database already exists (1007)", "CREATE DATABASE shop"),
    ]:
        yield Case(
            f"pymysql-{slug}",
            LIBRARY,
            cause,
            A,
            None,
            _catch(lambda: s.admin_sql(text)),
            "run_ddl",
            {"sql": text},
        )
    conn.close()


def _files(s: _Server) -> Iterator[Case]:
    ctx = s.ctx
    (ctx.tmp / "migrations").mkdir()
    files = {
        "migrations/007_discounts.sql": "INSERT INTO discounts (code) VALUES ('SPRING');\n"
        "UPDATE discounts SET code = 'SPRING24' WHERE code = 'SPRING'\nWHERE 1;\n",
        "migrations/008_invoices.sql": "ALTER TABLE invoices ADD COLUMN due DATE;\n",
    }
    for rel, text in files.items():
        (ctx.tmp / rel).write_text(text)
    conn = s.connect("root", "")

    def run_file(rel: str) -> Callable[[], Any]:
        def run() -> Any:
            text = (ctx.tmp / rel).read_text()
            with conn.cursor() as cur:
                for statement in filter(None, (p.strip() for p in text.split(";"))):
                    cur.execute(statement)

        return run

    yield Case(
        "pymysql-sql-file-syntax",
        LIBRARY,
        "a migration file holds a syntax error (1064)",
        A,
        None,
        _catch(run_file("migrations/007_discounts.sql")),
        RUN,
        {"path": "migrations/007_discounts.sql"},
    )
    yield Case(
        "pymysql-sql-file-missing-table",
        LIBRARY,
        "a migration file alters a table not in the database (1146)",
        A,
        None,
        _catch(run_file("migrations/008_invoices.sql")),
        RUN,
        {"path": "migrations/008_invoices.sql"},
    )

    csvs = {
        "stock-bad-int.csv": "A-1,3\nB-2,lots\n",
        "stock-short-row.csv": "C-3,4\nD-4\n",
        "stock-long-row.csv": "E-5,6,2024-05-01\n",
        "stock-long-sku.csv": "F-6,1\nWAREHOUSE-07-SHELF-3,2\n",
    }
    for name, text in csvs.items():
        (ctx.tmp / "imports" / name).write_text(text)

    def load(name: str) -> Callable[[], Any]:
        path = ctx.tmp / "imports" / name
        text = f"LOAD DATA INFILE '{path}' INTO TABLE items FIELDS TERMINATED BY ','"
        return lambda: conn.cursor().execute(text)

    for slug, name, cause in [
        ("import-bad-integer", "stock-bad-int.csv", "a CSV row holds text as a quantity (1366)"),
        ("import-short-row", "stock-short-row.csv", "a CSV row lacks a column (1261)"),
        ("import-long-row", "stock-long-row.csv", "a CSV row has an extra column (1262)"),
        ("import-value-too-long", "stock-long-sku.csv", "a CSV value longer than the column (1406)"),
        ("import-file-missing", "stock-2024-06.csv", "the CSV file is not in the import folder (13)"),
    ]:
        exc = _catch(load(name))
        args = {"path": f"imports/{name}", "table": "items"}
        yield Case(f"pymysql-{slug}", LIBRARY, cause, A, None, exc, IMP, args)
    conn.close()

    local = s.connect(local_infile=True)
    missing = ctx.tmp / "exports" / "stock.csv"
    text = f"LOAD DATA LOCAL INFILE '{missing}' INTO TABLE items FIELDS TERMINATED BY ','"
    yield Case(
        "pymysql-upload-file-missing",
        LIBRARY,
        "the local CSV file the model named does not exist (1017)",
        A,
        None,
        _catch(lambda: local.cursor().execute(text)),
        UPL,
        {"path": "exports/stock.csv", "table": "items"},
    )
    local.close()
    plain = s.connect()
    (ctx.tmp / "exports").mkdir()
    missing.write_text("G-7,1\n")
    yield Case(
        "pymysql-upload-local-disabled",
        LIBRARY,
        "LOAD DATA LOCAL not enabled in the client (4166)",
        U,
        None,
        _catch(lambda: plain.cursor().execute(text)),
        UPL,
        {"path": "exports/stock.csv", "table": "items"},
    )
    plain.close()


def _accounts(s: _Server) -> Iterator[Case]:
    sel = "SELECT * FROM customers"
    yield Case(
        "pymysql-wrong-password",
        LIBRARY,
        "configured password is wrong (1045)",
        U,
        None,
        _catch(lambda: s.connect(password="agent-pw-6")),
        Q,
        {"sql": sel},
    )
    yield Case(
        "pymysql-no-password",
        LIBRARY,
        "no password configured for the account (1045)",
        U,
        None,
        _catch(lambda: s.connect(password="")),
        Q,
        {"sql": sel},
    )
    yield Case(
        "pymysql-database-denied",
        LIBRARY,
        "the account has no grant on the database (1044)",
        U,
        None,
        _catch(lambda: s.connect(database="hr")),
        USE,
        {"database": "hr"},
    )
    rep = s.connect("reporting", "rep-pw")
    for slug, cause, text in [
        (
            "report-table-denied",
            "reporting account has no grant on the table (1142)",
            "SELECT * FROM staging",
        ),
        (
            "report-column-denied",
            "reporting account has no grant on the column (1143)",
            "SELECT name, email FROM customers",
        ),
    ]:
        yield Case(
            f"pymysql-{slug}",
            LIBRARY,
            cause,
            U,
            None,
            _catch(lambda: rep.cursor().execute(text)),
            REP,
            {"sql": text},
        )
    rep.close()
    agent = s.connect()
    text = "SET GLOBAL max_connections = 500"
    yield Case(
        "pymysql-super-denied",
        LIBRARY,
        "the account lacks SUPER (1227)",
        U,
        None,
        _catch(lambda: agent.cursor().execute(text)),
        Q,
        {"sql": text},
    )
    # a READ ONLY session (the tool's read-only mode)
    agent.cursor().execute("SET SESSION TRANSACTION READ ONLY")
    text, params = _insert_sql("audit_log", {"note": "checked stock"})

    def read_only_insert() -> Any:
        cur = agent.cursor()
        cur.execute("START TRANSACTION")
        try:
            cur.execute(text, params)
        finally:
            agent.rollback()

    yield Case(
        "pymysql-read-only-transaction",
        LIBRARY,
        "the session's transactions are READ ONLY (1792)",
        U,
        None,
        _catch(read_only_insert),
        INS,
        {"table": "audit_log", "values": {"note": "checked stock"}},
    )
    agent.close()
    # the server set read_only (a replica, or maintenance)
    writer = s.connect("writer", "writer-pw")
    s.admin_sql("SET GLOBAL read_only = ON")
    try:
        exc = _catch(lambda: writer.cursor().execute(text, params))
    finally:
        s.admin_sql("SET GLOBAL read_only = OFF")
    writer.close()
    yield Case(
        "pymysql-read-only-server",
        LIBRARY,
        "server running with --read-only (1290)",
        U,
        None,
        exc,
        INS,
        {"table": "audit_log", "values": {"note": "checked stock"}},
    )
    trial = s.connect("trial", "trial-pw")
    cur = trial.cursor()
    exc = None
    for _ in range(5):
        try:
            cur.execute("SELECT count(*) FROM orders")
        except s.pymysql.err.OperationalError as e:
            exc = e
            break
    assert exc is not None
    yield Case(
        "pymysql-queries-per-hour",
        LIBRARY,
        "the account's MAX_QUERIES_PER_HOUR is used up (1226)",
        U,
        None,
        exc,
        Q,
        {"sql": "SELECT count(*) FROM orders"},
    )
    trial.close()
    legacy = s.connect("legacy", "legacy-pw")
    yield Case(
        "pymysql-password-expired",
        LIBRARY,
        "the account's password has expired (1820)",
        U,
        None,
        _catch(lambda: legacy.cursor().execute(sel)),
        Q,
        {"sql": sel},
    )
    legacy.close()
    yield Case(
        "pymysql-account-locked",
        LIBRARY,
        "the account is locked (4151)",
        U,
        None,
        _catch(lambda: s.connect("contractor", "contractor-pw")),
        Q,
        {"sql": sel},
    )
    with _pkgcopy.broken_install(s.ctx.tmp, ["pymysql"], hide=("pymysql", "nacl")):
        broken = importlib.import_module("pymysql")
        exc = _catch(
            lambda: broken.connect(
                host="127.0.0.1", port=s.port, user="edsvc", password="ed-pw", database="shop"
            )
        )
    yield Case(
        "pymysql-ed25519-no-nacl",
        LIBRARY,
        "the account uses ed25519 and pynacl is not installed",
        U,
        None,
        exc,
        Q,
        {"sql": sel},
    )


def _limits(s: _Server) -> Iterator[Case]:
    # a MEMORY table takes max_heap_table_size from the session that creates it
    s.admin_sql(
        "SET SESSION max_heap_table_size = 65536",
        "CREATE TABLE shop.session_cache (k VARCHAR(64), v VARCHAR(1000)) ENGINE=MEMORY",
        "SET SESSION max_heap_table_size = DEFAULT",
    )
    conn = s.connect()

    def fill() -> None:
        with conn.cursor() as cur:
            for i in range(1000):
                cur.execute("INSERT INTO `session_cache` (`k`, `v`) VALUES (%s, %s)", (f"s{i}", "x" * 900))

    exc = _catch(fill)
    args = {"table": "session_cache", "values": {"k": "s_next", "v": "<900 characters>"}}
    yield Case(
        "pymysql-memory-table-full",
        LIBRARY,
        "MEMORY table at max_heap_table_size (1114)",
        U,
        None,
        exc,
        INS,
        args,
    )
    # small enough that the whole statement is written before the server refuses it (a
    # larger one races the server's close: "gone away" instead of the server's error)
    s.admin_sql("SET GLOBAL max_allowed_packet = 16384")
    small = s.connect()
    text, params = _insert_sql("audit_log", {"note": "x" * 20_000})
    exc = _catch(lambda: small.cursor().execute(text, params))
    s.admin_sql("SET GLOBAL max_allowed_packet = 16777216")
    _close(small)
    args = {"table": "audit_log", "values": {"note": "<20000 characters>"}}
    yield Case(
        "pymysql-packet-too-large",
        LIBRARY,
        "statement larger than the server's max_allowed_packet (1153)",
        U,
        None,
        exc,
        INS,
        args,
    )
    conn.close()


def _contention(s: _Server) -> Iterator[Case]:
    holder = s.connect("root", "", autocommit=False)
    hcur = holder.cursor()
    waiter = s.connect(autocommit=False)
    wcur = waiter.cursor()
    wcur.execute("SET SESSION innodb_lock_wait_timeout = 1")
    hcur.execute("UPDATE customers SET credits = credits + 1 WHERE id = 1")
    text = "UPDATE customers SET credits = 0 WHERE id = 1"
    exc = _catch(lambda: wcur.execute(text))
    waiter.rollback()
    yield Case(
        "pymysql-lock-wait-timeout",
        LIBRARY,
        "row locked by another transaction (1205)",
        T,
        NE,
        exc,
        Q,
        {"sql": text},
    )
    text = "SELECT * FROM customers WHERE id = 1 FOR UPDATE NOWAIT"
    exc = _catch(lambda: wcur.execute(text))
    waiter.rollback()
    yield Case(
        "pymysql-nowait",
        LIBRARY,
        "NOWAIT on a row another transaction holds (1205)",
        T,
        NE,
        exc,
        Q,
        {"sql": text},
    )

    # killed while waiting on the lock: KILL QUERY, then KILL (the connection)
    wcur.execute("SET SESSION innodb_lock_wait_timeout = 20")
    text = "UPDATE customers SET credits = credits - 1 WHERE id = 1"
    for slug, cause, kill, kind_outcome in [
        ("killed-query", "the running statement was killed (1317)", "KILL QUERY", UO),
        ("killed-connection", "the connection was killed mid-statement (2013)", "KILL", UO),
    ]:
        victim = waiter.thread_id()
        killer = threading.Timer(0.4, lambda: s.admin_sql(f"{kill} {victim}"))
        killer.start()
        exc = _catch(lambda: wcur.execute(text))
        killer.join()
        yield Case(f"pymysql-{slug}", LIBRARY, cause, T, kind_outcome, exc, Q, {"sql": text})
        if slug == "killed-query":
            waiter.rollback()
    timed = s.connect(read_timeout=0.5)
    exc = _catch(lambda: timed.cursor().execute(text))
    yield Case(
        "pymysql-read-timeout",
        LIBRARY,
        "no reply within the client's read timeout (2013)",
        T,
        UO,
        exc,
        Q,
        {"sql": text},
    )
    holder.rollback()
    _close(timed)

    # a deadlock: b (fewer changes, the victim) waits for a's row while a waits for b's
    a = s.connect("root", "", database="shop", autocommit=False)
    b = s.connect(autocommit=False)
    acur, bcur = a.cursor(), b.cursor()
    acur.executemany("INSERT INTO audit_log (note) VALUES (%s)", [(f"batch {i}",) for i in range(20)])
    acur.execute("UPDATE customers SET credits = credits + 1 WHERE id = 1")
    bcur.execute("UPDATE customers SET credits = credits + 1 WHERE id = 2")
    started = threading.Event()

    def other() -> None:
        started.set()
        try:
            acur.execute("UPDATE customers SET credits = credits + 1 WHERE id = 2")
        finally:
            a.rollback()

    thread = threading.Thread(target=other)
    thread.start()
    started.wait(5)
    time.sleep(0.5)
    text = "UPDATE customers SET credits = credits + 1 WHERE id = 1"
    exc = _catch(lambda: bcur.execute(text))
    b.rollback()
    thread.join()
    yield Case(
        "pymysql-deadlock", LIBRARY, "deadlock with another transaction (1213)", T, NE, exc, Q, {"sql": text}
    )
    for c in (a, b, waiter, holder):
        _close(c)

    slow = s.connect()
    slow.cursor().execute("SET SESSION max_statement_time = 0.3")
    text = "SELECT count(*) FROM seq_1_to_100000 a JOIN seq_1_to_100000 b ON a.seq + b.seq = 3"
    exc = _catch(lambda: slow.cursor().execute(text))
    slow.close()
    yield Case(
        "pymysql-statement-time",
        LIBRARY,
        "statement stopped at max_statement_time (1969)",
        T,
        UO,
        exc,
        Q,
        {"sql": text},
    )


def _connections(s: _Server) -> Iterator[Case]:
    import socket

    import pymysql

    sel = "SELECT * FROM customers"
    first = s.connect("batch", "batch-pw")
    exc = _catch(lambda: s.connect("batch", "batch-pw"))
    first.close()
    yield Case(
        "pymysql-user-connection-limit",
        LIBRARY,
        "the account's MAX_USER_CONNECTIONS are in use (1226)",
        T,
        NE,
        exc,
        Q,
        {"sql": sel},
    )
    s.admin_sql("SET GLOBAL max_connections = 6")
    held: list[Any] = []
    exc = None
    try:
        for _ in range(40):
            held.append(s.connect())
    except pymysql.err.OperationalError as e:
        exc = e
    finally:
        for c in held:
            c.close()
        s.admin_sql("SET GLOBAL max_connections = 40")
    assert exc is not None
    yield Case(
        "pymysql-too-many-connections",
        LIBRARY,
        "server at max_connections (1040)",
        T,
        NE,
        exc,
        Q,
        {"sql": sel},
    )

    idle = s.connect()
    idle.cursor().execute("SET SESSION wait_timeout = 1")
    time.sleep(2.5)
    exc = _catch(lambda: idle.cursor().execute(sel))
    _close(idle)
    yield Case(
        "pymysql-idle-closed",
        LIBRARY,
        "the server closed the idle connection (wait_timeout) before the query (2006)",
        T,
        NE,
        exc,
        Q,
        {"sql": sel},
    )
    exc = _catch(
        lambda: pymysql.connect(
            host="127.0.0.1", port=s.ctx.dead, user="agent", password="x", connect_timeout=2
        )
    )
    yield Case("pymysql-refused", LIBRARY, "server not listening (2003)", T, NE, exc, Q, {"sql": sel})
    exc = _catch(
        lambda: pymysql.connect(
            host="mariadb.shop.invalid", port=3306, user="agent", password="x", connect_timeout=2
        )
    )
    yield Case("pymysql-dns", LIBRARY, "host name does not resolve (2003)", T, NE, exc, Q, {"sql": sel})
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    try:
        silent = listener.getsockname()[1]
        s.ctx.name_port(silent, "SILENTPORT")
        exc = _catch(
            lambda: pymysql.connect(
                host="127.0.0.1", port=silent, user="agent", password="x", connect_timeout=1, read_timeout=0.5
            )
        )
    finally:
        listener.close()
    yield Case(
        "pymysql-handshake-timeout",
        LIBRARY,
        "the server accepted the connection but sent no handshake (2013)",
        T,
        NE,
        exc,
        Q,
        {"sql": sel},
    )


def cases(ctx: Context) -> Iterator[Case]:
    with _mariadb(ctx) as port:
        s = _Server(ctx, port)
        s.admin_sql(*SCHEMA)
        for slug, cause, tool, args, fn in _model_calls(s):
            yield Case(f"pymysql-{slug}", LIBRARY, cause, F, None, _catch(fn), tool, args)
        yield from _conflicts(s)
        yield from _files(s)
        yield from _accounts(s)
        yield from _limits(s)
        yield from _contention(s)
        yield from _connections(s)
        _close(s.model_conn)
        _close(s.admin)
