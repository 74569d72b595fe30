package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TakeArray gathers a's values at the indices idx. Arrow's Take has no
// kernel for month-day-nano intervals, so those are gathered here.
func TakeArray(ctx context.Context, a, idx arrow.Array) (arrow.Array, error) {
	if iv, ok := a.(*array.MonthDayNanoInterval); ok {
		return takeIntervals(iv, idx), nil
	}
	return compute.TakeArray(ctx, a, idx)
}

// TakeRecord gathers rows of every column of a batch (see TakeArray).
func TakeRecord(ctx context.Context, rec arrow.RecordBatch, idx arrow.Array) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	defer release(cols)
	for i, c := range rec.Columns() {
		res, err := TakeArray(ctx, c, idx)
		if err != nil {
			return nil, err
		}
		cols[i] = res
	}
	return array.NewRecordBatch(rec.Schema(), cols, int64(idx.Len())), nil
}

func takeIntervals(a *array.MonthDayNanoInterval, idx arrow.Array) arrow.Array {
	b := array.NewMonthDayNanoIntervalBuilder(memory.DefaultAllocator)
	b.Reserve(idx.Len())
	for k := 0; k < idx.Len(); k++ {
		if idx.IsNull(k) {
			b.AppendNull()
			continue
		}
		var i int
		switch ix := idx.(type) {
		case *array.Int64:
			i = int(ix.Value(k))
		case *array.Uint64:
			i = int(ix.Value(k))
		case *array.Int32:
			i = int(ix.Value(k))
		case *array.Uint32:
			i = int(ix.Value(k))
		}
		if a.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(a.Value(i))
		}
	}
	return b.NewArray()
}
