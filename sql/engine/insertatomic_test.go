package engine_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
)

// An INSERT happens whole or not at all: its sink writes batch by batch
// through the statement's writer, so a row that fails after the first
// batches (8192 rows each) were written must take those with it — outside
// a transaction block, inside one where the earlier statements stay, to a
// branch, and with RETURNING, whose client sees no rows.
func TestInsertFailingHalfWayWritesNothing(t *testing.T) {
	e := openEngine(t)
	s, other := newSession(t, e), newSession(t, e)
	ctx := context.Background()
	mustRun(t, s, "CREATE TABLE t (id int NOT NULL, v int)")
	mustRun(t, s, "INSERT INTO t VALUES (0, 0)")
	mustRun(t, s, "ALTER TABLE t CREATE BRANCH b")
	// Each fails at the 10,000th row, in the second batch.
	failing := []struct {
		name, q, code string
	}{
		{"division by zero", "INSERT INTO t SELECT g, 1 / (g - 10000) FROM generate_series(1, 20000) g", "22012"},
		{"not null", "INSERT INTO t SELECT CASE WHEN g = 10000 THEN NULL ELSE g END, g FROM generate_series(1, 20000) g", "23502"},
		{"returning", "INSERT INTO t SELECT g, g FROM generate_series(1, 20000) g RETURNING id / (id - 10000)", "22012"},
		{"branch", `INSERT INTO "t@b" SELECT g, 1 / (g - 10000) FROM generate_series(1, 20000) g`, "22012"},
	}
	count := func(sess string, q string) string {
		ses := s
		if sess == "other" {
			ses = other
		}
		return mustRun(t, ses, q).rows[0][0]
	}
	for i, c := range failing {
		t.Run(c.name, func(t *testing.T) {
			before := count("other", "SELECT count(*) FROM t")
			// Outside a block: the statement's own transaction.
			if _, err := runSQL(ctx, s, c.q); sqlstate(err) != c.code {
				t.Fatalf("%s: err %v, want SQLSTATE %s", c.q, err, c.code)
			}
			for _, who := range []string{"s", "other"} {
				if got := count(who, "SELECT count(*) FROM t"); got != before {
					t.Fatalf("after the failed INSERT %s counts %s rows, want %s", who, got, before)
				}
				if got := count(who, `SELECT count(*) FROM "t@b"`); got != "1" {
					t.Fatalf("after the failed INSERT %s counts %s rows on the branch, want 1", who, got)
				}
			}
			// Inside a block: the statement before the savepoint stays and
			// commits, the failed one leaves nothing.
			mustRun(t, s, "BEGIN")
			mustRun(t, s, fmt.Sprintf("INSERT INTO t VALUES (%d, 0)", -1-i))
			mustRun(t, s, "SAVEPOINT sp")
			if _, err := runSQL(ctx, s, c.q); sqlstate(err) != c.code {
				t.Fatalf("%s in a block: err %v, want SQLSTATE %s", c.q, err, c.code)
			}
			mustRun(t, s, "ROLLBACK TO SAVEPOINT sp")
			want := fmt.Sprint(atoi(t, before) + 1)
			if got := count("s", "SELECT count(*) FROM t"); got != want {
				t.Fatalf("in the block after the failed INSERT: %s rows, want %s", got, want)
			}
			mustRun(t, s, "COMMIT")
			if got := count("other", fmt.Sprintf("SELECT count(*) FROM t WHERE id = %d OR id > 0", -1-i)); got != "1" {
				t.Fatalf("after COMMIT: %s rows of the block, want its one", got)
			}
			if got := count("other", `SELECT count(*) FROM "t@b"`); got != "1" {
				t.Fatalf("after COMMIT: %s rows on the branch, want 1", got)
			}
		})
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
