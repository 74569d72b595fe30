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

// TestLoadReusesUnmovedTable checks that Load reuses the table it loaded
// while the pointer has not moved, and loads afresh after another
// server's commit (another Store over the same metastore) and after a
// drop and re-create under the same name.
func TestLoadReusesUnmovedTable(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	wh, whIO := s3test.Warehouse(t, dir)
	m, err := meta.Open(ctx, "sqlite://"+dir+"/meta.db", wh, whIO)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st := icetable.NewWithPointers(m.Catalog(), m)
	other := icetable.New(m.Catalog()) // another server's
	if err := st.CreateNamespace(ctx, "public"); err != nil {
		t.Fatal(err)
	}
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	if _, err := st.Create(ctx, "public", "t", sc, nil, table.UnsortedSortOrder, nil); err != nil {
		t.Fatal(err)
	}
	a, err := st.Load(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Load(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatalf("second Load of an unmoved table loaded again (%p, %p)", a, b)
	}

	// Another server appends: the pointer moves, Load sees the rows.
	ot, err := other.Load(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	asc, err := table.SchemaToArrowSchema(sc, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	bld.AppendValues([]int64{1, 2, 3}, nil)
	rec := array.NewRecordBatch(asc, []arrow.Array{bld.NewArray()}, 3)
	defer rec.Release()
	if _, err := other.Append(ctx, ot, rec, nil); err != nil {
		t.Fatal(err)
	}
	c, err := st.Load(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	if c == b || c.CurrentSnapshot() == nil || c.MetadataLocation() == b.MetadataLocation() {
		t.Fatalf("Load after another server's commit kept the old table")
	}

	// Dropped and created again by the other server: a new table.
	if err := other.Drop(ctx, "public", "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(ctx, "public", "t"); err == nil {
		t.Fatalf("Load of a dropped table succeeded")
	}
	if _, err := other.Create(ctx, "public", "t", sc, nil, table.UnsortedSortOrder, nil); err != nil {
		t.Fatal(err)
	}
	d, err := st.Load(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	if d.CurrentSnapshot() != nil {
		t.Fatalf("Load after drop and create returned the old table's snapshot")
	}
}
