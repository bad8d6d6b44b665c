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


def model_calls() -> list[tuple[str, Callable[[], Any]]]:
    import pandas as pd

    df = _frame()
    idx = df.set_index("region")
    ts = df.assign(date=pd.to_datetime(df["date"])).set_index("date")
    return [
        ("column-near-miss", lambda: df["revnue"]),
        ("column-case", lambda: df["Revenue"]),
        ("columns-list-one-missing", lambda: df[["region", "profit"]]),
        ("loc-missing-label", lambda: idx.loc["west"]),
        ("loc-missing-column", lambda: df.loc[:, "cost"]),
        ("iloc-out-of-bounds", lambda: df.iloc[10]),
        ("iloc-label-not-int", lambda: df.iloc["revenue"]),
        ("query-near-miss", lambda: df.query("revnue > 100")),
        ("query-sql-syntax", lambda: df.query("SELECT * WHERE revenue > 100")),
        ("query-single-equals", lambda: df.query("region = 'north'")),
        ("query-unclosed-string", lambda: df.query("region == 'north")),
        ("query-unbalanced", lambda: df.query("(revenue > 10")),
        ("groupby-missing-key", lambda: df.groupby("country").sum()),
        ("agg-unknown-function", lambda: df.groupby("region")["revenue"].agg("average")),
        ("sort-missing-column", lambda: df.sort_values("profit")),
        ("drop-missing-column", lambda: df.drop(columns=["cost"])),
        ("rename-errors-raise", lambda: df.rename(columns={"cost": "c"}, errors="raise")),
        ("merge-missing-key", lambda: df.merge(df, on="customer_id")),
        ("merge-bad-how", lambda: df.merge(df, on="region", how="full")),
        (
            "pivot-duplicates",
            lambda: pd.concat([df, df]).pivot(index="region", columns="units", values="revenue"),
        ),
        ("astype-bad-value", lambda: df["region"].astype(int)),
        ("astype-unknown-dtype", lambda: df.astype({"units": "integer64"})),
        ("to-datetime-bad-format", lambda: pd.to_datetime(df["date"], format="%d/%m/%Y")),
        ("to-datetime-words", lambda: pd.to_datetime("next friday")),
        ("to-datetime-out-of-bounds", lambda: pd.to_datetime("3024-01-01")),
        ("to-numeric-text", lambda: pd.to_numeric(pd.Series(["1", "two", "3"]))),
        ("resample-bad-rule", lambda: ts.resample("1 month").sum()),
        ("resample-not-datetime", lambda: df.resample("M").sum()),
        ("date-range-bad-freq", lambda: pd.date_range("2024-01-01", periods=3, freq="fortnight")),
        ("set-column-wrong-length", lambda: df.assign(tax=[1, 2, 3])),
        ("frame-ragged-dict", lambda: pd.DataFrame({"a": [1, 2], "b": [1, 2, 3]})),
        ("frame-columns-mismatch", lambda: pd.DataFrame([[1, 2, 3]], columns=["a", "b"])),
        ("concat-not-list", lambda: pd.concat(df)),
        ("apply-axis-bad", lambda: df.apply(len, axis=2)),
        ("fillna-bad-method", lambda: df.fillna(method="forward")),
        ("cut-bins-not-increasing", lambda: pd.cut(df["units"], bins=[4, 2, 0])),
        ("read-csv-extra-field", lambda: pd.read_csv(io.StringIO("a,b\n1,2\n3,4,5\n"))),
        ("read-csv-usecols-missing", lambda: pd.read_csv(io.StringIO("a,b\n1,2\n"), usecols=["a", "c"])),
        (
            "read-csv-parse-dates-missing",
            lambda: pd.read_csv(io.StringIO("a,b\n1,2\n"), parse_dates=["when"]),
        ),
        ("read-csv-empty", lambda: pd.read_csv(io.StringIO(""))),
        ("read-json-trailing-comma", lambda: pd.read_json(io.StringIO('[{"a": 1},]'))),
        ("series-index-missing", lambda: df["revenue"][99]),
    ]


def cases(ctx: Context) -> Iterator[Case]:
    import numpy as np
    import pandas as pd

    for name, fn in model_calls():
        exc = _catch(fn)
        yield Case(
            f"pandas-{name}",
            LIBRARY,
            f"argument to a DataFrame call ({name})",
            F,
            None,
            exc,
            "query_dataframe",
        )

    exc = _catch(lambda: pd.read_csv(ctx.tmp / "sales.csv"))
    yield Case("pandas-file-missing", LIBRARY, "file does not exist", A, None, exc, "load_table")
    broken = ctx.tmp / "export.csv"
    broken.write_text("id,name,amount\n1,ann,3\n2,bob,4,extra\n")
    exc = _catch(lambda: pd.read_csv(broken))
    yield Case("pandas-file-ragged", LIBRARY, "file on disk has a ragged row", A, None, exc, "load_table")
    latin = ctx.tmp / "legacy.csv"
    latin.write_bytes("id,city\n1,Z\u00fcrich\n".encode("latin-1"))
    exc = _catch(lambda: pd.read_csv(latin))
    yield Case("pandas-file-latin1", LIBRARY, "file on disk not UTF-8", A, None, exc, "load_table")
    parquet = ctx.tmp / "data.parquet"
    parquet.write_bytes(b"PAR1 not really")
    exc = _catch(lambda: pd.read_excel(parquet))
    yield Case(
        "pandas-file-unknown-format", LIBRARY, "file on disk of an unknown format", A, None, exc, "load_table"
    )

    exc = _catch(lambda: pd.DataFrame(np.empty((2**40, 2**20), dtype="float64")))
    yield Case("pandas-too-big", LIBRARY, "allocation beyond memory", U, None, exc, "query_dataframe")
