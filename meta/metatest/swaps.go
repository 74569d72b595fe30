package metatest

import (
	"context"
	"testing"

	"github.com/loamdb/loam/meta"
)

// testSwapTablePointers: several pointers move together or not at all.
func (s *suite) testSwapTablePointers(t *testing.T) {
	ctx := context.Background()
	st, _ := s.open(t)
	must(t, "CreateNamespace", st.CreateNamespace(ctx, "app", nil))
	a := createTable(t, st, "app", "a").MetadataLocation()
	b := createTable(t, st, "app", "b").MetadataLocation()

	pointers := func() (string, string) {
		t.Helper()
		pa, err := st.TablePointer(ctx, "app", "a")
		must(t, "TablePointer a", err)
		pb, err := st.TablePointer(ctx, "app", "b")
		must(t, "TablePointer b", err)
		return pa, pb
	}

	must(t, "SwapTablePointers", st.SwapTablePointers(ctx, []meta.PointerSwap{
		{Namespace: "app", Name: "a", Old: a, New: a + ".1"},
		{Namespace: "app", Name: "b", Old: b, New: b + ".1"},
	}))
	if pa, pb := pointers(); pa != a+".1" || pb != b+".1" {
		t.Fatalf("after SwapTablePointers: a=%q b=%q", pa, pb)
	}

	// b's old pointer is stale: a, swapped first, must not move either.
	err := st.SwapTablePointers(ctx, []meta.PointerSwap{
		{Namespace: "app", Name: "a", Old: a + ".1", New: a + ".2"},
		{Namespace: "app", Name: "b", Old: b, New: b + ".2"},
	})
	wantErr(t, "SwapTablePointers with a stale pointer", err, meta.ErrConflict)
	if pa, pb := pointers(); pa != a+".1" || pb != b+".1" {
		t.Errorf("a lost SwapTablePointers moved pointers: a=%q b=%q", pa, pb)
	}

	err = st.SwapTablePointers(ctx, []meta.PointerSwap{
		{Namespace: "app", Name: "a", Old: a + ".1", New: a + ".2"},
		{Namespace: "app", Name: "gone", Old: "x", New: "y"},
	})
	wantErr(t, "SwapTablePointers with a missing table", err, meta.ErrNotFound)
	if pa, _ := pointers(); pa != a+".1" {
		t.Errorf("SwapTablePointers with a missing table moved a to %q", pa)
	}

	if err := st.SwapTablePointers(ctx, []meta.PointerSwap{
		{Namespace: "app", Name: "a", Old: a + ".1", New: a + ".2"},
		{Namespace: "app", Name: "a", Old: a + ".2", New: a + ".3"},
	}); err == nil {
		t.Error("SwapTablePointers naming a table twice succeeded")
	}
}
