package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Every long-running operator stops at statement_timeout: the statement
// fails with 57014 well within 2 s of a 300 ms timeout (a correctness
// bound, not a speed claim), and the session goes on.
func TestStatementTimeoutStopsEveryOperator(t *testing.T) {
	url := startServer(t)
	c := connect(t, url)
	exec(t, c, "CREATE TABLE pairs (k int, v int)")
	exec(t, c, "INSERT INTO pairs SELECT g % 2, g FROM generate_series(1, 20000) g")
	for _, tc := range []struct{ name, sql string }{
		{"generate_series", "SELECT count(*) FROM generate_series(1, 10000000000)"},
		{"cross join", "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b"},
		{"hash join fan-out", "SELECT count(*), sum(a.v + b.v) FROM pairs a JOIN pairs b ON a.k = b.k"},
		{"hash aggregation", "SELECT count(*) FROM (SELECT g, count(*) FROM generate_series(1, 100000000) g GROUP BY g) s"},
		{"sort", "SELECT count(*) FROM (SELECT g FROM generate_series(1, 100000000) g ORDER BY g DESC OFFSET 5) s"},
		{"window frame", "SELECT count(m) FROM (SELECT max(g) OVER (ORDER BY g ROWS BETWEEN 100000 PRECEDING AND CURRENT ROW) AS m FROM generate_series(1, 300000) g) s"},
		{"recursive CTE", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"},
		// Correlated by an inequality alone: it stays a subquery run per
		// row (an equality would be decorrelated into a fast semi join).
		{"correlated subquery", "SELECT count(*) FROM generate_series(1, 100000) g WHERE EXISTS (SELECT 1 FROM generate_series(1, 100000) h WHERE h > g * 100000)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exec(t, c, "SET statement_timeout = '300ms'")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			start := time.Now()
			_, err := c.Exec(ctx, tc.sql)
			took := time.Since(start)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "57014" {
				t.Fatalf("after %v: %v, want 57014", took, err)
			}
			if took > 2*time.Second {
				t.Fatalf("the 300ms timeout stopped the query after %v", took)
			}
			exec(t, c, "SET statement_timeout = 0")
			var one int
			if err := c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("the session after the timeout: %v", err)
			}
		})
	}
}

// The self-join, scaled down: under a query memory far below its
// build side the join spills (a grace hash join) and streams 3.2M rows
// into the aggregate with the right answer, while another session keeps
// working; a join that cannot fit fails with 53200 and the server stays
// up. No spill file is left.
func TestSelfJoinWithinQueryMemory(t *testing.T) {
	dir := t.TempDir()
	url := startServerWith(t, dir, "--query-memory", "256kB")
	c := connect(t, url)
	exec(t, c, "CREATE TABLE llm_calls (tenant text, latency_ms double precision, one int)")
	exec(t, c, "INSERT INTO llm_calls SELECT 'tenant ' || (g % 20), (g * 37 % 1000)::float8, 1 FROM generate_series(1, 8000) g")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wantCount int64
	var wantSum float64
	if err := c.QueryRow(ctx, `SELECT sum(n * n)::int8, sum(2 * n * s) FROM
		(SELECT tenant, count(*) AS n, sum(latency_ms) AS s FROM llm_calls GROUP BY tenant) t`).Scan(&wantCount, &wantSum); err != nil {
		t.Fatal(err)
	}
	other := connect(t, url)
	done := make(chan error, 1)
	var gotCount int64
	var gotSum float64
	go func() {
		done <- c.QueryRow(ctx, "SELECT count(*), sum(a.latency_ms + b.latency_ms) FROM llm_calls a JOIN llm_calls b ON a.tenant = b.tenant").Scan(&gotCount, &gotSum)
	}()
	var n int
	if err := other.QueryRow(ctx, "SELECT count(*) FROM llm_calls").Scan(&n); err != nil || n != 8000 {
		t.Fatalf("another session during the join: %d, %v", n, err)
	}
	spilled := 0
	for finished := false; !finished; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("self-join: %v", err)
			}
			finished = true
		case <-time.After(2 * time.Millisecond):
			spilled = max(spilled, spillFiles(dir))
		}
	}
	if spilled == 0 {
		t.Fatal("the self-join made no spill file under 256kB")
	}
	if gotCount != wantCount || gotSum != wantSum {
		t.Fatalf("self-join: count %d sum %v, want %d and %v", gotCount, gotSum, wantCount, wantSum)
	}

	// One key for every row: no split makes the build side fit.
	_, err := c.Exec(ctx, "SELECT count(*) FROM llm_calls a JOIN llm_calls b ON a.one = b.one")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53200" {
		t.Fatalf("a join on one key under 256kB: %v, want 53200", err)
	}
	if err := other.QueryRow(ctx, "SELECT count(*) FROM llm_calls").Scan(&n); err != nil || n != 8000 {
		t.Fatalf("another session after 53200: %d, %v", n, err)
	}
	if err := c.QueryRow(ctx, "SELECT count(*) FROM llm_calls").Scan(&n); err != nil || n != 8000 {
		t.Fatalf("the same session after 53200: %d, %v", n, err)
	}
	if left := spillFiles(dir); left != 0 {
		t.Fatalf("%d spill files left", left)
	}
}

// spillFiles counts the files in data directory dir's spill area.
func spillFiles(dir string) int {
	n := 0
	filepath.WalkDir(filepath.Join(dir, "tmp", "spill"), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	return n
}

func exec(t *testing.T, c *pgx.Conn, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
