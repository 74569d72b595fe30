package exec

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Sink takes rows in a table's Iceberg Arrow schema; the write log's
// transaction is one.
type Sink interface {
	Add(rec arrow.RecordBatch) error
}

// Target is the table an INSERT or COPY writes: its columns and the Arrow
// schema its Iceberg schema maps to.
type Target struct {
	Table    string
	Names    []string
	Types    []types.T
	Required []bool
	Arrow    *arrow.Schema
	// Loc formats timestamptz values in error details.
	Loc *time.Location
}

// Insert streams all rows of in to sink, batch by batch. in produces one
// column per table column, in table order, of the columns' types. The
// caller commits or aborts the sink's transaction, so the statement
// happens whole or not at all.
func Insert(ctx context.Context, sink Sink, t *Target, in Operator) (int64, error) {
	if err := in.Open(ctx); err != nil {
		return 0, err
	}
	defer in.Close()
	var n int64
	for {
		rec, err := in.Next(ctx)
		if err != nil {
			return n, err
		}
		if rec == nil {
			return n, nil
		}
		err = t.Write(sink, rec)
		n += rec.NumRows()
		rec.Release()
		if err != nil {
			return n, err
		}
	}
}

// Write checks NOT NULL columns, converts rec to the Iceberg Arrow schema
// and hands it to sink.
func (t *Target) Write(sink Sink, rec arrow.RecordBatch) error {
	for i, req := range t.Required {
		if req && rec.Column(i).NullN() > 0 {
			row := 0
			for rec.Column(i).IsValid(row) {
				row++
			}
			return &pgerr.Error{Code: pgerr.NotNullViolation,
				Message: fmt.Sprintf("null value in column %q of relation %q violates not-null constraint", t.Names[i], t.Table),
				Detail:  "Failing row contains " + t.describeRow(rec, row) + "."}
		}
	}
	cols := make([]arrow.Array, len(t.Types))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i := range t.Types {
		var err error
		if cols[i], err = ice.ToArrow(rec.Column(i), t.Types[i], t.Arrow.Field(i).Type); err != nil {
			return err
		}
	}
	out := array.NewRecordBatch(t.Arrow, cols, rec.NumRows())
	defer out.Release()
	return sink.Add(out)
}

// describeRow prints a row as PostgreSQL's error details do.
func (t *Target) describeRow(rec arrow.RecordBatch, row int) string {
	return types.DescribeRow(t.Types, rec.Columns(), row, t.Loc)
}
