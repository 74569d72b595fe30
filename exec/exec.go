// Package exec runs query plans as operators that pull Arrow record
// batches. Expressions (package expr) are evaluated a column at a time.
package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/types"
)

// BatchSize is the number of rows operators aim to put in a batch.
const BatchSize = 8192

// Operator is a running plan node.
//
// Open prepares the operator and its inputs; no rows are read before the
// first Next. Next returns the next batch, or nil at the end (and on every
// call after). A returned batch belongs to the caller, who releases it;
// an operator never reuses a batch it returned. Close releases resources
// and may be called at any time after Open, once.
type Operator interface {
	Open(ctx context.Context) error
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Close() error
	// Types is the SQL type of each output column.
	Types() []types.T
}

// Schema builds the Arrow schema of a batch with the given column types.
func Schema(ts []types.T) *arrow.Schema {
	fields := make([]arrow.Field, len(ts))
	for i, t := range ts {
		fields[i] = arrow.Field{Name: colName(i), Type: t.Arrow(), Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

func colName(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return "c" + digits[i:i+1]
	}
	return colName(i/10) + digits[i%10:i%10+1]
}
