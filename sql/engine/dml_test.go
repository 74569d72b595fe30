package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/types"
)

// UPDATE and DELETE report PostgreSQL's tags, and change rows in the
// write log's tail and in the Iceberg files alike.
func TestUpdateDeleteTags(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id int NOT NULL, v int, tag text)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')")
	mustRun(t, s, "CHECKPOINT") // rows 1-3 in a data file
	mustRun(t, s, "INSERT INTO t VALUES (4, 40, 'd'), (5, 50, 'e')")
	steps := []struct{ q, tag, rows string }{
		{"UPDATE t SET v = v + 1 WHERE id IN (2, 4)", "UPDATE 2", ""},
		{"UPDATE t SET v = 0 WHERE id > 100", "UPDATE 0", ""},
		{"DELETE FROM t WHERE id = 99", "DELETE 0", ""},
		{"DELETE FROM t WHERE id IN (3, 5)", "DELETE 2", ""},
		{"SELECT id, v FROM t ORDER BY id", "SELECT 3", "1 10|2 21|4 41"},
		{"CHECKPOINT", "CHECKPOINT", ""},
		{"SELECT id, v FROM t ORDER BY id", "SELECT 3", "1 10|2 21|4 41"},
		{"UPDATE t SET v = -v", "UPDATE 3", ""},
		{"UPDATE t SET v = 7 WHERE id = 1 RETURNING id, v", "UPDATE 1", "1 7"},
		{"DELETE FROM t WHERE id = 2 RETURNING *", "DELETE 1", "2 -21 b"},
		{"SELECT id, v FROM t ORDER BY id", "SELECT 2", "1 7|4 -41"},
		{"DELETE FROM t", "DELETE 2", ""},
		{"SELECT count(*) FROM t", "SELECT 1", "0"},
	}
	for _, st := range steps {
		r := mustRun(t, s, st.q)
		if r.tag != st.tag {
			t.Errorf("%s: tag %q, want %q", st.q, r.tag, st.tag)
		}
		if got := joinRows(r.rows); got != st.rows {
			t.Errorf("%s: rows %q, want %q", st.q, got, st.rows)
		}
	}
}

func joinRows(rows [][]string) string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(r, " "))
	}
	return strings.Join(out, "|")
}

// An UPDATE or DELETE in a block is seen by the block at once, by other
// sessions only after COMMIT, and not at all after ROLLBACK or ROLLBACK
// TO a savepoint before it.
func TestUpdateDeleteTransactions(t *testing.T) {
	e := openEngine(t)
	s, other := newSession(t, e), newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id int, v int)")
	mustRun(t, s, "INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)")
	mustRun(t, s, "CHECKPOINT")
	mustRun(t, s, "INSERT INTO t VALUES (4, 40)")
	const all = "SELECT string_agg(id || ':' || v, ',' ORDER BY id) FROM t"
	steps := []step{
		{"s", "BEGIN", ""},
		{"s", "UPDATE t SET v = v + 1 WHERE id IN (1, 4)", ""},
		{"s", "DELETE FROM t WHERE id = 2", ""},
		{"s", all, "1:11,3:30,4:41"},
		{"other", all, "1:10,2:20,3:30,4:40"},
		{"s", "ROLLBACK", ""},
		{"s", all, "1:10,2:20,3:30,4:40"},
		{"other", all, "1:10,2:20,3:30,4:40"},

		{"s", "BEGIN", ""},
		{"s", "UPDATE t SET v = 100 WHERE id = 1", ""},
		{"s", "SAVEPOINT sp", ""},
		{"s", "DELETE FROM t WHERE id <= 3", ""},
		{"s", all, "4:40"},
		{"s", "ROLLBACK TO SAVEPOINT sp", ""},
		{"s", all, "1:100,2:20,3:30,4:40"},
		// A row updated twice in the block: the second reads the first.
		{"s", "UPDATE t SET v = v + 1 WHERE id = 1", ""},
		{"s", "DELETE FROM t WHERE id = 3", ""},
		{"other", all, "1:10,2:20,3:30,4:40"},
		{"s", "COMMIT", ""},
		{"other", all, "1:101,2:20,4:40"},
		{"s", "CHECKPOINT", ""},
		{"other", all, "1:101,2:20,4:40"},

		// A failed block changes nothing.
		{"s", "BEGIN", ""},
		{"s", "DELETE FROM t WHERE id = 1", ""},
		{"s", "SELECT 1/0", "error 22012"},
		{"s", "COMMIT", ""},
		{"other", all, "1:101,2:20,4:40"},
		// Nor does a failing statement in autocommit.
		{"s", "UPDATE t SET v = 1 / (id - 2)", "error 22012"},
		{"other", all, "1:101,2:20,4:40"},
	}
	runSteps(t, map[string]*engine.Session{"s": s, "other": other}, steps)
}

// Two sessions updating the same rows: the second waits for the first's
// transaction to end (the table's row lock), then reads the rows as the
// first committed them, so no update is lost and no row is duplicated.
func TestUpdateWaitsForRowLock(t *testing.T) {
	e := openEngine(t)
	s1, s2, reader := newSession(t, e), newSession(t, e), newSession(t, e)
	mustRun(t, s1, "CREATE TABLE c (id int, n int)")
	mustRun(t, s1, "INSERT INTO c VALUES (1, 0), (2, 0)")
	mustRun(t, s1, "BEGIN")
	mustRun(t, s1, "UPDATE c SET n = n + 1 WHERE id = 1")
	done := make(chan error, 1)
	go func() {
		_, err := runSQL(context.Background(), s2, "UPDATE c SET n = n + 10 WHERE id = 1")
		done <- err
	}()
	// The second session cannot finish while the first holds the lock;
	// plain reads do not wait.
	if got := mustRun(t, reader, "SELECT n FROM c WHERE id = 1").rows[0][0]; got != "0" {
		t.Fatalf("a reader saw n = %s before COMMIT", got)
	}
	select {
	case err := <-done:
		t.Fatalf("the second UPDATE finished while the first transaction was open (err %v)", err)
	default:
	}
	mustRun(t, s1, "COMMIT")
	if err := <-done; err != nil {
		t.Fatalf("second UPDATE: %v", err)
	}
	r := mustRun(t, reader, "SELECT id, n FROM c ORDER BY id")
	if got := joinRows(r.rows); got != "1 11|2 0" {
		t.Fatalf("rows %q, want 1 11|2 0 (no lost update, no duplicate)", got)
	}

	// A rolled back transaction's change is not seen by the waiter.
	mustRun(t, s1, "BEGIN")
	mustRun(t, s1, "DELETE FROM c WHERE id = 2")
	go func() {
		_, err := runSQL(context.Background(), s2, "UPDATE c SET n = n + 1 WHERE id = 2")
		done <- err
	}()
	mustRun(t, s1, "ROLLBACK")
	if err := <-done; err != nil {
		t.Fatalf("UPDATE after the ROLLBACK: %v", err)
	}
	r = mustRun(t, reader, "SELECT id, n FROM c ORDER BY id")
	if got := joinRows(r.rows); got != "1 11|2 1" {
		t.Fatalf("rows %q, want 1 11|2 1", got)
	}
}

// Many sessions incrementing one counter at once, while the link commits
// the tail into Iceberg: every increment counts, and the row stays one.
func TestConcurrentIncrements(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE k (id int, n int)")
	mustRun(t, s, "INSERT INTO k VALUES (1, 0), (2, 0)")
	const sessions, each = 4, 15
	var wg sync.WaitGroup
	errs := make(chan error, sessions+1)
	for i := 0; i < sessions; i++ {
		w := newSession(t, e)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				q := "UPDATE k SET n = n + 1 WHERE id = 1"
				if j%3 == 0 {
					q = "BEGIN; UPDATE k SET n = n + 1 WHERE id = 1; COMMIT"
				}
				if _, err := runSQL(context.Background(), w, q); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	cp := newSession(t, e)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for j := 0; j < 5; j++ {
			if _, err := runSQL(context.Background(), cp, "CHECKPOINT"); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	r := mustRun(t, s, "SELECT id, n FROM k ORDER BY id")
	if got, want := joinRows(r.rows), fmt.Sprintf("1 %d|2 0", sessions*each); got != want {
		t.Fatalf("rows %q, want %q", got, want)
	}
}

// A session holding a table's row lock cannot run what would wait for it
// (CHECKPOINT, DDL): it is refused, never left hanging.
func TestRowLockRefusals(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE r (id int, v text)")
	mustRun(t, s, "INSERT INTO r VALUES (1, 'a')")
	for _, q := range []string{"CHECKPOINT", "ALTER TABLE r ADD COLUMN w int", "ALTER TABLE r RENAME TO r2",
		"COMMENT ON TABLE r IS 'x'", "DROP TABLE r", "ALTER TABLE r CREATE BRANCH b"} {
		mustRun(t, s, "BEGIN")
		mustRun(t, s, "UPDATE r SET v = 'b'")
		_, err := runSQL(context.Background(), s, q)
		if code := sqlstate(err); code != "0A000" {
			t.Errorf("%s after UPDATE in a block: %v (SQLSTATE %s), want 0A000", q, err, code)
		}
		mustRun(t, s, "ROLLBACK")
	}
	// Once the block ends the lock is gone.
	mustRun(t, s, "UPDATE r SET v = 'c'")
	mustRun(t, s, "CHECKPOINT")
	if got := mustRun(t, s, "SELECT v FROM r").rows[0][0]; got != "c" {
		t.Fatalf("v = %s, want c", got)
	}
}

// A prepared UPDATE or DELETE takes its parameters typed by the columns
// they are compared with or assigned to, and keeps its plan across
// executions, which still see the rows written since.
func TestPreparedUpdateDelete(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	ctx := context.Background()
	mustRun(t, s, "CREATE TABLE p (id bigint, v text, n int)")
	mustRun(t, s, "INSERT INTO p VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
	sts, err := s.Prepare(ctx, "UPDATE p SET v = $1, n = n + 1 WHERE id = $2", nil)
	if err != nil {
		t.Fatal(err)
	}
	up := sts[0]
	if len(up.ParamTypes) != 2 || up.ParamTypes[0] != types.TText || up.ParamTypes[1] != types.TInt8 {
		t.Fatalf("parameter types %v, want text, bigint", up.ParamTypes)
	}
	before := engine.Plannings(e)
	for i, id := range []int64{1, 2, 1} {
		r, err := execStmt(ctx, s, up, []types.Datum{types.TextDatum(fmt.Sprint("x", i)), {T: types.TInt8, I: id}})
		if err != nil {
			t.Fatal(err)
		}
		if r.tag != "UPDATE 1" {
			t.Fatalf("tag %q", r.tag)
		}
		if i == 1 {
			mustRun(t, s, "CHECKPOINT")
		}
	}
	if n := engine.Plannings(e) - before; n != 0 {
		t.Errorf("the kept plan was planned again %d times", n)
	}
	sts, err = s.Prepare(ctx, "DELETE FROM p WHERE id <> $1 RETURNING id", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := execStmt(ctx, s, sts[0], []types.Datum{{T: types.TInt8, I: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got := joinRows(r.rows); got != "1|3" && got != "3|1" || r.tag != "DELETE 2" {
		t.Fatalf("DELETE RETURNING: %q %q", got, r.tag)
	}
	if got := joinRows(mustRun(t, s, "SELECT id, v, n FROM p ORDER BY id").rows); got != "2 x1 3" {
		t.Fatalf("rows %q", got)
	}
}

// UPDATE may move rows between partitions and change the columns a
// table is sorted by; the rows read back the same from the write log and
// from Iceberg. A table with retention updates and deletes the rows it
// shows.
func TestUpdatePartitionedSorted(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE ev (id int, ts timestamp, k text) PARTITIONED BY (day(ts)) SORTED BY (k)`)
	mustRun(t, s, `INSERT INTO ev VALUES (1, '2026-11-01 10:00', 'b'), (2, '2026-11-01 11:00', 'a'), (3, '2026-11-02 10:00', 'c')`)
	mustRun(t, s, "CHECKPOINT")
	const all = "SELECT string_agg(id || '@' || ts::date || k, ',' ORDER BY id) FROM ev"
	steps := []step{
		{"s", "UPDATE ev SET ts = ts + interval '5 days', k = 'z' WHERE id = 1", ""},
		{"s", all, "1@2026-11-06z,2@2026-11-01a,3@2026-11-02c"},
		{"s", "SELECT count(*) FROM ev WHERE ts < '2026-11-03'", "2"},
		{"s", "CHECKPOINT", ""},
		{"s", all, "1@2026-11-06z,2@2026-11-01a,3@2026-11-02c"},
		{"s", "SELECT count(*) FROM ev WHERE ts >= '2026-11-06'", "1"},
		{"s", "DELETE FROM ev WHERE ts < '2026-11-02'", ""},
		{"s", "CHECKPOINT", ""},
		{"s", all, "1@2026-11-06z,3@2026-11-02c"},
	}
	runSteps(t, map[string]*engine.Session{"s": s}, steps)

	mustRun(t, s, `CREATE TABLE ret (id int, ts timestamptz) WITH (retention = '1 day' ON ts)`)
	mustRun(t, s, `INSERT INTO ret VALUES (1, now()), (2, now() - interval '2 days'), (3, now())`)
	r := mustRun(t, s, "UPDATE ret SET id = id * 10")
	if r.tag != "UPDATE 2" {
		t.Fatalf("UPDATE of a table with retention: %q, want UPDATE 2 (the expired row is not shown)", r.tag)
	}
	if got := joinRows(mustRun(t, s, "SELECT id FROM ret ORDER BY id").rows); got != "10|30" {
		t.Fatalf("rows %q", got)
	}
}

// Branches, tags, time travel and metadata tables are not changed.
func TestUpdateDeleteRefusedTargets(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE tt (id int)")
	mustRun(t, s, "INSERT INTO tt VALUES (1)")
	mustRun(t, s, "CHECKPOINT")
	mustRun(t, s, "ALTER TABLE tt CREATE TAG v1")
	mustRun(t, s, "ALTER TABLE tt CREATE BRANCH b")
	for _, c := range []struct{ q, code string }{
		{`UPDATE "tt@v1" SET id = 2`, "42809"},
		{`DELETE FROM "tt@v1"`, "42809"},
		{`TRUNCATE "tt@v1"`, "42809"},
		{`UPDATE "tt@b" SET id = 2`, "0A000"},
		{`DELETE FROM "tt@b"`, "0A000"},
		{`UPDATE tt FOR TIMESTAMP AS OF now() SET id = 2`, "42601"}, // as for INSERT: only FROM reads the past
		{`DELETE FROM "tt$files"`, "42809"},
		{`UPDATE "tt$snapshots" SET snapshot_id = 1`, "42809"},
	} {
		_, err := runSQL(context.Background(), s, c.q)
		if code := sqlstate(err); code != c.code {
			t.Errorf("%s: %v (SQLSTATE %s), want %s", c.q, err, code, c.code)
		}
	}
	if got := mustRun(t, s, "SELECT count(*) FROM tt WHERE id = 1").rows[0][0]; got != "1" {
		t.Fatalf("tt changed: %s rows with id 1", got)
	}
}

// EXPLAIN shows "Update on t" and "Delete on t" over the scan with row
// ids; EXPLAIN ANALYZE runs the statement, in the session's transaction.
func TestExplainUpdateDelete(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE x (id int, v text)")
	mustRun(t, s, "INSERT INTO x VALUES (1, 'a'), (2, 'b')")
	text := func(q string) string {
		var lines []string
		for _, r := range mustRun(t, s, q).rows {
			lines = append(lines, r[0])
		}
		return strings.Join(lines, "\n")
	}
	if got := text("EXPLAIN UPDATE x SET v = 'c' WHERE id = 1"); !strings.HasPrefix(got, "Update on x") || !strings.Contains(got, "Iceberg Scan on public.x") {
		t.Errorf("EXPLAIN UPDATE:\n%s", got)
	}
	if got := text("EXPLAIN DELETE FROM x WHERE id = 1 RETURNING v"); !strings.HasPrefix(got, "Delete on x") || !strings.Contains(got, "Returning: v") {
		t.Errorf("EXPLAIN DELETE:\n%s", got)
	}
	if got := mustRun(t, s, "SELECT count(*) FROM x WHERE v = 'a'").rows[0][0]; got != "1" {
		t.Fatalf("EXPLAIN changed rows")
	}
	mustRun(t, s, "BEGIN")
	if got := text("EXPLAIN ANALYZE DELETE FROM x WHERE id = 1"); !strings.HasPrefix(got, "Delete on x") {
		t.Errorf("EXPLAIN ANALYZE DELETE:\n%s", got)
	}
	if got := mustRun(t, s, "SELECT count(*) FROM x").rows[0][0]; got != "1" {
		t.Fatalf("after EXPLAIN ANALYZE DELETE: %s rows, want 1", got)
	}
	mustRun(t, s, "ROLLBACK")
	if got := mustRun(t, s, "SELECT count(*) FROM x").rows[0][0]; got != "2" {
		t.Fatalf("after ROLLBACK: %s rows, want 2", got)
	}
	mustRun(t, s, "EXPLAIN ANALYZE UPDATE x SET v = 'z'")
	if got := mustRun(t, s, "SELECT string_agg(v, ',' ORDER BY id) FROM x").rows[0][0]; got != "z,z" {
		t.Fatalf("after EXPLAIN ANALYZE UPDATE: %s", got)
	}
}

// Two blocks each waiting for the row lock the other holds: one fails
// with 40P01, as in PostgreSQL, and once it rolls back the other goes on.
func TestRowLockDeadlock(t *testing.T) {
	e := openEngine(t)
	a, b := newSession(t, e), newSession(t, e)
	mustRun(t, a, "CREATE TABLE d1 (id int)")
	mustRun(t, a, "CREATE TABLE d2 (id int)")
	mustRun(t, a, "INSERT INTO d1 VALUES (1); INSERT INTO d2 VALUES (2)")
	mustRun(t, a, "BEGIN")
	mustRun(t, a, "DELETE FROM d1")
	mustRun(t, b, "BEGIN")
	mustRun(t, b, "DELETE FROM d2")
	type outcome struct {
		who string
		err error
	}
	done := make(chan outcome, 2)
	second := func(who string, s *engine.Session, q string) {
		_, err := runSQL(context.Background(), s, q)
		if sqlstate(err) == "40P01" {
			_, _ = runSQL(context.Background(), s, "ROLLBACK")
		}
		done <- outcome{who, err}
	}
	go second("a", a, "DELETE FROM d2")
	go second("b", b, "DELETE FROM d1")
	// The loser rolls back before it reports, so the winner, unblocked by
	// that rollback, may report first.
	o1, o2 := <-done, <-done
	if o1.err == nil {
		o1, o2 = o2, o1
	}
	if sqlstate(o1.err) != "40P01" || o2.err != nil {
		t.Fatalf("%s: %v, and %s: %v; want 40P01 for one, success for the other", o1.who, o1.err, o2.who, o2.err)
	}
	winner := a
	if o2.who == "b" {
		winner = b
	}
	mustRun(t, winner, "COMMIT")
	if got := mustRun(t, a, "SELECT (SELECT count(*) FROM d1) + (SELECT count(*) FROM d2)").rows[0][0]; got != "0" {
		t.Fatalf("%s rows left, want 0", got)
	}
}

// A session that ends inside a block (a lost connection) releases its row
// locks with its writes: the next writer does not wait for it.
func TestRowLockReleasedOnClose(t *testing.T) {
	e := openEngine(t)
	s1, s2 := newSession(t, e), newSession(t, e)
	mustRun(t, s1, "CREATE TABLE cl (id int)")
	mustRun(t, s1, "INSERT INTO cl VALUES (1), (2)")
	mustRun(t, s1, "BEGIN")
	mustRun(t, s1, "DELETE FROM cl WHERE id = 1")
	s1.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := runSQL(ctx, s2, "DELETE FROM cl WHERE id = 2")
		done <- err
	}()
	if err := <-done; err != nil {
		t.Fatalf("DELETE after the other session closed: %v", err)
	}
	if got := mustRun(t, s2, "SELECT string_agg(id::text, ',') FROM cl").rows[0][0]; got != "1" {
		t.Fatalf("rows %s, want 1 (the closed block's DELETE undone)", got)
	}
}
