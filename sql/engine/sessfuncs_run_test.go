package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/loamdb/loam/pgerr"
)

// pg_sleep waits on the context of the statement running it: the
// Execute's, or for a cursor's rows the fetch's. Ended by statement_timeout
// (the wire layer's deadline, whose cause is pgerr.StatementTimeout) it
// fails with 57014 and the timeout's message; a live later fetch of a
// cursor DECLAREd under a context since ended still sleeps and returns.
func TestSleepEndsWithStatement(t *testing.T) {
	s := newSession(t, openEngine(t))
	timeout := func() (context.Context, context.CancelFunc) {
		return context.WithTimeoutCause(context.Background(), 100*time.Millisecond, pgerr.StatementTimeout())
	}
	for _, q := range []string{`SELECT pg_sleep(10)`, `SELECT 1 FROM generate_series(1, 3) g WHERE pg_sleep(10) IS NULL`, `SELECT (SELECT pg_sleep(10) FROM generate_series(1, g))::text FROM generate_series(1, 2) g`} {
		ctx, cancel := timeout()
		_, err := runSQL(ctx, s, q)
		cancel()
		if sqlstate(err) != pgerr.QueryCanceled || err.Error() != "canceling statement due to statement timeout" {
			t.Errorf("%s under a 100ms statement_timeout: %v (%s), want 57014", q, err, sqlstate(err))
		}
	}

	mustRun(t, s, `BEGIN`)
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := runSQL(ctx, s, `DECLARE c CURSOR FOR SELECT pg_sleep(0.001) IS NULL AS slept FROM generate_series(1, 2)`); err != nil {
		t.Fatal(err)
	}
	// A subquery runs under the fetch's context too.
	if _, err := runSQL(ctx, s, `DECLARE sub CURSOR FOR SELECT (SELECT count(*) + g FROM generate_series(1, g)) AS next FROM generate_series(1, 2) g`); err != nil {
		t.Fatal(err)
	}
	cancel() // the DECLAREs' context ends; FETCH runs under its own
	if r := mustRun(t, s, `FETCH 1 FROM c`); len(r.rows) != 1 || r.rows[0][0] != "f" {
		t.Errorf("FETCH after the DECLARE's context ended: %v", r.rows)
	}
	if r := mustRun(t, s, `FETCH ALL FROM sub`); show(r.rows) != show([][]string{{"2"}, {"4"}}) {
		t.Errorf("FETCH of a correlated subquery after the DECLARE's context ended: %v", r.rows)
	}
	ctx, cancel = timeout()
	_, err := runSQL(ctx, s, `DECLARE d CURSOR FOR SELECT pg_sleep(10)`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = runSQL(ctx, s, `FETCH ALL FROM d`)
	cancel()
	if sqlstate(err) != pgerr.QueryCanceled {
		t.Errorf("FETCH of pg_sleep(10) under a 100ms timeout: %v, want 57014", err)
	}
}

// current_setting reads the setting when it runs, not when the statement
// was planned: a set_config earlier in the select list shows, and a
// prepared statement executed after a SET sees the new value. Expected
// values are PostgreSQL 15's.
func TestSettingsReadAtRunTime(t *testing.T) {
	ctx := context.Background()
	s := newSession(t, openEngine(t))
	r := mustRun(t, s, `SELECT current_setting('application_name'), set_config('application_name', 'x', false), current_setting('application_name')`)
	if got := show(r.rows); got != show([][]string{{"", "x", "x"}}) {
		t.Errorf("set_config and current_setting in one statement: %s", got)
	}
	if got, _ := s.Setting("application_name"); got != "x" {
		t.Errorf("application_name after the statement: %q, want x", got)
	}
	sts, err := s.Prepare(ctx, `SELECT current_setting('application_name')`, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, `SET application_name = 'later'`)
	r, err = execStmt(ctx, s, sts[0], nil)
	if err != nil || len(r.rows) != 1 || r.rows[0][0] != "later" {
		t.Errorf("prepared current_setting after SET: %v %v, want later", r.rows, err)
	}
}

// COPY (SELECT …) TO STDOUT runs its query with the session, as a SELECT
// does: set_config, current_setting and nextval work there. Expected
// values are PostgreSQL 15's.
func TestCopyOutSessionFuncs(t *testing.T) {
	s := newSession(t, openEngine(t))
	mustRun(t, s, `CREATE SEQUENCE cs`)
	got := copyOut(t, s, `COPY (SELECT set_config('application_name', 'copier', false), current_setting('application_name'), nextval('cs')) TO STDOUT`)
	if got != "copier\tcopier\t1\n" {
		t.Errorf("COPY of the session functions: %q", got)
	}
}
