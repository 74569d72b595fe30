package engine_test

import (
	"context"
	"strings"
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
