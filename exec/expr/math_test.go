package expr

import (
	"math"
	"testing"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Expected values are PostgreSQL 15's.
func TestMathFuncs(t *testing.T) {
	runCases(t, []fcase{
		ok("round", "2", f8(2.5)),
		ok("round", "4", f8(3.5)),
		ok("round", "-0", f8(-0.5)),
		ok("round", "3", num("2.5")),
		ok("round", "-3", num("-2.5")),
		ok("round", "1200", num("1234.5678"), i4(-2)),
		ok("round", "1.500", num("1.5"), i4(3)),
		ok("round", "12.35", num("12.3456"), i4(2)),
		ok("round", "2", i4(2)),
		ok("trunc", "-2", f8(-2.7)),
		ok("trunc", "1.99", num("1.999"), i4(2)),
		ok("trunc", "-1", num("-1.5")),
		ok("trunc", "120", num("123.456"), i4(-1)),
		ok("ceil", "-1", num("-1.5")),
		ok("ceiling", "2", num("1.2")),
		ok("ceil", "5", num("5.0")),
		ok("floor", "-2", num("-1.5")),
		ok("floor", "-2", f8(-1.5)),
		ok("sign", "-1", num("-2.5")),
		ok("sign", "0", num("0")),
		ok("sign", "1", f8(3)),
		ok("mod", "-1", i4(-7), i4(3)),
		ok("mod", "-1.5", num("-7.5"), i4(2)),
		ok("mod", "0", i4(math.MinInt32), i4(-1)),
		fails("mod", pgerr.DivisionByZero, i4(5), i4(0)),
		fails("mod", pgerr.DivisionByZero, num("5.5"), i4(0)),
		ok("div", "-3", i4(-7), i4(2)),
		ok("div", "3", num("7.5"), i4(2)),
		fails("div", pgerr.DivisionByZero, i4(1), i4(0)),
		ok("gcd", "6", i4(12), i4(18)),
		ok("gcd", "2.5", num("12.5"), i4(5)),
		fails("gcd", pgerr.NumericValueOutOfRange, i4(math.MinInt32), i4(0)),
		ok("lcm", "12", i4(4), i4(6)),
		ok("lcm", "12", i4(-4), i4(6)),
		ok("lcm", "0", i4(0), i4(5)),
		fails("lcm", pgerr.NumericValueOutOfRange, i4(2147483647), i4(2147483646)),
		ok("width_bucket", "3", num("5.35"), num("0.024"), num("10.06"), i4(5)),
		ok("width_bucket", "0", i4(-1), i4(0), i4(10), i4(5)),
		ok("width_bucket", "6", i4(10), i4(0), i4(10), i4(5)),
		ok("width_bucket", "3", i4(5), i4(10), i4(0), i4(5)),
		fails("width_bucket", "2201G", i4(1), i4(0), i4(10), i4(0)),
		fails("width_bucket", "2201G", i4(1), i4(1), i4(1), i4(3)),
		ok("degrees", "180", f8(math.Pi)),
		ok("sqrt", "1.4142135623730951", i4(2)),
		ok("sqrt", "1.414213562373095", num("2")),
		ok("sqrt", "10.000000000000000", num("100")),
		ok("sqrt", "0.01000000000000000", num("0.0001")),
		ok("sqrt", "100000.00000000000", num("1e10")),
		ok("sqrt", "11.111075555498666", num("123.456")),
		fails("sqrt", "2201F", i4(-1)),
		fails("sqrt", "2201F", num("-1")),
		ok("exp", "2.718281828459045", i4(1)),
		ok("exp", "2.7182818284590452", num("1")),
		ok("exp", "12.182493960703473", num("2.5")),
		ok("exp", "26881171418161354484126255515800135873611119", num("100")),
		ok("exp", "0.2231301601484298", num("-1.5")),
		fails("exp", pgerr.NumericValueOutOfRange, i4(1000)),
		fails("exp", pgerr.NumericValueOutOfRange, i4(-1000)),
		ok("ln", "2.302585092994046", i4(10)),
		ok("ln", "0.6931471805599453", num("2")),
		ok("ln", "2.3513752571634777", num("10.5")),
		ok("ln", "-0.6931471805599453", num("0.5")),
		ok("ln", "0.048790164169432003", num("1.05")),
		ok("ln", "-23.025850929940457", num("1e-10")),
		fails("ln", "2201E", i4(0)),
		fails("ln", "2201E", i4(-1)),
		ok("log", "2.0000000000000000", num("100")),
		ok("log", "10.0000000000000000", i4(2), num("1024.0")),
		ok("log", "2", i4(100)),
		fails("log", "2201E", num("-1")),
		ok("log10", "3.0000000000000000", num("1000")),
		ok("power", "1.4142135623730950", num("2"), num("0.5")),
		ok("power", "1024.0000000000000000", num("2"), i4(10)),
		ok("power", "3.3750000000000000", num("1.5"), i4(3)),
		ok("power", "0.2500000000000000", num("2"), i4(-2)),
		ok("power", "0.0009765625000000", num("0.5"), i4(10)),
		ok("power", "0.0000000000000000", num("10"), i4(-20)),
		ok("power", "1024", i4(2), i4(10)),
		fails("power", "2201F", i4(0), i4(-1)),
		fails("power", "2201F", num("-8"), num("0.3333")),
		fails("power", "2201F", f8(-8), f8(0.5)),
		fails("asin", pgerr.NumericValueOutOfRange, i4(2)),
		ok("asin", "1.5707963267948966", i4(1)),
		ok("atan2", "0.7853981633974483", i4(1), i4(1)),
		fails("round", pgerr.UndefinedFunction, f8(1.5), i4(1)),
		fails("floor", pgerr.InvalidTextRepresentation, lit("x")),
	})
	// Compare float results numerically where the last digit is libm's.
	for _, c := range []struct {
		name string
		arg  float64
		want float64
	}{{"cbrt", 8, 2}, {"sin", 0, 0}, {"cos", 0, 1}, {"radians", 180, math.Pi}} {
		got, _, code := call(t, c.name, f8(c.arg))
		if code != "" || got != types.FormatFloat8(c.want) {
			t.Errorf("%s(%v) = %s %s, want %v", c.name, c.arg, got, code, c.want)
		}
	}
}

func TestMinMaxDistinct(t *testing.T) {
	for _, c := range []struct {
		a, b types.Datum
		want int
	}{
		{f8(1), f8(math.NaN()), -1},
		{num("1.50"), num("1.5"), 0},
		{types.TextDatum("a"), types.TextDatum("b"), -1},
		{i8(3), i8(2), 1},
	} {
		if got := CompareDatums(c.a, c.b); got != c.want {
			t.Errorf("CompareDatums(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// A power whose exact value has millions of digits goes through ln/exp.
func TestHugeNumericPower(t *testing.T) {
	runCases(t, []fcase{
		ok("power", "0.0000000000000000", num("1.0000001"), i4(-2147483647)),
		ok("power", "1.1051709125497934", num("1.0000001"), i4(1000000)),
		ok("power", "1836644589403938098389174471618404689695459148838905933332308371072921650416957808636122148027.4088621221638301", num("1.0000001"), i4(2147483647)),
	})
}
