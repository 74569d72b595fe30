package types

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/loamdb/loam/pgerr"
)

// IntervalValue is PostgreSQL's interval: months, days and microseconds
// kept apart, since a month has no fixed length.
type IntervalValue struct {
	Months int32
	Days   int32
	Micros int64
}

var intervalUnits = map[string]IntervalValue{
	"microsecond": {Micros: 1}, "microseconds": {Micros: 1}, "us": {Micros: 1}, "usec": {Micros: 1},
	"millisecond": {Micros: 1e3}, "milliseconds": {Micros: 1e3}, "ms": {Micros: 1e3}, "msec": {Micros: 1e3},
	"second": {Micros: 1e6}, "seconds": {Micros: 1e6}, "sec": {Micros: 1e6}, "secs": {Micros: 1e6}, "s": {Micros: 1e6},
	"minute": {Micros: 60e6}, "minutes": {Micros: 60e6}, "min": {Micros: 60e6}, "mins": {Micros: 60e6}, "m": {Micros: 60e6},
	"hour": {Micros: 3600e6}, "hours": {Micros: 3600e6}, "hr": {Micros: 3600e6}, "hrs": {Micros: 3600e6}, "h": {Micros: 3600e6},
	"day": {Days: 1}, "days": {Days: 1}, "d": {Days: 1},
	"week": {Days: 7}, "weeks": {Days: 7}, "w": {Days: 7},
	"month": {Months: 1}, "months": {Months: 1}, "mon": {Months: 1}, "mons": {Months: 1},
	"year": {Months: 12}, "years": {Months: 12}, "y": {Months: 12}, "yr": {Months: 12}, "yrs": {Months: 12},
	"decade": {Months: 120}, "decades": {Months: 120}, "dec": {Months: 120}, "decs": {Months: 120},
	"century": {Months: 1200}, "centuries": {Months: 1200}, "cent": {Months: 1200}, "c": {Months: 1200},
	"millennium": {Months: 12000}, "millennia": {Months: 12000}, "millenniums": {Months: 12000}, "mil": {Months: 12000}, "mils": {Months: 12000},
}

// ParseInterval reads PostgreSQL interval input: "180 days", "1 hour 30
// minutes", "1 day 02:00:00", "-1 mons +2 days", "@ 3 days ago", "30s",
// "01:30:00", a bare number of seconds, and ISO 8601 "P1Y2M3DT4H5M6S".
func ParseInterval(s string) (IntervalValue, error) { return parseIntervalIn(s, 0) }

// parseIntervalIn reads interval input under a range mask (see
// AdjustInterval), which gives a bare number its unit.
func parseIntervalIn(s string, mask int32) (IntervalValue, error) {
	var iv IntervalValue
	bad := func() (IntervalValue, error) {
		return IntervalValue{}, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type interval: %q", s)
	}
	str := strings.ToLower(strings.TrimSpace(s))
	if strings.HasPrefix(str, "p") {
		if v, ok := parseISOInterval(str[1:]); ok {
			return v, nil
		}
		return bad()
	}
	f := strings.Fields(strings.TrimPrefix(str, "@"))
	if len(f) == 0 {
		return bad()
	}
	ago := false
	if f[len(f)-1] == "ago" {
		ago = true
		f = f[:len(f)-1]
		if len(f) == 0 {
			return bad()
		}
	}
	var fm, fd, fus float64 // accumulated in floats, as PostgreSQL cascades fractions
	for i := 0; i < len(f); i++ {
		if strings.Contains(f[i], ":") {
			us, ok := parseIntervalClock(f[i])
			if !ok {
				return bad()
			}
			fus += float64(us)
			continue
		}
		num, unit := f[i], ""
		// "30s" and "30 seconds" both work.
		k := 0
		for k < len(num) && (num[k] >= '0' && num[k] <= '9' || num[k] == '.' || num[k] == '-' || num[k] == '+') {
			k++
		}
		if k == 0 {
			return bad()
		}
		if k < len(num) {
			num, unit = num[:k], num[k:]
		} else if i+1 < len(f) && !strings.Contains(f[i+1], ":") && (f[i+1][0] < '0' || f[i+1][0] > '9') && f[i+1][0] != '-' && f[i+1][0] != '+' {
			unit = f[i+1]
			i++
		} else if i+1 < len(f) && strings.Contains(f[i+1], ":") {
			unit = "day" // "1 02:00:00": a day count before a clock
		} else {
			unit = lowestUnit(mask)
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return bad()
		}
		u, ok := intervalUnits[unit]
		if !ok {
			return bad()
		}
		fm += v * float64(u.Months)
		fd += v * float64(u.Days)
		fus += v * float64(u.Micros)
	}
	// Fractions cascade down as PostgreSQL does: a fraction of a month
	// becomes days (30 a month), a fraction of a day becomes time.
	wholeMonths := math.Trunc(fm)
	fd += (fm - wholeMonths) * 30
	wholeDays := math.Trunc(fd)
	fus += (fd - wholeDays) * 86400e6
	if math.Abs(wholeMonths) > math.MaxInt32 || math.Abs(wholeDays) > math.MaxInt32 || math.Abs(fus) > MaxIntervalMicros {
		return IntervalValue{}, pgerr.New(pgerr.DatetimeFieldOverflow, "interval field value out of range: %q", s)
	}
	iv = IntervalValue{Months: int32(wholeMonths), Days: int32(wholeDays), Micros: int64(math.Round(fus))}
	if ago {
		iv = iv.Neg()
	}
	return iv, nil
}

// parseISOInterval reads the part of an ISO 8601 duration after the P.
func parseISOInterval(s string) (IntervalValue, bool) {
	var iv IntervalValue
	timePart := false
	for len(s) > 0 {
		if s[0] == 't' {
			timePart = true
			s = s[1:]
			continue
		}
		k := 0
		for k < len(s) && (s[k] >= '0' && s[k] <= '9' || s[k] == '.' || s[k] == '-') {
			k++
		}
		if k == 0 || k == len(s) {
			return iv, false
		}
		v, err := strconv.ParseFloat(s[:k], 64)
		if err != nil {
			return iv, false
		}
		var u IntervalValue
		switch c := s[k]; {
		case c == 'y' && !timePart:
			u.Months = 12
		case c == 'm' && !timePart:
			u.Months = 1
		case c == 'w' && !timePart:
			u.Days = 7
		case c == 'd' && !timePart:
			u.Days = 1
		case c == 'h' && timePart:
			u.Micros = 3600e6
		case c == 'm' && timePart:
			u.Micros = 60e6
		case c == 's' && timePart:
			u.Micros = 1e6
		default:
			return iv, false
		}
		months := v * float64(u.Months)
		days := v*float64(u.Days) + (months-math.Trunc(months))*30
		iv.Months += int32(months)
		iv.Days += int32(days)
		iv.Micros += int64(math.Round(v*float64(u.Micros) + (days-math.Trunc(days))*86400e6))
		s = s[k+1:]
	}
	return iv, true
}

// Neg is the interval negated field by field.
func (iv IntervalValue) Neg() IntervalValue {
	return IntervalValue{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}
}

// Span128 is the interval's length for ordering and equality, with a
// month as 30 days and a day as 24 hours, as PostgreSQL compares them:
// hi:lo is a 128-bit signed count of microseconds.
func (iv IntervalValue) Span128() (hi int64, lo uint64) {
	days := int64(iv.Months)*30 + int64(iv.Days)
	// days*86400e6 fits in 96 bits; split it to add the µs without overflow.
	const dayUS = 86400e6
	ph, pl := mul64(days, dayUS)
	lo, carry := pl+uint64(iv.Micros), uint64(0)
	if lo < pl {
		carry = 1
	}
	hi = ph + int64(carry)
	if iv.Micros < 0 {
		hi--
	}
	return hi, lo
}

// CmpInterval orders two intervals by their span.
func CmpInterval(a, b IntervalValue) int {
	ah, al := a.Span128()
	bh, bl := b.Span128()
	switch {
	case ah < bh:
		return -1
	case ah > bh:
		return 1
	case al < bl:
		return -1
	case al > bl:
		return 1
	}
	return 0
}

// mul64 is the signed 128-bit product of a and b.
func mul64(a, b int64) (int64, uint64) {
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = uint64(-a)
	}
	if b < 0 {
		ub = uint64(-b)
	}
	hi, lo := bits.Mul64(ua, ub)
	if neg {
		lo = ^lo + 1
		hi = ^hi
		if lo == 0 {
			hi++
		}
	}
	return int64(hi), lo
}

// MaxIntervalMicros bounds an interval's time part: batches carry it as
// Arrow's nanoseconds, so beyond ±2562047 hours (PostgreSQL allows 1000
// times more) it would wrap around; such values are "out of range" instead.
const MaxIntervalMicros = math.MaxInt64 / 1000

// IntervalFromArrow converts Arrow's month-day-nano value.
func IntervalFromArrow(v arrow.MonthDayNanoInterval) IntervalValue {
	return IntervalValue{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000}
}

// Arrow converts the interval to Arrow's month-day-nano value.
func (iv IntervalValue) Arrow() arrow.MonthDayNanoInterval {
	return arrow.MonthDayNanoInterval{Months: iv.Months, Days: iv.Days, Nanoseconds: iv.Micros * 1000}
}

// String prints the interval as PostgreSQL's postgres style does.
func (iv IntervalValue) String() string { return string(AppendInterval(nil, iv)) }

// AppendInterval prints an interval in IntervalStyle postgres, as
// EncodeInterval does: "1 year 2 mons", "-1 mons +2 days", "1 day -02:00:00".
// After a negative field, a positive one gets a "+".
func AppendInterval(buf []byte, iv IntervalValue) []byte {
	start := len(buf)
	before := false
	part := func(n int64, unit string) {
		if n == 0 {
			return
		}
		if len(buf) > start {
			buf = append(buf, ' ')
		}
		if before && n > 0 {
			buf = append(buf, '+')
		}
		buf = strconv.AppendInt(buf, n, 10)
		buf = append(buf, ' ')
		buf = append(buf, unit...)
		if n != 1 {
			buf = append(buf, 's')
		}
		before = n < 0
	}
	part(int64(iv.Months/12), "year")
	part(int64(iv.Months%12), "mon")
	part(int64(iv.Days), "day")
	if iv.Micros != 0 || len(buf) == start {
		if len(buf) > start {
			buf = append(buf, ' ')
		}
		us := iv.Micros
		switch {
		case us < 0:
			buf = append(buf, '-')
			us = -us
		case before:
			buf = append(buf, '+')
		}
		buf = appendClock(buf, us/3600e6, us/60e6%60, us/1e6%60, us%1e6)
	}
	return buf
}

// parseIntervalClock reads [-]H+:MM[:SS[.f]], where hours may exceed 24.
func parseIntervalClock(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	h, rest, ok := strings.Cut(s, ":")
	if !ok {
		return 0, false
	}
	hours, err := strconv.ParseInt(h, 10, 64)
	if err != nil || hours < 0 {
		return 0, false
	}
	us, ok := parseClock("00:" + rest)
	if !ok {
		return 0, false
	}
	us += hours * 3600e6
	if neg {
		us = -us
	}
	return us, true
}

// Interval field masks of an interval type's range, as PostgreSQL encodes
// them in the typmod (INTERVAL_MASK): interval '1' DAY, HOUR TO MINUTE.
// T.Scale holds the mask of an interval type (0: no range), T.Width its
// fractional-second precision (-1: none).
const (
	IntervalMonth     = 1 << 1
	IntervalYear      = 1 << 2
	IntervalDay       = 1 << 3
	IntervalHour      = 1 << 10
	IntervalMinute    = 1 << 11
	IntervalSecond    = 1 << 12
	IntervalFullRange = 0x7FFF
)

// lowestUnit is the unit a bare number means under a range: '1' DAY is a
// day, '5' MINUTE five minutes; without a range, seconds.
func lowestUnit(mask int32) string {
	switch {
	case mask == 0 || mask == IntervalFullRange || mask&IntervalSecond != 0:
		return "second"
	case mask&IntervalMinute != 0:
		return "minute"
	case mask&IntervalHour != 0:
		return "hour"
	case mask&IntervalDay != 0:
		return "day"
	case mask&IntervalMonth != 0:
		return "month"
	case mask&IntervalYear != 0:
		return "year"
	}
	return "second"
}

// AdjustInterval applies an interval type's range and precision, as
// PostgreSQL's AdjustIntervalForTypmod: fields below the range's lowest are
// dropped, seconds are rounded to the precision.
func AdjustInterval(iv IntervalValue, t T) IntervalValue {
	mask := t.Scale
	if mask != 0 && mask != IntervalFullRange {
		switch {
		case mask&IntervalSecond != 0:
		case mask&IntervalMinute != 0:
			iv.Micros = iv.Micros / 60e6 * 60e6
		case mask&IntervalHour != 0:
			iv.Micros = iv.Micros / 3600e6 * 3600e6
		case mask&IntervalDay != 0:
			iv.Micros = 0
		case mask&IntervalMonth != 0:
			iv.Days, iv.Micros = 0, 0
		case mask&IntervalYear != 0:
			iv.Months = iv.Months / 12 * 12
			iv.Days, iv.Micros = 0, 0
		}
	}
	if t.Width >= 0 && t.Width < 6 {
		iv.Micros = RoundMicros(iv.Micros, t.Width)
	}
	return iv
}
