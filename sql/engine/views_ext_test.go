package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loamdb/loam/pgerr"
)

// TestViewsAcrossRestart: a view is kept in the metastore, read over the
// rows still in the write log, and is there again after a restart.
func TestViewsAcrossRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, createLLMCalls)
	mustRun(t, s, `CREATE VIEW by_model (m, n) AS SELECT model, count(*) FROM llm_calls GROUP BY model`)
	mustRun(t, s, insertSQL(calls))
	str := func(rows any) string { return fmt.Sprint(rows) }
	want := str(mustRun(t, s, `SELECT model, count(*) FROM llm_calls GROUP BY model ORDER BY 1`).rows)
	if got := str(mustRun(t, s, `SELECT m, n FROM by_model ORDER BY 1`).rows); got != want {
		t.Fatalf("view over the write log: %s, want %s", got, want)
	}
	for _, q := range []string{`COMMENT ON TABLE by_model IS 'x'`, `COMMENT ON COLUMN by_model.m IS 'x'`} {
		if _, err := runSQL(ctx, s, q); pgerr.Code(err) != pgerr.FeatureNotSupported {
			t.Errorf("%s: %v, want %s", q, err, pgerr.FeatureNotSupported)
		}
	}
	e.Close()

	e = openEngineAt(t, dir)
	s = newSession(t, e)
	if got := str(mustRun(t, s, `SELECT m, n FROM by_model ORDER BY 1`).rows); got != want {
		t.Fatalf("view after restart: %s, want %s", got, want)
	}
	mustRun(t, s, `DROP VIEW by_model`)
	if _, err := runSQL(ctx, s, `SELECT * FROM by_model`); pgerr.Code(err) != pgerr.UndefinedTable {
		t.Fatalf("after DROP VIEW: %v", err)
	}
}
