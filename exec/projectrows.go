package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// evalRows evaluates exprs over rec a row at a time, every expression for
// one row before the next (expr.RowOrdered says when that matters): the
// columns, which the caller releases.
func evalRows(ec *expr.Ctx, exprs []expr.Expr, rec arrow.RecordBatch) ([]arrow.Array, error) {
	n := int(rec.NumRows())
	blds := make([]*expr.Builder, len(exprs))
	for k, e := range exprs {
		blds[k] = expr.NewBuilder(e.Type(), n)
	}
	fail := func(err error) ([]arrow.Array, error) {
		for _, b := range blds {
			b.Finish().Release()
		}
		return nil, err
	}
	for i := 0; i < n; i++ {
		row := rec.NewSlice(int64(i), int64(i+1))
		for k, e := range exprs {
			a, err := e.Eval(ec, row)
			if err != nil {
				row.Release()
				return fail(err)
			}
			blds[k].Append(types.DatumAt(e.Type(), a, 0))
			a.Release()
		}
		row.Release()
	}
	cols := make([]arrow.Array, len(exprs))
	for k, b := range blds {
		cols[k] = b.Finish()
	}
	return cols, nil
}
