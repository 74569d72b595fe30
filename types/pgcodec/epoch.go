package pgcodec

import (
	"math"

	"github.com/loamdb/loam/types"
)

// PostgreSQL's binary dates and timestamps count from 2000-01-01; Loam's
// from 1970-01-01. ±infinity are the extreme values in both.
const (
	pgEpochDays   = 10957
	pgEpochMicros = 946684800000000
)

func dateToPG(days int32) int32 {
	if days == math.MaxInt32 || days == math.MinInt32 {
		return days
	}
	return days - pgEpochDays
}

func dateFromPG(v int32) int32 {
	if v == math.MaxInt32 || v == math.MinInt32 {
		return v
	}
	return v + pgEpochDays
}

func timestampToPG(us int64) int64 {
	if types.IsInfTimestamp(us) {
		return us
	}
	return us - pgEpochMicros
}

// timestampFromPG shifts the epoch and rounds to the column's precision.
func timestampFromPG(v int64, t types.T) int64 {
	if types.IsInfTimestamp(v) {
		return v
	}
	return types.RoundMicros(v+pgEpochMicros, t.Width)
}
