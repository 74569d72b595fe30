package engine_test

import (
	"fmt"
	"testing"
)

// TestInfinityPartitioned: ±infinity (PostgreSQL's extreme int64 µs and
// int32 days) stored in tables partitioned by every time transform are
// written, read back, and pruned on without overflow or panic.
func TestInfinityPartitioned(t *testing.T) {
	e := openEngineAt(t, t.TempDir())
	s := newSession(t, e)
	mustRun(t, s, `SET TimeZone = 'UTC'`)
	for _, tr := range []string{"year", "month", "day", "hour", "identity"} {
		for _, typ := range []string{"TIMESTAMPTZ", "TIMESTAMP", "DATE"} {
			if tr == "hour" && typ == "DATE" {
				continue
			}
			name := fmt.Sprintf("inf_%s_%s", tr, typ)
			part := tr + "(v)"
			if tr == "identity" {
				part = "v"
			}
			mustRun(t, s, fmt.Sprintf(`CREATE TABLE %s (id INT, v %s) PARTITIONED BY (%s)`, name, typ, part))
			mustRun(t, s, fmt.Sprintf(`INSERT INTO %s VALUES (1, 'infinity'), (2, '-infinity'), (3, '2024-03-10'), (4, NULL)`, name))
			mustRun(t, s, `CHECKPOINT`) // into Iceberg files, partitioned
			mustRun(t, s, fmt.Sprintf(`INSERT INTO %s VALUES (5, 'infinity')`, name))
			mustRun(t, s, `CHECKPOINT`)
			got := mustRun(t, s, fmt.Sprintf(`SELECT string_agg(id || ':' || coalesce(v::text, 'null'), ' ' ORDER BY v, id) FROM %s`, name))
			date := map[string]string{"TIMESTAMPTZ": "2024-03-10 00:00:00+00", "TIMESTAMP": "2024-03-10 00:00:00", "DATE": "2024-03-10"}[typ]
			if want := "[[2:-infinity 3:" + date + " 1:infinity 5:infinity 4:null]]"; fmt.Sprint(got.rows) != want {
				t.Errorf("%s: rows %v, want %s", name, got.rows, want)
			}
			for q, want := range map[string]string{
				`v > '2000-01-01'`: "3", `v < '2000-01-01'`: "1", `v = 'infinity'`: "2", `v = '-infinity'`: "1", `v >= '-infinity'`: "4",
			} {
				r := mustRun(t, s, fmt.Sprintf(`SELECT count(*) FROM %s WHERE %s`, name, q))
				if fmt.Sprint(r.rows) != "[["+want+"]]" {
					t.Errorf("%s WHERE %s: count %v, want %s", name, q, r.rows, want)
				}
			}
		}
	}
}
