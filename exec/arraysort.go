package exec

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// arrayRanks replaces array texts by their ranks in PostgreSQL's array
// order, for sorting: element by element by the element type's order, a
// NULL element after every value, and a shorter array before a longer one
// it begins. Their text would order {10} before {9}.
func arrayRanks(v arrow.Array, t types.T) (arrow.Array, error) {
	et := types.Of(t.Elem)
	parse := func(s string) ([]types.Datum, error) {
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
		return ds, nil
	}
	return textRanks(v, "array", parse, compareArrays)
}

// compareArrays orders two arrays' elements as PostgreSQL's array_cmp does.
func compareArrays(a, b []types.Datum) int {
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
