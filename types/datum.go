package types

import (
	"bytes"
	"math"
	"strconv"
	"time"
)

// Datum is one scalar value: a literal, a bound parameter, an aggregate's
// input constant. Batches never hold Datums; they hold Arrow arrays.
type Datum struct {
	T    T
	Null bool
	I    int64   // bool (0/1), integers, date (days since 1970), time and timestamps (µs)
	F    float64 // float4, float8
	S    string  // text, numeric, uuid, json
	B    []byte  // bytea
	// Months and Days are an interval's month and day parts; I holds its
	// microseconds.
	Months, Days int32
}

// IntervalDatum returns an interval datum.
func IntervalDatum(iv IntervalValue) Datum {
	return Datum{T: TInterval, Months: iv.Months, Days: iv.Days, I: iv.Micros}
}

// Interval reads an interval datum's value.
func (d Datum) Interval() IntervalValue {
	return IntervalValue{Months: d.Months, Days: d.Days, Micros: d.I}
}

// NullOf is the NULL of a type.
func NullOf(t T) Datum { return Datum{T: t, Null: true} }

// Int returns an integer datum of type t.
func Int(t T, v int64) Datum { return Datum{T: t, I: v} }

// Float8Datum returns a float8 datum.
func Float8Datum(v float64) Datum { return Datum{T: TFloat8, F: v} }

// TextDatum returns a text datum.
func TextDatum(s string) Datum { return Datum{T: TText, S: s} }

// BoolDatum returns a boolean datum.
func BoolDatum(b bool) Datum {
	if b {
		return Datum{T: TBool, I: 1}
	}
	return Datum{T: TBool}
}

// Epoch is 1970-01-01, the zero of Loam's date and timestamp values.
var Epoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// FormatText renders d as PostgreSQL's output function does; loc is the
// session TimeZone for timestamptz.
func FormatText(d Datum, loc *time.Location) string {
	if d.Null {
		return ""
	}
	var buf []byte
	switch d.T.Kind {
	case Bool:
		if d.I != 0 {
			return "t"
		}
		return "f"
	case Int2, Int4, Int8, OID:
		return strconv.FormatInt(d.I, 10)
	case Float4:
		return FormatFloat4(float32(d.F))
	case Float8:
		return FormatFloat8(d.F)
	case Bytea:
		return string(AppendBytea(buf, d.B))
	case Date:
		return string(AppendDate(buf, d.I))
	case Time:
		return string(AppendTime(buf, d.I))
	case Timestamp:
		return string(AppendTimestamp(buf, d.I, nil))
	case TimestampTZ:
		return string(AppendTimestamp(buf, d.I, loc))
	case Interval:
		return string(AppendInterval(buf, d.Interval()))
	case Array:
		if d.T.IsVector() {
			return vectorText(d.S)
		}
	}
	return d.S
}

// FormatFloat8 prints a float8 as PostgreSQL 15 does with the default
// extra_float_digits: the shortest text that reads back exactly, in
// exponent form outside [1e-4, 1e15).
func FormatFloat8(f float64) string { return string(AppendFloat8(nil, f)) }

// FormatFloat4 prints a float4 likewise, exponent form from 1e6.
func FormatFloat4(f float32) string { return string(AppendFloat4(nil, f)) }

// AppendFloat8 appends FormatFloat8's text without allocating: row
// encoding calls it once per value.
func AppendFloat8(buf []byte, f float64) []byte { return appendFloat(buf, f, 64, 15) }

// AppendFloat4 appends FormatFloat4's text.
func AppendFloat4(buf []byte, f float32) []byte { return appendFloat(buf, float64(f), 32, 6) }

func appendFloat(buf []byte, f float64, bits, digits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...)
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(buf, "-0"...)
		}
		return append(buf, '0')
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, bits)
	i := bytes.IndexByte(e, 'e')
	exp := 0
	neg := e[i+1] == '-'
	for _, c := range e[i+2:] { // strconv writes e+NN / e-NN
		exp = exp*10 + int(c-'0')
	}
	if neg {
		exp = -exp
	}
	if exp < -4 || exp >= digits {
		return append(buf, e...)
	}
	return strconv.AppendFloat(buf, f, 'f', -1, bits)
}

// AppendBytea prints bytes in the hex format.
func AppendBytea(buf, b []byte) []byte {
	const hexdigits = "0123456789abcdef"
	buf = append(buf, '\\', 'x')
	for _, c := range b {
		buf = append(buf, hexdigits[c>>4], hexdigits[c&15])
	}
	return buf
}

func appendPad(buf []byte, v int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(s); i < width; i++ {
		buf = append(buf, '0')
	}
	return append(buf, s...)
}

// AppendDate prints days since 1970-01-01 as YYYY-MM-DD. The extreme
// int32 values are ±infinity, as in PostgreSQL's binary format (the only
// way they reach Loam so far: a client's binary parameter or COPY).
func AppendDate(buf []byte, days int64) []byte {
	switch days {
	case math.MaxInt32:
		return append(buf, "infinity"...)
	case math.MinInt32:
		return append(buf, "-infinity"...)
	}
	t := Epoch.AddDate(0, 0, int(days))
	return appendYMD(buf, t)
}

func appendYMD(buf []byte, t time.Time) []byte {
	y := t.Year()
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	buf = appendPad(buf, int64(y), 4)
	buf = append(buf, '-')
	buf = appendPad(buf, int64(t.Month()), 2)
	buf = append(buf, '-')
	buf = appendPad(buf, int64(t.Day()), 2)
	if bc {
		buf = append(buf, " BC"...)
	}
	return buf
}

// AppendTime prints microseconds since midnight as HH:MM:SS[.ffffff].
func AppendTime(buf []byte, us int64) []byte {
	return appendClock(buf, us/1e6/3600, us/1e6/60%60, us/1e6%60, us%1e6)
}

func appendClock(buf []byte, h, m, s, frac int64) []byte {
	buf = appendPad(buf, h, 2)
	buf = append(buf, ':')
	buf = appendPad(buf, m, 2)
	buf = append(buf, ':')
	buf = appendPad(buf, s, 2)
	if frac > 0 {
		buf = append(buf, '.')
		digits := 6
		for frac%10 == 0 {
			frac /= 10
			digits--
		}
		buf = appendPad(buf, frac, digits)
	}
	return buf
}

// AppendTimestamp prints microseconds since the epoch. With a location it
// prints a timestamptz in that zone with its offset (+00, +05:30).
func AppendTimestamp(buf []byte, us int64, loc *time.Location) []byte {
	switch us { // ±infinity, as for dates
	case math.MaxInt64:
		return append(buf, "infinity"...)
	case math.MinInt64:
		return append(buf, "-infinity"...)
	}
	sec, frac := us/1e6, us%1e6
	if frac < 0 {
		sec--
		frac += 1e6
	}
	t := time.Unix(sec, 0).UTC()
	if loc != nil {
		t = t.In(loc)
	}
	buf = appendYMD(buf, t)
	// BC suffix goes after the time; appendYMD put it after the date.
	// (bytes.HasSuffix: converting buf, which may be a whole batch of rows,
	// to a string copied it once per value.)
	bc := bytes.HasSuffix(buf, []byte(" BC"))
	if bc {
		buf = buf[:len(buf)-3]
	}
	buf = append(buf, ' ')
	buf = appendClock(buf, int64(t.Hour()), int64(t.Minute()), int64(t.Second()), frac)
	if loc != nil {
		_, off := t.Zone()
		sign := byte('+')
		if off < 0 {
			sign = '-'
			off = -off
		}
		buf = append(buf, sign)
		buf = appendPad(buf, int64(off/3600), 2)
		if m := off / 60 % 60; m != 0 || off%60 != 0 {
			buf = append(buf, ':')
			buf = appendPad(buf, int64(m), 2)
		}
		if s := off % 60; s != 0 {
			buf = append(buf, ':')
			buf = appendPad(buf, int64(s), 2)
		}
	}
	if bc {
		buf = append(buf, " BC"...)
	}
	return buf
}

// Timestamps and dates hold ±infinity as PostgreSQL does, in the extreme
// values of their int64 µs and int32 days.
const (
	TimestampInf    = int64(math.MaxInt64)
	TimestampNegInf = int64(math.MinInt64)
	DateInf         = int64(math.MaxInt32)
	DateNegInf      = int64(math.MinInt32)
)

// IsInfTimestamp says whether µs is timestamp ±infinity.
func IsInfTimestamp(us int64) bool { return us == TimestampInf || us == TimestampNegInf }

// IsInfDate says whether days is date ±infinity.
func IsInfDate(days int64) bool { return days == DateInf || days == DateNegInf }

// DateToTimestampInf maps date ±infinity to timestamp ±infinity; ok is
// false for a finite date.
func DateToTimestampInf(days int64) (int64, bool) {
	switch days {
	case DateInf:
		return TimestampInf, true
	case DateNegInf:
		return TimestampNegInf, true
	}
	return 0, false
}

// TimestampToDateInf maps timestamp ±infinity to date ±infinity; ok is
// false for a finite timestamp.
func TimestampToDateInf(us int64) (int64, bool) {
	switch us {
	case TimestampInf:
		return DateInf, true
	case TimestampNegInf:
		return DateNegInf, true
	}
	return 0, false
}
