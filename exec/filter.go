package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

type filterOp struct {
	in   Operator
	pred expr.Expr
	ec   *expr.Ctx
}

var _ Operator = (*filterOp)(nil)

// NewFilter keeps the rows for which pred is TRUE (not FALSE, not NULL).
func NewFilter(in Operator, pred expr.Expr, ec *expr.Ctx) Operator {
	return &filterOp{in: in, pred: pred, ec: ec}
}

func (f *filterOp) Types() []types.T               { return f.in.Types() }
func (f *filterOp) Open(ctx context.Context) error { return f.in.Open(ctx) }
func (f *filterOp) Close() error                   { return f.in.Close() }
func (f *filterOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		rec, err := f.in.Next(ctx)
		if rec == nil || err != nil {
			return nil, err
		}
		mask, err := f.pred.Eval(f.ec, rec)
		if err != nil {
			rec.Release()
			return nil, err
		}
		out, err := applyMask(ctx, rec, mask.(*array.Boolean))
		mask.Release()
		rec.Release()
		if err != nil {
			return nil, err
		}
		if out.NumRows() > 0 {
			return out, nil
		}
		out.Release()
	}
}

// applyMask keeps rows where mask is TRUE; NULL counts as FALSE.
func applyMask(ctx context.Context, rec arrow.RecordBatch, mask *array.Boolean) (arrow.RecordBatch, error) {
	if mask.NullN() == 0 {
		all := true
		for i := 0; i < mask.Len() && all; i++ {
			all = mask.Value(i)
		}
		if all {
			rec.Retain()
			return rec, nil
		}
	}
	for _, f := range rec.Schema().Fields() {
		if f.Type.ID() == arrow.INTERVAL_MONTH_DAY_NANO {
			// Arrow's filter has no kernel for month-day-nano intervals:
			// gather the kept rows by index instead.
			b := array.NewInt64Builder(memory.DefaultAllocator)
			defer b.Release()
			for i := 0; i < mask.Len(); i++ {
				if mask.IsValid(i) && mask.Value(i) {
					b.Append(int64(i))
				}
			}
			idx := b.NewArray()
			defer idx.Release()
			return expr.TakeRecord(ctx, rec, idx)
		}
	}
	return compute.FilterRecordBatch(ctx, rec, mask, compute.DefaultFilterOptions())
}
