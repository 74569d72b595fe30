package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/types"
)

type widenOp struct {
	in        Operator
	positions []int
	ts        []types.T
}

var _ Operator = (*widenOp)(nil)

// NewWiden places its input's columns at positions of a wider row and
// fills the others with NULLs. A scan reads only the columns a query uses
// while expressions keep addressing table columns by their position.
func NewWiden(in Operator, positions []int, all []types.T) Operator {
	return &widenOp{in: in, positions: positions, ts: all}
}

func (w *widenOp) Types() []types.T               { return w.ts }
func (w *widenOp) Open(ctx context.Context) error { return w.in.Open(ctx) }
func (w *widenOp) Close() error                   { return w.in.Close() }
func (w *widenOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := w.in.Next(ctx)
	if rec == nil || err != nil {
		return nil, err
	}
	defer rec.Release()
	return WidenBatch(rec, w.positions, w.ts), nil
}

// WidenBatch places rec's columns at positions of a row of types all,
// filling the other columns with NULLs.
func WidenBatch(rec arrow.RecordBatch, positions []int, all []types.T) arrow.RecordBatch {
	n := int(rec.NumRows())
	cols := make([]arrow.Array, len(all))
	for i, p := range positions {
		cols[p] = rec.Column(i)
		cols[p].Retain()
	}
	for i := range cols {
		if cols[i] == nil {
			cols[i] = array.MakeArrayOfNull(memory.DefaultAllocator, all[i].Arrow(), n)
		}
	}
	out := array.NewRecordBatch(Schema(all), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return out
}

// EvalConst evaluates an expression that reads no columns.
func EvalConst(ec *expr.Ctx, e expr.Expr) (types.Datum, error) {
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	a, err := e.Eval(ec, one)
	if err != nil {
		return types.Datum{}, err
	}
	defer a.Release()
	return types.DatumAt(e.Type(), a, 0), nil
}
