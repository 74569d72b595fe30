package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/types"
)

// TestKeptPlanWithSubquery: a prepared statement whose plan holds a
// subquery is planned once; each execution runs the subquery anew over
// the tables as they are then (its results are the execution's, not the
// plan's), with inserts between executions. Expected rows are PostgreSQL
// 15's.
func TestKeptPlanWithSubquery(t *testing.T) {
	for _, c := range []struct {
		name   string
		query  string
		params []types.Datum
		want   []string // after each of the inserts below
	}{
		{"uncorrelated scalar", "SELECT id FROM t WHERE v > (SELECT avg(v) FROM u) ORDER BY id", nil,
			[]string{"[[2] [3]]", "[[2] [3]]", "[[3]]"}},
		{"uncorrelated scalar in the select list", "SELECT (SELECT count(*) FROM u) + $1::int8", []types.Datum{types.Int(types.TInt8, 100)},
			[]string{"[[101]]", "[[102]]", "[[103]]"}},
		{"IN", "SELECT id FROM t WHERE v IN (SELECT v FROM u) ORDER BY id", nil,
			[]string{"[[1]]", "[[1] [2]]", "[[1] [2] [3]]"}},
		{"NOT IN with a parameter", "SELECT id FROM t WHERE v NOT IN (SELECT v FROM u WHERE v < $1) ORDER BY id", []types.Datum{types.Int(types.TInt4, 30)},
			[]string{"[[2] [3]]", "[[3]]", "[[3]]"}},
		{"correlated EXISTS", "SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.v = t.v) ORDER BY id", nil,
			[]string{"[[1]]", "[[1] [2]]", "[[1] [2] [3]]"}},
		{"correlated scalar, memoized", "SELECT id, (SELECT count(*) FROM u WHERE u.v <= t.v) FROM t ORDER BY id", nil,
			[]string{"[[1 1] [2 1] [3 1]]", "[[1 1] [2 2] [3 2]]", "[[1 1] [2 2] [3 3]]"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t)
			s := newSession(t, e)
			mustRun(t, s, "CREATE TABLE t (id INT, v INT)")
			mustRun(t, s, "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)")
			mustRun(t, s, "CREATE TABLE u (v INT)")
			mustRun(t, s, "INSERT INTO u VALUES (10)")
			before := engine.Plannings(e)
			st := prepareOne(t, s, c.query)
			planned := engine.Plannings(e) - before
			for i, ins := range []string{"", "INSERT INTO u VALUES (20)", "INSERT INTO u VALUES (30)"} {
				if ins != "" {
					mustRun(t, s, ins)
					if i == 2 {
						mustRun(t, s, "CHECKPOINT") // rows in Iceberg files as well as the write log
					}
				}
				// Each execution twice: the second must not see the first's
				// results as stale, nor recompute differently.
				for k := 0; k < 2; k++ {
					before := engine.Plannings(e)
					if got := rowsOf(t, s, st, c.params...); got != c.want[i] {
						t.Errorf("execution %d.%d: got %s, want %s", i, k, got, c.want[i])
					}
					planned += engine.Plannings(e) - before
				}
			}
			if planned != 1 {
				t.Errorf("prepared once, executed 6 times: %d plannings, want 1", planned)
			}
		})
	}
}

// TestKeptSubqueryTwoCursors: two portals of one prepared statement with
// a subquery, open at once around an insert, each see the rows of their
// own execution.
func TestKeptSubqueryTwoCursors(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, openEngine(t))
	mustRun(t, s, "CREATE TABLE u (v INT)")
	mustRun(t, s, "INSERT INTO u VALUES (1)")
	st := prepareOne(t, s, "SELECT g, (SELECT count(*) FROM u) FROM generate_series(1, 2) g")
	first, err := s.Execute(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	mustRun(t, s, "INSERT INTO u VALUES (2)")
	if got := rowsOf(t, s, st); got != "[[1 2] [2 2]]" {
		t.Errorf("second execution: %s", got)
	}
	var got []string
	for {
		rec, err := first.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, fmt.Sprint(types.DatumAt(types.TInt8, rec.Column(1), i).I))
		}
		rec.Release()
	}
	if fmt.Sprint(got) != "[1 1]" {
		t.Errorf("first execution, read after the second: %v, want [1 1]", got)
	}
}

// TestKeptSubqueryStatementTimeout: the subquery of a kept plan runs
// under the context of the execution evaluating it, so statement_timeout
// ends a long one with 57014 although the plan was made under another.
func TestKeptSubqueryStatementTimeout(t *testing.T) {
	for _, c := range []struct {
		name, query string
	}{
		{"pg_sleep", "SELECT (SELECT count(*) FROM u WHERE pg_sleep(u.s) IS NULL)"},
		{"big cross join", "SELECT EXISTS (SELECT 1 FROM u, generate_series(1, u.n) a, generate_series(1, u.n) b WHERE a + b < 0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t)
			s := newSession(t, e)
			mustRun(t, s, "CREATE TABLE u (s FLOAT8, n INT8)")
			mustRun(t, s, "INSERT INTO u VALUES (0, 1)")
			before := engine.Plannings(e)
			st := prepareOne(t, s, c.query)
			rowsOf(t, s, st) // quick: planned, and kept
			planned := engine.Plannings(e) - before
			mustRun(t, s, "INSERT INTO u VALUES (30, 1000000)")
			before = engine.Plannings(e)
			ctx, cancel := context.WithTimeoutCause(context.Background(), 100*time.Millisecond, pgerr.StatementTimeout())
			defer cancel()
			_, err := execStmt(ctx, s, st, nil)
			if sqlstate(err) != pgerr.QueryCanceled {
				t.Errorf("under a 100ms statement_timeout: %v (%s), want 57014", err, sqlstate(err))
			}
			if n := planned + engine.Plannings(e) - before; n != 1 {
				t.Errorf("%d plannings, want 1", n)
			}
		})
	}
}

// TestSubqueryValueAtPlanning: a subquery evaluated while planning (LIMIT
// takes its value then) makes a plan for that value only; the next
// execution plans again and sees the new rows.
func TestSubqueryValueAtPlanning(t *testing.T) {
	s := newSession(t, openEngine(t))
	mustRun(t, s, "CREATE TABLE u (v INT)")
	mustRun(t, s, "INSERT INTO u VALUES (1)")
	st := prepareOne(t, s, "SELECT g FROM generate_series(1, 5) g ORDER BY g LIMIT (SELECT count(*) FROM u)")
	if got := rowsOf(t, s, st); got != "[[1]]" {
		t.Errorf("first: %s", got)
	}
	mustRun(t, s, "INSERT INTO u VALUES (2)")
	if got := rowsOf(t, s, st); got != "[[1] [2]]" {
		t.Errorf("after an insert: %s, want [[1] [2]]", got)
	}
}

// TestKeptSubqueryInBlock: inside a transaction block the subqueries of
// a kept plan read the block's own rows, and after ROLLBACK no longer;
// the plan serves all three executions.
func TestKeptSubqueryInBlock(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id INT)")
	mustRun(t, s, "INSERT INTO t VALUES (1), (2)")
	mustRun(t, s, "CREATE TABLE u (id INT)")
	mustRun(t, s, "INSERT INTO u VALUES (1)")
	st := prepareOne(t, s, "SELECT id, (SELECT count(*) FROM u) FROM t WHERE id IN (SELECT id FROM u) ORDER BY id")
	planned := int64(0)
	run := func(step, want string) {
		t.Helper()
		before := engine.Plannings(e)
		if got := rowsOf(t, s, st); got != want {
			t.Errorf("%s: got %s, want %s", step, got, want)
		}
		planned += engine.Plannings(e) - before
	}
	run("first", "[[1 1]]")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO u VALUES (2)")
	run("in the block", "[[1 2] [2 2]]")
	mustRun(t, s, "ROLLBACK")
	run("after ROLLBACK", "[[1 1]]")
	if planned != 0 {
		t.Errorf("executions of the prepared statement planned %d times, want 0", planned)
	}
}
