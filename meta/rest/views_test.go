package rest_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/view"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/meta/rest"
)

// TestViews: Loam's views are listed and loaded as Iceberg views; a view
// made through the catalog is one Loam reads.
func TestViews(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, rest.Options{})
	must(t, f.st.CreateNamespace(ctx, "app", nil))
	must(t, f.st.CreateView(ctx, "app", "ids", meta.View{SQL: "SELECT 1 AS id", Schema: testSchema}))
	c := f.client(t)

	if got := collect(t, c.ListViews(ctx, table.Identifier{"app"})); !slices.Equal(got, []string{"app.ids"}) {
		t.Errorf("ListViews = %v", got)
	}
	v, err := c.LoadView(ctx, table.Identifier{"app", "ids"})
	if err != nil {
		t.Fatal(err)
	}
	if reps := v.CurrentVersion().Representations; len(reps) != 1 || reps[0].Sql != "SELECT 1 AS id" || reps[0].Dialect != meta.ViewDialect {
		t.Errorf("loaded view representations = %+v", reps)
	}
	if ok, err := c.CheckViewExists(ctx, table.Identifier{"app", "ids"}); !ok || err != nil {
		t.Errorf("CheckViewExists = %v, %v", ok, err)
	}

	ver, err := view.NewVersion(1, testSchema.ID, view.Representations{view.NewRepresentation("SELECT 2 AS id", "postgresql")}, table.Identifier{"app"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateView(ctx, table.Identifier{"app", "twos"}, ver, testSchema); err != nil {
		t.Fatalf("CreateView: %v", err)
	}
	got, err := f.st.View(ctx, "app", "twos")
	if err != nil || got.SQL != "SELECT 2 AS id" {
		t.Errorf("the store's view = %+v, %v", got, err)
	}
	if _, err := c.CreateView(ctx, table.Identifier{"app", "twos"}, ver, testSchema); !errors.Is(err, catalog.ErrViewAlreadyExists) {
		t.Errorf("creating twos twice: %v", err)
	}

	// Replace: a new version whose SQL Loam then runs.
	ver2, err := view.NewVersion(2, testSchema.ID, view.Representations{view.NewRepresentation("SELECT 3 AS id", "postgresql")}, table.Identifier{"app"})
	if err != nil {
		t.Fatal(err)
	}
	created, err := c.LoadView(ctx, table.Identifier{"app", "twos"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateView(ctx, table.Identifier{"app", "twos"},
		[]view.Requirement{view.AssertViewUUID(created.Metadata().ViewUUID())},
		[]view.Update{view.NewAddViewVersionUpdate(ver2), view.NewSetCurrentVersionUpdate(-1)}); err != nil {
		t.Fatalf("UpdateView: %v", err)
	}
	if got, err := f.st.View(ctx, "app", "twos"); err != nil || got.SQL != "SELECT 3 AS id" {
		t.Errorf("the store's view after replace = %+v, %v", got, err)
	}
	if _, err := c.UpdateView(ctx, table.Identifier{"app", "twos"},
		[]view.Requirement{view.AssertViewUUID(v.Metadata().ViewUUID())}, nil); err == nil {
		t.Error("a replace with another view's UUID succeeded")
	}

	if _, err := c.RenameView(ctx, table.Identifier{"app", "twos"}, table.Identifier{"app", "deux"}); err != nil {
		t.Fatalf("RenameView: %v", err)
	}
	if got, err := f.st.View(ctx, "app", "deux"); err != nil || got.SQL != "SELECT 3 AS id" {
		t.Errorf("renamed view = %+v, %v", got, err)
	}
	if err := c.DropView(ctx, table.Identifier{"app", "deux"}); err != nil {
		t.Fatal(err)
	}
	if err := c.DropView(ctx, table.Identifier{"app", "deux"}); !errors.Is(err, catalog.ErrNoSuchView) {
		t.Errorf("dropping a dropped view: %v", err)
	}
}
