package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/loamdb/loam/types"
)

// selCmp is `column op constant` over a fixed-width or text column.
type selCmp struct {
	op   CmpOp
	col  int
	kind types.Kind
	c    types.Datum
	// slow evaluates the comparison when the column is not laid out as
	// its type's kernel expects (another encoding of the values).
	slow selNode
}

// compileCmp compiles `column op constant` (either way round) for the
// types with a kernel; nil for anything else.
func compileCmp(e *Compare) selNode {
	col, lok := e.L.(*Col)
	k, rok := e.R.(*Const)
	op := e.Op
	if !lok || !rok {
		col, lok = e.R.(*Col)
		k, rok = e.L.(*Const)
		op = op.Flip()
	}
	if !lok || !rok || col.T.Kind != k.D.T.Kind && !(textKind(col.T.Kind) && textKind(k.D.T.Kind)) && !k.D.Null {
		return nil
	}
	if k.D.Null {
		return selConst(false) // a comparison with NULL is NULL
	}
	switch col.T.Kind {
	case types.Int2, types.Int4, types.Date, types.Int8, types.OID, types.Time, types.Timestamp, types.TimestampTZ, types.Text, types.Varchar, types.Name:
	case types.Float4, types.Float8:
		if math.IsNaN(k.D.F) {
			return nil
		}
	default:
		return nil
	}
	return &selCmp{op: op, col: col.Idx, kind: col.T.Kind, c: k.D, slow: &selEval{e: e}}
}

func (k *selCmp) sel(c *Ctx, b arrow.RecordBatch, sel []int32, out []int32) ([]int32, error) {
	a := b.Column(k.col)
	var res []int32
	switch k.kind {
	case types.Int2:
		v, ok := fixedValues[int16](a, arrow.INT16)
		if !ok {
			return k.slow.sel(c, b, sel, out)
		}
		res = selOrdered(k.op, v, int16(k.c.I), sel, out)
	case types.Int4, types.Date:
		v, ok := fixedValues[int32](a, arrow.INT32, arrow.DATE32)
		if !ok {
			return k.slow.sel(c, b, sel, out)
		}
		res = selOrdered(k.op, v, int32(k.c.I), sel, out)
	case types.Int8, types.OID, types.Time, types.Timestamp, types.TimestampTZ:
		v, ok := fixedValues[int64](a, arrow.INT64, arrow.TIME64, arrow.TIMESTAMP)
		if !ok {
			return k.slow.sel(c, b, sel, out)
		}
		res = selOrdered(k.op, v, k.c.I, sel, out)
	case types.Float4:
		v, ok := fixedValues[float32](a, arrow.FLOAT32)
		if !ok {
			return k.slow.sel(c, b, sel, out)
		}
		res = selFloat(k.op, v, float32(k.c.F), sel, out)
	case types.Float8:
		v, ok := fixedValues[float64](a, arrow.FLOAT64)
		if !ok {
			return k.slow.sel(c, b, sel, out)
		}
		res = selFloat(k.op, v, k.c.F, sel, out)
	default:
		s, ok := a.(*array.String)
		if !ok {
			return k.slow.sel(c, b, sel, out)
		}
		res = selString(k.op, s, k.c.S, sel, out)
	}
	return dropNulls(a, res), nil
}

// fixedValues is a's values when a is of one of the Arrow types ids.
func fixedValues[T int16 | int32 | int64 | float32 | float64](a arrow.Array, ids ...arrow.Type) ([]T, bool) {
	for _, id := range ids {
		if a.DataType().ID() == id {
			return arrow.GetValues[T](a.Data(), 1), true
		}
	}
	return nil, false
}

// dropNulls removes the rows where a is NULL from rows: the kernels
// compare whatever lies under a NULL.
func dropNulls(a arrow.Array, rows []int32) []int32 {
	if a.NullN() == 0 {
		return rows
	}
	bits, off := a.NullBitmapBytes(), a.Data().Offset()
	k := 0
	for _, r := range rows {
		rows[k] = r
		if bitutil.BitIsSet(bits, off+int(r)) {
			k++
		}
	}
	return rows[:k]
}

// room is out (empty) resliced to n slots, made anew if its array is too
// small.
func room(out []int32, n int) []int32 {
	if cap(out) < n {
		return make([]int32, n)
	}
	return out[:n]
}

// textKind reports the kinds whose values compare as their bytes.
func textKind(k types.Kind) bool {
	return k == types.Text || k == types.Varchar || k == types.Name
}
