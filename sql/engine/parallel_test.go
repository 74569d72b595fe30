package engine_test

import (
	"context"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
)

// parallelTable makes a table of 30,000 rows, some in data files and some
// in the write log's tail, with NULLs, negative zeros and repeated keys,
// and has the session plan every scan of it in parallel.
func parallelTable(t *testing.T) (*engine.Session, func(string) result) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE p (id INT, g TEXT, k INT, x BIGINT, f DOUBLE PRECISION, r REAL, n NUMERIC, b BOOLEAN, ts TIMESTAMPTZ)")
	ins := `INSERT INTO p SELECT i, CASE WHEN i % 13 = 0 THEN NULL ELSE 'g' || (i % 7) END, i % 5,
		CASE WHEN i % 11 = 0 THEN NULL ELSE i::bigint * 1000003 END,
		CASE WHEN i % 17 = 0 THEN NULL WHEN i % 19 = 0 THEN -0.0 ELSE i / 7.0 END, (i % 100) / 3.0,
		CASE WHEN i % 23 = 0 THEN NULL ELSE (i % 1000) / 8.0 END, i % 3 = 0,
		TIMESTAMPTZ '2026-01-01 00:00:00+00' + i * INTERVAL '1 minute'
		FROM generate_series(%d, %d) AS i`
	mustRun(t, s, strings.Replace(strings.Replace(ins, "%d", "1", 1), "%d", "20000", 1))
	mustRun(t, s, "CHECKPOINT")
	mustRun(t, s, strings.Replace(strings.Replace(ins, "%d", "20001", 1), "%d", "30000", 1))
	mustRun(t, s, "SET loam.parallel_min_rows = 0")
	return s, func(q string) result { return mustRun(t, s, q) }
}

// TestParallelMatchesSerial runs each query with parallel workers and
// without, and wants the same rows: in the same order where the query
// orders them, as a set otherwise; float8 sums, whose rounding depends on
// the order rows are added in, within 1e-12.
func TestParallelMatchesSerial(t *testing.T) {
	_, run := parallelTable(t)
	cases := []struct {
		q       string
		planned bool // a Gather in the plan
		ordered bool
	}{
		{"SELECT count(*), sum(k), sum(x), sum(f), sum(r), sum(n), avg(k), avg(x), avg(f), avg(r), avg(n) FROM p", true, true},
		{"SELECT min(g), max(g), min(ts), max(ts), min(f), max(n), bool_and(b), bool_or(b), count(f), count(g) FROM p", true, true},
		{"SELECT count(*), sum(x) FROM p WHERE k = 99", true, true}, // no rows: count 0, sum NULL
		{"SELECT avg(f) FROM p WHERE f = 0", true, true},            // -0 and 0 average to 0
		{"SELECT g, count(*), sum(x), avg(n), min(f), max(ts) FROM p GROUP BY g ORDER BY g", true, true},
		{"SELECT g, k, count(*) FILTER (WHERE b), sum(f) FILTER (WHERE k > 1) FROM p WHERE id % 2 = 0 GROUP BY g, k", true, false},
		{"SELECT DISTINCT g, k FROM p WHERE x IS NOT NULL", true, false},
		{"SELECT k, avg(id * 2 + 1), sum(id::numeric / 3) FROM p WHERE g <> 'g3' GROUP BY k ORDER BY 2", true, true},
		// Aggregates whose states do not merge: serial aggregation over a
		// Gather of the filtered rows, or all serial for collecting ones.
		{"SELECT g, count(DISTINCT k), stddev(f), percentile_cont(0.5) WITHIN GROUP (ORDER BY id) FROM p WHERE id > 10 GROUP BY g", true, false},
		{"SELECT k, string_agg(g, ',' ORDER BY id) FROM p WHERE id < 50 GROUP BY k", true, false},
		{"SELECT k, array_agg(id) FROM p WHERE id < 50 GROUP BY k", false, false},
		{"SELECT id, g, f FROM p WHERE id % 97 = 1 ORDER BY f DESC NULLS LAST, id", true, true},
		{"SELECT a.k, count(*) FROM (SELECT * FROM p WHERE k < 3) a JOIN (SELECT * FROM p WHERE g = 'g1') b ON a.id = b.id + 1 GROUP BY a.k", true, false},
		{"SELECT a.k, count(*), sum(b.x) FROM p a JOIN p b ON a.id = b.id + 1 WHERE a.k < 3 AND b.g = 'g1' GROUP BY a.k", true, false},
		{"SELECT a.g, count(b.id), min(b.f) FROM p a LEFT JOIN (SELECT * FROM p WHERE id % 10 = 0) b ON a.id = b.id GROUP BY a.g", true, false},
		{"SELECT a.id, b.g FROM p a JOIN p b ON a.id = b.k * 1000 ORDER BY a.id, b.g", true, true},
		{"SELECT a.k, count(*) FROM p a FULL JOIN p b ON a.id = b.id + 5 GROUP BY a.k", false, false}, // marks the table's rows: serial
		{"SELECT id, f, g FROM p WHERE k <> 2 ORDER BY f DESC NULLS LAST, id LIMIT 25", true, true},
		{"SELECT ts, g FROM p ORDER BY g NULLS FIRST, ts DESC LIMIT 10 OFFSET 3", true, true},
		{"SELECT count(*) FROM p WHERE random() < 2", false, true}, // volatile: evaluated on the session's goroutine
		{"SELECT id FROM p WHERE id % 1000 = 0", false, false},     // rows to the client keep their order: serial
	}
	for _, tc := range cases {
		t.Run(tc.q, func(t *testing.T) {
			run("SET max_parallel_workers_per_gather = 0")
			want := run(tc.q)
			if plan := explain(run, tc.q); strings.Contains(plan, "Gather") {
				t.Fatalf("a Gather with max_parallel_workers_per_gather = 0:\n%s", plan)
			}
			run("SET max_parallel_workers_per_gather = 2")
			plan := explain(run, tc.q)
			if got := strings.Contains(plan, "Workers Planned: 2"); got != tc.planned {
				t.Fatalf("Gather planned %v, want %v:\n%s", got, tc.planned, plan)
			}
			got := run(tc.q)
			if !tc.ordered {
				slices.SortFunc(want.rows, cmpRow)
				slices.SortFunc(got.rows, cmpRow)
			}
			if d := rowsDiff(got.rows, want.rows); d != "" {
				t.Fatalf("parallel differs from serial: %s", d)
			}
		})
	}
}

func explain(run func(string) result, q string) string {
	var b strings.Builder
	for _, r := range run("EXPLAIN " + q).rows {
		b.WriteString(r[0] + "\n")
	}
	return b.String()
}

func cmpRow(a, b []string) int { return slices.Compare(a, b) }

// rowsDiff is "" when the rows agree, floats to 1e-12 relative.
func rowsDiff(got, want [][]string) string {
	if len(got) != len(want) {
		return "rows " + strconv.Itoa(len(got)) + ", want " + strconv.Itoa(len(want))
	}
	for i := range got {
		for j := range got[i] {
			g, w := got[i][j], want[i][j]
			if g == w {
				continue
			}
			gf, err1 := strconv.ParseFloat(g, 64)
			wf, err2 := strconv.ParseFloat(w, 64)
			if err1 == nil && err2 == nil && math.Abs(gf-wf) <= 1e-12*math.Max(math.Abs(gf), math.Abs(wf)) {
				continue
			}
			return "row " + strconv.Itoa(i) + " column " + strconv.Itoa(j) + ": " + g + ", want " + w
		}
	}
	return ""
}

// TestParallelExplainAnalyze: EXPLAIN ANALYZE shows the workers launched,
// each one's rows, and the nodes under the Gather counted a loop a worker.
func TestParallelExplainAnalyze(t *testing.T) {
	_, run := parallelTable(t)
	run("SET max_parallel_workers_per_gather = 2")
	plan := explain(run, "ANALYZE SELECT k, count(*) FROM p WHERE id > 100 GROUP BY k")
	for _, want := range []string{"Finalize HashAggregate", "Gather", "Workers Planned: 2", "Workers Launched: 2",
		"Worker 0: rows=", "Worker 1: rows=", "Partial HashAggregate", "loops=2"} {
		if !strings.Contains(plan, want) {
			t.Errorf("no %q in\n%s", want, plan)
		}
	}
	// A table under loam.parallel_min_rows is scanned serially.
	run("RESET loam.parallel_min_rows")
	if plan := explain(run, "SELECT k, count(*) FROM p WHERE id > 100 GROUP BY k"); strings.Contains(plan, "Gather") {
		t.Errorf("30,000 rows scanned in parallel under the default loam.parallel_min_rows:\n%s", plan)
	}
	run("SET loam.parallel_min_rows = 0")
	// Where the aggregation stays serial, EXPLAIN says why.
	for q, want := range map[string]string{
		"SELECT k, count(DISTINCT g) FROM p WHERE id > 1 GROUP BY k": "Serial Aggregation: an aggregate's states do not merge",
		"SELECT k, array_agg(id) FROM p GROUP BY k":                  "Serial Aggregation: an aggregate depends on the order of its input",
	} {
		if plan := explain(run, q); !strings.Contains(plan, want) {
			t.Errorf("no %q in\n%s", want, plan)
		}
	}
}

// TestParallelErrorsAndLeaks: an error in a worker is the query's error,
// with its SQLSTATE, and no worker outlives its query.
func TestParallelErrorsAndLeaks(t *testing.T) {
	ts, run := parallelTable(t)
	run("SET max_parallel_workers_per_gather = 2")
	run("SELECT count(*) FROM p WHERE id > 0") // warm: the column cache's goroutines, if any
	before := queryGoroutines()
	for range 20 {
		_, err := runSQL(context.Background(), ts, "SELECT sum(100 / (id - 25000)) FROM p WHERE k >= 0")
		if got := sqlstate(err); got != pgerr.DivisionByZero {
			t.Fatalf("SQLSTATE %s (%v), want 22012", got, err)
		}
		run("SELECT g, sum(x) FROM p WHERE id % 3 = 0 GROUP BY g")
		// A cursor closed before its end stops the workers.
		run("BEGIN")
		run("DECLARE c CURSOR FOR SELECT id FROM p WHERE id % 5 = 0 ORDER BY id")
		run("FETCH 2 FROM c")
		run("CLOSE c")
		run("COMMIT")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runSQL(ctx, ts, "SELECT count(*) FROM p WHERE id > 0"); err == nil {
		t.Errorf("a cancelled query ran to the end")
	}
	deadline := time.Now().Add(5 * time.Second)
	for queryGoroutines() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := queryGoroutines(); n > before {
		t.Errorf("%d goroutines after the queries, %d before", n, before)
	}
}

// TestParallelSettings: SET and SHOW of max_parallel_workers_per_gather,
// with PostgreSQL's errors.
func TestParallelSettings(t *testing.T) {
	ts, run := parallelTable(t)
	if got := run("SHOW max_parallel_workers_per_gather").rows[0][0]; got != strconv.Itoa(runtime.NumCPU()) {
		t.Errorf("default %s, want the CPUs (%d)", got, runtime.NumCPU())
	}
	run("SET max_parallel_workers_per_gather = 3")
	if got := run("SHOW max_parallel_workers_per_gather").rows[0][0]; got != "3" {
		t.Errorf("SHOW %s after SET 3", got)
	}
	for _, v := range []string{"-1", "1025", "'two'"} {
		_, err := runSQL(context.Background(), ts, "SET max_parallel_workers_per_gather = "+v)
		if got := sqlstate(err); got != pgerr.InvalidParameterValue {
			t.Errorf("SET %s: SQLSTATE %s (%v), want 22023", v, got, err)
		}
	}
}
