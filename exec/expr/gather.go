package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// UsedCols reports which of a batch's ncols columns the expressions read.
// An expression of a shape it cannot look into counts as reading them
// all.
func UsedCols(es []Expr, ncols int) []bool {
	used := make([]bool, ncols)
	all := false
	for _, e := range es {
		Rewrite(e, func(x Expr) (Expr, bool) {
			switch x := x.(type) {
			case *Col:
				if x.Idx < ncols {
					used[x.Idx] = true
				}
				return x, true
			case *Const, *OuterRef, ParamRef:
				return x, true
			case *Compare, *Arith, *BoolOp, *Not, *IsNull, *IsBool, *In, *Like, *Func, *TimeArith,
				*IntervalNeg, *RegexMatch, *MinMax, *Distinct, *Coalesce, *Case, *Cast, *FloorDiv, *Neg:
				return nil, false // Rewrite looks into these
			}
			all = true
			return x, true
		})
	}
	if all {
		for i := range used {
			used[i] = true
		}
	}
	return used
}

// Gather is the batch of b's rows sel lists, in order, with the columns
// used marks (nil: all); the others are left out as NULL-typed columns
// that cost nothing, for expressions that do not read them.
func Gather(b arrow.RecordBatch, sel []int32, used []bool) (arrow.RecordBatch, error) {
	idx := SelIndexes(sel)
	defer idx.Release()
	// (idx serves the layouts gatherArray leaves to Arrow's take.)
	n := len(sel)
	fields := b.Schema().Fields()
	cols := make([]arrow.Array, len(fields))
	defer release(cols)
	for i, c := range b.Columns() {
		if used != nil && !used[i] {
			fields[i] = arrow.Field{Name: fields[i].Name, Type: arrow.Null, Nullable: true}
			cols[i] = array.NewNull(n)
			continue
		}
		g := gatherArray(c, sel)
		if g == nil {
			var err error
			if g, err = TakeArray(context.Background(), c, idx); err != nil {
				return nil, err
			}
		}
		cols[i] = g
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n)), nil
}

// SelIndexes is an Int32 array over sel's memory (no copy), as Arrow's
// take kernels want their indices; sel must outlive it.
func SelIndexes(sel []int32) arrow.Array {
	buf := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(sel))
	data := array.NewData(arrow.PrimitiveTypes.Int32, len(sel), []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}
