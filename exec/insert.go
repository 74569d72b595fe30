package exec

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
)

// Target is the table an INSERT or COPY writes: its name, the branch
// ("t@b"), its columns and the Arrow schema its Iceberg schema maps to.
type Target struct {
	NS, Table string
	// Ref is the branch written; "" is main.
	Ref      string
	Names    []string
	Types    []types.T
	Required []bool
	Arrow    *arrow.Schema
	// Loc formats timestamptz values in error details.
	Loc *time.Location
	// Conflict, when set, makes the INSERT an upsert (upsert.go): ON
	// CONFLICT, or a merge = 'last_non_null' table.
	Conflict *Conflict
	// Checks are the table's CHECK constraints (checks.go), evaluated
	// with Ctx.
	Checks []Check
	Ctx    *expr.Ctx
}

// open opens the statement's writer of the table, which the sink of
// stmt (INSERT, UPDATE or DELETE, MERGE) finds in its execution context.
func (t *Target) open(ctx context.Context, ec *expr.Ctx, stmt string) (link.RowWriter, error) {
	if ec == nil || ec.Writer == nil {
		return nil, fmt.Errorf("exec: %s run without a writer in its execution context", stmt)
	}
	return ec.Writer.Table(ctx, t.NS, t.Table, t.Ref)
}

// Write checks NOT NULL columns, converts rec (one column per table
// column, in table order, of the columns' types) to the Iceberg Arrow
// schema and hands it to w.
func (t *Target) Write(w link.RowWriter, rec arrow.RecordBatch) error {
	out, err := t.Convert(rec)
	if err != nil {
		return err
	}
	defer out.Release()
	return t.keyDetail(w.Add(out), rec)
}

// Convert checks NOT NULL columns and converts rec (one column per table
// column, in table order, of the columns' types) to the Iceberg Arrow
// schema.
func (t *Target) Convert(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	for i, req := range t.Required {
		if req && rec.Column(i).NullN() > 0 {
			row := 0
			for rec.Column(i).IsValid(row) {
				row++
			}
			return nil, &pgerr.Error{Code: pgerr.NotNullViolation,
				Message: fmt.Sprintf("null value in column %q of relation %q violates not-null constraint", t.Names[i], t.Table),
				Detail:  "Failing row contains " + t.describeRow(rec, row) + "."}
		}
	}
	if err := t.check(rec); err != nil {
		return nil, err
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
			return nil, err
		}
	}
	return array.NewRecordBatch(t.Arrow, cols, rec.NumRows()), nil
}

// describeRow prints a row as PostgreSQL's error details do.
func (t *Target) describeRow(rec arrow.RecordBatch, row int) string {
	return types.DescribeRow(t.Types, rec.Columns(), row, t.Loc)
}
