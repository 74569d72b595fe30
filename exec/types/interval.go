package types

import (
	"math"
	"strconv"
	"strings"

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
}

// ParseInterval reads the PostgreSQL interval forms Loam's clauses use:
// "180 days", "1 hour 30 minutes", "30 seconds", "2 weeks", "01:30:00".
func ParseInterval(s string) (IntervalValue, error) {
	var iv IntervalValue
	bad := func() (IntervalValue, error) {
		return IntervalValue{}, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type interval: %q", s)
	}
	f := strings.Fields(strings.ToLower(strings.TrimSpace(s)))
	if len(f) == 0 {
		return bad()
	}
	for i := 0; i < len(f); i++ {
		if strings.Contains(f[i], ":") {
			us, ok := parseIntervalClock(f[i])
			if !ok {
				return bad()
			}
			iv.Micros += us
			continue
		}
		num, unit := f[i], ""
		// "30s" and "30 seconds" both work.
		k := 0
		for k < len(num) && (num[k] >= '0' && num[k] <= '9' || num[k] == '.' || num[k] == '-' || num[k] == '+') {
			k++
		}
		if k < len(num) {
			num, unit = num[:k], num[k:]
		} else if i+1 < len(f) {
			unit = f[i+1]
			i++
		} else {
			return bad()
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return bad()
		}
		u, ok := intervalUnits[unit]
		if !ok {
			return bad()
		}
		// Fractions cascade down as PostgreSQL does: a fraction of a month
		// becomes days (30 a month), a fraction of a day becomes time.
		months := v * float64(u.Months)
		wholeMonths := math.Trunc(months)
		days := v*float64(u.Days) + (months-wholeMonths)*30
		wholeDays := math.Trunc(days)
		iv.Months += int32(wholeMonths)
		iv.Days += int32(wholeDays)
		iv.Micros += int64(math.Round(v*float64(u.Micros) + (days-wholeDays)*86400e6))
	}
	return iv, nil
}

// String prints the interval as PostgreSQL's postgres style does.
func (iv IntervalValue) String() string {
	var parts []string
	plural := func(n int64, unit string) string {
		if n == 1 || n == -1 {
			return strconv.FormatInt(n, 10) + " " + unit
		}
		return strconv.FormatInt(n, 10) + " " + unit + "s"
	}
	if y := iv.Months / 12; y != 0 {
		parts = append(parts, plural(int64(y), "year"))
	}
	if m := iv.Months % 12; m != 0 {
		parts = append(parts, plural(int64(m), "mon"))
	}
	if iv.Days != 0 {
		parts = append(parts, plural(int64(iv.Days), "day"))
	}
	if iv.Micros != 0 || len(parts) == 0 {
		us := iv.Micros
		sign := ""
		if us < 0 {
			sign = "-"
			us = -us
		}
		parts = append(parts, sign+string(AppendTime(nil, us)))
	}
	return strings.Join(parts, " ")
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
