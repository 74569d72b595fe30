package maint

import (
	"testing"
	"time"

	"github.com/apache/iceberg-go"
)

func TestRetentionCutoff(t *testing.T) {
	now := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		spec string
		want time.Time
	}{
		{RetentionSpec(0, 180, 0), now.AddDate(0, 0, -180)},
		{RetentionSpec(1, 0, 0), time.Date(2026, 2, 28, 12, 0, 0, 0, time.UTC)}, // clamped, as PostgreSQL
		{RetentionSpec(13, 1, 0), time.Date(2025, 2, 27, 12, 0, 0, 0, time.UTC)},
		{RetentionSpec(0, 0, 3600e6), now.Add(-time.Hour)},
	} {
		r, ok, err := RetentionOf(iceberg.Properties{RetentionSpecProperty: c.spec, RetentionColumnProperty: "ts"})
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", c.spec, ok, err)
		}
		if got := r.Cutoff(now); !got.Equal(c.want) {
			t.Errorf("%s: cutoff %v, want %v", c.spec, got, c.want)
		}
	}
	if _, ok, _ := RetentionOf(iceberg.Properties{}); ok {
		t.Error("no properties: want no retention")
	}
}

func TestKeepFromDate(t *testing.T) {
	for _, c := range []struct {
		cutoff time.Time
		want   int64
	}{
		{time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC), 1},    // midnight: that day kept
		{time.Date(1970, 1, 2, 0, 0, 0, 1000, time.UTC), 2}, // just after: it expired
		{time.Date(1969, 12, 31, 12, 0, 0, 0, time.UTC), 0},
		{time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), -1},
	} {
		if got := KeepFrom(c.cutoff, true); got != c.want {
			t.Errorf("KeepFrom(%v) = %d, want %d", c.cutoff, got, c.want)
		}
	}
}

// partitionLast bounds a partition's rows, for files without column
// bounds.
func TestPartitionLast(t *testing.T) {
	const dayUs = int64(86400e6)
	jan2 := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		tr   iceberg.Transform
		v    any
		date bool
		want int64
		ok   bool
	}{
		{iceberg.DayTransform{}, int32(jan2.Unix() / 86400), false, jan2.UnixMicro() + dayUs - 1, true},
		{iceberg.DayTransform{}, int32(jan2.Unix() / 86400), true, jan2.Unix() / 86400, true},
		{iceberg.HourTransform{}, int32(10), false, 11*3600e6 - 1, true},
		{iceberg.MonthTransform{}, int32(12*56 + 1), false, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).UnixMicro() - 1, true},
		{iceberg.YearTransform{}, int32(56), true, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).Unix()/86400 - 1, true},
		{iceberg.IdentityTransform{}, int64(42), false, 42, true},
		{iceberg.DayTransform{}, nil, false, 0, false}, // NULLs: kept
		{iceberg.BucketTransform{NumBuckets: 4}, int32(1), false, 0, false},
	} {
		got, ok := partitionLast(c.tr, c.v, c.date)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s %v: %d %v, want %d %v", c.tr, c.v, got, ok, c.want, c.ok)
		}
	}
}
