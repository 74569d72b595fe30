package engine_test

import (
	"testing"

	"github.com/loamdb/loam/sql/engine"
)

// VACUUM compacts a table's small files now, keeping its rows; it refuses
// a transaction block as PostgreSQL does, and ANALYZE does nothing.
func TestVacuum(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	steps := []step{
		{"s", "CREATE TABLE t (id int, ts timestamptz) PARTITIONED BY (day(ts)) SORTED BY (id) WITH (target_file_size = '1MB')", ""},
		{"s", "CREATE VIEW v AS SELECT * FROM t", ""},
	}
	for _, q := range []string{"(4, '2026-01-01')", "(2, '2026-01-01'), (3, '2026-01-02')", "(1, '2026-01-01')", "(5, '2026-01-02')"} {
		steps = append(steps, step{"s", "INSERT INTO t VALUES " + q, ""}, step{"s", "CHECKPOINT", ""})
	}
	steps = append(steps, []step{
		{"s", `SELECT count(*) FROM "t$files"`, "5"},
		{"s", "BEGIN", ""},
		{"s", "VACUUM t", "error 25001"},
		{"s", "ROLLBACK", ""},
		{"s", "VACUUM t; SELECT 1", "error 25001"},
		{"s", "VACUUM nope", "error 42P01"},
		{"s", "VACUUM t", ""},
		{"s", `SELECT count(*) FROM "t$files"`, "2"},
		{"s", `SELECT string_agg(id::text, ',' ORDER BY id) FROM t`, "1,2,3,4,5"},
		{"s", "VACUUM", ""},
		{"s", "VACUUM v", ""}, // skipped with a warning
		{"s", "VACUUM (FULL, ANALYZE) t, v", ""},
		{"s", "VACUUM ANALYZE t", ""},
		{"s", "BEGIN", ""},
		{"s", "ANALYZE t", ""},
		{"s", "ANALYZE nope", "error 42P01"},
		{"s", "ROLLBACK", ""},
		{"s", `SELECT count(*) FROM "t$files"`, "2"},
		{"s", `SELECT sum(id) FROM t`, "15"},
	}...)
	runSteps(t, map[string]*engine.Session{"s": s}, steps)
}
