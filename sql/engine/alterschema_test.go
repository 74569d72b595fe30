package engine_test

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// icebergText reads every row of an iceberg-go scan of ns.name as text,
// columns in the table's schema order, "NULL" for nulls, sorted.
func icebergText(t *testing.T, tbl *table.Table) (cols []string, rows []string) {
	t.Helper()
	at, err := tbl.Scan().ToArrowTable(context.Background())
	if err != nil {
		t.Fatalf("iceberg-go scan: %v", err)
	}
	defer at.Release()
	for _, f := range at.Schema().Fields() {
		cols = append(cols, f.Name+" "+f.Type.String())
	}
	for _, rec := range tableBatches(t, at) {
		for i := 0; i < int(rec.NumRows()); i++ {
			var vals []string
			for c := 0; c < int(rec.NumCols()); c++ {
				vals = append(vals, cellText(rec.Column(c), i))
			}
			rows = append(rows, strings.Join(vals, "|"))
		}
	}
	sort.Strings(rows)
	return cols, rows
}

func cellText(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return "NULL"
	}
	switch a := a.(type) {
	case *array.Timestamp:
		return a.Value(i).ToTime(arrow.Microsecond).Format("2006-01-02")
	default:
		return a.ValueStr(i)
	}
}

// TestEvolutionReadback changes a table's schema, partitioning and sort
// order with rows in data files and in the write log at each step, and
// reads it with Loam and with iceberg-go's own scan: old files read by
// field ID under the new schema (a dropped column's namesake is NULL in
// them, never the old values; a renamed column keeps its values; a widened
// one reads as the new type), and new data follows the new spec.
func TestEvolutionReadback(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE ev (id int, name text, ts timestamp, n int) PARTITIONED BY (day(ts)) SORTED BY (id)`)
	mustRun(t, s, `INSERT INTO ev VALUES (1, 'old-a', '2024-01-01', 10), (2, 'old-b', '2024-01-02', 20)`)
	mustRun(t, s, `CHECKPOINT`)
	// Read name once, so the column cache holds the old column.
	if got := txt(mustRun(t, s, `SELECT name FROM ev ORDER BY id`).rows); got != "old-a\nold-b" {
		t.Fatalf("names before: %q", got)
	}
	mustRun(t, s, `INSERT INTO ev VALUES (3, 'tail-c', '2024-01-03', 30)`) // stays in the write log
	mustRun(t, s, `ALTER TABLE ev DROP COLUMN name, ADD COLUMN name text, ADD COLUMN flag int DEFAULT 7`)
	mustRun(t, s, `ALTER TABLE ev RENAME COLUMN n TO amount`)
	mustRun(t, s, `ALTER TABLE ev ALTER COLUMN id TYPE bigint`)
	mustRun(t, s, `ALTER TABLE ev SET PARTITIONED BY (month(ts)), SET SORTED BY (amount DESC)`)
	mustRun(t, s, `INSERT INTO ev VALUES (4, '2024-02-01', 40, 'new-d', 1)`)

	want := "1|2024-01-01 00:00:00|10|NULL|7\n2|2024-01-02 00:00:00|20|NULL|7\n3|2024-01-03 00:00:00|30|NULL|7\n4|2024-02-01 00:00:00|40|new-d|1"
	if got := txt(mustRun(t, s, `SELECT id, ts, amount, name, flag FROM ev ORDER BY id`).rows); got != want {
		t.Fatalf("Loam reads before CHECKPOINT:\n%s\nwant\n%s", got, want)
	}
	mustRun(t, s, `CHECKPOINT`)
	if got := txt(mustRun(t, s, `SELECT id, ts, amount, name, flag FROM ev ORDER BY id`).rows); got != want {
		t.Fatalf("Loam reads after CHECKPOINT:\n%s\nwant\n%s", got, want)
	}
	if got := txt(mustRun(t, s, `SELECT id FROM ev WHERE id >= 3 AND amount > 5 ORDER BY id`).rows); got != "3\n4" {
		t.Fatalf("filter on widened and renamed columns: %q", got)
	}
	e.Close()

	cat := openIcebergCatalog(t, dir)
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", "ev"})
	if err != nil {
		t.Fatal(err)
	}
	cols, rows := icebergText(t, tbl)
	wantCols := []string{"id int64", "ts timestamp[us]", "amount int32", "name utf8", "flag int32"}
	if !reflect.DeepEqual(cols, wantCols) {
		t.Errorf("iceberg-go columns %q, want %q", cols, wantCols)
	}
	// iceberg-go knows no initial default in a v2 table: the rows that
	// were in data files before ADD COLUMN read NULL there. The row in
	// the write log at the ALTER was committed after it, with the value.
	wantRows := []string{"1|2024-01-01|10|NULL|NULL", "2|2024-01-02|20|NULL|NULL", "3|2024-01-03|30|NULL|7", "4|2024-02-01|40|new-d|1"}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("iceberg-go rows\n%q\nwant\n%q", rows, wantRows)
	}
	// New files follow the new spec, old ones keep theirs.
	spec := tbl.Spec()
	if spec.NumFields() != 1 || spec.Field(0).Transform.String() != "month" {
		t.Errorf("current spec %v, want month(ts)", spec)
	}
	if n := len(tbl.Metadata().PartitionSpecs()); n != 2 {
		t.Errorf("%d partition specs, want 2", n)
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	bySpec := map[int32]int{}
	for _, task := range tasks {
		bySpec[task.File.SpecID()]++
	}
	// Rows 1 and 2 went into files (a day each) before the change; row 3,
	// still in the write log then, and row 4 after it (a month each).
	if bySpec[int32(spec.ID())] != 2 || len(bySpec) != 2 {
		t.Errorf("data files by spec %v, want two under spec %d and two under the first", bySpec, spec.ID())
	}
	order := tbl.SortOrder()
	amount, _ := tbl.Schema().FindFieldByName("amount")
	var f []table.SortField
	for _, sf := range order.Fields() {
		f = append(f, sf)
	}
	if len(f) != 1 || f[0].SourceID() != amount.ID || f[0].Direction != table.SortDESC {
		t.Errorf("sort order %v, want amount DESC", order)
	}
	// Field IDs are never reused: the new name is a new field.
	name, _ := tbl.Schema().FindFieldByName("name")
	if name.ID <= 4 {
		t.Errorf("re-added column name has field id %d, an id of the original schema", name.ID)
	}
}

// TestEvolutionRollback undoes ALTERs of every kind with ROLLBACK: the
// schema, spec, sort order and Loam's properties and settings come back.
func TestEvolutionRollback(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE rb (id int, ts timestamp, v text) PARTITIONED BY (day(ts)) SORTED BY (id) WITH (retention = '100 years' ON ts)`)
	mustRun(t, s, `INSERT INTO rb VALUES (1, '2024-01-01', 'x')`)
	mustRun(t, s, `CHECKPOINT`)
	desc := func() string {
		cols := txt(mustRun(t, s, `SELECT column_name, data_type, is_nullable, coalesce(column_default, '') FROM information_schema.columns WHERE table_name = 'rb' ORDER BY ordinal_position`).rows)
		part := txt(mustRun(t, s, `SELECT pg_get_partkeydef('rb'::regclass)`).rows)
		return cols + "\n" + part
	}
	before := desc()
	mustRun(t, s, `BEGIN`)
	mustRun(t, s, `ALTER TABLE rb ADD COLUMN extra int NOT NULL DEFAULT 3, ALTER COLUMN id TYPE bigint, ALTER COLUMN v SET NOT NULL`)
	mustRun(t, s, `ALTER TABLE rb RENAME COLUMN ts TO at`)
	mustRun(t, s, `ALTER TABLE rb SET PARTITIONED BY (month(at)), SET SORTED BY (v DESC)`)
	mustRun(t, s, `ALTER TABLE rb DROP COLUMN id`)
	mid := desc()
	if mid == before {
		t.Fatalf("the ALTERs changed nothing:\n%s", mid)
	}
	if !strings.Contains(mid, "month(at)") || !strings.Contains(mid, "Sort order: v DESC") || !strings.Contains(mid, "100 years on at") {
		t.Errorf("after the ALTERs:\n%s", mid)
	}
	mustRun(t, s, `ROLLBACK`)
	if after := desc(); after != before {
		t.Errorf("after ROLLBACK:\n%s\nwant\n%s", after, before)
	}
	if got := txt(mustRun(t, s, `SELECT * FROM rb`).rows); got != "1|2024-01-01 00:00:00|x" {
		t.Errorf("rows after ROLLBACK: %q", got)
	}
	// The retention column follows a committed rename.
	mustRun(t, s, `ALTER TABLE rb RENAME COLUMN ts TO at`)
	if got := desc(); !strings.Contains(got, "100 years on at") || !strings.Contains(got, "day(at)") {
		t.Errorf("after RENAME COLUMN:\n%s", got)
	}
}

// TestEvolutionOpenTransaction: a transaction that wrote rows before
// another session's ALTER commits them after it; they read under the new
// schema (the dropped column gone, the added one its default).
func TestEvolutionOpenTransaction(t *testing.T) {
	e := openEngine(t)
	a, b := newSession(t, e), newSession(t, e)
	mustRun(t, a, `CREATE TABLE ot (id int, name text)`)
	mustRun(t, a, `BEGIN`)
	mustRun(t, a, `INSERT INTO ot VALUES (1, 'one')`)
	mustRun(t, b, `ALTER TABLE ot DROP COLUMN name, ADD COLUMN name text, ADD COLUMN k int DEFAULT 5`)
	mustRun(t, a, `INSERT INTO ot VALUES (2, 'two', 6)`)
	mustRun(t, a, `COMMIT`)
	want := "1|NULL|5\n2|two|6"
	check := func(when string) {
		got := txt(mustRun(t, b, `SELECT id, name, k FROM ot ORDER BY id`).rows)
		if got != want {
			t.Errorf("%s:\n%s\nwant\n%s", when, got, want)
		}
	}
	check("before CHECKPOINT")
	mustRun(t, b, `CHECKPOINT`)
	check("after CHECKPOINT")
}

// TestEvolutionErrors: what ALTER TABLE refuses, with PostgreSQL's codes.
func TestEvolutionErrors(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE er (id int PRIMARY KEY, ts timestamp, k text, v real) PARTITIONED BY (day(ts)) SORTED BY (k) WITH (retention = '100 years' ON ts)`)
	mustRun(t, s, `INSERT INTO er VALUES (1, '2024-01-01', 'a', 1)`)
	for _, c := range []struct{ sql, code string }{
		{`ALTER TABLE er DROP COLUMN ts`, "42P16"},                         // partition source
		{`ALTER TABLE er DROP COLUMN k`, "42P16"},                          // sort column
		{`ALTER TABLE er SET PARTITIONED BY (k), DROP COLUMN ts`, "42P16"}, // an old spec still uses it
		{`ALTER TABLE er ALTER COLUMN id DROP NOT NULL`, "42P16"},          // primary key
		{`ALTER TABLE er ALTER COLUMN v TYPE int`, "0A000"},                // narrowing
		{`ALTER TABLE er ALTER COLUMN k TYPE int USING k::int`, "0A000"},   // USING
		{`ALTER TABLE er ADD COLUMN r float8 DEFAULT random()`, "0A000"},   // volatile default, rows there
		{`ALTER TABLE er SET PARTITIONED BY (nosuch)`, "42703"},            // unknown column
		{`ALTER TABLE er SET PARTITIONED BY (day(k))`, "42804"},            // transform of a wrong type
		{`ALTER TABLE er SET SORTED BY (nosuch)`, "42703"},                 // unknown column
		{`ALTER TABLE er ADD COLUMN x int, SET SORTED BY (x), DROP COLUMN x`, "42P16"},
	} {
		_, err := runSQL(context.Background(), s, c.sql)
		if got := sqlstate(err); got != c.code {
			t.Errorf("%s: SQLSTATE %s (%v), want %s", c.sql, got, err, c.code)
		}
	}
	// Nothing of the failed statements stuck.
	got := txt(mustRun(t, s, `SELECT column_name FROM information_schema.columns WHERE table_name = 'er' ORDER BY ordinal_position`).rows)
	if got != "id\nts\nk\nv" {
		t.Errorf("columns after the errors: %q", got)
	}
	// Retention's column cannot go either, once partitioning moved off it.
	mustRun(t, s, `ALTER TABLE er ADD COLUMN ts2 timestamp`)
	_, err := runSQL(context.Background(), s, `ALTER TABLE er DROP COLUMN ts2`)
	if err != nil {
		t.Errorf("dropping an unused column: %v", err)
	}
	// SET SORTED BY () and SET PARTITIONED BY () make the table unsorted
	// and unpartitioned for new data.
	mustRun(t, s, `ALTER TABLE er SET SORTED BY (), SET PARTITIONED BY ()`)
	mustRun(t, s, `ALTER TABLE er DROP COLUMN k`)
	if got := txt(mustRun(t, s, `SELECT pg_get_partkeydef('er'::regclass)`).rows); strings.Contains(got, "Sort order") {
		t.Errorf("after SET SORTED BY (): %q", got)
	}
}

// txt is rows as lines of |-separated values, NULL for nulls.
func txt(rows [][]string) string {
	var lines []string
	for _, r := range rows {
		vals := make([]string, len(r))
		for i, v := range r {
			if v == null {
				v = "NULL"
			}
			vals[i] = v
		}
		lines = append(lines, strings.Join(vals, "|"))
	}
	return strings.Join(lines, "\n")
}

// TestRenameOpenTransaction: rows a transaction writes to a table another
// session renames meanwhile commit into the renamed table.
func TestRenameOpenTransaction(t *testing.T) {
	e := openEngine(t)
	a, b := newSession(t, e), newSession(t, e)
	mustRun(t, a, `CREATE TABLE rn (id int)`)
	mustRun(t, a, `INSERT INTO rn VALUES (1)`)
	mustRun(t, a, `BEGIN`)
	mustRun(t, a, `INSERT INTO rn VALUES (2)`)
	mustRun(t, b, `ALTER TABLE rn RENAME TO rn2`)
	mustRun(t, a, `COMMIT`)
	if got := txt(mustRun(t, b, `SELECT id FROM rn2 ORDER BY id`).rows); got != "1\n2" {
		t.Errorf("rows of the renamed table: %q", got)
	}
	mustRun(t, b, `INSERT INTO rn2 VALUES (3)`)
	mustRun(t, b, `CHECKPOINT`)
	if got := txt(mustRun(t, b, `SELECT id FROM rn2 ORDER BY id`).rows); got != "1\n2\n3" {
		t.Errorf("rows after CHECKPOINT: %q", got)
	}
	// A table of the old name is a new table.
	mustRun(t, b, `CREATE TABLE rn (x text)`)
	mustRun(t, b, `INSERT INTO rn VALUES ('new')`)
	if got := txt(mustRun(t, b, `SELECT * FROM rn`).rows); got != "new" {
		t.Errorf("new table of the old name: %q", got)
	}
}

// TestEvolutionReplay: rows still in the write log when the server stops,
// written before an ALTER, are replayed after a restart and read, and
// committed into Iceberg, under the new schema.
func TestEvolutionReplay(t *testing.T) {
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE rp (id int, name text, v real)`)
	mustRun(t, s, `INSERT INTO rp VALUES (1, 'a', 1.5)`)
	mustRun(t, s, `ALTER TABLE rp DROP COLUMN name, ADD COLUMN name text, ADD COLUMN k int DEFAULT 4, ALTER COLUMN v TYPE double precision`)
	mustRun(t, s, `INSERT INTO rp VALUES (2, 2.5, 'b', 5)`)
	e.Close()

	e = openEngineAt(t, dir)
	s = newSession(t, e)
	want := "1|1.5|NULL|4\n2|2.5|b|5"
	if got := txt(mustRun(t, s, `SELECT id, v, name, k FROM rp ORDER BY id`).rows); got != want {
		t.Errorf("after restart:\n%s\nwant\n%s", got, want)
	}
	mustRun(t, s, `CHECKPOINT`)
	if got := txt(mustRun(t, s, `SELECT id, v, name, k FROM rp ORDER BY id`).rows); got != want {
		t.Errorf("after CHECKPOINT:\n%s\nwant\n%s", got, want)
	}
}

// TestAddArrayColumn: an added array column's element gets a field ID of
// its own, and iceberg-go reads the table back.
func TestAddArrayColumn(t *testing.T) {
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, `CREATE TABLE ar (id int, tags text[])`)
	mustRun(t, s, `INSERT INTO ar VALUES (1, '{a}')`)
	mustRun(t, s, `CHECKPOINT`)
	mustRun(t, s, `ALTER TABLE ar ADD COLUMN nums int[] DEFAULT '{1,2}'`)
	mustRun(t, s, `INSERT INTO ar VALUES (2, '{b}', '{3}')`)
	mustRun(t, s, `CHECKPOINT`)
	if got := txt(mustRun(t, s, `SELECT id, tags, nums FROM ar ORDER BY id`).rows); got != "1|{a}|{1,2}\n2|{b}|{3}" {
		t.Errorf("Loam reads %q", got)
	}
	e.Close()
	tbl, err := openIcebergCatalog(t, dir).LoadTable(context.Background(), table.Identifier{"public", "ar"})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int]bool{}
	for _, f := range tbl.Schema().Fields() {
		ids[f.ID] = true
		if l, ok := f.Type.(*iceberg.ListType); ok {
			if ids[l.ElementID] || l.ElementID == 0 {
				t.Errorf("element of %s has field id %d, taken", f.Name, l.ElementID)
			}
			ids[l.ElementID] = true
		}
	}
	_, rows := icebergText(t, tbl)
	if want := []string{"1|[\"a\"]|NULL", "2|[\"b\"]|[3]"}; !reflect.DeepEqual(rows, want) {
		t.Errorf("iceberg-go reads %q, want %q", rows, want)
	}
}
