package types

// ScaledDecimal reads plain decimal text ([-+]digits[.digits]) as an
// integer scaled by 10^scale, rounding half away from zero past the scale
// as PostgreSQL's numeric input does for a numeric(p,s) column. ok is false
// for anything else (spaces, exponents, NaN, no digits) and for results
// past 18 digits: the caller then takes the exact path, which words the
// error or handles the value. COPY of TPC-H-shaped rows parses most decimals
// here, without math/big or an allocation.
func ScaledDecimal[S string | []byte](b S, scale int32) (v int64, ok bool) {
	if scale < 0 || scale > 18 {
		return 0, false
	}
	i, neg := 0, false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var u uint64
	digits, frac, point := 0, int32(0), false
	roundUp := false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			if point && frac >= scale {
				// Past the scale only the first dropped digit decides
				// the rounding; the rest need only be digits.
				if frac == scale {
					roundUp = c >= '5'
				}
				frac++
				continue
			}
			if point {
				frac++
			}
			if u > (1<<63-1)/10 {
				return 0, false
			}
			u = u*10 + uint64(c-'0')
		case c == '.' && !point:
			point = true
		default:
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	if frac > scale {
		frac = scale
	}
	for ; frac < scale; frac++ {
		if u > (1<<63-1)/10 {
			return 0, false
		}
		u *= 10
	}
	if roundUp {
		u++
	}
	if u >= 1e18 {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// Pow10Fits says whether |v| < 10^n, for n <= 18: a numeric(p,s) value
// scaled by 10^s fits the column when it is below 10^p.
func Pow10Fits(v int64, n int32) bool {
	if n > 18 {
		return true
	}
	if v < 0 {
		v = -v
	}
	return n >= 0 && v < pow10Int64[n]
}

var pow10Int64 = [19]int64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// AppendScaled writes v scaled by 10^scale as numeric text with exactly
// scale fraction digits, as numeric_out prints a numeric(p,s) value.
func AppendScaled(dst []byte, v int64, scale int32) []byte {
	if v < 0 {
		dst = append(dst, '-')
		v = -v
	}
	var tmp [24]byte
	n := len(tmp)
	for k := int32(0); k < scale; k++ {
		n--
		tmp[n] = byte('0' + v%10)
		v /= 10
	}
	if scale > 0 {
		n--
		tmp[n] = '.'
	}
	for {
		n--
		tmp[n] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(dst, tmp[n:]...)
}

// DateISO reads a date written exactly YYYY-MM-DD (what COPY TO and most
// loaders write) as days since 1970-01-01; ok is false for any other
// spelling or an invalid date, which ParseDate then reads or refuses.
func DateISO(b []byte) (days int64, ok bool) {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return 0, false
	}
	num := func(s []byte) (int, bool) {
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(b[:4])
	m, ok2 := num(b[5:7])
	d, ok3 := num(b[8:])
	if !ok1 || !ok2 || !ok3 || y == 0 || m < 1 || m > 12 || d < 1 || d > monthDays(y, m) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

func monthDays(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
