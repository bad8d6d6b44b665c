"""clickhouse-connect: ClickHouse's official Python driver (HTTP interface) behind an
analytics tool, ``clickhouse_connect.get_client(host=..., port=...)`` pointed at a local
stand-in of a ClickHouse server's HTTP port. Debian's ``clickhouse-server`` (18.16, from
2018) cannot serve this driver (its ``system.settings`` has no ``readonly`` column, which
the driver reads when it connects), so the stand-in answers the driver's connection queries
(``SELECT version(), timezone()``, ``system.settings`` in the Native format) and a
``DESCRIBE TABLE`` as a 24.8 server does, and every other query with the error it was set
up to send.

Errors are sent as ClickHouse's HTTP handler sends them: the status that
``exceptionCodeToHTTPStatus`` gives the exception code (src/Server/HTTP/
exceptionCodeToHTTPStatus.cpp: 403 for ``AUTHENTICATION_FAILED`` / ``ACCESS_DENIED``, 400
for ``SYNTAX_ERROR`` and the parse / type errors, 404 for the ``UNKNOWN_*`` codes, 408
``TIMEOUT_EXCEEDED``, 503 ``SOCKET_TIMEOUT`` / ``CANNOT_SCHEDULE_TASK``, 500 for the
rest), the ``X-ClickHouse-Exception-Code`` header, and the body ``Code: N.
DB::Exception: <message>. (<NAME>) (version 24.8.4.13 (official build))`` with the codes of
src/Common/ErrorCodes.cpp (clickhouse.com/docs/interfaces/http, "Exceptions";
clickhouse.com/docs/operations/error-codes). The driver raises ``DatabaseError``
("Received ClickHouse exception, code: N, server response: ..."), ``OperationalError``
when its retry of a 429 / 503 / 504 runs out or the transport fails, ``ProgrammingError``
for what it checks itself, ``ValueError`` / ``KeyError`` from its own serialising of the
rows and binding of client-side parameters, and ``StreamFailureError`` when a 200 reply
cannot be read as the Native format.

Labels, by the cause set up:

- fixable: SQL the model wrote that the server refuses (syntax, a column that is not in
  the table, a function that does not exist, an argument of the wrong type or number, a
  column neither aggregated nor grouped, a date it cannot parse, a query parameter left
  unset, branches of ``if()`` without a common type, a setting, output format, table
  engine or data type name that does not exist, a result over the user's row limit: add a
  ``LIMIT``), rows the model wrote that span more partitions than one insert may, CSV rows
  the model wrote that the server cannot parse, and the driver's checks (a column not in the table, a value that
  does not fit the column's type, a client-side parameter missing);
- unrecoverable: ``AUTHENTICATION_FAILED``, ``ACCESS_DENIED`` (INSERT, SELECT, CREATE
  grants), ``READONLY`` (a user set to
  readonly), ``QUOTA_EXCEEDED`` over a 24-hour interval, ``NOT_ENOUGH_SPACE`` (disk full), a
  tool set up with a compression method the driver does not have;
- ambiguous: ``UNKNOWN_TABLE`` / ``UNKNOWN_DATABASE`` of a table or database the model
  named (mistyped or dropped; in a query, a DROP or an insert), ``TABLE_ALREADY_EXISTS``,
  ``DATABASE_ALREADY_EXISTS``, a column that already exists, a CSV or JSON lines FILE the
  tool read (the model named only its path) that the server cannot parse, ``LOGICAL_ERROR`` (a server bug), ``TIMEOUT_EXCEEDED`` and
  ``MEMORY_LIMIT_EXCEEDED`` (for query) of a read (too heavy a query, or a loaded server:
  the call cannot tell), and replies the driver cannot read (an HTML page, a Native block
  cut off);
- transient: ``TOO_MANY_SIMULTANEOUS_QUERIES``, ``MEMORY_LIMIT_EXCEEDED`` (total: the other
  queries' memory), ``TOO_MANY_PARTS`` (inserts faster than merges), ``DEADLOCK_AVOIDED``
  ("Client should retry"), ``ALL_CONNECTION_TRIES_FAILED`` of a shard, refused, DNS -> not
  executed; ``KEEPER_EXCEPTION`` connection loss during an insert, ``SOCKET_TIMEOUT`` (503,
  after the driver's retries), a proxy's 504 page (after the driver's retries), read
  timeout, reset, close (after the driver's one replay) -> unknown outcome.

Not triggered: the exceptions that newer servers write into a response already under way
(``X-ClickHouse-Exception-Tag``: the driver asks the server to wait for the end of a
query, which then reports with a status), and the native TCP protocol (another driver).
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import generate

from libraries import _saas
from libraries._saas import NE, UO, A, F, Reply, T, U

LIBRARY = "clickhouse-connect"
REQUIRES = ["clickhouse-connect==1.12.0"]

_VERSION = "24.8.4.13"
_HTTP = "ClickHouse HTTP interface, exceptions (clickhouse.com/docs/interfaces/http); status from src/Server/HTTP/exceptionCodeToHTTPStatus.cpp"  # fmt: skip
_CODES = "ClickHouse error codes (src/Common/ErrorCodes.cpp, clickhouse.com/docs/operations/error-codes)"

# exceptionCodeToHTTPStatus: the codes that are not a 500
_STATUS = {
    "AUTHENTICATION_FAILED": 403, "ACCESS_DENIED": 403, "UNKNOWN_USER": 403, "REQUIRED_PASSWORD": 401,
    "SYNTAX_ERROR": 400, "CANNOT_PARSE_INPUT_ASSERTION_FAILED": 400, "CANNOT_PARSE_DATETIME": 400,
    "CANNOT_PARSE_TEXT": 400, "TYPE_MISMATCH": 400, "ILLEGAL_COLUMN": 400, "BAD_ARGUMENTS": 400,
    "DUPLICATE_COLUMN": 400, "UNKNOWN_TABLE": 404, "UNKNOWN_FUNCTION": 404, "UNKNOWN_IDENTIFIER": 404,
    "UNKNOWN_TYPE": 404, "UNKNOWN_STORAGE": 404, "UNKNOWN_DATABASE": 404, "UNKNOWN_SETTING": 404,
    "UNKNOWN_FORMAT": 404, "TIMEOUT_EXCEEDED": 408, "SOCKET_TIMEOUT": 503, "CANNOT_SCHEDULE_TASK": 503,
}  # fmt: skip


def _ch(code: int, name: str, message: str, source: str = f"{_HTTP}; {_CODES}") -> Reply:
    """ClickHouse's error reply for exception ``code`` / ``name``."""
    body = f"Code: {code}. DB::Exception: {message}. ({name}) (version {_VERSION} (official build))\n"
    headers = {
        "X-ClickHouse-Exception-Code": str(code),
        "X-ClickHouse-Server-Display-Name": "ch-prod-1",
        "X-ClickHouse-Query-Id": "5b9f2a4e-31c7-4d0e-9a61-0c2f7e8d4b13",
        "X-ClickHouse-Timezone": "UTC",
        "Keep-Alive": "timeout=10",
    }
    return Reply(_STATUS.get(name, 500), body, headers, source, "text/plain; charset=UTF-8")


def _leb(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _s(value: str) -> bytes:
    raw = value.encode()
    return _leb(len(raw)) + raw


def _native(columns: list[tuple[str, str, list[Any]]]) -> bytes:
    """One block of ClickHouse's Native format (String and UInt8 columns)."""
    rows = len(columns[0][2]) if columns else 0
    out = bytearray(_leb(len(columns)) + _leb(rows))
    for name, type_, values in columns:
        out += _s(name) + _s(type_)
        for value in values:
            out += _s(value) if type_ == "String" else struct.pack("<B", value)
    return bytes(out)


_SETTINGS = [
    ("max_execution_time", "0", 0),
    ("max_memory_usage", "10000000000", 0),
    ("max_result_rows", "1000000", 0),
    ("result_overflow_mode", "throw", 0),
    ("readonly", "0", 0),
    ("date_time_input_format", "basic", 0),
    ("send_progress_in_http_headers", "0", 0),
    ("http_headers_progress_interval_ms", "100", 0),
    ("enable_http_compression", "0", 0),
    ("wait_end_of_query", "0", 0),
    ("cancel_http_readonly_queries_on_client_close", "0", 0),
    ("session_timeout", "60", 0),
]
_EVENTS = [("id", "UInt64"), ("user_id", "UInt64"), ("ts", "DateTime"), ("country", "LowCardinality(String)")]


def _describe() -> bytes:
    names = [
        "name",
        "type",
        "default_type",
        "default_expression",
        "comment",
        "codec_expression",
        "ttl_expression",
    ]
    values = [[n for n, _ in _EVENTS], [t for _, t in _EVENTS]] + [[""] * len(_EVENTS) for _ in range(5)]
    return _native([(n, "String", v) for n, v in zip(names, values, strict=True)])


class _Server:
    """The stand-in: the driver's connection queries and ``DESCRIBE TABLE`` answered as a
    24.8 server does, everything else with :attr:`current`."""

    def __init__(self) -> None:
        self.current: Reply | str = Reply(200, "")

    def reply(self, reply: Reply | str) -> None:
        self.current = reply

    def answer(self, query: str) -> Reply | str:
        ok = {"X-ClickHouse-Server-Display-Name": "ch-prod-1", "X-ClickHouse-Timezone": "UTC"}
        native = {**ok, "X-ClickHouse-Format": "Native"}
        if query.startswith("SELECT version(), timezone()"):
            return Reply(200, f"{_VERSION}\tUTC\n", {**ok, "X-ClickHouse-Format": "TabSeparated"}, "", "text/tab-separated-values; charset=UTF-8")  # fmt: skip
        if query.startswith("SELECT name, value, readonly FROM system.settings"):
            cols = [("name", "String", [s[0] for s in _SETTINGS]), ("value", "String", [s[1] for s in _SETTINGS]), ("readonly", "UInt8", [s[2] for s in _SETTINGS])]  # fmt: skip
            return Reply(200, _native(cols), native, "", "application/octet-stream")
        if query.startswith("SELECT 1 AS check"):
            return Reply(200, _native([("check", "UInt8", [1])]), native, "", "application/octet-stream")
        if query.startswith("DESCRIBE TABLE analytics.events") and query.split()[2] == "analytics.events":
            return Reply(200, _describe(), native, "", "application/octet-stream")
        return self.current


def _handler(server: _Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def version_string(self) -> str:
            return ""

        def date_time_string(self, timestamp: float | None = None) -> str:
            return _saas.DATE

        def _answer(self) -> None:
            from urllib.parse import parse_qs, urlsplit

            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            if not length and self.headers.get("transfer-encoding", "").lower() == "chunked":
                parts = []
                while True:
                    size = int(self.rfile.readline().strip() or b"0", 16)
                    parts.append(self.rfile.read(size + 2)[:size])
                    if not size:
                        break
                body = b"".join(parts)
            # the query is in the URL when the body carries data (inserts), else it is the body
            query = parse_qs(urlsplit(self.path).query).get("query", [""])[0] or body.decode(errors="replace")
            reply = server.answer(query.lstrip())
            if reply == _saas.HANG:
                time.sleep(3.0)
                self.close_connection = True
                return
            if reply == _saas.RESET:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
                return
            if reply == _saas.CLOSE:
                self.close_connection = True
                return
            assert isinstance(reply, Reply)
            data = reply.body if isinstance(reply.body, bytes) else str(reply.body).encode()
            self.send_response(reply.status)
            ctype = reply.ctype or ("text/html" if data.startswith(b"<") else "text/plain; charset=UTF-8")
            headers = {"Content-Type": ctype, "Content-Length": str(len(data)), **reply.headers}
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

    return Handler


@contextmanager
def _serve(ctx: Any) -> Iterator[tuple[_Server, int]]:
    server = _Server()
    http = _saas._Quiet(("127.0.0.1", 0), _handler(server))
    port = http.server_address[1]
    ctx.name_port(port, "CHPORT")
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, port
    finally:
        http.shutdown()
        http.server_close()


_SQL_COUNT = "SELECT count() FROM analytics.events WHERE ts > now() - INTERVAL 1 DAY"
_SQL_TOP = "SELECT country, count() AS n FROM analytics.events GROUP BY country ORDER BY n DESC LIMIT 10"
_HTML502 = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"  # fmt: skip
_HTML504 = "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"  # fmt: skip
_AUTH = "analyst: Authentication failed: password is incorrect, or there is no user with such name.\n\nIf you have installed ClickHouse and forgot password you can reset it in the configuration file.\nThe password for default user is typically located at /etc/clickhouse-server/users.d/default-password.xml\nand deleting this file will reset the password.\nSee also /etc/clickhouse-server/users.xml on the server where ClickHouse is installed.\n\n"  # fmt: skip
_SYNTAX = "Syntax error: failed at position 21 (events) (line 1, col 21): events WHERE ts > now() - INTERVAL 1 DAY. Expected one of: token, Comma, FROM, PREWHERE, WHERE, GROUP BY, HAVING, WINDOW, QUALIFY, ORDER BY, LIMIT, OFFSET, FETCH, SETTINGS, UNION, EXCEPT, INTERSECT, INTO OUTFILE, FORMAT, end of query"  # fmt: skip
_CSV_ERROR = "Cannot parse input: expected ',' before: 'abc,42,2026-12-01 10:00:00,FR\\n':\nRow 1:\nColumn 0,   name: id,      type: UInt64, ERROR: text \"abc,42,202\" is not like UInt64\n\n: (at row 1)\n: While executing ParallelParsingBlockInputFormat: (in query: INSERT INTO analytics.events FORMAT CSVWithNames )"  # fmt: skip

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply | str, str, str | None, str]] = [
    # the model's SQL, parameters, settings and rows
    ("syntax_error", "query_form", _ch(62, "SYNTAX_ERROR", _SYNTAX), F, None, "SQL with a misspelt keyword"),
    ("unknown_identifier", "query_usr_id", _ch(47, "UNKNOWN_IDENTIFIER", "Unknown expression identifier 'usr_id' in scope SELECT usr_id, count() FROM analytics.events GROUP BY usr_id. Maybe you meant: ['user_id']"), F, None, "column name misspelt"),
    ("unknown_function", "query_week", _ch(46, "UNKNOWN_FUNCTION", "Function with name 'toStartOfWek' does not exist. In scope SELECT toStartOfWek(ts) AS week, count() FROM analytics.events GROUP BY week. Maybe you meant: ['toStartOfWeek','toStartOfYear']"), F, None, "function name misspelt"),
    ("illegal_type_of_argument", "query_day_country", _ch(43, "ILLEGAL_TYPE_OF_ARGUMENT", "Illegal type LowCardinality(String) of argument of function toStartOfDay. Should be a date or a date with time: In scope SELECT toStartOfDay(country) FROM analytics.events"), F, None, "function applied to a column of the wrong type"),
    ("not_an_aggregate", "query_not_grouped", _ch(215, "NOT_AN_AGGREGATE", "Column 'country' is not under aggregate function and not in GROUP BY keys. In query SELECT country, count() FROM analytics.events GROUP BY user_id"), F, None, "column neither aggregated nor grouped"),
    ("arguments_count", "query_datediff", _ch(42, "NUMBER_OF_ARGUMENTS_DOESNT_MATCH", "Number of arguments for function dateDiff doesn't match: passed 2, should be 3 or 4: In scope SELECT dateDiff('day', ts) FROM analytics.events"), F, None, "function given too few arguments"),
    ("cannot_parse_datetime", "query_yesterday", _ch(41, "CANNOT_PARSE_DATETIME", "Cannot parse string 'yesterday' as DateTime: syntax error at position 0 (parsed just ''). Note: there are toDateTimeOrZero and toDateTimeOrNull functions, which returns zero/NULL instead of throwing exception.: while executing 'FUNCTION greater(__table1.ts :: 1, 'yesterday'_String :: 3) -> greater(__table1.ts, 'yesterday'_String) UInt8 : 2'"), F, None, "date literal the server cannot parse"),
    ("query_parameter_unset", "query_param", _ch(456, "UNKNOWN_QUERY_PARAMETER", "Substitution `country` is not set"), F, None, "query parameter named in the SQL but not given"),
    ("unknown_setting", "query_setting", _ch(115, "UNKNOWN_SETTING", "Setting max_execution_tim is neither a builtin setting nor started with the prefix 'SQL_' registered for user-defined settings. Maybe you meant ['max_execution_time','max_execution_speed']"), F, None, "query setting name misspelt"),
    ("unknown_format", "export_format", _ch(73, "UNKNOWN_FORMAT", "Unknown format CSVWithHeader"), F, None, "output format name that does not exist"),
    ("unknown_engine", "create_engine", _ch(56, "UNKNOWN_STORAGE", "Unknown table engine MergeTre. Maybe you meant: ['MergeTree']"), F, None, "table engine name misspelt"),
    ("unknown_type", "create_type", _ch(50, "UNKNOWN_TYPE", "Unknown data type family: Strng. Maybe you meant: ['String']"), F, None, "column type name misspelt"),
    ("result_too_big", "query_all_rows", _ch(396, "TOO_MANY_ROWS_OR_BYTES", "Limit for result exceeded, max rows: 1.00 million, current rows: 1.05 million"), F, None, "result over the user's max_result_rows: the query needs a LIMIT"),
    ("csv_rows_unparsable", "insert_csv_rows", _ch(27, "CANNOT_PARSE_INPUT_ASSERTION_FAILED", _CSV_ERROR), F, None, "CSV rows the model wrote with text in a UInt64 column"),
    ("too_many_partitions", "insert_rows_years", _ch(252, "TOO_MANY_PARTS", "Too many partitions for single INSERT block (more than 100). The limit is controlled by 'max_partitions_per_insert_block' setting. Large number of partitions is a common misconception. It will lead to severe negative performance impact, including slow server startup, slow INSERT queries and slow SELECT queries. Recommended total number of partitions for a table is under 1000..10000. Please note, that partitioning is not intended to speed up SELECT queries (ORDER BY key is sufficient to make range queries fast). Partitions are intended for data manipulation (DROP PARTITION, etc)"), F, None, "one insert spanning more partitions than allowed"),
    ("no_common_type", "query_if", _ch(386, "NO_COMMON_TYPE", "There is no supertype for types LowCardinality(String), UInt64 because some of them are String/FixedString/Enum and some of them are not: In scope SELECT if(user_id > 100, country, user_id) FROM analytics.events"), F, None, "branches of if() of types with no common type"),
    # credentials, privileges, quotas, disk
    ("authentication_failed", "connect", _ch(516, "AUTHENTICATION_FAILED", _AUTH), U, None, "password wrong or user unknown"),
    ("access_denied", "insert_rows", _ch(497, "ACCESS_DENIED", "analyst: Not enough privileges. To execute this query, it's necessary to have the grant INSERT(id, user_id, ts, country) ON analytics.events"), U, None, "user lacks the INSERT grant"),
    ("readonly_user", "drop_table", _ch(164, "READONLY", "analyst: Cannot execute query in readonly mode"), U, None, "user set to readonly"),
    ("quota_exceeded", "query_count", _ch(201, "QUOTA_EXCEEDED", "Quota for user `analyst` for 86400s has been exceeded: queries = 10001/10000. Interval will end at 2026-12-02 00:00:00. Name of quota template: `daily_analyst`"), U, None, "user's daily query quota used up"),
    ("not_enough_space", "insert_csv_rows", _ch(243, "NOT_ENOUGH_SPACE", "Cannot reserve 1.00 MiB, not enough space"), U, None, "server's disk full"),
    ("access_denied_select", "query_customers", _ch(497, "ACCESS_DENIED", "analyst: Not enough privileges. To execute this query, it's necessary to have the grant SELECT(id, email) ON crm.customers"), U, None, "user lacks the SELECT grant on the table"),
    ("access_denied_create", "create_table", _ch(497, "ACCESS_DENIED", "analyst: Not enough privileges. To execute this query, it's necessary to have the grant CREATE TABLE ON analytics.events_daily"), U, None, "user lacks the CREATE TABLE grant"),
    # not found, already there, the server's own state, what the tool read
    ("unknown_table", "query_evnts", _ch(60, "UNKNOWN_TABLE", "Unknown table expression identifier 'analytics.evnts' in scope SELECT count() FROM analytics.evnts"), A, None, "table named in the SQL does not exist"),
    ("unknown_table_drop", "drop_table", _ch(60, "UNKNOWN_TABLE", "Table analytics.events_tmp does not exist"), A, None, "table to drop does not exist"),
    ("unknown_database", "query_db", _ch(81, "UNKNOWN_DATABASE", "Database analytcs does not exist"), A, None, "database named in the SQL does not exist"),
    ("unknown_table_insert", "insert_rows_event", _ch(60, "UNKNOWN_TABLE", "Table analytics.event does not exist. Maybe you meant analytics.events?"), A, None, "table to insert into does not exist"),
    ("table_exists", "create_table", _ch(57, "TABLE_ALREADY_EXISTS", "Table analytics.events_daily already exists"), A, None, "table already exists"),
    ("database_exists", "create_database", _ch(82, "DATABASE_ALREADY_EXISTS", "Database staging already exists"), A, None, "database already exists"),
    ("column_exists", "add_column", _ch(44, "ILLEGAL_COLUMN", "Cannot add column `country`: column with this name already exists"), A, None, "column to add already exists"),
    ("csv_file_unparsable", "load_csv_file", _ch(27, "CANNOT_PARSE_INPUT_ASSERTION_FAILED", _CSV_ERROR), A, None, "CSV file the tool read has text in a UInt64 column"),
    ("json_file_unparsable", "load_json_file", _ch(117, "INCORRECT_DATA", "Cannot parse JSON object here: {\"id\":1003,\"user_id\":44,\"ts\":\"2026-12-01 10:10:00\",\"country\":\"IT\": (while reading the value of key country): (at row 3)\n: While executing ParallelParsingBlockInputFormat: (in query: INSERT INTO analytics.events FORMAT JSONEachRow )"), A, None, "JSON lines file the tool read has a record cut off"),
    ("logical_error", "query_top", _ch(49, "LOGICAL_ERROR", "Bad cast from type DB::ColumnNullable to DB::ColumnVector<UInt64>"), A, None, "server bug (logical error)"),
    ("timeout_exceeded", "query_top", _ch(159, "TIMEOUT_EXCEEDED", "Timeout exceeded: elapsed 30.000912 seconds, maximum: 30"), A, None, "read over the user's max_execution_time (heavy query or loaded server)"),
    ("memory_limit_query", "query_top", _ch(241, "MEMORY_LIMIT_EXCEEDED", "Memory limit (for query) exceeded: would use 9.32 GiB (attempt to allocate chunk of 4194304 bytes), maximum: 9.31 GiB.: While executing AggregatingTransform"), A, None, "read over the query's memory limit (heavy query or data grown)"),
    ("html_200", "query_count", Reply(200, "<html><head><title>Sign in</title></head><body>Sign in to continue</body></html>", {}, "a proxy's login page", "text/html"), A, None, "an HTML page instead of the result"),
    ("native_cut_off", "query_count", Reply(200, b"\x01\x01\x07count()\x06UInt64\x2a\x00", {"X-ClickHouse-Format": "Native"}, "", "application/octet-stream"), A, None, "Native result cut off"),
    # load, locks, shards, outages
    ("too_many_queries", "query_top", _ch(202, "TOO_MANY_SIMULTANEOUS_QUERIES", "Too many simultaneous queries. Maximum: 100"), T, NE, "server at its concurrent query limit"),
    ("memory_limit_total", "query_top", _ch(241, "MEMORY_LIMIT_EXCEEDED", "Memory limit (total) exceeded: would use 28.13 GiB (attempt to allocate chunk of 4219172 bytes), current RSS 28.10 GiB, maximum: 28.13 GiB. OvercommitTracker decision: Query was selected to stop by OvercommitTracker.: While executing AggregatingTransform"), T, NE, "server's total memory used by other queries"),
    ("too_many_parts", "insert_rows", _ch(252, "TOO_MANY_PARTS", "Too many parts (3001 with average size of 12.35 KiB) in table 'analytics.events (6a8e7c1e-2f4b-4d9a-8c3e-5b1f0a9d7e24)'. Merges are processing significantly slower than inserts"), T, NE, "inserts faster than merges"),
    ("deadlock_avoided", "add_column", _ch(473, "DEADLOCK_AVOIDED", "Locking attempt for ALTER on \"analytics.events\" has timed out! (120000 ms) Possible deadlock avoided. Client should retry"), T, NE, "table lock not acquired in time"),
    ("shard_unreachable", "query_top", _ch(279, "ALL_CONNECTION_TRIES_FAILED", "All connection tries failed. Log: \n\nCode: 210. DB::NetException: Connection refused (ch-shard-2:9000). (NETWORK_ERROR) (version 24.8.4.13 (official build))\n\n: While executing Remote"), T, NE, "a shard refused the connection"),
    ("keeper_connection_loss", "insert_rows", _ch(999, "KEEPER_EXCEPTION", "Coordination::Exception: Connection loss, path /clickhouse/tables/01/events/blocks/202612_1488526312478214617_10542817046295830194"), T, UO, "Keeper connection lost during the insert"),
    ("socket_timeout", "query_top", _ch(209, "SOCKET_TIMEOUT", "Timeout exceeded while reading from socket (10.0.3.12:9000, 300000 ms): While executing Remote"), T, UO, "a shard stopped answering (503, after the driver's retries)"),
    ("proxy_504", "query_count", Reply(504, _HTML504, {}, "a proxy's page", "text/html"), T, UO, "a proxy's 504 page (after the driver's retries)"),
]  # fmt: skip


def _calls(client: Callable[[], Any], tmp: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); host, user and password are the tool's."""
    rows = [[1001, 42, "2026-12-01 10:00:00", "FR"], [1002, 43, "2026-12-01 10:05:00", "DE"]]
    csv_rows = "id,user_id,ts,country\nabc,42,2026-12-01 10:00:00,FR\n"
    csv_path = tmp / "exports" / "events-2026-12-01.csv"
    json_path = tmp / "exports" / "events-2026-12-01.jsonl"
    # one row a day for 120 days of a table partitioned by day
    many = [[2000 + i, 42, f"2026-{7 + i // 30:02d}-{1 + i % 30:02d} 10:00:00", "FR"] for i in range(120)]

    def q(sql: str, **kw: Any) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        return ("run_query", {"sql": sql, **kw}, lambda: client().query(sql, **({"parameters": kw["parameters"]} if "parameters" in kw else {}), **({"settings": kw["settings"]} if "settings" in kw else {})).result_rows)  # fmt: skip

    def cmd(sql: str) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        return ("run_command", {"sql": sql}, lambda: client().command(sql))

    def load_file() -> Any:
        c = client()
        return c.raw_insert("analytics.events", insert_block=csv_path.read_bytes(), fmt="CSVWithNames")

    import datetime

    def typed(values: list[list[Any]]) -> list[list[Any]]:
        return [[r[0], r[1], datetime.datetime.fromisoformat(r[2]), r[3]] for r in values]

    return {
        "connect": ("run_query", {"sql": _SQL_COUNT}, lambda: client().query(_SQL_COUNT).result_rows),
        "query_count": q(_SQL_COUNT),
        "query_top": q(_SQL_TOP),
        "query_form": q("SELECT count() FORM events WHERE ts > now() - INTERVAL 1 DAY"),
        "query_usr_id": q("SELECT usr_id, count() FROM analytics.events GROUP BY usr_id"),
        "query_week": q("SELECT toStartOfWek(ts) AS week, count() FROM analytics.events GROUP BY week"),
        "query_day_country": q("SELECT toStartOfDay(country) FROM analytics.events"),
        "query_not_grouped": q("SELECT country, count() FROM analytics.events GROUP BY user_id"),
        "query_datediff": q("SELECT dateDiff('day', ts) FROM analytics.events"),
        "query_yesterday": q("SELECT count() FROM analytics.events WHERE ts > 'yesterday'"),
        "query_param": q("SELECT count() FROM analytics.events WHERE country = {country:String}", parameters={"countries": "FR"}),
        "query_setting": q(_SQL_TOP, settings={"max_execution_tim": 10}),
        "query_all_rows": q("SELECT * FROM analytics.events"),
        "query_customers": q("SELECT id, email FROM crm.customers WHERE signup_date >= '2026-11-01'"),
        "query_if": q("SELECT if(user_id > 100, country, user_id) FROM analytics.events"),
        "query_evnts": q("SELECT count() FROM analytics.evnts"),
        "query_db": q("SELECT count() FROM analytcs.events"),
        "export_format": ("export_query", {"sql": _SQL_TOP, "format": "CSVWithHeader"}, lambda: client().raw_query(_SQL_TOP, fmt="CSVWithHeader")),
        "create_engine": cmd("CREATE TABLE analytics.events_daily (day Date, n UInt64) ENGINE = MergeTre ORDER BY day"),
        "create_type": cmd("CREATE TABLE analytics.events_daily (day Date, country Strng, n UInt64) ENGINE = MergeTree ORDER BY day"),
        "create_table": cmd("CREATE TABLE analytics.events_daily (day Date, n UInt64) ENGINE = MergeTree ORDER BY day"),
        "create_database": cmd("CREATE DATABASE staging"),
        "add_column": cmd("ALTER TABLE analytics.events ADD COLUMN country LowCardinality(String)"),
        "drop_table": cmd("DROP TABLE analytics.events_tmp"),
        "insert_rows": ("insert_rows", {"table": "analytics.events", "columns": ["id", "user_id", "ts", "country"], "rows": rows}, lambda: client().insert("analytics.events", typed(rows), column_names=["id", "user_id", "ts", "country"])),
        "insert_rows_event": ("insert_rows", {"table": "analytics.event", "columns": ["id", "user_id", "ts", "country"], "rows": rows}, lambda: client().insert("analytics.event", typed(rows), column_names=["id", "user_id", "ts", "country"])),
        "insert_rows_years": ("insert_rows", {"table": "analytics.events", "columns": ["id", "user_id", "ts", "country"], "rows": many}, lambda: client().insert("analytics.events", typed(many), column_names=["id", "user_id", "ts", "country"])),
        "load_json_file": ("load_json_file", {"table": "analytics.events", "path": "exports/events-2026-12-01.jsonl"}, lambda: client().raw_insert("analytics.events", insert_block=json_path.read_bytes(), fmt="JSONEachRow")),
        "insert_csv_rows": ("insert_csv", {"table": "analytics.events", "csv": csv_rows}, lambda: client().raw_insert("analytics.events", insert_block=csv_rows, fmt="CSVWithNames")),
        "load_csv_file": ("load_csv_file", {"table": "analytics.events", "path": "exports/events-2026-12-01.csv"}, load_file),
    }  # fmt: skip


def cases(ctx: Any) -> Iterator[generate.Case]:
    import clickhouse_connect

    (ctx.tmp / "exports").mkdir()
    (ctx.tmp / "exports" / "events-2026-12-01.jsonl").write_text(
        '{"id":1001,"user_id":42,"ts":"2026-12-01 10:00:00","country":"FR"}\n'
        '{"id":1002,"user_id":43,"ts":"2026-12-01 10:05:00","country":"DE"}\n'
        '{"id":1003,"user_id":44,"ts":"2026-12-01 10:10:00","country":"IT"\n'
    )
    (ctx.tmp / "exports" / "events-2026-12-01.csv").write_text(
        "id,user_id,ts,country\nabc,42,2026-12-01 10:00:00,FR\n1002,43,2026-12-01 10:05:00,DE\n"
    )

    def connect(port: int, host: str = "127.0.0.1", **kw: Any) -> Callable[[], Any]:
        def make() -> Any:
            return clickhouse_connect.get_client(
                host=host,
                port=port,
                username="analyst",
                password="s3cr3t-analyst",
                database="analytics",
                connect_timeout=_saas.TIMEOUT,
                send_receive_timeout=_saas.TIMEOUT,
                autogenerate_session_id=False,
                autogenerate_query_id=False,  # a random id would be in the transport errors' URL
                **kw,
            )

        return make

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"clickhouse-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    with _serve(ctx) as (server, port):
        calls = _calls(connect(port), ctx.tmp)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            server.reply(reply)
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, outcome, exc, tool, args)

        for key, kind, outcome, cause in _saas.TRANSPORT:
            if key == "refused":
                make = connect(ctx.dead)
            elif key == "dns":
                make = connect(8123, host="clickhouse.unreachable-host.invalid")
            else:  # connected while the server still answered; then it stops answering
                make = (lambda c: lambda: c)(connect(port)())
            server.reply(key)
            call = "insert_rows" if key in ("reset", "close") else "query_top"
            tool, args, run = _calls(make, ctx.tmp)[call]
            yield case(key, cause, kind, outcome, _saas.catch(run), tool, args)
            server.reply(Reply(200, ""))

        # the driver's own checks (the table's columns come from the stand-in's DESCRIBE)
        client = connect(port)()
        local: list[tuple[str, str, str, str, dict[str, Any], Callable[[], Any]]] = [
            ("insert-unknown-column", "insert names a column the table does not have", F, "insert_rows",
             {"table": "analytics.events", "columns": ["id", "usr_id"], "rows": [[1001, 42]]},
             lambda: client.insert("analytics.events", [[1001, 42]], column_names=["id", "usr_id"])),
            ("insert-wrong-type", "text in a UInt64 column", F, "insert_rows",
             {"table": "analytics.events", "columns": ["id", "user_id"], "rows": [["abc", 42]]},
             lambda: client.insert("analytics.events", [["abc", 42]], column_names=["id", "user_id"])),
            ("client-param-missing", "client-side parameter named in the SQL but not given", F, "run_query",
             {"sql": "SELECT count() FROM analytics.events WHERE country = %(country)s", "parameters": {"countries": "FR"}},
             lambda: client.query("SELECT count() FROM analytics.events WHERE country = %(country)s", parameters={"countries": "FR"})),
            ("compression-unknown", "tool set up with a compression method the driver lacks", U, "run_query",
             {"sql": _SQL_COUNT}, lambda: connect(port, compress="lz5")()),
        ]  # fmt: skip
        # a body the driver stops writing half-way: the server reports the block it could not read
        server.reply(
            _ch(
                33,
                "CANNOT_READ_ALL_DATA",
                "Cannot read all data. Bytes read: 0. Bytes expected: 8.: (at row 1)\n: While executing NativeInputFormat",
            )
        )
        for key, cause, kind, tool, args, fn in local:
            try:
                exc = _saas.catch(fn)
            except AssertionError:
                raise AssertionError(key) from None
            yield case(key, cause, kind, None, exc, tool, args)
