package expr

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/loamdb/loam/types"
)

// A fast path for numeric + - * / on values of at most 18 digits, such as
// extract(epoch FROM ts) / 300: int64 mantissas instead of math/big, with
// PostgreSQL's result scales. Anything else takes the general path.

var pow10u = func() [20]uint64 {
	var p [20]uint64
	p[0] = 1
	for i := 1; i < 20; i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// parseSmallDec reads [-]digits[.digits] with at most 18 digits.
func parseSmallDec(s string) (m int64, scale int, ok bool) {
	neg := false
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	digits := 0
	seenPoint := false
	var u uint64
	start := i
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			if digits == 18 {
				return 0, 0, false
			}
			if u != 0 || c != '0' {
				digits++
			}
			u = u*10 + uint64(c-'0')
			if seenPoint {
				scale++
			}
		case c == '.' && !seenPoint:
			seenPoint = true
		default:
			return 0, 0, false
		}
	}
	if i == start || (seenPoint && i == start+1) {
		return 0, 0, false
	}
	m = int64(u)
	if neg {
		m = -m
	}
	return m, scale, true
}

// rescaleSmall multiplies m by 10^k, ok false on overflow.
func rescaleSmall(m int64, k int) (int64, bool) {
	if k == 0 {
		return m, true
	}
	if k > 18 {
		return 0, m == 0
	}
	hi, lo := bits.Mul64(uabs(m), pow10u[k])
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if m < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

func uabs(m int64) uint64 {
	if m < 0 {
		return uint64(-m)
	}
	return uint64(m)
}

// divWeight is PostgreSQL's base-10000 weight and first base-10000 digit
// of a nonzero m / 10^scale (select_div_scale).
func divWeight(m int64, scale int) (int, uint64) {
	u := uabs(m)
	nd := len(strconv.FormatUint(u, 10))
	e := nd - 1 - scale // floor(log10 |v|)
	w := e / 4
	if e < 0 && e%4 != 0 {
		w--
	}
	// first digit = floor(|v| / 10000^w) = floor(u / 10^(scale + 4w))
	sh := scale + 4*w
	if sh >= 0 {
		return w, u / pow10u[sh]
	}
	return w, u * pow10u[-sh]
}

// smallNumericArith computes a op b when both are small decimals and the
// result fits; ok false leaves it to the general path (which also raises
// the errors).
func smallNumericArith(op ArithOp, a, b string) (string, bool) {
	x, sx, ok1 := parseSmallDec(a)
	y, sy, ok2 := parseSmallDec(b)
	if !ok1 || !ok2 {
		return "", false
	}
	switch op {
	case Add, Sub:
		sc := max(sx, sy)
		xa, ok1 := rescaleSmall(x, sc-sx)
		ya, ok2 := rescaleSmall(y, sc-sy)
		if !ok1 || !ok2 {
			return "", false
		}
		if op == Sub {
			ya = -ya
		}
		r := xa + ya
		if (xa > 0 && ya > 0 && r < 0) || (xa < 0 && ya < 0 && r >= 0) {
			return "", false
		}
		return string(appendScaled(nil, r, sc)), true
	case Mul:
		hi, lo := bits.Mul64(uabs(x), uabs(y))
		if hi != 0 || lo > math.MaxInt64 {
			return "", false
		}
		r := int64(lo)
		if (x < 0) != (y < 0) {
			r = -r
		}
		return string(appendScaled(nil, r, sx+sy)), true
	case Div:
		if y == 0 {
			return "", false
		}
		// A zero dividend has weight 0 and first digit 0, as in PostgreSQL.
		w1, f1 := 0, uint64(0)
		if x != 0 {
			w1, f1 = divWeight(x, sx)
		}
		w2, f2 := divWeight(y, sy)
		qw := w1 - w2
		if f1 <= f2 {
			qw--
		}
		rscale := min(max(16-qw*4, sx, sy, 0), 1000)
		k := rscale - sx + sy
		if k < 0 || k > 19 {
			return "", false
		}
		hi, lo := bits.Mul64(uabs(x), pow10u[k])
		d := uabs(y)
		if hi >= d {
			return "", false
		}
		q, rem := bits.Div64(hi, lo, d)
		if rem >= d-rem { // round half away from zero
			q++
		}
		if q > math.MaxInt64 {
			return "", false
		}
		r := int64(q)
		if (x < 0) != (y < 0) {
			r = -r
		}
		return string(appendScaled(nil, r, rscale)), true
	}
	return "", false
}

func smallNumericDatum(op ArithOp, a, b string) (types.Datum, bool) {
	s, ok := smallNumericArith(op, a, b)
	return types.Datum{T: types.TNumeric, S: s}, ok
}
