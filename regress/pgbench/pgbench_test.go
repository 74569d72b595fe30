// Package pgbench runs PostgreSQL 15's own pgbench against a fresh Loam
// server and against a throwaway PostgreSQL 15 (meta/pgtest): `pgbench -i`
// (its tables WITH (fillfactor=100), COPY … FREEZE or server-side INSERT
// … SELECT, VACUUM ANALYZE, ALTER TABLE … ADD PRIMARY KEY) and its
// built-in TPC-B-like script with 8 clients in each query mode. After a
// run, as in PostgreSQL, every transaction is in pgbench_history and the
// balances agree: sum(abalance) of the accounts = sum(delta) of the
// history = sum(bbalance) of the branches = sum(tbalance) of the tellers.
// The deltas are random, so the sums differ between the servers; the
// invariant and the counts are what is compared.
//
//	LOAM_BIN=$PWD/bin/loam go test -count=1 ./regress/pgbench/
package pgbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/loamdb/loam/meta/pgtest"
	"github.com/loamdb/loam/regress/loamtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// pgbenchBin is PostgreSQL's pgbench, beside its initdb.
func pgbenchBin(t *testing.T) string {
	t.Helper()
	dir, err := pgtest.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "pgbench")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("pgbench not found beside initdb: %v", err)
	}
	return p
}

// server is one database to run pgbench against.
type server struct {
	name string
	url  string
}

func servers(t *testing.T) []server {
	srv := loamtest.Start(t, loamtest.Binary(t))
	return []server{
		{"loam", fmt.Sprintf("postgres://loam@%s/loam?sslmode=disable", srv.Addr)},
		{"postgres", pgtest.Database(t)},
	}
}

// run runs pgbench with args against url; its output is returned, and a
// non-zero exit fails the test with it.
func run(t *testing.T, bin, url string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append(args, url)...)
	cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=30")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench %v: %v\n%s", args, err, out)
	}
	return string(out)
}

var processedRE = regexp.MustCompile(`number of transactions actually processed: (\d+)/(\d+)`)

// processed is how many transactions a run reports done, all of those
// it was asked for (a failed or aborted client fails the test).
func processed(t *testing.T, out string) int {
	t.Helper()
	m := processedRE.FindStringSubmatch(out)
	if m == nil || m[1] != m[2] {
		t.Fatalf("pgbench did not process every transaction:\n%s", out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// balances checks the TPC-B invariant and returns the history's rows.
func balances(t *testing.T, ctx context.Context, conn *pgx.Conn) int64 {
	t.Helper()
	var a, h, b, tl, n int64
	err := conn.QueryRow(ctx, `SELECT
		(SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts),
		(SELECT coalesce(sum(delta), 0) FROM pgbench_history),
		(SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches),
		(SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers),
		(SELECT count(*) FROM pgbench_history)`).Scan(&a, &h, &b, &tl, &n)
	if err != nil {
		t.Fatal(err)
	}
	if a != h || h != b || b != tl {
		t.Fatalf("balances disagree: accounts %d, history %d, branches %d, tellers %d", a, h, b, tl)
	}
	return n
}

// TestPgbench is pgbench -i -s 1, then 8 clients in each query mode, on
// both servers: every transaction done, none failed, and the balances
// invariant holding after each run.
func TestPgbench(t *testing.T) {
	bin := pgbenchBin(t)
	ctx := context.Background()
	const perClient = 15
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			out := run(t, bin, s.url, "-i", "-s", "1")
			conn, err := pgx.Connect(ctx, s.url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var accounts, branches, tellers int64
			if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pgbench_accounts),
				(SELECT count(*) FROM pgbench_branches), (SELECT count(*) FROM pgbench_tellers)`).Scan(&accounts, &branches, &tellers); err != nil {
				t.Fatalf("%v\npgbench -i said:\n%s", err, out)
			}
			if accounts != 100000 || branches != 1 || tellers != 10 {
				t.Fatalf("pgbench -i -s 1 loaded %d accounts, %d branches, %d tellers; want 100000, 1, 10", accounts, branches, tellers)
			}
			// The primary keys -i added hold.
			_, err = conn.Exec(ctx, "INSERT INTO pgbench_accounts (aid, bid, abalance) VALUES (1, 1, 0)")
			if pe := (*pgconn.PgError)(nil); !errors.As(err, &pe) || pe.Code != "23505" {
				t.Fatalf("duplicate aid after pgbench -i: %v, want 23505", err)
			}
			want := int64(0)
			for _, mode := range []string{"simple", "prepared", "extended"} {
				args := []string{"-c", "8", "-j", "2", "-t", strconv.Itoa(perClient), "-M", mode}
				if mode != "simple" {
					// pgbench's opening vacuum truncates pgbench_history;
					// only the first run has it, so the history adds up.
					args = append(args, "-n")
				}
				out := run(t, bin, s.url, args...)
				want += int64(processed(t, out))
				if got := balances(t, ctx, conn); got != want {
					t.Fatalf("-M %s: pgbench_history holds %d rows, want %d", mode, got, want)
				}
			}
		})
	}
}

// TestPgbenchInitSteps is -i with server-side generation (-I dtGvp: INSERT
// … SELECT … generate_series) and a fill factor, then a short run.
func TestPgbenchInitSteps(t *testing.T) {
	bin := pgbenchBin(t)
	ctx := context.Background()
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			run(t, bin, s.url, "-i", "-I", "dtGvp", "-F", "90", "-s", "1")
			out := run(t, bin, s.url, "-c", "4", "-j", "2", "-t", "10", "-n")
			n := processed(t, out)
			conn, err := pgx.Connect(ctx, s.url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if got := balances(t, ctx, conn); got != int64(n) {
				t.Fatalf("pgbench_history holds %d rows, want %d", got, n)
			}
		})
	}
}

// Two custom scripts updating pgbench_tellers and pgbench_branches in
// opposite orders deadlock now and then (on Loam, whose row lock is
// table-wide, often). The server must report 40P01, which pgbench retries
// under --max-tries: every transaction ends done and each of them added
// one to both tables.
const (
	tellersFirst = `\set tid random(1, 10)
BEGIN;
UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;
END;
`
	branchesFirst = `\set tid random(1, 10)
BEGIN;
UPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = 1;
UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = :tid;
END;
`
)

func TestPgbenchDeadlockRetries(t *testing.T) {
	bin := pgbenchBin(t)
	ctx := context.Background()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.sql"), filepath.Join(dir, "b.sql")
	if err := os.WriteFile(a, []byte(tellersFirst), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(branchesFirst), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range servers(t) {
		t.Run(s.name, func(t *testing.T) {
			run(t, bin, s.url, "-i", "-s", "1", "-I", "dtgp")
			out := run(t, bin, s.url, "-n", "-c", "4", "-j", "2", "-t", "10", "-f", a, "-f", b,
				"--max-tries", "1000", "--failures-detailed")
			n := processed(t, out)
			conn, err := pgx.Connect(ctx, s.url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var tellers, branches int64
			if err := conn.QueryRow(ctx, `SELECT (SELECT sum(tbalance) FROM pgbench_tellers),
				(SELECT sum(bbalance) FROM pgbench_branches)`).Scan(&tellers, &branches); err != nil {
				t.Fatal(err)
			}
			if tellers != int64(n) || branches != int64(n) {
				t.Fatalf("after %d transactions: tellers %d, branches %d; want %d each\n%s", n, tellers, branches, n, out)
			}
		})
	}
}
