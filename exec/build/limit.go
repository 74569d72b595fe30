package build

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// runLimits evaluates a Limit's parameter-reading LIMIT and OFFSET with
// the execution's values, as PostgreSQL's executor does when the node
// starts: NULL is no limit (no offset), a negative value fails.
func runLimits(l *physical.Limit, ec *expr.Ctx) (limit, offset int64, err error) {
	limit, offset = l.Limit, l.Offset
	eval := func(e expr.Expr, code, what string) (int64, bool, error) {
		one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
		defer one.Release()
		a, err := e.Eval(ec, one)
		if err != nil {
			return 0, false, err
		}
		defer a.Release()
		d := types.DatumAt(e.Type(), a, 0)
		if d.Null {
			return 0, false, nil
		}
		if d.I < 0 {
			return 0, false, pgerr.New(code, "%s must not be negative", what)
		}
		return d.I, true, nil
	}
	if l.Count != nil {
		v, ok, err := eval(l.Count, pgerr.InvalidRowCountInLimit, "LIMIT")
		if err != nil {
			return 0, 0, err
		}
		limit = -1
		if ok {
			limit = v
		}
	}
	if l.Skip != nil {
		v, _, err := eval(l.Skip, pgerr.InvalidRowCountInResultOffset, "OFFSET")
		if err != nil {
			return 0, 0, err
		}
		offset = v
	}
	return limit, offset, nil
}
