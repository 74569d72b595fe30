package exec

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/types"
	"github.com/loamdb/loam/pgerr"
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

// projectSetOp expands a generate_series in the SELECT list: each input row
// becomes one row per series value, the other columns repeated. Column srf
// receives the values; columns args hold the series' arguments.
type projectSetOp struct {
	in   Operator
	srf  int
	args []int
	ts   []types.T
	ec   *expr.Ctx

	rec  arrow.RecordBatch // input batch being expanded
	row  int
	iter *seriesIter
}

var _ Operator = (*projectSetOp)(nil)

// NewProjectSet expands column srf of in's rows into a series of type t
// (in's column srf is a placeholder of that type).
func NewProjectSet(in Operator, srf int, args []int, ec *expr.Ctx) Operator {
	return &projectSetOp{in: in, srf: srf, args: args, ts: in.Types(), ec: ec}
}

func (p *projectSetOp) Types() []types.T               { return p.ts }
func (p *projectSetOp) Open(ctx context.Context) error { return p.in.Open(ctx) }
func (p *projectSetOp) Close() error {
	if p.rec != nil {
		p.rec.Release()
		p.rec = nil
	}
	return p.in.Close()
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
	n := 0
	for n < BatchSize {
		if p.rec == nil || p.row >= int(p.rec.NumRows()) {
			if p.rec != nil {
				p.rec.Release()
				p.rec = nil
			}
			rec, err := p.in.Next(ctx)
			if err != nil {
				finish().Release()
				return nil, err
			}
			if rec == nil {
				break
			}
			p.rec, p.row, p.iter = rec, 0, nil
			continue
		}
		if p.iter == nil {
			vals := make([]types.Datum, len(p.args))
			for k, a := range p.args {
				vals[k] = types.DatumAt(p.ts[a], p.rec.Column(a), p.row)
			}
			it, err := newSeriesIter(p.ts[p.srf], vals, p.ec)
			if err != nil {
				finish().Release()
				return nil, err
			}
			p.iter = it
		}
		v, ok := p.iter.next()
		if !ok {
			p.row++
			p.iter = nil
			continue
		}
		for c := range p.ts {
			if c == p.srf {
				bld[c].Append(types.Int(p.ts[c], v))
				continue
			}
			bld[c].Append(types.DatumAt(p.ts[c], p.rec.Column(c), p.row))
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

func (s *seriesOp) Explain() Explained {
	return Explained{Name: "Function Scan on generate_series", Details: []string{"Arguments: " + ExprList(s.args)}}
}
func (s *seriesOp) Inputs() []*Operator { return nil }

func (p *projectSetOp) Explain() Explained {
	return Explained{Name: "ProjectSet", Details: []string{fmt.Sprintf("generate_series into #%d from %v", p.srf, p.args)}}
}
func (p *projectSetOp) Inputs() []*Operator { return []*Operator{&p.in} }
