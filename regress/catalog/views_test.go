package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/loamdb/loam/meta/pgtest"
)

// viewSetup makes a table and two views on both servers.
var viewSetup = []string{
	`CREATE TABLE vt (ts timestamptz NOT NULL, model text, tokens int, cost numeric(10,4))`,
	`CREATE VIEW vt_cost AS SELECT model, sum(cost) AS total, count(*) AS calls FROM vt GROUP BY model`,
	`CREATE VIEW vt_recent (at, m) AS SELECT ts, model, tokens FROM vt`,
}

// viewQueries are compared between PostgreSQL 15 and Loam: column names
// and types always, rows where rows is set. A view's definition is
// PostgreSQL's deparsed query there and the text as written on Loam, so
// the queries that show rows leave it out.
var viewQueries = []query{
	{sql: `SELECT * FROM pg_catalog.pg_views WHERE schemaname = 'public'`},
	{sql: `SELECT schemaname, viewname, definition IS NOT NULL FROM pg_catalog.pg_views WHERE schemaname = 'public' ORDER BY 2`, rows: true},
	{sql: `SELECT * FROM information_schema.views WHERE table_schema = 'public'`},
	{sql: `SELECT table_catalog IS NOT NULL, table_schema, table_name, check_option, is_trigger_updatable, is_trigger_deletable,
		is_trigger_insertable_into FROM information_schema.views WHERE table_schema = 'public' ORDER BY 3`, rows: true},
	{sql: `SELECT table_schema, table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 2`, rows: true},
	{sql: `SELECT relname, relkind, relam, relpages, reltuples, relallvisible, relhasindex, relisshared, relpersistence, relnatts,
		relchecks, relhasrules, relhastriggers, relhassubclass, relispopulated, relreplident, relispartition, reloptions
		FROM pg_catalog.pg_class WHERE relnamespace = 'public'::regnamespace ORDER BY 1`, rows: true},
	{sql: `SELECT c.relname, a.attname, a.attnum, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef, a.attlen,
		a.attstorage, a.attcollation <> 0 FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
		WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 ORDER BY 1, 3`, rows: true},
	{sql: `SELECT table_name, column_name, ordinal_position, data_type, is_nullable, numeric_precision, numeric_scale
		FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 3`, rows: true},
	{sql: `SELECT c.relname, pg_get_viewdef(c.oid) IS NOT NULL, pg_get_viewdef(c.oid, true) IS NOT NULL
		FROM pg_catalog.pg_class c WHERE c.relkind = 'v' AND c.relnamespace = 'public'::regnamespace ORDER BY 1`, rows: true},
	// Metabase's and DBeaver's listing of tables and views.
	{sql: `SELECT n.nspname, c.relname, CASE c.relkind WHEN 'r' THEN 'TABLE' WHEN 'v' THEN 'VIEW' END AS type
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'v', 'p') AND n.nspname = 'public' ORDER BY 2`, rows: true},
	{sql: `SELECT model, total, calls FROM vt_cost ORDER BY 1`, rows: true},
	{sql: `SELECT at, m, tokens FROM vt_recent ORDER BY 1`, rows: true},
}

func TestViewCatalogAgainstPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pgURL := pgtest.Database(t)
	loamURL := startLoam(t)
	pgc := connect(t, ctx, pgURL, true)
	lc := connect(t, ctx, loamURL, true)
	meta := connect(t, ctx, pgURL, false)
	for _, q := range viewSetup {
		if _, err := pgc.Exec(ctx, q); err != nil {
			t.Fatalf("setup on PostgreSQL: %v\n%s", err, q)
		}
		if _, err := lc.Exec(ctx, q); err != nil {
			t.Fatalf("setup on Loam: %v\n%s", err, q)
		}
	}
	for _, c := range []string{`INSERT INTO vt VALUES ('2026-11-01 10:00:00+00', 'gpt-4o', 100, 0.5), ('2026-11-01 11:00:00+00', 'claude', 50, 0.25), ('2026-11-01 12:00:00+00', 'gpt-4o', 10, 0.125)`} {
		if _, err := pgc.Exec(ctx, c); err != nil {
			t.Fatal(err)
		}
		if _, err := lc.Exec(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	// A column read from a view names the view and its attnum in the
	// RowDescription, as PostgreSQL's does.
	origins := map[string]string{}
	for name, c := range map[string]*pgx.Conn{"PostgreSQL": pgc, "Loam": lc} {
		var oid uint32
		if err := c.QueryRow(ctx, `SELECT 'vt_recent'::regclass::oid`).Scan(&oid); err != nil {
			t.Fatal(err)
		}
		rows, err := c.Query(ctx, `SELECT m, at, 1 AS one FROM vt_recent`)
		if err != nil {
			t.Fatal(err)
		}
		var o []string
		for _, fd := range rows.FieldDescriptions() {
			o = append(o, fmt.Sprintf("%s:%v:%d", fd.Name, fd.TableOID == oid && oid != 0, fd.TableAttributeNumber))
		}
		rows.Close()
		origins[name] = strings.Join(o, " ")
	}
	if origins["PostgreSQL"] != origins["Loam"] {
		t.Errorf("column origins of a view differ\nPostgreSQL: %s\nLoam:       %s", origins["PostgreSQL"], origins["Loam"])
	}

	for i, q := range viewQueries {
		pcols, prows, err := shape(ctx, pgc, meta, q.sql)
		if err != nil {
			t.Fatalf("query %d on PostgreSQL: %v\n%s", i, err, q.sql)
		}
		lcols, lrows, err := shape(ctx, lc, nil, q.sql)
		if err != nil {
			t.Errorf("query %d on Loam: %v\n%s", i, err, q.sql)
			continue
		}
		if strings.Join(pcols, " ") != strings.Join(lcols, " ") {
			t.Errorf("query %d: columns differ\n%s\nPostgreSQL: %v\nLoam:       %v", i, q.sql, pcols, lcols)
		}
		if q.rows && strings.Join(prows, "\n") != strings.Join(lrows, "\n") {
			t.Errorf("query %d: rows differ\n%s\nPostgreSQL:\n%s\nLoam:\n%s", i, q.sql, strings.Join(prows, "\n"), strings.Join(lrows, "\n"))
		}
	}
}

// TestViewErrorsAgainstPostgres: the errors of view DDL carry
// PostgreSQL's SQLSTATE, message, detail and hint.
func TestViewErrorsAgainstPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pgURL := pgtest.Database(t)
	loamURL := startLoam(t)
	conns := []*pgx.Conn{connect(t, ctx, pgURL, false), connect(t, ctx, loamURL, false)}
	for _, c := range conns {
		for _, q := range viewSetup {
			if _, err := c.Exec(ctx, q); err != nil {
				t.Fatalf("setup: %v\n%s", err, q)
			}
		}
	}
	for _, q := range []string{
		`CREATE VIEW vt_cost AS SELECT 1`,
		`CREATE VIEW vt AS SELECT 1`,
		`CREATE TABLE vt_cost (a int)`,
		`CREATE VIEW vbad AS SELECT model, model FROM vt`,
		`CREATE VIEW vbad (a, b, c) AS SELECT model, tokens FROM vt`,
		`CREATE VIEW vbad AS SELECT nosuch FROM vt`,
		`CREATE VIEW vbad AS SELECT * FROM nosuch`,
		`CREATE VIEW nosuch.vbad AS SELECT 1`,
		`CREATE OR REPLACE VIEW vt AS SELECT 1`,
		`CREATE OR REPLACE VIEW vt_cost AS SELECT model FROM vt`,
		`CREATE OR REPLACE VIEW vt_cost AS SELECT model AS m, sum(cost) AS total, count(*) AS calls FROM vt GROUP BY model`,
		`CREATE OR REPLACE VIEW vt_cost AS SELECT model, sum(tokens) AS total, count(*) AS calls FROM vt GROUP BY model`,
		`DROP VIEW vt`,
		`DROP TABLE vt_cost`,
		`DROP VIEW nosuch`,
		`DROP VIEW vt_cost, nosuch`,
		`SELECT * FROM vt_cost, vt_recent, nosuch`,
		`DROP TABLE vt`,
		`DROP TABLE vt RESTRICT`,
	} {
		var got [2]string
		for i, c := range conns {
			_, err := c.Exec(ctx, q)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				got[i] = fmt.Sprintf("no error (%v)", err)
				continue
			}
			got[i] = fmt.Sprintf("%s %s (detail %q, hint %q)", pe.Code, pe.Message, pe.Detail, pe.Hint)
		}
		if got[0] != got[1] {
			t.Errorf("%s\nPostgreSQL: %s\nLoam:       %s", q, got[0], got[1])
		}
	}
}

// TestViewDependenciesAgainstPostgres: DROP TABLE and DROP VIEW refuse to
// drop what a view reads, and CASCADE drops the views too, with
// PostgreSQL's errors, notices and resulting views.
func TestViewDependenciesAgainstPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pgURL := pgtest.Database(t)
	loamURL := startLoam(t)
	type conn struct {
		c       *pgx.Conn
		notices []string
	}
	var conns [2]*conn
	for i, url := range []string{pgURL, loamURL} {
		cfg, err := pgx.ParseConfig(url)
		if err != nil {
			t.Fatal(err)
		}
		cn := &conn{}
		cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			cn.notices = append(cn.notices, fmt.Sprintf("%s %s: %s (detail %q)", n.Severity, n.Code, n.Message, n.Detail))
		}
		if cn.c, err = pgx.ConnectConfig(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cn.c.Close(context.Background()) })
		conns[i] = cn
	}
	for _, q := range []string{
		`CREATE TABLE d1 (a int, b text)`,
		`CREATE TABLE d2 (a int)`,
		`CREATE SCHEMA vds`,
		`CREATE VIEW dv1 AS SELECT a, b FROM d1`,
		`CREATE VIEW dv2 AS SELECT a FROM dv1 WHERE a > 0`,
		`CREATE VIEW dv3 AS SELECT d1.a FROM d1 JOIN d2 ON d1.a = d2.a`,
		`CREATE VIEW vds.dx AS SELECT count(*) AS n FROM (SELECT * FROM public.d1) s`,
		`CREATE VIEW dv4 AS WITH d2 AS (SELECT 1 AS a) SELECT a FROM d2`,
		`CREATE VIEW dv5 AS SELECT * FROM dv2 UNION ALL SELECT a FROM d2 WHERE a IN (SELECT a FROM dv1)`,
	} {
		for _, c := range conns {
			if _, err := c.c.Exec(ctx, q); err != nil {
				t.Fatalf("setup: %v\n%s", err, q)
			}
		}
	}
	for _, q := range []string{
		`DROP TABLE d1`,
		`DROP TABLE d2`,
		`DROP VIEW dv1`,
		`DROP VIEW dv2`,
		`DROP TABLE d1, d2`,
		`DROP VIEW dv1, dv2 RESTRICT`,
		`DROP VIEW dv5, dv4`,
		`CREATE OR REPLACE VIEW dv3 AS SELECT a FROM d2`,
		`DROP TABLE d1 CASCADE`,
		`SELECT table_schema, table_name FROM information_schema.views WHERE table_schema IN ('public', 'vds') ORDER BY 1, 2`,
		`DROP VIEW dv3 CASCADE`,
		`DROP TABLE d2`,
		// A schema's tables and views, and the views elsewhere that read them.
		`CREATE TABLE vds.t (a int)`,
		`CREATE VIEW vds.v AS SELECT a FROM vds.t`,
		`CREATE VIEW pv AS SELECT a FROM vds.t`,
		`CREATE VIEW pv2 AS SELECT a FROM pv`,
		`DROP SCHEMA vds`,
		`DROP TABLE vds.t`,
		`DROP SCHEMA vds CASCADE`,
		`SELECT table_schema, table_name FROM information_schema.views WHERE table_schema IN ('public', 'vds') ORDER BY 1, 2`,
		`CREATE SCHEMA vds`,
		`CREATE TABLE vds.t (a int)`,
		`CREATE VIEW pv AS SELECT a FROM vds.t`,
		`DROP SCHEMA vds CASCADE`,
		`CREATE TABLE t3 (a int)`,
		`CREATE VIEW pv AS SELECT a FROM t3`,
		`DROP SCHEMA public CASCADE`,
	} {
		var got [2]string
		for i, c := range conns {
			c.notices = nil
			rows, err := c.c.Query(ctx, q)
			var out []string
			if err == nil {
				for rows.Next() {
					vals, _ := rows.Values()
					out = append(out, fmt.Sprint(vals...))
				}
				rows.Close()
				err = rows.Err()
			}
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				got[i] = fmt.Sprintf("%s %s (detail %q, hint %q)", pe.Code, pe.Message, pe.Detail, pe.Hint)
			} else if err != nil {
				got[i] = err.Error()
			} else {
				got[i] = "ok " + strings.Join(out, "; ")
			}
			if len(c.notices) > 0 {
				got[i] += "\n" + strings.Join(c.notices, "\n")
			}
		}
		if got[0] != got[1] {
			t.Errorf("%s\nPostgreSQL: %s\nLoam:       %s", q, got[0], got[1])
		}
	}
}
