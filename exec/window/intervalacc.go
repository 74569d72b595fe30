package window

import (
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// intervalSumAcc is sum or avg over intervals: months, days and
// microseconds summed apart and exactly, so that rows leave a moving
// frame as they entered it (PostgreSQL's interval_accum_inv), and the
// result is the one exec/agg gives for the same rows.
type intervalSumAcc struct {
	arg    *array.MonthDayNanoInterval
	keep   *array.Boolean
	avg    bool
	months int64
	days   int64
	micros big.Int
	cnt    int64
	tmp    big.Int
}

func newIntervalSumAcc(arg arrow.Array, keep *array.Boolean, avg bool) *intervalSumAcc {
	return &intervalSumAcc{arg: arg.(*array.MonthDayNanoInterval), keep: keep, avg: avg}
}

func (a *intervalSumAcc) reset() {
	a.months, a.days, a.cnt = 0, 0, 0
	a.micros.SetInt64(0)
}
func (a *intervalSumAcc) removable() bool { return true }
func (a *intervalSumAcc) fold(s, e int, sign int64) {
	for i := s; i < e; i++ {
		if !counted(a.arg, a.keep, i) {
			continue
		}
		v := types.IntervalFromArrow(a.arg.Value(i))
		a.months += sign * int64(v.Months)
		a.days += sign * int64(v.Days)
		a.tmp.SetInt64(sign * v.Micros)
		a.micros.Add(&a.micros, &a.tmp)
		a.cnt += sign
	}
}
func (a *intervalSumAcc) add(s, e int)    { a.fold(s, e, 1) }
func (a *intervalSumAcc) remove(s, e int) { a.fold(s, e, -1) }
func (a *intervalSumAcc) result() (types.Datum, error) {
	if a.cnt == 0 {
		return types.NullOf(types.TInterval), nil
	}
	m, d := a.months, a.days
	if m != int64(int32(m)) || d != int64(int32(d)) || !a.micros.IsInt64() ||
		a.micros.Int64() > types.MaxIntervalMicros || a.micros.Int64() < -types.MaxIntervalMicros {
		return types.Datum{}, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	iv := types.IntervalValue{Months: int32(m), Days: int32(d), Micros: a.micros.Int64()}
	if a.avg {
		var err error
		if iv, err = expr.IntervalDiv(iv, float64(a.cnt)); err != nil {
			return types.Datum{}, err
		}
	}
	return types.IntervalDatum(iv), nil
}
