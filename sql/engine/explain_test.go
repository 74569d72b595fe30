package engine_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

func planText(r result) string {
	var b strings.Builder
	for _, row := range r.rows {
		b.WriteString(row[0])
		b.WriteByte('\n')
	}
	return b.String()
}

// recursiveQuery counts to 5 with WITH RECURSIVE.
const recursiveQuery = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) SELECT n FROM t"

func TestExplain(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE calls (ts TIMESTAMP WITH TIME ZONE, tenant TEXT, cost DOUBLE PRECISION) PARTITIONED BY (day(ts))")
	mustRun(t, s, "INSERT INTO calls VALUES ('2026-11-01 10:00+00','a',1),('2026-11-02 10:00+00','b',2),('2026-11-03 10:00+00','a',3)")
	mustRun(t, s, "CHECKPOINT")
	mustRun(t, s, "INSERT INTO calls VALUES ('2026-11-03 11:00+00','c',4)")
	mustRun(t, s, "CREATE TABLE tenants (id TEXT, name TEXT)")
	mustRun(t, s, "INSERT INTO tenants VALUES ('a', 'Acme'), ('c', 'Cyberdyne')")
	q := "SELECT tenant, sum(cost) FROM calls WHERE ts >= '2026-11-03' GROUP BY tenant ORDER BY 2 DESC LIMIT 5"

	cases := []struct {
		query string
		want  []string // regular expressions, each matching some line
	}{
		{"EXPLAIN " + q, []string{
			`^Limit$`, `^  ->  Top-N Sort$`, `Keeps: 5 rows`, `HashAggregate$`, `Group Key: tenant`,
			`->  Iceberg Scan on public\.calls$`,
			// Two of the three day partitions are pruned by ts.
			`Files: 1 of 3 \(2 pruned\), Partitions: 1, Rows: 1`,
		}},
		{"EXPLAIN ANALYZE " + q, []string{
			`^Limit  \(actual time=[0-9.]+\.\.[0-9.]+ rows=2 batches=1 loops=1\)$`,
			// One row from the file, one from the write log's tail.
			`Iceberg Scan on public\.calls  \(actual time=.* rows=2 `,
			`Write Log Tail: 1 rows`,
			// The kept file's row group was checked against ts's statistics.
			`Row Groups Decoded: 1 of 1 \(0 skipped by statistics\)`,
			`^Planning Time: [0-9.]+ ms$`, `^Execution Time: [0-9.]+ ms$`,
		}},
		// A WHERE conjunct on one side of a join prunes that side's files.
		{"EXPLAIN SELECT c.tenant, t.name FROM calls c JOIN tenants t ON c.tenant = t.id WHERE c.ts >= '2026-11-03'", []string{
			`Hash Join`, `Hash Cond: tenant = id`, `Files: 1 of 3 \(2 pruned\)`,
		}},
		{"EXPLAIN SELECT c.tenant FROM calls c, tenants t WHERE c.tenant = t.id AND c.ts < '2026-11-02'", []string{
			`Hash Join`, `Files: 1 of 3 \(2 pruned\)`,
		}},
		// An inner join hashes the smaller table: calls (3 rows committed)
		// is probed, tenants (none committed) is hashed, whatever the order.
		{"EXPLAIN SELECT t.name, c.cost FROM tenants t JOIN calls c ON c.tenant = t.id", []string{
			`Hash Join`, `(?s)Hash Join.*calls.*tenants`,
		}},
		// A constant expression is folded at planning, so it prunes too.
		{"EXPLAIN SELECT tenant FROM calls WHERE ts >= ('2026-11-0' || '3')::timestamptz", []string{
			`Filter: \(ts >= '2026-11-03 00:00:00\+00'`, `Files: 1 of 3 \(2 pruned\)`,
		}},
		// A part computed per run (it reads now()) stays in the plan and
		// takes its value when the scan is built; plain EXPLAIN counts the
		// files with that value too, as the run would prune them.
		// (The rows are of November 2026, before any now() this runs at.)
		{"EXPLAIN SELECT tenant FROM calls WHERE ts > now() - interval '1 hour'", []string{
			`Files: 0 of 3 \(3 pruned\)`,
		}},
		// VERBOSE adds the logical plan after rewriting: the filter gave
		// the scan its pruning predicate, and the sort keeps 5 rows.
		{"EXPLAIN VERBOSE " + q, []string{
			`^Logical Plan \(rewritten\):$`, `^    Sort #1 DESC keeping 5$`,
			`^            Scan calls where \(ts >= '2026-11-03`,
		}},
		{"EXPLAIN (ANALYZE false) SELECT count(*) FROM calls", []string{`->  Aggregate$`, `Files: 3 of 3 \(0 pruned\)`}},
		// A recursive query's recursive term is planned once, as
		// PostgreSQL's: under the union, after the initial term, reading
		// the working table.
		{"EXPLAIN " + recursiveQuery, []string{
			`(?s)->  Recursive Union All\n.*->  Values Scan.*->  Filter\n.*Filter: \(n < '5'::integer\)\n *->  WorkTable Scan on t\n`,
		}},
		// ANALYZE counts the term's operators over its iterations (five:
		// the last yields no row), per loop as PostgreSQL does.
		{"EXPLAIN ANALYZE " + recursiveQuery, []string{
			`->  Recursive Union All  \(actual time=.* rows=5 batches=5 loops=1\)$`,
			`->  WorkTable Scan on t  \(actual time=.* rows=1 batches=1 loops=5\)$`,
		}},
	}
	for _, c := range cases {
		r := mustRun(t, s, c.query)
		if len(r.cols) != 1 || r.cols[0].Name != "QUERY PLAN" {
			t.Fatalf("%s: columns %v", c.query, r.cols)
		}
		text := planText(r)
		for _, w := range c.want {
			if !regexp.MustCompile("(?m)" + w).MatchString(text) {
				t.Errorf("%s: no line matches %q in\n%s", c.query, w, text)
			}
		}
	}
	// EXPLAIN ANALYZE runs the query but returns only the plan; the
	// session stays usable after an EXPLAIN error.
	if _, err := runSQL(context.Background(), s, "EXPLAIN (FORMAT JSON) SELECT 1"); sqlstate(err) != "0A000" {
		t.Errorf("FORMAT JSON: %v", err)
	}
	if _, err := runSQL(context.Background(), s, "EXPLAIN SELECT nosuch FROM calls"); sqlstate(err) != "42703" {
		t.Errorf("bad column: %v", err)
	}
}

// EXPLAIN shows an INSERT's plan, its sink over its source as
// PostgreSQL's "Insert on t -> Values Scan", writing nothing; EXPLAIN
// ANALYZE really inserts (into the block's transaction, so ROLLBACK
// takes the rows back) and shows the counts; a failing one writes none.
func TestExplainInsert(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE ti (a INTEGER, b TEXT)")
	count := func() string {
		t.Helper()
		return mustRun(t, s, "SELECT count(*) FROM ti").rows[0][0]
	}
	steps := []struct {
		query string
		want  []string // regular expressions, each matching some line
		count string   // rows in ti after it
	}{
		{"EXPLAIN INSERT INTO ti VALUES (1, 'x'), (2, 'y')", []string{
			`^Insert on ti$`, `(?s)^Insert on ti\n.*->  Values Scan \(2 rows\)$`,
		}, "0"},
		{"EXPLAIN ANALYZE INSERT INTO ti VALUES (1, 'x'), (2, 'y')", []string{
			`^Insert on ti  \(actual time=[0-9.]+\.\.[0-9.]+ rows=1 batches=1 loops=1\)$`,
			`->  Values Scan \(2 rows\)  \(actual time=.* rows=2 batches=1 loops=1\)$`,
			`^Planning Time: [0-9.]+ ms$`, `^Execution Time: [0-9.]+ ms$`,
		}, "2"},
		{"EXPLAIN (ANALYZE) INSERT INTO ti SELECT g, 'z' FROM generate_series(1, 3) g RETURNING a", []string{
			`^Insert on ti  \(actual time=.* rows=3 batches=1 loops=1\)$`, `^  Returning: a$`,
			`->  Function Scan on generate_series  \(actual time=.* rows=3 `,
		}, "5"},
		{"BEGIN", nil, "5"},
		{"EXPLAIN ANALYZE INSERT INTO ti VALUES (9, 'in a block')", []string{`^Insert on ti  \(actual`}, "6"},
		{"ROLLBACK", nil, "5"},
	}
	for _, st := range steps {
		r := mustRun(t, s, st.query)
		text := planText(r)
		for _, w := range st.want {
			if !regexp.MustCompile("(?m)" + w).MatchString(text) {
				t.Errorf("%s: no line matches %q in\n%s", st.query, w, text)
			}
		}
		if got := count(); got != st.count {
			t.Errorf("after %s: %s rows in ti, want %s", st.query, got, st.count)
		}
	}
	if _, err := runSQL(context.Background(), s, "EXPLAIN ANALYZE INSERT INTO ti VALUES (1, 'x'), (1 / 0, 'y')"); sqlstate(err) != "22012" {
		t.Errorf("failing EXPLAIN ANALYZE INSERT: %v", err)
	}
	if got := count(); got != "5" {
		t.Errorf("after a failing EXPLAIN ANALYZE INSERT: %s rows in ti, want 5", got)
	}
}
