package engine

import (
	"math"
	"strconv"
	"strings"

	"github.com/loamdb/loam/pgerr"
)

// parseMillis reads a time setting in milliseconds: a bare number, or one
// with a unit (us, ms, s, min, h, d), as PostgreSQL's GUC parser does.
func parseMillis(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.' || i == 0 && (v[i] == '-' || v[i] == '+')) {
		i++
	}
	n, err := strconv.ParseFloat(v[:i], 64)
	if err != nil {
		return 0, false
	}
	unit := map[string]float64{"": 1, "us": 0.001, "ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000}
	m, ok := unit[strings.TrimSpace(v[i:])]
	if !ok {
		return 0, false
	}
	ms := n * m
	if ms < 0 || ms > 2147483647 {
		return 0, false
	}
	return int64(math.RoundToEven(ms)), true // rint, as PostgreSQL rounds
}

// formatMillis prints a time setting as SHOW does: in the largest unit
// that holds it exactly.
func formatMillis(ms int64) string {
	if ms == 0 {
		return "0"
	}
	for _, u := range []struct {
		name string
		n    int64
	}{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}} {
		if ms%u.n == 0 {
			return strconv.FormatInt(ms/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

// timeSetting validates and normalizes a milliseconds setting's value.
func timeSetting(name, value string) (string, error) {
	ms, ok := parseMillis(value)
	if !ok {
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, value)
	}
	return formatMillis(ms), nil
}
