# ruff: noqa: B023 - each lambda is called at once
"""SQLAlchemy (Core and ORM) over real SQLite files: the driver's errors as SQLAlchemy
wraps them (IntegrityError, OperationalError ...), SQLAlchemy's own (compile, statement,
pool, ORM session state), each from the cause set up."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from generate import Case

from ._common import NE, A, F, T, U, catch

LIBRARY = "sqlalchemy"
REQUIRES = ["SQLAlchemy>=2.1,<2.2"]  # its messages link to sqlalche.me/e/21


def cases(ctx: Any) -> Iterator[Case]:
    import sqlalchemy as sa
    from sqlalchemy import event
    from sqlalchemy.orm import DeclarativeBase, Session, relationship

    def case(
        cid: str, cause: str, kind: str, outcome: str | None, exc: BaseException, arguments: dict[str, Any]
    ) -> Case:
        return Case(f"sqla-{cid}", LIBRARY, cause, kind, outcome, exc, "query", arguments=arguments)

    def sql(query: str, *params: Any) -> dict[str, Any]:
        """The model's arguments: the statement (as SQLAlchemy sends it) and its parameters."""
        return {"query": query, **({"params": list(params)} if params else {})}

    class Base(DeclarativeBase):
        pass

    class Team(Base):
        __tablename__ = "teams"
        id = sa.Column(sa.Integer, primary_key=True)
        name = sa.Column(sa.String(50), unique=True)
        users = relationship("User", back_populates="team")

    class User(Base):
        __tablename__ = "users"
        id = sa.Column(sa.Integer, primary_key=True)
        email = sa.Column(sa.String(100), unique=True, nullable=False)
        age = sa.Column(sa.Integer, sa.CheckConstraint("age >= 0"))
        team_id = sa.Column(sa.ForeignKey("teams.id"))
        team = relationship("Team", back_populates="users")

    path = ctx.tmp / "app.db"
    engine = sa.create_engine(f"sqlite:///{path}", connect_args={"timeout": 0})

    @event.listens_for(engine, "connect")
    def _fk(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.execute("PRAGMA foreign_keys=ON")

    Base.metadata.create_all(engine)
    with Session(engine) as s:
        s.add(Team(id=1, name="core", users=[User(id=1, email="ann@example.com", age=30)]))
        s.add(User(id=2, email="bob@example.com", age=40))
        s.commit()
    users = User.__table__
    # (id, cause, kind, the model's arguments, the statement): SQL the model wrote, or the
    # table and values it gave where SQLAlchemy cannot compile them
    statements: list[tuple[str, str, str, dict[str, Any], Any]] = [
        (
            "unique",
            "unique constraint (the row exists)",
            A,
            sql("INSERT INTO users (email) VALUES (?)", "ann@example.com"),
            users.insert().values(email="ann@example.com"),
        ),
        (
            "not-null",
            "NOT NULL constraint",
            F,
            sql("INSERT INTO users (age) VALUES (1)"),
            sa.text("INSERT INTO users (age) VALUES (1)"),
        ),
        (
            "check",
            "CHECK constraint",
            F,
            sql("INSERT INTO users (email, age) VALUES (?, ?)", "c@example.com", -1),
            users.insert().values(email="c@example.com", age=-1),
        ),
        (
            "foreign-key",
            "foreign key: the referenced row does not exist",
            A,
            sql("INSERT INTO users (email, team_id) VALUES (?, ?)", "d@example.com", 99),
            users.insert().values(email="d@example.com", team_id=99),
        ),
        ("no-table", "missing table", F, sql("SELECT * FROM orders"), sa.text("SELECT * FROM orders")),
        ("no-column", "missing column", F, sql("SELECT name FROM users"), sa.text("SELECT name FROM users")),
        ("syntax", "SQL syntax error", F, sql("SELEC * FROM users"), sa.text("SELEC * FROM users")),
        (
            "no-function",
            "unknown SQL function",
            F,
            sql("SELECT array_agg(users.id) AS array_agg_1 \nFROM users"),
            sa.select(sa.func.array_agg(users.c.id)),
        ),
        (
            "missing-bind",
            "bind parameter without a value",
            F,
            sql("SELECT * FROM users WHERE id = :id"),
            sa.text("SELECT * FROM users WHERE id = :id"),
        ),
        (
            "unconsumed-column",
            "unknown column in insert values",
            F,
            {"table": "users", "values": {"nosuch": 1}},
            users.insert().values(nosuch=1),
        ),
        (
            "order-by-label",
            "ORDER BY a name that is no column or label",
            F,
            {"table": "users", "order_by": "nosuch"},
            sa.select(User).order_by("nosuch"),
        ),
    ]
    for cid, cause, kind, arguments, stmt in statements:
        with engine.connect() as conn:
            yield case(cid, cause, kind, None, catch(lambda: conn.execute(stmt)), arguments)
    with engine.connect() as conn:
        exc = catch(lambda: conn.exec_driver_sql("SELECT * FROM users WHERE id = ?", (1, 2)))
        yield case(
            "bindings",
            "wrong number of bindings",
            F,
            None,
            exc,
            sql("SELECT * FROM users WHERE id = ?", 1, 2),
        )
        exc = catch(lambda: conn.exec_driver_sql("SELECT 1; SELECT 2"))
        yield case("two-statements", "two statements at once", F, None, exc, sql("SELECT 1; SELECT 2"))
        update = "UPDATE users SET age = 31 WHERE id = 1"
        result = conn.execute(sa.text(update))
        yield case(
            "no-rows",
            "fetch from a statement that returns no rows",
            A,
            None,
            catch(result.fetchall),
            sql(update),
        )
        yield case(
            "already-begun",
            "transaction already begun on the connection",
            A,
            None,
            catch(conn.begin),
            sql("BEGIN"),
        )
        conn.rollback()
    closed = engine.connect()
    closed.close()
    yield case(
        "closed",
        "connection closed",
        A,
        None,
        catch(lambda: closed.execute(sa.text("SELECT 1"))),
        sql("SELECT 1"),
    )
    # locks: another connection holds the database
    locker = sqlite3.connect(path)
    locker.execute("BEGIN EXCLUSIVE")
    with engine.connect() as conn:
        exc = catch(lambda: conn.execute(users.update().values(age=5)))
    yield case("locked", "database locked by another writer", T, NE, exc, sql("UPDATE users SET age=?", 5))
    locker.rollback()
    locker.close()
    ro = sa.create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
    with ro.connect() as conn:
        yield case(
            "read-only",
            "read-only database",
            U,
            None,
            catch(lambda: conn.execute(users.delete())),
            sql("DELETE FROM users"),
        )
    # the database file the model named
    nowhere = ctx.tmp / "no-dir" / "x.db"
    missing = sa.create_engine(f"sqlite:///{nowhere}")
    yield case(
        "cannot-open",
        "database file cannot be opened",
        A,
        None,
        catch(missing.connect),
        {"database": str(nowhere)},
    )
    junk = ctx.tmp / "junk.db"
    junk.write_bytes(b"not a database file" * 100)
    with sa.create_engine(f"sqlite:///{junk}").connect() as conn:
        yield case(
            "not-a-database",
            "file is not a database",
            A,
            None,
            catch(lambda: conn.execute(sa.text("SELECT 1 FROM t"))),
            {"database": str(junk), **sql("SELECT 1 FROM t")},
        )
    strict = sa.create_engine("sqlite://")
    with strict.connect() as conn:
        conn.exec_driver_sql("CREATE TABLE m (n INTEGER) STRICT")
        exc = catch(lambda: conn.exec_driver_sql("INSERT INTO m VALUES ('ten')"))
        yield case(
            "strict-type",
            "value of the wrong type (STRICT table)",
            F,
            None,
            exc,
            sql("INSERT INTO m VALUES ('ten')"),
        )
    # pool: one connection, held
    pooled = sa.create_engine(
        f"sqlite:///{path}", poolclass=sa.QueuePool, pool_size=1, max_overflow=0, pool_timeout=0.1
    )
    held = pooled.connect()
    # the model's statement never ran (no connection): a plain query stands for it
    yield case(
        "pool-timeout",
        "connection pool exhausted (QueuePool timeout)",
        T,
        NE,
        catch(pooled.connect),
        sql("SELECT 1"),
    )
    held.close()
    # URLs and schema
    yield case(
        "no-dialect",
        "unknown database dialect in the URL",
        F,
        None,
        catch(lambda: sa.create_engine("nosuchdb://host/db")),
        {"url": "nosuchdb://host/db"},
    )
    yield case(
        "bad-url",
        "URL that cannot be parsed",
        F,
        None,
        catch(lambda: sa.create_engine("not a url")),
        {"url": "not a url"},
    )
    yield case(
        "no-driver",
        "driver not installed",
        U,
        None,
        catch(lambda: sa.create_engine("mysql+mysqldb://u@127.0.0.1/db")),
        {"url": "mysql+mysqldb://u@127.0.0.1/db"},
    )
    meta = sa.MetaData()
    exc = catch(lambda: sa.Table("orders", meta, autoload_with=engine))
    yield case("reflect-missing", "reflection of a missing table", F, None, exc, {"table": "orders"})
    meta = sa.MetaData()
    sa.Table("lines", meta, sa.Column("order_id", sa.ForeignKey("orders.id")))
    yield case(
        "fk-target-missing",
        "foreign key to a table not in the metadata",
        F,
        None,
        catch(lambda: meta.create_all(engine)),
        {"create_table": "lines", "columns": [{"name": "order_id", "foreign_key": "orders.id"}]},
    )
    exc = catch(lambda: Base.metadata.tables["users"].c.nosuch)
    yield case(
        "column-attribute", "unknown column attribute", F, None, exc, {"table": "users", "column": "nosuch"}
    )
    # ORM: the model named the table, the key and the values
    with Session(engine) as s:
        exc = catch(lambda: s.execute(sa.select(User).where(User.email == "zed@example.com")).scalar_one())
        yield case(
            "no-result",
            "exactly one row expected, none found",
            A,
            None,
            exc,
            {"table": "users", "where": {"email": "zed@example.com"}},
        )
        yield case(
            "multiple-results",
            "exactly one row expected, several found",
            A,
            None,
            catch(lambda: s.execute(sa.select(User)).scalar_one()),
            {"table": "users"},
        )
        yield case(
            "identity-size",
            "primary key with the wrong number of values",
            F,
            None,
            catch(lambda: s.get(User, (1, 2))),
            {"table": "users", "id": [1, 2]},
        )
        yield case(
            "filter-by-unknown",
            "filter on an unknown attribute",
            F,
            None,
            catch(lambda: s.query(User).filter_by(nosuch=1).all()),
            {"table": "users", "where": {"nosuch": 1}},
        )
        yield case(
            "bad-keyword",
            "unknown keyword for the mapped class",
            F,
            None,
            catch(lambda: User(nosuch=1)),
            {"table": "users", "values": {"nosuch": 1}},
        )
        yield case(
            "unmapped",
            "object of an unmapped class",
            F,
            None,
            catch(lambda: s.add({"email": "x@example.com"})),
            {"values": {"email": "x@example.com"}},
        )
    with Session(engine) as s:
        s.add(User(email="ann@example.com"))
        yield case(
            "orm-unique",
            "unique constraint at flush",
            A,
            None,
            catch(s.flush),
            {"table": "users", "values": {"email": "ann@example.com"}},
        )
        yield case(
            "pending-rollback",
            "session used after a failed flush",
            A,
            None,
            catch(lambda: s.get(User, 2)),
            {"table": "users", "id": 2},
        )
    with Session(engine) as s, Session(engine) as other:
        u = s.get(User, 2)
        other.delete(other.get(User, 2))
        other.commit()
        u.age = 41
        yield case(
            "stale-data",
            "row deleted by another session before the update",
            A,
            None,
            catch(s.flush),
            {"table": "users", "id": 2, "values": {"age": 41}},
        )
    with Session(engine) as s:
        s.add(User(id=3, email="cy@example.com"))
        s.commit()
        u = s.get(User, 3)
        with engine.begin() as conn:
            conn.execute(users.delete().where(users.c.id == 3))
        s.expire(u)
        yield case(
            "object-deleted",
            "row deleted after the object was loaded",
            A,
            None,
            catch(lambda: u.email),
            {"table": "users", "id": 3, "columns": ["email"]},
        )
    with Session(engine) as s:
        team = s.get(Team, 1)
    yield case(
        "detached",
        "lazy load on an object outside its session",
        A,
        None,
        catch(lambda: team.users),
        {"table": "teams", "id": 1, "relation": "users"},
    )
