package main

import (
	"slices"
	"time"
)

// summary is what a case reports of its timed window.
type summary struct {
	Ops     int64   `json:"ops"`
	Seconds float64 `json:"seconds"`
	QPS     float64 `json:"qps"`
	MeanUS  float64 `json:"mean_us"`
	P50US   float64 `json:"p50_us"`
	P99US   float64 `json:"p99_us"`
}

// summarize turns the latencies of every operation in a window of the given
// length into the reported figures. lat is sorted in place.
func summarize(lat []time.Duration, window time.Duration) summary {
	s := summary{Ops: int64(len(lat)), Seconds: window.Seconds()}
	if len(lat) == 0 || window <= 0 {
		return s
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	s.QPS = float64(len(lat)) / window.Seconds()
	s.MeanUS = us(sum) / float64(len(lat))
	s.P50US = us(percentile(lat, 50))
	s.P99US = us(percentile(lat, 99))
	return s
}

// percentile is the nearest-rank percentile of sorted latencies: the
// smallest value with at least p% of them at or below it. No
// interpolation: every figure reported is a latency some query had.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	// rank = ceil(p/100 * n), 1-based; computed in integers where exact.
	n := len(sorted)
	rank := int(p * float64(n) / 100)
	if float64(rank)*100 < p*float64(n) {
		rank++
	}
	if rank < 1 {
		rank = 1
	}
	if rank > n {
		rank = n
	}
	return sorted[rank-1]
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
