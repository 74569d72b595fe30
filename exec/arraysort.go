package exec

import (
	"fmt"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/types"
)

// arrayRanks replaces array texts by their ranks in PostgreSQL's array
// order, for sorting: element by element by the element type's order, a
// NULL element after every value, and a shorter array before a longer one
// it begins. Their text would order {10} before {9}.
func arrayRanks(v arrow.Array, t types.T) (arrow.Array, error) {
	sa, ok := v.(*array.String)
	if !ok {
		return nil, fmt.Errorf("sort: array column is %s, not text", v.DataType())
	}
	et := types.Of(t.Elem)
	distinct := map[string]int{}
	var vals [][]types.Datum
	for i := 0; i < sa.Len(); i++ {
		if sa.IsNull(i) {
			continue
		}
		s := sa.Value(i)
		if _, ok := distinct[s]; ok {
			continue
		}
		elems, null, err := types.SplitArrayText(s)
		if err != nil {
			return nil, err
		}
		ds := make([]types.Datum, len(elems))
		for k, e := range elems {
			if null[k] {
				ds[k] = types.NullOf(et)
				continue
			}
			if ds[k], err = types.ParseText(et, e, time.UTC); err != nil {
				return nil, err
			}
		}
		distinct[s] = len(vals)
		vals = append(vals, ds)
	}
	cmpArrays := func(a, b []types.Datum) int {
		for k := 0; k < len(a) && k < len(b); k++ {
			switch x, y := a[k], b[k]; {
			case x.Null && y.Null:
			case x.Null:
				return 1
			case y.Null:
				return -1
			default:
				if c := expr.CompareDatums(x, y); c != 0 {
					return c
				}
			}
		}
		return len(a) - len(b)
	}
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return cmpArrays(vals[order[a]], vals[order[b]]) < 0 })
	rank := make([]int64, len(vals))
	for i, o := range order {
		if i > 0 && cmpArrays(vals[o], vals[order[i-1]]) == 0 {
			rank[o] = rank[order[i-1]]
		} else {
			rank[o] = int64(i)
		}
	}
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(sa.Len())
	for i := 0; i < sa.Len(); i++ {
		if sa.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.UnsafeAppend(rank[distinct[sa.Value(i)]])
	}
	return b.NewArray(), nil
}
