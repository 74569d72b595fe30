package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/storage/s3test"
	"github.com/loamdb/loam/types"
)

// prepareOne prepares one statement as Parse and Describe do.
func prepareOne(t *testing.T, s *engine.Session, query string) *engine.Statement {
	t.Helper()
	stmts, err := s.Prepare(context.Background(), query, nil)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return stmts[0]
}

func rowsOf(t *testing.T, s *engine.Session, st *engine.Statement, params ...types.Datum) string {
	t.Helper()
	r, err := execStmt(context.Background(), s, st, params)
	if err != nil {
		t.Fatalf("%s %v: %v", st.Query, params, err)
	}
	return fmt.Sprint(r.rows)
}

// TestPlanOnce: a prepared SELECT or INSERT is planned once, at Describe;
// its executions (the Bind+Execute of each call) reuse that plan with
// their own parameter values. A simple Query's statement is planned once
// too.
func TestPlanOnce(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id INT, v TEXT)")

	before := engine.Plannings(e)
	ins := prepareOne(t, s, "INSERT INTO t VALUES ($1, $2)")
	for i := 1; i <= 3; i++ {
		if _, err := execStmt(context.Background(), s, ins, []types.Datum{types.Int(types.TInt4, int64(i)), types.TextDatum(fmt.Sprint("v", i))}); err != nil {
			t.Fatal(err)
		}
	}
	sel := prepareOne(t, s, "SELECT v FROM t WHERE id = $1")
	for i := 1; i <= 3; i++ {
		if got, want := rowsOf(t, s, sel, types.Int(types.TInt4, int64(i))), fmt.Sprintf("[[v%d]]", i); got != want {
			t.Errorf("id = %d: got %s, want %s", i, got, want)
		}
	}
	if n := engine.Plannings(e) - before; n != 2 {
		t.Errorf("Parse+Describe, then three Bind+Execute, of two statements: %d plannings, want 2", n)
	}

	// PREPARE and EXECUTE likewise.
	before = engine.Plannings(e)
	mustRun(t, s, "PREPARE q (int) AS SELECT v FROM t WHERE id = $1")
	for i := 1; i <= 3; i++ {
		if got, want := fmt.Sprint(mustRun(t, s, fmt.Sprintf("EXECUTE q(%d)", i)).rows), fmt.Sprintf("[[v%d]]", i); got != want {
			t.Errorf("EXECUTE q(%d): got %s, want %s", i, got, want)
		}
	}
	if n := engine.Plannings(e) - before; n != 1 {
		t.Errorf("PREPARE, then three EXECUTEs: %d plannings, want 1", n)
	}

	before = engine.Plannings(e)
	if got := fmt.Sprint(mustRun(t, s, "SELECT count(*) FROM t").rows); got != "[[3]]" {
		t.Errorf("count: %s", got)
	}
	if n := engine.Plannings(e) - before; n != 1 {
		t.Errorf("simple Query: %d plannings, want 1", n)
	}
}

// TestKeptPlanSeesNewRows: a kept plan reads the table as it is at each
// execution, not as it was when planned.
func TestKeptPlanSeesNewRows(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id INT)")
	mustRun(t, s, "INSERT INTO t VALUES (1)")
	sel := prepareOne(t, s, "SELECT id FROM t WHERE id >= $1 ORDER BY id")
	if got := rowsOf(t, s, sel, types.Int(types.TInt4, 0)); got != "[[1]]" {
		t.Fatalf("first: %s", got)
	}
	mustRun(t, s, "INSERT INTO t VALUES (2), (3)")
	mustRun(t, s, "CHECKPOINT") // some rows in Iceberg files, …
	mustRun(t, s, "INSERT INTO t VALUES (4)")
	before := engine.Plannings(e)
	if got := rowsOf(t, s, sel, types.Int(types.TInt4, 2)); got != "[[2] [3] [4]]" { // … one in the write log's tail
		t.Errorf("after inserts: %s", got)
	}
	if n := engine.Plannings(e) - before; n != 0 {
		t.Errorf("inserts into a table the plan reads planned it again (%d)", n)
	}
	// Inside a transaction block, the block's own rows.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO t VALUES (5)")
	if got := rowsOf(t, s, sel, types.Int(types.TInt4, 4)); got != "[[4] [5]]" {
		t.Errorf("in the block: %s", got)
	}
	mustRun(t, s, "ROLLBACK")
	if got := rowsOf(t, s, sel, types.Int(types.TInt4, 4)); got != "[[4]]" {
		t.Errorf("after ROLLBACK: %s", got)
	}
}

// TestKeptPlanInvalidation: a plan is made again when a catalog object
// it resolved changed; a changed result shape fails as in PostgreSQL.
func TestKeptPlanInvalidation(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		query  string
		change []string
		want   string // rows, or the SQLSTATE of the error
	}{
		{"add column, SELECT *", "SELECT * FROM t", []string{"ALTER TABLE t ADD COLUMN w INT"}, pgerr.FeatureNotSupported},
		{"add column, named columns", "SELECT id FROM t", []string{"ALTER TABLE t ADD COLUMN w INT"}, "[[1]]"},
		{"drop column", "SELECT id FROM t", []string{"ALTER TABLE t DROP COLUMN v"}, "[[1]]"},
		{"drop column read", "SELECT v FROM t", []string{"ALTER TABLE t DROP COLUMN v"}, pgerr.UndefinedColumn},
		{"rename column", "SELECT v FROM t", []string{"ALTER TABLE t RENAME COLUMN v TO w"}, pgerr.UndefinedColumn},
		{"drop table", "SELECT id FROM t", []string{"DROP VIEW vw", "DROP TABLE t"}, pgerr.UndefinedTable},
		{"table made again", "SELECT id FROM t", []string{"DROP VIEW vw", "DROP TABLE t", "CREATE TABLE t (id INT)", "INSERT INTO t VALUES (7)"}, "[[7]]"},
		{"view made again", "SELECT x FROM vw", []string{"CREATE OR REPLACE VIEW vw AS SELECT id + 10 AS x FROM t"}, "[[11]]"},
		{"search_path", "SELECT id FROM t", []string{"CREATE SCHEMA s2", "CREATE TABLE s2.t (id INT)", "INSERT INTO s2.t VALUES (2)", "SET search_path = s2, public"}, "[[2]]"},
		{"column default", "INSERT INTO t (id) VALUES (2) RETURNING v", []string{"ALTER TABLE t ALTER COLUMN v SET DEFAULT 'd'"}, "[[d]]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t)
			s := newSession(t, e)
			mustRun(t, s, "CREATE TABLE t (id INT, v TEXT)")
			mustRun(t, s, "INSERT INTO t VALUES (1, 'a')")
			mustRun(t, s, "CREATE VIEW vw AS SELECT id AS x FROM t")
			st := prepareOne(t, s, c.query)
			if _, err := execStmt(ctx, s, st, nil); err != nil {
				t.Fatalf("before: %v", err)
			}
			for _, q := range c.change {
				mustRun(t, s, q)
			}
			r, err := execStmt(ctx, s, st, nil)
			got := fmt.Sprint(r.rows)
			if err != nil {
				got = sqlstate(err)
			}
			if got != c.want {
				t.Errorf("after %v: got %s (%v), want %s", c.change, got, err, c.want)
			}
		})
	}
}

// TestKeptPlanTwoCursors: two portals of one statement open at once each
// read their own parameter values.
func TestKeptPlanTwoCursors(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id INT)")
	mustRun(t, s, "INSERT INTO t VALUES (1), (2), (3)")
	st := prepareOne(t, s, "SELECT id FROM t WHERE id > $1 ORDER BY id")
	mustRun(t, s, "BEGIN")
	c1, err := s.Execute(ctx, st, []types.Datum{types.Int(types.TInt4, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	if got := rowsOf(t, s, st, types.Int(types.TInt4, 2)); got != "[[3]]" {
		t.Errorf("second portal: %s", got)
	}
	var n int64
	for {
		rec, err := c1.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		n += rec.NumRows()
		rec.Release()
	}
	if n != 3 {
		t.Errorf("first portal: %d rows, want 3", n)
	}
	mustRun(t, s, "COMMIT")
}

// TestLimitParams: LIMIT $1 OFFSET $2 are read when the plan is built,
// so one plan serves every value; FETCH … WITH TIES $1 needs the value
// while planning and is planned for each execution (a custom plan).
func TestLimitParams(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id INT)")
	mustRun(t, s, "INSERT INTO t VALUES (1), (2), (2), (3)")
	i8 := func(n int64) types.Datum { return types.Int(types.TInt8, n) }
	before := engine.Plannings(e)
	st := prepareOne(t, s, "SELECT id FROM t ORDER BY id LIMIT $1 OFFSET $2")
	for _, c := range []struct {
		limit, offset types.Datum
		want          string
	}{
		{i8(0), i8(0), "[]"},
		{i8(1), i8(0), "[[1]]"},
		{i8(2), i8(1), "[[2] [2]]"},
		{types.NullOf(types.TInt8), i8(2), "[[2] [3]]"},
	} {
		if got := rowsOf(t, s, st, c.limit, c.offset); got != c.want {
			t.Errorf("LIMIT %v OFFSET %v: got %s, want %s", c.limit, c.offset, got, c.want)
		}
	}
	if _, err := execStmt(context.Background(), s, st, []types.Datum{i8(-1), i8(0)}); sqlstate(err) != pgerr.InvalidRowCountInLimit {
		t.Errorf("LIMIT -1: %v", err)
	}
	if n := engine.Plannings(e) - before; n != 1 {
		t.Errorf("LIMIT $1 OFFSET $2: %d plannings, want 1", n)
	}
	before = engine.Plannings(e)
	ties := prepareOne(t, s, "SELECT id FROM t ORDER BY id FETCH FIRST $1 ROWS WITH TIES")
	for n, want := range []string{"[]", "[[1]]", "[[1] [2] [2]]"} {
		if got := rowsOf(t, s, ties, i8(int64(n))); got != want {
			t.Errorf("FETCH FIRST %d WITH TIES: got %s, want %s", n, got, want)
		}
	}
	if n := engine.Plannings(e) - before; n != 4 {
		t.Errorf("WITH TIES: %d plannings, want 4 (Describe, then each execution)", n)
	}
}

// TestKeptPlanNow: now() in a kept plan is each execution's transaction
// start, not the moment the plan was made.
func TestKeptPlanNow(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE h (id INT, at TIMESTAMPTZ)")
	before := engine.Plannings(e)
	sel := prepareOne(t, s, "SELECT now()::text")
	ins := prepareOne(t, s, "INSERT INTO h VALUES ($1, now())")
	first := rowsOf(t, s, sel)
	if _, err := execStmt(context.Background(), s, ins, []types.Datum{types.Int(types.TInt4, 1)}); err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, "BEGIN")
	block := fmt.Sprint(mustRun(t, s, "SELECT now()::text").rows)
	if got := rowsOf(t, s, sel); got != block {
		t.Errorf("kept plan's now() = %s, the block's is %s (the first run's was %s)", got, block, first)
	}
	if _, err := execStmt(context.Background(), s, ins, []types.Datum{types.Int(types.TInt4, 2)}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(mustRun(t, s, "SELECT at::text FROM h WHERE id = 2").rows); got != block {
		t.Errorf("kept INSERT's now() = %s, the block's is %s", got, block)
	}
	mustRun(t, s, "COMMIT")
	// The two statements once each, and the block's two SELECTs.
	if n := engine.Plannings(e) - before; n != 4 {
		t.Errorf("%d plannings, want 4", n)
	}
}

// TestKeptPlanOtherServer: another server's ALTER on the shared catalog
// invalidates a kept plan too: the lookups at Execute read the catalog.
func TestKeptPlanOtherServer(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func(data string) *engine.Engine {
		wh, whIO := s3test.Warehouse(t, dir)
		e, err := engine.Open(ctx, engine.Config{
			MetastoreURL: "sqlite://" + dir + "/meta.db",
			WarehouseURL: wh, WarehouseIO: whIO,
			DataDir: data,
		})
		if err != nil {
			t.Fatalf("engine.Open: %v", err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	// Server two owns the table (it writes it); server one reads it.
	s2 := newSession(t, open(dir+"/two"))
	mustRun(t, s2, "CREATE TABLE t (id INT, v TEXT)")
	mustRun(t, s2, "INSERT INTO t VALUES (1, 'a')")
	mustRun(t, s2, "CHECKPOINT")
	s1 := newSession(t, open(dir+"/one"))
	st := prepareOne(t, s1, "SELECT * FROM t")
	if got := rowsOf(t, s1, st); got != "[[1 a]]" {
		t.Fatalf("before: %s", got)
	}
	mustRun(t, s2, "ALTER TABLE t ADD COLUMN w INT")
	if _, err := execStmt(ctx, s1, st, nil); sqlstate(err) != pgerr.FeatureNotSupported {
		t.Errorf("after the other server's ALTER: %v, want cached plan must not change result type", err)
	}
}

// TestKeptPlanShapes: plans of many shapes, kept and run again with other
// parameter values, answer as the same query planned afresh with the
// values written in.
func TestKeptPlanShapes(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id INT, g TEXT)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, 'b'), (5, 'c')")
	mustRun(t, s, "CREATE TABLE u (id INT, w INT)")
	mustRun(t, s, "INSERT INTO u VALUES (1, 10), (3, 30), (5, 50)")
	for _, q := range []string{
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < $1) SELECT sum(n) FROM r",
		"SELECT t.id, u.w FROM t JOIN u ON t.id = u.id WHERE u.w > $1 ORDER BY 1",
		"SELECT g, count(*), sum(id) FROM t WHERE id >= $1 GROUP BY g ORDER BY g",
		"SELECT id, row_number() OVER (PARTITION BY g ORDER BY id DESC) FROM t WHERE id <> $1 ORDER BY id",
		"SELECT id FROM t WHERE id < $1 UNION SELECT id FROM u WHERE w > $1 * 10 ORDER BY 1",
		"SELECT id FROM t WHERE id > (SELECT min(id) FROM u WHERE w > $1 * 10) ORDER BY id",
		"SELECT id, (SELECT w FROM u WHERE u.id = t.id + $1 - 1) FROM t ORDER BY id",
		"SELECT t.id, x.w FROM t, LATERAL (SELECT w FROM u WHERE u.id = t.id AND w > $1) x ORDER BY 1",
		"SELECT id FROM t WHERE g LIKE '%' || $1::text ORDER BY id LIMIT 2",
		"SELECT DISTINCT g FROM t WHERE id IN ($1, $1 + 1) ORDER BY g",
	} {
		st := prepareOne(t, s, q)
		for _, v := range []int{1, 3, 4} {
			lit := strings.ReplaceAll(q, "$1::text", fmt.Sprintf("'%d'", v))
			lit = strings.ReplaceAll(lit, "$1", fmt.Sprint(v))
			want, err := runSQL(ctx, s, lit)
			if err != nil {
				t.Fatalf("%s: %v", lit, err)
			}
			param := types.Int(types.TInt4, int64(v))
			if st.ParamTypes[0].Kind == types.Text {
				param = types.TextDatum(fmt.Sprint(v))
			}
			if got := rowsOf(t, s, st, param); got != fmt.Sprint(want[0].rows) {
				t.Errorf("%s with $1 = %d: got %s, want %s", q, v, got, fmt.Sprint(want[0].rows))
			}
		}
	}
}

// TestKeptPlanMetaTable: a kept plan of a metadata table reads the
// table's metadata as it is at each execution, not as it was planned.
func TestKeptPlanMetaTable(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE mt (id INT)")
	sel := prepareOne(t, s, `SELECT count(*) FROM "mt$snapshots"`)
	for i := 0; i < 3; i++ {
		if got, want := rowsOf(t, s, sel), fmt.Sprintf("[[%d]]", i); got != want {
			t.Fatalf("after %d commits: %s snapshots, want %s", i, got, want)
		}
		mustRun(t, s, fmt.Sprintf("INSERT INTO mt VALUES (%d)", i))
		mustRun(t, s, "CHECKPOINT")
	}
}
