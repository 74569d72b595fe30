package icetable_test

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/s3test"
)

// TestRowGroupPruning writes one file of ten row groups of 100 sorted ids
// and checks that a range predicate decodes only the groups that may hold
// it, returns all their rows (rows are filtered by the caller), and that
// with the column cache on the result is the same.
func TestRowGroupPruning(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	wh, whIO := s3test.Warehouse(t, dir)
	m, err := meta.Open(ctx, "sqlite://"+dir+"/meta.db", wh, whIO)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st := icetable.New(m.Catalog())
	if err := st.CreateNamespace(ctx, "public"); err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "k", Type: iceberg.PrimitiveTypes.String})
	tbl, err := st.Create(ctx, "public", "t", sc, nil, table.UnsortedSortOrder,
		iceberg.Properties{"write.parquet.row-group-limit": "100"})
	if err != nil {
		t.Fatal(err)
	}
	asc, err := table.SchemaToArrowSchema(sc, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	ids := array.NewInt64Builder(memory.DefaultAllocator)
	ks := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 0; i < 1000; i++ {
		ids.Append(int64(i))
		ks.Append(string(rune('a' + i/100)))
	}
	cols := []arrow.Array{ids.NewArray(), ks.NewArray()}
	rec := array.NewRecordBatch(asc, cols, 1000)
	if tbl, err = st.Append(ctx, tbl, rec, nil); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		preds       []icetable.RangePred
		wantSkipped int64
		wantRows    int64 // every row of the groups read
	}{
		{[]icetable.RangePred{{Column: "id", Op: ">=", Val: int64(850)}}, 8, 200},
		{[]icetable.RangePred{{Column: "id", Op: "<", Val: int64(100)}}, 9, 100},
		{[]icetable.RangePred{{Column: "id", Op: "=", Val: int64(5000)}}, 10, 0},
		{[]icetable.RangePred{{Column: "k", Op: "=", Val: "c"}, {Column: "id", Op: "<=", Val: int64(250)}}, 9, 100},
		{nil, 0, 1000},
	}
	for _, cache := range []bool{false, true} {
		if cache {
			st.SetScanCache(64 << 20)
		}
		for i, c := range cases {
			var rg icetable.RowGroupStats
			_, seq, _, err := st.Scan(ctx, tbl, nil, c.preds, &rg, []string{"id", "k"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var rows int64
			for r, err := range seq {
				if err != nil {
					t.Fatal(err)
				}
				rows += r.NumRows()
				r.Release()
			}
			if cache && i == len(cases)-1 {
				// The whole file, now cached, answers whatever the preds.
				continue
			}
			if rows != c.wantRows || rg.Skipped.Load() != c.wantSkipped || (c.preds != nil && rg.Total.Load() != 10) {
				t.Errorf("cache %v, preds %v: %d rows, %d of %d groups skipped; want %d rows, %d skipped",
					cache, c.preds, rows, rg.Skipped.Load(), rg.Total.Load(), c.wantRows, c.wantSkipped)
			}
		}
	}
	// With the file cached, a scan reads every row and skips nothing.
	var rg icetable.RowGroupStats
	_, seq, _, err := st.Scan(ctx, tbl, nil, []icetable.RangePred{{Column: "id", Op: "<", Val: int64(100)}}, &rg, []string{"id", "k"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for r, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		rows += r.NumRows()
		r.Release()
	}
	if rows != 1000 || rg.Total.Load() != 0 {
		t.Errorf("cached: %d rows, %d groups looked at; want 1000, 0", rows, rg.Total.Load())
	}
}
