package engine_test

import (
	"context"
	"strings"
	"testing"
)

// TestSequenceStateIsDurable checks that a sequence and a serial column's
// sequence keep their state in the metastore across a restart, and that
// a large INSERT and a COPY take consecutive values.
func TestSequenceStateIsDurable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, `CREATE SEQUENCE s START 5; CREATE TABLE t (id bigserial, v int)`)
	mustRun(t, s, `SELECT nextval('s'), nextval('s')`)
	mustRun(t, s, `INSERT INTO t (v) SELECT g FROM generate_series(1, 5000) g`)
	if _, err := copyIn(t, s, `COPY t (v) FROM STDIN`, strings.NewReader("1\n2\n")); err != nil {
		t.Fatalf("COPY: %v", err)
	}
	e.Close()

	e = openEngineAt(t, dir)
	s = newSession(t, e)
	if r := mustRun(t, s, `SELECT nextval('s')`); r.rows[0][0] != "7" {
		t.Errorf("nextval after restart = %s, want 7", r.rows[0][0])
	}
	if _, err := runSQL(ctx, newSession(t, e), `SELECT currval('s')`); sqlstate(err) != "55000" {
		t.Errorf("currval in a new session: %v, want 55000", err)
	}
	mustRun(t, s, `INSERT INTO t (v) VALUES (0)`)
	r := mustRun(t, s, `SELECT count(*), count(DISTINCT id), min(id), max(id) FROM t`)
	if got := strings.Join(r.rows[0], " "); got != "5003 5003 1 5003" {
		t.Errorf("ids: count, distinct, min, max = %s, want 5003 5003 1 5003", got)
	}
}
