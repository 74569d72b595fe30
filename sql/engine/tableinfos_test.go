package engine

import (
	"context"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/s3test"
)

// TestTableInfosMemo checks that the memo answers as tableInfo does, once
// per loaded table, that a caller's append to an answer's slices does not
// reach the next answer, and that another loaded table (after a commit)
// or another name gets its own.
func TestTableInfosMemo(t *testing.T) {
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
	tbl, err := st.Create(ctx, "public", "t", sc, nil, table.UnsortedSortOrder, nil)
	if err != nil {
		t.Fatal(err)
	}
	var c tableInfos
	a, err := c.get("public", "t", tbl)
	if err != nil {
		t.Fatal(err)
	}
	a.Columns = append(a.Columns, "x")
	a.Types = append(a.Types, a.Types[0])
	b, err := c.get("public", "t", tbl)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Columns) != 2 || len(b.Types) != 2 || b.Columns[1] != "k" {
		t.Fatalf("second answer %v %v: the first's append reached it", b.Columns, b.Types)
	}
	if c.m[tbl] == nil || len(c.m) != 1 {
		t.Fatalf("memo holds %d tables, want the one", len(c.m))
	}
	other, err := c.get("public", "u", tbl)
	if err != nil || other.Name != "u" {
		t.Fatalf("another name: %+v, %v", other, err)
	}

	tx := tbl.NewTransaction()
	if err := tx.SetProperties(iceberg.Properties{"x": "y"}); err != nil {
		t.Fatal(err)
	}
	tbl2, err := tx.Commit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.get("public", "t", tbl2); err != nil {
		t.Fatal(err)
	}
	if c.m[tbl2] == nil {
		t.Fatalf("a committed table was not looked up afresh")
	}
}
