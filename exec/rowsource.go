package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// RowFunc yields the rows of a generated table, each a Datum per column.
type RowFunc func(ctx context.Context) ([][]types.Datum, error)

type rowSource struct {
	ts   []types.T
	gen  RowFunc
	rows [][]types.Datum
	at   int
}

var _ Operator = (*rowSource)(nil)

// NewRowSource produces the rows gen returns when the operator opens:
// virtual tables (pg_catalog, information_schema) read the catalog at
// query time this way. Datums must have the column's kind (or be NULL).
func NewRowSource(ts []types.T, gen RowFunc) Operator {
	return &rowSource{ts: ts, gen: gen}
}

func (r *rowSource) Types() []types.T { return r.ts }
func (r *rowSource) Close() error     { return nil }

func (r *rowSource) Open(ctx context.Context) error {
	rows, err := r.gen(ctx)
	r.rows, r.at = rows, 0
	return err
}

func (r *rowSource) Next(context.Context) (arrow.RecordBatch, error) {
	if r.at >= len(r.rows) {
		return nil, nil
	}
	n := min(len(r.rows)-r.at, BatchSize)
	builders := make([]*expr.Builder, len(r.ts))
	for i, t := range r.ts {
		builders[i] = expr.NewBuilder(t, n)
	}
	for _, row := range r.rows[r.at : r.at+n] {
		for i, d := range row {
			if d.Null {
				builders[i].Append(types.NullOf(r.ts[i]))
				continue
			}
			builders[i].Append(d)
		}
	}
	r.at += n
	cols := make([]arrow.Array, len(r.ts))
	for i, b := range builders {
		cols[i] = b.Finish()
	}
	out := array.NewRecordBatch(Schema(r.ts), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// NewFunctionScan calls fn over the values of args (which read no
// column) when the operator opens, and yields the call's rows.
func NewFunctionScan(ts []types.T, fn SetTable, args []expr.Expr, ec *expr.Ctx) Operator {
	return NewRowSource(ts, func(context.Context) ([][]types.Datum, error) {
		one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
		defer one.Release()
		vals := make([]types.Datum, len(args))
		for i, a := range args {
			v, err := a.Eval(ec, one)
			if err != nil {
				return nil, err
			}
			vals[i] = types.DatumAt(a.Type(), v, 0)
			v.Release()
		}
		return fn.Rows(vals, ec)
	})
}
