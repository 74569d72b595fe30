package closedloop

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	for _, tc := range []struct {
		name string
		lat  []time.Duration
		p    float64
		want time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 99, 7 * time.Millisecond},
		{"median of odd", ms(1, 2, 3), 50, 2 * time.Millisecond},
		{"median of even takes the lower", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p99 of 100", ms(hundred...), 99, 99 * time.Millisecond},
		{"p99 of 10 is the max", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{"p0 is the min", ms(3, 4, 5), 0, 3 * time.Millisecond},
		{"p100 is the max", ms(3, 4, 5), 100, 5 * time.Millisecond},
	} {
		if got := Percentile(tc.lat, tc.p); got != tc.want {
			t.Errorf("%s: Percentile(%v, %v) = %v, want %v", tc.name, tc.lat, tc.p, got, tc.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	lat := []time.Duration{400 * time.Microsecond, 100 * time.Microsecond, 300 * time.Microsecond, 200 * time.Microsecond}
	s := Summarize(lat, 2*time.Second)
	want := Summary{Ops: 4, Seconds: 2, QPS: 2, MeanUS: 250, P50US: 200, P99US: 400}
	if s != want {
		t.Errorf("Summarize = %+v, want %+v", s, want)
	}
	if z := Summarize(nil, time.Second); z.QPS != 0 || z.Ops != 0 {
		t.Errorf("Summarize(nil) = %+v, want zeros", z)
	}
}
