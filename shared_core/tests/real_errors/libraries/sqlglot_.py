# ruff: noqa: B023 - each lambda is called at once, in its own loop turn
"""sqlglot: SQL the model wrote in its arguments, parsed or transpiled before it runs
(fixable); a migration file on disk (ambiguous)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from generate import A, Case, F, _catch

if TYPE_CHECKING:
    from libraries import Context

LIBRARY = "sqlglot"
REQUIRES = ["sqlglot>=25,<30"]

MODEL_SQL: list[tuple[str, str, str | None]] = [
    ("unclosed-paren", "SELECT count(* FROM orders", None),
    ("unclosed-string", "SELECT * FROM users WHERE name = 'Ann", None),
    ("missing-from-table", "SELECT id FROM WHERE id = 1", None),
    ("double-where", "SELECT * FROM t WHERE a = 1 WHERE b = 2", None),
    ("insert-values-unclosed", "INSERT INTO t (a, b) VALUES (1, 2", None),
    ("update-no-set", "UPDATE users name = 'x' WHERE id = 1", None),
    ("delete-star", "DELETE * FROM users", None),
    ("join-no-on-keyword", "SELECT * FROM a JOIN b a.id = b.id", None),
    ("case-no-end", "SELECT CASE WHEN a > 1 THEN 'x' ELSE 'y' FROM t", None),
    ("in-no-parens", "SELECT * FROM t WHERE a IN 1, 2", None),
    ("double-equals", "SELECT * FROM t WHERE a == 1 AND", None),
    ("unbalanced-close", "SELECT (a + b)) FROM t", None),
    ("cte-no-select", "WITH x AS (SELECT 1) ", None),
    ("window-unclosed", "SELECT rank() OVER (PARTITION BY a ORDER BY b FROM t", None),
    ("markdown-fence", "```sql\nSELECT 1\n```", None),
    ("two-statements-no-semicolon", "SELECT 1 SELECT 2", None),
    ("mysql-backtick-unclosed", "SELECT `id FROM users", "mysql"),
    ("postgres-cast-incomplete", "SELECT a:: FROM t", "postgres"),
    ("bigquery-unclosed-struct", "SELECT STRUCT(1 AS a FROM t", "bigquery"),
    ("snowflake-qualify-no-expr", "SELECT a FROM t QUALIFY", "snowflake"),
    ("tsql-top-no-number", "SELECT TOP FROM t", "tsql"),
    ("jinja-placeholder", "SELECT * FROM {{ table }} WHERE id = {{ id }}", None),
    ("unknown-dialect", "SELECT 1", "mssql-server"),
]


def cases(ctx: Context) -> Iterator[Case]:
    import sqlglot

    for name, sql, dialect in MODEL_SQL:
        exc = _catch(lambda: sqlglot.parse(sql, read=dialect, error_level=sqlglot.ErrorLevel.RAISE))
        args = {"query": sql} if dialect is None else {"query": sql, "dialect": dialect}
        cause = f"SQL from the arguments ({name})"
        yield Case(f"sqlglot-{name}", LIBRARY, cause, F, None, exc, "run_sql", arguments=args)
    for name, sql, read, write in [
        ("transpile-bad-target", "SELECT 1", "duckdb", "oracle9i"),
    ]:
        exc = _catch(
            lambda: sqlglot.transpile(sql, read=read, write=write, unsupported_level=sqlglot.ErrorLevel.RAISE)
        )
        args = {"query": sql, "dialect": read, "target_dialect": write}
        cause = f"SQL or dialect from the arguments ({name})"
        yield Case(f"sqlglot-{name}", LIBRARY, cause, F, None, exc, "run_sql", arguments=args)

    # migration files on disk: the arguments hold only the path
    missing = ctx.tmp / "0042_add_index.sql"
    exc = _catch(lambda: sqlglot.parse(missing.read_text()))
    cause = "migration file does not exist"
    yield Case(
        "sqlglot-file-missing",
        LIBRARY,
        cause,
        A,
        None,
        exc,
        "run_migration",
        arguments={"path": str(missing)},
    )
    broken = ctx.tmp / "0043_orders.sql"
    broken.write_text("CREATE TABLE orders (\n  id INT PRIMARY KEY,\n  total NUMERIC(10, 2\n);\n")
    exc = _catch(lambda: sqlglot.parse(broken.read_text(), error_level=sqlglot.ErrorLevel.RAISE))
    cause = "migration file on disk is broken SQL"
    yield Case(
        "sqlglot-file-broken", LIBRARY, cause, A, None, exc, "run_migration", arguments={"path": str(broken)}
    )
