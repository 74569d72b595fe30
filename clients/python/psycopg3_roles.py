"""Roles and privileges through psycopg 3, against Loam and PostgreSQL 15.

Run by clients/clients_test.go as `/usr/bin/python3 psycopg3_roles.py DSN`
with a superuser's DSN: every expectation must hold on both servers. A role
that may read one schema and not another, a REVOKE that holds on an open
session's next statement (simple and prepared), ownership, SET ROLE and the
errors' SQLSTATEs.
"""
import secrets
import sys

import psycopg
import psycopg.errors
from psycopg.conninfo import make_conninfo


def check(what, got, want):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")


def denied(conn, query, what):
    try:
        conn.execute(query)
    except psycopg.errors.InsufficientPrivilege as e:
        conn.rollback()
        pos = e.diag.statement_position
        return e.diag.message_primary + (f" at {pos}" if pos else "")
    raise AssertionError(f"{what}: {query} was allowed")


def main(dsn):
    tag = secrets.token_hex(3)
    role, a, b = f"reader_{tag}", f"sa_{tag}", f"sb_{tag}"
    admin = psycopg.connect(dsn, autocommit=True)
    admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'pw'")
    admin.execute(f"CREATE SCHEMA {a}")
    admin.execute(f"CREATE SCHEMA {b}")
    admin.execute(f"CREATE TABLE {a}.t (id int, v text)")
    admin.execute(f"CREATE TABLE {b}.t (id int, v text)")
    admin.execute(f"INSERT INTO {a}.t VALUES (1, 'one'), (2, 'two')")
    admin.execute(f"INSERT INTO {b}.t VALUES (3, 'three')")
    admin.execute(f"GRANT USAGE ON SCHEMA {a} TO {role}")
    admin.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {a} TO {role}")
    try:
        user = psycopg.connect(make_conninfo(dsn, user=role, password="pw"), autocommit=True)
        check("current_user", user.execute("SELECT current_user").fetchone()[0], role)
        check("schema a", user.execute(f"SELECT id, v FROM {a}.t ORDER BY id").fetchall(), [(1, "one"), (2, "two")])
        msg = denied(user, f"SELECT * FROM {b}.t", "schema b")
        check("schema b message", msg, f"permission denied for schema {b} at 15")
        msg = denied(user, f"INSERT INTO {a}.t VALUES (9, 'x')", "insert")
        check("insert message", msg, "permission denied for table t")
        msg = denied(user, f"DROP TABLE {a}.t", "drop")
        check("drop message", msg, "must be owner of table t")

        # A REVOKE holds from the open session's next statement, prepared
        # statements included.
        q = f"SELECT count(*) FROM {a}.t WHERE id > %s"
        for _ in range(6):  # past prepare_threshold: prepared server-side
            check("prepared", user.execute(q, (0,)).fetchone()[0], 2)
        admin.execute(f"REVOKE SELECT ON {a}.t FROM {role}")
        try:
            user.execute(q, (0,))
            raise AssertionError("prepared query ran after REVOKE")
        except psycopg.errors.InsufficientPrivilege as e:
            check("revoked message", e.diag.message_primary, "permission denied for table t")
        denied(user, f"SELECT * FROM {a}.t", "simple query after REVOKE")

        # A granted CREATE lets the role own what it makes.
        admin.execute(f"GRANT CREATE ON SCHEMA {a} TO {role}")
        user.execute(f"CREATE TABLE {a}.mine (x int)")
        user.execute(f"INSERT INTO {a}.mine VALUES (7)")
        check("own table", user.execute(f"SELECT x FROM {a}.mine").fetchall(), [(7,)])
        su = admin.execute("SELECT current_user").fetchone()[0]
        msg = denied(user, f"SET ROLE {su}", "set role")
        check("set role message", msg, f'permission denied to set role "{su}"')
        user.execute(f"DROP TABLE {a}.mine")

        # SET ROLE: the superuser acts as the role.
        admin.execute(f"SET ROLE {role}")
        check("set role", admin.execute("SELECT current_user, session_user").fetchone()[0], role)
        denied(admin, f"SELECT * FROM {b}.t", "superuser as role")
        admin.execute("RESET ROLE")
        check("reset role", admin.execute(f"SELECT count(*) FROM {b}.t").fetchone()[0], 1)
        user.close()
    finally:
        admin.execute("RESET ROLE")
        admin.execute(f"REVOKE ALL ON SCHEMA {a} FROM {role}")
        admin.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA {a} FROM {role}")
        admin.execute(f"DROP SCHEMA {a} CASCADE")
        admin.execute(f"DROP SCHEMA {b} CASCADE")
        admin.execute(f"DROP ROLE {role}")
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
