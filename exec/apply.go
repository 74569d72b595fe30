package exec

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
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
	// keyCols, when not nil, are the left columns the inner side reads:
	// its rows are remembered by their values (memo), up to memoRows.
	keyCols  []int
	memo     map[string]arrow.RecordBatch
	memoRows int
	// frame, when not 0, is the left row's frame in ec while the inner
	// side is built and run (expr.OuterRef).
	frame int
}

// memoRows bounds the inner rows an apply remembers.
const memoRows = 1 << 20

var _ Operator = (*applyOp)(nil)

// NewApply joins each left row to the rows inner yields for it, where on
// (over left columns then inner columns; nil: true) holds. A LeftJoin
// keeps left rows with no match, NULL-extended. With keyCols (the left
// columns inner depends on; nil when it may differ for equal ones, as
// with volatile functions) the inner rows are built once per distinct
// key. The inner side reads the left row as frame (expr.OuterRef) from ec.
func NewApply(kind JoinKind, left Operator, innerTs []types.T, inner InnerFunc, keyCols []int, on expr.Expr, ec *expr.Ctx, frame int) Operator {
	ts := append(append([]types.T{}, left.Types()...), innerTs...)
	return &applyOp{kind: kind, left: left, innerTs: innerTs, inner: inner, keyCols: keyCols, on: on, ec: ec, ts: ts, frame: frame}
}

func (a *applyOp) Types() []types.T               { return a.ts }
func (a *applyOp) Open(ctx context.Context) error { return a.left.Open(ctx) }
func (a *applyOp) Close() error {
	for _, m := range a.memo {
		m.Release()
	}
	a.memo = nil
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
	if a.frame != 0 && a.ec != nil {
		// The inner side is built and drained below: the row is the
		// context's for exactly that long.
		saved := a.ec.Outer
		a.ec.Outer = saved.Push(a.frame, vals)
		defer func() { a.ec.Outer = saved }()
	}
	in, err := a.innerFor(ctx, vals)
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

// innerFor is the inner side for one left row: remembered rows when the
// key was seen, else built (and remembered while there is room).
func (a *applyOp) innerFor(ctx context.Context, vals []types.Datum) (Operator, error) {
	if a.keyCols == nil {
		return a.inner(ctx, vals)
	}
	var key strings.Builder
	for _, k := range a.keyCols {
		d := vals[k]
		if d.Null {
			key.WriteString("N")
		} else {
			fmt.Fprintf(&key, "V%d:%d:%g:%q:%q", d.T.Kind, d.I, d.F, d.S, d.B)
		}
		key.WriteByte(0)
	}
	if rec, ok := a.memo[key.String()]; ok {
		rec.Retain()
		return &oneBatch{rec: rec, ts: a.innerTs}, nil
	}
	in, err := a.inner(ctx, vals)
	if err != nil {
		return nil, err
	}
	if a.memoRows >= memoRows {
		return in, nil
	}
	if err := in.Open(ctx); err != nil {
		in.Close()
		return nil, err
	}
	rec, err := Drain(ctx, in)
	if cerr := in.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if rec != nil {
			rec.Release()
		}
		return nil, err
	}
	if rec == nil {
		rec = emptyBatch(a.innerTs)
	}
	if a.memo == nil {
		a.memo = map[string]arrow.RecordBatch{}
	}
	a.memo[key.String()] = rec
	a.memoRows += int(rec.NumRows()) + 1
	rec.Retain()
	return &oneBatch{rec: rec, ts: a.innerTs}, nil
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
