package types

import (
	"math/big"
	"math/bits"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/loamdb/loam/pgerr"
)

// Numeric values whose scale is known from their type travel in batches as
// scaled integers in Arrow Decimal128 columns: a numeric(p,s) with
// 0 <= s <= p <= 38, and the results of + - * over such values (and
// integers), whose every value has the scale PostgreSQL's rules give
// (T.DecPrec). Every other numeric — unconstrained columns, division,
// anything that could pass 38 digits — travels as exact text (Dec).

// MaxDecimalPrecision is the widest numeric carried as a Decimal128.
const MaxDecimalPrecision = 38

// Decimal reports whether values of t travel as Decimal128(p, s).
func (t T) Decimal() (p, s int32, ok bool) {
	if t.Kind != Numeric || t.Scale < 0 {
		return 0, 0, false
	}
	p = t.Width
	if p < 0 {
		p = t.DecPrec
	}
	if p < 1 || p > MaxDecimalPrecision || t.Scale > p {
		return 0, 0, false
	}
	return p, t.Scale, true
}

// DecimalOf is the unconstrained numeric whose values all have scale s and
// at most p digits: carried as Decimal128(p, s), reported to clients as
// plain numeric; from 39 digits a Decimal256 (see Wide), and past 76 the
// text-carried numeric.
func DecimalOf(p, s int32) T {
	if p > MaxWidePrecision || s < 0 || s > p {
		return TNumeric
	}
	return T{Kind: Numeric, Width: -1, Scale: s, DecPrec: max(p, 1)}
}

// DecimalArrow is the Arrow type of a decimal-carried numeric.
func DecimalArrow(p, s int32) arrow.DataType {
	return &arrow.Decimal128Type{Precision: p, Scale: s}
}

// Pow10Num is 10^n as a 128-bit integer, 0 <= n <= 38.
func Pow10Num(n int32) decimal128.Num { return decimal128.GetScaleMultiplier(int(n)) }

// AppendDecimal prints v × 10^-scale as numeric's output function does:
// exactly scale digits after the point.
func AppendDecimal(buf []byte, v decimal128.Num, scale int32) []byte {
	hi, lo := v.HighBits(), v.LowBits()
	if (hi == 0 && lo <= 1<<63-1) || (hi == -1 && lo >= 1<<63) {
		return appendScaled(buf, int64(lo), scale)
	}
	return appendDigits(buf, v.BigInt().String(), scale)
}

// appendScaled is AppendDecimal for a value that fits in int64.
func appendScaled(buf []byte, m int64, scale int32) []byte {
	var tmp [24]byte
	u := uint64(m)
	if m < 0 {
		buf = append(buf, '-')
		u = uint64(-m)
	}
	return appendDigits(buf, string(strconv.AppendUint(tmp[:0], u, 10)), scale)
}

// appendDigits places the point scale digits from the end of an unsigned
// (or '-'-led) digit string, padding with zeros.
func appendDigits(buf []byte, s string, scale int32) []byte {
	if len(s) > 0 && s[0] == '-' {
		buf = append(buf, '-')
		s = s[1:]
	}
	sc := int(scale)
	if sc <= 0 {
		return append(buf, s...)
	}
	if len(s) <= sc {
		buf = append(buf, '0', '.')
		for i := len(s); i < sc; i++ {
			buf = append(buf, '0')
		}
		return append(buf, s...)
	}
	buf = append(buf, s[:len(s)-sc]...)
	buf = append(buf, '.')
	return append(buf, s[len(s)-sc:]...)
}

// DecimalString is AppendDecimal as a string.
func DecimalString(v decimal128.Num, scale int32) string {
	return string(AppendDecimal(nil, v, scale))
}

// DecToNum rounds d to numeric(p,s) (half away from zero) as a scaled
// 128-bit integer, 22003 when it does not fit.
func DecToNum(d Dec, p, s int32) (decimal128.Num, error) {
	r, err := d.Fit(p, s)
	if err != nil {
		return decimal128.Num{}, err
	}
	return decimal128.FromBigInt(&r.U), nil
}

// NumToDec is the exact decimal of v × 10^-scale.
func NumToDec(v decimal128.Num, scale int32) Dec {
	var d Dec
	if v.HighBits() == 0 && v.LowBits() <= 1<<63-1 || v.HighBits() == -1 && v.LowBits() >= 1<<63 {
		d.U.SetInt64(int64(v.LowBits()))
	} else {
		d.U.Set(v.BigInt())
	}
	d.Scale = scale
	return d
}

// ParseDecimal reads numeric text into numeric(p,s), rounding half away
// from zero; errors are numeric input's (22P02) and overflow (22003).
func ParseDecimal(text string, p, s int32) (decimal128.Num, error) {
	if m, sc, ok := parseSmall(text); ok && sc <= s && s-sc <= 18 {
		if v, ok := mulPow10(m, s-sc); ok && absLess(v, p) {
			return decimal128.FromI64(v), nil
		}
	}
	d, err := ParseDec(text)
	if err != nil {
		return decimal128.Num{}, err
	}
	return DecToNum(d, p, s)
}

// parseSmall reads [-+]digits[.digits] of at most 18 digits.
func parseSmall(s string) (m int64, scale int32, ok bool) {
	i, neg := 0, false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var u uint64
	digits, point, start := 0, false, i
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			if digits++; digits > 18 {
				return 0, 0, false
			}
			u = u*10 + uint64(c-'0')
			if point {
				scale++
			}
		case c == '.' && !point:
			point = true
		default:
			return 0, 0, false
		}
	}
	if digits == 0 || i == start {
		return 0, 0, false
	}
	m = int64(u)
	if neg {
		m = -m
	}
	return m, scale, true
}

var pow10i64 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// Pow10Int64 is 10^n for 0 <= n <= 18.
func Pow10Int64(n int32) int64 { return pow10i64[n] }

// mulPow10 is m × 10^k, ok false past int64.
func mulPow10(m int64, k int32) (int64, bool) {
	if k == 0 {
		return m, true
	}
	if k > 18 {
		return 0, m == 0
	}
	u := uint64(m)
	if m < 0 {
		u = uint64(-m)
	}
	hi, lo := bits.Mul64(u, uint64(pow10i64[k]))
	if hi != 0 || lo > 1<<63-1 {
		return 0, false
	}
	if m < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

// absLess reports |v| < 10^p for an int64 v.
func absLess(v int64, p int32) bool {
	if p > 18 {
		return true
	}
	if v < 0 {
		v = -v
	}
	return v < pow10i64[p]
}

// DecimalOverflow is numeric(p,s)'s 22003.
func DecimalOverflow(p, s int32) error {
	return &pgerr.Error{Code: pgerr.NumericValueOutOfRange, Message: "numeric field overflow",
		Detail: "A field with precision " + itoa(int64(p)) + ", scale " + itoa(int64(s)) +
			" must round to an absolute value less than 10^" + itoa(int64(p-s)) + "."}
}

// NumFitsPrecision reports |v| < 10^p.
func NumFitsPrecision(v decimal128.Num, p int32) bool {
	return v.Abs().Less(Pow10Num(p))
}

// RescaleNum moves v from scale from to scale to, rounding half away from
// zero when digits are dropped; ok is false when the result passes 38
// digits.
func RescaleNum(v decimal128.Num, from, to int32) (decimal128.Num, bool) {
	switch {
	case to == from:
		return v, true
	case to > from:
		k := to - from
		if k > MaxDecimalPrecision {
			return v, v.Sign() == 0
		}
		if !NumFitsPrecision(v, MaxDecimalPrecision-k) {
			return decimal128.Num{}, false
		}
		return v.Mul(Pow10Num(k)), true
	}
	k := from - to
	if k > MaxDecimalPrecision {
		return decimal128.Num{}, true
	}
	var q, r big.Int
	q.QuoRem(v.BigInt(), Pow10Num(k).BigInt(), &r)
	r.Abs(&r)
	r.Lsh(&r, 1)
	if r.Cmp(Pow10Num(k).BigInt()) >= 0 {
		q.Add(&q, big.NewInt(int64(v.Sign())))
	}
	return decimal128.FromBigInt(&q), true
}
