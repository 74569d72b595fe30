package agg

import (
	"bytes"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// boolState is bool_and/every and bool_or.
type boolState struct {
	and      bool
	has, val []bool
}

func (s *boolState) grow(g int) {
	s.has = append(s.has, make([]bool, g-len(s.has))...)
	s.val = append(s.val, make([]bool, g-len(s.val))...)
}

func (s *boolState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	a := arg.(*array.Boolean)
	nulls := a.NullN() > 0
	for i, g := range gids {
		if nulls && a.IsNull(i) {
			continue
		}
		v := a.Value(i)
		switch {
		case !s.has[g]:
			s.has[g], s.val[g] = true, v
		case s.and:
			s.val[g] = s.val[g] && v
		default:
			s.val[g] = s.val[g] || v
		}
	}
}

func (s *boolState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(types.TBool, len(s.has))
	for g, ok := range s.has {
		if !ok {
			b.AppendNull()
			continue
		}
		b.Append(types.BoolDatum(s.val[g]))
	}
	return b.Finish(), nil
}

// varKind says which of the four variance/stddev aggregates a state computes.
type varKind struct{ sample, stddev bool }

func newVarState(a Agg, argT types.T) state {
	k := varKind{sample: a.Fn == StddevSamp || a.Fn == VarSamp, stddev: a.Fn == StddevSamp || a.Fn == StddevPop}
	switch argT.Kind {
	case types.Int2, types.Int4, types.Int8:
		return &intVarState{k: k, argT: argT}
	case types.Float4, types.Float8:
		return &floatVarState{k: k, argT: argT}
	}
	return &decVarState{k: k}
}

// floatVarState follows PostgreSQL's float8_accum: the Youngs-Cramer
// update of (N, Sx, Sxx), so results agree with it to the last bit.
type floatVarState struct {
	k          varKind
	argT       types.T
	n, sx, sx2 []float64
	overflow   bool
}

func (s *floatVarState) grow(g int) {
	s.n = append(s.n, make([]float64, g-len(s.n))...)
	s.sx = append(s.sx, make([]float64, g-len(s.sx))...)
	s.sx2 = append(s.sx2, make([]float64, g-len(s.sx2))...)
}

func (s *floatVarState) add(g int32, v float64) {
	n0 := s.n[g]
	n := n0 + 1
	sx := s.sx[g] + v
	sxx := s.sx2[g]
	if n0 > 0 {
		tmp := v*n - sx
		sxx += tmp * tmp / (n * n0)
		if math.IsInf(sx, 0) || math.IsInf(sxx, 0) {
			if !math.IsInf(s.sx[g], 0) && !math.IsInf(v, 0) {
				s.overflow = true
			}
			sxx = math.NaN()
		}
	} else if math.IsNaN(v) || math.IsInf(v, 0) {
		sxx = math.NaN()
	}
	s.n[g], s.sx[g], s.sx2[g] = n, sx, sxx
}

func (s *floatVarState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	nulls := arg.NullN() > 0
	if s.argT.Kind == types.Float4 {
		v := arrow.GetValues[float32](arg.Data(), 1)
		for i, g := range gids {
			if !nulls || arg.IsValid(i) {
				s.add(g, float64(v[i]))
			}
		}
		return
	}
	v := arrow.GetValues[float64](arg.Data(), 1)
	for i, g := range gids {
		if !nulls || arg.IsValid(i) {
			s.add(g, v[i])
		}
	}
}

func (s *floatVarState) finish() (arrow.Array, error) {
	if s.overflow {
		return nil, pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
	}
	b := expr.NewBuilder(types.TFloat8, len(s.n))
	for g, n := range s.n {
		if n == 0 || (s.k.sample && n <= 1) {
			b.AppendNull()
			continue
		}
		d := n
		if s.k.sample {
			d = n - 1
		}
		r := s.sx2[g] / d
		if s.k.stddev {
			r = math.Sqrt(r)
		}
		b.Append(types.Float8Datum(r))
	}
	return b.Finish(), nil
}

// intVarState keeps exact sums of x and x² in 128 bits (as PostgreSQL's
// int128 accumulators do), carrying x² overflow into a counter of 2^128s.
type intVarState struct {
	k          varKind
	argT       types.T
	n          []int64
	sxHi       []int64
	sxLo       []uint64
	sx2Hi      []uint64
	sx2Lo      []uint64
	sx2Carries map[int32]int64
}

func (s *intVarState) grow(g int) {
	s.n = append(s.n, make([]int64, g-len(s.n))...)
	s.sxHi = append(s.sxHi, make([]int64, g-len(s.sxHi))...)
	s.sxLo = append(s.sxLo, make([]uint64, g-len(s.sxLo))...)
	s.sx2Hi = append(s.sx2Hi, make([]uint64, g-len(s.sx2Hi))...)
	s.sx2Lo = append(s.sx2Lo, make([]uint64, g-len(s.sx2Lo))...)
}

func (s *intVarState) add(g int32, x int64) {
	s.n[g]++
	lo, c := bits.Add64(s.sxLo[g], uint64(x), 0)
	s.sxLo[g] = lo
	s.sxHi[g] += int64(c) + x>>63
	ax := uint64(x)
	if x < 0 {
		ax = -ax
	}
	h, l := bits.Mul64(ax, ax)
	lo, c = bits.Add64(s.sx2Lo[g], l, 0)
	hi, c2 := bits.Add64(s.sx2Hi[g], h, c)
	s.sx2Lo[g], s.sx2Hi[g] = lo, hi
	if c2 != 0 {
		if s.sx2Carries == nil {
			s.sx2Carries = map[int32]int64{}
		}
		s.sx2Carries[g]++
	}
}

func (s *intVarState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
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

func u128(hi, lo uint64) *big.Int {
	r := new(big.Int).SetUint64(hi)
	r.Lsh(r, 64)
	return r.Or(r, new(big.Int).SetUint64(lo))
}

func (s *intVarState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(types.TNumeric, len(s.n))
	for g, n := range s.n {
		var sx, sx2 types.Dec
		// Two's complement 128-bit sum to big.Int.
		sx.U.Set(u128(uint64(s.sxHi[g]), s.sxLo[g]))
		if s.sxHi[g] < 0 {
			sx.U.Sub(&sx.U, new(big.Int).Lsh(big.NewInt(1), 128))
		}
		sx2.U.Set(u128(s.sx2Hi[g], s.sx2Lo[g]))
		if c := s.sx2Carries[int32(g)]; c != 0 {
			sx2.U.Add(&sx2.U, new(big.Int).Lsh(big.NewInt(c), 128))
		}
		d, err := numericVar(n, &sx, &sx2, s.k)
		if err != nil {
			return nil, err
		}
		b.Append(d)
	}
	return b.Finish(), nil
}

// decVarState sums numeric x and x² exactly.
type decVarState struct {
	k       varKind
	n       []int64
	sx, sx2 []types.Dec
}

func (s *decVarState) grow(g int) {
	s.n = append(s.n, make([]int64, g-len(s.n))...)
	s.sx = append(s.sx, make([]types.Dec, g-len(s.sx))...)
	s.sx2 = append(s.sx2, make([]types.Dec, g-len(s.sx2))...)
}

func (s *decVarState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	text := expr.NumericText(arg)
	for i, g := range gids {
		if arg.IsNull(i) {
			continue
		}
		d, err := types.ParseDec(text(i))
		if err != nil {
			continue // values in a numeric column are valid by construction
		}
		s.n[g]++
		s.sx[g] = s.sx[g].Add(&d)
		sq := d.Mul(&d)
		s.sx2[g] = s.sx2[g].Add(&sq)
	}
}

func (s *decVarState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(types.TNumeric, len(s.n))
	for g, n := range s.n {
		d, err := numericVar(n, &s.sx[g], &s.sx2[g], s.k)
		if err != nil {
			return nil, err
		}
		b.Append(d)
	}
	return b.Finish(), nil
}

// numericVar is PostgreSQL's numeric_stddev_internal: (N·Σx² − (Σx)²) over
// N(N−1) or N², at select_div_scale's scale, square-rooted at that scale.
func numericVar(n int64, sx, sx2 *types.Dec, k varKind) (types.Datum, error) {
	if n == 0 || (k.sample && n <= 1) {
		return types.NullOf(types.TNumeric), nil
	}
	rscale := sx.Scale * 2
	N := types.DecFromInt(n)
	sq := sx.Mul(sx).Rescale(rscale)
	nsx2 := N.Mul(sx2).Rescale(rscale)
	num := nsx2.Sub(&sq)
	if num.Sign() <= 0 {
		return types.Datum{T: types.TNumeric, S: "0"}, nil
	}
	var den types.Dec
	if k.sample {
		den.U.Mul(big.NewInt(n), big.NewInt(n-1))
	} else {
		den.U.Mul(big.NewInt(n), big.NewInt(n))
	}
	q, err := num.Div(&den)
	if err != nil {
		return types.Datum{}, err
	}
	if k.stddev {
		q = sqrtDec(q)
	}
	return types.Datum{T: types.TNumeric, S: q.String()}, nil
}

// sqrtDec is the square root of a non-negative d, correctly rounded to
// d's scale.
func sqrtDec(d types.Dec) types.Dec {
	// sqrt(U·10^-s)·10^(s+1) = sqrt(U·10^(s+2)).
	v := new(big.Int).Mul(&d.U, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)+2), nil))
	var r types.Dec
	r.U.Sqrt(v)
	r.Scale = d.Scale + 1
	return r.Rescale(d.Scale)
}

// cmpDatum orders two non-NULL values of type t as PostgreSQL's default
// btree opclass does (NaN above all floats; byte order for text).
func cmpDatum(t types.T, a, b *types.Datum) int {
	switch t.Kind {
	case types.Float4, types.Float8:
		return cmpF(a.F, b.F)
	case types.Numeric:
		return expr.CompareNumericText(a.S, b.S)
	case types.Bytea:
		return bytes.Compare(a.B, b.B)
	case types.JSONB:
		return expr.CompareJSONB(a.S, b.S)
	case types.Text, types.Varchar, types.Char, types.UUID, types.Unknown, types.Array, types.JSON:
		return strings.Compare(a.S, b.S)
	}
	return cmpInt(a.I, b.I)
}

// collectState buffers each group's rows for string_agg and array_agg,
// whose result depends on the order of its input.
type collectState struct {
	fn     Func
	argT   types.T
	out    types.T
	order  []Order
	ordTs  []types.T
	hasDel bool
	arg2T  types.T // Arg2's type: the delimiter's, json_object_agg's value's
	loc    *time.Location
	rows   [][]crow
	trash  bool
}

type crow struct {
	v, delim types.Datum
	keys     []types.Datum
}

func newCollectState(a Agg, ec *expr.Ctx) state {
	s := &collectState{fn: a.Fn, argT: a.Arg.Type(), out: a.T, order: a.Order, hasDel: a.Arg2 != nil}
	if a.Arg2 != nil {
		s.arg2T = a.Arg2.Type()
	}
	if ec != nil {
		s.loc = ec.Loc
	}
	for _, o := range a.Order {
		s.ordTs = append(s.ordTs, o.Expr.Type())
	}
	return s
}

func (s *collectState) grow(g int) {
	for len(s.rows) < g {
		s.rows = append(s.rows, nil)
	}
}

func (s *collectState) update(gids []int32, arg arrow.Array, extra []arrow.Array) {
	keyCols := extra
	var delim arrow.Array
	if s.hasDel {
		delim, keyCols = extra[0], extra[1:]
	}
	for i, g := range gids {
		if g == 0 && s.trash {
			continue
		}
		null := arg.IsNull(i)
		if null && s.fn == StringAgg {
			continue
		}
		// Strings are cloned so the state does not pin whole batches.
		r := crow{v: types.NullOf(s.argT)}
		if !null {
			r.v = types.DatumAt(s.argT, arg, i)
			r.v.S = strings.Clone(r.v.S)
		}
		if delim != nil {
			if delim.IsNull(i) {
				r.delim = types.NullOf(s.arg2T)
			} else {
				r.delim = types.DatumAt(s.arg2T, delim, i)
				r.delim.S = strings.Clone(r.delim.S)
			}
		}
		if len(keyCols) > 0 {
			r.keys = make([]types.Datum, len(keyCols))
			for k, c := range keyCols {
				if c.IsNull(i) {
					r.keys[k] = types.NullOf(s.ordTs[k])
				} else {
					r.keys[k] = types.DatumAt(s.ordTs[k], c, i)
					r.keys[k].S = strings.Clone(r.keys[k].S)
				}
			}
		}
		s.rows[g] = append(s.rows[g], r)
	}
}

func (s *collectState) less(a, b *crow) bool {
	for k, o := range s.order {
		x, y := &a.keys[k], &b.keys[k]
		var c int
		switch {
		case x.Null && y.Null:
			continue
		case x.Null:
			c = 1
			if o.NullsFirst {
				c = -1
			}
			return c < 0
		case y.Null:
			c = -1
			if o.NullsFirst {
				c = 1
			}
			return c < 0
		}
		c = cmpDatum(s.ordTs[k], x, y)
		if c == 0 {
			continue
		}
		if o.Desc {
			c = -c
		}
		return c < 0
	}
	return false
}

func (s *collectState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(s.out, len(s.rows))
	var buf []byte
	for _, rows := range s.rows {
		if len(rows) == 0 {
			b.AppendNull()
			continue
		}
		if len(s.order) > 0 {
			sort.SliceStable(rows, func(i, j int) bool { return s.less(&rows[i], &rows[j]) })
		}
		buf = buf[:0]
		switch s.fn {
		case JSONAgg, JSONBAgg, JSONObjectAgg, JSONBObjectAgg:
			d, err := s.jsonOf(rows)
			if err != nil {
				b.Finish().Release()
				return nil, err
			}
			b.Append(d)
			continue
		}
		if s.fn == StringAgg {
			for i, r := range rows {
				if i > 0 && !r.delim.Null {
					buf = append(buf, r.delim.S...)
				}
				buf = append(buf, r.v.S...)
			}
		} else {
			buf = append(buf, '{')
			for i, r := range rows {
				if i > 0 {
					buf = append(buf, ',')
				}
				if r.v.Null {
					buf = append(buf, "NULL"...)
					continue
				}
				buf = types.AppendArrayElem(buf, types.FormatText(r.v, s.loc))
			}
			buf = append(buf, '}')
		}
		b.Append(types.Datum{T: s.out, S: string(buf)})
	}
	return b.Finish(), nil
}

// jsonOf builds a json aggregate's value of a group's rows: json_agg
// and json_object_agg print as PostgreSQL's do ("[1, 2]", "{ "a" : 1 }"),
// the jsonb ones normalize that text.
func (s *collectState) jsonOf(rows []crow) (types.Datum, error) {
	c := &expr.Ctx{Loc: s.loc}
	var b strings.Builder
	object := s.fn == JSONObjectAgg || s.fn == JSONBObjectAgg
	if object {
		b.WriteString("{ ")
	} else {
		b.WriteByte('[')
	}
	for i, r := range rows {
		if i > 0 {
			b.WriteString(", ")
			if s.fn == JSONAgg && !r.v.Null && (s.argT.Kind == types.Array || s.argT.Kind == types.Record) {
				// json_agg puts each array or row after the first on a
				// line of its own, as PostgreSQL's does.
				b.WriteString("\n ")
			}
		}
		if !object {
			expr.AppendToJSON(&b, c, r.v)
			continue
		}
		if r.v.Null {
			return types.Datum{}, pgerr.New(pgerr.InvalidParameterValue, "field name must not be null")
		}
		types.AppendJSONString(&b, expr.JSONKeyText(c, r.v))
		b.WriteString(" : ")
		expr.AppendToJSON(&b, c, r.delim)
	}
	if object {
		b.WriteString(" }")
	} else {
		b.WriteByte(']')
	}
	if s.fn == JSONAgg || s.fn == JSONObjectAgg {
		return types.Datum{T: types.TJSON, S: b.String()}, nil
	}
	n, err := types.NormalizeJSONB(b.String())
	return types.Datum{T: types.TJSONB, S: n}, err
}

// contState is percentile_cont over float8: each group's values, sorted at
// the end.
type contState struct {
	fr    fractions
	desc  bool
	vals  [][]float64
	trash bool
}

func (s *contState) grow(g int) {
	for len(s.vals) < g {
		s.vals = append(s.vals, nil)
	}
}

func (s *contState) update(gids []int32, arg arrow.Array, extra []arrow.Array) {
	s.fr.note(gids, extra, s.trash)
	nulls := arg.NullN() > 0
	v := arrow.GetValues[float64](arg.Data(), 1)
	for i, g := range gids {
		if (!nulls || arg.IsValid(i)) && (g != 0 || !s.trash) {
			if len(s.vals[g]) == cap(s.vals[g]) {
				s.vals[g] = doubled(s.vals[g])
			}
			s.vals[g] = append(s.vals[g], v[i])
		}
	}
}

// doubled is v with twice the capacity: append grows large slices by a
// quarter at a time, which copies a percentile's millions of values over
// and over.
func doubled[T any](v []T) []T {
	out := make([]T, len(v), max(2*cap(v), 1024))
	copy(out, v)
	return out
}

// nanLast moves NaNs to the end (PostgreSQL sorts them above every float)
// and returns how many values are not NaN.
func nanLast(v []float64) int {
	w := 0
	for _, f := range v {
		if f == f {
			v[w] = f
			w++
		}
	}
	for i := w; i < len(v); i++ {
		v[i] = math.NaN()
	}
	return w
}

// selectKth partially orders v so v[k] is the k-th smallest, all before
// it no larger and all after no smaller (quickselect, median of three):
// linear time where a percentile needs only one or two ranks.
func selectKth(v []float64, k int) {
	lo, hi := 0, len(v)-1
	for hi-lo > 16 {
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		p := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < p {
				i++
			}
			for v[j] > p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
	slices.Sort(v[lo : hi+1])
}

// rank returns the k-th smallest value (0-based) of v, NaNs last, when the
// first n values are the non-NaN ones; it may reorder v.
func rank(v []float64, n, k int) float64 {
	if k >= n {
		return math.NaN()
	}
	selectKth(v[:n], k)
	return v[k]
}

func (s *contState) finish() (arrow.Array, error) {
	out := types.TFloat8
	if s.fr.multi {
		out = types.ArrayOf(types.Float8)
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
		// A single fraction is checked before the rows are looked at, an
		// array's elements only for a group with values, as in PostgreSQL.
		if !s.fr.multi {
			if err := CheckFrac(frac); err != nil {
				return fail(err)
			}
		}
		if len(v) == 0 {
			b.AppendNull()
			continue
		}
		n := nanLast(v)
		at := func(i int) float64 {
			if s.desc {
				i = len(v) - 1 - i
			}
			return rank(v, n, i)
		}
		cont := func(p float64) float64 {
			pos := p * float64(len(v)-1)
			first, second := math.Floor(pos), math.Ceil(pos)
			lo := at(int(first))
			if first == second {
				return lo
			}
			hi := at(int(second))
			return lo + (hi-lo)*(pos-first)
		}
		if !s.fr.multi {
			b.Append(types.Float8Datum(cont(frac.F)))
		} else {
			d, err := multiResult(frac, out, func(p float64) string { return types.FormatFloat8(cont(p)) })
			if err != nil {
				return fail(err)
			}
			b.Append(d)
		}
		s.vals[g] = nil
	}
	return b.Finish(), nil
}

// discState is percentile_disc and mode: each group's values as Datums,
// sorted at the end.
type discState struct {
	t     types.T
	fr    fractions
	loc   *time.Location // for timestamptz elements of an array result
	desc  bool
	mode  bool
	vals  [][]types.Datum
	trash bool
}

func (s *discState) grow(g int) {
	for len(s.vals) < g {
		s.vals = append(s.vals, nil)
	}
}

func (s *discState) update(gids []int32, arg arrow.Array, extra []arrow.Array) {
	s.fr.note(gids, extra, s.trash)
	for i, g := range gids {
		if arg.IsValid(i) && (g != 0 || !s.trash) {
			d := types.DatumAt(s.t, arg, i)
			d.S = strings.Clone(d.S)
			if len(s.vals[g]) == cap(s.vals[g]) {
				s.vals[g] = doubled(s.vals[g])
			}
			s.vals[g] = append(s.vals[g], d)
		}
	}
}

func (s *discState) finish() (arrow.Array, error) {
	out := s.t
	if s.fr.multi && !s.mode {
		out = types.ArrayOf(s.t.Kind)
	}
	b := expr.NewBuilder(out, len(s.vals))
	fail := func(err error) (arrow.Array, error) {
		b.Finish().Release()
		return nil, err
	}
	for g, v := range s.vals {
		var frac types.Datum
		if !s.mode {
			var ok bool
			if frac, ok = s.fr.of(g); !ok || frac.Null {
				b.AppendNull()
				continue
			}
			if !s.fr.multi {
				if err := CheckFrac(frac); err != nil {
					return fail(err)
				}
			}
		}
		if len(v) == 0 {
			b.AppendNull()
			continue
		}
		slices.SortStableFunc(v, func(x, y types.Datum) int {
			c := cmpDatum(s.t, &x, &y)
			if s.desc {
				return -c
			}
			return c
		})
		disc := func(p float64) types.Datum {
			row := int64(math.Ceil(p * float64(len(v))))
			return v[max(row, 1)-1]
		}
		switch {
		case s.mode:
			// The most frequent value; among ties the first in sort order.
			best, bestN := 0, 0
			for i := 0; i < len(v); {
				j := i + 1
				for j < len(v) && cmpDatum(s.t, &v[i], &v[j]) == 0 {
					j++
				}
				if j-i > bestN {
					best, bestN = i, j-i
				}
				i = j
			}
			b.Append(v[best])
		case !s.fr.multi:
			b.Append(disc(frac.F))
		default:
			d, err := multiResult(frac, out, func(p float64) string { return types.FormatText(disc(p), s.loc) })
			if err != nil {
				return fail(err)
			}
			b.Append(d)
		}
		s.vals[g] = nil
	}
	return b.Finish(), nil
}

// trasher is a state that buffers rows: told that group 0 is the trash
// group of FILTER/DISTINCT, it drops those rows instead of keeping them.
type trasher interface{ setTrash() }

func (s *collectState) setTrash() { s.trash = true }
func (s *contState) setTrash()    { s.trash = true }
func (s *discState) setTrash()    { s.trash = true }
