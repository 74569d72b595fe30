package engine_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/s3test"
	"github.com/loamdb/loam/types"
	_ "modernc.org/sqlite"
)

// icebergRow is one row as iceberg-go reads it back, in the text form the
// tests compare (ts as UTC timestamptz text, floats via FormatFloat8).
type icebergRow [7]string

// readTable reads every row of an arrow table as icebergRows.
func readRows(t *testing.T, recs []arrow.RecordBatch) []icebergRow {
	t.Helper()
	var out []icebergRow
	for _, rec := range recs {
		sc := rec.Schema()
		names := []string{"ts", "tenant", "model", "prompt_tokens", "completion_tokens", "cost_usd", "latency_ms"}
		for i := 0; i < int(rec.NumRows()); i++ {
			var row icebergRow
			for c, name := range names {
				idx := sc.FieldIndices(name)
				if len(idx) != 1 {
					t.Fatalf("column %s missing from %v", name, sc)
				}
				arr := rec.Column(idx[0])
				if arr.IsNull(i) {
					row[c] = null
					continue
				}
				switch a := arr.(type) {
				case *array.Timestamp:
					row[c] = string(types.AppendTimestamp(nil, int64(a.Value(i)), time.UTC))
				case *array.String:
					row[c] = a.Value(i)
				case *array.LargeString:
					row[c] = a.Value(i)
				case *array.Int32:
					row[c] = fmt.Sprint(a.Value(i))
				case *array.Int64:
					row[c] = fmt.Sprint(a.Value(i))
				case *array.Float64:
					row[c] = types.FormatFloat8(a.Value(i))
				default:
					t.Fatalf("column %s: unexpected arrow type %T", name, arr)
				}
			}
			out = append(out, row)
		}
	}
	return out
}

func openIcebergCatalog(t *testing.T, dir string) *sqlcat.Catalog {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+dir+"/meta.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	wh, whIO := s3test.Warehouse(t, dir)
	props := iceberg.Properties{"warehouse": wh}
	maps.Copy(props, whIO)
	cat, err := sqlcat.NewCatalog("loam", db, sqlcat.SQLite, props)
	if err != nil {
		t.Fatalf("NewCatalog: %v", err)
	}
	return cat
}

// TestIcebergReadback writes llm_calls through the engine and reads it
// back with iceberg-go's own SQL catalog and scan.
func TestIcebergReadback(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, createLLMCalls)
	mustRun(t, s, insertSQL(calls))
	// Outside readers see rows once the link has committed them.
	mustRun(t, s, "CHECKPOINT")
	e.Close()

	cat := openIcebergCatalog(t, dir)
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", "llm_calls"})
	if err != nil {
		t.Fatalf("LoadTable: %v", err)
	}
	md := tbl.Metadata()
	if v := md.Version(); v != 2 {
		t.Errorf("format version %d, want 2", v)
	}

	// Schema field IDs by name, for the spec and sort order checks.
	sc := tbl.Schema()
	idOf := func(name string) int {
		f, ok := sc.FindFieldByName(name)
		if !ok {
			t.Fatalf("schema has no %s: %v", name, sc)
		}
		return f.ID
	}

	// Partition spec: one field, day(ts).
	spec := tbl.Spec()
	if spec.NumFields() != 1 {
		t.Fatalf("spec has %d fields, want 1: %v", spec.NumFields(), spec)
	}
	pf := spec.Field(0)
	if _, ok := pf.Transform.(iceberg.DayTransform); !ok || pf.Transform.String() != "day" {
		t.Errorf("partition transform %v, want day", pf.Transform)
	}
	if pf.SourceID() != idOf("ts") {
		t.Errorf("partition source %d, want ts (%d)", pf.SourceID(), idOf("ts"))
	}

	// Default sort order: tenant, model, ts ascending.
	order := tbl.SortOrder()
	var got []string
	for _, f := range order.Fields() {
		name, _ := sc.FindColumnName(f.SourceID())
		got = append(got, fmt.Sprintf("%s %s %s %s", name, f.Transform, f.Direction, f.NullOrder))
	}
	wantOrder := []string{}
	for _, c := range []string{"tenant", "model", "ts"} {
		wantOrder = append(wantOrder, fmt.Sprintf("%s identity %s %s", c, table.SortASC, table.NullsLast))
	}
	if !reflect.DeepEqual(got, wantOrder) {
		t.Errorf("sort order %q, want %q", got, wantOrder)
	}
	if md.DefaultSortOrder() != order.OrderID() || order.OrderID() == 0 {
		t.Errorf("default sort order id %d, order id %d", md.DefaultSortOrder(), order.OrderID())
	}

	props := tbl.Properties()
	if props["loam.retention"] != "100 years" || props["loam.retention.column"] != "ts" {
		t.Errorf("retention properties %q / %q", props["loam.retention"], props["loam.retention.column"])
	}

	// All rows come back as inserted.
	at, err := tbl.Scan().ToArrowTable(ctx)
	if err != nil {
		t.Fatalf("ToArrowTable: %v", err)
	}
	defer at.Release()
	rows := readRows(t, tableBatches(t, at))
	want := make([]icebergRow, len(calls))
	for i, c := range calls {
		want[i] = c.out
	}
	sortIce(rows)
	sortIce(want)
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("read back\n%v\nwant\n%v", rows, want)
	}

	// One data file per day partition (as the rounded ts falls), each
	// sorted by (tenant, model, ts).
	byDay := map[string][]icebergRow{}
	for _, c := range calls {
		day := c.out[cTS][:10]
		byDay[day] = append(byDay[day], c.out)
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != len(byDay) {
		t.Errorf("%d data files, want %d (one per day)", len(tasks), len(byDay))
	}
	seen := map[string]bool{}
	for _, task := range tasks {
		part := task.File.Partition()
		v, ok := part[pf.FieldID]
		if !ok {
			t.Fatalf("file %s has no partition value for field %d: %v", task.File.FilePath(), pf.FieldID, part)
		}
		days, ok := asInt(v)
		if !ok {
			t.Fatalf("partition value %v (%T)", v, v)
		}
		day := time.Unix(days*86400, 0).UTC().Format("2006-01-02")
		if seen[day] {
			t.Errorf("two files for day %s", day)
		}
		seen[day] = true

		scan := tbl.Scan()
		_, it, err := scan.ReadTasks(ctx, []table.FileScanTask{task})
		if err != nil {
			t.Fatal(err)
		}
		var recs []arrow.RecordBatch
		for rec, err := range it {
			if err != nil {
				t.Fatal(err)
			}
			rec.Retain()
			recs = append(recs, rec)
		}
		fileRows := readRows(t, recs)
		for _, r := range recs {
			r.Release()
		}
		wantFile := append([]icebergRow(nil), byDay[day]...)
		sort.SliceStable(wantFile, func(i, j int) bool { return sortKeyLess(wantFile[i], wantFile[j]) })
		if !reflect.DeepEqual(fileRows, wantFile) {
			t.Errorf("file for %s (%s):\n%v\nwant, sorted by tenant, model, ts:\n%v", day, task.File.FilePath(), fileRows, wantFile)
		}
		if n := task.File.Count(); n != int64(len(wantFile)) {
			t.Errorf("file for %s: record count %d, want %d", day, n, len(wantFile))
		}
	}

	// A filter on ts prunes to day 3's file.
	day3 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	pruned, err := tbl.Scan(table.WithRowFilter(iceberg.GreaterThanEqual(iceberg.Reference("ts"), iceberg.Timestamp(day3.UnixMicro())))).PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(pruned) != 1 {
		t.Fatalf("filter ts >= %s planned %d files, want 1", day3, len(pruned))
	}
	if v, _ := asInt(pruned[0].File.Partition()[pf.FieldID]); v != day3.Unix()/86400 {
		t.Errorf("pruned scan kept partition %d, want %d", v, day3.Unix()/86400)
	}
}

// tableBatches flattens an arrow table into record batches.
func tableBatches(t *testing.T, at arrow.Table) []arrow.RecordBatch {
	t.Helper()
	tr := array.NewTableReader(at, -1)
	t.Cleanup(tr.Release)
	var out []arrow.RecordBatch
	for tr.Next() {
		rec := tr.RecordBatch()
		rec.Retain()
		t.Cleanup(rec.Release)
		out = append(out, rec)
	}
	return out
}

func sortIce(rows []icebergRow) {
	sort.Slice(rows, func(i, j int) bool { return strings.Join(rows[i][:], "\x01") < strings.Join(rows[j][:], "\x01") })
}

// sortKeyLess orders rows by (tenant, model, ts) ascending, NULLs last, as
// the table's sort order says. ts text in UTC sorts as the instant does.
func sortKeyLess(a, b icebergRow) bool {
	for _, c := range []int{cTenant, cModel, cTS} {
		x, y := a[c], b[c]
		if x == y {
			continue
		}
		if x == null || y == null {
			return y == null
		}
		return x < y
	}
	return false
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case iceberg.Date:
		return int64(x), true
	}
	return 0, false
}

// TestTableSettingsInMetastore checks that CREATE TABLE records its Loam
// clauses in the metastore, and DROP TABLE removes them.
func TestTableSettingsInMetastore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, createLLMCalls)
	wh, whIO := s3test.Warehouse(t, dir)
	ms, err := meta.Open(ctx, "sqlite://"+dir+"/meta.db", wh, whIO)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	got, err := ms.TableSettings(ctx, "public", "llm_calls")
	if err != nil {
		t.Fatal(err)
	}
	want := meta.TableSettings{PartitionBy: []string{"day(ts)"}, SortedBy: []string{"tenant", "model", "ts"},
		Retention: "100 years", RetentionColumn: "ts"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("settings %+v, want %+v", got, want)
	}
	mustRun(t, s, "DROP TABLE llm_calls")
	if _, err := ms.TableSettings(ctx, "public", "llm_calls"); !errors.Is(err, meta.ErrNotFound) {
		t.Fatalf("settings after DROP TABLE: %v, want ErrNotFound", err)
	}
}

// A PRIMARY KEY becomes NOT NULL columns, the Iceberg schema's identifier
// fields, and the table's keys in the metastore (uniqueness is not
// enforced, as in other analytics engines).
func TestPrimaryKey(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e := openEngineAt(t, dir)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE k (a INT, b TEXT, c INT, PRIMARY KEY (a, b))")
	if _, err := runSQL(ctx, s, "INSERT INTO k VALUES (NULL, 'x', 1)"); sqlstate(err) != "23502" {
		t.Fatalf("NULL key: %v, want 23502", err)
	}
	mustRun(t, s, "CREATE TABLE k1 (a INT PRIMARY KEY, b TEXT)")
	e.Close()
	cat := openIcebergCatalog(t, dir)
	tbl, err := cat.LoadTable(ctx, table.Identifier{"public", "k"})
	if err != nil {
		t.Fatal(err)
	}
	if ids := tbl.Schema().IdentifierFieldIDs; fmt.Sprint(ids) != "[1 2]" {
		t.Fatalf("identifier fields %v, want [1 2]", ids)
	}
	wh, whIO := s3test.Warehouse(t, dir)
	ms, err := meta.Open(ctx, "sqlite://"+dir+"/meta.db", wh, whIO)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	if st, err := ms.TableSettings(ctx, "public", "k1"); err != nil || fmt.Sprint(st.Keys) != "[a]" {
		t.Fatalf("keys of k1: %v, %v", st.Keys, err)
	}
}

// Types Iceberg stores differently from Loam's batches (numeric as
// decimal, uuid as 16 bytes, smallint as int) read back as written once
// they come from data files.
func TestStoredTypesReadBack(t *testing.T) {
	e := openEngine(t)
	s := newSession(t, e)
	mustRun(t, s, "CREATE TABLE v (n NUMERIC(10,2), u UUID, b BYTEA, s SMALLINT)")
	mustRun(t, s, `INSERT INTO v VALUES (12.345, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '\xdead', 7), (NULL, NULL, NULL, NULL)`)
	want := [][]string{{"12.35", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", `\xdead`, "7"}, {null, null, null, null}}
	for _, when := range []string{"in the log", "in Iceberg"} {
		if when == "in Iceberg" {
			mustRun(t, s, "CHECKPOINT")
		}
		if got := mustRun(t, s, "SELECT * FROM v ORDER BY n").rows; show(got) != show(want) {
			t.Fatalf("%s:\n%s\nwant\n%s", when, show(got), show(want))
		}
	}
}
