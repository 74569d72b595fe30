#!/usr/bin/env python3
"""Draft regress/expected/NAME.out from a real PostgreSQL server.

Loam's regress tests are meant to match PostgreSQL wherever Loam does not
legitimately differ. Until Loam itself can produce an expected file (then use
REGRESS_UPDATE=1 go test ./regress/ and review with git diff), this script
drafts one from PostgreSQL 15:

  1. It rewrites regress/sql/NAME.sql line for line into SQL PostgreSQL
     accepts: STRING -> text, DOUBLE -> double precision, and Loam's table
     clauses (PARTITIONED BY, SORTED BY, WITH (retention ...)) removed
     (a line left empty becomes a comment, since psql echoes no empty line).
     A CREATE TABLE listed in LOAM_ERRORS below, which Loam must refuse with
     its own error, becomes a DO block that raises that error instead.
  2. It runs that through `psql -X -a -q` against a fresh database `loam`,
     as the regress runner does against Loam.
  3. It puts the original Loam lines back where psql echoed the rewritten
     ones, so only the ERROR lines from LOAM_ERRORS are not PostgreSQL's own.
     Loam also reports a position for those errors, which a DO block cannot:
     their LINE/caret lines are not drafted here (see expected/ddl.out).

Usage: scripts/pg-expected.py PGPORT NAME...   (a server on 127.0.0.1:PGPORT
with a trusted superuser `loam`; the database `loam` on it is dropped and
made anew for each NAME). It writes regress/expected/NAME.out.
"""
import os
import re
import subprocess
import sys

# Table name of a failing CREATE TABLE -> (Loam's message, SQLSTATE).
# These are the hand-written expected lines.
LOAM_ERRORS = {
    "bad_transform": ('unknown partition transform "week"', "42601"),
    "bad_column": ('column "nope" named in PARTITIONED BY does not exist', "42703"),
    "bad_sort": ('column "nope" named in SORTED BY does not exist', "42703"),
    "bad_retention": ('invalid retention "soon": not an interval', "22007"),
}

CLAUSE = re.compile(r"\s*\b(PARTITIONED BY|SORTED BY|WITH)\s*\(", re.I)


def strip_clauses(line):
    out = ""
    while True:
        m = CLAUSE.search(line)
        if not m or (m.group(1).upper() == "WITH" and "retention" not in line[m.end():].lower()):
            return out + line
        depth, i = 1, m.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(line[i], 0)
            i += 1
        out, line = out + line[: m.start()], line[i:]
        if not (out + line).strip():
            # psql does not echo an empty line: leave one it does.
            return "-- (Loam clause)"


def to_pg(lines):
    pg = []
    for line in lines:
        m = re.match(r"CREATE TABLE (\w+) ", line)
        if m and m.group(1) in LOAM_ERRORS:
            msg, code = LOAM_ERRORS[m.group(1)]
            pg.append("DO $$BEGIN RAISE EXCEPTION USING MESSAGE = '%s', ERRCODE = '%s'; END$$" % (msg, code))
            continue
        line = re.sub(r"\bSTRING\b", "text", line)
        line = re.sub(r"\bDOUBLE\b", "double precision", line)
        pg.append(strip_clauses(line))
    return pg


def main():
    port, names = sys.argv[1], sys.argv[2:]
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["LC_ALL"] = "C"
    conn = ["-X", "-q", "-h", "127.0.0.1", "-p", port, "-U", "loam"]
    for name in names:
        for sql in ("DROP DATABASE IF EXISTS loam", "CREATE DATABASE loam"):
            subprocess.run(["psql", *conn, "-d", "postgres", "-c", sql], env=env, check=True)
        lines = open(os.path.join(top, "regress/sql", name + ".sql")).read().split("\n")
        pg = to_pg(lines)
        out = subprocess.run(["psql", *conn, "-a", "-d", "loam"], input="\n".join(pg), env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
        # psql -a echoes each input line in order: map the echoes back.
        res, i = [], 0
        for o in out.split("\n"):
            while i < len(pg) and pg[i] == "":  # blank in both, not echoed
                i += 1
            if i < len(pg) and o == pg[i]:
                res.append(lines[i])
                i += 1
            elif not o.startswith("CONTEXT:  PL/pgSQL function inline_code_block"):
                res.append(o)  # (the DO block's CONTEXT line is dropped)
        if any(pg[i:]):
            sys.exit("%s: echo of line %d (%r) not found" % (name, i + 1, pg[i]))
        open(os.path.join(top, "regress/expected", name + ".out"), "w").write("\n".join(res))


if __name__ == "__main__":
    main()
