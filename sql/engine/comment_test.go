package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/iceberg-go/table"
)

// TestCommentReadback comments a table whose rows are still in the write
// log, and checks that the rows and the comments both reach Iceberg: the
// table property "comment" and the fields' doc, as iceberg-go reads them.
func TestCommentReadback(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, createLLMCalls)
	mustRun(t, s, insertSQL(calls))
	mustRun(t, s, `COMMENT ON TABLE llm_calls IS 'one row per LLM call'`)
	mustRun(t, s, `COMMENT ON COLUMN llm_calls.cost_usd IS 'USD, list price'`)
	mustRun(t, s, `COMMENT ON COLUMN public.llm_calls.model IS 'model id'`)
	mustRun(t, s, `COMMENT ON COLUMN llm_calls.model IS NULL`)
	mustRun(t, s, `COMMENT ON COLUMN llm_calls.tenant IS 'customer'`)
	// The tail is still there and still read beside the new metadata.
	if got := mustRun(t, s, `SELECT count(*) FROM llm_calls`).rows[0][0]; got != fmt.Sprint(len(calls)) {
		t.Fatalf("count %s after COMMENT, want %d", got, len(calls))
	}
	got := mustRun(t, s, `SELECT obj_description('llm_calls'::regclass, 'pg_class'), col_description('llm_calls'::regclass, 6),
		col_description('llm_calls'::regclass, 3), col_description('llm_calls'::regclass, 2)`).rows
	if want := fmt.Sprint([][]string{{"one row per LLM call", "USD, list price", null, "customer"}}); fmt.Sprint(got) != want {
		t.Errorf("descriptions %v, want %s", got, want)
	}
	// Comments and link commits racing must not lose each other.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s2 := newSession(t, e)
		for i := 0; i < 5; i++ {
			if _, err := runSQL(ctx, s2, "CHECKPOINT"); err != nil {
				t.Errorf("CHECKPOINT: %v", err)
			}
		}
	}()
	for i := 0; i < 5; i++ {
		mustRun(t, s, insertSQL(calls[:1]))
		mustRun(t, s, fmt.Sprintf(`COMMENT ON COLUMN llm_calls.latency_ms IS 'ms %d'`, i))
	}
	wg.Wait()
	mustRun(t, s, "CHECKPOINT")
	e.Close()

	cat := openIcebergCatalog(t, dir)
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", "llm_calls"})
	if err != nil {
		t.Fatalf("LoadTable: %v", err)
	}
	if c := tbl.Properties()["comment"]; c != "one row per LLM call" {
		t.Errorf("table property comment %q", c)
	}
	docs := map[string]string{}
	for _, f := range tbl.Schema().Fields() {
		docs[f.Name] = f.Doc
	}
	want := map[string]string{"ts": "", "tenant": "customer", "model": "", "prompt_tokens": "", "completion_tokens": "",
		"cost_usd": "USD, list price", "latency_ms": "ms 4"}
	if fmt.Sprint(docs) != fmt.Sprint(want) {
		t.Errorf("field docs %v, want %v", docs, want)
	}
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatalf("ToArrowTable: %v", err)
	}
	defer at.Release()
	if n := at.NumRows(); n != int64(len(calls)+5) {
		t.Errorf("iceberg-go reads %d rows, want %d", n, len(calls)+5)
	}
}

// TestCommentErrors: the SQLSTATEs PostgreSQL gives.
func TestCommentErrors(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE c (a int)`)
	for q, code := range map[string]string{
		`COMMENT ON TABLE nosuch IS 'x'`:       "42P01",
		`COMMENT ON TABLE nosuch.c IS 'x'`:     "42P01",
		`COMMENT ON COLUMN c.nosuch IS 'x'`:    "42703",
		`COMMENT ON COLUMN nosuch.a IS 'x'`:    "42P01",
		`COMMENT ON SCHEMA nosuch IS 'x'`:      "3F000",
		`COMMENT ON FUNCTION f() IS 'x'`:       "0A000",
		`COMMENT ON COLUMN public.c.a IS 'ok'`: "",
	} {
		_, err := runSQL(context.Background(), s, q)
		if sqlstate(err) != code {
			t.Errorf("%s: %v (SQLSTATE %q), want %q", q, err, sqlstate(err), code)
		}
	}
}

// TestCommentKeepsPrimaryKey: a column comment rewrites the Iceberg schema
// and must keep the primary key's column order.
func TestCommentKeepsPrimaryKey(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE k (id int, model text, PRIMARY KEY (model, id))`)
	mustRun(t, s, `COMMENT ON COLUMN k.id IS 'call id'`)
	got := mustRun(t, s, `SELECT pg_get_constraintdef(oid), col_description('k'::regclass, 1) FROM pg_constraint WHERE conrelid = 'k'::regclass`).rows
	if want := "[[PRIMARY KEY (model, id) call id]]"; fmt.Sprint(got) != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// TestCommentRestart: rows written before and after a column comment,
// some linked and some still in the write log at shutdown, all come back
// after a restart with the comment.
func TestCommentRestart(t *testing.T) {
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, createLLMCalls)
	mustRun(t, s, insertSQL(calls[:2]))
	mustRun(t, s, "CHECKPOINT")
	mustRun(t, s, insertSQL(calls[2:4]))
	mustRun(t, s, `COMMENT ON COLUMN llm_calls.tenant IS 'customer'`)
	mustRun(t, s, insertSQL(calls[4:6]))
	want := mustRun(t, s, `SELECT tenant, model, cost_usd FROM llm_calls ORDER BY 1, 2, 3`).rows
	if len(want) != 6 {
		t.Fatalf("%d rows before restart, want 6", len(want))
	}
	e.Close()
	e = openEngineAt(t, dir)
	s = newSession(t, e)
	got := mustRun(t, s, `SELECT tenant, model, cost_usd FROM llm_calls ORDER BY 1, 2, 3`).rows
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after restart\n%v\nwant\n%v", got, want)
	}
	mustRun(t, s, "CHECKPOINT")
	got = mustRun(t, s, `SELECT tenant, model, cost_usd FROM llm_calls ORDER BY 1, 2, 3`).rows
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after restart and checkpoint\n%v\nwant\n%v", got, want)
	}
	if d := mustRun(t, s, `SELECT col_description('llm_calls'::regclass, 2)`).rows[0][0]; d != "customer" {
		t.Errorf("comment after restart %q", d)
	}
}

// TestCommentRollback: a rolled back transaction (or savepoint) takes its
// COMMENTs back, as in PostgreSQL.
func TestCommentRollback(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE r (a int, b text)`)
	mustRun(t, s, `COMMENT ON TABLE r IS 'kept'`)
	mustRun(t, s, `COMMENT ON COLUMN r.a IS 'kept a'`)
	mustRun(t, s, `BEGIN; COMMENT ON TABLE r IS 'gone'; COMMENT ON COLUMN r.a IS NULL; COMMENT ON COLUMN r.b IS 'gone b';
		COMMENT ON SCHEMA public IS 'gone schema'; ROLLBACK`)
	q := `SELECT obj_description('r'::regclass, 'pg_class'), col_description('r'::regclass, 1), col_description('r'::regclass, 2),
		obj_description('public'::regnamespace, 'pg_namespace')`
	if got, want := fmt.Sprint(mustRun(t, s, q).rows), fmt.Sprint([][]string{{"kept", "kept a", null, "standard public schema"}}); got != want {
		t.Errorf("after ROLLBACK %s, want %s", got, want)
	}
	mustRun(t, s, `BEGIN; COMMENT ON TABLE r IS 'one'; SAVEPOINT x; COMMENT ON TABLE r IS 'two'; COMMENT ON COLUMN r.b IS 'b';
		ROLLBACK TO x; COMMIT`)
	if got, want := fmt.Sprint(mustRun(t, s, q).rows), fmt.Sprint([][]string{{"one", "kept a", null, "standard public schema"}}); got != want {
		t.Errorf("after ROLLBACK TO %s, want %s", got, want)
	}
}
