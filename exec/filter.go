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
	in   SelOperator
	pred *expr.Selector
	ec   *expr.Ctx
	sel  []int32 // the selection NextSel last returned
}

var _ SelOperator = (*filterOp)(nil)

// NewFilter keeps the rows for which pred is TRUE (not FALSE, not NULL).
// It narrows its input's selection rather than copying rows: NextSel
// passes the batch on with the rows kept, and Next gathers them.
func NewFilter(in Operator, pred expr.Expr, ec *expr.Ctx) Operator {
	return &filterOp{in: Selecting(in), pred: expr.NewSelector(pred), ec: ec}
}

func (f *filterOp) Types() []types.T               { return f.in.Types() }
func (f *filterOp) Open(ctx context.Context) error { return f.in.Open(ctx) }
func (f *filterOp) Close() error                   { return f.in.Close() }
func (f *filterOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return NextCompacted(ctx, f)
}

func (f *filterOp) NextSel(ctx context.Context) (arrow.RecordBatch, []int32, error) {
	for {
		rec, sel, err := f.in.NextSel(ctx)
		if rec == nil || err != nil {
			return nil, nil, err
		}
		f.sel, err = f.pred.Select(f.ec, rec, sel, f.sel)
		if err != nil {
			rec.Release()
			return nil, nil, err
		}
		switch len(f.sel) {
		case 0:
			rec.Release()
			continue
		case int(rec.NumRows()):
			return rec, nil, nil
		}
		return rec, f.sel, nil
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
