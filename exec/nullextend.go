package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// unmatched lists the rows whose matched flag is false.
func unmatched(matched []bool) []int32 {
	var rows []int32
	for r, ok := range matched {
		if !ok {
			rows = append(rows, int32(r))
		}
	}
	return rows
}

// nullExtended is what an outer join adds for rows of one side that
// matched nothing: those rows of rec, with NULLs for the other side's
// columns (other); sideFirst says rec's columns come first. nil when rows
// is empty.
func nullExtended(ctx context.Context, schema *arrow.Schema, rec arrow.RecordBatch, rows []int32, other []types.T, sideFirst bool) (arrow.RecordBatch, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	mine, err := takeCols(ctx, rec, rows)
	if err != nil {
		return nil, err
	}
	nulls := make([]arrow.Array, len(other))
	for i, t := range other {
		nulls[i] = array.MakeArrayOfNull(memory.DefaultAllocator, t.Arrow(), len(rows))
	}
	cols := append(mine, nulls...)
	if !sideFirst {
		cols = append(nulls, mine...)
	}
	out := array.NewRecordBatch(schema, cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
