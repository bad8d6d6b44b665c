# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""PyArrow behind an agent's table tools: Parquet, CSV, JSON-lines and Feather files in the
tool's workspace (a directory of the module's temporary directory; the model writes paths
relative to it), read, filtered, cast, computed on, aggregated, joined and written with
``pyarrow.parquet`` / ``pyarrow.csv`` / ``pyarrow.json`` / ``pyarrow.feather`` /
``pyarrow.dataset`` / ``pyarrow.compute``, and an Arrow Flight data service (a real
``pyarrow.flight.FlightServerBase`` the module starts on 127.0.0.1 and shuts down).

The tools (one JSON schema each, :data:`TOOLS`):

- ``read_table`` ``{"path", "columns"?, "filters"?}``: ``pq.read_table(columns=, filters=)``
  with the model's DNF filters (``[["revenue", ">", 100]]``), ``pcsv.read_csv``,
  ``pj.read_json``, ``pf.read_table`` by extension;
- ``import_csv`` ``{"path", "delimiter"?, "column_types"?, "include_columns"?,
  "skip_rows"?, "encoding"?}``: ``pcsv.read_csv`` with ``ReadOptions`` / ``ParseOptions`` /
  ``ConvertOptions`` from the model's options (type names through ``pa.type_for_alias``);
- ``cast_columns`` ``{"path", "casts"}``: ``pc.cast`` of each column to the named type;
- ``compute_column`` ``{"path", "function", "column", "options"?}``: a ``pyarrow.compute``
  function by name (``pc.call_function``, or ``getattr(pc, name)(column, **options)``);
- ``aggregate_table`` ``{"path", "group_by", "aggregations"}``: ``Table.group_by().aggregate``;
- ``sort_table`` ``{"path", "sort_by"}``, ``get_rows`` ``{"path", "indices"}``
  (``Table.take``), ``join_tables`` ``{"left", "right", "keys", "join_type"?}``,
  ``append_rows`` ``{"path", "rows"}`` (``pa.Table.from_pylist`` with the file's schema),
  ``combine_files`` ``{"paths", "output"}`` (``pa.concat_tables``);
- ``convert_file`` ``{"path", "output", "compression"?, "row_group_size"?, "version"?}``:
  ``pq.write_table`` / ``pf.write_feather`` / ``pcsv.write_csv`` by the output's extension;
  ``write_dataset`` ``{"path", "output_dir", "format"?, "partition_by"?,
  "existing_data"?}``: ``ds.write_dataset`` (the tool sets ``max_partitions=16``);
- ``fetch_flight_dataset`` ``{"dataset"}`` / ``upload_flight_dataset`` ``{"dataset",
  "path"}``: ``flight.connect(...).do_get`` / ``do_put`` with the tool's token and a
  call timeout of one second; the upload starts writing once the service has had time to
  accept or refuse the call (0.3 s), so that a refusal always reaches the client at its
  first write.

Labels follow the cause that was set up (PyArrow docs: https://arrow.apache.org/docs/python/
api.html: "Exceptions" ``ArrowInvalid`` / ``ArrowTypeError`` / ``ArrowKeyError`` /
``ArrowIndexError`` / ``ArrowNotImplementedError`` / ``ArrowCapacityError``; "Compute
Functions"; ``pyarrow.parquet.read_table`` ``filters``; "CSV Reading", "Reading JSON
files", "Feather File Format", "Tabular Datasets"; "Arrow Flight RPC" and its error classes
``FlightUnavailableError``, ``FlightTimedOutError``, ``FlightUnauthenticatedError``,
``FlightUnauthorizedError``):

- fixable: a value the model wrote: a column that the file does not have (in ``columns``,
  ``filters``, a sort, a group, a join key, ``include_columns``, a partition column), a
  filter operator that does not exist or a filter that is not a 3-item list, a comparison
  value of another type than the column, a cast type name PyArrow has no alias for, a cast
  of a text column to a number, of a float column with fractions to an integer, of values
  past an ``int8``, of a date to an integer, a compute function that is not registered
  (``ArrowKeyError``), a bad regular expression, a quantile above 1, a ``binary_repeat``
  count past a 32-bit string array's capacity (``ArrowCapacityError``), an unknown
  aggregation or sort order, a row index past the end (``ArrowIndexError``), rows whose
  values do not fit the file's schema (``ArrowInvalid`` / ``ArrowTypeError``), a delimiter
  of two characters, a numeric type for a text CSV column, an encoding Python does not
  know, an unknown compression codec (``ArrowException``), a partition column with more
  values than the tool's ``max_partitions``, ``existing_data: error`` into a directory
  that has files, an output path that is a directory: a corrected call works;
- ambiguous: bytes of a file the model only named that PyArrow cannot read (a Parquet file
  truncated, empty, with a damaged footer or damaged page headers, a CSV under a
  ``.parquet`` name, a ragged CSV, an unterminated quote, text that is not UTF-8, a value
  that does not parse as the column's (right) type, a JSON line cut short, a JSON array
  instead of JSON lines, a JSON value that changed type, a Feather file cut short or that
  is Parquet, a damaged bz2 stream, a stored text value that the model's right cast
  cannot parse), files whose schemas do not fit together (concatenating months whose
  ``revenue`` types differ, joining on keys stored with different types), and a file the
  model named that does not exist (mistyped, moved or never written: the call cannot
  tell);
- unrecoverable: a file the process may not read, a directory or file it may not write
  (as an ordinary user), the ``RLIMIT_FSIZE`` file size limit (EFBIG, as a full quota)
  while writing Parquet or Feather, a Flight service that rejects the tool's token
  (``FlightUnauthenticatedError``) or denies it the dataset (``FlightUnauthorizedError``);
- transient: the Flight service refusing connections (a restart, NE), answering
  ``FlightUnavailableError`` (gRPC UNAVAILABLE, "most likely a transient condition",
  grpc.github.io/grpc/core/md_doc_statuscodes.html; NE), or not answering within the
  call's timeout (``FlightTimedOutError``; UO).

Not triggered: PyArrow's local readers take no locks and do no network I/O, so every
transient case goes through Flight; the server's own Python exceptions other than the
``Flight*Error`` classes reach the client with the server's traceback (the module's path,
not stable between checkouts), so "dataset not found" and "bad ticket" through Flight are
left out, and so is gRPC INTERNAL (whether a retry helps is not documented);
``ArrowMemoryError`` needs an allocation beyond the machine's memory; a missing PyArrow
extension module cannot be imported afresh in a process that already loaded PyArrow's
shared libraries; a codec missing from the build (the wheel has them all);
``max_open_files=0`` crashes the process (not an exception).
"""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generate import Case, _catch

from . import _files
from ._common import NE, UO, A, F, T, U

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "pyarrow"
REQUIRES = ["pyarrow==26.0.1"]


def _s(description: str) -> dict[str, str]:
    return {"type": "string", "description": description}


_PATH = _s("Path of the data file in the workspace (.parquet, .csv, .jsonl, .feather)")

TOOLS: dict[str, dict[str, Any]] = {
    "read_table": {
        "type": "object",
        "properties": {
            "path": _PATH,
            "columns": {"type": "array", "items": {"type": "string"}, "description": "Columns to read"},
            "filters": {
                "type": "array",
                "description": 'Row filters as [column, operator, value] triples, e.g. [["revenue", ">", 100]]',
            },
        },
        "required": ["path"],
    },
    "import_csv": {
        "type": "object",
        "properties": {
            "path": _s("Path of the CSV file to import"),
            "delimiter": _s("Field delimiter (default ,)"),
            "column_types": {
                "type": "object",
                "description": 'Arrow type name per column, e.g. {"units": "int64"}',
            },
            "include_columns": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Columns to keep",
            },
            "skip_rows": {"type": "integer", "description": "Rows to skip before the header"},
            "encoding": _s("Text encoding of the file (default utf8)"),
        },
        "required": ["path"],
    },
    "cast_columns": {
        "type": "object",
        "properties": {
            "path": _PATH,
            "casts": {"type": "object", "description": 'Arrow type name per column, e.g. {"units": "int32"}'},
        },
        "required": ["path", "casts"],
    },
    "compute_column": {
        "type": "object",
        "properties": {
            "path": _PATH,
            "function": _s("Name of a pyarrow.compute function, e.g. sum, utf8_upper, round"),
            "column": _s("Column to apply the function to"),
            "options": {"type": "object", "description": "Keyword options of the function"},
        },
        "required": ["path", "function", "column"],
    },
    "aggregate_table": {
        "type": "object",
        "properties": {
            "path": _PATH,
            "group_by": {"type": "array", "items": {"type": "string"}, "description": "Columns to group by"},
            "aggregations": {
                "type": "array",
                "description": 'Aggregations as [column, function] pairs, e.g. [["revenue", "sum"]]',
            },
        },
        "required": ["path", "group_by", "aggregations"],
    },
    "sort_table": {
        "type": "object",
        "properties": {
            "path": _PATH,
            "sort_by": {
                "type": "array",
                "description": 'Sort keys as [column, "ascending"|"descending"] pairs',
            },
        },
        "required": ["path", "sort_by"],
    },
    "get_rows": {
        "type": "object",
        "properties": {
            "path": _PATH,
            "indices": {
                "type": "array",
                "items": {"type": "integer"},
                "description": "Row numbers (0-based)",
            },
        },
        "required": ["path", "indices"],
    },
    "join_tables": {
        "type": "object",
        "properties": {
            "left": _s("Path of the left table"),
            "right": _s("Path of the right table"),
            "keys": {"type": "array", "items": {"type": "string"}, "description": "Join key columns"},
            "join_type": _s("left outer, right outer, inner, full outer, left semi, left anti ..."),
        },
        "required": ["left", "right", "keys"],
    },
    "append_rows": {
        "type": "object",
        "properties": {
            "path": _s("Path of the Parquet file to append to"),
            "rows": {
                "type": "array",
                "items": {"type": "object"},
                "description": "Rows as objects keyed by column",
            },
        },
        "required": ["path", "rows"],
    },
    "combine_files": {
        "type": "object",
        "properties": {
            "paths": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Parquet files to concatenate",
            },
            "output": _s("Path of the combined Parquet file"),
        },
        "required": ["paths", "output"],
    },
    "convert_file": {
        "type": "object",
        "properties": {
            "path": _PATH,
            "output": _s("Path to write; the format follows the extension (.parquet, .feather, .csv)"),
            "compression": _s("Compression codec (snappy, gzip, zstd, lz4, brotli, uncompressed)"),
            "row_group_size": {"type": "integer", "description": "Rows per Parquet row group"},
            "version": _s("Parquet format version (1.0, 2.4, 2.6)"),
        },
        "required": ["path", "output"],
    },
    "write_dataset": {
        "type": "object",
        "properties": {
            "path": _PATH,
            "output_dir": _s("Directory to write the dataset into"),
            "format": {
                "type": "string",
                "enum": ["parquet", "feather", "csv", "ipc"],
                "description": "File format",
            },
            "partition_by": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Partition columns",
            },
            "existing_data": {
                "type": "string",
                "enum": ["error", "overwrite_or_ignore", "delete_matching"],
                "description": "What to do with files already in the directory",
            },
        },
        "required": ["path", "output_dir"],
    },
    "fetch_flight_dataset": {
        "type": "object",
        "properties": {"dataset": _s("Name of the dataset on the data service")},
        "required": ["dataset"],
    },
    "upload_flight_dataset": {
        "type": "object",
        "properties": {
            "dataset": _s("Name of the dataset on the data service"),
            "path": _s("Path of the Parquet file to upload"),
        },
        "required": ["dataset", "path"],
    },
}


def _sales() -> Any:
    import pyarrow as pa

    return pa.table(
        {
            "region": ["north", "south", "east", "west"],
            "revenue": [120.5, 80.0, 45.25, 99.0],
            "units": [3, 2, 1, 4],
            "date": pa.array([19723, 19724, 19754, 19756], pa.date32()),
        }
    )


def _workspace(ws: Path) -> None:
    """The good files the tools work on."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.feather as pf
    import pyarrow.parquet as pq

    ws.mkdir()
    (ws / "exports").mkdir()
    t = _sales()
    pq.write_table(t, ws / "sales.parquet")
    pcsv.write_csv(t, ws / "sales.csv")
    pf.write_feather(t, ws / "sales.feather")
    (ws / "events.jsonl").write_text('{"user": "ada", "clicks": 3}\n{"user": "alan", "clicks": 5}\n')
    pq.write_table(
        pa.table({"region": ["north", "south"], "manager": ["Kim", "Lee"]}), ws / "regions.parquet"
    )
    pq.write_table(pa.table({"region": [1, 2], "manager": ["Kim", "Lee"]}), ws / "regions_by_id.parquet")
    pq.write_table(t.slice(0, 2), ws / "jan.parquet")
    feb = pa.table(
        {"region": ["north"], "revenue": ["130.00"], "units": [5], "date": pa.array([19754], pa.date32())}
    )
    pq.write_table(feb, ws / "feb.parquet")


def _read(path: Path, columns: list[str] | None = None, filters: list[Any] | None = None) -> Any:
    """``read_table``: the reader of the path's extension."""
    import pyarrow.csv as pcsv
    import pyarrow.feather as pf
    import pyarrow.json as pj
    import pyarrow.parquet as pq

    name = path.name
    if name.endswith(".parquet"):
        return pq.read_table(path, columns=columns, filters=[tuple(f) for f in filters] if filters else None)
    if name.endswith((".csv", ".csv.bz2", ".csv.gz")):
        table = pcsv.read_csv(path)
    elif name.endswith(".jsonl"):
        table = pj.read_json(path)
    else:
        table = pf.read_table(path)
    return table.select(columns) if columns else table


def _import_csv(path: Path, **opts: Any) -> Any:
    import pyarrow as pa
    import pyarrow.csv as pcsv

    read = pcsv.ReadOptions(skip_rows=opts.get("skip_rows", 0), encoding=opts.get("encoding", "utf8"))
    parse = pcsv.ParseOptions(delimiter=opts.get("delimiter", ","))
    types = {k: pa.type_for_alias(v) for k, v in opts.get("column_types", {}).items()}
    convert = pcsv.ConvertOptions(column_types=types, include_columns=opts.get("include_columns"))
    return pcsv.read_csv(path, read_options=read, parse_options=parse, convert_options=convert)


def _cast(path: Path, casts: dict[str, str]) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    table = _read(path)
    for name, type_name in casts.items():
        i = table.schema.get_field_index(name)
        table = table.set_column(i, name, pc.cast(table[name], pa.type_for_alias(type_name)))
    return table


def _compute(path: Path, function: str, column: str, options: dict[str, Any] | None = None) -> Any:
    import pyarrow.compute as pc

    col = _read(path)[column]
    if options:
        return getattr(pc, function)(col, **options)
    return pc.call_function(function, [col])


def _convert(path: Path, output: Path, **opts: Any) -> None:
    import pyarrow.csv as pcsv
    import pyarrow.feather as pf
    import pyarrow.parquet as pq

    table = _read(path)
    if output.suffix == ".parquet":
        pq.write_table(table, output, **opts)
    elif output.suffix == ".feather":
        pf.write_feather(table, output, **opts)
    else:
        pcsv.write_csv(table, output)


def _write_dataset(path: Path, out: Path, fmt: str = "parquet", **opts: Any) -> None:
    import pyarrow.dataset as ds

    ds.write_dataset(_read(path), out, format=fmt, max_partitions=16, **opts)


def _bytes(table: Any, writer: str) -> bytes:
    import pyarrow.feather as pf
    import pyarrow.parquet as pq

    out = io.BytesIO()
    (pq.write_table if writer == "parquet" else pf.write_feather)(table, out)
    return out.getvalue()


def _model_calls(ws: Path) -> list[tuple[str, str, str, dict[str, Any], Callable[[], Any]]]:
    """(slug, cause, tool, the model's arguments, the call): a value the model wrote."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    def w(rel: str) -> Path:
        return ws / rel

    def table() -> Any:
        return _read(w("sales.parquet"))

    big = pa.table({"id": [1000 + i for i in range(40)], "amount": [float(i) for i in range(40)]})
    pq.write_table(big, w("orders.parquet"))
    (w("exports") / "full").mkdir()
    pq.write_table(big, w("exports") / "full" / "part-0.parquet")
    sp = "sales.parquet"
    return [
        ("read-column-missing", "column the file does not have", "read_table",
         {"path": sp, "columns": ["region", "profit"]}, lambda: _read(w(sp), ["region", "profit"])),
        ("filter-column-missing", "filter on a column the file does not have", "read_table",
         {"path": sp, "filters": [["revnue", ">", 100]]}, lambda: _read(w(sp), filters=[["revnue", ">", 100]])),
        ("filter-operator", "filter operator that does not exist", "read_table",
         {"path": sp, "filters": [["region", "~=", "n"]]}, lambda: _read(w(sp), filters=[["region", "~=", "n"]])),
        ("filter-pair", "filter without an operator", "read_table",
         {"path": sp, "filters": [["region", "north"]]}, lambda: _read(w(sp), filters=[["region", "north"]])),
        ("filter-text-vs-number", "filter comparing a text column to a number", "read_table",
         {"path": sp, "filters": [["region", ">", 100]]}, lambda: _read(w(sp), filters=[["region", ">", 100]])),
        ("csv-delimiter-two-chars", "delimiter of two characters", "import_csv",
         {"path": "sales.csv", "delimiter": ";;"}, lambda: _import_csv(w("sales.csv"), delimiter=";;")),
        ("csv-type-of-text-column", "numeric type for a text column", "import_csv",
         {"path": "sales.csv", "column_types": {"region": "int64"}},
         lambda: _import_csv(w("sales.csv"), column_types={"region": "int64"})),
        ("csv-include-missing", "column to keep that the CSV does not have", "import_csv",
         {"path": "sales.csv", "include_columns": ["region", "profit"]},
         lambda: _import_csv(w("sales.csv"), include_columns=["region", "profit"])),
        ("csv-encoding", "encoding name that does not exist", "import_csv",
         {"path": "sales.csv", "encoding": "latin-9x"}, lambda: _import_csv(w("sales.csv"), encoding="latin-9x")),
        ("cast-text-to-int", "cast of a text column to a number", "cast_columns",
         {"path": sp, "casts": {"region": "int64"}}, lambda: _cast(w(sp), {"region": "int64"})),
        ("cast-float-truncated", "cast of fractional values to an integer", "cast_columns",
         {"path": sp, "casts": {"revenue": "int64"}}, lambda: _cast(w(sp), {"revenue": "int64"})),
        ("cast-int8-overflow", "integer type too small for the values", "cast_columns",
         {"path": "orders.parquet", "casts": {"id": "int8"}}, lambda: _cast(w("orders.parquet"), {"id": "int8"})),
        ("cast-alias", "type name that is not an Arrow alias", "cast_columns",
         {"path": sp, "casts": {"units": "integer"}}, lambda: _cast(w(sp), {"units": "integer"})),
        ("cast-date-to-int", "cast of a date to a 64-bit integer", "cast_columns",
         {"path": sp, "casts": {"date": "int64"}}, lambda: _cast(w(sp), {"date": "int64"})),
        ("compute-unknown-function", "compute function that is not registered", "compute_column",
         {"path": sp, "function": "summ", "column": "revenue"}, lambda: _compute(w(sp), "summ", "revenue")),
        ("compute-regex", "unbalanced regular expression", "compute_column",
         {"path": sp, "function": "match_substring_regex", "column": "region", "options": {"pattern": "(nor"}},
         lambda: _compute(w(sp), "match_substring_regex", "region", {"pattern": "(nor"})),
        ("compute-quantile", "quantile above 1", "compute_column",
         {"path": sp, "function": "quantile", "column": "revenue", "options": {"q": 95}},
         lambda: _compute(w(sp), "quantile", "revenue", {"q": 95})),
        ("compute-repeat-capacity", "repeat count past a string array's capacity", "compute_column",
         {"path": sp, "function": "binary_repeat", "column": "region", "options": {"num_repeats": 2147483648}},
         lambda: pc.binary_repeat(table()["region"], 2147483648)),
        ("aggregate-group-missing", "group column the file does not have", "aggregate_table",
         {"path": sp, "group_by": ["regon"], "aggregations": [["revenue", "sum"]]},
         lambda: table().group_by(["regon"]).aggregate([("revenue", "sum")])),
        ("aggregate-function-unknown", "aggregation function that does not exist", "aggregate_table",
         {"path": sp, "group_by": ["region"], "aggregations": [["revenue", "total"]]},
         lambda: table().group_by(["region"]).aggregate([("revenue", "total")])),
        ("sort-order", "sort order 'desc'", "sort_table",
         {"path": sp, "sort_by": [["revenue", "desc"]]}, lambda: table().sort_by([("revenue", "desc")])),
        ("sort-column-missing", "sort column the file does not have", "sort_table",
         {"path": "events.jsonl", "sort_by": [["timestamp", "ascending"]]},
         lambda: _read(w("events.jsonl")).sort_by([("timestamp", "ascending")])),
        ("rows-index-past-end", "row number past the last row", "get_rows",
         {"path": sp, "indices": [0, 10]}, lambda: table().take([0, 10])),
        ("join-key-missing", "join key the left table does not have", "join_tables",
         {"left": sp, "right": "regions.parquet", "keys": ["regio"]},
         lambda: table().join(_read(w("regions.parquet")), "regio")),
        ("append-text-for-number", "row value of another type than the column", "append_rows",
         {"path": sp, "rows": [{"region": "north", "revenue": "n/a", "units": 1}]},
         lambda: pa.Table.from_pylist([{"region": "north", "revenue": "n/a", "units": 1}], schema=table().schema)),
        ("append-number-for-text", "number in a text column", "append_rows",
         {"path": sp, "rows": [{"region": 7, "revenue": 10.0, "units": 1}]},
         lambda: pa.Table.from_pylist([{"region": 7, "revenue": 10.0, "units": 1}], schema=table().schema)),
        ("append-date-text", "date written day first", "append_rows",
         {"path": sp, "rows": [{"region": "east", "revenue": 5.0, "units": 1, "date": "05/02/2024"}]},
         lambda: pa.Table.from_pylist([{"region": "east", "revenue": 5.0, "units": 1, "date": "05/02/2024"}], schema=table().schema)),
        ("convert-compression", "compression codec that does not exist", "convert_file",
         {"path": sp, "output": "exports/sales.parquet", "compression": "zip"},
         lambda: _convert(w(sp), w("exports/sales.parquet"), compression="zip")),
        ("convert-output-directory", "output path that is a directory", "convert_file",
         {"path": sp, "output": "exports"}, lambda: _convert(w(sp), w("exports"))),
        ("dataset-partition-missing", "partition column the file does not have", "write_dataset",
         {"path": sp, "output_dir": "exports/by_region", "partition_by": ["regon"]},
         lambda: _write_dataset(w(sp), w("exports/by_region"), partitioning=["regon"])),
        ("dataset-too-many-partitions", "partition column with more values than the tool allows", "write_dataset",
         {"path": "orders.parquet", "output_dir": "exports/by_id", "partition_by": ["id"]},
         lambda: _write_dataset(w("orders.parquet"), w("exports/by_id"), partitioning=["id"])),
        ("dataset-existing-error", "existing_data 'error' into a directory with files", "write_dataset",
         {"path": "orders.parquet", "output_dir": "exports/full", "existing_data": "error"},
         lambda: _write_dataset(w("orders.parquet"), w("exports/full"), existing_data_behavior="error")),
    ]  # fmt: skip


def cases(ctx: Context) -> Iterator[Case]:
    ws = ctx.tmp / "workspace"
    _workspace(ws)

    def case(slug: str, cause: str, kind: str, exc: BaseException, tool: str, args: dict[str, Any], outcome: str | None = None) -> Case:  # fmt: skip
        return Case(f"pyarrow-{slug}", LIBRARY, cause, kind, outcome, exc, tool, args, TOOLS[tool])

    for slug, cause, tool, args, fn in _model_calls(ws):
        yield case(slug, cause, F, _catch(fn), tool, args)
    yield from _bad_files(ws, case)
    yield from _refusals(ctx, ws, case)
    yield from _flight(ctx, ws, case)


def _bad_files(ws: Path, case: Callable[..., Case]) -> Iterator[Case]:
    """Files the model only named, whose bytes PyArrow cannot read (ambiguous)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    good = _bytes(_sales(), "parquet")
    footer = bytearray(good)
    footer[-8:-4] = b"\xff\xff\xff\x7f"  # footer length past the file
    pages = bytearray(good)
    for i in range(4, 60):  # the first page header
        pages[i] ^= 0x5A
    feather = _bytes(_sales(), "feather")
    files: list[tuple[str, str, bytes, str, dict[str, Any]]] = [
        ("parquet-truncated", "Parquet file cut short", good[: len(good) // 2], "exports/q1.parquet", {}),
        ("parquet-empty", "empty Parquet file", b"", "exports/q2.parquet", {}),
        ("parquet-footer", "Parquet footer length damaged", bytes(footer), "exports/q3.parquet", {}),
        ("parquet-page-header", "Parquet page header damaged", bytes(pages), "exports/q4.parquet", {}),
        ("parquet-is-csv", "CSV saved under a .parquet name", b"region,revenue\nnorth,1\n", "exports/q5.parquet", {}),
        ("csv-ragged", "CSV row with an extra field", b"region,revenue,units\nnorth,1.5,2\nsouth,3.0,4,5\n",
         "exports/ragged.csv", {}),
        ("csv-unterminated-quote", "CSV quote never closed", b'region,revenue,units\n"north,1.5,2\nsouth,3.0,4\n',
         "exports/quoted.csv", {}),
        ("csv-bz2-damaged", "bz2-compressed CSV cut short", b"BZh91AY&SY", "exports/sales.csv.bz2", {}),
        ("jsonl-line-cut", "JSON line cut short", b'{"user": "ada", "clicks": 3}\n{"user": "alan",\n',
         "exports/events.jsonl", {}),
        ("jsonl-array", "JSON array instead of JSON lines", b'[{"user": "ada", "clicks": 3}]\n',
         "exports/events3.jsonl", {}),
        ("jsonl-type-changed", "JSON value changed type between lines",
         b'{"user": "ada", "clicks": 3}\n{"user": "alan", "clicks": "five"}\n', "exports/events2.jsonl", {}),
        ("feather-truncated", "Feather file cut short", feather[: len(feather) // 2], "exports/sales.feather", {}),
        ("feather-is-parquet", "Parquet file under a .feather name", good, "exports/sales2.feather", {}),
    ]  # fmt: skip
    for slug, cause, content, rel, extra in files:
        (ws / rel).write_bytes(content)
        exc = _catch(lambda: _read(ws / rel, filters=extra.get("filters")))
        yield case(slug, cause, A, exc, "read_table", {"path": rel, **extra})

    # values in the file that do not parse as the column's (right) type
    (ws / "exports/feb.csv").write_bytes(b"region,revenue,units\nnorth,1.5,2\nsouth,3.0,unknown\n")
    exc = _catch(lambda: _import_csv(ws / "exports/feb.csv", column_types={"units": "int64"}))
    yield case("csv-value-unparsable", "CSV value that is not a number", A, exc, "import_csv",
               {"path": "exports/feb.csv", "column_types": {"units": "int64"}})  # fmt: skip
    (ws / "exports/latin1.csv").write_bytes("region,revenue,units\nZürich,1.5,2\n".encode("latin-1"))
    exc = _catch(lambda: _import_csv(ws / "exports/latin1.csv", column_types={"region": "string"}))
    yield case("csv-not-utf8", "CSV text that is not UTF-8", A, exc, "import_csv",
               {"path": "exports/latin1.csv", "column_types": {"region": "string"}})  # fmt: skip
    pq.write_table(
        pa.table({"region": ["north", "south"], "units": ["3", "three"]}), ws / "exports/apr.parquet"
    )
    exc = _catch(lambda: _cast(ws / "exports/apr.parquet", {"units": "int64"}))
    yield case("cast-stored-text", "stored value that is not a number", A, exc, "cast_columns",
               {"path": "exports/apr.parquet", "casts": {"units": "int64"}})  # fmt: skip

    # files whose schemas do not fit together
    exc = _catch(lambda: pa.concat_tables([_read(ws / "jan.parquet"), _read(ws / "feb.parquet")]))
    yield case("combine-dtype-mismatch", "monthly files with revenue of different types", A, exc,
               "combine_files", {"paths": ["jan.parquet", "feb.parquet"], "output": "exports/q1.parquet"})  # fmt: skip
    exc = _catch(lambda: _read(ws / "sales.parquet").join(_read(ws / "regions_by_id.parquet"), "region"))
    yield case("join-key-types", "join key stored with different types", A, exc, "join_tables",
               {"left": "sales.parquet", "right": "regions_by_id.parquet", "keys": ["region"]})  # fmt: skip

    # paths that do not exist
    for slug, rel in (("missing-parquet", "exports/q3_final.parquet"), ("missing-csv", "sales_2023.csv")):
        exc = _catch(lambda: _read(ws / rel))
        yield case(slug, "file that does not exist", A, exc, "read_table", {"path": rel})


def _refusals(ctx: Context, ws: Path, case: Callable[..., Case]) -> Iterator[Case]:
    """The operating system's refusals (unrecoverable)."""
    import pyarrow.parquet as pq

    _files.read_only_dir(ctx.tmp / "ro-probe")  # makes ctx.tmp searchable by nobody
    ws.chmod(0o777)
    secret = ws / "payroll.parquet"
    pq.write_table(_sales(), secret)
    secret.chmod(0o000)
    exc = _files.denied(lambda: _read(secret))
    yield case(
        "file-unreadable",
        "file not readable (permissions)",
        U,
        exc,
        "read_table",
        {"path": "payroll.parquet"},
    )
    (ws / "payroll.csv").write_text("region,revenue\nnorth,1\n")
    (ws / "payroll.csv").chmod(0o000)
    exc = _files.denied(lambda: _import_csv(ws / "payroll.csv"))
    yield case(
        "csv-unreadable", "file not readable (permissions)", U, exc, "import_csv", {"path": "payroll.csv"}
    )
    ro = _files.read_only_dir(ws / "published")
    exc = _files.denied(lambda: _convert(ws / "sales.parquet", ro / "sales.parquet"))
    yield case("write-dir-read-only", "directory not writable (permissions)", U, exc, "convert_file",
               {"path": "sales.parquet", "output": "published/sales.parquet"})  # fmt: skip
    exc = _files.denied(lambda: _convert(ws / "sales.parquet", ro / "sales.csv"))
    yield case("write-csv-dir-read-only", "directory not writable (permissions)", U, exc, "convert_file",
               {"path": "sales.parquet", "output": "published/sales.csv"})  # fmt: skip
    exc = _files.denied(
        lambda: _write_dataset(ws / "sales.parquet", ro / "by_region", partitioning=["region"])
    )
    yield case("dataset-dir-read-only", "directory not writable (permissions)", U, exc, "write_dataset",
               {"path": "sales.parquet", "output_dir": "published/by_region", "partition_by": ["region"]})  # fmt: skip
    locked = ws / "exports" / "locked.feather"
    locked.write_bytes(b"")
    locked.chmod(0o444)
    (ws / "exports").chmod(0o777)
    exc = _files.denied(lambda: _convert(ws / "sales.parquet", locked))
    yield case("write-file-read-only", "file not writable (permissions)", U, exc, "convert_file",
               {"path": "sales.parquet", "output": "exports/locked.feather"})  # fmt: skip

    import pyarrow as pa

    big = pa.table({"id": list(range(20000)), "note": [f"order {i:08d}" for i in range(20000)]})
    pq.write_table(big, ws / "orders_big.parquet", compression="none")
    for slug, out in (("parquet", "exports/orders.parquet"), ("feather", "exports/orders.feather")):
        with _files.file_size_limit(4096):
            exc = _catch(lambda: _convert(ws / "orders_big.parquet", ws / out))
        yield case(f"file-size-limit-{slug}", "file size limit reached (quota)", U, exc, "convert_file",
                   {"path": "orders_big.parquet", "output": out})  # fmt: skip


def _flight(ctx: Context, ws: Path, case: Callable[..., Case]) -> Iterator[Case]:
    """An Arrow Flight data service on 127.0.0.1: refused, unavailable, slow, and the
    tool's token refused or not allowed the dataset."""
    import pyarrow.flight as fl
    import pyarrow.parquet as pq

    good = "Bearer tok-analytics"

    class Token(fl.ServerMiddleware):
        def __init__(self, value: str) -> None:
            self.value = value

    class Auth(fl.ServerMiddlewareFactory):
        """The call's bearer token, checked by the handlers."""

        def start_call(self, info: Any, headers: dict[str, list[str]]) -> Any:
            return Token(headers.get("authorization", [""])[0])

    class Server(fl.FlightServerBase):
        def __init__(self) -> None:
            super().__init__("grpc://127.0.0.1:0", middleware={"auth": Auth()})
            self.mode = ""

        def _check(self, context: Any, dataset: str) -> None:
            if context.get_middleware("auth").value != good:
                raise fl.FlightUnauthenticatedError("invalid or expired token")
            if self.mode == "unavailable":
                raise fl.FlightUnavailableError("data service is draining for a restart, try again later")
            if self.mode == "busy":
                raise fl.FlightUnavailableError("too many concurrent streams (limit 64), retry later")
            if self.mode == "slow":
                time.sleep(2.5)
            if dataset == "payroll":
                raise fl.FlightUnauthorizedError("token may not access dataset 'payroll'")

        def do_get(self, context: Any, ticket: Any) -> Any:
            self._check(context, ticket.ticket.decode())
            return fl.RecordBatchStream(_sales())

        def do_put(self, context: Any, descriptor: Any, reader: Any, writer: Any) -> None:
            self._check(context, descriptor.path[0].decode())
            reader.read_all()

    server = Server()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    table = pq.read_table(ws / "sales.parquet")

    def fetch(port: int, dataset: str, token: str = good) -> Any:
        client = fl.connect(f"grpc://127.0.0.1:{port}")
        options = fl.FlightCallOptions(timeout=1.0, headers=[(b"authorization", token.encode())])
        try:
            return client.do_get(fl.Ticket(dataset.encode()), options).read_all()
        finally:
            client.close()

    def upload(port: int, dataset: str, token: str = good) -> None:
        client = fl.connect(f"grpc://127.0.0.1:{port}")
        options = fl.FlightCallOptions(timeout=1.0, headers=[(b"authorization", token.encode())])
        try:
            writer, _ = client.do_put(fl.FlightDescriptor.for_path(dataset), table.schema, options)
            time.sleep(0.3)
            writer.write_table(table)
            writer.close()
        finally:
            client.close()

    try:
        ctx.name_port(server.port, "FLIGHTPORT")
        sales = {"dataset": "sales"}
        put = {"dataset": "sales_2024", "path": "sales.parquet"}
        exc = _catch(lambda: fetch(ctx.dead, "sales"))
        yield case(
            "flight-refused", "data service refusing connections", T, exc, "fetch_flight_dataset", sales, NE
        )
        exc = _catch(lambda: upload(ctx.dead, "sales_2024"))
        yield case(
            "flight-refused-put",
            "data service refusing connections",
            T,
            exc,
            "upload_flight_dataset",
            put,
            NE,
        )
        server.mode = "unavailable"
        exc = _catch(lambda: fetch(server.port, "sales"))
        yield case("flight-unavailable", "data service unavailable (restarting)", T, exc,
                   "fetch_flight_dataset", sales, NE)  # fmt: skip
        exc = _catch(lambda: upload(server.port, "sales_2024"))
        yield case("flight-unavailable-put", "data service unavailable (restarting)", T, exc,
                   "upload_flight_dataset", put, NE)  # fmt: skip
        server.mode = "busy"
        exc = _catch(lambda: fetch(server.port, "sales"))
        yield case(
            "flight-busy", "data service at its stream limit", T, exc, "fetch_flight_dataset", sales, NE
        )
        server.mode = "slow"
        exc = _catch(lambda: fetch(server.port, "sales"))
        yield case(
            "flight-timeout", "data service did not answer in time", T, exc, "fetch_flight_dataset", sales, UO
        )
        exc = _catch(lambda: upload(server.port, "sales_2024"))
        yield case("flight-timeout-put", "data service did not answer in time", T, exc,
                   "upload_flight_dataset", put, UO)  # fmt: skip
        time.sleep(2.0)  # the slow handlers have returned
        server.mode = ""
        exc = _catch(lambda: fetch(server.port, "sales", "Bearer tok-expired"))
        yield case("flight-unauthenticated", "token rejected", U, exc, "fetch_flight_dataset", sales)
        exc = _catch(lambda: upload(server.port, "sales_2024", "Bearer tok-expired"))
        yield case("flight-unauthenticated-put", "token rejected", U, exc, "upload_flight_dataset", put)
        exc = _catch(lambda: fetch(server.port, "payroll"))
        yield case("flight-unauthorized", "token not allowed the dataset", U, exc,
                   "fetch_flight_dataset", {"dataset": "payroll"})  # fmt: skip
        exc = _catch(lambda: upload(server.port, "payroll"))
        yield case("flight-unauthorized-put", "token not allowed the dataset", U, exc,
                   "upload_flight_dataset", {"dataset": "payroll", "path": "sales.parquet"})  # fmt: skip
    finally:
        server.shutdown()
        thread.join(timeout=10)
