package icetable

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/apache/iceberg-go/table/dv"
)

// TestPlanFilesCachedDeletes checks that planning from cached manifests
// matches the delete files Loam writes (v2 position delete files, v3
// deletion vectors, merged on a second delete) to data files exactly as
// iceberg-go's PlanFiles does, instead of falling back to it.
func TestPlanFilesCachedDeletes(t *testing.T) {
	ctx := context.Background()
	for _, version := range []string{"2", "3"} {
		t.Run("v"+version, func(t *testing.T) {
			st, sc := planStore(t)
			tbl, err := st.Create(ctx, "public", "t", sc, nil, table.UnsortedSortOrder, iceberg.Properties{"format-version": version})
			if err != nil {
				t.Fatal(err)
			}
			for from := 0; from < 400; from += 100 {
				tbl = appendRows(t, st, tbl, from, 100)
			}
			// del deletes positions of the files pick chooses, by the
			// files' order in the plan.
			del := func(pick func(i int) []uint64) {
				t.Helper()
				tasks, err := tbl.Scan().PlanFiles(ctx)
				if err != nil {
					t.Fatal(err)
				}
				slices.SortFunc(tasks, func(a, b table.FileScanTask) int { return cmpStr(a.File.FilePath(), b.File.FilePath()) })
				dels := Deletes{}
				for i, task := range tasks {
					if ps := pick(i); len(ps) > 0 {
						b := dv.NewRoaringPositionBitmap()
						for _, p := range ps {
							b.Set(p)
						}
						dels[task.File.FilePath()] = b
					}
				}
				if tbl, err = st.Delta(ctx, tbl, nil, dels, nil); err != nil {
					t.Fatal(err)
				}
			}
			check := func(when string) {
				t.Helper()
				got, err := st.planCached(ctx, tbl, nil)
				if err != nil {
					t.Fatalf("%s: planning from the cache: %v", when, err)
				}
				want, err := tbl.Scan().PlanFiles(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if g, w := deletesByFile(got), deletesByFile(want); !maps.EqualFunc(g, w, slices.Equal) {
					t.Fatalf("%s: cached planning matched %v, iceberg-go %v", when, g, w)
				}
			}
			check("no deletes")
			del(func(i int) []uint64 {
				if i < 2 {
					return []uint64{1, 5}
				}
				return nil
			})
			check("first delete")
			// The same file again (a second position delete file, or a
			// merged deletion vector), another file, and a whole file.
			del(func(i int) []uint64 {
				switch i {
				case 0, 2:
					return []uint64{7}
				case 3:
					all := make([]uint64, 100)
					for k := range all {
						all[k] = uint64(k)
					}
					return all
				}
				return nil
			})
			check("second delete")
			tbl = appendRows(t, st, tbl, 400, 100)
			check("rows after the deletes")
		})
	}
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// deletesByFile is each data file's delete files, by kind and path.
func deletesByFile(tasks []table.FileScanTask) map[string][]string {
	out := map[string][]string{}
	for _, task := range tasks {
		var ds []string
		for _, d := range task.DeleteFiles {
			ds = append(ds, "pos "+d.FilePath())
		}
		for _, d := range task.DeletionVectorFiles {
			ds = append(ds, "dv "+d.FilePath())
		}
		for _, d := range task.EqualityDeleteFiles {
			ds = append(ds, "eq "+d.FilePath())
		}
		slices.Sort(ds)
		out[task.File.FilePath()] = ds
	}
	return out
}
