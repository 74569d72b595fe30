package expr

import (
	"cmp"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// Kernels for numeric carried as scaled integers (types.T.Decimal): + - *
// at PostgreSQL's result scales, comparisons across scales, casts. Values
// of at most 18 digits compute in int64; wider ones in 128 bits. A
// numeric carried as text meets a decimal one through its text.

// decimalScale is the scale of a Decimal128 array, ok false for text.
func decimalScale(a arrow.Array) (int32, bool) {
	if dt, ok := a.DataType().(*arrow.Decimal128Type); ok {
		return dt.Scale, true
	}
	return 0, false
}

// NumericText reads a numeric column, whichever way it is carried, as
// numeric's text; the caller checks for NULL first.
func NumericText(a arrow.Array) func(i int) string {
	if sc, ok := decimalScale(a); ok {
		v := arrow.GetValues[decimal128.Num](a.Data(), 1)
		return func(i int) string { return types.DecimalString(v[i], sc) }
	}
	if dt, ok := a.DataType().(*arrow.Decimal256Type); ok {
		v := arrow.GetValues[decimal256.Num](a.Data(), 1)
		return func(i int) string { return string(types.AppendWide(nil, v[i], dt.Scale)) }
	}
	s := a.(*array.String)
	return s.Value
}

// fitsInt64 reports whether a 128-bit value fits in int64.
func fitsInt64(n decimal128.Num) bool {
	hi, lo := n.HighBits(), n.LowBits()
	return hi == 0 && lo <= math.MaxInt64 || hi == -1 && lo > math.MaxInt64
}

// DecimalArithType is the type of l op r for + - * when both operands are
// carried as decimals: PostgreSQL's result scale (the larger scale for +
// and -, the sum for *) and the most digits the result can have. ok is
// false for other operators or operands, and past 38 digits, where the
// text path computes exactly.
func DecimalArithType(op ArithOp, l, r types.T) (types.T, bool) {
	lp, ls, ok1 := decimalCarried(l)
	rp, rs, ok2 := decimalCarried(r)
	if !ok1 || !ok2 {
		return types.T{}, false
	}
	var p, s int32
	switch op {
	case Add, Sub:
		s = max(ls, rs)
		p = max(lp-ls, rp-rs) + 1 + s
	case Mul:
		s = ls + rs
		p = lp + rp
	default:
		return types.T{}, false
	}
	if p > types.MaxWidePrecision {
		return types.T{}, false
	}
	return types.DecimalOf(p, s), true
}

// decimalCarried is the precision and scale of a numeric carried as a
// Decimal128 or a Decimal256.
func decimalCarried(t types.T) (p, s int32, ok bool) {
	if p, s, ok = t.Decimal(); ok {
		return p, s, ok
	}
	return t.Wide()
}

// decimalArith computes l op r into Decimal128 values of type t, which
// DecimalArithType gave: the result cannot pass t's precision.
func decimalArith(op ArithOp, l, r arrow.Array, t types.T) (arrow.Array, error) {
	p, s, _ := t.Decimal()
	ls, _ := decimalScale(l)
	rs, _ := decimalScale(r)
	lp := l.DataType().(*arrow.Decimal128Type).Precision
	rp := r.DataType().(*arrow.Decimal128Type).Precision
	lv := arrow.GetValues[decimal128.Num](l.Data(), 1)
	rv := arrow.GetValues[decimal128.Num](r.Data(), 1)
	out := make([]decimal128.Num, l.Len())
	if p <= 18 {
		// Every operand and result fits in int64, and so does any operand
		// brought to the result's scale (it has at most p digits then).
		decimalArith64(op, lv, rv, out, pow10For(s-ls, op), pow10For(s-rs, op))
	} else if op == Mul && lp+rp <= 18 {
		for i := range out {
			out[i] = decimal128.FromI64(int64(lv[i].LowBits()) * int64(rv[i].LowBits()))
		}
	} else {
		lm, rm := types.Pow10Num(s-ls), types.Pow10Num(s-rs)
		for i := range out {
			a, b := lv[i], rv[i]
			switch op {
			case Add:
				out[i] = a.Mul(lm).Add(b.Mul(rm))
			case Sub:
				out[i] = a.Mul(lm).Sub(b.Mul(rm))
			case Mul:
				out[i] = mul128(a, b)
			}
		}
	}
	return decimalArray(out, p, s, l, r), nil
}

// pow10For is the factor that brings an operand to the result scale for +
// and -; * multiplies the mantissas as they are.
func pow10For(k int32, op ArithOp) int64 {
	if op == Mul {
		return 1
	}
	return types.Pow10Int64(k)
}

func decimalArith64(op ArithOp, lv, rv, out []decimal128.Num, lm, rm int64) {
	switch op {
	case Add:
		for i := range out {
			out[i] = decimal128.FromI64(int64(lv[i].LowBits())*lm + int64(rv[i].LowBits())*rm)
		}
	case Sub:
		for i := range out {
			out[i] = decimal128.FromI64(int64(lv[i].LowBits())*lm - int64(rv[i].LowBits())*rm)
		}
	case Mul:
		for i := range out {
			out[i] = decimal128.FromI64(int64(lv[i].LowBits()) * int64(rv[i].LowBits()))
		}
	}
}

// mul128 multiplies two values whose product is known to fit in 128 bits.
func mul128(a, b decimal128.Num) decimal128.Num {
	neg := (a.Sign() < 0) != (b.Sign() < 0)
	a, b = a.Abs(), b.Abs()
	hi, lo := bits.Mul64(a.LowBits(), b.LowBits())
	hi += uint64(a.HighBits())*b.LowBits() + a.LowBits()*uint64(b.HighBits())
	r := decimal128.New(int64(hi), lo)
	if neg {
		return r.Negate()
	}
	return r
}

// decimalArray wraps values as Decimal128(p, s), NULL where an input is,
// over the values' own memory.
func decimalArray(vals []decimal128.Num, p, s int32, inputs ...arrow.Array) arrow.Array {
	return typedArray(types.DecimalArrow(p, s), arrow.GetBytes(vals), len(vals), inputs...)
}

// compareNumeric compares two numeric columns, decimal or text, by value.
func compareNumeric(op CmpOp, l, r arrow.Array, out []bool) {
	ls, ok1 := decimalScale(l)
	rs, ok2 := decimalScale(r)
	if !ok1 || !ok2 {
		lt, rt := NumericText(l), NumericText(r)
		for i := range out {
			if l.IsNull(i) || r.IsNull(i) {
				continue
			}
			out[i] = op.holds(CompareNumericText(lt(i), rt(i)))
		}
		return
	}
	lv := arrow.GetValues[decimal128.Num](l.Data(), 1)
	rv := arrow.GetValues[decimal128.Num](r.Data(), 1)
	lp := l.DataType().(*arrow.Decimal128Type).Precision
	rp := r.DataType().(*arrow.Decimal128Type).Precision
	s := max(ls, rs)
	if max(lp-ls, rp-rs)+s <= 18 {
		lm, rm := types.Pow10Int64(s-ls), types.Pow10Int64(s-rs)
		for i := range out {
			a, b := int64(lv[i].LowBits())*lm, int64(rv[i].LowBits())*rm
			out[i] = op.holds(cmp.Compare(a, b))
		}
		return
	}
	for i := range out {
		out[i] = op.holds(CompareDecimals(lv[i], ls, rv[i], rs))
	}
}

// CompareDecimals compares a × 10^-as with b × 10^-bs.
func CompareDecimals(a decimal128.Num, as int32, b decimal128.Num, bs int32) int {
	if as == bs {
		return a.Cmp(b)
	}
	if as < bs {
		if x, ok := types.RescaleNum(a, as, bs); ok {
			return x.Cmp(b)
		}
	} else if y, ok := types.RescaleNum(b, bs, as); ok {
		return a.Cmp(y)
	}
	// Past 38 digits once aligned: compare exactly.
	da, db := types.NumToDec(a, as), types.NumToDec(b, bs)
	return da.Cmp(&db)
}

// castToDecimal converts a column of type from to numeric(p,s) carried as
// a decimal, with numeric's rounding and 22003; ok is false for sources
// it leaves to the Datum path.
func castToDecimal(v arrow.Array, from types.T, p, s int32) (arrow.Array, bool, error) {
	n := v.Len()
	out := make([]decimal128.Num, n)
	switch {
	case from.IsInteger():
		ints := intsOf(from, v)
		for i, x := range ints {
			if v.IsNull(i) {
				continue
			}
			m, ok := mulPow10(x, s)
			if !ok || !absBelow(m, p) {
				d, err := types.DecToNum(types.DecFromInt(x), p, s)
				if err != nil {
					return nil, true, err
				}
				out[i] = d
				continue
			}
			out[i] = decimal128.FromI64(m)
		}
	case from.Kind == types.Numeric:
		fs, dec := decimalScale(v)
		if !dec {
			text := NumericText(v)
			for i := range out {
				if v.IsNull(i) {
					continue
				}
				d, err := types.ParseDecimal(text(i), p, s)
				if err != nil {
					return nil, true, err
				}
				out[i] = d
			}
			break
		}
		vals := arrow.GetValues[decimal128.Num](v.Data(), 1)
		for i, x := range vals {
			if v.IsNull(i) {
				continue
			}
			r, ok := types.RescaleNum(x, fs, s)
			if !ok || !types.NumFitsPrecision(r, p) {
				return nil, true, types.DecimalOverflow(p, s)
			}
			out[i] = r
		}
	default:
		return nil, false, nil
	}
	return decimalArray(out, p, s, v), true, nil
}

func mulPow10(m int64, k int32) (int64, bool) {
	if k > 18 {
		return 0, m == 0
	}
	f := types.Pow10Int64(k)
	r := m * f
	if m != 0 && (r/m != f || (m == -1 && f == math.MinInt64)) {
		return 0, false
	}
	return r, true
}

// absBelow reports |v| < 10^p.
func absBelow(v int64, p int32) bool {
	if p > 18 {
		return true
	}
	if v < 0 {
		if v == math.MinInt64 {
			return false
		}
		v = -v
	}
	return v < types.Pow10Int64(p)
}

// castFromDecimal converts a decimal column to float or text numeric;
// ok is false for targets it leaves to the Datum path.
func castFromDecimal(v arrow.Array, to types.T) (arrow.Array, bool, error) {
	sc, _ := decimalScale(v)
	vals := arrow.GetValues[decimal128.Num](v.Data(), 1)
	n := v.Len()
	switch {
	case to.Kind == types.Float8 || to.Kind == types.Float4:
		// Through the shortest text, as numeric_float8 reads the value.
		fs := make([]float64, n)
		var buf []byte
		for i, x := range vals {
			if v.IsNull(i) {
				continue
			}
			if to.Kind == types.Float8 && fitsInt64(x) && sc <= 15 && uabs(int64(x.LowBits())) < 1<<53 {
				// Both exact in float64, so the quotient is the correctly
				// rounded value the text path would read.
				fs[i] = float64(int64(x.LowBits())) / float64(types.Pow10Int64(sc))
			} else {
				buf = types.AppendDecimal(buf[:0], x, sc)
				d, err := types.ParseText(to, string(buf), nil)
				if err != nil {
					return nil, true, err
				}
				fs[i] = d.F
			}
		}
		if to.Kind == types.Float4 {
			f32 := make([]float32, n)
			for i, f := range fs {
				f32[i] = float32(f)
			}
			return fixedArray(f32, v), true, nil
		}
		return fixedArray(fs, v), true, nil
	case to.Kind == types.Numeric:
		if _, _, ok := to.Decimal(); ok || to.Width >= 0 {
			return nil, false, nil
		}
		b := array.NewStringBuilder(memory.DefaultAllocator)
		defer b.Release()
		b.Reserve(n)
		var buf []byte
		for i, x := range vals {
			if v.IsNull(i) {
				b.AppendNull()
				continue
			}
			buf = types.AppendDecimal(buf[:0], x, sc)
			b.BinaryBuilder.Append(buf)
		}
		return b.NewArray(), true, nil
	}
	return nil, false, nil
}

// castNumeric is Cast.Eval for the casts decimals take part in; ok is
// false for those left to the Datum path.
func castNumeric(v arrow.Array, from, to types.T) (arrow.Array, bool, error) {
	if p, s, ok := to.Decimal(); ok && (from.IsInteger() || from.Kind == types.Numeric) {
		return castToDecimal(v, from, p, s)
	}
	if _, ok := decimalScale(v); ok && from.Kind == types.Numeric {
		return castFromDecimal(v, to)
	}
	return nil, false, nil
}

// repeatDecimal is Repeat for a decimal constant: parsed once.
func repeatDecimal(text string, p, s int32, n int) arrow.Array {
	v, err := types.ParseDecimal(text, p, s)
	if err != nil {
		panic("expr: " + err.Error()) // a constant of its type fits it
	}
	vals := make([]decimal128.Num, n)
	for i := range vals {
		vals[i] = v
	}
	return decimalArray(vals, p, s)
}
