package expr

import (
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

const (
	codeInvalidLog          = "2201E"
	codeInvalidPower        = "2201F"
	codeInvalidWidthBucket  = "2201G"
	numericMinSigDigits     = 16
	numericMaxDisplayScale  = 1000
	float8, numeric, int2k  = types.Float8, types.Numeric, types.Int2
	maxNumericWorkingDigits = 2000
)

func overflowErr() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: overflow")
}
func underflowErr() error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "value out of range: underflow")
}

// mapFloats is the columnar path of float8 → float8 functions.
func mapFloats(f func(float64) (float64, error)) VecFunc {
	return func(_ *Ctx, _ []Expr, vals []arrow.Array, n int) (arrow.Array, error) {
		if vals[0] == nil {
			return nil, nil
		}
		in := vals[0].(*array.Float64)
		bld := array.NewFloat64Builder(memory.DefaultAllocator)
		bld.Reserve(n)
		for i := 0; i < n; i++ {
			if in.IsNull(i) {
				bld.AppendNull()
				continue
			}
			v, err := f(in.Value(i))
			if err != nil {
				bld.Release()
				return nil, err
			}
			bld.Append(v)
		}
		return bld.NewArray(), nil
	}
}

func floatFn1(f func(float64) (float64, error)) Overload {
	return Overload{Args: []types.Kind{float8}, Ret: types.TFloat8, Strict: true, Vec: mapFloats(f),
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			v, err := f(a[0].F)
			return types.Float8Datum(v), err
		}}
}

func pure(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) { return f(x), nil }
}

// checked fails as PostgreSQL's float functions do when a finite input
// gives an infinite result, or (unless zeroOK) a zero one.
func checked(f func(float64) float64, zeroOK bool) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		r := f(x)
		if math.IsInf(r, 0) && !math.IsInf(x, 0) {
			return r, overflowErr()
		}
		if r == 0 && !zeroOK && x != 0 && !math.IsInf(x, -1) {
			return r, underflowErr()
		}
		return r, nil
	}
}

func logCheck(f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		if x == 0 {
			return 0, pgerr.New(codeInvalidLog, "cannot take logarithm of zero")
		}
		if x < 0 {
			return 0, pgerr.New(codeInvalidLog, "cannot take logarithm of a negative number")
		}
		return f(x), nil
	}
}

func trigIn(f func(float64) float64, lo, hi float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		if math.IsNaN(x) {
			return x, nil
		}
		if x < lo || x > hi || math.IsInf(x, 0) {
			return 0, pgerr.New(pgerr.NumericValueOutOfRange, "input is out of range")
		}
		return f(x), nil
	}
}

func fpow(x, y float64) (float64, error) {
	if x == 0 && y < 0 {
		return 0, pgerr.New(codeInvalidPower, "zero raised to a negative power is undefined")
	}
	if x < 0 && math.Floor(y) != y && !math.IsInf(y, 0) {
		return 0, pgerr.New(codeInvalidPower, "a negative number raised to a non-integer power yields a complex result")
	}
	r := math.Pow(x, y)
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return 0, overflowErr()
	}
	if r == 0 && x != 0 && !math.IsInf(y, 0) {
		return 0, underflowErr()
	}
	return r, nil
}

func widthBucket(x, lo, hi float64, count int64) (int64, error) {
	if count <= 0 {
		return 0, pgerr.New(codeInvalidWidthBucket, "count must be greater than zero")
	}
	if math.IsNaN(x) || math.IsNaN(lo) || math.IsNaN(hi) {
		return 0, pgerr.New(codeInvalidWidthBucket, "operand, lower bound, and upper bound cannot be NaN")
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, pgerr.New(codeInvalidWidthBucket, "lower and upper bounds must be finite")
	}
	c := float64(count)
	switch {
	case lo < hi:
		if x < lo {
			return 0, nil
		}
		if x >= hi {
			if count == math.MaxInt32 {
				return 0, pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
			}
			return count + 1, nil
		}
		return cInt32(c*(x-lo)/(hi-lo) + 1), nil
	case lo > hi:
		if x > lo {
			return 0, nil
		}
		if x <= hi {
			if count == math.MaxInt32 {
				return 0, pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
			}
			return count + 1, nil
		}
		return cInt32(c*(lo-x)/(lo-hi) + 1), nil
	}
	return 0, pgerr.New(codeInvalidWidthBucket, "lower bound cannot equal upper bound")
}

// cInt32 converts as C's (int32) cast does on x86: NaN and out-of-range
// values become INT_MIN (what PostgreSQL 15's width_bucket returns when
// huge bounds overflow).
func cInt32(f float64) int64 {
	if math.IsNaN(f) || f >= 2147483648 || f <= -2147483649 {
		return math.MinInt32
	}
	return int64(f)
}

// --- numeric ---

func dec(d types.Datum) (types.Dec, error) { return types.ParseDec(d.S) }

func numDatum(d types.Dec) types.Datum { return types.Datum{T: types.TNumeric, S: d.String()} }

// numFn wraps a numeric → numeric function.
func numFn(f func(a []types.Dec) (types.Dec, error), n int) Overload {
	args := make([]types.Kind, n)
	for i := range args {
		args[i] = numeric
	}
	return Overload{Args: args, Ret: types.TNumeric, Strict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			ds := make([]types.Dec, len(a))
			for i, d := range a {
				var err error
				if ds[i], err = dec(d); err != nil {
					return types.Datum{}, err
				}
			}
			r, err := f(ds)
			if err != nil {
				return types.Datum{}, err
			}
			return numDatum(r), nil
		}}
}

// decRound rounds half away from zero to scale s (s < 0 rounds left of
// the point); the result shows max(s, 0) digits, as numeric round does.
func decRound(d types.Dec, s int64, trunc bool) types.Dec {
	s = max(min(s, numericMaxDisplayScale), -numericMaxDisplayScale)
	var r types.Dec
	if trunc {
		r = truncTo(d, int32(s))
	} else {
		r = d.Rescale(int32(s))
	}
	if s < 0 {
		r.U.Mul(&r.U, new(big.Int).Exp(big.NewInt(10), big.NewInt(-s), nil))
		r.Scale = 0
	}
	return r
}

func truncTo(d types.Dec, s int32) types.Dec {
	var r types.Dec
	r.Scale = s
	if s >= d.Scale {
		r.U.Mul(&d.U, pow10(s-d.Scale))
		return r
	}
	r.U.Quo(&d.U, pow10(d.Scale-s))
	return r
}

func pow10(n int32) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// ceilFloor rounds to an integer toward +inf (ceil) or -inf.
func ceilFloor(d types.Dec, ceil bool) types.Dec {
	r := truncTo(d, 0)
	if back := truncTo(r, d.Scale); back.U.Cmp(&d.U) != 0 {
		if ceil && d.U.Sign() > 0 {
			r.U.Add(&r.U, big.NewInt(1))
		} else if !ceil && d.U.Sign() < 0 {
			r.U.Sub(&r.U, big.NewInt(1))
		}
	}
	return r
}

// base10000 describes d as PostgreSQL stores numerics: the weight of the
// first base-10000 digit, the first two digits and how many there are.
func base10000(d types.Dec) (weight int, digits []int64) {
	var abs big.Int
	abs.Abs(&d.U)
	if abs.Sign() == 0 {
		return 0, nil
	}
	s := abs.String()
	scale := int(d.Scale)
	intLen := len(s) - scale
	// Pad the integer part on the left and the fraction on the right to
	// whole groups of four.
	lead := (4 - ((intLen%4)+4)%4) % 4
	if intLen <= 0 {
		lead = 0
		s = repeatZero(-intLen) + s
		intLen = 0
	}
	s = repeatZero(lead) + s
	intLen += lead
	frac := len(s) - intLen
	s += repeatZero((4 - frac%4) % 4)
	weight = intLen/4 - 1
	for i := 0; i+4 <= len(s); i += 4 {
		var g int64
		for _, c := range s[i : i+4] {
			g = g*10 + int64(c-'0')
		}
		digits = append(digits, g)
	}
	for len(digits) > 0 && digits[0] == 0 {
		digits = digits[1:]
		weight--
	}
	for len(digits) > 0 && digits[len(digits)-1] == 0 {
		digits = digits[:len(digits)-1]
	}
	return weight, digits
}

func repeatZero(n int) string {
	if n <= 0 {
		return ""
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

func clampScale(r int) int32 {
	return int32(max(min(r, numericMaxDisplayScale), 0))
}

// estimateLnDweight is PostgreSQL's estimate_ln_dweight: roughly the
// decimal weight of ln(d), which picks the result scale of ln and log.
func estimateLnDweight(d types.Dec) int {
	lo, hi := types.Dec{Scale: 1}, types.Dec{Scale: 1}
	lo.U.SetInt64(9)
	hi.U.SetInt64(11)
	if d.Cmp(&lo) >= 0 && d.Cmp(&hi) <= 0 {
		one := types.DecFromInt(1)
		x := d.Sub(&one)
		w, digits := base10000(x)
		if len(digits) == 0 {
			return 0
		}
		return w*4 + int(math.Log10(float64(digits[0])))
	}
	w, digits := base10000(d)
	if len(digits) == 0 {
		return 0
	}
	v := digits[0]
	dweight := w * 4
	if len(digits) > 1 {
		v = v*10000 + digits[1]
		dweight -= 4
	}
	lnv := math.Log(float64(v)) + float64(dweight)*math.Ln10
	return int(math.Log10(math.Abs(lnv)))
}

func bigOf(d types.Dec, prec uint) *big.Float {
	f := new(big.Float).SetPrec(prec).SetInt(&d.U)
	return f.Quo(f, new(big.Float).SetPrec(prec).SetInt(pow10(d.Scale)))
}

// decOf rounds f half away from zero to scale digits.
func decOf(f *big.Float, scale int32) types.Dec {
	prec := f.Prec()
	x := new(big.Float).SetPrec(prec).Mul(f, new(big.Float).SetPrec(prec).SetInt(pow10(scale)))
	half := new(big.Float).SetPrec(prec).SetFloat64(0.5)
	if x.Sign() < 0 {
		x.Sub(x, half)
	} else {
		x.Add(x, half)
	}
	var r types.Dec
	x.Int(&r.U) // truncates toward zero
	r.Scale = scale
	return r
}

func precFor(scale int32, extraDigits int) uint {
	return uint((int(scale)+extraDigits+40)*10/3 + 64)
}

// bigExp is e^x by halving x until it is small, a Taylor series, then
// squaring back.
func bigExp(x *big.Float) *big.Float {
	prec := x.Prec()
	r := new(big.Float).SetPrec(prec).Set(x)
	k := 0
	lim := new(big.Float).SetFloat64(0.01)
	for new(big.Float).Abs(r).Cmp(lim) > 0 {
		r.Quo(r, big.NewFloat(2).SetPrec(prec))
		k++
	}
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	eps := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -int(prec))
	for n := int64(1); n < 10000; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	for ; k > 0; k-- {
		sum.Mul(sum, sum)
	}
	return sum
}

// bigLn is ln(x) for x > 0: square roots bring x near 1, then the atanh
// series; each root halves the logarithm, undone by a power of two.
func bigLn(x *big.Float) *big.Float {
	prec := x.Prec()
	r := new(big.Float).SetPrec(prec).Set(x)
	// Scale by powers of two first so the square roots start near 1.
	mant := new(big.Float).SetPrec(prec)
	e := r.MantExp(mant) // r = mant × 2^e, mant in [0.5, 1)
	r = mant
	k := 0
	lo, hi := big.NewFloat(0.99), big.NewFloat(1.01)
	for r.Cmp(lo) < 0 || r.Cmp(hi) > 0 {
		r.Sqrt(r)
		k++
	}
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	z := new(big.Float).SetPrec(prec).Sub(r, one)
	z.Quo(z, new(big.Float).SetPrec(prec).Add(r, one))
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	sum := new(big.Float).SetPrec(prec).Set(z)
	term := new(big.Float).SetPrec(prec).Set(z)
	eps := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -int(prec))
	for n := int64(3); n < 100000; n += 2 {
		term.Mul(term, z2)
		t := new(big.Float).SetPrec(prec).Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, t)
		if new(big.Float).Abs(t).Cmp(eps) < 0 {
			break
		}
	}
	sum.SetMantExp(sum, k+1) // × 2^(k+1): 2·atanh, undone roots
	if e != 0 {
		ln2 := bigLn2(prec)
		sum.Add(sum, new(big.Float).SetPrec(prec).Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(int64(e))))
	}
	return sum
}

// bigLn2 is ln 2 = -ln(1/2); 1/2 has a zero binary exponent, so bigLn
// takes it without recursing.
func bigLn2(prec uint) *big.Float {
	l := bigLn(new(big.Float).SetPrec(prec).SetFloat64(0.5))
	return l.Neg(l)
}

func numLnCheck(d types.Dec) error {
	switch d.Sign() {
	case 0:
		return pgerr.New(codeInvalidLog, "cannot take logarithm of zero")
	case -1:
		return pgerr.New(codeInvalidLog, "cannot take logarithm of a negative number")
	}
	return nil
}

func numLn(d types.Dec) (types.Dec, error) {
	if err := numLnCheck(d); err != nil {
		return types.Dec{}, err
	}
	rscale := clampScale(max(numericMinSigDigits-estimateLnDweight(d), int(d.Scale)))
	w, _ := base10000(d)
	prec := precFor(rscale, abs(w)*4)
	return decOf(bigLn(bigOf(d, prec)), rscale), nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func numLog(base, x types.Dec) (types.Dec, error) {
	if err := numLnCheck(base); err != nil {
		return types.Dec{}, err
	}
	if err := numLnCheck(x); err != nil {
		return types.Dec{}, err
	}
	rscale := clampScale(max(numericMinSigDigits-(estimateLnDweight(x)-estimateLnDweight(base)), int(base.Scale), int(x.Scale)))
	wb, _ := base10000(base)
	wx, _ := base10000(x)
	prec := precFor(rscale, (abs(wb)+abs(wx))*4+20)
	lb := bigLn(bigOf(base, prec))
	if lb.Sign() == 0 {
		return types.Dec{}, pgerr.New(pgerr.DivisionByZero, "division by zero")
	}
	lx := bigLn(bigOf(x, prec))
	return decOf(lx.Quo(lx, lb), rscale), nil
}

func numExp(d types.Dec) (types.Dec, error) {
	val := d.Float() * 0.434294481903252
	if val > 6000 {
		return types.Dec{}, pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
	}
	val = max(val, -numericMaxDisplayScale)
	rscale := clampScale(max(numericMinSigDigits-int(val), int(d.Scale)))
	prec := precFor(rscale, int(math.Abs(val))+10)
	return decOf(bigExp(bigOf(d, prec)), rscale), nil
}

func numSqrt(d types.Dec) (types.Dec, error) {
	if d.Sign() < 0 {
		return types.Dec{}, pgerr.New(codeInvalidPower, "cannot take square root of a negative number")
	}
	w, _ := base10000(d)
	sweight := (w+1)*4/2 - 1
	rscale := clampScale(max(numericMinSigDigits-sweight, int(d.Scale)))
	// sqrt(U/10^s) × 10^(rscale+1) = sqrt(U × 10^(2·rscale+2-s)), floored.
	e := 2*int64(rscale) + 2 - int64(d.Scale)
	n := new(big.Int).Set(&d.U)
	if e >= 0 {
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(e), nil))
	} else {
		n.Quo(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(-e), nil))
	}
	var r types.Dec
	r.U.Sqrt(n)
	r.Scale = rscale + 1
	return r.Rescale(rscale), nil
}

func numPower(x, y types.Dec) (types.Dec, error) {
	if x.Sign() == 0 && y.Sign() < 0 {
		return types.Dec{}, pgerr.New(codeInvalidPower, "zero raised to a negative power is undefined")
	}
	yi := truncTo(y, 0)
	back := truncTo(yi, y.Scale)
	isInt := back.U.Cmp(&y.U) == 0
	if x.Sign() < 0 && !isInt {
		return types.Dec{}, pgerr.New(codeInvalidPower, "a negative number raised to a non-integer power yields a complex result")
	}
	if isInt && yi.U.IsInt64() && yi.U.Int64() >= math.MinInt32 && yi.U.Int64() <= math.MaxInt32 {
		rscale := clampScale(max(numericMinSigDigits, int(x.Scale)))
		n := yi.U.Int64()
		if n == 0 {
			one := types.DecFromInt(1)
			return one.Rescale(rscale), nil
		}
		est := x.Float()
		if math.Abs(math.Log10(math.Abs(est))*float64(n)) > 131072 && x.Sign() != 0 {
			return types.Dec{}, pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
		}
		an := n
		if an < 0 {
			an = -an
		}
		if float64(an)*float64(len(x.U.String())) > 100000 {
			// The exact power would have too many digits to compute:
			// go through exp(n·ln|x|) at the precision the scale needs.
			prec := precFor(rscale, int(math.Abs(math.Log10(math.Abs(est))*float64(n)))+20)
			ax := types.Dec{Scale: x.Scale}
			ax.U.Abs(&x.U)
			l := bigLn(bigOf(ax, prec))
			l.Mul(l, new(big.Float).SetPrec(prec).SetInt64(n))
			r := bigExp(l)
			if x.Sign() < 0 && n%2 != 0 {
				r.Neg(r)
			}
			return decOf(r, rscale), nil
		}
		var p types.Dec
		p.U.Exp(&x.U, big.NewInt(an), nil)
		p.Scale = x.Scale * int32(an)
		if n > 0 {
			return p.Rescale(rscale), nil
		}
		// 1/p at rscale, rounded: (10^(rscale+p.Scale+1) / p.U) then round the extra digit.
		var q types.Dec
		q.U.Quo(pow10(rscale+p.Scale+1), &p.U)
		q.Scale = rscale + 1
		return q.Rescale(rscale), nil
	}
	if x.Sign() == 0 {
		return types.Dec{Scale: numericMinSigDigits}, nil
	}
	// exp(y·ln x): the result scale follows the estimated result weight.
	lnEst := math.Log(x.Float()) * y.Float()
	val := lnEst * 0.434294481903252
	if val > 6000 {
		return types.Dec{}, pgerr.New(pgerr.NumericValueOutOfRange, "value overflows numeric format")
	}
	val = max(val, -numericMaxDisplayScale)
	rscale := clampScale(max(numericMinSigDigits-int(val), int(x.Scale), int(y.Scale)))
	prec := precFor(rscale, int(math.Abs(val))+20)
	l := bigLn(bigOf(x, prec))
	l.Mul(l, bigOf(y, prec))
	return decOf(bigExp(l), rscale), nil
}

func numMod(a []types.Dec) (types.Dec, error) {
	r, err := NumericArith(Mod, a[0].String(), a[1].String())
	if err != nil {
		return types.Dec{}, err
	}
	return types.ParseDec(r.S)
}

func numGCD(a, b types.Dec) types.Dec {
	sc := max(a.Scale, b.Scale)
	x, y := a.Rescale(sc), b.Rescale(sc)
	var r types.Dec
	r.U.GCD(nil, nil, new(big.Int).Abs(&x.U), new(big.Int).Abs(&y.U))
	r.Scale = sc
	return r
}

func numLCM(a, b types.Dec) types.Dec {
	sc := max(a.Scale, b.Scale)
	x, y := a.Rescale(sc), b.Rescale(sc)
	var r types.Dec
	r.Scale = sc
	if x.U.Sign() == 0 || y.U.Sign() == 0 {
		return r
	}
	g := numGCD(x, y)
	r.U.Quo(new(big.Int).Abs(&x.U), &g.U)
	r.U.Mul(&r.U, new(big.Int).Abs(&y.U))
	return r
}

func intGCD(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// intFn2 wraps an integer function of two arguments for int2/int4/int8,
// checking the result fits the type.
func intFn2(k types.Kind, f func(a, b int64) (int64, bool, error)) Overload {
	t := types.Of(k)
	return Overload{Args: []types.Kind{k, k}, Ret: t, Strict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			v, ok, err := f(a[0].I, a[1].I)
			if err != nil {
				return types.Datum{}, err
			}
			if !ok || types.CheckIntRange(k, v) != nil {
				return types.Datum{}, pgerr.New(pgerr.NumericValueOutOfRange, "%s out of range", t)
			}
			return types.Int(t, v), nil
		}}
}

func init() {
	decFn1 := func(f func(types.Dec) (types.Dec, error)) Overload {
		return numFn(func(a []types.Dec) (types.Dec, error) { return f(a[0]) }, 1)
	}
	register([]Overload{
		floatFn1(pure(math.RoundToEven)),
		decFn1(func(d types.Dec) (types.Dec, error) { return decRound(d, 0, false), nil }),
		{Args: []types.Kind{numeric, int4}, Ret: types.TNumeric, Strict: true, Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			d, err := dec(a[0])
			return numDatum(decRound(d, a[1].I, false)), err
		}},
	}, "round")
	register([]Overload{
		floatFn1(pure(math.Trunc)),
		decFn1(func(d types.Dec) (types.Dec, error) { return decRound(d, 0, true), nil }),
		{Args: []types.Kind{numeric, int4}, Ret: types.TNumeric, Strict: true, Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			d, err := dec(a[0])
			return numDatum(decRound(d, a[1].I, true)), err
		}},
	}, "trunc")
	register([]Overload{floatFn1(pure(math.Ceil)),
		decFn1(func(d types.Dec) (types.Dec, error) { return ceilFloor(d, true), nil })}, "ceil", "ceiling")
	register([]Overload{floatFn1(pure(math.Floor)),
		decFn1(func(d types.Dec) (types.Dec, error) { return ceilFloor(d, false), nil })}, "floor")
	register([]Overload{floatFn1(func(x float64) (float64, error) {
		if x < 0 {
			return 0, pgerr.New(codeInvalidPower, "cannot take square root of a negative number")
		}
		return math.Sqrt(x), nil
	}), decFn1(numSqrt)}, "sqrt")
	register([]Overload{floatFn1(pure(math.Cbrt))}, "cbrt")
	register([]Overload{floatFn1(checked(math.Exp, false)), decFn1(numExp)}, "exp")
	register([]Overload{floatFn1(logCheck(math.Log)), decFn1(numLn)}, "ln")
	log10Num := decFn1(func(d types.Dec) (types.Dec, error) { return numLog(types.DecFromInt(10), d) })
	register([]Overload{floatFn1(logCheck(math.Log10)), log10Num,
		numFn(func(a []types.Dec) (types.Dec, error) { return numLog(a[0], a[1]) }, 2)}, "log")
	register([]Overload{floatFn1(logCheck(math.Log10)), log10Num}, "log10")
	register([]Overload{
		{Args: []types.Kind{float8, float8}, Ret: types.TFloat8, Strict: true, Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			v, err := fpow(a[0].F, a[1].F)
			return types.Float8Datum(v), err
		}},
		numFn(func(a []types.Dec) (types.Dec, error) { return numPower(a[0], a[1]) }, 2),
	}, "power", "pow")
	register([]Overload{floatFn1(pure(func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	})), decFn1(func(d types.Dec) (types.Dec, error) { return types.DecFromInt(int64(d.Sign())), nil })}, "sign")
	register([]Overload{{Args: nil, Ret: types.TFloat8, Fn: func(*Ctx, []types.Datum) (types.Datum, error) {
		return types.Float8Datum(math.Pi), nil
	}}}, "pi")
	register([]Overload{{Args: nil, Ret: types.TFloat8, Fn: func(*Ctx, []types.Datum) (types.Datum, error) {
		return types.Float8Datum(rand.Float64()), nil
	}}}, "random")
	register([]Overload{floatFn1(checked(func(x float64) float64 { return x * (180 / math.Pi) }, true))}, "degrees")
	register([]Overload{floatFn1(checked(func(x float64) float64 { return x * (math.Pi / 180) }, true))}, "radians")
	inf := math.Inf(1)
	register([]Overload{floatFn1(trigIn(math.Sin, -inf, inf))}, "sin")
	register([]Overload{floatFn1(trigIn(math.Cos, -inf, inf))}, "cos")
	register([]Overload{floatFn1(trigIn(math.Tan, -inf, inf))}, "tan")
	register([]Overload{floatFn1(trigIn(func(x float64) float64 { return 1 / math.Tan(x) }, -inf, inf))}, "cot")
	register([]Overload{floatFn1(trigIn(math.Asin, -1, 1))}, "asin")
	register([]Overload{floatFn1(trigIn(math.Acos, -1, 1))}, "acos")
	register([]Overload{floatFn1(pure(math.Atan))}, "atan")
	register([]Overload{{Args: []types.Kind{float8, float8}, Ret: types.TFloat8, Strict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			return types.Float8Datum(math.Atan2(a[0].F, a[1].F)), nil
		}}}, "atan2")
	register([]Overload{floatFn1(pure(math.Sinh))}, "sinh")
	register([]Overload{floatFn1(pure(math.Cosh))}, "cosh")
	register([]Overload{floatFn1(pure(math.Tanh))}, "tanh")

	modInt := func(a, b int64) (int64, bool, error) {
		if b == 0 {
			return 0, false, pgerr.New(pgerr.DivisionByZero, "division by zero")
		}
		if b == -1 {
			return 0, true, nil
		}
		return a % b, true, nil
	}
	register([]Overload{intFn2(int2k, modInt), intFn2(int4, modInt), intFn2(int8k, modInt), numFn(numMod, 2)}, "mod")
	register([]Overload{numFn(func(a []types.Dec) (types.Dec, error) {
		if a[1].Sign() == 0 {
			return types.Dec{}, pgerr.New(pgerr.DivisionByZero, "division by zero")
		}
		sc := max(a[0].Scale, a[1].Scale)
		x, y := a[0].Rescale(sc), a[1].Rescale(sc)
		var r types.Dec
		r.U.Quo(&x.U, &y.U)
		return r, nil
	}, 2)}, "div")
	gcdInt := func(a, b int64) (int64, bool, error) {
		g := intGCD(a, b)
		if g < 0 {
			if g == math.MinInt64 {
				return 0, false, nil
			}
			g = -g
		}
		return g, true, nil
	}
	lcmInt := func(a, b int64) (int64, bool, error) {
		if a == 0 || b == 0 {
			return 0, true, nil
		}
		g, ok, _ := gcdInt(a, b)
		if !ok {
			return 0, false, nil
		}
		q := a / g
		r := q * b
		if q != 0 && r/q != b {
			return 0, false, nil
		}
		if r < 0 {
			if r == math.MinInt64 {
				return 0, false, nil
			}
			r = -r
		}
		return r, true, nil
	}
	register([]Overload{intFn2(int4, gcdInt), intFn2(int8k, gcdInt),
		numFn(func(a []types.Dec) (types.Dec, error) { return numGCD(a[0], a[1]), nil }, 2)}, "gcd")
	register([]Overload{intFn2(int4, lcmInt), intFn2(int8k, lcmInt),
		numFn(func(a []types.Dec) (types.Dec, error) { return numLCM(a[0], a[1]), nil }, 2)}, "lcm")
	register([]Overload{{Args: []types.Kind{float8, float8, float8, int4}, Ret: types.TInt4, Strict: true,
		Fn: func(_ *Ctx, a []types.Datum) (types.Datum, error) {
			v, err := widthBucket(a[0].F, a[1].F, a[2].F, a[3].I)
			return types.Int(types.TInt4, v), err
		}}}, "width_bucket")
}
