package icetable

import (
	"context"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
)

// A Delta committed on a table another snapshot moved meanwhile (a stale
// handle) is retried on the fresh table: on v3 its merged deletion vector
// must replace the one the fresh snapshot has, a removal iceberg-go does
// not replay on a conflict, so Delta plans again.
func TestDeltaRetriesOnStaleTable(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{"2", "3"} {
		t.Run("v"+version, func(t *testing.T) {
			st, sc := planStore(t)
			tbl, err := st.Create(ctx, "public", "t", sc, nil, table.UnsortedSortOrder, iceberg.Properties{"format-version": version})
			if err != nil {
				t.Fatal(err)
			}
			tbl = appendRows(t, st, tbl, 0, 100)
			tasks, err := tbl.Scan().PlanFiles(ctx)
			if err != nil || len(tasks) != 1 {
				t.Fatalf("plan: %d tasks, %v", len(tasks), err)
			}
			path := tasks[0].File.FilePath()
			del := func(ps ...uint64) Deletes {
				b := dv.NewRoaringPositionBitmap()
				for _, p := range ps {
					b.Set(p)
				}
				return Deletes{path: b}
			}
			if tbl, err = st.Delta(ctx, tbl, nil, del(1, 2), nil); err != nil {
				t.Fatal(err)
			}
			stale := tbl
			appendRows(t, st, tbl, 100, 100) // another snapshot
			nt, err := st.Delta(ctx, stale, nil, del(3), nil)
			if err != nil {
				t.Fatalf("delta on a stale table: %v", err)
			}
			at, err := nt.Scan().ToArrowTable(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer at.Release()
			if at.NumRows() != 197 {
				t.Fatalf("iceberg-go reads %d rows, want 197 (the other commit's 100 and 97)", at.NumRows())
			}
		})
	}
}
