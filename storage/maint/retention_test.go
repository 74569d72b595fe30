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
