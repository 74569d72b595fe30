package engine_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/types"
)

// MERGE's tag counts the rows inserted, updated and deleted, not those a
// DO NOTHING took or no clause did (PostgreSQL 15's tags for the same
// statements).
func TestMergeTags(t *testing.T) {
	s := newSession(t, openEngine(t))
	mustRun(t, s, "CREATE TABLE m (id int, v text)")
	mustRun(t, s, "INSERT INTO m SELECT g, 'v' || g FROM generate_series(1, 5) g")
	mustRun(t, s, "CHECKPOINT") // rows in a file and in the log
	mustRun(t, s, "CREATE TABLE src (id int, v text)")
	mustRun(t, s, "INSERT INTO src VALUES (4, 'x'), (5, 'y'), (6, 'z'), (7, 'w')")
	for _, c := range []struct{ q, tag string }{
		{"MERGE INTO m USING src ON m.id = src.id WHEN MATCHED THEN UPDATE SET v = src.v WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.v)", "MERGE 4"},
		{"MERGE INTO m USING src ON m.id = src.id WHEN MATCHED AND src.id = 4 THEN DELETE WHEN MATCHED THEN DO NOTHING", "MERGE 1"},
		{"MERGE INTO m USING src ON m.id = src.id WHEN NOT MATCHED THEN INSERT VALUES (src.id, 'again')", "MERGE 1"},
		{"MERGE INTO m USING (SELECT 100 AS id) s ON m.id = s.id WHEN MATCHED THEN DELETE", "MERGE 0"},
		{"MERGE INTO m USING (SELECT g AS id FROM generate_series(1, 3) g) s ON m.id = s.id WHEN MATCHED THEN DELETE", "MERGE 3"},
	} {
		if r := mustRun(t, s, c.q); r.tag != c.tag {
			t.Errorf("%s: tag %q, want %q", c.q, r.tag, c.tag)
		}
	}
	if got := mustRun(t, s, "SELECT string_agg(id || ':' || v, ',' ORDER BY id) FROM m").rows[0][0]; got != "4:again,5:y,6:z,7:w" {
		t.Errorf("rows: %s", got)
	}
}

// A MERGE in a block is seen by the block alone until COMMIT, gone after
// ROLLBACK; a second session's MERGE of the same table waits for the
// block (the row lock) and then reads its rows, so no update is lost.
func TestMergeTransactions(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t)
	s, other := newSession(t, e), newSession(t, e)
	mustRun(t, s, "CREATE TABLE c (id int, n int)")
	mustRun(t, s, "INSERT INTO c VALUES (1, 0)")
	const bump = "MERGE INTO c USING (VALUES (1), (2)) AS v(id) ON c.id = v.id " +
		"WHEN MATCHED THEN UPDATE SET n = c.n + 1 WHEN NOT MATCHED THEN INSERT VALUES (v.id, 100)"
	rows := func(sess string) string {
		who := s
		if sess == "other" {
			who = other
		}
		return show(mustRun(t, who, "SELECT id, n FROM c ORDER BY id").rows)
	}

	mustRun(t, s, "BEGIN")
	mustRun(t, s, bump)
	if got, want := rows("s"), show([][]string{{"1", "1"}, {"2", "100"}}); got != want {
		t.Fatalf("the block's own view: %s, want %s", got, want)
	}
	if got, want := rows("other"), show([][]string{{"1", "0"}}); got != want {
		t.Fatalf("another session before COMMIT: %s, want %s", got, want)
	}
	mustRun(t, s, "ROLLBACK")
	if got, want := rows("other"), show([][]string{{"1", "0"}}); got != want {
		t.Fatalf("after ROLLBACK: %s, want %s", got, want)
	}

	mustRun(t, s, "BEGIN")
	mustRun(t, s, bump)
	done := make(chan result, 1)
	go func() {
		// Waits for the block's row lock, then merges into its rows.
		r, err := runSQL(ctx, other, bump)
		if err != nil {
			t.Errorf("the waiting MERGE: %v", err)
			done <- result{}
			return
		}
		done <- r[0]
	}()
	mustRun(t, s, bump) // the block holds the lock: its second MERGE runs
	mustRun(t, s, "COMMIT")
	if r := <-done; r.tag != "MERGE 2" {
		t.Errorf("the waiting MERGE's tag: %q, want MERGE 2", r.tag)
	}
	if got, want := rows("s"), show([][]string{{"1", "3"}, {"2", "102"}}); got != want {
		t.Fatalf("after both: %s, want %s", got, want)
	}
}

// A prepared MERGE takes its parameters' types from where they are used,
// and each execution reads the table as it is then.
func TestMergePrepared(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, openEngine(t))
	mustRun(t, s, "CREATE TABLE kv (k text, v int)")
	stmts, err := s.Prepare(ctx, "MERGE INTO kv USING (SELECT $1 AS k, $2::int AS v) AS s ON kv.k = s.k "+
		"WHEN MATCHED THEN UPDATE SET v = kv.v + s.v WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.v)", nil)
	if err != nil {
		t.Fatal(err)
	}
	st := stmts[0]
	if len(st.ParamTypes) != 2 {
		t.Fatalf("parameter types %v", st.ParamTypes)
	}
	for _, p := range []struct {
		k string
		v int64
	}{{"a", 1}, {"b", 10}, {"a", 2}, {"a", 4}} {
		r, err := execStmt(ctx, s, st, []types.Datum{types.TextDatum(p.k), types.Int(st.ParamTypes[1], p.v)})
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		if r.tag != "MERGE 1" {
			t.Errorf("%v: tag %q", p, r.tag)
		}
	}
	if got, want := show(mustRun(t, s, "SELECT k, v FROM kv ORDER BY k").rows), show([][]string{{"a", "7"}, {"b", "10"}}); got != want {
		t.Errorf("rows: %s, want %s", got, want)
	}
}

// EXPLAIN shows a MERGE as "Merge on t" over the join, its clauses in
// order, and runs nothing; EXPLAIN ANALYZE runs it, and ROLLBACK undoes
// it.
func TestExplainMerge(t *testing.T) {
	s := newSession(t, openEngine(t))
	mustRun(t, s, "CREATE TABLE tm (a int, b text)")
	mustRun(t, s, "INSERT INTO tm VALUES (1, 'x'), (2, 'y')")
	count := func() string { return mustRun(t, s, "SELECT count(*) FROM tm").rows[0][0] }
	const q = "MERGE INTO tm USING (VALUES (1), (3)) AS v(a) ON tm.a = v.a " +
		"WHEN MATCHED AND tm.b = 'x' THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (v.a, 'new')"
	for _, c := range []struct {
		query string
		want  []string
		count string
	}{
		{"EXPLAIN " + q, []string{`^Merge on tm$`, `^  WHEN MATCHED AND \(.*b = 'x'::text\) THEN DELETE$`,
			`^  WHEN NOT MATCHED THEN INSERT$`, `->  .*Join`, `Iceberg Scan on public\.tm`}, "2"},
		{"BEGIN", nil, "2"},
		{"EXPLAIN ANALYZE " + q, []string{`^Merge on tm  \(actual time=.* rows=1 batches=1 loops=1\)$`}, "2"},
		{"ROLLBACK", nil, "2"},
		{"EXPLAIN ANALYZE " + q, nil, "2"}, // one deleted, one inserted
	} {
		text := planText(mustRun(t, s, c.query))
		for _, w := range c.want {
			if !regexp.MustCompile("(?m)" + w).MatchString(text) {
				t.Errorf("%s: no line matches %q in\n%s", c.query, w, text)
			}
		}
		if got := count(); got != c.count {
			t.Errorf("after %s: %s rows, want %s", c.query, got, c.count)
		}
	}
	if got := mustRun(t, s, "SELECT string_agg(a || b, ',' ORDER BY a) FROM tm").rows[0][0]; got != "2y,3new" {
		t.Errorf("after EXPLAIN ANALYZE: %s", got)
	}
}

// A MERGE's changes still in the write log when the server stops (rows
// of a file and of the log updated and deleted, rows inserted) are
// replayed once after a restart, and committed into Iceberg as they were
// read.
func TestMergeReplay(t *testing.T) {
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE rm (id int, v text)")
	mustRun(t, s, "INSERT INTO rm SELECT g, 'file' FROM generate_series(1, 6) g")
	mustRun(t, s, "CHECKPOINT")
	mustRun(t, s, "INSERT INTO rm SELECT g, 'log' FROM generate_series(7, 10) g")
	if r := mustRun(t, s, "MERGE INTO rm USING generate_series(4, 12) AS g(i) ON rm.id = g.i "+
		"WHEN MATCHED AND g.i % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET v = v || '+' "+
		"WHEN NOT MATCHED THEN INSERT VALUES (g.i, 'new')"); r.tag != "MERGE 9" {
		t.Fatalf("tag %q", r.tag)
	}
	want := "1 file, 2 file, 3 file, 5 file+, 7 log+, 9 log+, 11 new, 12 new"
	rows := func(s *engine.Session) string {
		return mustRun(t, s, "SELECT string_agg(id || ' ' || v, ', ' ORDER BY id) FROM rm").rows[0][0]
	}
	if got := rows(s); got != want {
		t.Fatalf("before the restart: %s", got)
	}
	e.Close()

	e = openEngineAt(t, dir)
	s = newSession(t, e)
	if got := rows(s); got != want {
		t.Errorf("after the restart: %s, want %s", got, want)
	}
	mustRun(t, s, "CHECKPOINT")
	if got := rows(s); got != want {
		t.Errorf("after CHECKPOINT: %s, want %s", got, want)
	}
}
