package crash

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestRenameSurvivesKill: a transaction block writes a table, another
// connection renames it (and swaps two names), the block commits; the
// rows, acknowledged and in the write log under the old name alone, come
// back after SIGKILL in the table they were written to, once.
func TestRenameSurvivesKill(t *testing.T) {
	ctx := context.Background()
	dataDir, logDir := t.TempDir(), t.TempDir()
	srv := startServer(t, dataDir, logDir, time.Hour)
	w, ddl := connect(t, ctx, srv), connect(t, ctx, srv)
	mustExec(t, ctx, w, `CREATE TABLE a (id BIGINT)`)
	mustExec(t, ctx, w, `CREATE TABLE b (id BIGINT)`)
	mustExec(t, ctx, w, `INSERT INTO a VALUES (1)`)
	mustExec(t, ctx, w, `INSERT INTO b VALUES (10)`)
	mustExec(t, ctx, w, `BEGIN`)
	mustExec(t, ctx, w, `INSERT INTO a VALUES (2), (3)`)
	mustExec(t, ctx, w, `INSERT INTO b VALUES (11)`)
	// a and b change names; a's rows end up in b and b's in c.
	for _, q := range []string{`ALTER TABLE b RENAME TO c`, `ALTER TABLE a RENAME TO tmp`, `ALTER TABLE c RENAME TO a`,
		`ALTER TABLE tmp RENAME TO b`, `ALTER TABLE a RENAME TO c`} {
		mustExec(t, ctx, ddl, q)
	}
	mustExec(t, ctx, w, `COMMIT`)
	want := map[string][]int64{"b": {1, 2, 3}, "c": {10, 11}}
	check := func(when string, c *pgx.Conn) {
		t.Helper()
		for name, ids := range want {
			rows, err := c.Query(ctx, `SELECT id FROM `+name+` ORDER BY id`)
			if err != nil {
				t.Fatalf("%s: %s: %v", when, name, err)
			}
			got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				t.Fatalf("%s: %s: %v", when, name, err)
			}
			if len(got) != len(ids) {
				t.Errorf("%s: %s holds %v, want %v", when, name, got, ids)
				continue
			}
			for i := range ids {
				if got[i] != ids[i] {
					t.Errorf("%s: %s holds %v, want %v", when, name, got, ids)
					break
				}
			}
		}
	}
	check("before the kill", ddl)
	srv.kill()

	srv = startServer(t, dataDir, logDir, time.Hour)
	c := connect(t, ctx, srv)
	check("after the kill", c)
	mustExec(t, ctx, c, `CHECKPOINT`)
	check("after CHECKPOINT", c)
	if t.Failed() {
		t.Logf("server log:\n%s", srv.logTail())
	}
}
