package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

type widenOp struct {
	in        Operator
	positions []int
	ts        []types.T
	// nulls keeps the all-NULL column of each unread column for the batch
	// length last seen: arrays are immutable, so batches share them.
	nulls  map[nullKey]arrow.Array
	schema *arrow.Schema
}

type nullKey struct {
	col, n int
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
func (w *widenOp) Close() error {
	for _, a := range w.nulls {
		a.Release()
	}
	w.nulls = nil
	return w.in.Close()
}
func (w *widenOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := w.in.Next(ctx)
	if rec == nil || err != nil {
		return nil, err
	}
	defer rec.Release()
	n := int(rec.NumRows())
	if w.nulls == nil || len(w.nulls) > 4*len(w.ts) {
		// Batch lengths vary little; start over when they do.
		for _, old := range w.nulls {
			old.Release()
		}
		w.nulls = map[nullKey]arrow.Array{}
	}
	cols := make([]arrow.Array, len(w.ts))
	for i, p := range w.positions {
		cols[p] = rec.Column(i)
	}
	for i := range cols {
		if cols[i] != nil {
			continue
		}
		k := nullKey{i, n}
		a, ok := w.nulls[k]
		if !ok {
			a = array.MakeArrayOfNull(memory.DefaultAllocator, w.ts[i].Arrow(), n)
			w.nulls[k] = a
		}
		cols[i] = a
	}
	if w.schema == nil {
		w.schema = Schema(w.ts)
	}
	for _, c := range cols {
		if IsDict(c) {
			return array.NewRecordBatch(schemaOf(cols), cols, int64(n)), nil
		}
	}
	return array.NewRecordBatch(w.schema, cols, int64(n)), nil
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
