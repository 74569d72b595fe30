package engine_test

import (
	"context"
	"testing"

	"github.com/apache/iceberg-go/table"
)

// Writes inside a transaction block become visible to other sessions only
// at COMMIT, are seen at once by the block's own statements, and are gone
// after ROLLBACK, ROLLBACK TO or the COMMIT of a failed block.
func TestTransactionBlockWrites(t *testing.T) {
	e := openEngine(t)
	s, other := newSession(t, e), newSession(t, e)
	ctx := context.Background()
	mustRun(t, s, "CREATE TABLE a (id int, v text)")
	mustRun(t, s, "CREATE TABLE b (id int)")
	steps := []struct {
		who, q, want string
	}{
		{"s", "BEGIN", ""},
		{"s", "INSERT INTO a VALUES (1, 'x'), (2, 'y')", ""},
		{"s", "INSERT INTO b VALUES (10)", ""},
		// The block reads its own writes, through scans and aggregates.
		{"s", "SELECT count(*) FROM a", "2"},
		{"s", "SELECT sum(a.id + b.id) FROM a JOIN b ON true", "23"},
		// Nobody else does before COMMIT.
		{"other", "SELECT count(*) FROM a", "0"},
		{"other", "SELECT count(*) FROM b", "0"},
		{"s", "COMMIT", ""},
		{"other", "SELECT count(*) FROM a", "2"},
		{"other", "SELECT count(*) FROM b", "1"},

		{"s", "BEGIN", ""},
		{"s", "INSERT INTO a VALUES (3, 'z')", ""},
		{"s", "SELECT count(*) FROM a", "3"},
		{"s", "ROLLBACK", ""},
		{"s", "SELECT count(*) FROM a", "2"},
		{"other", "SELECT count(*) FROM a", "2"},

		// ROLLBACK TO drops the writes made after the savepoint only.
		{"s", "BEGIN", ""},
		{"s", "INSERT INTO a VALUES (4, 'p')", ""},
		{"s", "SAVEPOINT sp", ""},
		{"s", "INSERT INTO a VALUES (5, 'q')", ""},
		{"s", "INSERT INTO b VALUES (50)", ""},
		{"s", "SELECT count(*) FROM a", "4"},
		{"s", "ROLLBACK TO SAVEPOINT sp", ""},
		{"s", "SELECT count(*) FROM a", "3"},
		{"s", "INSERT INTO a VALUES (6, 'r')", ""},
		{"s", "COMMIT", ""},
		{"other", "SELECT string_agg(id::text, ',' ORDER BY id) FROM a", "1,2,4,6"},
		{"other", "SELECT count(*) FROM b", "1"},

		// A failed block commits nothing.
		{"s", "BEGIN", ""},
		{"s", "INSERT INTO a VALUES (7, 's')", ""},
		{"s", "SELECT 1/0", "error"},
		{"s", "COMMIT", ""},
		{"other", "SELECT count(*) FROM a WHERE id = 7", "0"},
	}
	for _, st := range steps {
		sess := s
		if st.who == "other" {
			sess = other
		}
		rs, err := runSQL(ctx, sess, st.q)
		if st.want == "error" {
			if err == nil {
				t.Fatalf("%s: no error", st.q)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s (%s): %v", st.q, st.who, err)
		}
		if st.want != "" {
			if got := rs[len(rs)-1].rows[0][0]; got != st.want {
				t.Fatalf("%s (%s): %s, want %s", st.q, st.who, got, st.want)
			}
		}
	}

	// A session that ends inside a block commits nothing.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO a VALUES (8, 't')")
	s.Close()
	if got := mustRun(t, other, "SELECT count(*) FROM a WHERE id = 8").rows[0][0]; got != "0" {
		t.Fatalf("closed session's block wrote %s rows", got)
	}
}

// CREATE TABLE is undone with the transaction that made it, as in
// PostgreSQL; a committed one stays.
func TestTransactionalCreateTable(t *testing.T) {
	e := openEngine(t)
	s, other := newSession(t, e), newSession(t, e)
	ctx := context.Background()
	exists := func(name string) bool {
		t.Helper()
		_, err := runSQL(ctx, other, "SELECT count(*) FROM "+name)
		return err == nil
	}
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "CREATE TABLE gone (id int)")
	mustRun(t, s, "INSERT INTO gone VALUES (1)")
	mustRun(t, s, "ROLLBACK")
	if exists("gone") {
		t.Fatal("table created in a rolled-back block exists")
	}
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "CREATE TABLE kept (id int)")
	mustRun(t, s, "SAVEPOINT a")
	mustRun(t, s, "CREATE TABLE undone (id int)")
	mustRun(t, s, "ROLLBACK TO SAVEPOINT a")
	mustRun(t, s, "COMMIT")
	if !exists("kept") || exists("undone") {
		t.Fatalf("after ROLLBACK TO and COMMIT: kept %v (want true), undone %v (want false)", exists("kept"), exists("undone"))
	}
	// The name is free again after the rollback.
	mustRun(t, s, "CREATE TABLE gone (id int)")
	if !exists("gone") {
		t.Fatal("table created outside a block is missing")
	}
}

// A failed lookup is remembered briefly (missingTables); a table this
// server then creates must be found at once.
func TestCreateAfterFailedLookup(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	ctx := context.Background()
	if _, err := runSQL(ctx, s, "SELECT count(*) FROM later"); sqlstate(err) != "42P01" {
		t.Fatalf("before CREATE: %v, want 42P01", err)
	}
	mustRun(t, s, "CREATE TABLE later (a int)")
	mustRun(t, s, "INSERT INTO later VALUES (1)")
	if got := mustRun(t, s, "SELECT count(*) FROM later").rows[0][0]; got != "1" {
		t.Fatalf("count %s, want 1", got)
	}
}

// BenchmarkInsertInBlock is the cost of one small INSERT inside a block of
// 100, on a table whose write-log tail keeps growing (no link runs): the
// shape of an application logging LLM calls in transactions.
func BenchmarkInsertInBlock(b *testing.B) {
	e := openEngine(b)
	s := newSession(b, e)
	mustRun(b, s, "CREATE TABLE calls (ts timestamptz, tenant text, cost float8)")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%100 == 0 {
			mustRun(b, s, "BEGIN")
		}
		mustRun(b, s, "INSERT INTO calls VALUES (now(), 'acme', 0.5)")
		if i%100 == 99 || i == b.N-1 {
			mustRun(b, s, "COMMIT")
		}
	}
}

// "INSERT …; CHECKPOINT" as one Query: the INSERT belongs to the Query's
// implicit transaction, and CHECKPOINT commits it first, so an outside
// reader sees the rows.
func TestCheckpointTakesImplicitWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	s.ImplicitTransactions()
	mustRun(t, s, "CREATE TABLE ck (a int)")
	if err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, "INSERT INTO ck VALUES (1), (2); CHECKPOINT")
	if err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	e.Close()
	tbl, err := openIcebergCatalog(t, dir).LoadTable(ctx, table.Identifier{"public", "ck"})
	if err != nil {
		t.Fatal(err)
	}
	snap := tbl.CurrentSnapshot()
	if snap == nil || snap.Summary == nil || snap.Summary.Properties["total-records"] != "2" {
		t.Fatalf("snapshot after CHECKPOINT: %+v, want 2 records", snap)
	}
}
