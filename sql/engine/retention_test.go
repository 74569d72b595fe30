package engine_test

import (
	"context"
	"strings"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/s3test"
	"testing"
)

// The retention tests' rows lie relative to now(), so what is expired
// does not depend on the day they run.

// retentionRows fills t (ts, n) with a row 40 days old, one 20 days old,
// one an hour old and one with a NULL ts.
const retentionRows = `INSERT INTO t VALUES
	(now() - interval '40 days', 1), (now() - interval '20 days', 2),
	(now() - interval '1 hour', 3), (NULL, 4)`

func TestRetentionHidesExpiredRows(t *testing.T) {
	for _, c := range []struct {
		name, typ string
	}{
		{"timestamptz", "TIMESTAMPTZ"},
		{"timestamp", "TIMESTAMP"},
		{"date", "DATE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t)
			s := newSession(t, e)
			mustRun(t, s, `CREATE TABLE t (ts `+c.typ+`, n INT) PARTITIONED BY (day(ts)) WITH (retention = '30 days' ON ts)`)
			mustRun(t, s, retentionRows)
			check := func(where string) {
				t.Helper()
				for q, want := range map[string]string{
					"SELECT count(*) FROM t":                            "3",
					"SELECT string_agg(n::text, ',' ORDER BY n) FROM t": "2,3,4",
					"SELECT count(*) FROM t WHERE n > 0":                "3",
					"SELECT count(*) FROM t x JOIN t y USING (n)":       "3",
				} {
					if got := mustRun(t, s, q).rows[0][0]; got != want {
						t.Errorf("%s, %s: %s, want %s", where, q, got, want)
					}
				}
			}
			check("write-log tail")
			mustRun(t, s, "CHECKPOINT")
			check("Iceberg files")
			// Half in each.
			mustRun(t, s, `INSERT INTO t VALUES (now() - interval '400 days', 5)`)
			check("files and tail")
		})
	}
}

// EXPLAIN says what retention hides, and the expired partition is pruned.
func TestRetentionExplainShowsCutoff(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE t (ts TIMESTAMPTZ, n INT) PARTITIONED BY (day(ts)) WITH (retention = '30 days' ON ts)`)
	mustRun(t, s, retentionRows)
	mustRun(t, s, "CHECKPOINT")
	rs, err := runSQL(context.Background(), s, "EXPLAIN ANALYZE SELECT count(*) FROM t")
	if err != nil {
		t.Fatal(err)
	}
	text := show(rs[len(rs)-1].rows)
	for _, want := range []string{"Retention: rows with ts before ", "pruned"} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN lacks %q:\n%s", want, text)
		}
	}
}

func TestAlterRetention(t *testing.T) {
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE t (ts TIMESTAMPTZ, n INT) PARTITIONED BY (day(ts)) WITH (retention = '30 days' ON ts)`)
	mustRun(t, s, retentionRows)
	mustRun(t, s, "CHECKPOINT")
	mustRun(t, s, `INSERT INTO t VALUES (now() - interval '5 days', 5)`) // in the tail
	visible := func() string {
		t.Helper()
		return mustRun(t, s, "SELECT string_agg(n::text, ',' ORDER BY n) FROM t").rows[0][0]
	}
	options := func() string {
		t.Helper()
		return mustRun(t, s, "SELECT coalesce(array_to_string(reloptions, ' '), '') FROM pg_class WHERE relname = 't'").rows[0][0]
	}
	steps := []struct {
		sql, visible, options string
	}{
		{"", "2,3,4,5", "retention=30 days on ts"},
		{"ALTER TABLE t SET (retention = '10 days' ON ts)", "3,4,5", "retention=10 days on ts"},
		{"ALTER TABLE t RESET (retention)", "1,2,3,4,5", ""},
		{"ALTER TABLE t SET (retention = '1 day' ON ts, snapshot_retention = '2 days')", "3,4", "retention=1 day on ts snapshot_retention=2 days"},
		{"ALTER TABLE t RESET (snapshot_retention)", "3,4", "retention=1 day on ts"},
		{"BEGIN", "3,4", "retention=1 day on ts"},
		{"ALTER TABLE t SET (retention = '1 year' ON ts)", "1,2,3,4,5", "retention=1 year on ts"},
		{"ALTER TABLE t RESET (retention)", "1,2,3,4,5", ""},
		{"ALTER TABLE t SET (retention = '1 minute' ON ts)", "4", "retention=00:01:00 on ts"},
		{"ROLLBACK", "3,4", "retention=1 day on ts"},
		{"BEGIN", "3,4", "retention=1 day on ts"},
		{"ALTER TABLE t RESET (retention)", "1,2,3,4,5", ""},
		{"COMMIT", "1,2,3,4,5", ""},
	}
	for _, st := range steps {
		if st.sql != "" {
			mustRun(t, s, st.sql)
		}
		if got := visible(); got != st.visible {
			t.Errorf("after %q: rows %s, want %s", st.sql, got, st.visible)
		}
		if got := options(); got != st.options {
			t.Errorf("after %q: reloptions %q, want %q", st.sql, got, st.options)
		}
	}
	// The metastore's record follows.
	mustRun(t, s, "ALTER TABLE t SET (retention = '7 days' ON ts)")
	wh, whIO := s3test.Warehouse(t, dir)
	ms, err := meta.Open(context.Background(), "sqlite://"+dir+"/meta.db", wh, whIO)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	ts, err := ms.TableSettings(context.Background(), "public", "t")
	if err != nil || ts.Retention != "7 days" || ts.RetentionColumn != "ts" {
		t.Errorf("table settings %+v, %v", ts, err)
	}
}

func TestAlterRetentionErrors(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE t (ts TIMESTAMPTZ, n INT, d DATE) WITH (retention = '30 days' ON ts)`)
	for _, c := range []struct{ sql, code string }{
		{"ALTER TABLE t SET (retention = 'soon' ON ts)", pgerr.InvalidDatetimeFormat},
		{"ALTER TABLE t SET (retention = '1 day' ON nope)", pgerr.UndefinedColumn},
		{"ALTER TABLE t SET (retention = '1 day' ON n)", pgerr.DatatypeMismatch},
		{"ALTER TABLE t SET (retention = '1 day')", pgerr.SyntaxError},
		{"ALTER TABLE t SET (snapshot_retention = '1 day' ON ts)", pgerr.SyntaxError},
		{"ALTER TABLE t SET (snapshot_retention = 'soon')", pgerr.InvalidDatetimeFormat},
		{"ALTER TABLE t SET (snapshot_retention = '0 days')", pgerr.InvalidParameterValue},
		{"ALTER TABLE t SET (fillfactor = 70)", pgerr.InvalidParameterValue},
		{"ALTER TABLE t RESET (fillfactor)", pgerr.InvalidParameterValue},
		{"ALTER TABLE nope SET (retention = '1 day' ON ts)", pgerr.UndefinedTable},
		{"CREATE TABLE u (ts TIMESTAMPTZ) WITH (snapshot_retention = 'soon')", pgerr.InvalidDatetimeFormat},
	} {
		if _, err := runSQL(context.Background(), s, c.sql); sqlstate(err) != c.code {
			t.Errorf("%s: %v (SQLSTATE %s), want %s", c.sql, err, sqlstate(err), c.code)
		}
	}
	// Nothing changed.
	if got := mustRun(t, s, "SELECT coalesce(array_to_string(reloptions, ' '), '') FROM pg_class WHERE relname = 't'").rows[0][0]; got != "retention=30 days on ts" {
		t.Errorf("reloptions %q", got)
	}
	mustRun(t, s, "ALTER TABLE IF EXISTS nope SET (retention = '1 day' ON ts)")
	mustRun(t, s, "ALTER TABLE t SET (retention = '1 day' ON d)")
	mustRun(t, s, `CREATE TABLE u (ts TIMESTAMPTZ) WITH (snapshot_retention = '3 days')`)
	if got := mustRun(t, s, "SELECT coalesce(array_to_string(reloptions, ' '), '') FROM pg_class WHERE relname = 'u'").rows[0][0]; got != "snapshot_retention=3 days" {
		t.Errorf("u reloptions %q", got)
	}
}
