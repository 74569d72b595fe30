package icetable

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	icebergio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/s3test"
)

// appendRows appends one file of ids [from, from+n) with k the letter of
// id/100 and n null in files starting at a multiple of 300.
func appendRows(t testing.TB, st *Store, tbl *table.Table, from, n int) *table.Table {
	t.Helper()
	asc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	ids := array.NewInt64Builder(memory.DefaultAllocator)
	ks := array.NewStringBuilder(memory.DefaultAllocator)
	ns := array.NewInt32Builder(memory.DefaultAllocator)
	for i := from; i < from+n; i++ {
		ids.Append(int64(i))
		ks.Append(string(rune('a' + i/100)))
		if from%300 == 0 {
			ns.AppendNull()
		} else {
			ns.Append(int32(i))
		}
	}
	rec := array.NewRecordBatch(asc, []arrow.Array{ids.NewArray(), ks.NewArray(), ns.NewArray()}, int64(n))
	defer rec.Release()
	out, err := st.Append(context.Background(), tbl, rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func paths(tasks []table.FileScanTask) []string {
	var out []string
	for _, t := range tasks {
		out = append(out, t.File.FilePath())
	}
	slices.Sort(out)
	return out
}

// TestPlanFilesCached checks that planning from cached manifests keeps the
// same files as iceberg-go's PlanFiles for every filter shape it accepts,
// falls back for the others, is served from the cache (the manifest files
// may go), and reads a new snapshot's manifests.
func TestPlanFilesCached(t *testing.T) {
	ctx := context.Background()
	st, sc := planStore(t)
	tbl, err := st.Create(ctx, "public", "t", sc, nil, table.UnsortedSortOrder, nil)
	if err != nil {
		t.Fatal(err)
	}
	for from := 0; from < 600; from += 100 {
		tbl = appendRows(t, st, tbl, from, 100)
	}
	id, k, n := iceberg.Reference("id"), iceberg.Reference("k"), iceberg.Reference("n")
	cases := []struct {
		name     string
		filter   iceberg.BooleanExpression
		fallback bool
	}{
		{"none", nil, false},
		{"eq", iceberg.EqualTo(id, int64(150)), false},
		{"eq-miss", iceberg.EqualTo(id, int64(5000)), false},
		{"lt", iceberg.LessThan(id, int64(100)), false},
		{"lteq", iceberg.LessThanEqual(id, int64(100)), false},
		{"gt", iceberg.GreaterThan(id, int64(499)), false},
		{"gteq", iceberg.GreaterThanEqual(id, int64(499)), false},
		{"and", iceberg.NewAnd(iceberg.GreaterThanEqual(id, int64(250)), iceberg.EqualTo(k, "c")), false},
		{"or", iceberg.NewOr(iceberg.LessThan(id, int64(10)), iceberg.GreaterThan(k, "e")), false},
		{"not", iceberg.NewNot(iceberg.LessThan(id, int64(400))), false},
		{"neq", iceberg.NotEqualTo(id, int64(3)), false},
		{"isnull", iceberg.IsNull(n), false},
		{"notnull", iceberg.NotNull(n), false},
		{"n-range", iceberg.LessThan(n, int32(250)), false},
		{"false", iceberg.AlwaysFalse{}, false},
		{"in", iceberg.IsIn(id, int64(1), int64(350)), true},
		{"startswith", iceberg.StartsWith(k, "b"), true},
	}
	check := func(tbl *table.Table) {
		t.Helper()
		for _, c := range cases {
			opts := []table.ScanOption{}
			if c.filter != nil {
				opts = append(opts, table.WithRowFilter(c.filter))
			}
			want, err := tbl.Scan(opts...).PlanFiles(ctx)
			if err != nil {
				t.Fatalf("%s: PlanFiles: %v", c.name, err)
			}
			_, cerr := st.planCached(ctx, tbl, c.filter)
			if fell := errors.Is(cerr, errUnsupportedPrune); fell != c.fallback || (cerr != nil && !fell) {
				t.Errorf("%s: cached planning: err %v, want fallback %v", c.name, cerr, c.fallback)
			}
			got, err := st.planFiles(ctx, tbl, c.filter, nil)
			if err != nil {
				t.Fatalf("%s: planFiles: %v", c.name, err)
			}
			if g, w := paths(got), paths(want); !slices.Equal(g, w) {
				t.Errorf("%s: planned %d files %v, PlanFiles %d %v", c.name, len(g), g, len(w), w)
			}
		}
	}
	check(tbl)

	// Served from the cache: with the manifest files gone, planning still
	// answers (PlanFiles could not).
	snap := tbl.CurrentSnapshot()
	fs, err := tbl.FS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mans, err := snap.Manifests(fs)
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mans {
		if err := fs.(icebergio.RenameIO).Rename(mf.FilePath(), mf.FilePath()+".away"); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := st.planFiles(ctx, tbl, iceberg.EqualTo(id, int64(150)), nil); err != nil || len(got) != 1 {
		t.Fatalf("planning from the cache with the manifests gone: %d files, %v", len(got), err)
	}
	for _, mf := range mans {
		if err := fs.(icebergio.RenameIO).Rename(mf.FilePath()+".away", mf.FilePath()); err != nil {
			t.Fatal(err)
		}
	}

	// A new snapshot names a new manifest list and a new manifest: its
	// file is planned.
	tbl = appendRows(t, st, tbl, 600, 100)
	got, err := st.planFiles(ctx, tbl, iceberg.EqualTo(id, int64(650)), nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("after a new snapshot: %d files, %v", len(got), err)
	}
	check(tbl)
}

// TestPlanFilesPartitioned checks the partition rule: a filter naming a
// partition source column plans through iceberg-go (whose partition
// pruning the cache does not do), one naming other columns plans from
// the cache, and both keep PlanFiles' files.
func TestPlanFilesPartitioned(t *testing.T) {
	ctx := context.Background()
	st, sc := planStore(t)
	spec := iceberg.NewPartitionSpec(iceberg.PartitionField{
		SourceIDs: []int{2}, FieldID: 1000, Name: "k", Transform: iceberg.IdentityTransform{}})
	tbl, err := st.Create(ctx, "public", "p", sc, &spec, table.UnsortedSortOrder, nil)
	if err != nil {
		t.Fatal(err)
	}
	for from := 0; from < 400; from += 100 {
		tbl = appendRows(t, st, tbl, from, 100)
	}
	cases := []struct {
		name     string
		filter   iceberg.BooleanExpression
		fallback bool
	}{
		{"partition column", iceberg.EqualTo(iceberg.Reference("k"), "b"), true},
		{"other column", iceberg.GreaterThan(iceberg.Reference("id"), int64(250)), false},
		{"both", iceberg.NewAnd(iceberg.GreaterThan(iceberg.Reference("id"), int64(50)), iceberg.LessThan(iceberg.Reference("k"), "c")), true},
	}
	for _, c := range cases {
		want, err := tbl.Scan(table.WithRowFilter(c.filter)).PlanFiles(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, cerr := st.planCached(ctx, tbl, c.filter)
		if fell := errors.Is(cerr, errUnsupportedPrune); fell != c.fallback || (cerr != nil && !fell) {
			t.Errorf("%s: cached planning: err %v, want fallback %v", c.name, cerr, c.fallback)
		}
		got, err := st.planFiles(ctx, tbl, c.filter, nil)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := paths(got), paths(want); !slices.Equal(g, w) || len(w) == 0 {
			t.Errorf("%s: planned %v, PlanFiles %v", c.name, g, w)
		}
	}
}

// planStore is a store over a fresh SQLite metastore and file warehouse,
// with namespace public, and the schema the planning tests' tables use.
func planStore(t testing.TB) (*Store, *iceberg.Schema) {
	t.Helper()
	dir := t.TempDir()
	wh, whIO := s3test.Warehouse(t, dir)
	m, err := meta.Open(context.Background(), "sqlite://"+dir+"/meta.db", wh, whIO)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	st := New(m.Catalog())
	if err := st.CreateNamespace(context.Background(), "public"); err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "k", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "n", Type: iceberg.PrimitiveTypes.Int32})
	return st, sc
}

// A file bigger than read.split.target-size with several row groups is
// split by iceberg-go's planning into byte ranges; Loam reads files whole,
// so each file must still be one task and its rows read once (TPC-H SF 1's
// compacted lineitem file was read twice).
func TestLargeFilesReadOnce(t *testing.T) {
	ctx := context.Background()
	st, sc := planStore(t)
	tbl, err := st.Create(ctx, "public", "big", sc, nil, table.UnsortedSortOrder,
		iceberg.Properties{table.ParquetRowGroupLimitKey: "100", table.ReadSplitTargetSizeKey: "1"})
	if err != nil {
		t.Fatal(err)
	}
	tbl = appendRows(t, st, tbl, 0, 1000)
	raw, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < 2 {
		t.Fatalf("iceberg-go planned %d tasks: the file is not split, so the test checks nothing", len(raw))
	}
	for _, filter := range []iceberg.BooleanExpression{nil, iceberg.IsIn(iceberg.Reference("id"), int64(1), int64(350))} {
		tasks, err := st.planFiles(ctx, tbl, filter, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) != 1 || tasks[0].Start != 0 || tasks[0].Length != tasks[0].File.FileSizeBytes() {
			t.Fatalf("filter %v: %d tasks (%+v), want the one file whole", filter, len(tasks), tasks)
		}
	}
	_, rows, _, err := st.Scan(ctx, tbl, iceberg.AlwaysTrue{}, nil, nil, []string{"id"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rec, err := range rows {
		if err != nil {
			t.Fatal(err)
		}
		n += int(rec.NumRows())
		rec.Release()
	}
	if n != 1000 {
		t.Fatalf("read %d rows, want 1000", n)
	}
}
