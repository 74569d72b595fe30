package icetable_test

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/s3test"
)

// TestCreateAfterRenameOwnsItsDirectory: a table created under the name a
// renamed table had gets a directory of its own, not the renamed table's;
// a table whose directory is free keeps the default one.
func TestCreateAfterRenameOwnsItsDirectory(t *testing.T) {
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
	sc := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "id", Type: iceberg.PrimitiveTypes.Int64, Required: true})
	first, err := st.Create(ctx, "public", "a", sc, nil, table.UnsortedSortOrder, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(first.Location(), "/public.db/a") {
		t.Fatalf("a new name's table is at %s, want the default …/public.db/a", first.Location())
	}
	if err := st.Rename(ctx, "public", "a", "b"); err != nil {
		t.Fatal(err)
	}
	second, err := st.Create(ctx, "public", "a", sc, nil, table.UnsortedSortOrder, nil)
	if err != nil {
		t.Fatal(err)
	}
	if second.Location() == first.Location() {
		t.Fatalf("the new a shares the renamed table's directory %s", first.Location())
	}
	// Each loads from the catalog with its own directory and metadata.
	for name, want := range map[string]*table.Table{"a": second, "b": first} {
		got, err := st.Load(ctx, "public", name)
		if err != nil {
			t.Fatal(err)
		}
		if got.Location() != want.Location() || got.Metadata().TableUUID() != want.Metadata().TableUUID() {
			t.Errorf("%s: at %s (uuid %s), want %s (uuid %s)", name, got.Location(), got.Metadata().TableUUID(), want.Location(), want.Metadata().TableUUID())
		}
		if _, err := got.Scan().ToArrowTable(ctx); err != nil {
			t.Errorf("%s: iceberg-go scan: %v", name, err)
		}
	}
}
