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

// TestUpdateAndStaleAppend: a comment (property, field doc) and an append
// made on the table as it was before the comment, as another server's link
// would, both survive, and the identifier fields keep their order.
func TestUpdateAndStaleAppend(t *testing.T) {
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
	sc := iceberg.NewSchemaWithIdentifiers(0, []int{2, 1},
		iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true},
		iceberg.NestedField{ID: 2, Name: "k", Type: iceberg.PrimitiveTypes.String, Required: true})
	stale, err := st.Create(ctx, "public", "t", sc, nil, table.UnsortedSortOrder, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(ctx, stale, icetable.SetProperty("comment", "documented")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(ctx, stale, icetable.SetColumnDoc("k", "the key")); err != nil {
		t.Fatal(err)
	}
	asc, err := table.SchemaToArrowSchema(sc, nil, false, false)
	if err != nil {
		t.Fatal(err)
	}
	ids := array.NewInt64Builder(memory.DefaultAllocator)
	ks := array.NewStringBuilder(memory.DefaultAllocator)
	ids.Append(1)
	ks.Append("a")
	rec := array.NewRecordBatch(asc, []arrow.Array{ids.NewArray(), ks.NewArray()}, 1)
	if _, err := st.Append(ctx, stale, rec, nil); err != nil {
		t.Fatal(err)
	}
	got, err := st.Load(ctx, "public", "t")
	if err != nil {
		t.Fatal(err)
	}
	if c := got.Properties()["comment"]; c != "documented" {
		t.Errorf("comment %q after a stale append", c)
	}
	if f, _ := got.Schema().FindFieldByName("k"); f.Doc != "the key" {
		t.Errorf("doc %q after a stale append", f.Doc)
	}
	if ids := got.Schema().IdentifierFieldIDs; len(ids) != 2 || ids[0] != 2 || ids[1] != 1 {
		t.Errorf("identifier fields %v, want [2 1]", ids)
	}
	if got.CurrentSnapshot() == nil {
		t.Errorf("the append is lost")
	}
	// Removing: property gone, doc empty.
	if _, err := st.Update(ctx, stale, icetable.SetProperty("comment", "")); err != nil {
		t.Fatal(err)
	}
	if got, err = st.Update(ctx, stale, icetable.SetColumnDoc("k", "")); err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Properties()["comment"]; ok {
		t.Errorf("comment property still there")
	}
	if f, _ := got.Schema().FindFieldByName("k"); f.Doc != "" || got.CurrentSnapshot() == nil {
		t.Errorf("doc %q, snapshot %v", f.Doc, got.CurrentSnapshot())
	}
}
