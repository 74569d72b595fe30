"""psycopg 3 (Debian's python3-psycopg) against Loam, with the driver's defaults.

Run by clients/clients_test.go as `/usr/bin/python3 psycopg3_client.py DSN`,
against Loam and against PostgreSQL 15: every expectation below must hold
on both. psycopg 3 binds parameters on the server (extended protocol, typed
parameters, bytes in binary), prepares a query server-side once it has run
prepare_threshold (5) times, and opens a transaction implicitly.
"""
import datetime as dt
import decimal
import sys
import uuid

import psycopg
import psycopg.errors
from psycopg.types.json import Json, Jsonb

D = decimal.Decimal
UTC = dt.timezone.utc
U1 = uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")

ROWS = [
    (1, 32767, 2147483647, 9223372036854775807, 1.5, 2.25, D("12345.678"), True,
     "héllo 'quoted'", "vc", dt.date(2024, 1, 2), dt.datetime(2024, 1, 2, 3, 4, 5, 123456),
     dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), U1, b"\x00\x01\xfe\xff",
     {"a": 1, "b": [1, 2]}, {"k": "v", "n": None}),
    (2, -32768, -2147483648, -9223372036854775808, -0.5, -1e100, D("-0.001"), False,
     "", "", dt.date(1999, 12, 31), dt.datetime(1999, 12, 31, 23, 59, 59),
     dt.datetime(1999, 12, 31, 23, 0, tzinfo=dt.timezone(dt.timedelta(hours=-5))), uuid.UUID(int=0), b"",
     [], {}),
    (3,) + (None,) * 16,
]
COLS = "id, i2, i4, i8, f4, f8, n, b, t, v, d, ts, tz, u, by, j, jb"
INSERT = f"INSERT INTO py3_types ({COLS}) VALUES ({', '.join(['%s'] * 17)})"


def check(what, got, want):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def adapt(row):
    out = list(row)
    out[15] = None if row[15] is None else Json(row[15])
    out[16] = None if row[16] is None else Jsonb(row[16])
    return out


def norm(row):
    """timestamptz compared in UTC (the session's zone may differ)."""
    out = list(row)
    if out[12] is not None:
        out[12] = out[12].astimezone(UTC)
    return out


def main(dsn):
    conn = psycopg.connect(dsn)
    check("autocommit default", conn.autocommit, False)
    check("server_version", conn.info.server_version // 10000, 15)
    cur = conn.cursor()
    cur.execute("SELECT 1")
    check("select 1", cur.fetchall(), [(1,)])
    check("implicit transaction", conn.info.transaction_status, psycopg.pq.TransactionStatus.INTRANS)
    conn.commit()

    cur.execute("DROP TABLE IF EXISTS py3_types")
    cur.execute("""CREATE TABLE py3_types (id int4, i2 int2, i4 int4, i8 int8, f4 float4,
        f8 float8, n numeric(20,3), b bool, t text, v varchar(10), d date, ts timestamp,
        tz timestamptz, u uuid, by bytea, j json, jb jsonb)""")
    conn.commit()

    cur.execute(INSERT, adapt(ROWS[0]))
    check("insert rowcount", cur.rowcount, 1)
    cur.executemany(INSERT, [adapt(r) for r in ROWS[1:]])
    conn.commit()

    # Text results (the default), then binary ones.
    for binary in (False, True):
        with conn.cursor(binary=binary) as c:
            c.execute(f"SELECT {COLS} FROM py3_types ORDER BY id")
            check("description names", [d.name for d in c.description], COLS.split(", "))
            check("description type codes", [d.type_code for d in c.description],
                  [23, 21, 23, 20, 700, 701, 1700, 16, 25, 1043, 1082, 1114, 1184, 2950, 17, 114, 3802])
            got = [norm(r) for r in c.fetchall()]
            for i, r in enumerate(ROWS):
                check(f"row {i} (binary={binary})", got[i], norm(r))
    conn.commit()

    # Each type as a typed parameter in WHERE; each query runs 6 times, past
    # prepare_threshold, so the later runs use a server-side prepared statement.
    r = adapt(ROWS[0])
    for col, val in zip(COLS.split(", ")[1:], r[1:]):
        for _ in range(6):
            if col == "j":  # json has no equality operator in PostgreSQL
                cur.execute("SELECT id FROM py3_types WHERE j::text = %s::text", [val])
            else:
                cur.execute(f"SELECT id FROM py3_types WHERE {col} = %s", [val])
            check(f"where {col} = param", cur.fetchall(), [(1,)])
    cur.execute("SELECT id FROM py3_types WHERE i4 > %s AND t LIKE %s ORDER BY id", (0, "%quoted%"))
    check("two params", cur.fetchall(), [(1,)])
    cur.execute("SELECT id FROM py3_types WHERE d IS NULL")
    check("is null", cur.fetchall(), [(3,)])
    cur.execute("SELECT id FROM py3_types WHERE n = %(n)s OR b = %(b)s ORDER BY id", {"n": D("-0.001"), "b": True})
    check("named params", cur.fetchall(), [(1,), (2,)])

    # Parameters round-trip through a SELECT list (typed by psycopg).
    vals = (42, 2**40, 1.25, D("1.10"), True, "it's", b"\x01\x02", dt.date(2020, 2, 29),
            dt.datetime(2020, 2, 29, 12, 0), dt.datetime(2020, 2, 29, 12, 0, tzinfo=UTC), U1)
    for binary in (False, True):
        with conn.cursor(binary=binary) as c:
            c.execute("SELECT " + ", ".join(["%s"] * len(vals)) + ", %s::int4", vals + (None,))
            # Aware datetimes compare equal across zones.
            check(f"select params (binary={binary})", list(c.fetchone()), list(vals) + [None])
            c.execute("SELECT %b, %t", (b"\xff", "x"))
            check("explicit binary/text placeholders", c.fetchone(), (b"\xff", "x"))
    conn.commit()

    # Every type as a binary parameter (%b), with text and binary results.
    more = (D("-1E-10"), 2**70, float("inf"), dt.time(12, 34, 56, 789000),
            dt.timedelta(days=1, seconds=3), Json({"a": [1]}), Jsonb({"b": None}))
    for v in vals + more:
        for binary in (False, True):
            with conn.cursor(binary=binary) as c:
                got = c.execute("SELECT %b", (v,)).fetchone()[0]
                want = v.obj if isinstance(v, (Json, Jsonb)) else v
                check(f"SELECT %b with {v!r} (binary results={binary})", got, want)
    nan = conn.execute("SELECT %b, %t", (float("nan"), float("nan"))).fetchone()
    check("NaN", [x != x for x in nan], [True, True])

    # Arrays (from aggregates), time and interval results.
    for binary in (False, True):
        with conn.cursor(binary=binary) as c:
            c.execute("SELECT array_agg(i4 ORDER BY id), array_agg(t ORDER BY id), "
                      "'12:34:56'::time, '1 day 02:03:04'::interval FROM py3_types")
            check(f"arrays, time, interval (binary={binary})", c.fetchone(),
                  ([2147483647, -2147483648, None], ["héllo 'quoted'", "", None], dt.time(12, 34, 56),
                   dt.timedelta(days=1, seconds=7384)))
    conn.commit()

    # Lists as parameters (psycopg sends int2/int4/int8[] by the values'
    # range, and text[]), in text and binary, with text and binary results.
    for fmt in ("%s", "%b", "%t"):
        for binary in (False, True):
            with conn.cursor(binary=binary) as c:
                what = f"{fmt} (binary results={binary})"
                c.execute(f"SELECT id FROM py3_types WHERE i4 = ANY({fmt}) ORDER BY id", ([2147483647, -2147483648, 5],))
                check(f"= ANY(int list) {what}", c.fetchall(), [(1,), (2,)])
                c.execute(f"SELECT id FROM py3_types WHERE t = ANY({fmt}) ORDER BY id", (["", "héllo 'quoted'"],))
                check(f"= ANY(str list) {what}", c.fetchall(), [(1,), (2,)])
                vals = ([1, 2**40], ["a", "b c", None, 'q"', "a,b", "{x}", "\\", "NULL"], [0.5, -1.0], [1, -2], ["x"], [7, 8], [1, None])
                c.execute("SELECT {0}::int8[], {0}::text[], {0}::float8[], {0}::int2[], {0}::varchar[], {0}, {0}::int4[]".format(fmt), vals)
                check(f"list parameters {what}", c.fetchone(), vals)
                check(f"list result types {what}", [d.type_code for d in c.description],
                      [1016, 1009, 1022, 1005, 1015, 1005, 1007])
    more_lists = [[True, False, None], [D("1.5"), D("-2")], [dt.date(2024, 1, 2)],
                  [dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)], [dt.datetime(2024, 1, 2, 3, 4, 5)],
                  [U1, None], [1.5, None], [2**70], [b"\x00\x01"]]
    for fmt in ("%s", "%b", "%t"):
        for binary in (False, True):
            with conn.cursor(binary=binary) as c:
                for v in more_lists:
                    check(f"list {v!r} as {fmt} (binary results={binary})", c.execute(f"SELECT {fmt}", [v]).fetchone(), (v,))
    conn.commit()

    # INSERT ... RETURNING, session functions, statement_timeout and cancel.
    cur.execute("DROP TABLE IF EXISTS py3_ret")
    cur.execute("CREATE TABLE py3_ret (id int4, t text)")
    for i in range(6):  # past prepare_threshold
        cur.execute("INSERT INTO py3_ret VALUES (%s, %s), (%s, NULL) RETURNING id, t, id * 10 AS x", (10 + i, "ret", 20 + i))
        check("RETURNING rowcount", cur.rowcount, 2)
        check("RETURNING rows", cur.fetchall(), [(10 + i, "ret", 100 + 10 * i), (20 + i, None, 200 + 10 * i)])
    check("RETURNING names", [d.name for d in cur.description], ["id", "t", "x"])
    # executemany(returning=True) pipelines the statements: a result each.
    cur.executemany("INSERT INTO py3_ret VALUES (%s, %s) RETURNING id * 2, t", [(1, "a"), (2, None)], returning=True)
    sets = [cur.fetchall()]
    while cur.nextset():
        sets.append(cur.fetchall())
    check("executemany RETURNING", sets, [[(2, "a")], [(4, None)]])
    check("pg_backend_pid", cur.execute("SELECT pg_backend_pid()").fetchone()[0], conn.info.backend_pid)
    check("set_config", cur.execute("SELECT set_config('application_name', %s, false)", ("py3 app",)).fetchone(), ("py3 app",))
    check("after set_config", cur.execute("SHOW application_name").fetchone(), ("py3 app",))
    conn.commit()
    cur.execute("SET statement_timeout = '100ms'")
    try:
        cur.execute("SELECT pg_sleep(20)")
        raise AssertionError("pg_sleep: no statement timeout")
    except psycopg.errors.QueryCanceled as e:
        check("statement timeout", (e.sqlstate, e.diag.message_primary), ("57014", "canceling statement due to statement timeout"))
    conn.rollback()
    import threading
    timer = threading.Timer(0.3, conn.cancel)
    timer.start()
    try:
        cur.execute("SELECT pg_sleep(%s)", (20,))
        raise AssertionError("pg_sleep: not cancelled")
    except psycopg.errors.QueryCanceled as e:
        check("cancel", (e.sqlstate, e.diag.message_primary), ("57014", "canceling statement due to user request"))
    timer.join()  # the cancel request was sent and answered
    conn.rollback()
    check("after cancel", cur.execute("SELECT current_setting('statement_timeout')").fetchone(), ("0",))
    conn.commit()

    # COPY in text and binary, and out row by row.
    cur.execute("DROP TABLE IF EXISTS py3_copy")
    cur.execute("CREATE TABLE py3_copy (a int4, b text, c timestamptz)")
    conn.commit()
    with cur.copy("COPY py3_copy (a, b, c) FROM STDIN") as cp:
        cp.write_row((1, "tab\there", dt.datetime(2024, 1, 1, tzinfo=UTC)))
        cp.write_row((2, None, None))
    check("copy in rowcount", cur.rowcount, 2)
    with cur.copy("COPY py3_copy (a, b) FROM STDIN (FORMAT BINARY)") as cp:
        cp.set_types(["int4", "text"])
        cp.write_row((3, "bin"))
    conn.commit()
    with cur.copy("COPY (SELECT a, b, c FROM py3_copy ORDER BY a) TO STDOUT") as cp:
        cp.set_types(["int4", "text", "timestamptz"])
        check("copy out", list(cp.rows()), [(1, "tab\there", dt.datetime(2024, 1, 1, tzinfo=UTC)),
                                            (2, None, None), (3, "bin", None)])
    conn.commit()

    # The session's TimeZone, reported back (ParameterStatus), is the zone of
    # timestamptz results.
    with psycopg.connect(dsn, autocommit=True) as c2:
        c2.execute("SET TIME ZONE 'America/New_York'")
        check("TimeZone parameter status", c2.info.parameter_status("TimeZone"), "America/New_York")
        for binary in (False, True):
            got = c2.cursor(binary=binary).execute("SELECT '2024-01-02 03:04:05+00'::timestamptz").fetchone()[0]
            check(f"timestamptz in New York (binary={binary})", (got, got.utcoffset()),
                  (dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), dt.timedelta(hours=-5)))

    # Server-side cursors (DECLARE, a Describe of the cursor, FETCH), read a
    # row at a time in text and binary.
    for binary in (False, True):
        with conn.cursor("py3_named", binary=binary) as nc:
            nc.itersize = 1
            nc.execute(f"SELECT {COLS} FROM py3_types WHERE id <= %s ORDER BY id", (3,))
            check("server cursor description", [d.name for d in nc.description], COLS.split(", "))
            check(f"server cursor rows (binary={binary})", [norm(r) for r in nc], [norm(r) for r in ROWS])
        conn.commit()

    # Errors carry their SQLSTATE; the transaction is then aborted until rollback.
    for sql, params, code, cls in [
        ("SELECT 1/0", None, "22012", psycopg.errors.DivisionByZero),
        ("SELECT %s::int4 / %s", (1, 0), "22012", psycopg.errors.DivisionByZero),
        ("SELECT * FROM no_such_table", None, "42P01", psycopg.errors.UndefinedTable),
        ("SELECT nosuchcol FROM py3_types WHERE id = %s", (1,), "42703", psycopg.errors.UndefinedColumn),
        ("SELECT %s::text::int4", ("abc",), "22P02", psycopg.errors.InvalidTextRepresentation),
        ("SELEC 1", None, "42601", psycopg.errors.SyntaxError),
    ]:
        try:
            cur.execute(sql, params)
            raise AssertionError(f"{sql}: no error")
        except psycopg.Error as e:
            check(f"{sql}: sqlstate", e.sqlstate, code)
            check(f"{sql}: class", type(e), cls)
            check(f"{sql}: severity", e.diag.severity, "ERROR")
        try:
            cur.execute("SELECT 1")
            raise AssertionError("no error in an aborted transaction")
        except psycopg.errors.InFailedSqlTransaction as e:
            check("aborted transaction sqlstate", e.sqlstate, "25P02")
        conn.rollback()
        cur.execute("SELECT count(*) FROM py3_types WHERE id > %s", (0,))
        check("usable after error", cur.fetchone(), (3,))
        conn.commit()

    # Explicit transaction blocks, conn.transaction() and autocommit.
    conn.autocommit = True
    cur.execute("BEGIN")
    cur.execute("INSERT INTO py3_types (id) VALUES (%s)", (4,))
    cur.execute("COMMIT")
    with conn.transaction():
        conn.execute("INSERT INTO py3_types (id, t) VALUES (%s, %s)", (5, None))
    rows = conn.execute("SELECT id FROM py3_types WHERE id > %s ORDER BY id", (2,)).fetchall()
    check("after commit", rows, [(3,), (4,), (5,)])
    # Nested transaction() blocks are savepoints: an error inside one rolls
    # back to it and the outer block goes on.
    with conn.transaction():
        try:
            with conn.transaction():
                conn.execute("SELECT 1/0")
        except psycopg.errors.DivisionByZero:
            pass
        check("outer block usable", conn.execute("SELECT %s::int4", (7,)).fetchone(), (7,))
    conn.autocommit = False
    conn.execute("SELECT 1")  # opens the implicit transaction
    with conn.transaction():  # a savepoint inside it
        conn.execute("SET TIME ZONE 'America/New_York'")
        conn.execute("SAVEPOINT manual")
        try:
            conn.execute("SELECT 'x'::date")
        except psycopg.errors.InvalidDatetimeFormat as e:
            check("bad date sqlstate", e.sqlstate, "22007")
        conn.execute("ROLLBACK TO SAVEPOINT manual")
    conn.rollback()
    check("TimeZone after rollback", conn.execute("SHOW TimeZone").fetchone()[0] != "America/New_York", True)
    conn.rollback()
    with conn:  # commits at the end of the block, then closes
        check("counts", conn.execute("SELECT count(*), count(t) FROM py3_types").fetchone(), (5, 2))
    print("psycopg3: ok")


if __name__ == "__main__":
    main(sys.argv[1])
