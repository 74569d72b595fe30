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

	started, done bool
	cur, stop     int64
	step          int64               // integer series
	iv            types.IntervalValue // timestamp series
	up            bool
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

// start evaluates the arguments once; a NULL argument gives no rows.
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
		if vals[i].Null {
			s.done = true
			return nil
		}
	}
	s.cur, s.stop = vals[0].I, vals[1].I
	if s.t.IsInteger() {
		s.step = 1
		if len(vals) == 3 {
			s.step = vals[2].I
		}
		if s.step == 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
		}
		s.up = s.step > 0
		return nil
	}
	if len(vals) != 3 {
		return fmt.Errorf("generate_series over %s needs a step", s.t)
	}
	s.iv = vals[2].Interval()
	c := types.CmpInterval(s.iv, types.IntervalValue{})
	if c == 0 {
		return pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
	}
	s.up = c > 0
	return nil
}

func (s *seriesOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if !s.started {
		s.started = true
		if err := s.start(); err != nil {
			return nil, err
		}
	}
	if s.done {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	bld := expr.NewBuilder(s.t, BatchSize)
	n := 0
	for n < BatchSize {
		if (s.up && s.cur > s.stop) || (!s.up && s.cur < s.stop) {
			s.done = true
			break
		}
		bld.Append(types.Int(s.t, s.cur))
		n++
		var next int64
		if s.t.IsInteger() {
			next = s.cur + s.step
			overflow := (s.step > 0 && next < s.cur) || (s.step < 0 && next > s.cur) || types.CheckIntRange(s.t.Kind, next) != nil
			if overflow {
				s.done = true // the series stops at the type's end, as in PostgreSQL
				break
			}
		} else {
			var err error
			if next, err = expr.TimestampAddInterval(s.cur, s.iv, s.t.Kind == types.TimestampTZ, s.ec.Loc); err != nil {
				s.done = true
				break
			}
		}
		s.cur = next
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
