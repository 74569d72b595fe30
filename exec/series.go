package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// seriesOp is generate_series(start, stop[, step]) in FROM: integers with
// an integer step, timestamps with an interval step.
type seriesOp struct {
	args []expr.Expr // start, stop, step (coerced by the planner)
	t    types.T
	ec   *expr.Ctx
	iter *seriesIter
}

var _ Operator = (*seriesOp)(nil)

// NewSeries makes the generate_series operator; t is the element type
// (int4, int8, timestamp or timestamptz) and args are typed for it.
func NewSeries(t types.T, args []expr.Expr, ec *expr.Ctx) Operator {
	return &seriesOp{args: args, t: t, ec: ec}
}

func (s *seriesOp) Types() []types.T           { return []types.T{s.t} }
func (s *seriesOp) Open(context.Context) error { return nil }
func (s *seriesOp) Close() error               { return nil }

// start evaluates the arguments once.
func (s *seriesOp) start() error {
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	vals := make([]types.Datum, len(s.args))
	for i, a := range s.args {
		arr, err := a.Eval(s.ec, one)
		if err != nil {
			return err
		}
		vals[i] = types.DatumAt(a.Type(), arr, 0)
		arr.Release()
	}
	if !s.t.IsInteger() && len(vals) != 3 {
		return fmt.Errorf("generate_series over %s needs a step", s.t)
	}
	it, err := newSeriesIter(s.t, vals, s.ec)
	s.iter = it
	return err
}

func (s *seriesOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.iter == nil {
		if err := s.start(); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bld := expr.NewBuilder(s.t, BatchSize)
	n := 0
	for ; n < BatchSize; n++ {
		v, ok := s.iter.next()
		if !ok {
			break
		}
		bld.Append(types.Int(s.t, v))
	}
	col := bld.Finish()
	if n == 0 {
		col.Release()
		return nil, nil
	}
	rec := array.NewRecordBatch(Schema(s.Types()), []arrow.Array{col}, int64(n))
	col.Release()
	return rec, nil
}

// seriesIter steps through one series; next reports false at its end.
type seriesIter struct {
	t         types.T
	cur, stop int64
	step      int64
	iv        types.IntervalValue
	up, done  bool
	loc       *expr.Ctx
}

func newSeriesIter(t types.T, vals []types.Datum, ec *expr.Ctx) (*seriesIter, error) {
	it := &seriesIter{t: t, loc: ec}
	for _, v := range vals {
		if v.Null {
			it.done = true
			return it, nil
		}
	}
	it.cur, it.stop = vals[0].I, vals[1].I
	if t.IsInteger() {
		it.step = 1
		if len(vals) == 3 {
			it.step = vals[2].I
		}
		if it.step == 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
		}
		it.up = it.step > 0
		return it, nil
	}
	it.iv = vals[2].Interval()
	c := types.CmpInterval(it.iv, types.IntervalValue{})
	if c == 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
	}
	it.up = c > 0
	return it, nil
}

func (it *seriesIter) next() (int64, bool) {
	if it.done || (it.up && it.cur > it.stop) || (!it.up && it.cur < it.stop) {
		it.done = true
		return 0, false
	}
	v := it.cur
	if it.t.IsInteger() {
		n := it.cur + it.step
		if (it.step > 0 && n < it.cur) || (it.step < 0 && n > it.cur) || types.CheckIntRange(it.t.Kind, n) != nil {
			it.done = true
		}
		it.cur = n
	} else {
		n, err := expr.TimestampAddInterval(it.cur, it.iv, it.t.Kind == types.TimestampTZ, it.loc.Loc)
		if err != nil {
			it.done = true
		}
		it.cur = n
	}
	return v, true
}

// SetFunc is a set-returning function called in a select list: Impl
// runs one call over the values of Args, yielding values of type T.
type SetFunc struct {
	Name string
	T    types.T
	Args []expr.Expr
	Impl SetImpl
}

// projectSetOp runs the set-returning functions of a select list, as
// PostgreSQL's ProjectSet: each input row becomes as many rows as its
// longest call returns, the calls in lockstep (a shorter one gives NULL),
// and none when every call is empty. Its rows are the input's columns
// followed by one column per function, which the projection above reads.
type projectSetOp struct {
	in  Operator
	fns []SetFunc
	ts  []types.T
	ec  *expr.Ctx

	rec   arrow.RecordBatch // input batch being expanded
	args  [][]arrow.Array   // its functions' arguments
	row   int
	iters []func() (types.Datum, bool) // the current row's calls; nil: not started
}

var _ Operator = (*projectSetOp)(nil)

// NewProjectSet expands in's rows by the set-returning functions fns.
func NewProjectSet(in Operator, fns []SetFunc, ec *expr.Ctx) Operator {
	ts := append([]types.T(nil), in.Types()...)
	for _, f := range fns {
		ts = append(ts, f.T)
	}
	return &projectSetOp{in: in, fns: fns, ts: ts, ec: ec}
}

func (p *projectSetOp) Types() []types.T               { return p.ts }
func (p *projectSetOp) Open(ctx context.Context) error { return p.in.Open(ctx) }

func (p *projectSetOp) release() {
	if p.rec != nil {
		p.rec.Release()
		p.rec = nil
	}
	for _, as := range p.args {
		for _, a := range as {
			a.Release()
		}
	}
	p.args = nil
}

func (p *projectSetOp) Close() error {
	p.release()
	return p.in.Close()
}

// nextBatch reads the next input batch and evaluates the functions'
// arguments over it; false at the end of the input.
func (p *projectSetOp) nextBatch(ctx context.Context) (bool, error) {
	p.release()
	rec, err := p.in.Next(ctx)
	if err != nil || rec == nil {
		return false, err
	}
	p.rec, p.row, p.iters = rec, 0, nil
	p.args = make([][]arrow.Array, len(p.fns))
	for i, f := range p.fns {
		for _, a := range f.Args {
			arr, err := a.Eval(p.ec, rec)
			if err != nil {
				return false, err
			}
			p.args[i] = append(p.args[i], arr)
		}
	}
	return true, nil
}

func (p *projectSetOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	bld := make([]*expr.Builder, len(p.ts))
	for i, t := range p.ts {
		bld[i] = expr.NewBuilder(t, BatchSize)
	}
	finish := func() arrow.RecordBatch {
		cols := make([]arrow.Array, len(bld))
		for i, b := range bld {
			cols[i] = b.Finish()
		}
		n := cols[0].Len()
		rec := array.NewRecordBatch(Schema(p.ts), cols, int64(n))
		for _, c := range cols {
			c.Release()
		}
		return rec
	}
	nIn := len(p.ts) - len(p.fns)
	vals := make([]types.Datum, len(p.fns))
	n := 0
	for n < BatchSize {
		if p.rec == nil || p.row >= int(p.rec.NumRows()) {
			ok, err := p.nextBatch(ctx)
			if err != nil {
				finish().Release()
				return nil, err
			}
			if !ok {
				break
			}
			continue
		}
		if p.iters == nil {
			p.iters = make([]func() (types.Datum, bool), len(p.fns))
			for i, f := range p.fns {
				args := make([]types.Datum, len(f.Args))
				for k, a := range f.Args {
					args[k] = types.DatumAt(a.Type(), p.args[i][k], p.row)
				}
				next, err := f.Impl.Start(args, p.ec)
				if err != nil {
					finish().Release()
					return nil, err
				}
				p.iters[i] = next
			}
		}
		more := false
		for i, next := range p.iters {
			vals[i] = types.NullOf(p.fns[i].T)
			if next == nil {
				continue
			}
			if v, ok := next(); ok {
				vals[i], more = v, true
			} else {
				p.iters[i] = nil
			}
		}
		if !more {
			p.row++
			p.iters = nil
			continue
		}
		for c := 0; c < nIn; c++ {
			bld[c].Append(types.DatumAt(p.ts[c], p.rec.Column(c), p.row))
		}
		for i, v := range vals {
			bld[nIn+i].Append(v)
		}
		n++
	}
	rec := finish()
	if n == 0 {
		rec.Release()
		return nil, nil
	}
	return rec, nil
}
