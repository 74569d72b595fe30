package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
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

// TestViewDependencies: a view keeps the tables and views it reads from
// being dropped (2BP01) until CASCADE drops it too; a view from before
// views recorded what they read has no dependencies.
func TestViewDependencies(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, createLLMCalls)
	mustRun(t, s, `CREATE VIEW by_model AS SELECT model, count(*) AS n FROM llm_calls GROUP BY model`)
	mustRun(t, s, `CREATE VIEW top_model AS SELECT model FROM by_model ORDER BY n DESC LIMIT 1`)
	mustRun(t, s, `CREATE VIEW old_style AS SELECT tenant FROM llm_calls`)
	if err := engine.ForgetViewReads(ctx, e, "public", "old_style"); err != nil {
		t.Fatal(err)
	}
	e.Close()

	// What a view reads is kept across a restart.
	e = openEngineAt(t, dir)
	s = newSession(t, e)
	_, err := runSQL(ctx, s, `DROP TABLE llm_calls`)
	pe := pgerr.From(err)
	if pe == nil {
		t.Fatal("DROP TABLE under views succeeded")
	}
	if pe.Code != pgerr.DependentObjectsStillExist ||
		pe.Detail != "view by_model depends on table llm_calls\nview top_model depends on view by_model" {
		t.Fatalf("DROP TABLE under views: %v (detail %q)", err, pe.Detail)
	}
	if _, err := runSQL(ctx, s, `DROP VIEW by_model`); sqlstate(err) != pgerr.DependentObjectsStillExist {
		t.Fatalf("DROP VIEW under a view: %v", err)
	}
	mustRun(t, s, `DROP TABLE llm_calls CASCADE`)
	for _, v := range []string{"by_model", "top_model"} {
		if _, err := runSQL(ctx, s, `SELECT * FROM `+v); sqlstate(err) != pgerr.UndefinedTable {
			t.Errorf("%s after DROP TABLE CASCADE: %v", v, err)
		}
	}
	// The old view was not dropped, and now fails for want of its table.
	if _, err := runSQL(ctx, s, `SELECT * FROM old_style`); sqlstate(err) != pgerr.UndefinedTable {
		t.Errorf("old view after DROP TABLE CASCADE: %v", err)
	}
	mustRun(t, s, `DROP VIEW old_style`)
}
