"""psycopg2 (Debian's python3-psycopg2) against Loam, with the driver's defaults.

Run by clients/clients_test.go as `/usr/bin/python3 psycopg2_client.py DSN`,
against Loam and against PostgreSQL 15: every expectation below must hold
on both. psycopg2 interpolates parameters on the client and sends the simple
query protocol; a connection opens a transaction implicitly.
"""
import datetime as dt
import decimal
import sys
import uuid

import psycopg2
import psycopg2.errors
import psycopg2.extras

D = decimal.Decimal
UTC = dt.timezone.utc
U1 = uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")

# One row per tuple: every supported type, then a row of NULLs.
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


def check(what, got, want):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def adapt(row):
    """The row with json values wrapped and UUIDs as strings (psycopg2's defaults)."""
    out = list(row)
    out[13] = None if row[13] is None else str(row[13])
    out[15] = None if row[15] is None else psycopg2.extras.Json(row[15])
    out[16] = None if row[16] is None else psycopg2.extras.Json(row[16])
    return out


def expected(row):
    """The row as psycopg2 returns it: bytea as memoryview (compared as bytes),
    timestamptz in the session's time zone (UTC), uuid as str."""
    out = list(row)
    if row[12] is not None:
        out[12] = row[12].astimezone(UTC)
    if row[13] is not None:
        out[13] = str(row[13])
    return out


def fetched(row):
    out = list(row)
    if out[14] is not None:
        out[14] = bytes(out[14])
    if out[12] is not None:
        out[12] = out[12].astimezone(UTC)
    return out


def main(dsn):
    conn = psycopg2.connect(dsn)
    check("autocommit default", conn.autocommit, False)
    cur = conn.cursor()
    cur.execute("SELECT 1")
    check("select 1", cur.fetchall(), [(1,)])
    check("transaction status after a query", conn.info.transaction_status,
          psycopg2.extensions.TRANSACTION_STATUS_INTRANS)
    conn.commit()
    check("server_version", conn.server_version // 10000, 15)

    cur.execute("DROP TABLE IF EXISTS py2_types")
    cur.execute("""CREATE TABLE py2_types (id int4, i2 int2, i4 int4, i8 int8, f4 float4,
        f8 float8, n numeric(20,3), b bool, t text, v varchar(10), d date, ts timestamp,
        tz timestamptz, u uuid, by bytea, j json, jb jsonb)""")
    conn.commit()

    # Inserts with parameters: one execute, then executemany.
    cur.execute(f"INSERT INTO py2_types ({COLS}) VALUES ({', '.join(['%s'] * 17)})", adapt(ROWS[0]))
    check("insert rowcount", cur.rowcount, 1)
    cur.executemany(f"INSERT INTO py2_types ({COLS}) VALUES ({', '.join(['%s'] * 17)})",
                    [adapt(r) for r in ROWS[1:]])
    conn.commit()

    cur.execute(f"SELECT {COLS} FROM py2_types ORDER BY id")
    check("description names", [d.name for d in cur.description], COLS.split(", "))
    check("description type codes", [d.type_code for d in cur.description],
          [23, 21, 23, 20, 700, 701, 1700, 16, 25, 1043, 1082, 1114, 1184, 2950, 17, 114, 3802])
    got = [fetched(r) for r in cur.fetchall()]
    for i, r in enumerate(ROWS):
        check(f"row {i}", got[i], expected(r))

    # Each type as a parameter in WHERE: the first row must come back.
    r = ROWS[0]
    for col, val in zip(COLS.split(", ")[1:], adapt(r)[1:]):
        if col in ("j",):  # json has no equality operator in PostgreSQL
            cur.execute("SELECT id FROM py2_types WHERE j::text = %s::json::text", [val])
        else:
            cur.execute(f"SELECT id FROM py2_types WHERE {col} = %s", [val])
        check(f"where {col} = param", cur.fetchall(), [(1,)])
    cur.execute("SELECT id FROM py2_types WHERE i4 > %s AND t LIKE %s ORDER BY id", (0, "%quoted%"))
    check("two params", cur.fetchall(), [(1,)])
    cur.execute("SELECT id FROM py2_types WHERE d IS NULL")
    check("is null", cur.fetchall(), [(3,)])

    # Parameters round-trip through a SELECT list.
    cur.execute("SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s::date, %s::timestamptz, %s::uuid",
                (42, 2**40, 1.25, D("1.10"), True, None, "it's", b"\x01\x02",
                 dt.date(2020, 2, 29), dt.datetime(2020, 2, 29, 12, 0, tzinfo=UTC), str(U1)))
    row = list(cur.fetchone())
    row[7] = bytes(row[7])
    check("select params", row, [42, 2**40, 1.25, D("1.10"), True, None, "it's", b"\x01\x02",
                                 dt.date(2020, 2, 29), dt.datetime(2020, 2, 29, 12, 0, tzinfo=UTC), str(U1)])
    conn.commit()

    # Arrays (from aggregates), time, interval, float specials; several
    # statements in one execute (the last one's result).
    cur.execute("SELECT array_agg(i4 ORDER BY id), array_agg(t ORDER BY id), '12:34:56.5'::time, "
                "'1 day 02:03:04'::interval, %s::float8, %s::float8 FROM py2_types",
                (float("inf"), float("-inf")))
    check("arrays, time, interval", cur.fetchone(),
          ([2147483647, -2147483648, None], ["héllo 'quoted'", "", None], dt.time(12, 34, 56, 500000),
           dt.timedelta(days=1, seconds=7384), float("inf"), float("-inf")))
    cur.execute("SELECT 1; SELECT 'two'")
    check("last result of several", cur.fetchall(), [("two",)])
    conn.commit()

    # Lists as parameters (psycopg2 writes them as ARRAY[...] literals, or
    # '{}' when empty), = ANY, and arrays of each element type back.
    cur.execute("SELECT id FROM py2_types WHERE i4 = ANY(%s) ORDER BY id", ([2147483647, -2147483648, 5],))
    check("= ANY(int list)", cur.fetchall(), [(1,), (2,)])
    cur.execute("SELECT id FROM py2_types WHERE t = ANY(%s) ORDER BY id", (["", "héllo 'quoted'"],))
    check("= ANY(str list)", cur.fetchall(), [(1,), (2,)])
    cur.execute("SELECT %s::int8[], %s::text[], %s::float8[], %s::int2[], %s::varchar[], %s::int4[], %s",
                ([1, 2**40], ["a", "b c", None, 'q"'], [0.5, -1.0], [1, -2], ["x"], [], [7, 8]))
    check("list parameters", cur.fetchone(),
          ([1, 2**40], ["a", "b c", None, 'q"'], [0.5, -1.0], [1, -2], ["x"], [], [7, 8]))
    check("list parameter types", [d.type_code for d in cur.description], [1016, 1009, 1022, 1005, 1015, 1007, 1007])
    conn.commit()

    # INSERT ... RETURNING, session functions, statement_timeout and cancel.
    cur.execute("DROP TABLE IF EXISTS py2_ret")
    cur.execute("CREATE TABLE py2_ret (id int4, t text)")
    cur.execute("INSERT INTO py2_ret VALUES (%s, %s), (%s, NULL) RETURNING id, t, id * 10 AS x", (10, "ret", 11))
    check("RETURNING rowcount", cur.rowcount, 2)
    check("RETURNING rows", cur.fetchall(), [(10, "ret", 100), (11, None, 110)])
    check("RETURNING names", [d.name for d in cur.description], ["id", "t", "x"])
    cur.execute("SELECT pg_backend_pid()")
    check("pg_backend_pid", cur.fetchone()[0], conn.get_backend_pid())
    cur.execute("SELECT set_config('application_name', %s, false)", ("py2 app",))
    check("set_config", cur.fetchone(), ("py2 app",))
    cur.execute("SHOW application_name")
    check("after set_config", cur.fetchone(), ("py2 app",))
    conn.commit()
    cur.execute("SET statement_timeout = '100ms'")
    try:
        cur.execute("SELECT pg_sleep(20)")
        raise AssertionError("pg_sleep: no statement timeout")
    except psycopg2.errors.QueryCanceled as e:
        check("statement timeout", (e.pgcode, str(e).splitlines()[0]), ("57014", "canceling statement due to statement timeout"))
    conn.rollback()
    import threading
    timer = threading.Timer(0.3, conn.cancel)
    timer.start()
    try:
        cur.execute("SELECT pg_sleep(20)")
        raise AssertionError("pg_sleep: not cancelled")
    except psycopg2.errors.QueryCanceled as e:
        check("cancel", (e.pgcode, str(e).splitlines()[0]), ("57014", "canceling statement due to user request"))
    timer.join()  # the cancel request was sent and answered
    conn.rollback()
    cur.execute("SELECT pg_sleep(0.01), current_setting('statement_timeout')")
    check("after cancel", cur.fetchone(), ("", "0"))
    conn.commit()

    # COPY in and out through copy_expert and copy_from/copy_to.
    import io
    cur.execute("DROP TABLE IF EXISTS py2_copy")
    cur.execute("CREATE TABLE py2_copy (a int4, b text, c date)")
    cur.copy_expert("COPY py2_copy FROM STDIN (FORMAT csv)", io.StringIO('1,"x, y",2024-01-01\n2,,\n'))
    cur.copy_from(io.StringIO("3\tz\t\\N\n"), "py2_copy", columns=("a", "b", "c"))
    conn.commit()
    out = io.StringIO()
    cur.copy_expert("COPY (SELECT * FROM py2_copy ORDER BY a) TO STDOUT (FORMAT csv, HEADER)", out)
    check("copy out", out.getvalue(), 'a,b,c\n1,"x, y",2024-01-01\n2,,\n3,z,\n')
    out = io.StringIO()
    cur.copy_to(out, "py2_copy", columns=("a", "b"))
    check("copy_to", sorted(out.getvalue().splitlines()), ["1\tx, y", "2\t\\N", "3\tz"])
    conn.commit()

    # SET TIME ZONE: timestamptz results carry the session's offset.
    cur.execute("SET TIME ZONE 'America/New_York'")
    cur.execute("SELECT '2024-07-02 03:04:05+00'::timestamptz")
    got = cur.fetchone()[0]
    check("timestamptz in New York", (got, got.utcoffset()),
          (dt.datetime(2024, 7, 2, 3, 4, 5, tzinfo=UTC), dt.timedelta(hours=-4)))
    # psycopg2 ran the SET in a transaction block: the rollback undoes it.
    conn.rollback()
    cur.execute("SHOW TimeZone")
    tz = cur.fetchone()[0]
    check("TimeZone after rollback", tz != "America/New_York", True)
    check("TimeZone parameter status after rollback", conn.get_parameter_status("TimeZone"), tz)
    conn.commit()

    # Named (server-side) cursors: DECLARE, then FETCH FORWARD itersize.
    with conn.cursor("py2_named") as nc:
        nc.itersize = 1
        nc.execute(f"SELECT {COLS} FROM py2_types WHERE id <= %s ORDER BY id", (3,))
        got = [fetched(r) for r in nc]
        check("named cursor rows", got, [expected(r) for r in ROWS])
        check("named cursor description", [d.name for d in nc.description], COLS.split(", "))
    conn.commit()
    nc = conn.cursor("py2_hold", withhold=True)
    nc.execute("SELECT id FROM py2_types ORDER BY id")
    conn.commit()
    check("WITH HOLD cursor after commit", nc.fetchmany(2) + nc.fetchall(), [(1,), (2,), (3,)])
    nc.close()

    # Errors carry their SQLSTATE; the transaction is then aborted until rollback.
    for sql, code, cls in [
        ("SELECT 1/0", "22012", psycopg2.errors.DivisionByZero),
        ("SELECT * FROM no_such_table", "42P01", psycopg2.errors.UndefinedTable),
        ("SELECT nosuchcol FROM py2_types", "42703", psycopg2.errors.UndefinedColumn),
        ("SELECT 'abc'::int4", "22P02", psycopg2.errors.InvalidTextRepresentation),
        ("SELEC 1", "42601", psycopg2.errors.SyntaxError),
    ]:
        try:
            cur.execute(sql)
            raise AssertionError(f"{sql}: no error")
        except psycopg2.Error as e:
            check(f"{sql}: pgcode", e.pgcode, code)
            check(f"{sql}: class", type(e), cls)
            check(f"{sql}: severity", e.diag.severity, "ERROR")
        try:
            cur.execute("SELECT 1")
            raise AssertionError("no error in an aborted transaction")
        except psycopg2.errors.InFailedSqlTransaction as e:
            check("aborted transaction pgcode", e.pgcode, "25P02")
        conn.rollback()
        cur.execute("SELECT count(*) FROM py2_types")
        check("usable after error", cur.fetchone(), (3,))
        conn.commit()

    # Explicit transaction blocks and autocommit.
    conn.autocommit = True
    cur.execute("BEGIN")
    cur.execute("INSERT INTO py2_types (id) VALUES (%s)", (4,))
    cur.execute("COMMIT")
    with conn.cursor() as c2:
        c2.execute("SELECT id FROM py2_types WHERE id > %s ORDER BY id", (2,))
        check("after commit", c2.fetchall(), [(3,), (4,)])
    conn.autocommit = False
    with conn:  # commits at the end of the block
        with conn.cursor() as c2:
            c2.execute("INSERT INTO py2_types (id, t) VALUES (%s, %s)", (5, None))
    cur.execute("SELECT count(*), count(t) FROM py2_types")
    check("counts", cur.fetchone(), (5, 2))
    conn.rollback()

    conn.close()
    print("psycopg2: ok")


if __name__ == "__main__":
    main(sys.argv[1])
