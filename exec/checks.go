package exec

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
)

// Check is a CHECK constraint of a table written: its name and its
// expression over the rows written (one column per table column).
type Check struct {
	Name string
	E    expr.Expr
}

// check refuses rec when a CHECK constraint is false for one of its rows
// (NULL passes, as in PostgreSQL).
func (t *Target) check(rec arrow.RecordBatch) error {
	for _, c := range t.Checks {
		v, err := c.E.Eval(t.Ctx, rec)
		if err != nil {
			return err
		}
		b, ok := v.(*array.Boolean)
		if !ok {
			v.Release()
			return fmt.Errorf("check constraint %q: got %s, not boolean", c.Name, v.DataType())
		}
		for row := 0; row < b.Len(); row++ {
			if b.IsValid(row) && !b.Value(row) {
				v.Release()
				return &pgerr.Error{Code: pgerr.CheckViolation,
					Message: fmt.Sprintf("new row for relation %q violates check constraint %q", t.Table, c.Name),
					Detail:  "Failing row contains " + t.describeRow(rec, row) + "."}
			}
		}
		v.Release()
	}
	return nil
}
