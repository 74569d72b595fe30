package agg

import (
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// state accumulates one aggregate for every group. update folds a batch's
// argument column into the groups its rows belong to.
type state interface {
	grow(groups int)
	update(gids []int32, arg arrow.Array, extra []arrow.Array)
	finish() (arrow.Array, error)
}

func newState(a Agg, ec *expr.Ctx) state {
	var argT types.T
	if a.Arg != nil {
		argT = a.Arg.Type()
	}
	switch a.Fn {
	case StddevSamp, StddevPop, VarSamp, VarPop:
		return newVarState(a, argT)
	case BoolAnd, BoolOr:
		return &boolState{and: a.Fn == BoolAnd}
	case StringAgg, ArrayAgg, JSONAgg, JSONBAgg, JSONObjectAgg, JSONBObjectAgg:
		return newCollectState(a, ec)
	case PercentileCont:
		if argT.Kind == types.Interval {
			return &contIntervalState{fr: newFractions(a), desc: a.Desc}
		}
		return &contState{fr: newFractions(a), desc: a.Desc}
	case PercentileDisc, Mode:
		d := &discState{t: argT, fr: newFractions(a), desc: a.Desc, mode: a.Fn == Mode}
		if ec != nil {
			d.loc = ec.Loc
		}
		return d
	case ApproxPercentile:
		return &tdigestState{argT: argT, frac: a.Frac}
	case ApproxCountDistinct:
		return &hllState{t: argT}
	case GroupValue:
		return &groupValueState{t: argT}
	case CountStar:
		return &countState{star: true}
	case Count:
		return &countState{}
	case Sum, Avg:
		switch argT.Kind {
		case types.Int2, types.Int4, types.Int8:
			return &intSumState{argT: argT, avg: a.Fn == Avg, out: a.T}
		case types.Float4, types.Float8:
			return &floatSumState{argT: argT, avg: a.Fn == Avg, out: a.T}
		case types.Interval:
			return &intervalSumState{avg: a.Fn == Avg}
		}
		if p, sc, ok := argT.Decimal(); ok {
			return newDecimalSum(p, sc, a.Fn == Avg, a.T)
		}
		if _, sc, ok := argT.Wide(); ok {
			return &wideSumState{scale: sc, avg: a.Fn == Avg, out: a.T}
		}
		return &decSumState{avg: a.Fn == Avg}
	}
	if _, _, ok := argT.Decimal(); ok && a.T == argT {
		return &decimalMinMaxState{t: argT, max: a.Fn == Max}
	}
	return &minMaxState{t: argT, max: a.Fn == Max}
}

type countState struct {
	star bool
	n    []int64
}

func (s *countState) grow(g int) { s.n = append(s.n, make([]int64, g-len(s.n))...) }
func (s *countState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	if s.star || arg.NullN() == 0 {
		for _, g := range gids {
			s.n[g]++
		}
		return
	}
	for i, g := range gids {
		if arg.IsValid(i) {
			s.n[g]++
		}
	}
}
func (s *countState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(types.TInt8, len(s.n))
	for _, v := range s.n {
		b.Append(types.Int(types.TInt8, v))
	}
	return b.Finish(), nil
}

// intSumState sums integers in int64, moving a group to a big.Int only if
// its sum overflows.
type intSumState struct {
	argT types.T
	avg  bool
	out  types.T
	sum  []int64
	cnt  []int64
	big  map[int32]*big.Int
}

func (s *intSumState) grow(g int) {
	s.sum = append(s.sum, make([]int64, g-len(s.sum))...)
	s.cnt = append(s.cnt, make([]int64, g-len(s.cnt))...)
}

func (s *intSumState) add(g int32, v int64) {
	s.cnt[g]++
	old := s.sum[g]
	r := old + v
	if (v > 0 && r < old) || (v < 0 && r > old) {
		if s.big == nil {
			s.big = map[int32]*big.Int{}
		}
		b := s.big[g]
		if b == nil {
			b = new(big.Int)
			s.big[g] = b
		}
		b.Add(b, big.NewInt(old))
		r = v
	}
	s.sum[g] = r
}

func (s *intSumState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	nulls := arg.NullN() > 0
	switch s.argT.Kind {
	case types.Int2:
		v := arrow.GetValues[int16](arg.Data(), 1)
		for i, g := range gids {
			if !nulls || arg.IsValid(i) {
				s.add(g, int64(v[i]))
			}
		}
	case types.Int4:
		v := arrow.GetValues[int32](arg.Data(), 1)
		for i, g := range gids {
			if !nulls || arg.IsValid(i) {
				s.add(g, int64(v[i]))
			}
		}
	default:
		v := arrow.GetValues[int64](arg.Data(), 1)
		for i, g := range gids {
			if !nulls || arg.IsValid(i) {
				s.add(g, v[i])
			}
		}
	}
}

func (s *intSumState) total(g int32) *big.Int {
	t := big.NewInt(s.sum[g])
	if b := s.big[g]; b != nil {
		t.Add(t, b)
	}
	return t
}

func (s *intSumState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(s.out, len(s.sum))
	for g := range s.sum {
		if s.cnt[g] == 0 {
			b.AppendNull()
			continue
		}
		t := s.total(int32(g))
		switch {
		case s.avg:
			var sum types.Dec
			sum.U.Set(t)
			cnt := types.DecFromInt(s.cnt[g])
			q, err := sum.Div(&cnt)
			if err != nil {
				return nil, err
			}
			b.Append(types.Datum{T: s.out, S: q.String()})
		case s.out.Kind == types.Int8:
			if !t.IsInt64() {
				return nil, errBigintRange
			}
			b.Append(types.Int(s.out, t.Int64()))
		default:
			b.Append(types.Datum{T: s.out, S: t.String()})
		}
	}
	return b.Finish(), nil
}

type floatSumState struct {
	argT types.T
	avg  bool
	out  types.T
	sum  []float64
	cnt  []int64
}

func (s *floatSumState) grow(g int) {
	n := len(s.sum)
	s.sum = append(s.sum, make([]float64, g-n)...)
	s.cnt = append(s.cnt, make([]int64, g-len(s.cnt))...)
	if !s.avg {
		// PostgreSQL's sum starts from its first value, so the sum of a
		// single -0 is -0; -0 is the one start for which -0 + x is x.
		for i := n; i < g; i++ {
			s.sum[i] = math.Copysign(0, -1)
		}
	}
}

func (s *floatSumState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	nulls := arg.NullN() > 0
	if s.argT.Kind == types.Float4 {
		v := arrow.GetValues[float32](arg.Data(), 1)
		for i, g := range gids {
			if !nulls || arg.IsValid(i) {
				s.sum[g] += float64(v[i])
				s.cnt[g]++
			}
		}
		return
	}
	v := arrow.GetValues[float64](arg.Data(), 1)
	for i, g := range gids {
		if !nulls || arg.IsValid(i) {
			s.sum[g] += v[i]
			s.cnt[g]++
		}
	}
}

func (s *floatSumState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(s.out, len(s.sum))
	for g, v := range s.sum {
		switch {
		case s.cnt[g] == 0:
			b.AppendNull()
		case s.avg:
			b.Append(types.Float8Datum(v / float64(s.cnt[g])))
		default:
			b.Append(types.Datum{T: s.out, F: v})
		}
	}
	return b.Finish(), nil
}

type decSumState struct {
	avg bool
	sum []types.Dec
	cnt []int64
}

func (s *decSumState) grow(g int) {
	s.sum = append(s.sum, make([]types.Dec, g-len(s.sum))...)
	s.cnt = append(s.cnt, make([]int64, g-len(s.cnt))...)
}

func (s *decSumState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	a := arg.(*array.String)
	for i, g := range gids {
		if a.IsNull(i) {
			continue
		}
		d, err := types.ParseDec(a.Value(i))
		if err != nil {
			continue // values in a numeric column are valid by construction
		}
		s.sum[g] = s.sum[g].Add(&d)
		s.cnt[g]++
	}
}

func (s *decSumState) finish() (arrow.Array, error) {
	return finishSums(types.TNumeric, s.cnt, s.avg, func(g int) types.Dec { return s.sum[g] })
}

// finishSums is a numeric sum or avg's result of type out: each group's
// sum(g), divided by its count for avg; NULL for a group with no value.
func finishSums(out types.T, cnt []int64, avg bool, sum func(g int) types.Dec) (arrow.Array, error) {
	b := expr.NewBuilder(out, len(cnt))
	for g := range cnt {
		if cnt[g] == 0 {
			b.AppendNull()
			continue
		}
		r := sum(g)
		if avg {
			c := types.DecFromInt(cnt[g])
			var err error
			if r, err = r.Div(&c); err != nil {
				return nil, err
			}
		}
		b.Append(types.Datum{T: out, S: r.String()})
	}
	return b.Finish(), nil
}

// minMaxState keeps the extreme value of each group as a Datum; the typed
// loops compare in place and only copy a value when it wins.
type minMaxState struct {
	t    types.T
	max  bool
	best []types.Datum
}

func (s *minMaxState) grow(g int) {
	for len(s.best) < g {
		s.best = append(s.best, types.NullOf(s.t))
	}
}

func (s *minMaxState) better(c int) bool {
	if s.max {
		return c > 0
	}
	return c < 0
}

func (s *minMaxState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	switch s.t.Kind {
	case types.Int2, types.Int4, types.Int8, types.OID, types.Date, types.Time, types.Timestamp, types.TimestampTZ:
		for i, g := range gids {
			if arg.IsNull(i) {
				continue
			}
			d := types.DatumAt(s.t, arg, i)
			if b := &s.best[g]; b.Null || s.better(cmpInt(d.I, b.I)) {
				*b = d
			}
		}
	case types.Float4, types.Float8:
		for i, g := range gids {
			if arg.IsNull(i) {
				continue
			}
			d := types.DatumAt(s.t, arg, i)
			// On a tie PostgreSQL's float8smaller/float8larger return
			// the later value: min over 0, -0 is -0.
			if b := &s.best[g]; b.Null || s.better(cmpF(d.F, b.F)) || cmpF(d.F, b.F) == 0 {
				*b = d
			}
		}
	case types.Interval:
		// Intervals order by span (a month is 30 days).
		for i, g := range gids {
			if arg.IsNull(i) {
				continue
			}
			d := types.DatumAt(s.t, arg, i)
			if b := &s.best[g]; b.Null || s.better(types.CmpInterval(d.Interval(), b.Interval())) {
				*b = d
			}
		}
	case types.Numeric:
		text := expr.NumericText(arg)
		for i, g := range gids {
			if arg.IsNull(i) {
				continue
			}
			v := text(i)
			if b := &s.best[g]; b.Null || s.better(expr.CompareNumericText(v, b.S)) {
				*b = types.Datum{T: s.t, S: strings.Clone(v)}
			}
		}
	default:
		a := arg.(*array.String)
		for i, g := range gids {
			if a.IsNull(i) {
				continue
			}
			v := a.Value(i)
			b := &s.best[g]
			var c int
			if !b.Null {
				if s.t.Kind == types.Numeric {
					c = expr.CompareNumericText(v, b.S)
				} else {
					c = strings.Compare(v, b.S)
				}
			}
			if b.Null || s.better(c) {
				*b = types.Datum{T: s.t, S: strings.Clone(v)}
			}
		}
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpF(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b):
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (s *minMaxState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(s.t, len(s.best))
	for _, d := range s.best {
		b.Append(d)
	}
	return b.Finish(), nil
}
