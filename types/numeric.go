package types

import (
	"math"
	"math/big"
	"strings"

	"github.com/loamdb/loam/pgerr"
)

// Dec is an exact decimal: U × 10^-Scale. It is how numeric values compute;
// in a batch they travel as the text String returns.
type Dec struct {
	U     big.Int
	Scale int32
}

// ParseDec reads a numeric literal: sign, digits, point, exponent.
func ParseDec(s string) (Dec, error) {
	var d Dec
	str := strings.TrimSpace(s)
	bad := func() (Dec, error) {
		return Dec{}, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type numeric: %q", s)
	}
	if str == "" {
		return bad()
	}
	neg := false
	if str[0] == '+' || str[0] == '-' {
		neg = str[0] == '-'
		str = str[1:]
	}
	exp := int64(0)
	if i := strings.IndexAny(str, "eE"); i >= 0 {
		e, ok := parseSmallInt(str[i+1:])
		if !ok {
			return bad()
		}
		exp = e
		str = str[:i]
	}
	intPart, frac := str, ""
	if i := strings.IndexByte(str, '.'); i >= 0 {
		intPart, frac = str[:i], str[i+1:]
	}
	if intPart == "" && frac == "" {
		return bad()
	}
	for _, part := range [2]string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return bad()
			}
		}
	}
	digits := intPart + frac
	if digits == "" {
		digits = "0"
	}
	d.U.SetString(digits, 10)
	scale := int64(len(frac)) - exp
	if scale < 0 {
		d.U.Mul(&d.U, pow10(int32(-scale)))
		scale = 0
	}
	if scale > 16383 {
		return Dec{}, pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
	}
	d.Scale = int32(scale)
	if neg {
		d.U.Neg(&d.U)
	}
	return d, nil
}

func parseSmallInt(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	neg := false
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || len(s) > 6 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		v = v*10 + int64(s[i]-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

var pow10Cache [40]*big.Int

func init() {
	p := big.NewInt(1)
	for i := range pow10Cache {
		pow10Cache[i] = new(big.Int).Set(p)
		p.Mul(p, big.NewInt(10))
	}
}

func pow10(n int32) *big.Int {
	if int(n) < len(pow10Cache) {
		return pow10Cache[n]
	}
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// DecFromInt makes an integer decimal.
func DecFromInt(v int64) Dec {
	var d Dec
	d.U.SetInt64(v)
	return d
}

// DecFromFloat converts a float the way float8::numeric does: through its
// shortest text form (15 significant digits for float8 in PostgreSQL).
func DecFromFloat(f float64) (Dec, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Dec{}, pgerr.New(pgerr.FeatureNotSupported, "cannot convert %v to numeric", f)
	}
	return ParseDec(FormatFloat8(f))
}

// String prints the decimal with exactly Scale digits after the point.
func (d *Dec) String() string {
	s := d.U.String()
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if d.Scale > 0 {
		if len(s) <= int(d.Scale) {
			s = strings.Repeat("0", int(d.Scale)-len(s)+1) + s
		}
		s = s[:len(s)-int(d.Scale)] + "." + s[len(s)-int(d.Scale):]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Rescale rounds half away from zero (as PostgreSQL does) to scale digits.
func (d Dec) Rescale(scale int32) Dec {
	var r Dec
	r.Scale = scale
	switch {
	case scale == d.Scale:
		r.U.Set(&d.U)
	case scale > d.Scale:
		r.U.Mul(&d.U, pow10(scale-d.Scale))
	default:
		div := pow10(d.Scale - scale)
		var q, m big.Int
		q.QuoRem(&d.U, div, &m)
		m.Abs(&m)
		m.Mul(&m, big.NewInt(2))
		if m.Cmp(div) >= 0 {
			if d.U.Sign() < 0 {
				q.Sub(&q, big.NewInt(1))
			} else {
				q.Add(&q, big.NewInt(1))
			}
		}
		r.U.Set(&q)
	}
	return r
}

// Fit rounds d to numeric(p,s), failing as PostgreSQL does when the integer
// part needs more than p-s digits.
func (d Dec) Fit(p, s int32) (Dec, error) {
	r := d.Rescale(s)
	var abs big.Int
	abs.Abs(&r.U)
	if abs.Cmp(pow10(p)) >= 0 {
		return Dec{}, &pgerr.Error{Code: pgerr.NumericValueOutOfRange, Message: "numeric field overflow",
			Detail: "A field with precision " + itoa(int64(p)) + ", scale " + itoa(int64(s)) +
				" must round to an absolute value less than 10^" + itoa(int64(p-s)) + "."}
	}
	return r, nil
}

func align(a, b *Dec) (x, y big.Int, scale int32) {
	scale = max(a.Scale, b.Scale)
	x.Mul(&a.U, pow10(scale-a.Scale))
	y.Mul(&b.U, pow10(scale-b.Scale))
	return x, y, scale
}

// Cmp compares two decimals.
func (d *Dec) Cmp(o *Dec) int {
	x, y, _ := align(d, o)
	return x.Cmp(&y)
}

// Add returns d+o.
func (d *Dec) Add(o *Dec) Dec {
	x, y, s := align(d, o)
	var r Dec
	r.U.Add(&x, &y)
	r.Scale = s
	return r
}

// Sub returns d-o.
func (d *Dec) Sub(o *Dec) Dec {
	x, y, s := align(d, o)
	var r Dec
	r.U.Sub(&x, &y)
	r.Scale = s
	return r
}

// Mul returns d*o with the sum of the scales, as PostgreSQL does.
func (d *Dec) Mul(o *Dec) Dec {
	var r Dec
	r.U.Mul(&d.U, &o.U)
	r.Scale = d.Scale + o.Scale
	return r
}

// Div returns d/o at the scale PostgreSQL's select_div_scale picks: at
// least 16 significant digits, never fewer than either input's scale.
func (d *Dec) Div(o *Dec) (Dec, error) {
	if o.U.Sign() == 0 {
		return Dec{}, pgerr.New(pgerr.DivisionByZero, "division by zero")
	}
	w1, f1 := baseWeight(d)
	w2, f2 := baseWeight(o)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := 16 - qweight*4
	rscale = max(rscale, d.Scale, o.Scale, 0)
	rscale = min(rscale, 1000)
	// q = d.U*10^(o.Scale - d.Scale + rscale + 1) / o.U, then round the extra digit.
	shift := o.Scale - d.Scale + rscale + 1
	var num, den big.Int
	num.Set(&d.U)
	den.Set(&o.U)
	if shift >= 0 {
		num.Mul(&num, pow10(shift))
	} else {
		den.Mul(&den, pow10(-shift))
	}
	var q Dec
	q.U.Quo(&num, &den)
	q.Scale = rscale + 1
	return q.Rescale(rscale), nil
}

// baseWeight returns the weight and first digit of d in PostgreSQL's base
// 10000 representation, which select_div_scale works in.
func baseWeight(d *Dec) (int32, int64) {
	var abs big.Int
	abs.Abs(&d.U)
	if abs.Sign() == 0 {
		return 0, 0
	}
	s := abs.String()
	intDigits := int32(len(s)) - d.Scale // digits before the point; may be <= 0
	// Pad so the integer part is a multiple of 4 digits and the fraction too.
	var weight int32
	if intDigits > 0 {
		weight = (intDigits+3)/4 - 1
		lead := int(intDigits - weight*4)
		first, _ := parseSmallInt(s[:lead])
		return weight, first
	}
	// Pure fraction: count leading zero groups after the point.
	zeros := -intDigits
	weight = -(zeros/4 + 1)
	fracStr := strings.Repeat("0", int(zeros)) + s
	start := int((zeros / 4) * 4)
	group := fracStr[start:min(start+4, len(fracStr))]
	group += strings.Repeat("0", 4-len(group))
	first, _ := parseSmallInt(group)
	return weight, first
}

// Float returns the nearest float64.
func (d *Dec) Float() float64 {
	f, _ := new(big.Float).SetPrec(200).Quo(new(big.Float).SetInt(&d.U), new(big.Float).SetInt(pow10(d.Scale))).Float64()
	return f
}

// Int64 rounds to an integer; ok is false when it does not fit.
func (d *Dec) Int64() (int64, bool) {
	r := d.Rescale(0)
	if !r.U.IsInt64() {
		return 0, false
	}
	return r.U.Int64(), true
}

// Sign returns -1, 0 or 1.
func (d *Dec) Sign() int { return d.U.Sign() }

func itoa(v int64) string { return big.NewInt(v).String() }
