package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

type valuesOp struct {
	rows [][]expr.Expr
	ts   []types.T
	ec   *expr.Ctx
	done bool
}

var _ Operator = (*valuesOp)(nil)

// NewValues produces the rows of a VALUES list (or the single row of a
// SELECT without FROM); each expression is coerced to its column's type.
func NewValues(rows [][]expr.Expr, ts []types.T, ec *expr.Ctx) Operator {
	return &valuesOp{rows: rows, ts: ts, ec: ec}
}

func (v *valuesOp) Types() []types.T           { return v.ts }
func (v *valuesOp) Open(context.Context) error { return nil }
func (v *valuesOp) Close() error               { return nil }
func (v *valuesOp) Next(context.Context) (arrow.RecordBatch, error) {
	if v.done {
		return nil, nil
	}
	v.done = true
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	builders := make([]*expr.Builder, len(v.ts))
	for i, t := range v.ts {
		builders[i] = expr.NewBuilder(t, len(v.rows))
	}
	for _, row := range v.rows {
		for i, e := range row {
			// Literals and bound parameters go straight into the builder.
			if d, ok := expr.IsConst(e); ok && (d.Null || d.T.Kind == v.ts[i].Kind) {
				builders[i].Append(d)
				continue
			}
			a, err := e.Eval(v.ec, one)
			if err != nil {
				for _, b := range builders {
					b.Finish().Release()
				}
				return nil, err
			}
			builders[i].Append(types.DatumAt(v.ts[i], a, 0))
			a.Release()
		}
	}
	cols := make([]arrow.Array, len(v.ts))
	for i, b := range builders {
		cols[i] = b.Finish()
	}
	out := array.NewRecordBatch(Schema(v.ts), cols, int64(len(v.rows)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
