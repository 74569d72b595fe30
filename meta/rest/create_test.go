package rest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/meta/rest"
)

// TestStagedCreate: a create with staged updates (stage-create, then a
// commit asserting the create) makes an external table, as Spark's CREATE
// TABLE AS does.
func TestStagedCreate(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, rest.Options{})
	must(t, f.st.CreateNamespace(ctx, "app", nil))
	c := f.client(t)

	tbl, err := c.CreateTable(ctx, table.Identifier{"app", "staged"}, testSchema,
		catalog.WithStagedUpdates(table.NewSetPropertiesUpdate(iceberg.Properties{"made": "staged"})))
	if err != nil {
		t.Fatalf("staged create: %v", err)
	}
	if tbl.Properties()["made"] != "staged" {
		t.Errorf("staged table properties = %v", tbl.Properties())
	}
	ptr, err := f.st.TablePointer(ctx, "app", "staged")
	if err != nil || ptr != tbl.MetadataLocation() {
		t.Errorf("pointer = %q, %v; want %q", ptr, err, tbl.MetadataLocation())
	}
	if ts, err := f.st.TableSettings(ctx, "app", "staged"); err != nil || ts.Writer != meta.WriterExternal {
		t.Errorf("settings = %+v, %v; want writer external", ts, err)
	}
	if tbl, err = appendRows(ctx, t, tbl, []int64{7}, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := scanIDs(ctx, t, tbl); !slices.Equal(got, []int64{7}) {
		t.Errorf("scan = %v", got)
	}
	if _, err := c.CreateTable(ctx, table.Identifier{"app", "staged"}, testSchema,
		catalog.WithStagedUpdates(table.NewSetPropertiesUpdate(iceberg.Properties{"made": "again"}))); err == nil {
		t.Error("a second staged create of the same table succeeded")
	}
}
