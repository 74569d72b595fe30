package icetable_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/s3test"
)

// scanText reads the named columns of every row as "v1/v2…" strings,
// sorted.
func scanText(t *testing.T, st *icetable.Store, tbl *table.Table, fields ...string) []string {
	t.Helper()
	_, seq, _, err := st.Scan(context.Background(), tbl, nil, nil, nil, fields, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			row := ""
			for c := range fields {
				if c > 0 {
					row += "/"
				}
				col := rec.Column(rec.Schema().FieldIndices(fields[c])[0])
				if col.IsNull(i) {
					row += "NULL"
				} else {
					row += col.ValueStr(i)
				}
			}
			out = append(out, row)
		}
		rec.Release()
	}
	slices.Sort(out)
	return out
}

// TestPinOldSchema: a snapshot written before a column was renamed, and
// another column took its old name, reads with its own schema, through
// the column cache that the current schema's reads filled.
func TestPinOldSchema(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	wh, whIO := s3test.Warehouse(t, dir)
	m, err := meta.Open(ctx, "sqlite://"+dir+"/meta.db", wh, whIO)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st := icetable.New(m.Catalog())
	st.SetScanCache(1 << 20)
	if err := st.CreateNamespace(ctx, "public"); err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 2, Name: "k", Type: iceberg.PrimitiveTypes.String})
	tbl, err := st.Create(ctx, "public", "t", sc, nil, table.UnsortedSortOrder, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tbl, err = st.Append(ctx, tbl, rows(t, sc, []int64{1}, []string{"a"}), nil); err != nil {
		t.Fatal(err)
	}
	s1 := tbl.CurrentSnapshot()

	// k becomes name; a new field takes the name k.
	sc2 := iceberg.NewSchema(1,
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64},
		iceberg.NestedField{ID: 2, Name: "name", Type: iceberg.PrimitiveTypes.String},
		iceberg.NestedField{ID: 3, Name: "k", Type: iceberg.PrimitiveTypes.String})
	tbl, err = st.Update(ctx, tbl, func(*table.Table) ([]table.Requirement, []table.Update, error) {
		return nil, []table.Update{table.NewAddSchemaUpdate(sc2), table.NewSetCurrentSchemaUpdate(-1)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tbl, err = st.Append(ctx, tbl, rows(t, sc2, []int64{2}, []string{"b"}, []string{"new"}), nil); err != nil {
		t.Fatal(err)
	}
	if got, want := scanText(t, st, tbl, "id", "name", "k"), []string{"1/a/NULL", "2/b/new"}; !slices.Equal(got, want) {
		t.Errorf("current: %v, want %v", got, want)
	}

	old, err := icetable.Pin(tbl, s1, true)
	if err != nil {
		t.Fatal(err)
	}
	if names := fmt.Sprint(old.Schema().Fields()); old.Schema().ID != 0 {
		t.Errorf("pinned schema %s, want schema 0", names)
	}
	if got, want := scanText(t, st, old, "id", "k"), []string{"1/a"}; !slices.Equal(got, want) {
		t.Errorf("as of snapshot 1: %v, want %v", got, want)
	}
	// The current schema's read is not disturbed by the old one's.
	if got, want := scanText(t, st, tbl, "id", "k"), []string{"1/NULL", "2/new"}; !slices.Equal(got, want) {
		t.Errorf("current again: %v, want %v", got, want)
	}
	// With the current schema (a branch's reading), the old files read
	// by field ID: name holds the old k.
	cur, err := icetable.Pin(tbl, s1, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := scanText(t, st, cur, "id", "name", "k"), []string{"1/a/NULL"}; !slices.Equal(got, want) {
		t.Errorf("snapshot 1 with the current schema: %v, want %v", got, want)
	}

	// Snapshot lookup by time.
	if s, err := icetable.SnapshotAsOf(tbl, time.UnixMilli(s1.TimestampMs)); err != nil || s.SnapshotID != s1.SnapshotID {
		t.Errorf("SnapshotAsOf(snapshot 1's time) = %v, %v", s, err)
	}
	if _, err := icetable.SnapshotAsOf(tbl, time.UnixMilli(s1.TimestampMs-1)); !errors.Is(err, icetable.ErrNoSnapshot) {
		t.Errorf("SnapshotAsOf(before the first snapshot) = %v, want ErrNoSnapshot", err)
	}
}

// rows builds a batch of sc from columns: int64s, then strings.
func rows(t *testing.T, sc *iceberg.Schema, ids []int64, strs ...[]string) arrow.RecordBatch {
	t.Helper()
	asc, err := table.SchemaToArrowSchema(sc, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	ib.AppendValues(ids, nil)
	cols := []arrow.Array{ib.NewArray()}
	for _, s := range strs {
		sb := array.NewStringBuilder(memory.DefaultAllocator)
		sb.AppendValues(s, nil)
		cols = append(cols, sb.NewArray())
	}
	return array.NewRecordBatch(asc, cols, int64(len(ids)))
}
