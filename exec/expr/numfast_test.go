package expr

import (
	"math/rand"
	"strconv"
	"testing"
)

// The int64 path must give exactly what the math/big path gives.
func TestSmallNumericMatchesDec(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	gen := func() string {
		digits := 1 + r.Intn(12)
		s := ""
		for i := 0; i < digits; i++ {
			s += strconv.Itoa(r.Intn(10))
		}
		if sc := r.Intn(8); sc > 0 && sc < len(s) {
			s = s[:len(s)-sc] + "." + s[len(s)-sc:]
		}
		if r.Intn(3) == 0 {
			s = "-" + s
		}
		return s
	}
	fixed := [][2]string{{"1710080736.123456", "300"}, {"1", "3"}, {"2", "3"}, {"-2", "3"}, {"0", "7"}, {"0.000", "3"},
		{"10", "0.3"}, {"123456789012", "0.0001"}, {"5", "2"}, {"-5", "2"}, {"1.5", "-0.5"}, {"9999", "10000"}, {"10000", "9999"}}
	for i := 0; i < 20000; i++ {
		var a, b string
		if i < len(fixed) {
			a, b = fixed[i][0], fixed[i][1]
		} else {
			a, b = gen(), gen()
		}
		for _, op := range []ArithOp{Add, Sub, Mul, Div} {
			got, ok := smallNumericArith(op, a, b)
			if !ok {
				continue
			}
			want, err := numericArithDec(op, a, b)
			if err != nil || want.S != got {
				t.Fatalf("%s %s %s = %s, math/big path %s (%v)", a, arithNames[op], b, got, want.S, err)
			}
		}
	}
}
