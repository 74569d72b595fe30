package agg

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// fractions is the fraction argument of percentile_cont and
// percentile_disc: a float8, or a float8[] for one result per element.
// It is a constant, or (for a fraction that uses grouped columns) a
// value per group, taken from the group's first row: PostgreSQL evaluates
// a direct argument once per group, and it may use only grouped columns,
// so every row of a group has the same.
type fractions struct {
	c       types.Datum // the constant
	multi   bool        // a float8[]: the result is an array
	perRow  types.T     // the type of the per-row column, when not a constant
	byGroup []types.Datum
	seen    []bool
}

func newFractions(a Agg) fractions {
	f := fractions{c: a.Frac, multi: a.MultiFrac()}
	if a.Arg2 != nil {
		f.perRow = a.Arg2.Type()
	}
	return f
}

// note records the fraction of each group from the first row seen of it.
func (f *fractions) note(gids []int32, extra []arrow.Array, trash bool) {
	if f.perRow.Kind == types.Unknown || len(extra) == 0 {
		return
	}
	col := extra[0]
	for i, g := range gids {
		if g == 0 && trash {
			continue
		}
		for int(g) >= len(f.seen) {
			f.seen = append(f.seen, false)
			f.byGroup = append(f.byGroup, types.Datum{})
		}
		if !f.seen[g] {
			d := types.DatumAt(f.perRow, col, i)
			d.S = strings.Clone(d.S)
			f.byGroup[g], f.seen[g] = d, true
		}
	}
}

// of is group g's fraction; ok is false for a group without rows.
func (f *fractions) of(g int) (types.Datum, bool) {
	if f.perRow.Kind == types.Unknown {
		return f.c, true
	}
	if g >= len(f.seen) || !f.seen[g] {
		return types.Datum{}, false
	}
	return f.byGroup[g], true
}

// elements splits a float8[] fraction into its elements, each checked
// as PostgreSQL's setup_pct_info does (NULL elements give NULL results).
func elements(d types.Datum) ([]types.Datum, error) {
	parts, nulls, err := types.SplitArrayText(d.S)
	if err != nil {
		return nil, err
	}
	out := make([]types.Datum, len(parts))
	for i, p := range parts {
		if nulls[i] {
			out[i] = types.NullOf(types.TFloat8)
			continue
		}
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, err
		}
		out[i] = types.Float8Datum(v)
		if err := CheckFrac(out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// multiResult is the array of per-fraction results of a group with
// values: NULL for a NULL array, element by element otherwise.
func multiResult(frac types.Datum, out types.T, one func(p float64) string) (types.Datum, error) {
	if frac.Null {
		return types.NullOf(out), nil
	}
	fs, err := elements(frac)
	if err != nil {
		return types.Datum{}, err
	}
	buf := []byte{'{'}
	for i, f := range fs {
		if i > 0 {
			buf = append(buf, ',')
		}
		if f.Null {
			buf = append(buf, "NULL"...)
			continue
		}
		buf = types.AppendArrayElem(buf, one(f.F))
	}
	return types.Datum{T: out, S: string(append(buf, '}'))}, nil
}

// contIntervalState is percentile_cont over intervals: the values sorted
// by span, interpolated as PostgreSQL's interval_lerp does
// (lo + (hi - lo) * fraction, with interval arithmetic).
type contIntervalState struct {
	fr    fractions
	desc  bool
	vals  [][]types.IntervalValue
	trash bool
}

func (s *contIntervalState) setTrash() { s.trash = true }

func (s *contIntervalState) grow(g int) {
	for len(s.vals) < g {
		s.vals = append(s.vals, nil)
	}
}

func (s *contIntervalState) update(gids []int32, arg arrow.Array, extra []arrow.Array) {
	s.fr.note(gids, extra, s.trash)
	a := arg.(*array.MonthDayNanoInterval)
	for i, g := range gids {
		if a.IsValid(i) && (g != 0 || !s.trash) {
			s.vals[g] = append(s.vals[g], types.IntervalFromArrow(a.Value(i)))
		}
	}
}

func (s *contIntervalState) finish() (arrow.Array, error) {
	out := types.TInterval
	if s.fr.multi {
		out = types.ArrayOf(types.Interval)
	}
	b := expr.NewBuilder(out, len(s.vals))
	fail := func(err error) (arrow.Array, error) {
		b.Finish().Release()
		return nil, err
	}
	for g, v := range s.vals {
		frac, ok := s.fr.of(g)
		if !ok || frac.Null {
			b.AppendNull()
			continue
		}
		if !s.fr.multi {
			if err := CheckFrac(frac); err != nil {
				return fail(err)
			}
		}
		if len(v) == 0 {
			b.AppendNull()
			continue
		}
		slices.SortStableFunc(v, func(x, y types.IntervalValue) int {
			if s.desc {
				return types.CmpInterval(y, x)
			}
			return types.CmpInterval(x, y)
		})
		var cerr error
		cont := func(p float64) types.IntervalValue {
			pos := p * float64(len(v)-1)
			first, second := math.Floor(pos), math.Ceil(pos)
			lo := v[int(first)]
			if first == second {
				return lo
			}
			r, err := intervalLerp(lo, v[int(second)], pos-first)
			if err != nil && cerr == nil {
				cerr = err
			}
			return r
		}
		var d types.Datum
		if !s.fr.multi {
			d = types.IntervalDatum(cont(frac.F))
		} else {
			var err error
			if d, err = multiResult(frac, out, func(p float64) string { return string(types.AppendInterval(nil, cont(p))) }); err != nil {
				return fail(err)
			}
		}
		if cerr != nil {
			return fail(cerr)
		}
		b.Append(d)
		s.vals[g] = nil
	}
	return b.Finish(), nil
}

// intervalLerp is lo + (hi - lo) * p in interval arithmetic.
func intervalLerp(lo, hi types.IntervalValue, p float64) (types.IntervalValue, error) {
	diff, err := expr.IntervalAdd(hi, lo.Neg())
	if err != nil {
		return diff, err
	}
	m, err := expr.IntervalMul(diff, p)
	if err != nil {
		return m, err
	}
	return expr.IntervalAdd(m, lo)
}
