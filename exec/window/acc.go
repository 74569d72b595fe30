package window

import (
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// accumulator is an aggregate over a frame of rows [s, e) of the sorted
// batch, moved by adding rows at the end and removing them at the start.
type accumulator interface {
	reset()
	add(s, e int)
	removable() bool
	remove(s, e int)
	result() (types.Datum, error)
}

func newAccumulator(a agg.Agg, ec *expr.Ctx, arg, arg2, filter arrow.Array) accumulator {
	var keep *array.Boolean
	if filter != nil {
		keep = filter.(*array.Boolean)
	}
	switch a.Fn {
	case agg.CountStar:
		return &countAcc{keep: keep}
	case agg.Count:
		return &countAcc{arg: arg, keep: keep}
	case agg.Sum, agg.Avg:
		// Integer and interval sums remove exactly, as PostgreSQL's inverse
		// transition functions do; float and numeric sums are recomputed,
		// as there.
		switch a.Arg.Type().Kind {
		case types.Int2, types.Int4, types.Int8:
			return &intSumAcc{arg: arg, keep: keep, argT: a.Arg.Type(), avg: a.Fn == agg.Avg, out: a.T}
		case types.Interval:
			return newIntervalSumAcc(arg, keep, a.Fn == agg.Avg)
		}
	}
	var extra []arrow.Array
	if arg2 != nil {
		extra = []arrow.Array{arg2}
	}
	return &runningAcc{r: agg.NewRunning(a, ec, arg, extra, keep)}
}

// runningAcc is any aggregate through its exec/agg state: it can only
// grow, so a moving frame start rebuilds it.
type runningAcc struct {
	r *agg.Running
}

func (a *runningAcc) reset()                       { a.r.Reset() }
func (a *runningAcc) removable() bool              { return false }
func (a *runningAcc) remove(s, e int)              {}
func (a *runningAcc) add(s, e int)                 { a.r.Add(s, e) }
func (a *runningAcc) result() (types.Datum, error) { return a.r.Result() }

// counted says whether row i takes part: FILTER holds and, for aggregates
// of an argument, the argument is not NULL.
func counted(arg arrow.Array, keep *array.Boolean, i int) bool {
	if keep != nil && (keep.IsNull(i) || !keep.Value(i)) {
		return false
	}
	return arg == nil || arg.IsValid(i)
}

type countAcc struct {
	arg  arrow.Array // nil for count(*)
	keep *array.Boolean
	n    int64
}

func (a *countAcc) reset()          { a.n = 0 }
func (a *countAcc) removable() bool { return true }
func (a *countAcc) count(s, e int) int64 {
	if a.keep == nil && (a.arg == nil || a.arg.NullN() == 0) {
		return int64(e - s)
	}
	k := int64(0)
	for i := s; i < e; i++ {
		if counted(a.arg, a.keep, i) {
			k++
		}
	}
	return k
}
func (a *countAcc) add(s, e int)                 { a.n += a.count(s, e) }
func (a *countAcc) remove(s, e int)              { a.n -= a.count(s, e) }
func (a *countAcc) result() (types.Datum, error) { return types.Int(types.TInt8, a.n), nil }

// intSumAcc is sum or avg over integers, exact in a big.Int.
type intSumAcc struct {
	arg  arrow.Array
	keep *array.Boolean
	argT types.T
	avg  bool
	out  types.T
	sum  big.Int
	cnt  int64
	tmp  big.Int
}

func (a *intSumAcc) reset()          { a.sum.SetInt64(0); a.cnt = 0 }
func (a *intSumAcc) removable() bool { return true }
func (a *intSumAcc) fold(s, e int, sign int64) {
	for i := s; i < e; i++ {
		if !counted(a.arg, a.keep, i) {
			continue
		}
		v := types.DatumAt(a.argT, a.arg, i).I
		a.tmp.SetInt64(v)
		if sign > 0 {
			a.sum.Add(&a.sum, &a.tmp)
		} else {
			a.sum.Sub(&a.sum, &a.tmp)
		}
		a.cnt += sign
	}
}
func (a *intSumAcc) add(s, e int)    { a.fold(s, e, 1) }
func (a *intSumAcc) remove(s, e int) { a.fold(s, e, -1) }
func (a *intSumAcc) result() (types.Datum, error) {
	if a.cnt == 0 {
		return types.NullOf(a.out), nil
	}
	switch {
	case a.avg:
		var sum types.Dec
		sum.U.Set(&a.sum)
		cnt := types.DecFromInt(a.cnt)
		q, err := sum.Div(&cnt)
		if err != nil {
			return types.Datum{}, err
		}
		return types.Datum{T: a.out, S: q.String()}, nil
	case a.out.Kind == types.Int8:
		if !a.sum.IsInt64() {
			return types.Datum{}, pgerr.New(pgerr.NumericValueOutOfRange, "bigint out of range")
		}
		return types.Int(a.out, a.sum.Int64()), nil
	}
	return types.Datum{T: a.out, S: a.sum.String()}, nil
}
