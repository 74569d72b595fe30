package types

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/loamdb/loam/pgerr"
)

func TestFormatFloat8(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{0.1, "0.1"},
		{0.30000000000000004, "0.30000000000000004"},
		{1, "1"},
		{-2.5, "-2.5"},
		{1e15, "1e+15"},
		{1e14, "100000000000000"},
		{999999999999999, "999999999999999"},
		{123456789012345, "123456789012345"},
		{1234567890123456, "1.234567890123456e+15"},
		{1e-4, "0.0001"},
		{1e-5, "1e-05"},
		{1.5e-7, "1.5e-07"},
		{1.5e300, "1.5e+300"},
		{-1.5e300, "-1.5e+300"},
		{math.MaxFloat64, "1.7976931348623157e+308"},
		{5e-324, "5e-324"},
		{0, "0"},
		{math.Copysign(0, -1), "-0"},
		{math.NaN(), "NaN"},
		{math.Inf(1), "Infinity"},
		{math.Inf(-1), "-Infinity"},
	}
	for _, c := range cases {
		got := FormatFloat8(c.f)
		if got != c.want {
			t.Errorf("FormatFloat8(%v) = %q, want %q", c.f, got, c.want)
		}
		// Shortest round trip: the text reads back as the same float.
		if !math.IsNaN(c.f) && !math.IsInf(c.f, 0) {
			back, err := strconv.ParseFloat(got, 64)
			if err != nil || back != c.f {
				t.Errorf("FormatFloat8(%v) = %q reads back as %v, %v", c.f, got, back, err)
			}
			// Within [1e-4, 1e15) it is strconv's plain form.
			if a := math.Abs(c.f); a >= 1e-4 && a < 1e15 {
				if want := strconv.FormatFloat(c.f, 'f', -1, 64); got != want {
					t.Errorf("FormatFloat8(%v) = %q, strconv 'f' gives %q", c.f, got, want)
				}
			}
		}
	}
}

func TestFormatFloat4(t *testing.T) {
	cases := []struct {
		f    float32
		want string
	}{
		{0.1, "0.1"},
		{1e6, "1e+06"},
		{123456, "123456"},
		{1.5, "1.5"},
	}
	for _, c := range cases {
		if got := FormatFloat4(c.f); got != c.want {
			t.Errorf("FormatFloat4(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestTimestampRoundTrip(t *testing.T) {
	kolkata := time.FixedZone("IST", 5*3600+1800)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	cases := []struct {
		in       string
		withZone bool
		loc      *time.Location // session zone for parsing and printing
		wantUTC  string         // the instant, as time.RFC3339Nano in UTC
		out      string         // printed in loc (timestamptz) or bare
	}{
		{"2026-11-29 10:00:00.123+00", true, time.UTC, "2026-11-29T10:00:00.123Z", "2026-11-29 10:00:00.123+00"},
		{"2026-11-29T10:00:00Z", true, time.UTC, "2026-11-29T10:00:00Z", "2026-11-29 10:00:00+00"},
		{"2026-11-29 15:30:00+05:30", true, time.UTC, "2026-11-29T10:00:00Z", "2026-11-29 10:00:00+00"},
		{"2026-11-29 15:30:00+05:30", true, kolkata, "2026-11-29T10:00:00Z", "2026-11-29 15:30:00+05:30"},
		{"2026-11-29 15:30:00+0530", true, kolkata, "2026-11-29T10:00:00Z", "2026-11-29 15:30:00+05:30"},
		{"2026-11-29 05:00:00-05", true, time.UTC, "2026-11-29T10:00:00Z", "2026-11-29 10:00:00+00"},
		{"2026-11-29 05:00:00", true, ny, "2026-11-29T10:00:00Z", "2026-11-29 05:00:00-05"},
		{"2026-07-01 06:00:00", true, ny, "2026-07-01T10:00:00Z", "2026-07-01 06:00:00-04"},
		{"2026-11-29 10:00:00.000001+00", true, time.UTC, "2026-11-29T10:00:00.000001Z", "2026-11-29 10:00:00.000001+00"},
		{"2026-11-29 10:00:00.0000004+00", true, time.UTC, "2026-11-29T10:00:00Z", "2026-11-29 10:00:00+00"},
		{"2026-11-29 10:00:00.9999995+00", true, time.UTC, "2026-11-29T10:00:01Z", "2026-11-29 10:00:01+00"},
		{"2026-11-29", true, time.UTC, "2026-11-29T00:00:00Z", "2026-11-29 00:00:00+00"},
		{"1969-12-31 23:59:59.5+00", true, time.UTC, "1969-12-31T23:59:59.5Z", "1969-12-31 23:59:59.5+00"},
		{"epoch", true, time.UTC, "1970-01-01T00:00:00Z", "1970-01-01 00:00:00+00"},
		// timestamp without time zone ignores a zone in the text.
		{"2026-11-29 15:30:00+05:30", false, nil, "2026-11-29T15:30:00Z", "2026-11-29 15:30:00"},
		{"2026-11-29 10:00:00.25", false, nil, "2026-11-29T10:00:00.25Z", "2026-11-29 10:00:00.25"},
		{"2000-02-29 00:00:00", false, nil, "2000-02-29T00:00:00Z", "2000-02-29 00:00:00"},
	}
	for _, c := range cases {
		us, err := ParseTimestamp(c.in, c.withZone, c.loc)
		if err != nil {
			t.Errorf("ParseTimestamp(%q): %v", c.in, err)
			continue
		}
		if got := time.UnixMicro(us).UTC().Format(time.RFC3339Nano); got != c.wantUTC {
			t.Errorf("ParseTimestamp(%q) = %s, want %s", c.in, got, c.wantUTC)
		}
		var loc *time.Location
		if c.withZone {
			loc = c.loc
		}
		out := string(AppendTimestamp(nil, us, loc))
		if out != c.out {
			t.Errorf("AppendTimestamp(%q) = %q, want %q", c.in, out, c.out)
		}
		// The printed form parses back to the same instant.
		back, err := ParseTimestamp(out, c.withZone, c.loc)
		if err != nil || back != us {
			t.Errorf("round trip %q -> %q -> %d (%v), want %d", c.in, out, back, err, us)
		}
	}
}

func TestParseTimestampErrors(t *testing.T) {
	cases := []struct {
		in   string
		code string
	}{
		{"not a time", pgerr.InvalidDatetimeFormat},
		{"", pgerr.InvalidDatetimeFormat},
		// Well-formed fields out of range are 22008, as in PostgreSQL.
		{"2026-11-29 25:00:00", pgerr.DatetimeFieldOverflow},
		{"2026-11-29 10:60:00", pgerr.DatetimeFieldOverflow},
		{"2026-11-29 10:00:61", pgerr.DatetimeFieldOverflow},
		{"2026-11-29 24:00:01", pgerr.DatetimeFieldOverflow},
		{"2026-11-29 10:00:00 nowhere", pgerr.InvalidDatetimeFormat},
		{"2026-11-29 10:00:00+99", "22009"},
		{"2026-11-29 10:00:00+1a", pgerr.InvalidDatetimeFormat},
		{"2026/11/29", pgerr.InvalidDatetimeFormat},
		{"2026-11-29X10:00", pgerr.InvalidDatetimeFormat},
		{"2026-02-30 00:00:00", pgerr.DatetimeFieldOverflow},
		{"2026-13-01", pgerr.DatetimeFieldOverflow},
	}
	for _, c := range cases {
		_, err := ParseTimestamp(c.in, true, time.UTC)
		if err == nil {
			t.Errorf("ParseTimestamp(%q): no error, want %s", c.in, c.code)
			continue
		}
		if got := pgerr.Code(err); got != c.code {
			t.Errorf("ParseTimestamp(%q): %s (%v), want %s", c.in, got, err, c.code)
		}
	}
}

func TestAppendTimestampOffsets(t *testing.T) {
	us := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC).UnixMicro()
	cases := []struct {
		loc  *time.Location
		want string
	}{
		{time.UTC, "2026-11-29 10:00:00+00"},
		{time.FixedZone("", 5*3600+1800), "2026-11-29 15:30:00+05:30"},
		{time.FixedZone("", -(3*3600 + 30*60)), "2026-11-29 06:30:00-03:30"},
		{time.FixedZone("", 12*3600+45*60), "2026-11-29 22:45:00+12:45"},
		{time.FixedZone("", -8*3600), "2026-11-29 02:00:00-08"},
		{time.FixedZone("", 3600+2*60+3), "2026-11-29 11:02:03+01:02:03"},
	}
	for _, c := range cases {
		if got := string(AppendTimestamp(nil, us, c.loc)); got != c.want {
			t.Errorf("AppendTimestamp in %v = %q, want %q", c.loc, got, c.want)
		}
	}
	// Before the epoch and BC.
	if got := string(AppendTimestamp(nil, -1, nil)); got != "1969-12-31 23:59:59.999999" {
		t.Errorf("-1µs = %q", got)
	}
	bc := time.Date(-43, 3, 15, 12, 0, 0, 0, time.UTC).UnixMicro() // 44 BC
	if got := string(AppendTimestamp(nil, bc, time.UTC)); got != "0044-03-15 12:00:00+00 BC" {
		t.Errorf("44 BC = %q", got)
	}
}

func TestRoundMicros(t *testing.T) {
	const us = 1_234_567 // 1.234567 s
	want := []int64{
		0: 1_000_000,
		1: 1_200_000,
		2: 1_230_000,
		3: 1_235_000,
		4: 1_234_600,
		5: 1_234_570,
		6: 1_234_567,
	}
	for p, w := range want {
		if got := RoundMicros(us, int32(p)); got != w {
			t.Errorf("RoundMicros(%d, %d) = %d, want %d", us, p, got, w)
		}
	}
	if got := RoundMicros(us, -1); got != us {
		t.Errorf("RoundMicros(p=-1) = %d", got)
	}
	cases := []struct {
		us   int64
		p    int32
		want int64
	}{
		{123_500, 3, 124_000}, // half rounds up
		{123_499, 3, 123_000},
		{999_500, 3, 1_000_000}, // carries into the next second
		{500_000, 0, 1_000_000},
		{499_999, 0, 0},
		{-1_234_567, 3, -1_235_000},
		{-400, 3, 0},
		{-600, 3, -1000},
	}
	for _, c := range cases {
		if got := RoundMicros(c.us, c.p); got != c.want {
			t.Errorf("RoundMicros(%d, %d) = %d, want %d", c.us, c.p, got, c.want)
		}
	}
}

// TestRoundMicrosNegativeHalf: PostgreSQL's AdjustTimestampForTypmod rounds
// half away from zero, so before 1970 an exact half rounds toward the past.
func TestRoundMicrosNegativeHalf(t *testing.T) {
	// '1969-12-31 23:59:59.9995'::timestamp(3) is -500µs; PostgreSQL
	// computes -((500 + 500) / 1000 * 1000) = -1000µs, printing
	// 1969-12-31 23:59:59.999.
	if got := RoundMicros(-500, 3); got != -1000 {
		t.Fatalf("RoundMicros(-500, 3) = %d, PostgreSQL gives -1000 (half away from zero); "+
			"'1969-12-31 23:59:59.9995'::timestamp(3) prints 1970-01-01 00:00:00 instead of 1969-12-31 23:59:59.999", got)
	}
}

func TestDec(t *testing.T) {
	div := func(a, b string) string {
		t.Helper()
		x, err := ParseDec(a)
		if err != nil {
			t.Fatalf("ParseDec(%q): %v", a, err)
		}
		y, err := ParseDec(b)
		if err != nil {
			t.Fatalf("ParseDec(%q): %v", b, err)
		}
		q, err := x.Div(&y)
		if err != nil {
			t.Fatalf("%s / %s: %v", a, b, err)
		}
		return q.String()
	}
	cases := []struct{ a, b, want string }{
		// avg(int) is sum::numeric / count: PostgreSQL's select_div_scale.
		{"3", "2", "1.5000000000000000"},
		{"620", "2", "310.0000000000000000"},
		{"300000", "2", "150000.000000000000"},
		{"1", "3", "0.33333333333333333333"},
		{"2", "3", "0.66666666666666666667"},
		{"500", "3", "166.6666666666666667"},
		{"-1", "3", "-0.33333333333333333333"},
		{"-2", "3", "-0.66666666666666666667"},
		{"10", "4", "2.5000000000000000"},
		{"1.50", "2", "0.75000000000000000000"},
		{"1", "8", "0.12500000000000000000"},
		{"100000000", "3", "33333333.333333333333"},
		{"0", "7", "0.00000000000000000000"}, // zero has weight 0, first digit 0
		{"1.000000000000000000001", "1", "1.000000000000000000001"},
	}
	for _, c := range cases {
		if got := div(c.a, c.b); got != c.want {
			t.Errorf("%s / %s = %s, want %s", c.a, c.b, got, c.want)
		}
	}
	one, _ := ParseDec("1")
	zero, _ := ParseDec("0.00")
	if _, err := one.Div(&zero); pgerr.Code(err) != pgerr.DivisionByZero {
		t.Errorf("1 / 0: %v", err)
	}
}

func TestParseDec(t *testing.T) {
	cases := []struct{ in, want string }{
		{"0", "0"},
		{"1.50", "1.50"},
		{"-0.001", "-0.001"},
		{"+7", "7"},
		{".5", "0.5"},
		{"5.", "5"},
		{"1e3", "1000"},
		{"1.5E-3", "0.0015"},
		{"  42  ", "42"},
		{"123456789012345678901234567890.123", "123456789012345678901234567890.123"},
	}
	for _, c := range cases {
		d, err := ParseDec(c.in)
		if err != nil {
			t.Errorf("ParseDec(%q): %v", c.in, err)
			continue
		}
		if got := d.String(); got != c.want {
			t.Errorf("ParseDec(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"", "abc", "1.2.3", "1e", "--1", ".", "1e+", "0x10"} {
		if _, err := ParseDec(bad); pgerr.Code(err) != pgerr.InvalidTextRepresentation {
			t.Errorf("ParseDec(%q): %v, want 22P02", bad, err)
		}
	}
	// Add/Sub/Mul scales and Rescale rounding (half away from zero).
	a, _ := ParseDec("1.25")
	b, _ := ParseDec("0.5")
	for _, c := range []struct {
		got  Dec
		want string
	}{
		{a.Add(&b), "1.75"},
		{a.Sub(&b), "0.75"},
		{a.Mul(&b), "0.625"},
		{a.Rescale(1), "1.3"},
		{a.Rescale(4), "1.2500"},
		{mustDec("-1.25").Rescale(1), "-1.3"},
		{mustDec("-1.24").Rescale(1), "-1.2"},
	} {
		if s := c.got.String(); s != c.want {
			t.Errorf("got %s, want %s", s, c.want)
		}
	}
	if _, err := mustDec("123.456").Fit(4, 2); pgerr.Code(err) != pgerr.NumericValueOutOfRange {
		t.Errorf("123.456 as numeric(4,2): %v", err)
	}
	if d, err := mustDec("12.345").Fit(4, 2); err != nil || d.String() != "12.35" {
		t.Errorf("12.345 as numeric(4,2) = %v, %v", d.String(), err)
	}
}

func mustDec(s string) Dec {
	d, err := ParseDec(s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestParseInterval(t *testing.T) {
	cases := []struct {
		in   string
		want IntervalValue
		str  string
	}{
		{"180 days", IntervalValue{Days: 180}, "180 days"},
		{"1 day", IntervalValue{Days: 1}, "1 day"},
		{"30 seconds", IntervalValue{Micros: 30e6}, "00:00:30"},
		{"30s", IntervalValue{Micros: 30e6}, "00:00:30"},
		{"1 hour 30 minutes", IntervalValue{Micros: 90 * 60e6}, "01:30:00"},
		{"01:30:00", IntervalValue{Micros: 90 * 60e6}, "01:30:00"},
		{"2 weeks", IntervalValue{Days: 14}, "14 days"},
		{"1 year", IntervalValue{Months: 12}, "1 year"},
		{"18 months", IntervalValue{Months: 18}, "1 year 6 mons"},
		{"1 year 2 days 3 hours", IntervalValue{Months: 12, Days: 2, Micros: 3 * 3600e6}, "1 year 2 days 03:00:00"},
		{"  7 DAYS ", IntervalValue{Days: 7}, "7 days"},
		{"500 ms", IntervalValue{Micros: 500e3}, "00:00:00.5"},
		{"0 days", IntervalValue{}, "00:00:00"},
	}
	for _, c := range cases {
		iv, err := ParseInterval(c.in)
		if err != nil {
			t.Errorf("ParseInterval(%q): %v", c.in, err)
			continue
		}
		if iv != c.want {
			t.Errorf("ParseInterval(%q) = %+v, want %+v", c.in, iv, c.want)
		}
		if s := iv.String(); s != c.str {
			t.Errorf("ParseInterval(%q).String() = %q, want %q", c.in, s, c.str)
		}
		// String's output parses back to the same interval.
		back, err := ParseInterval(iv.String())
		if err != nil || back != iv {
			t.Errorf("ParseInterval(%q) = %+v (%v), want %+v", iv.String(), back, err, iv)
		}
	}
	for _, bad := range []string{"soon", "", "days", "5 fortnights", "1:2:3:4", "x days"} {
		_, err := ParseInterval(bad)
		if pgerr.Code(err) != pgerr.InvalidDatetimeFormat {
			t.Errorf("ParseInterval(%q): %v, want 22007", bad, err)
		}
	}
}

// TestParseIntervalFraction: PostgreSQL carries a fractional unit down to
// the smaller ones ('1.5 days' is 1 day 12:00:00).
func TestParseIntervalFraction(t *testing.T) {
	iv, err := ParseInterval("1.5 days")
	if err != nil {
		t.Fatal(err)
	}
	if want := (IntervalValue{Days: 1, Micros: 12 * 3600e6}); iv != want {
		t.Fatalf("ParseInterval(\"1.5 days\") = %+v (%s), PostgreSQL gives 1 day 12:00:00", iv, iv.String())
	}
}

// TestParseIntervalLongClock: PostgreSQL reads '36:00:00' as 36 hours, and
// String prints '36 hours' that way, so the two should round-trip.
func TestParseIntervalLongClock(t *testing.T) {
	iv, err := ParseInterval("36 hours")
	if err != nil || iv.String() != "36:00:00" {
		t.Fatalf("ParseInterval(\"36 hours\") = %v (%v)", iv, err)
	}
	back, err := ParseInterval(iv.String())
	if err != nil || back != iv {
		t.Fatalf("ParseInterval(%q) = %+v, %v; want it back as %+v", iv.String(), back, err, iv)
	}
}

// TestParseIntervalBeyondArrow: a time part past what Arrow's nanoseconds
// hold (±2562047 hours) is out of range, not wrapped around: lib/pq sends a
// time.Duration as its nanosecond count, which the server reads as seconds.
func TestParseIntervalBeyondArrow(t *testing.T) {
	for _, s := range []string{"5400000000000", "-2562048 hours", "9223372036855 seconds"} {
		if iv, err := ParseInterval(s); pgerr.Code(err) != pgerr.DatetimeFieldOverflow {
			t.Errorf("ParseInterval(%q) = %s (%v), want 22008", s, iv, err)
		}
	}
	// The largest that fits still parses and round-trips.
	iv, err := ParseInterval("2562047 hours")
	if err != nil || iv.Arrow().Nanoseconds/1000 != iv.Micros {
		t.Errorf("ParseInterval(\"2562047 hours\") = %+v, %v", iv, err)
	}
}

// TestFormatInfinity: the extreme values PostgreSQL's binary format uses
// for ±infinity print as PostgreSQL prints them, not as far-off dates.
func TestFormatInfinity(t *testing.T) {
	cases := []struct {
		d    Datum
		want string
	}{
		{Datum{T: TDate, I: math.MaxInt32}, "infinity"},
		{Datum{T: TDate, I: math.MinInt32}, "-infinity"},
		{Datum{T: TTimestamp, I: math.MaxInt64}, "infinity"},
		{Datum{T: TTimestampTZ, I: math.MinInt64}, "-infinity"},
		{Datum{T: TTimestampTZ, I: 0}, "1970-01-01 00:00:00+00"},
	}
	for _, c := range cases {
		if got := FormatText(c.d, time.UTC); got != c.want {
			t.Errorf("FormatText(%s %d) = %q, want %q", c.d.T, c.d.I, got, c.want)
		}
	}
}

// TestParseInfinity: 'infinity' and '-infinity' (any case, trimmed) read as
// the sentinels, through any precision; PostgreSQL takes no '+infinity'.
func TestParseInfinity(t *testing.T) {
	cases := []struct {
		t    T
		s    string
		want int64
	}{
		{TTimestamp, "infinity", math.MaxInt64},
		{TTimestampTZ, " -INFINITY ", math.MinInt64},
		{T{Kind: Timestamp, Width: 0}, "Infinity", math.MaxInt64},
		{T{Kind: TimestampTZ, Width: 3}, "-infinity", math.MinInt64},
		{TDate, "infinity", math.MaxInt32},
		{TDate, " -Infinity", math.MinInt32},
	}
	for _, c := range cases {
		d, err := ParseText(c.t, c.s, time.UTC)
		if err != nil || d.I != c.want {
			t.Errorf("ParseText(%s, %q) = %d, %v; want %d", c.t, c.s, d.I, err, c.want)
		}
	}
	for _, typ := range []T{TTimestamp, TTimestampTZ, TDate} {
		if _, err := ParseText(typ, "+infinity", time.UTC); err == nil {
			t.Errorf("ParseText(%s, +infinity) succeeded; PostgreSQL rejects it", typ)
		}
	}
}

// Date input ignores a time of day and a zone after the date; PgJDBC's
// setDate sends "2026-11-29 +00".
func TestParseDateTrailing(t *testing.T) {
	want, err := ParseDate("2026-11-29")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"2026-11-29 +00", "2026-11-29 +05:30", "2026-11-29 -08", "2026-11-29 10:00:00 +02", "2026-11-29T10:00:00Z"} {
		if got, err := ParseDate(s); err != nil || got != want {
			t.Errorf("ParseDate(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"2026-11-29 +99", "2026-11-29 +", "2026-11-29 -", "2026-11-29 foo"} {
		if _, err := ParseDate(s); err == nil {
			t.Errorf("ParseDate(%q): no error", s)
		}
	}
}

// Time input ignores a date before the clock and a numeric or UTC zone
// after it; PgJDBC's setTime sends "10:30:15+00".
func TestParseTimeTrailing(t *testing.T) {
	want := int64(10*3600+30*60+15) * 1e6
	for _, s := range []string{"10:30:15", "10:30:15+00", "10:30:15 +05:30", "10:30:15-08", "10:30:15 UTC", "2026-11-29 10:30:15", "2026-11-29T10:30:15Z"} {
		d, err := ParseText(TTime, s, time.UTC)
		if err != nil || d.I != want {
			t.Errorf("ParseText(time, %q) = %d, %v; want %d", s, d.I, err, want)
		}
	}
	for s, code := range map[string]string{"10:30:15 America/New_York": "22007", "10:30:15 foo": "22007", "10:30:15+": "22007", "10:30:15+99": "22009", "": "22007"} {
		_, err := ParseText(TTime, s, time.UTC)
		if pgerr.From(err).Code != code {
			t.Errorf("ParseText(time, %q): %v, want SQLSTATE %s", s, err, code)
		}
	}
}

// Dates far from 1970 keep their day: year 1 and 9999 are PostgreSQL's
// 0001-01-01 (its binary form -730119 days from 2000-01-01) and 9999-12-31.
func TestParseDateFar(t *testing.T) {
	for _, c := range []struct {
		s    string
		days int64
	}{
		{"0001-01-01", -730119 + 10957},
		{"1677-09-21", -106752},
		{"9999-12-31", 2932896},
		{"1970-01-01", 0},
	} {
		got, err := ParseDate(c.s)
		if err != nil || got != c.days {
			t.Errorf("ParseDate(%q) = %d, %v; want %d", c.s, got, err, c.days)
		}
		if back := string(AppendDate(nil, got)); back != c.s {
			t.Errorf("AppendDate(%d) = %q, want %q", got, back, c.s)
		}
	}
}
