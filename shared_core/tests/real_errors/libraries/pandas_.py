"""pandas: column names, queries, formats and CSV/JSON text the model wrote in its
arguments (fixable); files on disk (ambiguous); allocation beyond memory (unrecoverable)."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from generate import A, Case, F, U, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "pandas"
REQUIRES = ["pandas>=2.2,<3", "numpy>=1.26,<3"]


def _frame() -> Any:
    import pandas as pd

    return pd.DataFrame(
        {
            "region": ["north", "south", "north", "east"],
            "revenue": [120.0, 80.5, 99.9, 45.0],
            "units": [3, 2, 4, 1],
            "date": ["2024-01-05", "2024-01-06", "2024-02-01", "2024-02-03"],
        }
    )


def model_calls() -> list[tuple[str, dict[str, Any], Callable[[], Any]]]:
    """(slug, the model's arguments, the call): the frame is the table the tool loaded."""
    import pandas as pd

    df = _frame()
    idx = df.set_index("region")
    ts = df.assign(date=pd.to_datetime(df["date"])).set_index("date")
    return [
        ("column-near-miss", {"operation": "select", "column": "revnue"}, lambda: df["revnue"]),
        ("column-case", {"operation": "select", "column": "Revenue"}, lambda: df["Revenue"]),
        (
            "columns-list-one-missing",
            {"operation": "select", "columns": ["region", "profit"]},
            lambda: df[["region", "profit"]],
        ),
        (
            "loc-missing-label",
            {"operation": "loc", "index": "region", "row": "west"},
            lambda: idx.loc["west"],
        ),
        ("loc-missing-column", {"operation": "loc", "column": "cost"}, lambda: df.loc[:, "cost"]),
        ("iloc-out-of-bounds", {"operation": "iloc", "row": 10}, lambda: df.iloc[10]),
        ("iloc-label-not-int", {"operation": "iloc", "row": "revenue"}, lambda: df.iloc["revenue"]),
        ("query-near-miss", {"operation": "query", "expr": "revnue > 100"}, lambda: df.query("revnue > 100")),
        (
            "query-sql-syntax",
            {"operation": "query", "expr": "SELECT * WHERE revenue > 100"},
            lambda: df.query("SELECT * WHERE revenue > 100"),
        ),
        (
            "query-single-equals",
            {"operation": "query", "expr": "region = 'north'"},
            lambda: df.query("region = 'north'"),
        ),
        (
            "query-unclosed-string",
            {"operation": "query", "expr": "region == 'north"},
            lambda: df.query("region == 'north"),
        ),
        (
            "query-unbalanced",
            {"operation": "query", "expr": "(revenue > 10"},
            lambda: df.query("(revenue > 10"),
        ),
        (
            "groupby-missing-key",
            {"operation": "groupby", "by": "country", "agg": "sum"},
            lambda: df.groupby("country").sum(),
        ),
        (
            "agg-unknown-function",
            {"operation": "groupby", "by": "region", "column": "revenue", "agg": "average"},
            lambda: df.groupby("region")["revenue"].agg("average"),
        ),
        ("sort-missing-column", {"operation": "sort", "by": "profit"}, lambda: df.sort_values("profit")),
        (
            "drop-missing-column",
            {"operation": "drop", "columns": ["cost"]},
            lambda: df.drop(columns=["cost"]),
        ),
        (
            "rename-errors-raise",
            {"operation": "rename", "columns": {"cost": "c"}},
            lambda: df.rename(columns={"cost": "c"}, errors="raise"),
        ),
        (
            "merge-missing-key",
            {"operation": "merge", "on": "customer_id"},
            lambda: df.merge(df, on="customer_id"),
        ),
        (
            "merge-bad-how",
            {"operation": "merge", "on": "region", "how": "full"},
            lambda: df.merge(df, on="region", how="full"),
        ),
        (
            "pivot-duplicates",
            {"operation": "pivot", "index": "region", "columns": "units", "values": "revenue"},
            lambda: pd.concat([df, df]).pivot(index="region", columns="units", values="revenue"),
        ),
        (
            "astype-bad-value",
            {"operation": "astype", "column": "region", "dtype": "int"},
            lambda: df["region"].astype(int),
        ),
        (
            "astype-unknown-dtype",
            {"operation": "astype", "dtypes": {"units": "integer64"}},
            lambda: df.astype({"units": "integer64"}),
        ),
        (
            "to-datetime-bad-format",
            {"operation": "to_datetime", "column": "date", "format": "%d/%m/%Y"},
            lambda: pd.to_datetime(df["date"], format="%d/%m/%Y"),
        ),
        (
            "to-datetime-words",
            {"operation": "to_datetime", "value": "next friday"},
            lambda: pd.to_datetime("next friday"),
        ),
        (
            "to-datetime-out-of-bounds",
            {"operation": "to_datetime", "value": "3024-01-01"},
            lambda: pd.to_datetime("3024-01-01"),
        ),
        (
            "to-numeric-text",
            {"operation": "to_numeric", "values": ["1", "two", "3"]},
            lambda: pd.to_numeric(pd.Series(["1", "two", "3"])),
        ),
        (
            "resample-bad-rule",
            {"operation": "resample", "on": "date", "rule": "1 month", "agg": "sum"},
            lambda: ts.resample("1 month").sum(),
        ),
        (
            "resample-not-datetime",
            {"operation": "resample", "rule": "M", "agg": "sum"},
            lambda: df.resample("M").sum(),
        ),
        (
            "date-range-bad-freq",
            {"operation": "date_range", "start": "2024-01-01", "periods": 3, "freq": "fortnight"},
            lambda: pd.date_range("2024-01-01", periods=3, freq="fortnight"),
        ),
        (
            "set-column-wrong-length",
            {"operation": "assign", "column": "tax", "values": [1, 2, 3]},
            lambda: df.assign(tax=[1, 2, 3]),
        ),
        (
            "frame-ragged-dict",
            {"operation": "create", "data": {"a": [1, 2], "b": [1, 2, 3]}},
            lambda: pd.DataFrame({"a": [1, 2], "b": [1, 2, 3]}),
        ),
        (
            "frame-columns-mismatch",
            {"operation": "create", "data": [[1, 2, 3]], "columns": ["a", "b"]},
            lambda: pd.DataFrame([[1, 2, 3]], columns=["a", "b"]),
        ),
        ("concat-not-list", {"operation": "concat", "frames": "df"}, lambda: pd.concat(df)),
        (
            "apply-axis-bad",
            {"operation": "apply", "function": "len", "axis": 2},
            lambda: df.apply(len, axis=2),
        ),
        (
            "fillna-bad-method",
            {"operation": "fillna", "method": "forward"},
            lambda: df.fillna(method="forward"),
        ),
        (
            "cut-bins-not-increasing",
            {"operation": "cut", "column": "units", "bins": [4, 2, 0]},
            lambda: pd.cut(df["units"], bins=[4, 2, 0]),
        ),
        (
            "read-csv-extra-field",
            {"operation": "read_csv", "text": "a,b\n1,2\n3,4,5\n"},
            lambda: pd.read_csv(io.StringIO("a,b\n1,2\n3,4,5\n")),
        ),
        (
            "read-csv-usecols-missing",
            {"operation": "read_csv", "text": "a,b\n1,2\n", "usecols": ["a", "c"]},
            lambda: pd.read_csv(io.StringIO("a,b\n1,2\n"), usecols=["a", "c"]),
        ),
        (
            "read-csv-parse-dates-missing",
            {"operation": "read_csv", "text": "a,b\n1,2\n", "parse_dates": ["when"]},
            lambda: pd.read_csv(io.StringIO("a,b\n1,2\n"), parse_dates=["when"]),
        ),
        ("read-csv-empty", {"operation": "read_csv", "text": ""}, lambda: pd.read_csv(io.StringIO(""))),
        (
            "read-json-trailing-comma",
            {"operation": "read_json", "text": '[{"a": 1},]'},
            lambda: pd.read_json(io.StringIO('[{"a": 1},]')),
        ),
        (
            "series-index-missing",
            {"operation": "get", "column": "revenue", "row": 99},
            lambda: df["revenue"][99],
        ),
    ]


def cases(ctx: Context) -> Iterator[Case]:
    import numpy as np
    import pandas as pd

    for name, args, fn in model_calls():
        exc = _catch(fn)
        cause = f"argument to a DataFrame call ({name})"
        yield Case(f"pandas-{name}", LIBRARY, cause, F, None, exc, "query_dataframe", arguments=args)

    # files the tool read: the arguments hold only the path
    sales = ctx.tmp / "sales.csv"
    exc = _catch(lambda: pd.read_csv(sales))
    cause = "file does not exist"
    yield Case(
        "pandas-file-missing", LIBRARY, cause, A, None, exc, "load_table", arguments={"path": str(sales)}
    )
    broken = ctx.tmp / "export.csv"
    broken.write_text("id,name,amount\n1,ann,3\n2,bob,4,extra\n")
    exc = _catch(lambda: pd.read_csv(broken))
    cause = "file on disk has a ragged row"
    yield Case(
        "pandas-file-ragged", LIBRARY, cause, A, None, exc, "load_table", arguments={"path": str(broken)}
    )
    latin = ctx.tmp / "legacy.csv"
    latin.write_bytes("id,city\n1,Z\u00fcrich\n".encode("latin-1"))
    exc = _catch(lambda: pd.read_csv(latin))
    cause = "file on disk not UTF-8"
    yield Case(
        "pandas-file-latin1", LIBRARY, cause, A, None, exc, "load_table", arguments={"path": str(latin)}
    )
    parquet = ctx.tmp / "data.parquet"
    parquet.write_bytes(b"PAR1 not really")
    exc = _catch(lambda: pd.read_excel(parquet))
    cause = "file on disk of an unknown format"
    args = {"path": str(parquet)}
    yield Case("pandas-file-unknown-format", LIBRARY, cause, A, None, exc, "load_table", arguments=args)

    exc = _catch(lambda: pd.DataFrame(np.empty((2**40, 2**20), dtype="float64")))
    args = {"operation": "create", "shape": [2**40, 2**20]}
    yield Case(
        "pandas-too-big", LIBRARY, "allocation beyond memory", U, None, exc, "query_dataframe", arguments=args
    )
