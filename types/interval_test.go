package types

import (
	"testing"

	"github.com/loamdb/loam/pgerr"
)

// Inputs and outputs as PostgreSQL 15 reads and prints them (IntervalStyle
// postgres).
func TestIntervalPostgresStyle(t *testing.T) {
	for _, c := range []struct{ in, out string }{
		{"1 day 02:00:00", "1 day 02:00:00"},
		{"-1 mons +2 days", "-1 mons +2 days"},
		{"1.5 months", "1 mon 15 days"},
		{"@ 1 hour ago", "-01:00:00"},
		{"1 year -2 days 3 hours", "1 year -2 days +03:00:00"},
		{"-1 day -02:00", "-1 days -02:00:00"},
		{"1 day -02:00", "1 day -02:00:00"},
		{"2 weeks 1.5 days", "15 days 12:00:00"},
		{"90 minutes", "01:30:00"},
		{"-00:00:01.5", "-00:00:01.5"},
		{"P1Y2M3DT4H5M6S", "1 year 2 mons 3 days 04:05:06"},
		{"3 days ago", "-3 days"},
		{"1 02:03:04", "1 day 02:03:04"},
		{"10", "00:00:10"},
		{"1 millennium 2 centuries 1 decade", "1210 years"},
		{"0", "00:00:00"},
		{"-1 years -2 mons", "-1 years -2 mons"},
	} {
		iv, err := ParseInterval(c.in)
		if err != nil {
			t.Errorf("ParseInterval(%q): %v", c.in, err)
			continue
		}
		if got := iv.String(); got != c.out {
			t.Errorf("ParseInterval(%q) prints %q, want %q", c.in, got, c.out)
		}
		back, err := ParseInterval(iv.String())
		if err != nil || back != iv {
			t.Errorf("%q reads back as %+v (%v), want %+v", iv.String(), back, err, iv)
		}
	}
	if _, err := ParseInterval("garbage"); pgerr.Code(err) != pgerr.InvalidDatetimeFormat {
		t.Errorf("garbage: %v", err)
	}
}

func TestCmpInterval(t *testing.T) {
	day := IntervalValue{Days: 1}
	for _, c := range []struct {
		a, b IntervalValue
		want int
	}{
		{day, IntervalValue{Micros: 86400e6}, 0},
		{IntervalValue{Months: 1}, IntervalValue{Days: 30}, 0},
		{IntervalValue{Months: 12}, IntervalValue{Days: 360}, 0},
		{day, IntervalValue{Micros: 86400e6 - 1}, 1},
		{IntervalValue{Micros: -1}, IntervalValue{}, -1},
		{IntervalValue{Months: 1 << 30}, IntervalValue{Micros: 1 << 62}, 1},
	} {
		if got := CmpInterval(c.a, c.b); got != c.want {
			t.Errorf("CmpInterval(%+v, %+v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
