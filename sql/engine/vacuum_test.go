package engine_test

import (
	"context"
	"fmt"
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

// Compaction rewrites every column type as it was: a table of many types,
// written in small commits, reads the same before and after VACUUM.
func TestVacuumKeepsEveryType(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	ctx := context.Background()
	mustRun := func(q string) []result {
		t.Helper()
		rs, err := runSQL(ctx, s, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return rs
	}
	mustRun(`CREATE TABLE ty (id int, b bool, i2 smallint, i8 bigint, n numeric(12,3), f4 real, f8 float8,
		t text, vc varchar(10), d date, ts timestamp, tz timestamptz, u uuid, j jsonb, ia int[], ta text[], by bytea)
		SORTED BY (id DESC)`)
	rows := []string{
		`(3, true, 1, 10000000000, 1.5, 1.25, 2.5, 'x', 'v', '2026-01-01', '2026-01-01 10:00', '2026-01-01 10:00+02', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{"a": [1, 2]}', '{1,2,NULL}', '{"a","b c"}', '\xdeadbeef')`,
		`(1, false, -1, -5, -0.001, 'NaN', '-Infinity', '', NULL, '-infinity', 'infinity', '1999-12-31 23:59:59.999999+00', NULL, 'null', '{}', '{NULL}', '\x')`,
		`(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
		`(5, true, 32767, 9223372036854775807, 123456789.123, 3.4e38, 1e308, 'ünïcode', 'ten chars!', '2000-02-29', '1970-01-01', '2038-01-19 03:14:08+00', '00000000-0000-0000-0000-000000000000', '[1, "two", {"3": null}]', '{-2147483648}', '{""}', '\x00ff')`,
	}
	for _, r := range rows {
		mustRun("INSERT INTO ty VALUES " + r)
		mustRun("CHECKPOINT")
	}
	const q = `SELECT * FROM ty ORDER BY id`
	before := fmt.Sprint(mustRun(q)[0].rows)
	if n := mustRun(`SELECT count(*) FROM "ty$files"`)[0].rows[0][0]; n != "4" {
		t.Fatalf("%s files before VACUUM, want 4", n)
	}
	mustRun("VACUUM ty")
	if n := mustRun(`SELECT count(*) FROM "ty$files"`)[0].rows[0][0]; n != "1" {
		t.Fatalf("%s files after VACUUM, want 1", n)
	}
	if after := fmt.Sprint(mustRun(q)[0].rows); after != before {
		t.Errorf("rows changed by compaction:\nbefore %s\nafter  %s", before, after)
	}
	// Unordered, the compacted file's rows come in SORTED BY order.
	if got := fmt.Sprint(mustRun(`SELECT id FROM ty`)[0].rows); got != "[[5] [3] [2] [1]]" {
		t.Errorf("ids in file order %s, want SORTED BY (id DESC)", got)
	}
}

// A column added with a default reads it in the rows already there; the
// files compaction writes hold it, so those rows keep reading it.
func TestVacuumKeepsInitialDefaults(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	steps := []step{{"s", "CREATE TABLE td (id int)", ""}}
	for i := 1; i <= 3; i++ {
		steps = append(steps, step{"s", fmt.Sprintf("INSERT INTO td VALUES (%d)", i), ""}, step{"s", "CHECKPOINT", ""})
	}
	steps = append(steps, []step{
		{"s", "ALTER TABLE td ADD COLUMN v text DEFAULT 'old rows'", ""},
		{"s", "INSERT INTO td VALUES (4, 'new')", ""},
		{"s", "CHECKPOINT", ""},
		{"s", `SELECT string_agg(id || ':' || coalesce(v, 'NULL'), ',' ORDER BY id) FROM td`, "1:old rows,2:old rows,3:old rows,4:new"},
		{"s", "VACUUM td", ""},
		{"s", `SELECT count(*) FROM "td$files"`, "1"},
		{"s", `SELECT string_agg(id || ':' || coalesce(v, 'NULL'), ',' ORDER BY id) FROM td`, "1:old rows,2:old rows,3:old rows,4:new"},
	}...)
	runSteps(t, map[string]*engine.Session{"s": s}, steps)
}

// Files written under older schemas (a column since widened, renamed,
// dropped) compact into files of the current one, the rows as they read.
func TestVacuumAcrossSchemaChanges(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	const q = `SELECT string_agg(id || ':' || n || ':' || coalesce(w::text, 'NULL'), ',' ORDER BY id) FROM ts2`
	steps := []step{
		{"s", "CREATE TABLE ts2 (id int, n int, gone text, w real)", ""},
		{"s", "INSERT INTO ts2 VALUES (1, 10, 'x', 1.5)", ""}, {"s", "CHECKPOINT", ""},
		{"s", "ALTER TABLE ts2 ALTER COLUMN n TYPE bigint", ""},
		{"s", "INSERT INTO ts2 VALUES (2, 20000000000, 'y', 2.5)", ""}, {"s", "CHECKPOINT", ""},
		{"s", "ALTER TABLE ts2 RENAME COLUMN w TO z", ""},
		{"s", "ALTER TABLE ts2 RENAME COLUMN z TO w", ""},
		{"s", "ALTER TABLE ts2 DROP COLUMN gone", ""},
		{"s", "ALTER TABLE ts2 ALTER COLUMN w TYPE float8", ""},
		{"s", "INSERT INTO ts2 VALUES (3, 30, 3.25)", ""}, {"s", "CHECKPOINT", ""},
		{"s", q, "1:10:1.5,2:20000000000:2.5,3:30:3.25"},
		{"s", "VACUUM ts2", ""},
		{"s", `SELECT count(*) FROM "ts2$files"`, "1"},
		{"s", q, "1:10:1.5,2:20000000000:2.5,3:30:3.25"},
	}
	runSteps(t, map[string]*engine.Session{"s": s}, steps)
}
