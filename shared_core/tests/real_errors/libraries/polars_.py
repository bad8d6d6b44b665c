# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""polars behind an agent's table tools: SQL, expressions, casts, joins, options and paths the
model wrote (fixable), CSV / Parquet / JSON / Arrow files the model named that are malformed or
of another schema than the call needs, and rows or files it named that are not there
(ambiguous), and files, directories, size limits and installations that refuse
(unrecoverable).

The tools (paths are relative to the tool's workspace directory):

- ``sql_query`` ``{"sql", "files"}``: each file is read and registered in a
  ``pl.SQLContext`` under its stem (``sales.csv`` -> ``sales``), then the model's SQL runs;
- ``transform_table`` ``{"path", "operation", ...}``: one DataFrame method or expression
  (``select``, ``cast``, ``rename``, ``with_column``, ``add_column``, ``struct_field``,
  ``quantile``, ``sample``, ``parse_dates``, ``match``) on the file's frame;
- ``get_row`` ``{"path", "index"}`` / ``{"path", "where"}``: ``DataFrame.row``;
- ``load_table`` ``{"path", "columns"?, "separator"?, "encoding"?}``:
  ``read_csv`` / ``read_parquet`` / ``read_json`` / ``read_ndjson`` / ``read_ipc`` by
  extension with the model's options; ``load_sales_export`` ``{"path"}`` reads a CSV with
  the tool's documented sales schema (``order_id`` Int64, ``region`` String, ``revenue``
  Float64, ``units`` Int64, ``date`` Date);
- ``join_tables`` ``{"left", "right", "on", "how"}``, ``append_tables`` ``{"paths"}``
  (``pl.concat`` / ``scan_parquet`` over several files), ``export_table`` ``{"path",
  "output"}`` (``write_parquet`` / ``write_csv`` / ``write_excel``), ``load_workbook``
  ``{"path"}`` (``read_excel``), ``load_delta`` ``{"path"}`` and ``query_database``
  ``{"sql"}`` (``read_database_uri`` with the tool's connection URI).

Labels follow the cause that was set up (polars docs: https://docs.pola.rs/api/python/stable/reference/
"SQL Interface" / ``SQLContext``, "Expressions", ``DataFrame.cast`` / ``join`` / ``row`` /
``sample``, "Input/output" ``read_csv`` / ``read_parquet`` / ``read_json`` / ``read_ndjson``,
and "Exceptions": ``ColumnNotFoundError``, ``ComputeError``, ``DuplicateError``,
``InvalidOperationError``, ``NoDataError``, ``OutOfBoundsError``, ``SchemaError``,
``ShapeError``, ``SQLInterfaceError``, ``SQLSyntaxError``, ``StructFieldNotFoundError``,
``NoRowsReturnedError`` / ``TooManyRowsReturnedError``).

Fixable: SQL the model wrote (a typo in a keyword, a column or table that the files do not
have, a function or type polars' SQL does not support, a column outside ``GROUP BY``, a
string compared to a number, a strict ``CAST`` of text, a double-quoted
string taken as a column, two statements, an impossible ``DATE`` literal, a duplicate
output name); expressions and options (a column name misspelled, a dtype name polars does
not parse, arithmetic on a text column, a rename onto an existing column, a struct field
that does not exist, a row index past the end, a ``where`` that matches several rows, a
list of values of the wrong length, a join ``how`` or key that does not exist, an
unclosed regular expression, a quantile over 1, a sample larger than the table without
replacement, a date format that does not fit the column, a column list, separator or
encoding ``read_csv`` rejects) and an
output path in a directory that does not exist: a corrected call works.

Ambiguous: a file the model named whose bytes polars cannot read (a ragged or
unterminated-quote CSV, non-UTF-8 text, an empty file, a value the tool's sales schema
cannot parse: ``n/a`` in ``units``, ``2024-02-30`` in ``date``; a Parquet file that is
truncated, empty, a CSV under a ``.parquet`` name or has a damaged footer; JSON with a
trailing comma, truncated, or an HTML page saved in its place; an NDJSON line cut short; an
Arrow file that is not Arrow), files whose schemas do not fit together (appending files
without the same columns or dtypes, joining on keys of different dtypes, a file without
the column the model's valid request uses), a path or glob that matches no file, and a
``where`` that matches no row: the data, not the model's call, is at fault, or cannot be
told apart from a wrong name.

Unrecoverable: a file the process may not read, a directory or file it may not write (as
an ordinary user), a file size limit (``RLIMIT_FSIZE``: EFBIG, as a full quota) while
writing Parquet or CSV, and installations without polars or without the optional
packages the call needs (``fastexcel``, ``xlsxwriter``, ``deltalake``, ``connectorx``;
polars' own "required package ... not found" messages; the packages are hidden from the
import system for the case so that the result does not depend on what else is installed).

Not triggerable: polars takes no locks and its local readers do no network I/O; its
object-store reader of http(s) URLs retries with back-off and reports the elapsed time in
its messages (not stable between runs), so no transient case is recorded. A polars
installation without its binary runtime only warns at import. Memory exhaustion aborts the
process (a Rust allocation failure), so it is not recorded.
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

LIBRARY = "polars"
REQUIRES = ["polars==2.1.0"]

SALES = (
    "order_id,region,revenue,units,date\n"
    "1,north,120.0,3,2024-01-05\n"
    "2,south,80.5,2,2024-01-06\n"
    "3,north,99.9,4,2024-02-01\n"
    "4,east,45.0,1,2024-02-03\n"
)
REGIONS = "region,manager,target\nnorth,Ann,300\nsouth,Bo,200\neast,Cy,150\n"


def _read(path: Path, **options: Any) -> Any:
    import polars as pl

    suffix = path.suffix
    if suffix == ".parquet":
        return pl.read_parquet(path, **options)
    if suffix == ".json":
        return pl.read_json(path, **options)
    if suffix == ".ndjson":
        return pl.read_ndjson(path, **options)
    if suffix == ".arrow":
        return pl.read_ipc(path, **options)
    return pl.read_csv(path, **options)


def _sales_schema() -> dict[str, Any]:
    import polars as pl

    return {
        "order_id": pl.Int64,
        "region": pl.String,
        "revenue": pl.Float64,
        "units": pl.Int64,
        "date": pl.Date,
    }


def _load_sales_export(path: Path) -> Any:
    import polars as pl

    return pl.read_csv(path, schema_overrides=_sales_schema())


def _sql(ws: Path, sql: str, files: list[str]) -> Any:
    import polars as pl

    ctx = pl.SQLContext()
    for name in files:
        ctx.register(Path(name).stem, _read(ws / name))
    return ctx.execute(sql, eager=True)


class _Workspace:
    """The tool's workspace: the files every case reads unless it wrote its own."""

    def __init__(self, root: Path) -> None:
        import polars as pl

        self.root = root
        root.mkdir()
        (root / "sales.csv").write_text(SALES)
        (root / "regions.csv").write_text(REGIONS)
        frame = pl.read_csv(root / "sales.csv", schema_overrides=_sales_schema())
        frame.write_parquet(root / "sales.parquet")
        frame.with_columns(pl.struct(channel=pl.lit("web"), rep=pl.lit("ann")).alias("meta")).write_ndjson(
            root / "orders.ndjson"
        )
        self.parquet = (root / "sales.parquet").read_bytes()

    def __truediv__(self, name: str) -> Path:
        return self.root / name

    def write(self, name: str, data: str | bytes) -> str:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return name


def _model_calls(ws: _Workspace) -> list[tuple[str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, tool, the model's arguments, the call): the bad value is the model's."""
    import polars as pl

    def frame(name: str = "sales.csv") -> Any:
        return _read(ws / name)

    def sql(
        slug: str, query: str, files: tuple[str, ...] = ("sales.csv",)
    ) -> tuple[str, str, dict[str, Any], Callable[[], Any]]:
        return (
            f"sql-{slug}",
            "sql_query",
            {"sql": query, "files": list(files)},
            lambda: _sql(ws.root, query, list(files)),
        )

    return [
        sql("keyword-typo", "SELEC region, SUM(revenue) FROM sales GROUP BY region"),
        sql("column-typo", "SELECT regoin, revenue FROM sales"),
        sql("table-not-registered", "SELECT * FROM orders WHERE units > 2"),
        sql("unsupported-function", "SELECT DATEADD(day, 7, date) AS due FROM sales"),
        sql("not-grouped", "SELECT region, revenue FROM sales GROUP BY region"),
        sql("compare-text-to-number", "SELECT * FROM sales WHERE region > 5"),
        sql(
            "cast-text-to-int",
            "SELECT CAST(manager AS INTEGER) AS m FROM regions WHERE region = 'north'",
            ("regions.csv",),
        ),
        sql("double-quoted-string", 'SELECT * FROM sales WHERE region = "north"'),
        sql(
            "two-statements",
            "SELECT COUNT(*) FROM sales; SELECT COUNT(*) FROM regions",
            ("sales.csv", "regions.csv"),
        ),
        sql("date-literal-invalid", "SELECT * FROM sales WHERE date > DATE '2024-13-01'"),
        sql("duplicate-alias", "SELECT revenue AS total, units AS total FROM sales"),
        (
            "select-column-typo",
            "transform_table",
            {"path": "sales.csv", "operation": "select", "columns": ["revnue"]},
            lambda: frame().select(pl.col("revnue")),
        ),
        (
            "cast-dtype-name",
            "transform_table",
            {"path": "sales.csv", "operation": "cast", "dtypes": {"units": "integer"}},
            lambda: frame().cast({"units": "integer"}),
        ),
        (
            "arithmetic-on-text",
            "transform_table",
            {
                "path": "sales.csv",
                "operation": "with_column",
                "expr": {"column": "region", "op": "*", "value": 2},
            },
            lambda: frame().with_columns(pl.col("region") * 2),
        ),
        (
            "rename-onto-existing",
            "transform_table",
            {"path": "sales.csv", "operation": "rename", "mapping": {"units": "revenue"}},
            lambda: frame().rename({"units": "revenue"}),
        ),
        (
            "struct-field-missing",
            "transform_table",
            {"path": "orders.ndjson", "operation": "struct_field", "column": "meta", "field": "colour"},
            lambda: frame("orders.ndjson").select(pl.col("meta").struct.field("colour")),
        ),
        (
            "values-wrong-length",
            "transform_table",
            {"path": "sales.csv", "operation": "add_column", "name": "target", "values": [300, 200, 150]},
            lambda: frame().with_columns(pl.Series("target", [300, 200, 150])),
        ),
        (
            "quantile-over-one",
            "transform_table",
            {"path": "sales.csv", "operation": "quantile", "column": "revenue", "q": 1.5},
            lambda: frame().select(pl.col("revenue").quantile(1.5)),
        ),
        (
            "sample-too-large",
            "transform_table",
            {"path": "sales.csv", "operation": "sample", "n": 10},
            lambda: frame().sample(n=10),
        ),
        (
            "date-format-mismatch",
            "transform_table",
            {"path": "sales.csv", "operation": "parse_dates", "column": "date", "format": "%d/%m/%Y"},
            lambda: frame().select(pl.col("date").str.to_date("%d/%m/%Y")),
        ),
        (
            "regex-unclosed",
            "transform_table",
            {"path": "sales.csv", "operation": "match", "column": "region", "pattern": "(nor|sou"},
            lambda: frame().filter(pl.col("region").str.contains("(nor|sou")),
        ),
        ("row-index-past-end", "get_row", {"path": "sales.csv", "index": 10}, lambda: frame().row(10)),
        (
            "row-where-several",
            "get_row",
            {"path": "sales.csv", "where": {"region": "north"}},
            lambda: frame().row(by_predicate=pl.col("region") == "north"),
        ),
        (
            "join-how-unknown",
            "join_tables",
            {"left": "sales.csv", "right": "regions.csv", "on": "region", "how": "outer_left"},
            lambda: frame().join(frame("regions.csv"), on="region", how="outer_left"),
        ),
        (
            "join-key-typo",
            "join_tables",
            {"left": "sales.csv", "right": "regions.csv", "on": "regoin", "how": "left"},
            lambda: frame().join(frame("regions.csv"), on="regoin", how="left"),
        ),
        (
            "load-columns-unknown",
            "load_table",
            {"path": "sales.csv", "columns": ["order_id", "profit"]},
            lambda: pl.read_csv(ws / "sales.csv", columns=["order_id", "profit"]),
        ),
        (
            "load-separator-two-chars",
            "load_table",
            {"path": "sales.csv", "separator": ";;"},
            lambda: pl.read_csv(ws / "sales.csv", separator=";;"),
        ),
        (
            "load-encoding-unknown",
            "load_table",
            {"path": "sales.csv", "encoding": "latin-9"},
            lambda: pl.read_csv(ws / "sales.csv", encoding="latin-9"),
        ),
        (
            "export-dir-missing",
            "export_table",
            {"path": "sales.csv", "output": "reports/2024/sales.parquet"},
            lambda: frame().write_parquet(ws / "reports/2024/sales.parquet"),
        ),
    ]


def _bad_files(ws: _Workspace) -> list[tuple[str, str, dict[str, Any], Callable[[], Any], str]]:
    """(slug, tool, the model's arguments, the call, cause): the fault is in the files."""
    import polars as pl

    pq = ws.parquet
    ragged = ws.write("exports/ragged.csv", SALES + "5,west,10.0,1,2024-02-04,late\n")
    quote = ws.write("exports/quote.csv", SALES + '5,"west,10.0,1,2024-02-04\n')
    latin = ws.write("exports/latin1.csv", "order_id,region\n1,München\n".encode("latin-1"))
    empty = ws.write("exports/empty.csv", "")
    na_units = ws.write("exports/sales-na.csv", SALES + "5,west,10.0,n/a,2024-02-04\n")
    bad_date = ws.write("exports/sales-feb30.csv", SALES + "5,west,10.0,1,2024-02-30\n")
    truncated_pq = ws.write("exports/truncated.parquet", pq[: len(pq) // 2])
    empty_pq = ws.write("exports/empty.parquet", b"")
    csv_pq = ws.write("exports/renamed.parquet", SALES)
    footer_pq = ws.write("exports/footer.parquet", pq[:-12] + b"\x00" * 8 + pq[-4:])
    comma_json = ws.write(
        "exports/trailing-comma.json", '[{"order_id": 1, "region": "north"}, {"order_id": 2,}]'
    )
    cut_json = ws.write("exports/cut.json", '[{"order_id": 1, "region": "north"}, {"order_id": 2')
    html_json = ws.write("exports/page.json", "<html><body><h1>502 Bad Gateway</h1></body></html>")
    cut_ndjson = ws.write("exports/cut.ndjson", '{"order_id": 1}\n{"order_id": 2\n{"order_id": 3}\n')
    not_arrow = ws.write("exports/sales.arrow", SALES)
    narrow = ws.write("exports/sales-narrow.csv", "order_id,region\n1,north\n2,south\n")
    pl.read_csv(ws / narrow).write_parquet(ws / "exports/march.parquet")
    (
        pl.read_parquet(ws / "sales.parquet")
        .with_columns(pl.col("units").cast(pl.String))
        .write_parquet(ws / "exports/april.parquet")
    )
    ids_text = ws.write("exports/regions-by-id.csv", "order_id,note\nA-1,rush\nA-2,gift\n")

    def load(name: str) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        return ("load_table", {"path": name}, lambda: _read(ws / name))

    def sales(name: str) -> tuple[str, dict[str, Any], Callable[[], Any]]:
        return ("load_sales_export", {"path": name}, lambda: _load_sales_export(ws / name))

    return [
        ("csv-ragged-row", *load(ragged), "CSV row with more fields than the header"),
        ("csv-unterminated-quote", *load(quote), "CSV with an unterminated quote"),
        ("csv-not-utf8", *load(latin), "CSV saved as Latin-1"),
        ("csv-empty", *load(empty), "empty CSV file"),
        ("sales-units-na", *sales(na_units), "export holds n/a in the integer units column"),
        ("sales-date-invalid", *sales(bad_date), "export holds an impossible date"),
        ("parquet-truncated", *load(truncated_pq), "Parquet file truncated"),
        ("parquet-empty", *load(empty_pq), "empty Parquet file"),
        ("parquet-is-csv", *load(csv_pq), "CSV saved under a .parquet name"),
        ("parquet-footer-damaged", *load(footer_pq), "Parquet footer damaged"),
        ("json-trailing-comma", *load(comma_json), "JSON with a trailing comma"),
        ("json-truncated", *load(cut_json), "JSON file cut short"),
        ("json-html-page", *load(html_json), "HTML error page saved as JSON"),
        ("ndjson-line-cut", *load(cut_ndjson), "NDJSON line cut short"),
        ("arrow-not-arrow", *load(not_arrow), "CSV saved under an .arrow name"),
        (
            "select-column-file-lacks",
            "transform_table",
            {"path": narrow, "operation": "select", "columns": ["region", "revenue"]},
            lambda: _read(ws / narrow).select("region", "revenue"),
            "export lacks the revenue column",
        ),
        (
            "append-column-missing",
            "append_tables",
            {"paths": ["sales.parquet", "exports/march.parquet"]},
            lambda: pl.scan_parquet([ws / "sales.parquet", ws / "exports/march.parquet"]).collect(),
            "monthly files without the same columns",
        ),
        (
            "append-dtype-mismatch",
            "append_tables",
            {"paths": ["sales.parquet", "exports/april.parquet"]},
            lambda: pl.scan_parquet([ws / "sales.parquet", ws / "exports/april.parquet"]).collect(),
            "monthly files with units of different dtypes",
        ),
        (
            "concat-width-mismatch",
            "append_tables",
            {"paths": ["sales.csv", narrow]},
            lambda: pl.concat([_read(ws / "sales.csv"), _read(ws / narrow)]),
            "files with different numbers of columns",
        ),
        (
            "join-key-dtypes-differ",
            "join_tables",
            {"left": "sales.csv", "right": ids_text, "on": "order_id", "how": "left"},
            lambda: _read(ws / "sales.csv").join(_read(ws / ids_text), on="order_id", how="left"),
            "join key is an integer in one file, text in the other",
        ),
        (
            "file-not-found",
            "load_table",
            {"path": "exports/sales-2024-03.csv"},
            lambda: _read(ws / "exports/sales-2024-03.csv"),
            "file the model named does not exist",
        ),
        (
            "glob-matches-nothing",
            "append_tables",
            {"paths": ["exports/2025-*.csv"]},
            lambda: pl.scan_csv(ws / "exports/2025-*.csv").collect(),
            "glob the model named matches no file",
        ),
        (
            "row-where-none",
            "get_row",
            {"path": "sales.csv", "where": {"region": "west"}},
            lambda: _read(ws / "sales.csv").row(by_predicate=pl.col("region") == "west"),
            "no row matches the model's where",
        ),
    ]


def cases(ctx: Context) -> Iterator[Case]:
    import polars.io.database
    import polars.io.delta
    import polars.io.spreadsheet.functions  # noqa: F401 - imported before the broken installs

    ws = _Workspace(ctx.tmp / "ws")
    for slug, tool, args, fn in _model_calls(ws):
        exc = _catch(fn)
        yield Case(f"polars-{slug}", LIBRARY, f"the model's argument ({slug})", F, None, exc, tool, args)
    for slug, tool, args, fn, cause in _bad_files(ws):
        exc = _catch(fn)
        yield Case(f"polars-{slug}", LIBRARY, cause, A, None, exc, tool, args)
    yield from _refusals(ctx, ws)


def _refusals(ctx: Context, ws: _Workspace) -> Iterator[Case]:
    import polars as pl

    frame = _read(ws / "sales.csv")
    # files and directories the process may not read or write (as an ordinary user)
    private = ws.write("private/payroll.csv", SALES)
    (ws / private).chmod(0o000)
    _files.read_only_dir(ws.root / "shared")  # makes the directories searchable by nobody
    locked = ws.write("published.csv", SALES)
    (ws / locked).chmod(0o444)
    denied: list[tuple[str, str, dict[str, Any], Callable[[], Any], str]] = [
        (
            "file-unreadable",
            "load_table",
            {"path": private},
            lambda: _read(ws / private),
            "file not readable (permissions)",
        ),
        (
            "file-unreadable-sql",
            "sql_query",
            {"sql": "SELECT * FROM payroll", "files": [private]},
            lambda: _sql(ws.root, "SELECT * FROM payroll", [private]),
            "file not readable (permissions)",
        ),
        (
            "dir-read-only",
            "export_table",
            {"path": "sales.csv", "output": "shared/sales.parquet"},
            lambda: frame.write_parquet(ws / "shared/sales.parquet"),
            "output directory not writable (permissions)",
        ),
        (
            "file-read-only",
            "export_table",
            {"path": "sales.csv", "output": locked},
            lambda: frame.write_csv(ws / locked),
            "output file not writable (permissions)",
        ),
    ]
    for slug, tool, args, fn, cause in denied:
        exc = _files.denied(fn)
        yield Case(f"polars-{slug}", LIBRARY, cause, U, None, exc, tool, args)

    # a file size limit (a full quota) while writing
    big = pl.DataFrame({"order_id": range(3000), "note": [f"row {i} " * 4 for i in range(3000)]})
    for slug, output, write in [
        ("file-size-limit-parquet", "exports/orders.parquet", big.write_parquet),
        ("file-size-limit-csv", "exports/orders.csv", big.write_csv),
    ]:
        with _files.file_size_limit(256):
            exc = _catch(lambda: write(ws / output))
        yield Case(
            f"polars-{slug}",
            LIBRARY,
            "file size limit reached (quota)",
            U,
            None,
            exc,
            "export_table",
            {"path": "orders.ndjson", "output": output},
        )

    # installations without polars or without the optional package a call needs
    workbook = ws.write("exports/sales.xlsx", b"PK\x03\x04" + b"\x00" * 26)
    optional: list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]] = [
        ("fastexcel", "load_workbook", "fastexcel", {"path": workbook}, lambda: pl.read_excel(ws / workbook)),
        (
            "xlsxwriter",
            "export_table",
            "xlsxwriter",
            {"path": "sales.csv", "output": "exports/sales-report.xlsx"},
            lambda: frame.write_excel(ws / "exports/sales-report.xlsx"),
        ),
        (
            "deltalake",
            "load_delta",
            "deltalake",
            {"path": "lake/sales"},
            lambda: pl.read_delta(str(ws / "lake/sales")),
        ),
        (
            "connectorx",
            "query_database",
            "connectorx",
            {"sql": "SELECT region, SUM(revenue) FROM sales GROUP BY region"},
            lambda: pl.read_database_uri(
                "SELECT region, SUM(revenue) FROM sales GROUP BY region",
                "postgresql://reports@127.0.0.1:5432/sales",
            ),
        ),
    ]
    for slug, tool, package, args, fn in optional:
        with _pkgcopy.broken_install(ctx.tmp, [], hide=(package,)):
            exc = _catch(fn)
        yield Case(
            f"polars-missing-{slug}",
            LIBRARY,
            f"optional dependency {package} not installed",
            U,
            None,
            exc,
            tool,
            args,
        )
    with _pkgcopy.broken_install(ctx.tmp, [], hide=("polars", "_polars_runtime_32")):
        exc = _catch(lambda: importlib.import_module("polars"))
    yield Case(
        "polars-module-missing",
        LIBRARY,
        "polars is not installed",
        U,
        None,
        exc,
        "load_table",
        {"path": "sales.csv"},
    )
