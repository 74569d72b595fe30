package closedloop

import (
	"slices"
	"time"
)

// Summary is what a case reports of its timed window.
type Summary struct {
	Ops     int64   `json:"ops"`
	Seconds float64 `json:"seconds"`
	QPS     float64 `json:"qps"`
	MeanUS  float64 `json:"mean_us"`
	P50US   float64 `json:"p50_us"`
	P99US   float64 `json:"p99_us"`
}

// Summarize turns the latencies of every operation in a window of the given
// length into the reported figures. lat is sorted in place.
func Summarize(lat []time.Duration, window time.Duration) Summary {
	s := Summary{Ops: int64(len(lat)), Seconds: window.Seconds()}
	if len(lat) == 0 || window <= 0 {
		return s
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	s.QPS = float64(len(lat)) / window.Seconds()
	s.MeanUS = US(sum) / float64(len(lat))
	s.P50US = US(Percentile(lat, 50))
	s.P99US = US(Percentile(lat, 99))
	return s
}

// Percentile is the nearest-rank Percentile of sorted latencies: the
// smallest value with at least p% of them at or below it. No
// interpolation: every figure reported is a latency some query had.
func Percentile(sorted []time.Duration, p float64) time.Duration {
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

func US(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
