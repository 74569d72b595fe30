package types

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loamdb/loam/pgerr"
)

func badInput(t T, s string) error {
	return pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type %s: %q", kindNames[t.Kind], s)
}

// ParseText reads s as PostgreSQL's input function for t would; loc is the
// session TimeZone, used for timestamptz input that names no zone.
func ParseText(t T, s string, loc *time.Location) (Datum, error) {
	d := Datum{T: t}
	switch t.Kind {
	case Unknown, Text:
		d.T = Of(Text)
		if t.Kind == Unknown {
			d.T = TText
		}
		d.S = s
	case Varchar, Char:
		if t.Width >= 0 && utf8.RuneCountInString(s) > int(t.Width) {
			trimmed := strings.TrimRight(s, " ")
			if utf8.RuneCountInString(trimmed) > int(t.Width) {
				return d, pgerr.New(pgerr.StringDataRightTruncation, "value too long for type %s", t)
			}
			s = string([]rune(s)[:t.Width])
		}
		if t.Kind == Char && t.Width > 0 {
			if n := utf8.RuneCountInString(s); n < int(t.Width) {
				s += strings.Repeat(" ", int(t.Width)-n)
			}
		}
		d.S = s
	case Bool:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "t", "tr", "tru", "true", "y", "ye", "yes", "on", "1":
			d.I = 1
		case "f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0":
		default:
			return d, badInput(t, s)
		}
	case Name:
		// Identifiers are cut to NAMEDATALEN-1 bytes, on a rune boundary.
		for len(s) > 63 {
			_, n := utf8.DecodeLastRuneInString(s)
			s = s[:len(s)-n]
		}
		d.S = s
	case Regclass, Regtype, Regnamespace, Regrole:
		// The planner resolves names; a value here is already one.
		d.S = s
	case Void:
		// void_in takes anything, and the value is always the same.
	case Record:
		if _, _, err := SplitRecordText(s); err != nil {
			return d, err
		}
		d.S = s
	case ACLItem:
		// Taken as written: Loam makes aclitems (the catalogs' ACLs) and
		// reads none.
		d.S = strings.TrimSpace(s)
	case QChar:
		// "char" keeps the first byte only.
		if len(s) > 1 {
			s = s[:1]
		}
		d.S = s
	case OID:
		// oidin accepts unsigned 32-bit values and, like PostgreSQL, negative
		// int4 values, which wrap.
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || v < -(1<<31) || v > 1<<32-1 {
			if err == nil || err.(*strconv.NumError).Err == strconv.ErrRange {
				return d, pgerr.New(pgerr.NumericValueOutOfRange, "value %q is out of range for type oid", s)
			}
			return d, badInput(t, s)
		}
		d.I = int64(uint32(v))
	case Int2, Int4, Int8:
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return d, pgerr.New(pgerr.NumericValueOutOfRange, "value %q is out of range for type %s", s, kindNames[t.Kind])
			}
			return d, badInput(t, s)
		}
		if err := CheckIntRange(t.Kind, v); err != nil {
			return d, pgerr.New(pgerr.NumericValueOutOfRange, "value %q is out of range for type %s", s, kindNames[t.Kind])
		}
		d.I = v
	case Float4, Float8:
		str := strings.TrimSpace(s)
		var f float64
		switch strings.ToLower(str) {
		case "nan":
			f = math.NaN()
		case "infinity", "+infinity", "inf", "+inf":
			f = math.Inf(1)
		case "-infinity", "-inf":
			f = math.Inf(-1)
		default:
			bits := 64
			if t.Kind == Float4 {
				bits = 32
			}
			v, err := strconv.ParseFloat(str, bits)
			if err != nil {
				if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
					return d, pgerr.New(pgerr.NumericValueOutOfRange, "%q is out of range for type %s", s, kindNames[t.Kind])
				}
				return d, badInput(t, s)
			}
			if v == 0 && nonzeroMantissa(str) {
				// Underflow: PostgreSQL's float8in refuses what rounds
				// to zero (denormals are kept).
				return d, pgerr.New(pgerr.NumericValueOutOfRange, "%q is out of range for type %s", s, kindNames[t.Kind])
			}
			f = v
		}
		d.F = f
	case Numeric:
		v, err := ParseDec(s)
		if err != nil {
			return d, err
		}
		if t.Width >= 0 {
			if v, err = v.Fit(t.Width, t.Scale); err != nil {
				return d, err
			}
		}
		d.S = v.String()
	case Bytea:
		if strings.HasPrefix(s, `\x`) {
			b, err := hex.DecodeString(s[2:])
			if err != nil {
				return d, badInput(t, s)
			}
			d.B = b
		} else {
			b, err := unescapeBytea(s)
			if err != nil {
				return d, badInput(t, s)
			}
			d.B = b
		}
	case Date:
		days, err := ParseDate(s)
		if err != nil {
			return d, err
		}
		d.I = days
	case Time:
		us, err := parseTimeOfDay(s)
		if err != nil {
			return d, err
		}
		d.I = RoundMicros(us, t.Width)
	case Timestamp, TimestampTZ:
		us, err := ParseTimestamp(s, t.Kind == TimestampTZ, loc)
		if err != nil {
			return d, err
		}
		d.I = RoundMicros(us, t.Width)
	case Interval:
		iv, err := parseIntervalIn(s, t.Scale)
		if err != nil {
			return d, err
		}
		d = IntervalDatum(AdjustInterval(iv, t))
		d.T = t
	case UUID:
		u, ok := CanonicalUUID(s)
		if !ok {
			return d, badInput(t, s)
		}
		d.S = u
	case JSON:
		if !json.Valid([]byte(s)) {
			return d, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type json")
		}
		d.S = s
	case JSONB:
		// jsonb is stored and printed in its normal form (types/json.go).
		n, err := NormalizeJSONB(s)
		if err != nil {
			return d, err
		}
		d.S = n
	case Array:
		if t.Elem == Unknown || t.Elem == Array {
			return d, pgerr.New(pgerr.FeatureNotSupported, "input of type %s is not supported", t)
		}
		// Each element goes through its type's input; the value is kept in
		// array_out's canonical text.
		elems, null, err := SplitArrayText(strings.TrimSpace(s))
		if err != nil {
			return d, err
		}
		buf := []byte{'{'}
		for i, e := range elems {
			if i > 0 {
				buf = append(buf, ',')
			}
			if null[i] {
				buf = append(buf, "NULL"...)
				continue
			}
			ed, err := ParseText(Of(t.Elem), e, loc)
			if err != nil {
				return d, err
			}
			buf = AppendArrayElem(buf, FormatText(ed, loc))
		}
		d.S = string(append(buf, '}'))
	default:
		return d, pgerr.New(pgerr.FeatureNotSupported, "input of type %s is not supported", t)
	}
	return d, nil
}

// CheckIntRange fails when v does not fit the integer kind.
func CheckIntRange(k Kind, v int64) error {
	switch k {
	case Int2:
		if v < math.MinInt16 || v > math.MaxInt16 {
			return pgerr.New(pgerr.NumericValueOutOfRange, "smallint out of range")
		}
	case Int4:
		if v < math.MinInt32 || v > math.MaxInt32 {
			return pgerr.New(pgerr.NumericValueOutOfRange, "integer out of range")
		}
	}
	return nil
}

func unescapeBytea(s string) ([]byte, error) {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			out = append(out, '\\')
			i++
			continue
		}
		if i+3 < len(s) {
			v, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
			if err == nil {
				out = append(out, byte(v))
				i += 3
				continue
			}
		}
		return nil, strconv.ErrSyntax
	}
	return out, nil
}

// CanonicalUUID accepts the forms PostgreSQL accepts (hyphens anywhere
// between groups of four, braces) and returns the lower-case canonical text.
func CanonicalUUID(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = s[1 : len(s)-1]
	}
	h := strings.ReplaceAll(s, "-", "")
	if len(h) != 32 {
		return "", false
	}
	if _, err := hex.DecodeString(h); err != nil {
		return "", false
	}
	h = strings.ToLower(h)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:], true
}

// RoundMicros rounds µs to a fractional-second precision p (0..6), half
// away from zero as PostgreSQL does; p < 0 means no rounding.
func RoundMicros(us int64, p int32) int64 {
	if p < 0 || p >= 6 || us == math.MaxInt64 || us == math.MinInt64 {
		return us // ±infinity stays itself
	}
	unit := int64(math.Pow10(int(6 - p)))
	r := us % unit // same sign as us
	us -= r
	switch {
	case r*2 >= unit:
		us += unit
	case r*2 <= -unit:
		us -= unit
	}
	return us
}

// ParseDate reads YYYY-MM-DD (or a timestamp, keeping its date).
func ParseDate(s string) (int64, error) {
	str := strings.TrimSpace(s)
	switch strings.ToLower(str) {
	case "infinity": // the int32 sentinels of PostgreSQL's binary format
		return math.MaxInt32, nil
	case "-infinity":
		return math.MinInt32, nil
	}
	y, m, d, rest, ok := parseYMD(str)
	if !ok || (rest != "" && !isTimeRest(rest)) {
		return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type date: %q", s)
	}
	if !validDate(y, m, d) {
		return 0, dateRangeErr(s, m, d)
	}
	// daysFromCivil, not time.Time.Sub: a Duration only spans ±292 years,
	// and dates before 1677 came out clamped to 1677-09-22.
	return daysFromCivil(y, m, d), nil
}

// isTimeRest says whether what follows a date is a time of day, a zone, or
// both: PostgreSQL's date input ignores them, and PgJDBC's setDate sends
// "2026-11-29 +00".
func isTimeRest(rest string) bool {
	rest = strings.TrimLeft(rest, " T")
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		_, ok := zoneOffset(rest, time.Time{})
		return ok
	}
	_, _, err := splitClockZone(rest)
	return err == nil
}

// fieldRangeErr is PostgreSQL's error for a date/time field out of range.
func fieldRangeErr(s string) error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: %q", s)
}

// dateRangeErr is fieldRangeErr for an invalid date; a month or day no
// month has (13, 32, 0) may be the fields swapped, and PostgreSQL hints
// at DateStyle, which it does not for February 30.
func dateRangeErr(s string, m, d int) error {
	e := pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: %q", s)
	if m < 1 || m > 12 || d < 1 || d > 31 {
		e = e.WithHint("Perhaps you need a different \"datestyle\" setting.")
	}
	return e
}

func validDate(y, m, d int) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func parseYMD(s string) (y, m, d int, rest string, ok bool) {
	parts := [3]int{}
	i := 0
	for p := 0; p < 3; p++ {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start || i-start > 6 {
			return 0, 0, 0, "", false
		}
		parts[p], _ = strconv.Atoi(s[start:i])
		if p < 2 {
			if i >= len(s) || s[i] != '-' {
				return 0, 0, 0, "", false
			}
			i++
		}
	}
	return parts[0], parts[1], parts[2], s[i:], true
}

// parseTimeOfDay reads time input: a clock, optionally after a date and
// before a numeric or UTC zone, which time ignores as PostgreSQL does
// (PgJDBC's setTime sends "10:30:15+00").
func parseTimeOfDay(s string) (int64, error) {
	str := strings.TrimSpace(s)
	if us, ok := parseClock(str); ok {
		return us, nil
	}
	bad := pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type time: %q", s)
	if _, _, _, rest, ok := parseYMD(str); ok && rest != "" {
		str = strings.TrimLeft(rest, " T")
	}
	clock, zone, err := splitClockZone(str)
	if err == errFieldRange {
		return 0, fieldRangeErr(s)
	}
	if err != nil || clock == "" {
		return 0, bad
	}
	if zone != "" {
		switch strings.ToUpper(zone) {
		case "Z", "UTC", "GMT", "ZULU":
		default:
			if zone[0] != '+' && zone[0] != '-' || len(zone) == 1 {
				return 0, bad
			}
			if _, ok := zoneOffset(zone, time.Time{}); !ok {
				if strings.Trim(zone[1:], "0123456789:") == "" {
					return 0, pgerr.New("22009", "time zone displacement out of range: %q", s)
				}
				return 0, bad
			}
		}
	}
	us, _ := parseClock(clock)
	return us, nil
}

// parseClock reads HH:MM[:SS[.ffffff]] into µs since midnight.
func parseClock(s string) (int64, bool) {
	us, err := clockOf(s)
	return us, err == nil
}

// errFieldRange is a clock whose fields are well formed but out of range
// (hour 25, minute 61): PostgreSQL's 22008, not a syntax error.
var errFieldRange = errors.New("date/time field value out of range")

// clockOf is parseClock telling an out-of-range field (errFieldRange) from
// malformed input (strconv.ErrSyntax).
func clockOf(s string) (int64, error) {
	f := strings.SplitN(s, ":", 3)
	if len(f) < 2 {
		return 0, strconv.ErrSyntax
	}
	h, err1 := strconv.Atoi(f[0])
	m, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || h < 0 || m < 0 || len(f[0]) > 2 || len(f[1]) != 2 {
		return 0, strconv.ErrSyntax
	}
	if h > 24 || m > 59 {
		return 0, errFieldRange
	}
	var us int64
	if len(f) == 3 {
		sec := f[2]
		frac := ""
		if i := strings.IndexByte(sec, '.'); i >= 0 {
			sec, frac = sec[:i], sec[i+1:]
		}
		sv, err := strconv.Atoi(sec)
		if err != nil || len(sec) != 2 {
			return 0, strconv.ErrSyntax
		}
		if sv > 60 {
			return 0, errFieldRange
		}
		us = int64(sv) * 1e6
		if frac != "" {
			for _, c := range frac {
				if c < '0' || c > '9' {
					return 0, strconv.ErrSyntax
				}
			}
			// Round to microseconds.
			digits := frac + "0000000"
			v, _ := strconv.ParseInt(digits[:7], 10, 64)
			us += (v + 5) / 10
		}
	}
	us += int64(h)*3600e6 + int64(m)*60e6
	if us > 24*3600e6 {
		return 0, errFieldRange
	}
	return us, nil
}

// splitClockZone separates "10:00:00.5+05:30" into its clock and zone.
func splitClockZone(s string) (clock, zone string, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", "", nil
	}
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == ':' || s[i] == '.') {
		i++
	}
	clock, zone = s[:i], strings.TrimSpace(s[i:])
	if _, err := clockOf(clock); err != nil {
		return "", "", err
	}
	return clock, zone, nil
}

// zoneOffset resolves a zone suffix: Z, UTC, +HH, +HH:MM, +HHMM, or a name.
func zoneOffset(zone string, at time.Time) (*time.Location, bool) {
	switch strings.ToUpper(zone) {
	case "Z", "UTC", "GMT", "ZULU":
		return time.UTC, true
	}
	if zone[0] == '+' || zone[0] == '-' {
		sign := 1
		if zone[0] == '-' {
			sign = -1
		}
		z := strings.ReplaceAll(zone[1:], ":", "")
		var h, m, sec int
		var err error
		switch len(z) {
		case 1, 2:
			h, err = strconv.Atoi(z)
		case 4:
			h, err = strconv.Atoi(z[:2])
			if err == nil {
				m, err = strconv.Atoi(z[2:])
			}
		case 6:
			h, err = strconv.Atoi(z[:2])
			if err == nil {
				m, err = strconv.Atoi(z[2:4])
			}
			if err == nil {
				sec, err = strconv.Atoi(z[4:])
			}
		default:
			return nil, false
		}
		if err != nil || h > 15 || m > 59 {
			return nil, false
		}
		return time.FixedZone("", sign*(h*3600+m*60+sec)), true
	}
	loc, err := LoadLocation(zone)
	if err != nil {
		return nil, false
	}
	return loc, true
}

// LoadLocation resolves a TimeZone setting value; UTC-like names and fixed
// offsets need no tz database.
func LoadLocation(name string) (*time.Location, error) {
	switch strings.ToUpper(name) {
	case "UTC", "GMT", "Z", "ZULU", "ETC/UTC":
		return time.UTC, nil
	}
	return time.LoadLocation(name)
}

// ParseTimestamp reads an ISO 8601 or PostgreSQL timestamp. A zone in the
// text applies to timestamptz and is ignored for timestamp, as in
// PostgreSQL; a timestamptz with no zone is in loc.
func ParseTimestamp(s string, withZone bool, loc *time.Location) (int64, error) {
	if us, ok := parseISOTimestamp(s, withZone, loc); ok {
		return us, nil
	}
	return parseTimestampSlow(s, withZone, loc)
}

// parseTimestampSlow is the general timestamp parser.
func parseTimestampSlow(s string, withZone bool, loc *time.Location) (int64, error) {
	kind := "timestamp"
	if withZone {
		kind = "timestamp with time zone"
	}
	bad := func() (int64, error) {
		return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: %q", kind, s)
	}
	str := strings.TrimSpace(s)
	switch strings.ToLower(str) {
	case "epoch":
		return 0, nil
	case "infinity": // PostgreSQL's sentinels; it takes no "+infinity"
		return math.MaxInt64, nil
	case "-infinity":
		return math.MinInt64, nil
	}
	y, mo, d, rest, ok := parseYMD(str)
	if !ok {
		return bad()
	}
	if rest != "" && rest[0] != ' ' && rest[0] != 'T' && rest[0] != 't' {
		return bad()
	}
	if rest != "" {
		rest = rest[1:]
	}
	clock, zone, err := splitClockZone(rest)
	if err == errFieldRange {
		return 0, fieldRangeErr(s)
	}
	if err != nil {
		return bad()
	}
	if !validDate(y, mo, d) {
		return 0, dateRangeErr(s, mo, d)
	}
	var us int64
	if clock != "" {
		us, _ = parseClock(clock)
	}
	wall := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
	base := wall.Unix()*1e6 + us
	badZone := func() (int64, error) {
		if (zone[0] == '+' || zone[0] == '-') && len(zone) > 1 && strings.Trim(zone[1:], "0123456789:") == "" {
			return 0, pgerr.New("22009", "time zone displacement out of range: %q", s)
		}
		return bad()
	}
	if !withZone {
		if zone != "" {
			if _, ok := zoneOffset(zone, wall); !ok {
				return badZone()
			}
		}
		return base, nil
	}
	zl := loc
	if zone != "" {
		if zl, ok = zoneOffset(zone, wall); !ok {
			return badZone()
		}
	}
	if zl == nil || zl == time.UTC {
		return base, nil
	}
	// The wall clock is in zl: find its UTC instant.
	return WallToInstant(base, zl), nil
}

// nonzeroMantissa reports whether a float's text has a digit other than 0
// before its exponent.
func nonzeroMantissa(s string) bool {
	for _, c := range s {
		switch {
		case c == 'e' || c == 'E':
			return false
		case c >= '1' && c <= '9':
			return true
		}
	}
	return false
}
