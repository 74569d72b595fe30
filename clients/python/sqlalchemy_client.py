"""SQLAlchemy 1.4 and pandas 1.5 (Debian's python3-sqlalchemy, python3-pandas)
over psycopg2, with their defaults, as notebooks and BI tools use them.

Run by clients/clients_test.go as `/usr/bin/python3 sqlalchemy_client.py URL`,
against Loam and against PostgreSQL 15: every expectation below must hold on
both. The engine's first connect runs the dialect's probes (version,
current_schema, standard_conforming_strings, the hstore OID lookup…);
reflection runs its pg_catalog queries (pg_class, pg_attribute joins,
pg_get_constraintdef, pg_index, ANY(ARRAY[...]), regclass casts…).
"""
import datetime as dt
import decimal
import sys
import warnings

import numpy as np
import pandas as pd
import sqlalchemy as sa
from sqlalchemy import func, inspect, text
from sqlalchemy.orm import Session, declarative_base

D = decimal.Decimal
UTC = dt.timezone.utc


def check(what, got, want):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def raises(what, fn, sqlstate):
    try:
        fn()
    except sa.exc.DBAPIError as e:
        check(f"{what} sqlstate", e.orig.pgcode, sqlstate)
        return
    raise AssertionError(f"{what}: no error, want SQLSTATE {sqlstate}")


CALLS = [
    (1, dt.datetime(2026, 11, 1, 0, 0, 1, tzinfo=UTC), "gpt-4o", 120, D("0.0125"), "ok"),
    (2, dt.datetime(2026, 11, 1, 0, 5, 0, tzinfo=UTC), "gpt-4o", 80, D("0.0040"), "ok"),
    (3, dt.datetime(2026, 11, 1, 0, 9, 30, tzinfo=UTC), "claude", 200, D("0.0300"), "error"),
    (4, dt.datetime(2026, 11, 1, 1, 0, 0, tzinfo=UTC), "claude", 50, None, None),
]


def core(engine):
    with engine.connect() as conn:
        check("select 1", conn.execute(text("SELECT 1")).scalar(), 1)
        check("server version", engine.dialect.server_version_info[0], 15)
        check("default schema", engine.dialect.default_schema_name, "public")
        for t in ("sqla_calls", "sqla_models", "sqla_pk2", "sqla_df", "sqla_multi", "sqla_odd"):
            conn.execute(text(f"DROP TABLE IF EXISTS {t}"))
        conn.execute(text("""CREATE TABLE sqla_calls (
            id int8 NOT NULL PRIMARY KEY, ts timestamptz NOT NULL, model text,
            tokens int4, cost numeric(10,4), status varchar(16))"""))
        conn.commit()

    # executemany through Core: a list of parameter dicts.
    with engine.begin() as conn:
        r = conn.execute(text("INSERT INTO sqla_calls VALUES (:id, :ts, :model, :tokens, :cost, :status)"),
                         [dict(zip(("id", "ts", "model", "tokens", "cost", "status"), c)) for c in CALLS])
        check("executemany rowcount", r.rowcount, len(CALLS))

    with engine.connect() as conn:
        rows = conn.execute(text("SELECT id, model, cost FROM sqla_calls WHERE tokens > :n AND model = :m ORDER BY id"),
                            {"n": 60, "m": "gpt-4o"}).all()
        check("text() with binds", [tuple(r) for r in rows], [(1, "gpt-4o", D("0.0125")), (2, "gpt-4o", D("0.0040"))])
        r = conn.execute(text("SELECT ts, cost FROM sqla_calls WHERE id = :id"), {"id": 1}).one()
        check("timestamptz, numeric", (r.ts.astimezone(UTC), r.cost), (CALLS[0][1], CALLS[0][4]))
        raises("division by zero", lambda: conn.execute(text("SELECT 1/0")), "22012")
        conn.rollback()
        check("usable after error", conn.execute(text("SELECT count(*) FROM sqla_calls")).scalar(), 4)

    # Reflection: autoload and the inspector.
    md = sa.MetaData()
    calls = sa.Table("sqla_calls", md, autoload_with=engine)
    check("reflected columns", [c.name for c in calls.columns], ["id", "ts", "model", "tokens", "cost", "status"])
    check("reflected types", [type(c.type).__name__ for c in calls.columns],
          ["BIGINT", "TIMESTAMP", "TEXT", "INTEGER", "NUMERIC", "VARCHAR"])
    check("timestamptz", calls.c.ts.type.timezone, True)
    check("numeric precision", (calls.c.cost.type.precision, calls.c.cost.type.scale), (10, 4))
    check("varchar length", calls.c.status.type.length, 16)
    check("nullable", [c.nullable for c in calls.columns], [False, False, True, True, True, True])
    check("primary key", [c.name for c in calls.primary_key.columns], ["id"])

    insp = inspect(engine)
    check("has_table", (insp.has_table("sqla_calls"), insp.has_table("no_such_table")), (True, False))
    names = insp.get_table_names()
    check("get_table_names", "sqla_calls" in names, True)
    check("get_schema_names", insp.get_schema_names(), ["information_schema", "public"])
    # BI tools (Superset) name the schema.
    check("get_table_names(schema)", insp.get_table_names(schema="public") == names, True)
    check("has_table(schema)", insp.has_table("sqla_calls", schema="public"), True)
    check("get_columns(schema)", [c["name"] for c in insp.get_columns("sqla_calls", schema="public")],
          ["id", "ts", "model", "tokens", "cost", "status"])
    check("schema-qualified autoload", len(sa.Table("sqla_calls", sa.MetaData(), schema="public",
                                                    autoload_with=engine).columns), 6)
    cols = insp.get_columns("sqla_calls")
    check("get_columns", [(c["name"], str(c["type"]), c["nullable"], c["default"], c["autoincrement"]) for c in cols],
          [("id", "BIGINT", False, None, False), ("ts", "TIMESTAMP", False, None, False),
           ("model", "TEXT", True, None, False), ("tokens", "INTEGER", True, None, False),
           ("cost", "NUMERIC(10, 4)", True, None, False), ("status", "VARCHAR(16)", True, None, False)])
    pk = insp.get_pk_constraint("sqla_calls")
    check("get_pk_constraint", (pk["constrained_columns"], pk["name"]), (["id"], "sqla_calls_pkey"))
    check("get_foreign_keys", insp.get_foreign_keys("sqla_calls"), [])
    # The primary key's index is not listed: SQLAlchemy skips constraint indexes.
    check("get_indexes", insp.get_indexes("sqla_calls"), [])
    check("get_unique_constraints", insp.get_unique_constraints("sqla_calls"), [])
    check("get_check_constraints", insp.get_check_constraints("sqla_calls"), [])
    check("get_view_names", "sqla_calls" in insp.get_view_names(), False)
    check("table comment", insp.get_table_comment("sqla_calls"), {"text": None})

    # Core expressions on the reflected table.
    with engine.connect() as conn:
        q = sa.select(calls.c.model, func.sum(calls.c.tokens).label("tokens"), func.count().label("n")) \
            .group_by(calls.c.model).order_by(calls.c.model)
        check("func.sum group_by", [tuple(r) for r in conn.execute(q)], [("claude", 250, 2), ("gpt-4o", 200, 2)])
        q = sa.select(calls.c.id).where(calls.c.ts >= dt.datetime(2026, 11, 1, 0, 5, tzinfo=UTC),
                                        calls.c.status.is_(None)).order_by(calls.c.id)
        check("where with binds", conn.execute(q).scalars().all(), [4])
        q = sa.select(calls.c.id).where(calls.c.model.in_(["claude", "x"])).order_by(calls.c.id)
        check("in_ (expanding)", conn.execute(q).scalars().all(), [3, 4])

    # The ORM, reading: a mapped class, a grouped query, get by key.
    Base = declarative_base()

    class Call(Base):
        __tablename__ = "sqla_calls"
        id = sa.Column(sa.BigInteger, primary_key=True)
        model = sa.Column(sa.Text)
        tokens = sa.Column(sa.Integer)

    with Session(engine) as s:
        check("orm query", s.query(Call.model, func.sum(Call.tokens)).group_by(Call.model).order_by(Call.model).all(),
              [("claude", 250), ("gpt-4o", 200)])
        check("orm get", (s.get(Call, 3).model, s.get(Call, 99)), ("claude", None))

    check("views", insp.get_view_names(include=("plain", "materialized")), [])
    check("sequences", insp.get_sequence_names(), [])
    check("enums", insp.get_enums(), [])

    # MetaData.create_all, executemany through Core insert(), rollback.
    md2 = sa.MetaData()
    models = sa.Table("sqla_models", md2,
                      sa.Column("name", sa.Text, primary_key=True),
                      sa.Column("vendor", sa.String(32), nullable=False),
                      sa.Column("ctx", sa.Integer),
                      sa.Column("price", sa.Numeric(12, 6)),
                      sa.Column("score", sa.Float),
                      sa.Column("big", sa.BigInteger),
                      sa.Column("small", sa.SmallInteger),
                      sa.Column("active", sa.Boolean),
                      sa.Column("released", sa.Date),
                      sa.Column("seen", sa.DateTime(timezone=True)),
                      sa.Column("local", sa.DateTime))
    md2.create_all(engine)
    check("create_all made it", inspect(engine).has_table("sqla_models"), True)
    md2.create_all(engine)  # checkfirst: a second run does nothing
    rows = [dict(name="gpt-4o", vendor="openai", ctx=128000, price=D("2.500000"), score=0.5, big=2**40,
                 small=7, active=True, released=dt.date(2024, 5, 13),
                 seen=dt.datetime(2026, 11, 1, 12, tzinfo=UTC), local=dt.datetime(2026, 11, 1, 12, 30)),
            dict(name="claude", vendor="anthropic", ctx=200000, price=D("3.000000"), score=None, big=None,
                 small=None, active=False, released=None, seen=None, local=None)]
    with engine.begin() as conn:
        conn.execute(models.insert(), rows)
    with engine.connect() as conn:
        got = [dict(r._mapping) for r in conn.execute(sa.select(models).order_by(models.c.name.desc()))]
        for g in got:
            if g["seen"] is not None:
                g["seen"] = g["seen"].astimezone(UTC)
        check("create_all round trip", got, rows)

    class Boom(Exception):
        pass

    try:
        with engine.begin() as conn:
            conn.execute(models.insert(), {"name": "doomed", "vendor": "x"})
            check("inside the transaction",
                  conn.execute(sa.select(func.count()).select_from(models)).scalar(), 3)
            raise Boom()
    except Boom:
        pass
    with engine.connect() as conn:
        check("rolled back", conn.execute(sa.select(func.count()).select_from(models)).scalar(), 2)

    def insert_null():
        with engine.begin() as conn:
            conn.execute(models.insert(), {"name": "n", "vendor": None})
    raises("not null violation", insert_null, "23502")

    # A composite primary key reflects in its declared column order.
    md3 = sa.MetaData()
    sa.Table("sqla_pk2", md3, sa.Column("b", sa.Text), sa.Column("a", sa.Integer),
             sa.Column("v", sa.Float), sa.PrimaryKeyConstraint("b", "a"))
    md3.drop_all(engine)
    md3.create_all(engine)
    check("composite pk", inspect(engine).get_pk_constraint("sqla_pk2"),
          {"constrained_columns": ["b", "a"], "name": "sqla_pk2_pkey"})
    md3.drop_all(engine)
    check("drop_all", inspect(engine).has_table("sqla_pk2"), False)

    # Comments: create_all emits COMMENT ON for Table(comment=) and
    # Column(comment=); the inspector reads them back.
    md4 = sa.MetaData()
    sa.Table("sqla_doc", md4, sa.Column("id", sa.Integer, comment="call id"),
             sa.Column("model", sa.Text, comment="the model's name"), sa.Column("cost", sa.Float),
             comment="LLM calls, documented")
    md4.drop_all(engine)
    md4.create_all(engine)
    insp = inspect(engine)
    check("table comment round trip", insp.get_table_comment("sqla_doc"), {"text": "LLM calls, documented"})
    check("column comments round trip", [(c["name"], c.get("comment")) for c in insp.get_columns("sqla_doc")],
          [("id", "call id"), ("model", "the model's name"), ("cost", None)])
    with engine.begin() as conn:
        conn.execute(text("COMMENT ON COLUMN sqla_doc.id IS NULL"))
        conn.execute(text("COMMENT ON TABLE sqla_doc IS ''"))
    insp = inspect(engine)
    check("comments removed", (insp.get_table_comment("sqla_doc"), [c.get("comment") for c in insp.get_columns("sqla_doc")]),
          ({"text": None}, [None, "the model's name", None]))
    md4.drop_all(engine)

    reflected = sa.Table("sqla_models", sa.MetaData(), autoload_with=engine)
    check("reflected create_all types", [str(c.type) for c in reflected.columns],
          ["TEXT", "VARCHAR(32)", "INTEGER", "NUMERIC(12, 6)", "DOUBLE_PRECISION", "BIGINT", "SMALLINT",
           "BOOLEAN", "DATE", "TIMESTAMP", "TIMESTAMP"])
    check("reflected pk", [c.name for c in reflected.primary_key.columns], ["name"])


def server_defaults(engine):
    """Columns declared with server_default: CREATE TABLE … DEFAULT, inserts
    that leave them out, and reflection's get_columns default."""
    md = sa.MetaData()
    t = sa.Table("sqla_defaults", md,
                 sa.Column("id", sa.Integer, nullable=False),
                 sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=func.now()),
                 sa.Column("tenant", sa.Text, server_default="none"),
                 sa.Column("tokens", sa.Integer, server_default=text("0")),
                 sa.Column("ok", sa.Boolean, server_default=sa.true()),
                 sa.Column("at", sa.DateTime(timezone=True), server_default=text("CURRENT_TIMESTAMP")))
    md.drop_all(engine)
    md.create_all(engine)
    with engine.begin() as conn:
        conn.execute(t.insert(), [{"id": 1}, {"id": 2}])
        conn.execute(t.insert().values(id=3, tenant="acme", tokens=5))
    with engine.connect() as conn:
        got = [tuple(r) for r in conn.execute(sa.select(t.c.id, t.c.tenant, t.c.tokens, t.c.ok,
                                                        t.c.created_at.isnot(None), t.c.at.isnot(None)).order_by(t.c.id))]
        check("server_default inserts", got, [(1, "none", 0, True, True, True), (2, "none", 0, True, True, True),
                                              (3, "acme", 5, True, True, True)])
    check("reflected server defaults", [(c["name"], c["default"]) for c in inspect(engine).get_columns("sqla_defaults")],
          [("id", None), ("created_at", "now()"), ("tenant", "'none'::text"), ("tokens", "0"), ("ok", "true"),
           ("at", "CURRENT_TIMESTAMP")])
    reflected = sa.Table("sqla_defaults", sa.MetaData(), autoload_with=engine)
    check("reflected server_default text", str(reflected.c.tenant.server_default.arg), "'none'::text")
    md.drop_all(engine)


def frames(engine):
    df = pd.read_sql("SELECT id, ts, model, tokens, cost, status FROM sqla_calls ORDER BY id", engine)
    check("read_sql columns", list(df.columns), ["id", "ts", "model", "tokens", "cost", "status"])
    check("read_sql dtypes", [str(t) for t in df.dtypes],
          ["int64", "datetime64[ns, UTC]", "object", "int64", "float64", "object"])
    check("read_sql ts", list(df["ts"]), [pd.Timestamp(c[1]) for c in CALLS])
    # coerce_float (the default) makes numeric's Decimals floats, NULL NaN.
    check("read_sql cost", list(df["cost"].fillna(-1)), [0.0125, 0.004, 0.03, -1.0])
    check("read_sql status", list(df["status"]), [c[5] for c in CALLS])

    with engine.connect() as conn:
        df = pd.read_sql_query(
            text("SELECT model, sum(cost) AS cost, count(*) AS n, max(ts) AS last "
                 "FROM sqla_calls WHERE ts >= :since GROUP BY model ORDER BY model"),
            conn, params={"since": dt.datetime(2026, 11, 1, tzinfo=UTC)})
    check("read_sql_query dtypes", [str(t) for t in df.dtypes], ["object", "float64", "int64", "datetime64[ns, UTC]"])
    check("read_sql_query rows", df.values.tolist(),
          [["claude", 0.03, 2, pd.Timestamp("2026-11-01 01:00:00+00:00")],
           ["gpt-4o", 0.0165, 2, pd.Timestamp("2026-11-01 00:05:00+00:00")]])

    df = pd.read_sql_query("SELECT extract(epoch FROM ts)::float8 AS t, tokens::float8 AS v FROM sqla_calls "
                           "WHERE id < %(n)s ORDER BY id", engine, params={"n": 3})
    check("pyformat params", df.values.tolist(), [[CALLS[0][1].timestamp(), 120.0], [CALLS[1][1].timestamp(), 80.0]])

    # Other types as pandas makes them.
    df = pd.read_sql("SELECT '1 day 02:00'::interval AS iv, '{\"a\": 1}'::jsonb AS j, true AS b, "
                     "'2024-01-02'::date AS d, 1.5::float4 AS f, 7::int2 AS s, ARRAY[1, 2] AS arr, "
                     "'2024-01-02 03:04:05'::timestamp AS ts", engine)
    check("more dtypes", [str(t) for t in df.dtypes],
          ["timedelta64[ns]", "object", "bool", "object", "float64", "int64", "object", "datetime64[ns]"])
    check("more values", df.iloc[0].tolist(),
          [pd.Timedelta(hours=26), {"a": 1}, True, dt.date(2024, 1, 2), 1.5, 7, [1, 2], pd.Timestamp("2024-01-02 03:04:05")])

    # to_sql: create (replace), append, multi-row VALUES; read back.
    out = pd.DataFrame({
        "name": ["a", "b", None],
        "n": [1, 2, 3],
        "x": [0.5, None, 2.5],
        "ok": [True, False, True],
        "at": pd.to_datetime(["2026-11-01T00:00:00Z", "2026-11-01T00:00:01Z", None], utc=True),
        "naive": pd.to_datetime(["2026-11-01 00:00:00", None, "2026-11-02 03:04:05"]),
    })
    check("to_sql rows", out.to_sql("sqla_df", engine, if_exists="replace", index=False), 3)
    check("to_sql append", out.to_sql("sqla_df", engine, if_exists="append", index=False), 3)
    back = pd.read_sql_table("sqla_df", engine)
    check("read_sql_table columns", list(back.columns), list(out.columns))
    check("read_sql_table dtypes", [str(t) for t in back.dtypes],
          ["object", "int64", "float64", "bool", "datetime64[ns, UTC]", "datetime64[ns]"])
    pd.testing.assert_frame_equal(back, pd.concat([out, out], ignore_index=True))
    cols = {c["name"]: str(c["type"]) for c in inspect(engine).get_columns("sqla_df")}
    check("to_sql column types", cols, {"name": "TEXT", "n": "BIGINT", "x": "DOUBLE_PRECISION", "ok": "BOOLEAN",
                                        "at": "TIMESTAMP", "naive": "TIMESTAMP"})
    check("to_sql replace again", out.to_sql("sqla_df", engine, if_exists="replace", index=False), 3)
    check("replaced", len(pd.read_sql_table("sqla_df", engine)), 3)
    try:
        out.to_sql("sqla_df", engine, if_exists="fail", index=False)
        raise AssertionError("to_sql if_exists=fail: no error")
    except ValueError:
        pass

    # to_sql with its defaults writes the index as a column named "index"
    # and creates an index on it.
    check("to_sql defaults", out.to_sql("sqla_df", engine, if_exists="replace"), 3)
    back = pd.read_sql_table("sqla_df", engine, index_col="index")
    back.index.name = None
    pd.testing.assert_frame_equal(back, out)
    # Loam accepts CREATE INDEX and keeps no index (it prunes files by
    # partition and column statistics), so the inspector lists none.
    loam = "(Loam)" in engine.execute(text("SELECT version()")).scalar()
    check("get_indexes after to_sql", [(i["name"], i["column_names"], i["unique"])
                                       for i in inspect(engine).get_indexes("sqla_df")],
          [] if loam else [("ix_sqla_df_index", ["index"], False)])
    chunks = list(pd.read_sql("SELECT n, name FROM sqla_df ORDER BY n", engine, chunksize=2))
    check("read_sql chunksize", [len(c) for c in chunks], [2, 1])
    check("chunk values", pd.concat(chunks)["n"].tolist(), [1, 2, 3])

    # Columns of other dtypes: to_sql types them (Decimals and categories
    # become text, timedeltas bigint nanoseconds), then reads them back.
    odd = pd.DataFrame({
        "d": [dt.date(2024, 1, 1), dt.date(2024, 1, 2)], "td": pd.to_timedelta([1, 2], unit="s"),
        "cat": pd.Categorical(["a", "b"]), "dec": [D("1.5"), D("2.25")],
        "i32": np.array([1, 2], dtype="int32"), "f32": np.array([1.5, 2], dtype="float32"),
        "nb": pd.array([1, None], dtype="Int64"), "t": [dt.time(1, 2, 3), dt.time(4, 5, 6)]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas warns that timedeltas are written as integers
        check("to_sql other dtypes", odd.to_sql("sqla_odd", engine, if_exists="replace", index=False), 2)
    check("other dtypes' columns", [(c["name"], str(c["type"])) for c in inspect(engine).get_columns("sqla_odd")],
          [("d", "DATE"), ("td", "BIGINT"), ("cat", "TEXT"), ("dec", "TEXT"), ("i32", "INTEGER"),
           ("f32", "REAL"), ("nb", "BIGINT"), ("t", "TIME")])
    back = pd.read_sql_table("sqla_odd", engine)
    check("other dtypes back", [str(t) for t in back.dtypes],
          ["datetime64[ns]", "int64", "object", "object", "int64", "float64", "float64", "object"])
    check("other values back", back.fillna(-1).values.tolist(),
          [[pd.Timestamp("2024-01-01"), 1000000000, "a", "1.5", 1, 1.5, 1.0, dt.time(1, 2, 3)],
           [pd.Timestamp("2024-01-02"), 2000000000, "b", "2.25", 2, 2.0, -1.0, dt.time(4, 5, 6)]])
    js = pd.DataFrame({"k": [1, 2], "js": [{"a": 1}, {"b": [2]}]})
    js.to_sql("sqla_odd", engine, if_exists="replace", index=False, dtype={"js": sa.JSON})
    check("json column", pd.read_sql_table("sqla_odd", engine)["js"].tolist(), [{"a": 1}, {"b": [2]}])

    big = pd.DataFrame({"id": range(250), "label": [f"l{i}" for i in range(250)],
                        "v": [i / 4 for i in range(250)]})
    check("to_sql multi", big.to_sql("sqla_multi", engine, if_exists="append", index=False,
                                     method="multi", chunksize=100), 250)
    back = pd.read_sql_table("sqla_multi", engine, columns=["id", "v"])
    check("multi read back", (len(back), back["v"].sum()), (250, sum(i / 4 for i in range(250))))
    # A server-side cursor (psycopg2's named cursor: DECLARE, FETCH), read
    # in chunks, as notebooks do with tables bigger than memory.
    with engine.connect() as conn:
        stream = conn.execution_options(stream_results=True)
        sizes = [len(c) for c in pd.read_sql(text("SELECT * FROM sqla_multi ORDER BY id"), stream, chunksize=100)]
    check("stream_results chunks", sizes, [100, 100, 50])
    back = pd.read_sql_table("sqla_calls", engine, index_col="id", parse_dates=["ts"])
    check("read_sql_table index", list(back.index), [1, 2, 3, 4])


def partitioned(engine):
    """Loam only (PostgreSQL has no PARTITIONED BY, and its partitioned
    tables take no rows without partitions): the LLM-call table as users
    declare it, which pg_class lists as partitioned (relkind 'p'), appended
    to by to_sql and reflected like any table."""
    with engine.begin() as conn:
        conn.execute(text("DROP TABLE IF EXISTS sqla_llm_calls"))
        conn.execute(text("""CREATE TABLE sqla_llm_calls (ts timestamptz NOT NULL, tenant text, model text,
            cost_usd numeric(12,6)) PARTITIONED BY (day(ts))"""))
    df = pd.DataFrame({"ts": pd.to_datetime(["2026-11-01T00:00:00Z", "2026-11-02T12:00:00Z"], utc=True),
                       "tenant": ["acme", "globex"], "model": ["gpt-4o", "claude"], "cost_usd": [0.125, 0.25]})
    check("to_sql into a partitioned table", df.to_sql("sqla_llm_calls", engine, if_exists="append", index=False), 2)
    check("partitioned table listed", "sqla_llm_calls" in inspect(engine).get_table_names(), True)
    check("partitioned columns", [(c["name"], str(c["type"])) for c in inspect(engine).get_columns("sqla_llm_calls")],
          [("ts", "TIMESTAMP"), ("tenant", "TEXT"), ("model", "TEXT"), ("cost_usd", "NUMERIC(12, 6)")])
    back = pd.read_sql_table("sqla_llm_calls", engine)
    pd.testing.assert_frame_equal(back.sort_values("ts", ignore_index=True), df)


def search_path(url):
    """A schema picked in a BI tool (Superset's SQL Lab): the search path
    set by the startup packet's options."""
    engine = sa.create_engine(url, connect_args={"options": "-csearch_path=pg_catalog,public"})
    try:
        with engine.connect() as conn:
            check("options search_path", conn.exec_driver_sql("SHOW search_path").scalar(), "pg_catalog,public")
            check("current_schema", conn.exec_driver_sql("SELECT current_schema()").scalar(), "pg_catalog")
            check("unqualified table", conn.exec_driver_sql("SELECT count(*) FROM sqla_calls").scalar(), 4)
        check("default schema", engine.dialect.default_schema_name, "pg_catalog")
        check("tables of public", "sqla_calls" in inspect(engine).get_table_names(schema="public"), True)
    finally:
        engine.dispose()


def main(url):
    # The URL as users write it, with the driver named.
    url = url.replace("postgres://", "postgresql+psycopg2://", 1)
    # Core in 2.0 style; pandas 1.5 needs 1.4's default (legacy) engine.
    engine = sa.create_engine(url, future=True)
    try:
        core(engine)
        server_defaults(engine)
    finally:
        engine.dispose()
    engine = sa.create_engine(url)
    try:
        frames(engine)
        if "(Loam)" in engine.execute(text("SELECT version()")).scalar():
            partitioned(engine)
    finally:
        engine.dispose()
    search_path(url)
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
