package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

type projectOp struct {
	in     SelOperator
	exprs  []expr.Expr
	ec     *expr.Ctx
	schema *arrow.Schema
	ts     []types.T
	rows   bool // evaluated a row at a time (expr.RowOrdered)
	// pass, when every expression is a column, is the input column of
	// each output: the input's selection then passes through.
	pass []int
	used []bool // the input columns the expressions read; nil until known
}

var _ SelOperator = (*projectOp)(nil)

// NewProject computes one output column per expression, over the rows its
// input selects only.
func NewProject(in Operator, exprs []expr.Expr, ec *expr.Ctx) Operator {
	ts := make([]types.T, len(exprs))
	pass := make([]int, len(exprs))
	for i, e := range exprs {
		ts[i] = e.Type()
		if c, ok := e.(*expr.Col); ok && pass != nil {
			pass[i] = c.Idx
		} else {
			pass = nil
		}
	}
	return &projectOp{in: Selecting(in), exprs: exprs, ec: ec, ts: ts, schema: Schema(ts), rows: expr.RowOrdered(exprs), pass: pass}
}

func (p *projectOp) Types() []types.T               { return p.ts }
func (p *projectOp) Open(ctx context.Context) error { return p.in.Open(ctx) }
func (p *projectOp) Close() error                   { return p.in.Close() }
func (p *projectOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	return NextCompacted(ctx, p)
}

func (p *projectOp) NextSel(ctx context.Context) (arrow.RecordBatch, []int32, error) {
	rec, sel, err := p.in.NextSel(ctx)
	if rec == nil || err != nil {
		return nil, nil, err
	}
	defer rec.Release()
	if p.pass != nil {
		cols := make([]arrow.Array, len(p.pass))
		for i, c := range p.pass {
			cols[i] = rec.Column(c)
		}
		return array.NewRecordBatch(p.schema, cols, rec.NumRows()), sel, nil
	}
	// Expressions see the selected rows alone: a row a filter dropped must
	// not fail a division or a cast.
	if p.used == nil && !p.rows {
		p.used = expr.UsedCols(p.exprs, int(rec.NumCols()))
	}
	in, err := gatherUsed(rec, sel, p.used)
	if err != nil {
		return nil, nil, err
	}
	defer in.Release()
	out, err := p.eval(in)
	return out, nil, err
}

func (p *projectOp) eval(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	var cols []arrow.Array
	var err error
	if p.rows {
		if cols, err = evalRows(p.ec, p.exprs, rec); err != nil {
			return nil, err
		}
	} else {
		cols = make([]arrow.Array, len(p.exprs))
		for i, e := range p.exprs {
			if cols[i], err = e.Eval(p.ec, rec); err != nil {
				for _, c := range cols[:i] {
					c.Release()
				}
				return nil, err
			}
		}
	}
	out := array.NewRecordBatch(p.schema, cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
