package icetable

import (
	"context"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// BenchmarkPlanFiles plans a point filter over a table of one snapshot
// per append (four manifests of one file each): iceberg-go's PlanFiles,
// which reads and parses every manifest each time, against planFiles
// from the manifest cache.
//
//	go test -run '^$' -bench PlanFiles -benchmem ./storage/icetable/
func BenchmarkPlanFiles(b *testing.B) {
	ctx := context.Background()
	st, sc := planStore(b)
	tbl, err := st.Create(ctx, "public", "t", sc, nil, table.UnsortedSortOrder, nil)
	if err != nil {
		b.Fatal(err)
	}
	for from := 0; from < 400; from += 100 {
		tbl = appendRows(b, st, tbl, from, 100)
	}
	filter := iceberg.EqualTo(iceberg.Reference("id"), int64(150))
	b.Run("iceberg-go", func(b *testing.B) {
		for b.Loop() {
			tasks, err := tbl.Scan(table.WithRowFilter(filter)).PlanFiles(ctx)
			if err != nil || len(tasks) != 1 {
				b.Fatal(len(tasks), err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			tasks, err := st.planFiles(ctx, tbl, filter, nil)
			if err != nil || len(tasks) != 1 {
				b.Fatal(len(tasks), err)
			}
		}
	})
}
