# ruff: noqa: B023 - each lambda is called at once
"""influxdb-client: the InfluxDB 2.x Python client (``InfluxDBClient`` with a synchronous
write API, the query, delete, buckets, tasks and invokable-scripts APIs) against a local
stand-in of an InfluxDB OSS 2.7 HTTP API: ``influxdb_client.rest.ApiException`` carrying
the status, headers and the server's ``{"code", "message"}`` body; ``InfluxDBError`` from
the client's organization lookup; ``FluxQueryException`` for an error table inside a 200
annotated-CSV reply, ``FluxCsvParserException`` / ``IndexError`` for a 200 reply the CSV
parser cannot read; urllib3's ``NewConnectionError``, ``NameResolutionError``,
``ReadTimeoutError``, ``ProtocolError`` (the client sets ``retries=False`` by default) and
``MaxRetryError`` when the tool's ``WritesRetry`` runs out on a refused connection; the client's own checks
(``ValueError`` / ``KeyError`` / ``TypeError`` for a point, retention rule or option the
model wrote) and the ``ImportError`` of ``query_data_frame`` without pandas.

Bodies are what influxd 2.7 writes (``kit/transport/http/error_handler.go``: compact JSON
``{"code", "message"}``, ``Content-Type: application/json; charset=utf-8``,
``X-Platform-Error-Code``; the code decides the status: invalid 400, unauthorized 401,
forbidden 403, not found 404, conflict and unprocessable entity 422, request too large
413, too many requests 429, internal error 500, unavailable 503) with the messages of the
server's code and of its docs: "Troubleshoot issues writing data"
(docs.influxdata.com/influxdb/v2/write-data/troubleshoot/: 400 first malformed line, 404
bucket / organization, 413, 422 schema conflicts and retention-policy violations, 503
with ``Retry-After``), the API reference (docs.influxdata.com/influxdb/v2/api/: 429 with
``Retry-After``), line protocol parse errors (``models/points.go``: ``unable to parse
'<line>': <reason>``), the delete API (``http/delete_test.go``), Flux's errors
(``error @line:col-line:col: ...``, ``failed to initialize execute state: could not find
bucket``, runtime errors in the annotated CSV's error table:
docs.influxdata.com/influxdb/v2/reference/syntax/annotated-csv/#errors).

Labels, by the cause set up:

- fixable: line protocol, precision, points, Flux, delete predicates and times, bucket
  names and retention, task listing options the model wrote (a parse error at a position,
  a type that conflicts with the field's type, second timestamps written with ``ns``
  precision so that every point falls outside the retention period: the docs' own advice
  is to match the precision), and the client's checks of them;
- unrecoverable: the token missing / revoked (401), a token without the permission (401
  ``... is unauthorized``, 403 insufficient permissions), a file over the server's batch
  size limit (413), invokable scripts on an OSS server (a Cloud-only API: 404 "path not
  found"), pandas missing from the tool's installation;
- ambiguous: a bucket, organization or task named by the model that is not found, a bucket
  that already exists, line protocol / points / a Flux script the tool READ from a file the
  model named that the server rejects, a runtime schema collision in stored data, a 200
  reply the client cannot parse;
- transient: 429 / 503 with ``Retry-After``, refused, DNS -> not executed; 500 on a write,
  read timeout, reset, close -> unknown outcome; ``-retried`` cases run with the tool's
  ``WritesRetry(total=1, allowed_methods=["POST"])``: the status cases end in the last
  reply's ``ApiException``, the refused one in ``MaxRetryError``.

Not triggered: the batching write API's errors (reported to callbacks on another thread,
never raised to the tool), InfluxDB Cloud's plan quotas (their bodies are not documented
word for word), the v1-compatibility API.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import generate

from libraries import _pkgcopy, _saas
from libraries._saas import NE, UO, A, F, Reply, T, U, caught

LIBRARY = "influxdb-client"
REQUIRES = ["influxdb-client==1.50.0"]

_WRITE_DOCS = "InfluxDB OSS v2 troubleshoot writes (docs.influxdata.com/influxdb/v2/write-data/troubleshoot/)"
_API = "InfluxDB OSS v2 API reference (docs.influxdata.com/influxdb/v2/api/)"
_FLUX = "Flux errors as influxd 2.7 returns them (docs.influxdata.com/influxdb/v2/query-data/flux/)"
_CSV = "Annotated CSV errors (docs.influxdata.com/influxdb/v2/reference/syntax/annotated-csv/#errors)"
_TOKEN = "x8Vq3LwD0nJ5cR7tYb2M9kPzH4sFgA1e_Ue6WiOoTyQmNcXrKvBdZhLjSpGf0aIl2u3EwR5tY7q9Pz8xCv1n=="
_ORG = "9f282d63c7d3a5c0"  # the tool's organization (an ID: the client does not look it up)
_HEADERS = {"X-Influxdb-Build": "OSS", "X-Influxdb-Version": "v2.7.11"}


def _e(status: int, code: str, message: str, source: str = _API, **headers: str) -> Reply:
    """influxd's error body: compact JSON, its code also in ``X-Platform-Error-Code``."""
    body = json.dumps({"code": code, "message": message}, separators=(",", ":"))
    return Reply(
        status,
        body,
        {**_HEADERS, "X-Platform-Error-Code": code, **headers},
        source,
        "application/json; charset=utf-8",
    )


def _csv_error(message: str) -> Reply:
    """A 200 annotated-CSV reply whose table is an error (the query failed mid-stream)."""
    text = f'#datatype,string,string\n#group,true,true\n#default,,\n,error,reference\n,"{message}",\n\n'
    return Reply(200, text, _HEADERS, _CSV, "text/csv; charset=utf-8")


_TABLE = (
    "#datatype,string,long,dateTime:RFC3339,dateTime:RFC3339,dateTime:RFC3339,double,string,string,string\n"
    "#group,false,false,true,true,false,false,true,true,true\n"
    "#default,_result,,,,,,,,\n"
    ",result,table,_start,_stop,_time,_value,_field,_measurement,location\n"
    ",,0,2026-11-30T23:00:00Z,2026-12-01T00:00:00Z,2026-11-30T23:10:00Z,82,temperature,weather,us-midwest\n\n"
)
_LINE = "weather,location=us-midwest temperature=82 1733011200000000000"
_LOWER = "2026-10-31T23:59:58.104553Z"
_RETENTION = (
    "failure writing points to database: partial write: dropped 2 points outside retention policy of duration 720h0m0s"
    " - oldest point weather,location=us-midwest at {old} dropped because it violates a Retention Policy Lower Bound at {low},"
    " newest point weather,location=us-midwest at {new} dropped because it violates a Retention Policy Lower Bound at {low}"
    f" dropped=2 for database: {_ORG} for retention policy: autogen"
)
_CONFLICT = 'failure writing points to database: partial write: field type conflict: input field "temperature" on measurement "weather" is type integer, already exists as type float dropped=1'  # fmt: skip

# (key, call, reply, kind, outcome, cause)
_SCENARIOS: list[tuple[str, str, Reply | str, str, str | None, str]] = [
    # line protocol, precision and Flux the model wrote
    ("lp_missing_field_value", "write_no_value", _e(400, "invalid", "unable to parse 'weather,location=us-midwest temperature=': missing field value", _WRITE_DOCS), F, None, "line protocol field without a value"),
    ("lp_missing_tag_key", "write_space", _e(400, "invalid", "unable to parse 'weather, location=us-midwest temperature=82': missing tag key", _WRITE_DOCS), F, None, "space after the measurement's comma"),
    ("lp_bad_timestamp", "write_iso_time", _e(400, "invalid", "unable to parse 'weather,location=us-midwest temperature=82 2026-12-01T00:00:00Z': bad timestamp", _WRITE_DOCS), F, None, "RFC 3339 time where a Unix timestamp is required"),
    ("lp_unbalanced_quotes", "write_quote", _e(400, "invalid", "unable to parse 'notes,room=hall text=\"door left open 1733011200000000000': unbalanced quotes", _WRITE_DOCS), F, None, "string field value without its closing quote"),
    ("lp_invalid_number", "write_percent", _e(400, "invalid", "unable to parse 'weather,location=us-midwest humidity=45%': invalid number", _WRITE_DOCS), F, None, "field value with a unit sign"),
    ("invalid_precision", "write_precision", _e(400, "invalid", "invalid precision; valid precision units are ns, us, ms, and s", _WRITE_DOCS), F, None, "precision not one of ns, us, ms, s"),
    ("precision_outside_retention", "write_seconds", _e(422, "unprocessable entity", _RETENTION.format(old="1970-01-01T00:00:01.7330112Z", new="1970-01-01T00:00:01.7330148Z", low=_LOWER), _WRITE_DOCS), F, None, "second timestamps written with ns precision: points before the retention period"),
    ("field_type_conflict", "write_int", _e(422, "unprocessable entity", _CONFLICT, _WRITE_DOCS), F, None, "integer written to a float field"),
    ("flux_undefined_identifier", "query_fromm", _e(400, "invalid", "error @1:1-1:6: undefined identifier fromm", _FLUX), F, None, "Flux function name misspelt"),
    ("flux_parse_error", "query_rparen", _e(400, "invalid", "compilation failed: error @3:38-3:39: invalid expression: invalid token for primary expression: RPAREN", _FLUX), F, None, "Flux expression left unfinished"),
    ("flux_missing_argument", "query_no_start", _e(400, "invalid", "error @2:6-2:24: missing required argument start", _FLUX), F, None, "range() without its start"),
    ("flux_no_streaming_data", "query_assigned", _e(400, "invalid", 'error in query specification while starting program: this Flux script returns no streaming data. Consider adding a "yield" or invoking streaming functions directly, without performing an assignment', _FLUX), F, None, "Flux script only assigns a stream"),
    ("delete_or_predicate", "delete_or", _e(400, "invalid", "invalid request; error parsing request json: the logical operator OR is not supported yet at position 23", _WRITE_DOCS), F, None, "delete predicate with OR"),
    ("delete_bad_start", "delete_yesterday", _e(400, "invalid", "invalid request; error parsing request json: invalid RFC3339Nano for field start, please format your time with RFC3339Nano format, example: 2009-01-02T23:00:00Z", _WRITE_DOCS), F, None, "delete start not an RFC 3339 time"),
    ("bucket_underscore", "create_bucket_underscore", _e(400, "invalid", "bucket name _sensors is invalid. Buckets may not start with underscore"), F, None, "bucket name starts with an underscore"),
    # the token, its permissions, the installation
    ("unauthorized_write", "write", _e(401, "unauthorized", "unauthorized access"), U, None, "token missing or revoked"),
    ("unauthorized_query", "query", _e(401, "unauthorized", "unauthorized access"), U, None, "token missing or revoked (query)"),
    ("forbidden_write", "write", _e(403, "forbidden", "insufficient permissions for write", _WRITE_DOCS), U, None, "token may not write to the bucket"),
    ("forbidden_delete", "delete", _e(403, "forbidden", "insufficient permissions to delete", _WRITE_DOCS), U, None, "token may not delete from the bucket"),
    ("permission_unauthorized", "create_bucket", _e(401, "unauthorized", f"write:orgs/{_ORG}/buckets is unauthorized"), U, None, "token lacks the write permission on buckets"),
    ("scripts_not_on_oss", "list_scripts", _e(404, "not found", "path not found"), U, None, "invokable scripts are a Cloud API: not on this OSS server"),
    # not found, already there, stored data, replies that cannot be read
    ("write_bucket_not_found", "write_sensrs", _e(404, "not found", 'bucket "sensrs" not found', _WRITE_DOCS), A, None, "bucket named in the write not found"),
    ("query_bucket_not_found", "query_sensrs", _e(404, "not found", 'failed to initialize execute state: could not find bucket "sensrs"', _FLUX), A, None, "bucket named in the query not found"),
    ("bucket_exists", "create_bucket", _e(422, "conflict", "bucket with name sensors already exists"), A, None, "bucket already exists"),
    ("delete_bucket_not_found", "delete_bucket", _e(404, "not found", "bucket not found"), A, None, "bucket id not found"),
    ("task_not_found", "get_task", _e(404, "not found", "failed to find task: task not found"), A, None, "task id not found"),
    ("schema_collision", "query_group", _csv_error('runtime error @4:6-4:38: group: schema collision detected: column ""_value"" is both of type int and float'), A, None, "stored series of one field hold different types"),
    ("html_200", "query", Reply(200, "<html><head><title>Sign in</title></head><body>Sign in to continue</body></html>", {}, "a proxy's sign-in page"), A, None, "query answered with an HTML page"),
    ("csv_without_annotations", "query", Reply(200, ",result,table,_time,_value\n,_result,0,2026-12-01T00:00:00Z,82\n", {}, "a CSV reply without the annotations the client asks for", "text/csv; charset=utf-8"), A, None, "query answered with CSV without its annotations"),
    # load, availability, outages
    ("too_many_requests", "write", _e(429, "too many requests", "exceeded rate limit", **{"Retry-After": "30"}), T, NE, "rate limited (Retry-After)"),
    ("unavailable", "write", _e(503, "unavailable", "service unavailable", _WRITE_DOCS, **{"Retry-After": "10"}), T, NE, "server temporarily unavailable for writes (Retry-After)"),
    ("internal_error_write", "write", _e(500, "internal error", "unexpected error writing points to database: timeout", _WRITE_DOCS), T, UO, "write failed inside the server (engine timeout)"),
]  # fmt: skip


def _calls(client: Any) -> dict[str, tuple[str, dict[str, Any], Callable[[], Any]]]:
    """call -> (tool, the model's arguments, the call); the URL, token and org are the tool's."""
    from influxdb_client import BucketRetentionRules
    from influxdb_client.client.write_api import SYNCHRONOUS

    writer = client.write_api(write_options=SYNCHRONOUS)
    query = client.query_api()

    def write(lines: list[str], bucket: str = "sensors", **extra: Any) -> tuple[str, dict[str, Any], Any]:
        args = {"bucket": bucket, "lines": lines, **extra}
        precision = extra.get("precision", "ns")
        return (
            "write_lines",
            args,
            lambda: writer.write(bucket=bucket, record=lines, write_precision=precision),
        )

    def flux(text: str) -> tuple[str, dict[str, Any], Any]:
        return "query_flux", {"query": text}, lambda: query.query(text)

    def delete(start: str, predicate: str) -> tuple[str, dict[str, Any], Any]:
        args = {"bucket": "sensors", "start": start, "stop": "2026-12-01T00:00:00Z", "predicate": predicate}
        return (
            "delete_data",
            args,
            lambda: client.delete_api().delete(start, args["stop"], predicate, bucket="sensors"),
        )

    def bucket(name: str, days: int) -> tuple[str, dict[str, Any], Any]:
        rules = BucketRetentionRules(type="expire", every_seconds=days * 86400)
        return "create_bucket", {"name": name, "retention_days": days}, lambda: client.buckets_api().create_bucket(bucket_name=name, retention_rules=rules, org=_ORG)  # fmt: skip

    q = 'from(bucket: "sensors")\n  |> range(start: -1h)\n  |> filter(fn: (r) => r._measurement == "weather")'
    return {
        "write": write([_LINE]),
        "write_no_value": write(["weather,location=us-midwest temperature="]),
        "write_space": write(["weather, location=us-midwest temperature=82"]),
        "write_iso_time": write(["weather,location=us-midwest temperature=82 2026-12-01T00:00:00Z"]),
        "write_quote": write(['notes,room=hall text="door left open 1733011200000000000']),
        "write_percent": write(["weather,location=us-midwest humidity=45%"]),
        "write_precision": write([_LINE], precision="sec"),
        "write_seconds": write(["weather,location=us-midwest temperature=82 1733011200", "weather,location=us-midwest temperature=84 1733014800"]),
        "write_int": write(["weather,location=us-midwest temperature=82i 1733011200000000000"]),
        "write_sensrs": write([_LINE], bucket="sensrs"),
        "query": flux(q),
        "query_group": flux(q + '\n  |> group(columns: ["_measurement"])'),
        "query_fromm": flux('fromm(bucket: "sensors")\n  |> range(start: -1h)'),
        "query_rparen": flux('from(bucket: "sensors")\n  |> range(start: -1h)\n  |> filter(fn: (r) => r.location == )'),
        "query_no_start": flux('from(bucket: "sensors")\n  |> range(stop: now())'),
        "query_assigned": flux('data = from(bucket: "sensors")\n  |> range(start: -1h)'),
        "query_sensrs": flux('from(bucket: "sensrs")\n  |> range(start: -1h)'),
        "delete": delete("2026-11-01T00:00:00Z", '_measurement="weather"'),
        "delete_or": delete("2026-11-01T00:00:00Z", '_measurement="weather" OR location="us-midwest"'),
        "delete_yesterday": delete("yesterday", '_measurement="weather"'),
        "create_bucket": bucket("sensors", 30),
        "create_bucket_underscore": bucket("_sensors", 30),
        "delete_bucket": ("delete_bucket", {"bucket_id": "0a1b2c3d4e5f6071"}, lambda: client.buckets_api().delete_bucket("0a1b2c3d4e5f6071")),
        "get_task": ("get_task", {"task_id": "0cf3a5a6b8d2e001"}, lambda: client.tasks_api().find_task_by_id("0cf3a5a6b8d2e001")),
        "list_scripts": ("list_scripts", {}, lambda: client.invokable_scripts_api().find_scripts()),
    }  # fmt: skip


def _route(svc: _saas.Service, routes: dict[str, Reply], default: Reply) -> None:
    """The stand-in answers by path prefix (the organization lookup), ``default`` otherwise."""

    def pick(method: str, path: str) -> Reply:
        svc.requests.append((method, path))
        return next((reply for prefix, reply in routes.items() if path.startswith(prefix)), default)

    svc.pick = pick  # type: ignore[method-assign]


def cases(ctx: Any) -> Iterator[generate.Case]:
    from influxdb_client import BucketRetentionRules, InfluxDBClient
    from influxdb_client.client.write.retry import WritesRetry
    from influxdb_client.client.write_api import SYNCHRONOUS

    def client(base: str, **kwargs: Any) -> Any:
        return InfluxDBClient(url=base, token=_TOKEN, org=_ORG, timeout=int(_saas.TIMEOUT * 1000), **kwargs)

    def retried(base: str) -> Any:
        """The tool's retry policy for writes: one retry, short back-off, Retry-After ignored."""
        policy = WritesRetry(
            total=1,
            allowed_methods=["POST"],
            retry_interval=0.05,
            max_retry_delay=0.1,
            respect_retry_after_header=False,
        )
        return client(base, retries=policy)

    def case(
        cid: str,
        cause: str,
        kind: str,
        outcome: str | None,
        exc: BaseException,
        tool: str,
        args: dict[str, Any],
    ) -> generate.Case:
        return generate.Case(f"influxdb-{cid}", LIBRARY, cause, kind, outcome, exc, tool, arguments=args)

    # files the tool reads at the model's request (the model wrote only the path)
    exports = ctx.tmp / "exports"
    exports.mkdir()
    files = {
        "exports/weather-parse.lp": "weather,location=us-midwest temperature=82 1733011200000000000\nweather,location=us-east temperature=7O.5 1733011200000000000\n",
        "exports/weather-int.lp": "weather,location=us-midwest temperature=82i 1733011200000000000\n",
        "exports/weather-2019.lp": "weather,location=us-midwest temperature=71 1546300800000000000\nweather,location=us-midwest temperature=73 1546304400000000000\n",
        "exports/weather-full.lp": _LINE + "\n",
        "queries/daily-mean.flux": 'from(bucket: "sensors")\n  |> range(start: -1d)\n  |> aggregateWindow(every: 1h, fn: meen)\n',
    }  # fmt: skip
    (ctx.tmp / "queries").mkdir()
    for name, text in files.items():
        (ctx.tmp / name).write_text(text, encoding="utf-8")

    with _saas.service(ctx, "INFLUXPORT", "") as svc:
        db = client(svc.base)
        calls = _calls(db)
        for key, call, reply, kind, outcome, cause in _SCENARIOS:
            tool, args, fn = calls[call]
            svc.reply(reply)
            yield case(key, cause, kind, outcome, caught(key, fn), tool, args)

        # the server rejects what the tool read from a file the model named
        writer = db.write_api(write_options=SYNCHRONOUS)

        def import_file(path: str) -> Any:
            return writer.write(bucket="sensors", record=(ctx.tmp / path).read_text(encoding="utf-8"))

        from_files = [
            (
                "file_parse_error",
                "exports/weather-parse.lp",
                _e(
                    400,
                    "invalid",
                    "unable to parse 'weather,location=us-east temperature=7O.5 1733011200000000000': invalid number",
                    _WRITE_DOCS,
                ),
                A,
                "line protocol file the tool read has a malformed line",
            ),
            (
                "file_type_conflict",
                "exports/weather-int.lp",
                _e(422, "unprocessable entity", _CONFLICT, _WRITE_DOCS),
                A,
                "file the tool read writes an integer to a float field",
            ),
            (
                "file_outside_retention",
                "exports/weather-2019.lp",
                _e(
                    422,
                    "unprocessable entity",
                    _RETENTION.format(old="2019-01-01T00:00:00Z", new="2019-01-01T01:00:00Z", low=_LOWER),
                    _WRITE_DOCS,
                ),
                A,
                "file the tool read holds points older than the bucket's retention",
            ),
            (
                "file_too_large",
                "exports/weather-full.lp",
                _e(413, "request too large", "unable to read data: points batch is too large", _WRITE_DOCS),
                U,
                "file the tool sent is over the server's batch size limit",
            ),
        ]
        for key, path, reply, kind, cause in from_files:
            svc.reply(reply)
            args = {"bucket": "sensors", "path": path}
            yield case(
                key, cause, kind, None, caught(key, lambda: import_file(path)), "import_line_protocol", args
            )
        svc.reply(_e(400, "invalid", 'error @3:37-3:41: undefined identifier meen', _FLUX))  # fmt: skip
        args = {"path": "queries/daily-mean.flux"}
        flux = (ctx.tmp / args["path"]).read_text(encoding="utf-8")
        exc = caught("flux file", lambda: db.query_api().query(flux))
        yield case("file_flux_error", "saved Flux script the tool read does not compile", A, None, exc, "run_saved_query", args)  # fmt: skip

        # the organization the model named is not found (the client looks its ID up first)
        _route(
            svc,
            {"/api/v2/orgs": _e(404, "not found", 'organization name "acme-corp" not found')},
            Reply(201, {}),
        )
        args = {"name": "sensors", "retention_days": 30, "org": "acme-corp"}
        rules = BucketRetentionRules(type="expire", every_seconds=30 * 86400)
        exc = caught("org", lambda: db.buckets_api().create_bucket(bucket_name="sensors", retention_rules=rules, org="acme-corp"))  # fmt: skip
        yield case(
            "org_not_found", "organization named by the model not found", A, None, exc, "create_bucket", args
        )
        del svc.pick  # the class's own again

        # the tool's write retries used up (its warnings kept out of the output)
        retry_log = logging.getLogger("influxdb_client.client.write.retry")
        retry_log.disabled = True
        for key, reply, kind, outcome, cause in [
            (
                "unavailable-retried",
                _e(503, "unavailable", "service unavailable", _WRITE_DOCS, **{"Retry-After": "10"}),
                T,
                NE,
                "server unavailable (after the tool's retry)",
            ),
            (
                "too_many_requests-retried",
                _e(429, "too many requests", "exceeded rate limit", **{"Retry-After": "30"}),
                T,
                NE,
                "rate limited (after the tool's retry)",
            ),
        ]:
            svc.reply(reply)
            tool, args, fn = _calls(retried(svc.base))["write"]
            yield case(key, cause, kind, outcome, caught(key, fn), tool, args)
        tool, args, fn = _calls(retried(_saas.dead_base(ctx)))["write"]
        yield case("refused-retried", "connection refused (after the tool's retry)", T, NE, caught("refused-retried", fn), tool, args)  # fmt: skip
        retry_log.disabled = False

        # connection-level failures
        for key, kind, outcome, cause in _saas.TRANSPORT:
            svc.reply(key)
            base = {"refused": _saas.dead_base(ctx), "dns": "http://influxdb.unreachable-host.invalid:8086"}.get(key, svc.base)  # fmt: skip
            call = "query" if key in ("dns", _saas.HANG) else "write"
            tool, args, fn = _calls(client(base))[call]
            yield case(f"{key}-{call}", cause, kind, outcome, caught(key, fn), tool, args)

        # pandas missing from the tool's installation: query_data_frame needs it for the reply
        svc.reply(Reply(200, _TABLE, _HEADERS, _CSV, "text/csv; charset=utf-8"))
        deps = ["influxdb_client", "urllib3", "reactivex", "dateutil", "six", "certifi", "typing_extensions"]
        with _pkgcopy.broken_install(ctx.tmp, deps, hide=("pandas", "numpy")):
            from influxdb_client import InfluxDBClient as Bare

            bare = Bare(url=svc.base, token=_TOKEN, org=_ORG, timeout=int(_saas.TIMEOUT * 1000))
            args = {"query": 'from(bucket: "sensors")\n  |> range(start: -1h)'}
            exc = caught("pandas", lambda: bare.query_api().query_data_frame(args["query"]))
        yield case(
            "pandas_missing",
            "pandas not installed for query_data_frame",
            U,
            None,
            exc,
            "query_to_dataframe",
            args,
        )

    # the client's own checks of the model's arguments (nothing sent)
    db = client(_saas.dead_base(ctx))
    writer = db.write_api(write_options=SYNCHRONOUS)
    tasks = db.tasks_api()

    def point(args: dict[str, Any]) -> Any:
        record = {k: args[k] for k in ("measurement", "tags", "fields", "time") if k in args}
        return writer.write(bucket=args["bucket"], record=record)

    def rules(days: int) -> Any:
        return BucketRetentionRules(type="expire", every_seconds=days * 86400)

    local: list[tuple[str, str, str, dict[str, Any], Callable[[dict[str, Any]], Any]]] = [
        ("point_list_field", "field value is a list", "write_point", {"bucket": "sensors", "measurement": "weather", "tags": {"location": "us-midwest"}, "fields": {"temperature": [82, 84]}}, point),
        ("point_no_measurement", "point without a measurement", "write_point", {"bucket": "sensors", "tags": {"location": "us-midwest"}, "fields": {"temperature": 82}}, point),
        ("point_bad_time", "point time not an ISO 8601 time", "write_point", {"bucket": "sensors", "measurement": "weather", "fields": {"temperature": 82}, "time": "yesterday noon"}, point),
        ("bucket_negative_retention", "retention period negative", "create_bucket", {"name": "sensors", "retention_days": -30}, lambda a: db.buckets_api().create_bucket(bucket_name=a["name"], retention_rules=rules(a["retention_days"]), org=_ORG)),
        ("tasks_limit", "task page size over 500", "list_tasks", {"limit": 1000}, lambda a: tasks.find_tasks(**a)),
        ("tasks_unknown_option", "task listing option misspelt", "list_tasks", {"nmae": "downsample"}, lambda a: tasks.find_tasks(**a)),
    ]  # fmt: skip
    for key, cause, tool, args, fn in local:
        yield case(key, cause, F, None, caught(key, lambda: fn(args)), tool, args)
