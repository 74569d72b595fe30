package agg

import (
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// decimalSumState sums a numeric carried as scaled integers (one scale for
// the whole column) in 128 bits per group, without parsing: below 20
// digits no count of rows can overflow it; wider sums move a group to a
// big.Int when they would. The result is exact numeric text, and avg is
// PostgreSQL's numeric division of that sum by the count.
type decimalSumState struct {
	prec, scale int32
	avg         bool
	out         types.T
	hi          []int64
	lo          []uint64
	cnt         []int64
	big         map[int32]*big.Int
}

func newDecimalSum(p, s int32, avg bool, out types.T) *decimalSumState {
	return &decimalSumState{prec: p, scale: s, avg: avg, out: out}
}

func (s *decimalSumState) grow(g int) {
	s.hi = append(s.hi, make([]int64, g-len(s.hi))...)
	s.lo = append(s.lo, make([]uint64, g-len(s.lo))...)
	s.cnt = append(s.cnt, make([]int64, g-len(s.cnt))...)
}

func (s *decimalSumState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	v := arrow.GetValues[decimal128.Num](arg.Data(), 1)
	nulls := arg.NullN() > 0
	if s.prec <= 19 {
		for i, g := range gids {
			if nulls && arg.IsNull(i) {
				continue
			}
			var c uint64
			s.lo[g], c = bits.Add64(s.lo[g], v[i].LowBits(), 0)
			s.hi[g] += v[i].HighBits() + int64(c)
			s.cnt[g]++
		}
		return
	}
	for i, g := range gids {
		if nulls && arg.IsNull(i) {
			continue
		}
		s.add(g, v[i])
	}
}

// add adds x to group g, moving the group's sum to a big.Int first when
// 128 bits would overflow.
func (s *decimalSumState) add(g int32, x decimal128.Num) {
	s.cnt[g]++
	lo, c := bits.Add64(s.lo[g], x.LowBits(), 0)
	hi := s.hi[g] + x.HighBits() + int64(c)
	if (s.hi[g] < 0) == (x.HighBits() < 0) && (hi < 0) != (s.hi[g] < 0) {
		if s.big == nil {
			s.big = map[int32]*big.Int{}
		}
		b := s.big[g]
		if b == nil {
			b = new(big.Int)
			s.big[g] = b
		}
		b.Add(b, decimal128.New(s.hi[g], s.lo[g]).BigInt())
		lo, hi = x.LowBits(), x.HighBits()
	}
	s.lo[g], s.hi[g] = lo, hi
}

func (s *decimalSumState) finish() (arrow.Array, error) {
	return finishSums(s.out, s.cnt, s.avg, func(g int) types.Dec {
		sum := types.NumToDec(decimal128.New(s.hi[g], s.lo[g]), s.scale)
		if x := s.big[int32(g)]; x != nil {
			sum.U.Add(&sum.U, x)
		}
		return sum
	})
}

// wideSumState sums a Decimal256 column (arithmetic results of 39 to 76
// digits) per group in 256 bits, moving a group to a big.Int when that
// would overflow.
type wideSumState struct {
	scale int32
	avg   bool
	out   types.T
	sum   [][4]uint64
	cnt   []int64
	big   map[int32]*big.Int
}

func (s *wideSumState) grow(g int) {
	s.sum = append(s.sum, make([][4]uint64, g-len(s.sum))...)
	s.cnt = append(s.cnt, make([]int64, g-len(s.cnt))...)
}

func (s *wideSumState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	v := arrow.GetValues[decimal256.Num](arg.Data(), 1)
	nulls := arg.NullN() > 0
	for i, g := range gids {
		if nulls && arg.IsNull(i) {
			continue
		}
		s.cnt[g]++
		x, acc := v[i].Array(), s.sum[g]
		var r [4]uint64
		var c uint64
		for k := range r {
			r[k], c = bits.Add64(acc[k], x[k], c)
		}
		if neg(acc) == neg(x) && neg(r) != neg(acc) {
			if s.big == nil {
				s.big = map[int32]*big.Int{}
			}
			b := s.big[g]
			if b == nil {
				b = new(big.Int)
				s.big[g] = b
			}
			b.Add(b, decimal256.New(acc[3], acc[2], acc[1], acc[0]).BigInt())
			r = x
		}
		s.sum[g] = r
	}
}

func neg(a [4]uint64) bool { return int64(a[3]) < 0 }

func (s *wideSumState) finish() (arrow.Array, error) {
	return finishSums(s.out, s.cnt, s.avg, func(g int) types.Dec {
		a := s.sum[g]
		sum := types.WideToDec(decimal256.New(a[3], a[2], a[1], a[0]), s.scale)
		if x := s.big[int32(g)]; x != nil {
			sum.U.Add(&sum.U, x)
		}
		return sum
	})
}

// decimalMinMaxState keeps each group's least or greatest scaled integer
// (one scale for the column), compared as integers.
type decimalMinMaxState struct {
	t    types.T
	max  bool
	best []decimal128.Num
	set  []bool
}

func (s *decimalMinMaxState) grow(g int) {
	s.best = append(s.best, make([]decimal128.Num, g-len(s.best))...)
	s.set = append(s.set, make([]bool, g-len(s.set))...)
}

func (s *decimalMinMaxState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	v := arrow.GetValues[decimal128.Num](arg.Data(), 1)
	nulls := arg.NullN() > 0
	for i, g := range gids {
		if nulls && arg.IsNull(i) {
			continue
		}
		if !s.set[g] || (s.max && v[i].Greater(s.best[g])) || (!s.max && v[i].Less(s.best[g])) {
			s.best[g], s.set[g] = v[i], true
		}
	}
}

func (s *decimalMinMaxState) finish() (arrow.Array, error) {
	p, sc, _ := s.t.Decimal()
	b := array.NewDecimal128Builder(memory.DefaultAllocator, &arrow.Decimal128Type{Precision: p, Scale: sc})
	defer b.Release()
	b.Reserve(len(s.best))
	for g, v := range s.best {
		if !s.set[g] {
			b.AppendNull()
			continue
		}
		b.UnsafeAppend(v)
	}
	return b.NewArray(), nil
}
