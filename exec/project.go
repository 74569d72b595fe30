package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

type projectOp struct {
	in     Operator
	exprs  []expr.Expr
	ec     *expr.Ctx
	schema *arrow.Schema
	ts     []types.T
}

var _ Operator = (*projectOp)(nil)

// NewProject computes one output column per expression.
func NewProject(in Operator, exprs []expr.Expr, ec *expr.Ctx) Operator {
	ts := make([]types.T, len(exprs))
	for i, e := range exprs {
		ts[i] = e.Type()
	}
	return &projectOp{in: in, exprs: exprs, ec: ec, ts: ts, schema: Schema(ts)}
}

func (p *projectOp) Types() []types.T               { return p.ts }
func (p *projectOp) Open(ctx context.Context) error { return p.in.Open(ctx) }
func (p *projectOp) Close() error                   { return p.in.Close() }
func (p *projectOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := p.in.Next(ctx)
	if rec == nil || err != nil {
		return nil, err
	}
	defer rec.Release()
	cols := make([]arrow.Array, len(p.exprs))
	for i, e := range p.exprs {
		if cols[i], err = e.Eval(p.ec, rec); err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, err
		}
	}
	out := array.NewRecordBatch(p.schema, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
