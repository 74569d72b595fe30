package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/types"
)

// InnerFunc builds the inner side of an apply for one left row.
type InnerFunc func(ctx context.Context, row []types.Datum) (Operator, error)

// applyOp is a dependent (LATERAL) join: the inner side is built anew for
// every left row, with that row's values, and joined to it.
type applyOp struct {
	kind    JoinKind
	left    Operator
	innerTs []types.T
	inner   InnerFunc
	on      expr.Expr
	ec      *expr.Ctx
	ts      []types.T
	pending []arrow.RecordBatch
	cur     arrow.RecordBatch // the left batch being worked through
	row     int
}

var _ Operator = (*applyOp)(nil)

// NewApply joins each left row to the rows inner yields for it, where on
// (over left columns then inner columns; nil: true) holds. A LeftJoin
// keeps left rows with no match, NULL-extended.
func NewApply(kind JoinKind, left Operator, innerTs []types.T, inner InnerFunc, on expr.Expr, ec *expr.Ctx) Operator {
	ts := append(append([]types.T{}, left.Types()...), innerTs...)
	return &applyOp{kind: kind, left: left, innerTs: innerTs, inner: inner, on: on, ec: ec, ts: ts}
}

func (a *applyOp) Types() []types.T               { return a.ts }
func (a *applyOp) Open(ctx context.Context) error { return a.left.Open(ctx) }
func (a *applyOp) Close() error {
	for _, p := range a.pending {
		p.Release()
	}
	a.pending = nil
	if a.cur != nil {
		a.cur.Release()
		a.cur = nil
	}
	return a.left.Close()
}

func (a *applyOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(a.pending) > 0 {
			out := a.pending[0]
			a.pending = a.pending[1:]
			return out, nil
		}
		if a.cur == nil || a.row >= int(a.cur.NumRows()) {
			if a.cur != nil {
				a.cur.Release()
				a.cur = nil
			}
			rec, err := a.left.Next(ctx)
			if err != nil || rec == nil {
				return nil, err
			}
			a.cur, a.row = rec, 0
			continue
		}
		if err := a.joinRow(ctx, a.cur, a.row); err != nil {
			return nil, err
		}
		a.row++
	}
}

// joinRow joins one left row to its inner rows, reusing the nested loop
// join on a one-row left input.
func (a *applyOp) joinRow(ctx context.Context, rec arrow.RecordBatch, i int) error {
	lts := a.left.Types()
	vals := make([]types.Datum, len(lts))
	for k, t := range lts {
		vals[k] = types.DatumAt(t, rec.Column(k), i)
	}
	in, err := a.inner(ctx, vals)
	if err != nil {
		return err
	}
	one := rec.NewSlice(int64(i), int64(i+1))
	j := NewNestedLoopJoin(a.kind, &oneBatch{rec: one, ts: lts}, in, a.on, a.ec)
	if err := j.Open(ctx); err != nil {
		j.Close()
		return err
	}
	defer j.Close()
	for {
		out, err := j.Next(ctx)
		if err != nil {
			return err
		}
		if out == nil {
			return nil
		}
		if out.NumRows() == 0 {
			out.Release()
			continue
		}
		a.pending = append(a.pending, out)
	}
}

// oneBatch is an operator yielding one batch it owns.
type oneBatch struct {
	rec arrow.RecordBatch
	ts  []types.T
}

func (o *oneBatch) Types() []types.T           { return o.ts }
func (o *oneBatch) Open(context.Context) error { return nil }
func (o *oneBatch) Next(context.Context) (arrow.RecordBatch, error) {
	r := o.rec
	o.rec = nil
	return r, nil
}
func (o *oneBatch) Close() error {
	if o.rec != nil {
		o.rec.Release()
		o.rec = nil
	}
	return nil
}
