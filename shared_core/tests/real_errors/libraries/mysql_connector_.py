# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""MySQL Connector/Python (``mysql-connector-python``, Oracle's client, its pure-Python
implementation: ``use_pure=True``) behind database tools, against a real MariaDB server
(``mariadbd`` from the Debian package mariadb-server, started by :mod:`libraries._mariadb`
in the module's temporary directory on a free 127.0.0.1 port): the server's error packets
as the connector maps them (``errors.ProgrammingError`` / ``DataError`` /
``IntegrityError`` / ``DatabaseError`` / ``InternalError`` / ``OperationalError`` with
``errno`` and SQLSTATE) and the connector's own errors (parameter processing, the binary
protocol of prepared statements, option files, pooling, timeouts, ``LOAD DATA LOCAL``,
authentication plugins, TLS).

The tools (database ``crm``, the account ``agent`` and its password are the tools'
configuration; each call opens its own connection): ``run_query`` (the model's SQL and
``params``), ``find_records`` (a prepared statement built from the model's table, WHERE
clause and parameters), ``get_record`` (a prepared ``SELECT`` by the model's id),
``insert_record`` / ``delete_record`` (statements built from the model's table, record and
id), ``create_table`` (DDL built from the model's column list, run by the schema account),
``call_procedure`` (``cursor.callproc``), ``switch_database``, ``connect_as`` (a profile the
model names, read from the tool's option file with ``option_groups``), ``run_report`` (the
reporting account in a READ ONLY session), ``export_snapshot`` (a read-only transaction),
``run_saved_query`` (SQL read from a file the model names), ``import_records`` (rows read
from a JSON file the model names, ``executemany``) and ``upload_csv`` (``LOAD DATA LOCAL
INFILE`` of a file in the uploads folder, ``allow_local_infile_in_path``).

Labels by the cause set up, with MariaDB's error reference
(https://mariadb.com/kb/en/mariadb-error-code-reference/) and the connector's
documentation (https://dev.mysql.com/doc/connector-python/en/connector-python-api-errors.html,
https://dev.mysql.com/doc/connector-python/en/connector-python-connectargs.html):

- fixable: the model's SQL (1064 a PostgreSQL ``ILIKE``, 1146 unknown table, 1054 unknown
  column, 1052 ambiguous column, 1305 unknown function), values it wrote that the schema
  refuses in strict mode (1406 too long, 1264 out of range, 1366 not a decimal, 1265 not
  one of the ENUM's values, 1364 a required column left out, 1054 a column the table lacks,
  4025 a JSON column's ``json_valid``), column definitions of ``create_table`` (1074 a
  VARCHAR too long, 4161 an unknown type, 1170 a TEXT key without a length, 1005 errno 150
  a foreign key whose type differs from the referenced column's), 1305 / 1318 a procedure
  name or argument count, 1049 a database that does not exist (as in the pymysql module:
  the tool lists the ``crm_*`` databases the account may use), a profile name not among
  the tool's profiles (the connector then logs in as the anonymous user: 1045), and the
  connector's checks of the parameters it passed (``Not enough parameters``, a missing
  named parameter ``KeyError``, an object or a list it cannot convert, parameters that are
  not a list, 1210 the parameter count of a prepared statement, an integer past 64 bits
  for the binary protocol ``struct.error``).
- ambiguous: conflicts with stored state (1062 duplicate entry, 1050 table exists, 1451 a
  row other rows reference, on DELETE and on UPDATE of the key), an account id the model
  named that does not exist (1452), a stored view broken by a later ALTER (1356), and bad
  data the tool READ where the model only named where to read: staging rows that are not
  amounts (1366 from ``INSERT ... SELECT``), a saved query with a syntax error or naming a
  table dropped since, a JSON file of records with a value out of range (1264), a
  duplicate (1062), an account id that does not exist (1452) or an object as a value, and a
  CSV file that is not in the uploads folder (the connector's "does not exist").
- unrecoverable: the configured credentials (1045), a profile whose account is locked
  (4151), whose password expired (1820), that authenticates with ed25519, a plugin the
  connector does not have (``NotSupportedError``), or whose configured character set the
  connector does not know; grants (1044 database, 1142 table, 1143 column, 1227 SUPER), a
  server running ``read_only`` (1290), a READ ONLY session (1792), the account's
  ``MAX_QUERIES_PER_HOUR`` used up (1226), ``LOAD DATA LOCAL`` not enabled in the client
  (4166), ``max_allowed_packet`` (1153), a MEMORY table at ``max_heap_table_size`` (1114),
  a read-only transaction the connector refuses to start on MariaDB (it reads the server
  version as 5.5.5, the prefix MariaDB sends: ``ValueError``), TLS required by the tool's
  configuration against a server without TLS (2026), and a configured port that is an SSH
  server (the handshake never parses: 2013).
- transient: 1205 lock wait timeout and NOWAIT, 1213 deadlock (the statement was rolled
  back: not executed), the account's ``MAX_USER_CONNECTIONS`` in use (1226), 1040 too many
  connections, an idle connection the server closed (``wait_timeout``: "MySQL Connection
  not available" when the tool asks for a cursor, 2055 "Lost connection" when it reuses
  its cursor), connection refused and a host name that
  does not resolve (2003), a server that accepts but sends no handshake
  (``ConnectionTimeoutError``) and a pool with every connection in use (``PoolError``), all
  not executed; the client's ``read_timeout`` (``ReadTimeoutError``), ``max_statement_time``
  (1969), ``KILL QUERY`` (1317) and ``KILL`` of the connection (2013) while the statement
  ran: unknown outcome.

Not triggered: ``LOAD DATA LOCAL`` data errors (LOCAL implies IGNORE: bad rows become
warnings), a file outside ``allow_local_infile_in_path`` (whether the model could have named
an allowed path is a guess), 1130 host not allowed (an account for ``%`` matches first),
a storage engine that is not installed (the model's choice or the installation's: a guess),
multi-statement strings (this connector version runs them), a statement too large to be
written before the server closes (the client reads 1153 or a reset, a race), "Unread result
found" and "Cursor is not connected" (the tool's own handling of its connection). The C
extension is not used: its texts come from libmysqlclient and it does not load on every
machine. Texts are MariaDB 10.11's (Debian 12).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _mariadb
from ._common import NE, UO, A, F, T, U, raw_server

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "mysql-connector-python"
REQUIRES = ["mysql-connector-python==26.10.0"]

Q, FIND, GETR, INS, DEL, MK, CALL, USE, AS, REP, SNAP, SAVED, IMPORT, UPLOAD = (
    "run_query",
    "find_records",
    "get_record",
    "insert_record",
    "delete_record",
    "create_table",
    "call_procedure",
    "switch_database",
    "connect_as",
    "run_report",
    "export_snapshot",
    "run_saved_query",
    "import_records",
    "upload_csv",
)
AGENT_PASSWORD = "agent-pw-31"
Fn = Callable[[], Any]


def available() -> str | None:
    return _mariadb.unavailable()


SCHEMA = (
    "CREATE DATABASE crm",
    "USE crm",
    "CREATE TABLE accounts (id INT PRIMARY KEY AUTO_INCREMENT, email VARCHAR(60) NOT NULL UNIQUE,"
    " company VARCHAR(30) NOT NULL, seats SMALLINT UNSIGNED NOT NULL DEFAULT 1,"
    " plan ENUM('starter','team','enterprise') NOT NULL DEFAULT 'starter', renews_on DATE,"
    " region VARCHAR(10), CONSTRAINT seats_cap CHECK (seats <= 5000)) ENGINE=InnoDB",
    "CREATE TABLE invoices (id INT PRIMARY KEY AUTO_INCREMENT, account_id INT NOT NULL,"
    " amount DECIMAL(10,2) NOT NULL, currency CHAR(3) NOT NULL DEFAULT 'EUR', line_items JSON,"
    " FOREIGN KEY (account_id) REFERENCES accounts(id)) ENGINE=InnoDB",
    "CREATE TABLE contacts (id INT PRIMARY KEY AUTO_INCREMENT, account_id INT NOT NULL,"
    " name VARCHAR(40) NOT NULL, phone VARCHAR(20),"
    " FOREIGN KEY (account_id) REFERENCES accounts(id)) ENGINE=InnoDB",
    "CREATE TABLE import_staging (ref VARCHAR(20), amount VARCHAR(20)) ENGINE=InnoDB",
    "CREATE TABLE tickets (id INT PRIMARY KEY, subject VARCHAR(80), status VARCHAR(10)) ENGINE=InnoDB",
    "CREATE TABLE events (id INT PRIMARY KEY AUTO_INCREMENT, note VARCHAR(60)) ENGINE=InnoDB",
    "INSERT INTO accounts (email, company, seats, plan, region) VALUES"
    " ('ops@acme.example', 'Acme', 40, 'team', 'eu'), ('it@globex.example', 'Globex', 12, 'starter', 'us')",
    "INSERT INTO invoices (account_id, amount) VALUES (1, 1200.00), (2, 90.00)",
    "INSERT INTO contacts (account_id, name) VALUES (1, 'Dana'), (2, 'Eli')",
    "INSERT INTO import_staging VALUES ('INV-1', '19.90'), ('INV-2', 'pending')",
    "INSERT INTO tickets VALUES (1, 'Printer offline', 'open'), (2, 'VPN drops', 'open')",
    "CREATE VIEW eu_accounts AS SELECT id, company, region FROM accounts WHERE region = 'eu'",
    "ALTER TABLE accounts DROP COLUMN region",
    "CREATE PROCEDURE extend_plan(IN aid INT, IN days INT)"
    " UPDATE accounts SET renews_on = DATE_ADD(COALESCE(renews_on, '2025-01-01'), INTERVAL days DAY) WHERE id = aid",
    "CREATE DATABASE hr",
    f"CREATE USER 'agent'@'%' IDENTIFIED BY '{AGENT_PASSWORD}'",
    "GRANT SELECT, INSERT, UPDATE, DELETE, EXECUTE ON crm.* TO 'agent'@'%'",
    "GRANT SELECT ON `crm\\_%`.* TO 'agent'@'%'",
    "CREATE USER 'schema_bot'@'%' IDENTIFIED BY 'schema-pw'",
    "GRANT CREATE, DROP, ALTER, INDEX, REFERENCES, SELECT ON crm.* TO 'schema_bot'@'%'",
    "CREATE USER 'analyst'@'%' IDENTIFIED BY 'analyst-pw'",
    "GRANT SELECT, INSERT ON crm.invoices TO 'analyst'@'%'",
    "GRANT SELECT (id, company) ON crm.accounts TO 'analyst'@'%'",
    "CREATE USER 'sync'@'%' IDENTIFIED BY 'sync-pw' WITH MAX_USER_CONNECTIONS 1",
    "GRANT SELECT ON crm.* TO 'sync'@'%'",
    "CREATE USER 'trial'@'%' IDENTIFIED BY 'trial-pw' WITH MAX_QUERIES_PER_HOUR 3",
    "GRANT SELECT ON crm.* TO 'trial'@'%'",
    "CREATE USER 'legacy'@'%' IDENTIFIED BY 'legacy-pw' PASSWORD EXPIRE",
    "GRANT SELECT ON crm.* TO 'legacy'@'%'",
    "CREATE USER 'contractor'@'%' IDENTIFIED BY 'contractor-pw' ACCOUNT LOCK",
    "CREATE USER 'ledger'@'%' IDENTIFIED VIA ed25519 USING PASSWORD('ledger-pw')",
    "GRANT SELECT ON crm.* TO 'ledger'@'%'",
    "CREATE USER 'billing'@'%' IDENTIFIED BY 'billing-pw'",
    "GRANT SELECT ON crm.* TO 'billing'@'%'",
    "CREATE USER 'writer'@'%' IDENTIFIED BY 'writer-pw'",
    "GRANT SELECT, INSERT ON crm.* TO 'writer'@'%'",
)


class Server:
    def __init__(self, ctx: Context, port: int) -> None:
        self.ctx, self.port = ctx, port
        self.opened: list[Any] = []
        self.admin = self.connect("root", "", database=None)

    def connect(
        self, user: str = "agent", password: str = AGENT_PASSWORD, database: str | None = "crm", **kw: Any
    ) -> Any:
        import mysql.connector

        kw.setdefault("use_pure", True)
        kw.setdefault("autocommit", True)
        kw.setdefault("connection_timeout", 5)
        return mysql.connector.connect(
            host="127.0.0.1", port=self.port, user=user, password=password, database=database, **kw
        )

    def admin_sql(self, *statements: str) -> None:
        cur = self.admin.cursor()
        for sql in statements:
            cur.execute(sql)

    def close_all(self) -> None:
        for conn in self.opened:
            _close(conn)
        self.opened.clear()


def _close(conn: Any) -> None:
    try:
        conn.close()
    except Exception:
        pass


class Tools:
    """The agent's tools, each call on a new connection of the configured account."""

    def __init__(self, s: Server, user: str = "agent", password: str = AGENT_PASSWORD, **kw: Any) -> None:
        self.s, self.user, self.password, self.kw = s, user, password, kw

    def conn(self) -> Any:
        conn = self.s.connect(self.user, self.password, **self.kw)
        self.s.opened.append(conn)  # closed once the case is recorded
        return conn

    def query(self, sql: str, params: Any = None) -> Fn:
        def run() -> Any:
            cur = self.conn().cursor()
            cur.execute(sql, params)
            return cur.fetchall() if cur.with_rows else cur.rowcount

        return run

    def find(self, table: str, where: str, params: list[Any]) -> Fn:
        def run() -> Any:
            cur = self.conn().cursor(prepared=True)
            cur.execute(f"SELECT * FROM `{table}` WHERE {where}", params)
            return cur.fetchall()

        return run

    def get(self, table: str, record_id: Any) -> Fn:
        def run() -> Any:
            cur = self.conn().cursor(prepared=True)
            cur.execute(f"SELECT * FROM `{table}` WHERE id = %s", (record_id,))
            return cur.fetchone()

        return run

    def insert(self, table: str, record: dict[str, Any]) -> Fn:
        cols = ", ".join(f"`{c}`" for c in record)
        marks = ", ".join(["%s"] * len(record))
        return self.query(f"INSERT INTO `{table}` ({cols}) VALUES ({marks})", tuple(record.values()))

    def delete(self, table: str, record_id: Any) -> Fn:
        return self.query(f"DELETE FROM `{table}` WHERE id = %s", (record_id,))

    def call(self, name: str, args: list[Any]) -> Fn:
        return lambda: self.conn().cursor().callproc(name, args)

    def use(self, database: str) -> Fn:
        def run() -> Any:
            conn = self.conn()
            conn.database = database

        return run


def create_table_sql(name: str, columns: list[dict[str, Any]], primary_key: list[str] | None = None) -> str:
    parts = []
    for col in columns:
        text = f"`{col['name']}` {col['type']}"
        if col.get("nullable") is False:
            text += " NOT NULL"
        if "default" in col:
            text += (
                f" DEFAULT {col['default']!r}"
                if isinstance(col["default"], str)
                else f" DEFAULT {col['default']}"
            )
        if "references" in col:
            table, column = col["references"].split(".")
            parts.append(text)
            text = f"FOREIGN KEY (`{col['name']}`) REFERENCES `{table}` (`{column}`)"
        parts.append(text)
    if primary_key:
        parts.append("PRIMARY KEY (" + ", ".join(f"`{c}`" for c in primary_key) + ")")
    return f"CREATE TABLE `{name}` (" + ", ".join(parts) + ") ENGINE=InnoDB"


def _model_calls(s: Server, case: Callable[..., Case]) -> Iterator[Case]:
    t = Tools(s)

    def q(slug: str, cause: str, sql: str, params: Any = None) -> Case:
        args: dict[str, Any] = {"sql": sql}
        if params is not None:
            args["params"] = params
        return case(slug, cause, F, None, _catch(t.query(sql, params)), Q, args)

    yield q(
        "sql-ilike",
        "PostgreSQL's ILIKE, not MariaDB syntax (1064)",
        "SELECT * FROM accounts WHERE company ILIKE 'acme%'",
    )
    yield q("sql-unknown-table", "table name the model invented (1146)", "SELECT * FROM customers")
    yield q(
        "sql-unknown-column", "column name the model invented (1054)", "SELECT id, full_name FROM contacts"
    )
    yield q(
        "sql-ambiguous-column",
        "unqualified column of two joined tables (1052)",
        "SELECT id, amount FROM invoices JOIN accounts ON accounts.id = invoices.account_id",
    )
    yield q(
        "sql-unknown-function",
        "PostgreSQL's STRING_AGG, not a MariaDB function (1305)",
        "SELECT account_id, STRING_AGG(name, ', ') FROM contacts GROUP BY account_id",
    )
    yield q(
        "params-too-few",
        "two placeholders, one parameter",
        "SELECT * FROM accounts WHERE plan = %s AND seats > %s",
        ["team"],
    )
    yield q(
        "params-named-missing",
        "named placeholder not among the parameters",
        "SELECT * FROM invoices WHERE account_id = %(account_id)s",
        {"account": 1},
    )
    yield q(
        "params-object",
        "an object as a parameter value",
        "SELECT * FROM accounts WHERE email = %s",
        [{"email": "ops@acme.example"}],
    )
    yield q(
        "params-not-a-list",
        "parameters given as a string, not a list",
        "SELECT * FROM contacts WHERE account_id = %s",
        "1",
    )
    yield case(
        "find-prepared-count",
        "one parameter for a prepared statement with two (1210)",
        F,
        None,
        _catch(t.find("invoices", "amount > %s AND currency = %s", [100])),
        FIND,
        {"table": "invoices", "where": "amount > %s AND currency = %s", "params": [100]},
    )
    yield case(
        "get-id-too-large",
        "an id past 64 bits for the binary protocol (struct.error)",
        F,
        None,
        _catch(t.get("accounts", 2**70)),
        GETR,
        {"table": "accounts", "id": 2**70},
    )

    def ins(slug: str, cause: str, table: str, record: dict[str, Any]) -> Case:
        return case(
            slug, cause, F, None, _catch(t.insert(table, record)), INS, {"table": table, "record": record}
        )

    yield ins(
        "insert-too-long",
        "company longer than VARCHAR(30) (1406)",
        "accounts",
        {"email": "team@initech.example", "company": "Initech Software Solutions International"},
    )
    yield ins(
        "insert-out-of-range",
        "seats above SMALLINT UNSIGNED (1264)",
        "accounts",
        {"email": "it@umbrella.example", "company": "Umbrella", "seats": 70000},
    )
    yield ins(
        "insert-bad-decimal",
        "amount written with a currency sign (1366)",
        "invoices",
        {"account_id": 1, "amount": "€120.00"},
    )
    yield ins(
        "insert-enum",
        "plan not one of the ENUM's values (1265)",
        "accounts",
        {"email": "it@hooli.example", "company": "Hooli", "plan": "premium"},
    )
    yield ins(
        "insert-missing-required",
        "NOT NULL column without a default left out (1364)",
        "contacts",
        {"account_id": 1, "phone": "+1 555 0100"},
    )
    yield ins(
        "insert-unknown-column",
        "a column the table does not have (1054)",
        "contacts",
        {"account_id": 2, "name": "Fay", "email": "fay@globex.example"},
    )
    yield ins(
        "insert-invalid-json",
        "line_items given text that is not JSON (4025 json_valid)",
        "invoices",
        {"account_id": 2, "amount": "45.00", "line_items": "[{sku: 'A1'}]"},
    )
    yield ins(
        "insert-list-value",
        "a list as a column value",
        "contacts",
        {"account_id": 1, "name": "Gil", "phone": ["+1 555 0101", "+1 555 0102"]},
    )

    def mk(slug: str, cause: str, name: str, columns: list[dict[str, Any]], pk: list[str]) -> Case:
        ddl = Tools(s, "schema_bot", "schema-pw").query(create_table_sql(name, columns, pk))
        args = {"name": name, "columns": columns, "primary_key": pk}
        return case(slug, cause, F, None, _catch(ddl), MK, args)

    yield mk(
        "create-varchar-too-long",
        "VARCHAR(300000), past the maximum (1074)",
        "notes",
        [{"name": "id", "type": "INT"}, {"name": "body", "type": "VARCHAR(300000)"}],
        ["id"],
    )
    yield mk(
        "create-unknown-type",
        "STRING, not a MariaDB type (4161)",
        "notes",
        [{"name": "id", "type": "INT"}, {"name": "body", "type": "STRING"}],
        ["id"],
    )
    yield mk(
        "create-text-key",
        "a TEXT column as primary key without a length (1170)",
        "tags",
        [{"name": "label", "type": "TEXT"}, {"name": "color", "type": "CHAR(7)"}],
        ["label"],
    )
    yield mk(
        "create-foreign-key-type",
        "a VARCHAR column referencing the INT accounts.id (1005 errno 150)",
        "renewals",
        [
            {"name": "id", "type": "INT"},
            {"name": "account_id", "type": "VARCHAR(12)", "references": "accounts.id"},
        ],
        ["id"],
    )
    yield case(
        "call-unknown-procedure",
        "procedure name the model invented (1305)",
        F,
        None,
        _catch(t.call("extend_subscription", [1, 30])),
        CALL,
        {"name": "extend_subscription", "args": [1, 30]},
    )
    yield case(
        "call-argument-count",
        "one argument for a two-argument procedure (1318)",
        F,
        None,
        _catch(t.call("extend_plan", [1])),
        CALL,
        {"name": "extend_plan", "args": [1]},
    )
    yield case(
        "use-unknown-database",
        "database name the model made up (1049)",
        F,
        None,
        _catch(t.use("crm_archive")),
        USE,
        {"database": "crm_archive"},
    )


def _profiles(s: Server) -> Path:
    path = s.ctx.tmp / "profiles.cnf"
    path.write_text(
        "[client]\n"
        "host = 127.0.0.1\n"
        f"port = {s.port}\n"
        "database = crm\n"
        "\n[billing]\nuser = billing\npassword = billing-pw\n"
        "\n[contractor]\nuser = contractor\npassword = contractor-pw\n"
        "\n[legacy]\nuser = legacy\npassword = legacy-pw\n"
        "\n[ledger]\nuser = ledger\npassword = ledger-pw\n"
        "\n[mainframe]\nuser = billing\npassword = billing-pw\ncharset = ebcdic37\n"
    )
    return path


def _connect_as(s: Server, profile: str) -> Fn:
    import mysql.connector

    path = _profiles(s)

    def run() -> Any:
        conn = mysql.connector.connect(
            option_files=str(path), option_groups=["client", profile], use_pure=True
        )
        s.opened.append(conn)
        cur = conn.cursor()
        cur.execute("SELECT CURRENT_USER()")
        return cur.fetchall()

    return run


def _conflicts(s: Server, case: Callable[..., Case]) -> Iterator[Case]:
    t = Tools(s)
    record = {"email": "ops@acme.example", "company": "Acme Corp"}
    yield case(
        "insert-duplicate-email",
        "an account with this email already exists (1062)",
        A,
        None,
        _catch(t.insert("accounts", record)),
        INS,
        {"table": "accounts", "record": record},
    )
    sql = "UPDATE accounts SET email = 'ops@acme.example' WHERE id = 2"
    yield case(
        "update-duplicate-email",
        "another account already has this email (1062)",
        A,
        None,
        _catch(t.query(sql)),
        Q,
        {"sql": sql},
    )
    record = {"account_id": 404, "amount": "15.00"}
    yield case(
        "insert-unknown-account",
        "the account id the model named does not exist (1452)",
        A,
        None,
        _catch(t.insert("invoices", record)),
        INS,
        {"table": "invoices", "record": record},
    )
    yield case(
        "delete-referenced",
        "the account still has invoices (1451)",
        A,
        None,
        _catch(t.delete("accounts", 1)),
        DEL,
        {"table": "accounts", "id": 1},
    )
    sql = "UPDATE accounts SET id = 100 WHERE id = 2"
    yield case(
        "update-referenced-key",
        "renumbering an account other rows reference (1451)",
        A,
        None,
        _catch(t.query(sql)),
        Q,
        {"sql": sql},
    )
    columns = [{"name": "id", "type": "INT"}, {"name": "name", "type": "VARCHAR(40)"}]
    yield case(
        "create-table-exists",
        "a table with this name already exists (1050)",
        A,
        None,
        _catch(Tools(s, "schema_bot", "schema-pw").query(create_table_sql("contacts", columns, ["id"]))),
        MK,
        {"name": "contacts", "columns": columns, "primary_key": ["id"]},
    )
    yield case(
        "view-broken",
        "a stored view references a column dropped since (1356)",
        A,
        None,
        _catch(t.query("SELECT * FROM eu_accounts")),
        Q,
        {"sql": "SELECT * FROM eu_accounts"},
    )
    sql = "INSERT INTO invoices (account_id, amount) SELECT 1, amount FROM import_staging"
    yield case(
        "insert-select-staging",
        "a staged row holds 'pending' as an amount (1366)",
        A,
        None,
        _catch(t.query(sql)),
        Q,
        {"sql": sql},
    )


def _files(s: Server, case: Callable[..., Case]) -> Iterator[Case]:
    ctx = s.ctx
    t = Tools(s)
    (ctx.tmp / "queries").mkdir()
    saved = {
        "churn_by_plan": "SELECT plan, count(*) AS n FROM accounts GROUP BY plan ORDER BY n DESC LIMT 10",
        "overdue_invoices": "SELECT i.id, i.amount FROM invoices i JOIN payment_runs p ON p.invoice_id = i.id",
    }
    for name, sql in saved.items():
        (ctx.tmp / "queries" / f"{name}.sql").write_text(sql + "\n")

    def run_saved(name: str) -> Fn:
        return lambda: t.query((ctx.tmp / "queries" / f"{name}.sql").read_text())()

    yield case(
        "saved-query-syntax",
        "the saved query holds a syntax error (1064)",
        A,
        None,
        _catch(run_saved("churn_by_plan")),
        SAVED,
        {"name": "churn_by_plan"},
    )
    yield case(
        "saved-query-missing-table",
        "the saved query joins a table not in the database (1146)",
        A,
        None,
        _catch(run_saved("overdue_invoices")),
        SAVED,
        {"name": "overdue_invoices"},
    )

    (ctx.tmp / "imports").mkdir()
    batches = {
        "accounts-2024-07.json": (
            "accounts",
            [{"email": "a@soylent.example", "company": "Soylent", "seats": 120000}],
        ),
        "accounts-2024-08.json": (
            "accounts",
            [
                {"email": "b@tyrell.example", "company": "Tyrell"},
                {"email": "it@globex.example", "company": "Globex"},
            ],
        ),
        "invoices-2024-08.json": ("invoices", [{"account_id": 77, "amount": "310.00"}]),
        "contacts-2024-08.json": (
            "contacts",
            [{"account_id": 2, "name": "Hal", "phone": {"work": "+1 555 0199"}}],
        ),
    }
    for name, (_table, rows) in batches.items():
        (ctx.tmp / "imports" / name).write_text(json.dumps(rows))

    def import_records(name: str, table: str) -> Fn:
        def run() -> Any:
            rows = json.loads((ctx.tmp / "imports" / name).read_text())
            cols = list(rows[0])
            sql = f"INSERT INTO `{table}` ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))})"
            conn = t.conn()
            conn.autocommit = False
            cur = conn.cursor()
            try:
                cur.executemany(sql, [tuple(r.get(c) for c in cols) for r in rows])
                conn.commit()
            finally:
                conn.rollback()

        return run

    for slug, name, cause in [
        (
            "import-out-of-range",
            "accounts-2024-07.json",
            "a record's seats are above SMALLINT UNSIGNED (1264)",
        ),
        ("import-duplicate", "accounts-2024-08.json", "a record's email is already an account's (1062)"),
        (
            "import-unknown-account",
            "invoices-2024-08.json",
            "a record names an account id that does not exist (1452)",
        ),
        ("import-object-value", "contacts-2024-08.json", "a record's phone is an object"),
    ]:
        table = batches[name][0]
        exc = _catch(import_records(name, table))
        yield case(slug, cause, A, None, exc, IMPORT, {"path": f"imports/{name}", "table": table})

    uploads = ctx.tmp / "uploads"
    uploads.mkdir()
    loader = Tools(s, allow_local_infile_in_path=str(uploads))
    path = uploads / "tickets-2024-08.csv"
    sql = f"LOAD DATA LOCAL INFILE '{path}' INTO TABLE tickets FIELDS TERMINATED BY ','"
    yield case(
        "upload-file-missing",
        "the CSV file the model named is not in the uploads folder",
        A,
        None,
        _catch(loader.query(sql)),
        UPLOAD,
        {"path": "uploads/tickets-2024-08.csv", "table": "tickets"},
    )


def _accounts(s: Server, case: Callable[..., Case]) -> Iterator[Case]:
    sel = {"sql": "SELECT * FROM accounts"}
    yield case(
        "wrong-password",
        "the configured password is wrong (1045)",
        U,
        None,
        _catch(Tools(s, password="agent-pw-13").query(sel["sql"])),
        Q,
        sel,
    )
    for slug, profile, cause, kind in [
        ("profile-unknown", "sales", "a profile not among the tool's profiles: anonymous login (1045)", F),
        ("profile-locked", "contractor", "the profile's account is locked (4151)", U),
        ("profile-expired", "legacy", "the profile's account password has expired (1820)", U),
        ("profile-ed25519", "ledger", "the profile's account uses ed25519, which the connector lacks", U),
        (
            "profile-charset",
            "mainframe",
            "the profile's configured character set is unknown to the connector",
            U,
        ),
    ]:
        yield case(slug, cause, kind, None, _catch(_connect_as(s, profile)), AS, {"profile": profile})
    yield case(
        "database-denied",
        "the account has no grant on the database (1044)",
        U,
        None,
        _catch(Tools(s).use("hr")),
        USE,
        {"database": "hr"},
    )
    report = Tools(s, "analyst", "analyst-pw")

    def in_read_only_session(sql: str) -> Fn:
        def run() -> Any:
            conn = report.conn()
            cur = conn.cursor()
            cur.execute("SET SESSION TRANSACTION READ ONLY")
            conn.autocommit = False
            try:
                cur.execute(sql)
                return cur.fetchall() if cur.with_rows else cur.rowcount
            finally:
                conn.rollback()

        return run

    for slug, cause, sql in [
        (
            "report-table-denied",
            "the reporting account has no grant on the table (1142)",
            "SELECT * FROM contacts",
        ),
        (
            "report-column-denied",
            "the reporting account has no grant on the column (1143)",
            "SELECT company, plan FROM accounts",
        ),
        (
            "report-read-only",
            "the report session's transactions are READ ONLY (1792)",
            "INSERT INTO invoices (account_id, amount) VALUES (1, 5.00)",
        ),
    ]:
        yield case(slug, cause, U, None, _catch(in_read_only_session(sql)), REP, {"sql": sql})
    sql = "SET GLOBAL max_connections = 500"
    yield case(
        "super-denied",
        "the account lacks SUPER (1227)",
        U,
        None,
        _catch(Tools(s).query(sql)),
        Q,
        {"sql": sql},
    )
    record = {"note": "nightly sync done"}
    writer = Tools(s, "writer", "writer-pw")
    conn = writer.conn()
    s.admin_sql("SET GLOBAL read_only = ON")
    try:
        exc = _catch(
            lambda: conn.cursor().execute("INSERT INTO `events` (`note`) VALUES (%s)", ("nightly sync done",))
        )
    finally:
        s.admin_sql("SET GLOBAL read_only = OFF")
    yield case(
        "read-only-server",
        "server running with --read-only (1290)",
        U,
        None,
        exc,
        INS,
        {"table": "events", "record": record},
    )
    trial = Tools(s, "trial", "trial-pw")
    conn = trial.conn()
    cur = conn.cursor()
    sql = "SELECT count(*) FROM invoices"

    def use_up() -> None:
        for _ in range(6):
            cur.execute(sql)
            cur.fetchall()

    yield case(
        "queries-per-hour",
        "the account's MAX_QUERIES_PER_HOUR is used up (1226)",
        U,
        None,
        _catch(use_up),
        Q,
        {"sql": sql},
    )
    sql = f"LOAD DATA LOCAL INFILE '{s.ctx.tmp / 'uploads' / 'tickets.csv'}' INTO TABLE tickets"
    (s.ctx.tmp / "uploads" / "tickets.csv").write_text("3\tPrinter jam\topen\n")
    yield case(
        "local-infile-disabled",
        "LOAD DATA LOCAL not enabled in the client (4166)",
        U,
        None,
        _catch(Tools(s).query(sql)),
        Q,
        {"sql": "LOAD DATA LOCAL INFILE 'uploads/tickets.csv' INTO TABLE tickets"},
    )
    yield case(
        "snapshot-read-only",
        "the connector will not start a read-only transaction on MariaDB (version read as 5.5.5)",
        U,
        None,
        _catch(lambda: Tools(s).conn().start_transaction(consistent_snapshot=True, readonly=True)),
        SNAP,
        {"tables": ["accounts", "invoices"]},
    )
    yield case(
        "tls-required",
        "the tool requires TLS; the server offers none (2026)",
        U,
        None,
        _catch(lambda: s.connect(ssl_verify_cert=True, ssl_ca="/etc/ssl/certs/ca-certificates.crt")),
        Q,
        sel,
    )


def _limits(s: Server, case: Callable[..., Case]) -> Iterator[Case]:
    t = Tools(s)
    conn = t.conn()
    cur = conn.cursor()

    def fill() -> None:
        for i in range(1000):
            cur.execute("INSERT INTO `session_cache` (`k`, `v`) VALUES (%s, %s)", (f"s{i}", "v" * 900))

    args = {"table": "session_cache", "record": {"k": "s_next", "v": "<900 characters>"}}
    # a MEMORY table takes max_heap_table_size from the session that creates it
    s.admin_sql(
        "SET SESSION max_heap_table_size = 65536",
        "CREATE TABLE crm.session_cache (k VARCHAR(64), v VARCHAR(1000)) ENGINE=MEMORY",
        "SET SESSION max_heap_table_size = DEFAULT",
    )
    exc = _catch(fill)
    yield case("memory-table-full", "MEMORY table at max_heap_table_size (1114)", U, None, exc, INS, args)
    s.admin_sql("SET GLOBAL max_allowed_packet = 16384")
    try:
        exc = _catch(Tools(s).insert("events", {"note": "x" * 20_000}))
    finally:
        s.admin_sql("SET GLOBAL max_allowed_packet = 16777216")
    yield case(
        "packet-too-large",
        "statement larger than the server's max_allowed_packet (1153)",
        U,
        None,
        exc,
        INS,
        {"table": "events", "record": {"note": "<20000 characters>"}},
    )

    def ssh(conn: socket.socket) -> None:
        conn.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n")
        time.sleep(1)

    import mysql.connector

    with raw_server(ssh) as port:
        s.ctx.name_port(port, "SSHPORT")
        exc = _catch(
            lambda: mysql.connector.connect(
                host="127.0.0.1", port=port, user="agent", password="x", use_pure=True, connection_timeout=3
            )
        )
    yield case(
        "port-is-ssh", "the configured port is an SSH server (2013)", U, None, exc, Q, {"sql": "SELECT 1"}
    )


def _contention(s: Server, case: Callable[..., Case]) -> Iterator[Case]:
    holder = s.connect("root", "", autocommit=False)
    hcur = holder.cursor()
    waiter = s.connect(autocommit=False)
    wcur = waiter.cursor()
    wcur.execute("SET SESSION innodb_lock_wait_timeout = 1")
    hcur.execute("UPDATE tickets SET status = 'held' WHERE id = 1")
    sql = "UPDATE tickets SET status = 'closed' WHERE id = 1"
    exc = _catch(lambda: wcur.execute(sql))
    waiter.rollback()
    yield case("lock-wait-timeout", "row locked by another transaction (1205)", T, NE, exc, Q, {"sql": sql})
    sql = "SELECT * FROM tickets WHERE id = 1 FOR UPDATE NOWAIT"
    exc = _catch(lambda: (wcur.execute(sql), wcur.fetchall()))
    waiter.rollback()
    yield case("nowait", "NOWAIT on a row another transaction holds (1205)", T, NE, exc, Q, {"sql": sql})

    wcur.execute("SET SESSION innodb_lock_wait_timeout = 20")
    sql = "UPDATE tickets SET status = 'pending' WHERE id = 1"
    for slug, cause, kill in [
        ("killed-query", "the running statement was killed (1317)", "KILL QUERY"),
        ("killed-connection", "the connection was killed mid-statement (2013)", "KILL"),
    ]:
        victim = waiter.connection_id
        killer = threading.Timer(0.4, lambda: s.admin_sql(f"{kill} {victim}"))
        killer.start()
        exc = _catch(lambda: wcur.execute(sql))
        killer.join()
        yield case(slug, cause, T, UO, exc, Q, {"sql": sql})
        if slug == "killed-query":
            waiter.rollback()
    timed = Tools(s, read_timeout=1)
    yield case(
        "read-timeout",
        "no reply within the client's read_timeout",
        T,
        UO,
        _catch(timed.query(sql)),
        Q,
        {"sql": sql},
    )
    holder.rollback()

    # a deadlock: b (fewer changes, the victim) waits for a's row while a waits for b's
    a = s.connect("root", "", database="crm", autocommit=False)
    b = s.connect(autocommit=False)
    acur, bcur = a.cursor(), b.cursor()
    acur.executemany("INSERT INTO events (note) VALUES (%s)", [(f"batch {i}",) for i in range(20)])
    acur.execute("UPDATE tickets SET status = 'a' WHERE id = 1")
    bcur.execute("UPDATE tickets SET status = 'b' WHERE id = 2")
    started = threading.Event()

    def other() -> None:
        started.set()
        try:
            acur.execute("UPDATE tickets SET status = 'a' WHERE id = 2")
        finally:
            a.rollback()

    thread = threading.Thread(target=other)
    thread.start()
    started.wait(5)
    time.sleep(0.5)
    sql = "UPDATE tickets SET status = 'b' WHERE id = 1"
    exc = _catch(lambda: bcur.execute(sql))
    b.rollback()
    thread.join()
    yield case("deadlock", "deadlock with another transaction (1213)", T, NE, exc, Q, {"sql": sql})

    sql = "SELECT count(*) FROM seq_1_to_100000 a JOIN seq_1_to_100000 b ON a.seq + b.seq = 3"
    slow = s.connect()
    slow.cursor().execute("SET SESSION max_statement_time = 0.3")
    exc = _catch(lambda: (lambda cur: (cur.execute(sql), cur.fetchall()))(slow.cursor()))
    yield case(
        "statement-time", "statement stopped at max_statement_time (1969)", T, UO, exc, Q, {"sql": sql}
    )


def _connections(s: Server, case: Callable[..., Case]) -> Iterator[Case]:
    import mysql.connector
    from mysql.connector import pooling

    sel = {"sql": "SELECT * FROM accounts"}
    first = s.connect("sync", "sync-pw")
    yield case(
        "user-connection-limit",
        "the account's MAX_USER_CONNECTIONS are in use (1226)",
        T,
        NE,
        _catch(Tools(s, "sync", "sync-pw").query(sel["sql"])),
        Q,
        sel,
    )
    first.close()
    s.admin_sql("SET GLOBAL max_connections = 8")
    held: list[Any] = []
    exc: BaseException | None = None
    try:
        for _ in range(40):
            held.append(s.connect("billing", "billing-pw"))
    except mysql.connector.Error as e:
        exc = e
    finally:
        for c in held:
            c.close()
        s.admin_sql("SET GLOBAL max_connections = 60")
    assert exc is not None
    yield case("too-many-connections", "server at max_connections (1040)", T, NE, exc, Q, sel)

    idle = s.connect()
    idle.cursor().execute("SET SESSION wait_timeout = 1")
    time.sleep(2.5)

    def on_idle() -> Any:
        cur = idle.cursor()
        cur.execute(sel["sql"])
        return cur.fetchall()

    yield case(
        "idle-closed",
        "the server closed the idle connection (wait_timeout) before the query",
        T,
        NE,
        _catch(on_idle),
        Q,
        sel,
    )
    # a tool that keeps its session (and cursor) between calls writes the query to a
    # connection the server already closed
    kept = s.connect()
    kcur = kept.cursor()
    kcur.execute("SET SESSION wait_timeout = 1")
    time.sleep(2.5)
    yield case(
        "idle-gone-kept-cursor",
        "the server closed the idle session (wait_timeout) before the query was sent",
        T,
        NE,
        _catch(lambda: kcur.execute(sel["sql"])),
        Q,
        sel,
    )
    _close(kept)
    pool = pooling.MySQLConnectionPool(
        pool_name="crm_tools",
        pool_size=1,
        host="127.0.0.1",
        port=s.port,
        user="agent",
        password=AGENT_PASSWORD,
        database="crm",
        use_pure=True,
    )
    busy = pool.get_connection()
    yield case(
        "pool-exhausted",
        "every connection of the tool's pool is in use",
        T,
        NE,
        _catch(pool.get_connection),
        Q,
        sel,
    )
    busy.close()
    yield case(
        "refused",
        "server not listening (2003)",
        T,
        NE,
        _catch(
            lambda: mysql.connector.connect(
                host="127.0.0.1",
                port=s.ctx.dead,
                user="agent",
                password="x",
                use_pure=True,
                connection_timeout=2,
            )
        ),
        Q,
        sel,
    )
    yield case(
        "dns",
        "host name does not resolve (2003)",
        T,
        NE,
        _catch(
            lambda: mysql.connector.connect(
                host="mariadb.crm.invalid",
                port=3306,
                user="agent",
                password="x",
                use_pure=True,
                connection_timeout=2,
            )
        ),
        Q,
        sel,
    )
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    try:
        silent = listener.getsockname()[1]
        s.ctx.name_port(silent, "SILENTPORT")
        exc = _catch(
            lambda: mysql.connector.connect(
                host="127.0.0.1", port=silent, user="agent", password="x", use_pure=True, connection_timeout=1
            )
        )
    finally:
        listener.close()
    yield case(
        "handshake-timeout",
        "the server accepted the connection but sent no handshake",
        T,
        NE,
        exc,
        Q,
        sel,
    )


def cases(ctx: Context) -> Iterator[Case]:
    def case(
        slug: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> Case:
        return Case(f"mysql-connector-{slug}", LIBRARY, cause, kind, outcome, exc, tool, args)

    extra = ("--max-connections=60", "--plugin-load-add=auth_ed25519")
    with _mariadb.server(ctx.tmp, *extra) as (port, _base):
        ctx.name_port(port, "MARIADBPORT")
        s = Server(ctx, port)
        s.admin_sql(*SCHEMA)
        for part in (_model_calls, _conflicts, _files, _accounts, _limits, _contention, _connections):
            for c in part(s, case):
                yield c
                s.close_all()
        s.close_all()
        _close(s.admin)
