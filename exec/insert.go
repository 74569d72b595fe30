package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/exec/types"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/icetable"
)

// Insert appends all rows of in to a table in one commit: the statement
// happens whole or not at all. in produces one column per table column, in
// table order, already of the columns' types.
func Insert(ctx context.Context, store *icetable.Store, t *table.Table, colTypes []types.T, required []bool, names []string, in Operator) (int64, error) {
	if err := in.Open(ctx); err != nil {
		return 0, err
	}
	defer in.Close()
	all, err := Drain(ctx, in)
	if err != nil {
		return 0, err
	}
	if all == nil {
		return 0, nil
	}
	defer all.Release()
	for i, req := range required {
		if req && all.Column(i).NullN() > 0 {
			return 0, &pgerr.Error{Code: pgerr.NotNullViolation,
				Message: fmt.Sprintf("null value in column %q of relation %q violates not-null constraint", names[i], t.Identifier()[len(t.Identifier())-1])}
		}
	}
	target, err := table.SchemaToArrowSchema(t.Schema(), nil, true, false)
	if err != nil {
		return 0, err
	}
	cols := make([]arrow.Array, len(colTypes))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range colTypes {
		if cols[i], err = ice.ToArrow(all.Column(i), colTypes[i], target.Field(i).Type); err != nil {
			return 0, err
		}
	}
	rec := array.NewRecordBatch(target, cols, all.NumRows())
	defer rec.Release()
	if _, err := store.Append(ctx, t, rec, iceberg.Properties{}); err != nil {
		return 0, err
	}
	return all.NumRows(), nil
}
