package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/loamdb/loam/pgerr"
)

// A duplicate key's error is PostgreSQL's: the constraint's name, and the
// key's values in their SQL text in the DETAIL.
func TestUniqueViolationDetail(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE spans (tenant text, span_id int, at timestamptz, ok bool, PRIMARY KEY (tenant, span_id), UNIQUE (at, ok))")
	mustRun(t, s, "INSERT INTO spans VALUES ('a', 7, '2026-01-02 03:04:05+00', true)")
	mustRun(t, s, "CHECKPOINT")
	for _, c := range []struct{ q, msg, detail string }{
		{"INSERT INTO spans VALUES ('a', 7, NULL, NULL)",
			`duplicate key value violates unique constraint "spans_pkey"`, "Key (tenant, span_id)=(a, 7) already exists."},
		{"COPY spans FROM STDIN",
			`duplicate key value violates unique constraint "spans_pkey"`, "Key (tenant, span_id)=(a, 7) already exists."},
		{"INSERT INTO spans VALUES ('b', 1, '2026-01-02 03:04:05+00', true)",
			`duplicate key value violates unique constraint "spans_at_ok_key"`, "Key (at, ok)=(2026-01-02 03:04:05+00, t) already exists."},
		{"UPDATE spans SET span_id = 7 WHERE false OR tenant = 'zzz'", "", ""},
	} {
		var err error
		if c.q == "COPY spans FROM STDIN" {
			_, err = copyIn(t, s, c.q, strings.NewReader("a\t7\t\\N\t\\N\n"))
		} else {
			_, err = runSQL(context.Background(), s, c.q)
		}
		if c.msg == "" {
			if err != nil {
				t.Errorf("%s: %v", c.q, err)
			}
			continue
		}
		pe := pgerr.From(err)
		if err == nil || pe.Code != pgerr.UniqueViolation || pe.Message != c.msg || pe.Detail != c.detail {
			t.Errorf("%s: got %v (%s, detail %q), want %q / %q", c.q, err, sqlstate(err), pe.Detail, c.msg, c.detail)
		}
	}
}

// Sessions inserting the same keys at once: each key is admitted once,
// and the losers get 23505 once the winner committed.
func TestConcurrentInsertsOfOneKey(t *testing.T) {
	e := openEngine(t)
	setup := newSession(t, e)
	mustRun(t, setup, "CREATE TABLE k (id int PRIMARY KEY, who int)")
	const sessions, keys = 4, 20
	var wg sync.WaitGroup
	errs := make(chan error, sessions*keys)
	won := make([]int, sessions)
	for w := range sessions {
		s := newSession(t, e)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range keys {
				_, err := runSQL(context.Background(), s, fmt.Sprintf("INSERT INTO k VALUES (%d, %d)", k, w))
				switch {
				case err == nil:
					won[w]++
				case pgerr.Code(err) != pgerr.UniqueViolation:
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	total := 0
	for _, n := range won {
		total += n
	}
	if total != keys {
		t.Fatalf("%d inserts succeeded, want %d (one per key)", total, keys)
	}
	r := mustRun(t, setup, "SELECT count(*), count(DISTINCT id) FROM k")
	if got := joinRows(r.rows); got != fmt.Sprintf("%d %d", keys, keys) {
		t.Fatalf("rows: %s", got)
	}
}

// Concurrent upserts of one counter lose no increment: each waits for
// the row lock, then reads the row as the last committed it.
func TestConcurrentUpserts(t *testing.T) {
	e := openEngine(t)
	setup := newSession(t, e)
	mustRun(t, setup, "CREATE TABLE c (id int PRIMARY KEY, n int)")
	const sessions, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, sessions*each)
	for range sessions {
		s := newSession(t, e)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if _, err := runSQL(context.Background(), s, "INSERT INTO c VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = c.n + excluded.n"); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	r := mustRun(t, setup, "SELECT count(*), sum(n) FROM c")
	if got := joinRows(r.rows); got != fmt.Sprintf("1 %d", sessions*each) {
		t.Fatalf("rows: %s", got)
	}
}

// A table WITH (merge = 'last_non_null'): a span written in pieces reads
// as one row, across link commits, in a block and after a restart.
func TestMergeLastNonNull(t *testing.T) {
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE spans (trace_id text, span_id text, name text, ended_at timestamptz, tokens int, score real,
		PRIMARY KEY (trace_id, span_id)) WITH (merge = 'last_non_null')`)
	const row = "SELECT name, ended_at, tokens, score FROM spans WHERE span_id = 's1'"
	mustRun(t, s, "INSERT INTO spans (trace_id, span_id, name) VALUES ('t', 's1', 'chat')")
	mustRun(t, s, "CHECKPOINT")
	mustRun(t, s, "INSERT INTO spans (trace_id, span_id, ended_at, tokens) VALUES ('t', 's1', '2026-01-01 00:00:01+00', 12)")
	mustRun(t, s, "BEGIN")
	mustRun(t, s, "INSERT INTO spans (trace_id, span_id, score, tokens) VALUES ('t', 's1', 0.5, NULL), ('t', 's1', 0.75, NULL)")
	if got := joinRows(mustRun(t, s, row).rows); got != "chat 2026-01-01 00:00:01+00 12 0.75" {
		t.Fatalf("in the block: %s", got)
	}
	mustRun(t, s, "COMMIT")
	e.Close()
	e = openEngineAt(t, dir)
	s = newSession(t, e)
	if got := joinRows(mustRun(t, s, row).rows); got != "chat 2026-01-01 00:00:01+00 12 0.75" {
		t.Fatalf("after a restart: %s", got)
	}
	mustRun(t, s, "INSERT INTO spans (trace_id, span_id, name) VALUES ('t', 's1', 'chat2')")
	if got := joinRows(mustRun(t, s, "SELECT count(*), min(name) FROM spans").rows); got != "1 chat2" {
		t.Fatalf("rows: %s", got)
	}
	// COPY merges too, in turn within one load.
	if _, err := copyIn(t, s, "COPY spans (trace_id, span_id, name, tokens) FROM STDIN",
		strings.NewReader("t\ts1\t\\N\t13\nt\ts2\tnew\t\\N\nt\ts2\t\\N\t5\n")); err != nil {
		t.Fatal(err)
	}
	if got := joinRows(mustRun(t, s, "SELECT span_id, name, tokens, score FROM spans ORDER BY 1").rows); got != "s1 chat2 13 0.75|s2 new 5 "+null {
		t.Fatalf("after COPY: %s", got)
	}
}

// Compaction moves rows into new files under the key index: the index
// follows (rebuilt for the new snapshot), so duplicates are still found
// and an upsert replaces the row where it now is.
func TestKeysAfterCompaction(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE k (id int PRIMARY KEY, v int)")
	for i := range 4 {
		mustRun(t, s, fmt.Sprintf("INSERT INTO k SELECT g, 0 FROM generate_series(%d, %d) g", i*10+1, i*10+10))
		mustRun(t, s, "CHECKPOINT")
	}
	mustRun(t, s, "INSERT INTO k VALUES (5, 1) ON CONFLICT (id) DO UPDATE SET v = excluded.v")
	mustRun(t, s, "DELETE FROM k WHERE id = 6")
	mustRun(t, s, "VACUUM k")
	if _, err := runSQL(context.Background(), s, "INSERT INTO k VALUES (7, 0)"); sqlstate(err) != pgerr.UniqueViolation {
		t.Fatalf("duplicate after compaction: %v", err)
	}
	mustRun(t, s, "INSERT INTO k VALUES (6, 6)")
	mustRun(t, s, "INSERT INTO k VALUES (5, 2), (35, 2) ON CONFLICT (id) DO UPDATE SET v = k.v + excluded.v")
	r := mustRun(t, s, "SELECT count(*), count(DISTINCT id), sum(v) FROM k")
	if got := joinRows(r.rows); got != "40 40 11" {
		t.Fatalf("rows: %s", got)
	}
}

// A primary key keeps its name when the table is renamed, as
// PostgreSQL's index does; the key index follows the table.
func TestKeyNameAfterRename(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE t (id int PRIMARY KEY)")
	mustRun(t, s, "INSERT INTO t VALUES (1)")
	mustRun(t, s, "ALTER TABLE t RENAME TO u")
	_, err := runSQL(context.Background(), s, "INSERT INTO u VALUES (1)")
	if pe := pgerr.From(err); err == nil || pe.Message != `duplicate key value violates unique constraint "t_pkey"` {
		t.Fatalf("got %v", err)
	}
	r := mustRun(t, s, "SELECT conname FROM pg_constraint WHERE conrelid = 'u'::regclass")
	if got := joinRows(r.rows); got != "t_pkey" {
		t.Fatalf("pg_constraint: %s", got)
	}
}
