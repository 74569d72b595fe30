package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// intervalSumState is sum or avg of intervals. PostgreSQL adds intervals
// field by field (interval_pl: months, days and microseconds apart, never
// carried into each other) and divides the sum by the count with
// interval_div. The fields are summed wide here and checked once at the
// end: a sum PostgreSQL's int32 months or days (or Loam's microseconds,
// see types.MaxIntervalMicros) cannot hold is "interval out of range".
type intervalSumState struct {
	avg    bool
	months []int64
	days   []int64
	micros []int64
	over   []bool // the microseconds overflowed int64 on the way
	cnt    []int64
}

func (s *intervalSumState) grow(g int) {
	n := g - len(s.cnt)
	s.months = append(s.months, make([]int64, n)...)
	s.days = append(s.days, make([]int64, n)...)
	s.micros = append(s.micros, make([]int64, n)...)
	s.over = append(s.over, make([]bool, n)...)
	s.cnt = append(s.cnt, make([]int64, n)...)
}

func (s *intervalSumState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	a := arg.(*array.MonthDayNanoInterval)
	for i, g := range gids {
		if a.IsNull(i) {
			continue
		}
		v := types.IntervalFromArrow(a.Value(i))
		s.months[g] += int64(v.Months)
		s.days[g] += int64(v.Days)
		r := s.micros[g] + v.Micros
		if (v.Micros > 0 && r < s.micros[g]) || (v.Micros < 0 && r > s.micros[g]) {
			s.over[g] = true
		}
		s.micros[g] = r
		s.cnt[g]++
	}
}

func (s *intervalSumState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(types.TInterval, len(s.cnt))
	for g, n := range s.cnt {
		if n == 0 {
			b.AppendNull()
			continue
		}
		m, d, us := s.months[g], s.days[g], s.micros[g]
		if s.over[g] || m != int64(int32(m)) || d != int64(int32(d)) || us > types.MaxIntervalMicros || us < -types.MaxIntervalMicros {
			b.Finish().Release()
			return nil, pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
		}
		iv := types.IntervalValue{Months: int32(m), Days: int32(d), Micros: us}
		if s.avg {
			var err error
			if iv, err = expr.IntervalDiv(iv, float64(n)); err != nil {
				b.Finish().Release()
				return nil, err
			}
		}
		b.Append(types.IntervalDatum(iv))
	}
	return b.Finish(), nil
}
