package engine_test

import (
	"context"
	"testing"

	"github.com/loamdb/loam/pgerr"
)

// DECLARE … CURSOR, FETCH, MOVE and CLOSE, as psycopg2's named cursors and
// psycopg 3's ServerCursor send them; expected tags and rows are
// PostgreSQL 15's.
func TestCursors(t *testing.T) {
	_, s := loaded(t)
	ctx := context.Background()
	q := "SELECT x, x::text || 'a' AS s FROM generate_series(1, 10) x"

	// Without HOLD only inside a transaction block.
	if _, err := runSQL(ctx, s, "DECLARE c CURSOR FOR "+q); sqlstate(err) != pgerr.NoActiveSQLTransaction {
		t.Fatalf("DECLARE outside a block: %v, want 25P01", err)
	}
	mustRun(t, s, "BEGIN")
	if r := mustRun(t, s, `DECLARE "c" CURSOR WITHOUT HOLD FOR `+q); r.tag != "DECLARE CURSOR" || r.cols != nil {
		t.Fatalf("DECLARE: tag %q, columns %v", r.tag, r.cols)
	}
	if _, err := runSQL(ctx, s, "DECLARE c CURSOR FOR SELECT 1"); sqlstate(err) != pgerr.DuplicateCursor {
		t.Fatalf("second DECLARE c: %v, want 42P03", err)
	}
	mustRun(t, s, "ROLLBACK")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "DECLARE c CURSOR FOR "+q)
	steps := []struct{ q, tag, rows string }{
		{`FETCH FORWARD 2 FROM "c"`, "FETCH 2", "1 | 1a\n2 | 2a\n"},
		{"FETCH c", "FETCH 1", "3 | 3a\n"},
		{"FETCH NEXT FROM c", "FETCH 1", "4 | 4a\n"},
		{"MOVE FORWARD 3 IN c", "MOVE 3", ""},
		{"FETCH 2 FROM c", "FETCH 2", "8 | 8a\n9 | 9a\n"},
		{"FETCH ALL FROM c", "FETCH 1", "10 | 10a\n"},
		{"FETCH ALL FROM c", "FETCH 0", ""},
	}
	for _, st := range steps {
		r := mustRun(t, s, st.q)
		if got := show(r.rows); r.tag != st.tag || got != st.rows {
			t.Errorf("%s: tag %q rows %s, want %q %s", st.q, r.tag, got, st.tag, st.rows)
		}
		if st.tag[:4] == "FETC" && (len(r.cols) != 2 || r.cols[1].Name != "s") {
			t.Errorf("%s: columns %v", st.q, r.cols)
		}
	}
	if r := mustRun(t, s, "CLOSE c"); r.tag != "CLOSE CURSOR" {
		t.Errorf("CLOSE: tag %q", r.tag)
	}
	if _, err := runSQL(ctx, s, "FETCH c"); sqlstate(err) != pgerr.InvalidCursorName {
		t.Errorf("FETCH after CLOSE: %v, want 34000", err)
	}
	mustRun(t, s, "ROLLBACK")

	// COMMIT closes cursors without HOLD, keeps those WITH HOLD.
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "DECLARE a CURSOR FOR SELECT 1")
	mustRun(t, s, "DECLARE h CURSOR WITH HOLD FOR "+q)
	mustRun(t, s, "COMMIT")
	if _, err := runSQL(ctx, s, "FETCH a"); sqlstate(err) != pgerr.InvalidCursorName {
		t.Errorf("FETCH a after COMMIT: %v, want 34000", err)
	}
	if r := mustRun(t, s, "FETCH 3 FROM h"); show(r.rows) != "1 | 1a\n2 | 2a\n3 | 3a\n" {
		t.Errorf("WITH HOLD after COMMIT: %s", show(r.rows))
	}
	if cols, ok := s.CursorColumns("h"); !ok || len(cols) != 2 {
		t.Errorf("CursorColumns(h) = %v, %v", cols, ok)
	}
	if _, err := runSQL(ctx, s, "FETCH BACKWARD 1 FROM h"); sqlstate(err) != pgerr.FeatureNotSupported {
		t.Errorf("FETCH BACKWARD: %v, want 0A000", err)
	}
	if r := mustRun(t, s, "CLOSE ALL"); r.tag != "CLOSE CURSOR ALL" {
		t.Errorf("CLOSE ALL: tag %q", r.tag)
	}
	if _, ok := s.CursorColumns("h"); ok {
		t.Errorf("h survived CLOSE ALL")
	}
}

// SAVEPOINT, RELEASE and ROLLBACK TO, checked against PostgreSQL 15 by
// hand: ROLLBACK TO recovers a failed block and undoes the SETs since.
func TestSavepoints(t *testing.T) {
	_, s := loaded(t)
	ctx := context.Background()
	for _, q := range []string{"SAVEPOINT a", "RELEASE a", "ROLLBACK TO a"} {
		if _, err := runSQL(ctx, s, q); sqlstate(err) != pgerr.NoActiveSQLTransaction {
			t.Errorf("%s outside a block: %v, want 25P01", q, err)
		}
	}
	mustRun(t, s, "BEGIN")
	if r := mustRun(t, s, "SAVEPOINT a"); r.tag != "SAVEPOINT" {
		t.Errorf("SAVEPOINT tag %q", r.tag)
	}
	mustRun(t, s, "SET TimeZone = 'America/New_York'")
	runSQL(ctx, s, "SELECT 1/0")
	if _, err := runSQL(ctx, s, "RELEASE a"); sqlstate(err) != pgerr.InFailedTransaction {
		t.Errorf("RELEASE in a failed block: %v, want 25P02", err)
	}
	if r := mustRun(t, s, "ROLLBACK TO SAVEPOINT a"); r.tag != "ROLLBACK" || s.TxStatus() != 'T' {
		t.Errorf("ROLLBACK TO: tag %q, status %c", r.tag, s.TxStatus())
	}
	if v, _ := s.Setting("TimeZone"); v != "UTC" {
		t.Errorf("TimeZone after ROLLBACK TO: %q", v)
	}
	mustRun(t, s, "SAVEPOINT b")
	if r := mustRun(t, s, "RELEASE SAVEPOINT a"); r.tag != "RELEASE" {
		t.Errorf("RELEASE tag %q", r.tag)
	}
	if _, err := runSQL(ctx, s, "ROLLBACK TO b"); sqlstate(err) != pgerr.InvalidSavepointSpec || s.TxStatus() != 'E' {
		t.Errorf("ROLLBACK TO a released savepoint: %v (status %c), want 3B001 and a failed block", err, s.TxStatus())
	}
	mustRun(t, s, "ROLLBACK")
	mustRun(t, s, "BEGIN")
	if _, err := runSQL(ctx, s, "ROLLBACK TO a"); sqlstate(err) != pgerr.InvalidSavepointSpec {
		t.Errorf("savepoints survived the block: %v", err)
	}
	mustRun(t, s, "ROLLBACK")
}
