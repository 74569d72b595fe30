package grafana

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/meta/pgtest"
	"github.com/loamdb/loam/regress/loamtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// table is the LLM-call table with README's columns, in PostgreSQL's
// spelling; loamTable is README's own CREATE TABLE (Loam's types,
// partitioning and sort order; no retention, which would depend on the
// clock).
const (
	table = `CREATE TABLE llm_calls (ts timestamptz, tenant text, model text,
	prompt_tokens int, completion_tokens int, cost_usd float8, latency_ms int)`
	loamTable = `CREATE TABLE llm_calls (
  ts TIMESTAMP(3) WITH TIME ZONE, tenant STRING, model STRING,
  prompt_tokens INT, completion_tokens INT, cost_usd DOUBLE, latency_ms INT
)
PARTITIONED BY (day(ts))
SORTED BY (tenant, model, ts)`
)

// setup fills llm_calls, an epoch-keyed table for $__unixEpochFilter and
// one with timestamp, date and epoch-nanosecond columns the same way on
// both servers.
const setup = `INSERT INTO llm_calls SELECT TIMESTAMPTZ '2026-11-01 00:00:00+00' + (i * 97) * INTERVAL '1 second',
	CASE WHEN i % 3 = 0 THEN 'acme' ELSE 'globex' END,
	CASE i % 4 WHEN 0 THEN 'gpt-4o' WHEN 1 THEN 'gpt-4o-mini' WHEN 2 THEN 'claude-sonnet' ELSE 'gpt-4o' END,
	100 + i % 50, 20 + i % 30, (i % 16) / 16.0, 200 + (i * 37) % 1800
	FROM generate_series(0, 999) AS s(i);
CREATE TABLE llm_calls_epoch (ts bigint, model text, cost_usd float8, latency_ms float8);
INSERT INTO llm_calls_epoch SELECT 1700000000 + i * 60, CASE WHEN i % 2 = 0 THEN 'gpt-4o' ELSE 'claude-sonnet' END,
	(i % 8) / 8.0, 100 + i * 3 FROM generate_series(0, 119) AS s(i);
CREATE TABLE ev (ts timestamp, d date, ns bigint, v float8, host text);
INSERT INTO ev SELECT TIMESTAMP '2026-11-01 00:00:00' + i * INTERVAL '7 minutes', DATE '2026-10-28' + (i / 100),
	(1700000000 + i * 60)::bigint * 1000000000, i * 0.5, 'h' || (i % 3) FROM generate_series(0, 499) AS s(i)`

// servers starts Loam and a throwaway PostgreSQL 15, creates llm_calls on
// each with the given statement, loads setup into both and returns connections made as Grafana's pgxpool makes them: pgx's
// default config (sslmode from the URL, statement-cache exec mode).
func servers(t *testing.T, ctx context.Context, loamDDL, pgDDL string) (loam, pg *pgx.Conn) {
	t.Helper()
	srv := loamtest.Start(t, loamtest.Binary(t))
	loamURL := fmt.Sprintf("postgres://loam@%s/loam?sslmode=disable", srv.Addr)
	pgURL := pgtest.Database(t)
	conns := make([]*pgx.Conn, 2)
	for i, url := range []string{loamURL, pgURL} {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatalf("connect %s: %v", url, err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		// Multi-statement text: simple protocol, as psql would send it.
		if _, err := c.PgConn().Exec(ctx, []string{loamDDL, pgDDL}[i]+";\n"+setup).ReadAll(); err != nil {
			t.Fatalf("setup on %s: %v", url, err)
		}
		conns[i] = c
	}
	return conns[0], conns[1]
}
