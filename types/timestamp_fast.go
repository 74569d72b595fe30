package types

import "time"

// parseISOTimestamp is the fast path of ParseTimestamp for the form bulk
// loads use: YYYY-MM-DD[ T]HH:MM:SS[.f…][Z|±HH[:MM]]. ok is false for
// anything else (which the general parser then reads), and for a zoneless
// timestamptz outside UTC, which needs the session zone's rules.
func parseISOTimestamp(s string, withZone bool, loc *time.Location) (int64, bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return 0, false
	}
	num := func(i, n int) (int, bool) {
		if i+n > len(s) {
			return 0, false
		}
		v := 0
		for k := i; k < i+n; k++ {
			c := s[k]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	y, ok1 := num(0, 4)
	mo, ok2 := num(5, 2)
	d, ok3 := num(8, 2)
	h, ok4 := num(11, 2)
	mi, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	i := 19
	var frac int64
	if i < len(s) && s[i] == '.' {
		i++
		digits := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if digits < 7 {
				frac = frac*10 + int64(s[i]-'0')
			}
			digits++
			i++
		}
		if digits == 0 {
			return 0, false
		}
		for ; digits < 7; digits++ {
			frac *= 10
		}
		frac = (frac + 5) / 10 // to µs, rounding the seventh digit
	}
	off := 0
	zoned := false
	switch {
	case i == len(s):
	case s[i] == 'Z' && i+1 == len(s):
		zoned = true
	case s[i] == '+' || s[i] == '-':
		zh, ok := num(i+1, 2)
		if !ok {
			return 0, false
		}
		zm := 0
		rest := s[i+3:]
		switch {
		case rest == "":
		case len(rest) == 3 && rest[0] == ':':
			if zm, ok = num(i+4, 2); !ok {
				return 0, false
			}
		case len(rest) == 2:
			if zm, ok = num(i+3, 2); !ok {
				return 0, false
			}
		default:
			return 0, false
		}
		if zh > 15 || zm > 59 {
			return 0, false
		}
		off = zh*3600 + zm*60
		if s[i] == '-' {
			off = -off
		}
		zoned = true
	default:
		return 0, false
	}
	if withZone && !zoned && loc != nil && loc != time.UTC {
		return 0, false
	}
	if !withZone {
		off = 0 // a zone in timestamp input is ignored, as in PostgreSQL
	}
	days := daysFromCivil(y, mo, d)
	us := ((days*86400+int64(h*3600+mi*60+sec))-int64(off))*1e6 + frac
	return us, true
}

func daysIn(y, m int) int {
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

// daysFromCivil counts days from 1970-01-01 to a proleptic Gregorian date.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era = (y - 399) / 400
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
