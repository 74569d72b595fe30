package icetable_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/s3test"
)

// TestDirectRead reads a file of several row groups (each with its own
// dictionaries) through Loam's own decoder, strings as dictionaries or
// plain, whole or with row groups skipped, and checks every value against
// arrow-go's pqarrow reading the same file.
func TestDirectRead(t *testing.T) {
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
		iceberg.NestedField{ID: 2, Name: "n", Type: iceberg.PrimitiveTypes.Int32},
		iceberg.NestedField{ID: 3, Name: "f", Type: iceberg.PrimitiveTypes.Float64},
		iceberg.NestedField{ID: 4, Name: "ts", Type: iceberg.PrimitiveTypes.TimestampTz},
		iceberg.NestedField{ID: 5, Name: "tenant", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 6, Name: "h", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 7, Name: "d", Type: iceberg.PrimitiveTypes.Date})
	tbl, err := st.Create(ctx, "public", "t", sc, nil, table.UnsortedSortOrder,
		iceberg.Properties{"write.parquet.row-group-limit": "100"})
	if err != nil {
		t.Fatal(err)
	}
	asc, err := table.SchemaToArrowSchema(sc, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	const rows = 1000
	bld := array.NewRecordBuilder(memory.DefaultAllocator, asc)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < rows; i++ {
		bld.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%7 == 0 {
			bld.Field(1).AppendNull()
			bld.Field(2).AppendNull()
			bld.Field(4).AppendNull()
		} else {
			bld.Field(1).(*array.Int32Builder).Append(int32(i % 13))
			bld.Field(2).(*array.Float64Builder).Append(float64(i) / 8)
			bld.Field(4).(*array.StringBuilder).Append(fmt.Sprintf("t%02d", (i*7)%11+i/100))
		}
		bld.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(t0.Add(time.Duration(i) * time.Minute).UnixMicro()))
		if i%11 == 0 {
			bld.Field(5).AppendNull()
		} else {
			// Rows 0-99 overflow the writer's dictionary page, so
			// that chunk falls back to plain pages midway.
			n := i % 5
			if i < 100 {
				n = 20000
			}
			bld.Field(5).(*array.StringBuilder).Append(strings.Repeat("x", n) + fmt.Sprint(i))
		}
		bld.Field(6).(*array.Date32Builder).Append(arrow.Date32(i / 50))
	}
	rec := bld.NewRecordBatch()
	if tbl, err = st.Append(ctx, tbl, rec, nil); err != nil {
		t.Fatal(err)
	}
	fields := []string{"id", "n", "f", "ts", "tenant", "h", "d"}
	want := pqarrowRows(t, dir)
	for _, c := range []struct {
		name  string
		dict  []bool
		preds []icetable.RangePred
		from  int64 // the first row the kept groups hold
	}{
		{"plain", nil, nil, 0},
		{"dictionaries", []bool{false, false, false, false, true, true, false}, nil, 0},
		{"row groups skipped", []bool{false, false, false, false, true, true, false},
			[]icetable.RangePred{{Column: "id", Op: ">=", Val: int64(250)}}, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, seq, _, err := st.ScanDict(ctx, tbl, iceberg.AlwaysTrue{}, c.preds, nil, fields, c.dict, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			sawDict := false
			for b, err := range seq {
				if err != nil {
					t.Fatal(err)
				}
				for r := 0; r < int(b.NumRows()); r++ {
					got = append(got, rowString(b, r))
				}
				for _, col := range b.Columns() {
					_, ok := col.(*array.Dictionary)
					sawDict = sawDict || ok
				}
				b.Release()
			}
			if wantDict := c.dict != nil; sawDict != wantDict {
				t.Errorf("dictionary columns: %v, want %v", sawDict, wantDict)
			}
			if fmt.Sprint(got) != fmt.Sprint(want[c.from:]) {
				t.Errorf("%d rows differ from pqarrow's %d", len(got), len(want[c.from:]))
				for i := range got {
					if i < len(want)-int(c.from) && got[i] != want[int(c.from)+i] {
						t.Fatalf("row %d: %s, want %s", i, got[i], want[int(c.from)+i])
					}
				}
			}
		})
	}
}

// rowString renders a row, dictionaries by their values.
func rowString(b arrow.RecordBatch, r int) string {
	var s []string
	for _, c := range b.Columns() {
		if d, ok := c.(*array.Dictionary); ok {
			if d.IsNull(r) {
				s = append(s, "(null)")
			} else {
				s = append(s, d.Dictionary().ValueStr(d.GetValueIndex(r)))
			}
			continue
		}
		s = append(s, c.ValueStr(r))
	}
	return strings.Join(s, "|")
}

// pqarrowRows reads the table's one data file with pqarrow.
func pqarrowRows(t *testing.T, dir string) []string {
	wh, _ := s3test.Warehouse(t, dir)
	paths := s3test.Files(t, wh, ".parquet")
	if len(paths) != 1 {
		t.Fatalf("data files %v, want one", paths)
	}
	f := bytes.NewReader(s3test.Read(t, paths[0]))
	pr, err := file.NewParquetReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if pr.NumRowGroups() < 5 {
		t.Fatalf("%d row groups, want several", pr.NumRowGroups())
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 1 << 20}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Release()
	rr := array.NewTableReader(tb, 1<<20)
	defer rr.Release()
	var out []string
	for rr.Next() {
		b := rr.RecordBatch()
		for r := 0; r < int(b.NumRows()); r++ {
			out = append(out, rowString(b, r))
		}
	}
	return out
}
