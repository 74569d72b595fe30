package expr

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

func ts(s string) int64 {
	us, err := types.ParseTimestamp(s, false, nil)
	if err != nil {
		panic(err)
	}
	return us
}

func mustIV(s string) types.IntervalValue {
	iv, err := types.ParseInterval(s)
	if err != nil {
		panic(err)
	}
	return iv
}

func nyc(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tz database")
	}
	return loc
}

func TestCivilRoundTrip(t *testing.T) {
	for days := int64(-800000); days < 800000; days += 997 {
		y, m, d := civil(days)
		if back := daysFromCivil(y, m, d); back != days {
			t.Fatalf("civil(%d) = %d-%d-%d, back %d", days, y, m, d, back)
		}
	}
	if y, m, d := civil(0); y != 1970 || m != 1 || d != 1 {
		t.Errorf("civil(0) = %d-%d-%d", y, m, d)
	}
}

func TestTimestampAddInterval(t *testing.T) {
	loc := nyc(t)
	cases := []struct {
		from, iv string
		tz       bool
		want     string
	}{
		{"2024-01-31 10:00:00", "1 month", false, "2024-02-29 10:00:00"},
		{"2024-01-31 10:00:00", "1 month 1 day", false, "2024-03-01 10:00:00"},
		{"2024-03-31 00:00:00", "-1 month", false, "2024-02-29 00:00:00"},
		{"2024-02-29 00:00:00", "1 year", false, "2025-02-28 00:00:00"},
		{"2024-01-01 00:00:00", "-90 minutes", false, "2023-12-31 22:30:00"},
		// A day across the spring change keeps the wall clock: 23 hours pass.
		{"2024-03-09 17:00:00", "1 day", true, "2024-03-10 16:00:00"},
		{"2024-03-09 17:00:00", "24 hours", true, "2024-03-10 17:00:00"},
	}
	for _, c := range cases {
		got, err := TimestampAddInterval(ts(c.from), mustIV(c.iv), c.tz, loc)
		if err != nil {
			t.Fatalf("%s + %s: %v", c.from, c.iv, err)
		}
		if got != ts(c.want) {
			t.Errorf("%s + %s (tz %v) = %s, want %s", c.from, c.iv, c.tz, types.FormatText(types.Int(types.TTimestamp, got), nil), c.want)
		}
	}
	if _, err := TimestampAddInterval(ts("2024-01-01 00:00:00"), types.IntervalValue{Micros: 1<<63 - 10}, false, nil); pgerr.Code(err) != pgerr.DatetimeFieldOverflow {
		t.Errorf("overflow: %v, want 22008", err)
	}
}

func TestIntervalMulDiv(t *testing.T) {
	cases := []struct {
		iv   string
		mul  bool
		f    float64
		want string
	}{
		{"1 hour", true, 2.5, "02:30:00"},
		{"1 mon", true, 0.5, "15 days"},
		{"1 mon", false, 3, "10 days"},
		{"1 mon 1 day", false, 7, "4 days 10:17:08.546743"},
		{"1 day", true, -1, "-1 days"},
		{"3 days", false, 2, "1 day 12:00:00"},
	}
	for _, c := range cases {
		var got types.IntervalValue
		var err error
		if c.mul {
			got, err = IntervalMul(mustIV(c.iv), c.f)
		} else {
			got, err = IntervalDiv(mustIV(c.iv), c.f)
		}
		if err != nil || got.String() != c.want {
			t.Errorf("%s op %v = %s (%v), want %s", c.iv, c.f, got, err, c.want)
		}
	}
	if _, err := IntervalDiv(mustIV("1 day"), 0); pgerr.Code(err) != pgerr.DivisionByZero {
		t.Errorf("division by zero: %v", err)
	}
	// Past Arrow's nanosecond range the result is out of range, not wrapped.
	if got, err := IntervalDiv(mustIV("1000 hours"), 1e-6); pgerr.Code(err) != pgerr.DatetimeFieldOverflow {
		t.Errorf("1000 hours / 1e-6 = %s (%v), want 22008", got, err)
	}
	if got, err := IntervalAdd(mustIV("2000000 hours"), mustIV("2000000 hours")); pgerr.Code(err) != pgerr.DatetimeFieldOverflow {
		t.Errorf("2000000 hours + 2000000 hours = %s (%v), want 22008", got, err)
	}
}

func TestTimestampDiff(t *testing.T) {
	iv, _ := TimestampDiff(ts("2024-01-02 03:00:00"), ts("2024-01-01 00:00:00"))
	if iv.String() != "1 day 03:00:00" {
		t.Errorf("diff = %s", iv)
	}
	iv, _ = TimestampDiff(ts("2024-01-01 00:00:00"), ts("2024-01-02 03:00:00"))
	if iv.String() != "-1 days -03:00:00" {
		t.Errorf("negative diff = %s", iv)
	}
}

func TestExtract(t *testing.T) {
	c := &Ctx{Loc: time.UTC}
	at := types.Int(types.TTimestampTZ, ts("2024-03-10 14:25:36.123456"))
	cases := []struct {
		unit    string
		d       types.Datum
		numeric string
		float   float64
	}{
		{"epoch", at, "1710080736.123456", 1710080736.123456},
		{"second", at, "36.123456", 36.123456},
		{"milliseconds", at, "36123.456", 36123.456},
		{"microseconds", at, "36123456", 36123456},
		{"julian", at, "2460380.60111254000000000000", 2460380.60111254},
		{"dow", at, "0", 0},
		{"isodow", at, "7", 7},
		{"week", at, "10", 10},
		{"doy", at, "70", 70},
		{"century", at, "21", 21},
		{"decade", at, "202", 202},
		{"quarter", at, "1", 1},
		{"epoch", types.Int(types.TDate, 19792), "1710028800", 1710028800},
		{"epoch", types.IntervalDatum(mustIV("1 year 1 month")), "34149600.000000", 34149600},
		{"epoch", types.IntervalDatum(mustIV("-1 day -00:00:00.5")), "-86400.500000", -86400.5},
	}
	for _, tc := range cases {
		n, err := extractDatum(c, tc.unit, tc.d, true)
		if err != nil || n.S != tc.numeric {
			t.Errorf("extract(%s from %s) = %s (%v), want %s", tc.unit, types.FormatText(tc.d, time.UTC), n.S, err, tc.numeric)
		}
		if tc.d.T.Kind == types.Date {
			continue // date_part reads a date as a timestamp; the planner casts it
		}
		f, err := extractDatum(c, tc.unit, tc.d, false)
		if err != nil || f.F != tc.float {
			t.Errorf("date_part(%s, %s) = %v (%v), want %v", tc.unit, types.FormatText(tc.d, time.UTC), f.F, err, tc.float)
		}
	}
	for _, bad := range []struct {
		unit string
		d    types.Datum
		code string
	}{
		{"foo", at, pgerr.InvalidParameterValue},
		{"timezone", types.Int(types.TTimestamp, 0), pgerr.FeatureNotSupported},
		{"hour", types.Int(types.TDate, 0), pgerr.FeatureNotSupported},
		{"dow", types.IntervalDatum(mustIV("1 day")), pgerr.FeatureNotSupported},
	} {
		if _, err := extractDatum(c, bad.unit, bad.d, true); pgerr.Code(err) != bad.code {
			t.Errorf("extract(%s from %s): %v, want %s", bad.unit, bad.d.T, err, bad.code)
		}
	}
}

// The typed loops of date_trunc and extract must agree with the row path,
// in UTC and in a zone with daylight saving time.
func TestTimeVecMatchesRows(t *testing.T) {
	for _, loc := range []*time.Location{time.UTC, nyc(t)} {
		c := &Ctx{Loc: loc}
		bld := NewBuilder(types.TTimestampTZ, 0)
		var vals []int64
		for v := ts("2024-03-09 00:00:00"); v < ts("2024-03-12 00:00:00"); v += 3600e6*7 + 123456789 {
			vals = append(vals, v)
			bld.Append(types.Int(types.TTimestampTZ, v))
		}
		bld.AppendNull()
		arr := bld.Finish()
		col := &Col{Idx: 0, T: types.TTimestampTZ}
		for _, unit := range []string{"microseconds", "second", "minute", "hour", "day", "week", "month", "year"} {
			args := []Expr{&Const{D: types.Datum{T: types.TText, S: unit}}, col}
			one := []arrow.Array{Repeat(args[0].(*Const).D, arr.Len()), arr}
			out, err := dateTruncVec(c, args, one, arr.Len())
			if err != nil || out == nil {
				t.Fatalf("dateTruncVec(%s): %v", unit, err)
			}
			got := arrow.GetValues[int64](out.Data(), 1)
			for i, v := range vals {
				want, err := dateTruncDatum(c, []types.Datum{{T: types.TText, S: unit}, types.Int(types.TTimestampTZ, v)})
				if err != nil || got[i] != want.I {
					t.Errorf("%s date_trunc(%s, %d) = %d, row path %d (%v)", loc, unit, v, got[i], want.I, err)
				}
			}
			if out.IsValid(len(vals)) {
				t.Errorf("date_trunc of NULL is not NULL")
			}
			out.Release()
		}
		for _, unit := range []string{"epoch", "hour", "day", "dow", "second", "timezone"} {
			args := []Expr{&Const{D: types.Datum{T: types.TText, S: unit}}, col}
			one := []arrow.Array{Repeat(args[0].(*Const).D, arr.Len()), arr}
			out, err := extractVec(true)(c, args, one, arr.Len())
			if err != nil || out == nil {
				t.Fatalf("extractVec(%s): %v", unit, err)
			}
			s := out.(*array.String)
			for i, v := range vals {
				want, _ := extractDatum(c, unit, types.Int(types.TTimestampTZ, v), true)
				if s.Value(i) != want.S {
					t.Errorf("%s extract(%s from %d) = %s, row path %s", loc, unit, v, s.Value(i), want.S)
				}
			}
			out.Release()
		}
		arr.Release()
	}
}

func TestDateTruncDST(t *testing.T) {
	c := &Ctx{Loc: nyc(t)}
	// 2024-11-03 12:00 EST is 17:00 UTC; its day starts at 04:00 UTC (EDT).
	got, err := dateTruncDatum(c, []types.Datum{{T: types.TText, S: "day"}, types.Int(types.TTimestampTZ, ts("2024-11-03 17:00:00"))})
	if err != nil || got.I != ts("2024-11-03 04:00:00") {
		t.Errorf("date_trunc(day) = %s (%v)", types.FormatText(got, time.UTC), err)
	}
}

func TestWallToInstant(t *testing.T) {
	loc := nyc(t)
	z := newZoneCache(loc)
	cases := []struct{ wall, want string }{
		{"2024-03-10 02:30:00", "2024-03-10 07:30:00"}, // skipped: read with EST
		{"2024-11-03 01:30:00", "2024-11-03 06:30:00"}, // twice: the EST reading
		{"2024-07-01 12:00:00", "2024-07-01 16:00:00"},
		{"2024-01-01 12:00:00", "2024-01-01 17:00:00"},
	}
	for _, c := range cases {
		if got := types.WallToInstant(ts(c.wall), loc); got != ts(c.want) {
			t.Errorf("WallToInstant(%s) = %s, want %s", c.wall, types.FormatText(types.Int(types.TTimestamp, got), nil), c.want)
		}
		if got := z.instant(ts(c.wall)); got != ts(c.want) {
			t.Errorf("zoneCache.instant(%s) = %s, want %s", c.wall, types.FormatText(types.Int(types.TTimestamp, got), nil), c.want)
		}
	}
}

func TestLookupZone(t *testing.T) {
	cases := []struct {
		name string
		off  int // seconds east
	}{
		{"UTC", 0}, {"+05", -5 * 3600}, {"UTC+5", -5 * 3600}, {"-03:30", 3*3600 + 1800},
	}
	for _, c := range cases {
		loc, err := LookupZone(c.name)
		if err != nil {
			t.Fatalf("LookupZone(%q): %v", c.name, err)
		}
		if _, off := time.Unix(0, 0).In(loc).Zone(); off != c.off {
			t.Errorf("LookupZone(%q) offset %d, want %d", c.name, off, c.off)
		}
	}
	if _, err := LookupZone("Foo/Bar"); pgerr.Code(err) != pgerr.InvalidParameterValue {
		t.Errorf("unknown zone: %v", err)
	}
}

func TestAge(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{"2001-04-10 00:00:00", "1957-06-13 00:00:00", "43 years 9 mons 27 days"},
		{"1957-06-13 00:00:00", "2001-04-10 12:00:00", "-43 years -9 mons -27 days -12:00:00"},
		{"2024-03-31 10:00:00", "2024-02-29 12:00:00", "1 mon 1 day 22:00:00"},
	}
	for _, c := range cases {
		if got := age(ts(c.a), ts(c.b)).String(); got != c.want {
			t.Errorf("age(%s, %s) = %s, want %s", c.a, c.b, got, c.want)
		}
	}
}

func TestJustify(t *testing.T) {
	cases := []struct {
		f        func(types.IntervalValue) types.IntervalValue
		in, want string
	}{
		{justifyHours, "50 hours", "2 days 02:00:00"},
		{justifyDays, "35 days", "1 mon 5 days"},
		{justifyInterval, "1 mon -1 hour", "29 days 23:00:00"},
		{justifyInterval, "-1 mon 35 days 50 hours", "7 days 02:00:00"},
	}
	for _, c := range cases {
		if got := c.f(mustIV(c.in)).String(); got != c.want {
			t.Errorf("justify(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestToChar(t *testing.T) {
	at := types.Int(types.TTimestamp, ts("2024-03-10 14:25:36.123456"))
	c := &Ctx{Loc: time.UTC}
	for _, tc := range []struct {
		d          types.Datum
		tmpl, want string
	}{
		{at, "YYYY-MM-DD HH24:MI:SS.US", "2024-03-10 14:25:36.123456"},
		{at, "Day, DD Month YYYY HH12:MI AM", "Sunday   , 10 March     2024 02:25 PM"},
		{at, "FMDay FMDD FMMonth", "Sunday 10 March"},
		{at, `DDD IW Q "quoted" MS`, "070 10 1 quoted 123"},
		{at, "Dy Mon dd yyyy DDth", "Sun Mar 10 2024 10th"},
		{types.IntervalDatum(mustIV("50 hours")), `HH24 "h"`, "50 h"},
		{types.Datum{T: types.TNumeric, S: "123.456"}, "999.99", " 123.46"},
		{types.Datum{T: types.TNumeric, S: "-1.5"}, "999.99", "  -1.50"},
		{types.Int(types.TInt4, 1234567), "9,999,999", " 1,234,567"},
		{types.Datum{T: types.TNumeric, S: "0.5"}, "9.99", "  .50"},
		{types.Int(types.TInt4, 0), "999", "   0"},
		{types.Datum{T: types.TNumeric, S: "1.5"}, "FM999.99", "1.5"},
		{types.Int(types.TInt4, 12345), "999", " ###"},
		{types.Float8Datum(3.14159), "9.999", " 3.142"},
		{types.Int(types.TInt4, 42), "FM000", "042"},
		{types.Int(types.TInt4, -42), "S999", " -42"},
		{types.Int(types.TInt4, -42), "999MI", " 42-"},
		{types.Int(types.TInt4, -123), "9999PR", " <123>"},
	} {
		got, err := toCharDatum(c, []types.Datum{tc.d, types.TextDatum(tc.tmpl)})
		if err != nil || got.S != tc.want {
			t.Errorf("to_char(%s, %q) = %q (%v), want %q", types.FormatText(tc.d, time.UTC), tc.tmpl, got.S, err, tc.want)
		}
	}
}

func TestToTimestamp(t *testing.T) {
	c := &Ctx{Loc: time.UTC}
	for _, tc := range []struct{ s, tmpl, want string }{
		{"2024-03-10 14:25:36", "YYYY-MM-DD HH24:MI:SS", "2024-03-10 14:25:36"},
		{"10 Mar 2024", "DD Mon YYYY", "2024-03-10 00:00:00"},
		{"03/10/2024 02:25 PM", "MM/DD/YYYY HH:MI AM", "2024-03-10 14:25:00"},
		{"2024-03-10 12:00:00.5", "YYYY-MM-DD HH24:MI:SS.MS", "2024-03-10 12:00:00.5"},
	} {
		got, err := toTimestamp(c, tc.s, tc.tmpl, true)
		if err != nil || got != ts(tc.want) {
			t.Errorf("to_timestamp(%q, %q) = %d (%v), want %s", tc.s, tc.tmpl, got, err, tc.want)
		}
	}
	if _, err := toTimestamp(c, "2024-13-01", "YYYY-MM-DD", true); pgerr.Code(err) != pgerr.DatetimeFieldOverflow {
		t.Errorf("month 13: %v", err)
	}
}

func TestAppendScaled(t *testing.T) {
	for _, c := range []struct {
		n     int64
		scale int
		want  string
	}{{1710080736123456, 6, "1710080736.123456"}, {-500000, 6, "-0.500000"}, {36123456, 3, "36123.456"}, {5, 0, "5"}, {7, 6, "0.000007"}} {
		if got := string(appendScaled(nil, c.n, c.scale)); got != c.want {
			t.Errorf("appendScaled(%d, %d) = %s, want %s", c.n, c.scale, got, c.want)
		}
	}
}

func TestTimezoneVecMatchesRows(t *testing.T) {
	nyc(t)
	c := &Ctx{Loc: time.UTC}
	for _, kind := range []types.T{types.TTimestampTZ, types.TTimestamp} {
		bld := NewBuilder(kind, 0)
		var vals []int64
		for v := ts("2024-03-09 00:00:00"); v < ts("2024-03-12 00:00:00"); v += 1800e6 + 7 {
			vals = append(vals, v)
			bld.Append(types.Int(kind, v))
		}
		arr := bld.Finish()
		zone := &Const{D: types.TextDatum("America/New_York")}
		out, err := timezoneVec(c, []Expr{zone, &Col{Idx: 0, T: kind}}, []arrow.Array{nil, arr}, arr.Len())
		if err != nil || out == nil {
			t.Fatalf("timezoneVec: %v", err)
		}
		got := arrow.GetValues[int64](out.Data(), 1)
		for i, v := range vals {
			want, err := timezoneDatum(c, []types.Datum{zone.D, types.Int(kind, v)})
			if err != nil || want.I != got[i] {
				t.Errorf("%s AT TIME ZONE: %d, row path %d (%v)", kind, got[i], want.I, err)
			}
		}
		out.Release()
		arr.Release()
	}
}
