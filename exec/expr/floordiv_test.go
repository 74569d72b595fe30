package expr

import (
	"math/big"
	"testing"
)

func TestFloorDivSmall(t *testing.T) {
	cases := []struct{ a, b string }{
		{"1761955200.123000", "300"}, {"-1761955200.123000", "300"}, {"10", "3"}, {"-10", "3"},
		{"10", "-3"}, {"-10", "-3"}, {"9", "3"}, {"-9", "3"}, {"0.5", "0.25"}, {"7.5", "2.5"},
		{"1", "0.3"}, {"-0.0001", "7"},
	}
	for _, c := range cases {
		got, ok := floorDivSmall(c.a, c.b)
		if !ok {
			t.Errorf("%s/%s: not handled", c.a, c.b)
			continue
		}
		x, _ := new(big.Rat).SetString(c.a)
		y, _ := new(big.Rat).SetString(c.b)
		q := new(big.Rat).Quo(x, y)
		// floor of a rational: integer division rounding toward -inf.
		want := new(big.Int).Div(q.Num(), q.Denom()) // Euclidean: denom > 0, so floor
		if want.Int64() != got {
			t.Errorf("floor(%s/%s) = %d, want %s", c.a, c.b, got, want)
		}
	}
	for _, c := range []struct{ a, b string }{{"1", "0"}, {"12345678901234567890", "1"}, {"1.5", "0.000000000000000000001"}} {
		if _, ok := floorDivSmall(c.a, c.b); ok {
			t.Errorf("%s/%s: handled, want the general path", c.a, c.b)
		}
	}
}

func TestMulSmall(t *testing.T) {
	for _, c := range []struct {
		a, b, want int64
		ok         bool
	}{{5873184, 300, 1761955200, true}, {-3, 300, -900, true}, {1 << 62, 4, 0, false}, {-1 << 63, -1, 0, false}} {
		got, ok := mulSmall(c.a, c.b)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("mulSmall(%d, %d) = %d, %v", c.a, c.b, got, ok)
		}
	}
}
