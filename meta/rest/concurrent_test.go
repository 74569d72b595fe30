package rest_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/meta/rest"
)

// TestConcurrentCommits: clients appending to one external table at once
// all land — each commit either swaps the pointer or gets a 409 and the
// client retries on the new metadata; no append is lost.
func TestConcurrentCommits(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, rest.Options{})
	must(t, f.st.CreateNamespace(ctx, "app", nil))
	c := f.client(t)
	// iceberg-go retries a refused commit only when the table asks it to.
	if _, err := c.CreateTable(ctx, table.Identifier{"app", "t"}, testSchema,
		catalog.WithProperties(iceberg.Properties{"commit.retry.num-retries": "10", "commit.retry.min-wait-ms": "5"})); err != nil {
		t.Fatal(err)
	}
	const n = 4
	// Every client loads the same metadata first, so all but one commit
	// on a stale base.
	tbls := make([]*table.Table, n)
	for i := range tbls {
		tb, err := c.LoadTable(ctx, table.Identifier{"app", "t"})
		if err != nil {
			t.Fatal(err)
		}
		tbls[i] = tb
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = appendRows(ctx, t, tbls[i], []int64{int64(i)}, []string{"x"})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("append %d: %v", i, err)
		}
	}
	tb, err := c.LoadTable(ctx, table.Identifier{"app", "t"})
	if err != nil {
		t.Fatal(err)
	}
	if got := scanIDs(ctx, t, tb); !slices.Equal(got, []int64{0, 1, 2, 3}) {
		t.Errorf("after concurrent appends: %v, want [0 1 2 3]", got)
	}
}
