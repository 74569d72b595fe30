package maint

import (
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestDropExpired checks which rows compaction leaves out at the cutoff's
// edges: a row is expired when its instant lies before the cutoff (a date
// at its midnight UTC); NULLs never are.
func TestDropExpired(t *testing.T) {
	cutoff := time.Date(2026, 6, 8, 12, 0, 0, 0, time.UTC)
	midnight := time.Date(2026, 6, 8, 0, 0, 0, 0, time.UTC)
	day := func(tm time.Time) int32 { return int32(tm.Unix() / 86400) }
	for _, c := range []struct {
		name   string
		cutoff time.Time
		typ    arrow.DataType
		vals   []any // int64 micros or int32 days; nil for NULL
		kept   []int // indexes of the rows kept
	}{
		{"timestamptz", cutoff, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
			[]any{cutoff.UnixMicro() - 1, cutoff.UnixMicro(), cutoff.UnixMicro() + 1, nil}, []int{1, 2, 3}},
		{"timestamp", cutoff, &arrow.TimestampType{Unit: arrow.Microsecond},
			[]any{int64(0), cutoff.UnixMicro()}, []int{1}},
		{"sub-microsecond cutoff", cutoff.Add(500 * time.Nanosecond), &arrow.TimestampType{Unit: arrow.Microsecond},
			[]any{cutoff.UnixMicro()}, []int{0}},
		// Midday cutoff: the day it falls on started before it.
		{"date, midday cutoff", cutoff, arrow.FixedWidthTypes.Date32,
			[]any{day(cutoff) - 1, day(cutoff), day(cutoff) + 1, nil}, []int{2, 3}},
		{"date, midnight cutoff", midnight, arrow.FixedWidthTypes.Date32,
			[]any{day(midnight) - 1, day(midnight)}, []int{1}},
	} {
		sc := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: c.typ, Nullable: true}, {Name: "i", Type: arrow.PrimitiveTypes.Int64}}, nil)
		b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		for i, v := range c.vals {
			switch v := v.(type) {
			case nil:
				b.Field(0).AppendNull()
			case int64:
				b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(v))
			case int32:
				b.Field(0).(*array.Date32Builder).Append(arrow.Date32(v))
			}
			b.Field(1).(*array.Int64Builder).Append(int64(i))
		}
		rec := b.NewRecordBatch()
		out, n, err := dropExpired("ts", rec, c.cutoff)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var kept []int
		col := out.Column(1).(*array.Int64)
		for i := 0; i < col.Len(); i++ {
			kept = append(kept, int(col.Value(i)))
		}
		if !slices.Equal(kept, c.kept) || int(n) != len(c.vals)-len(c.kept) {
			t.Errorf("%s: kept %v (%d dropped), want %v", c.name, kept, n, c.kept)
		}
		out.Release()
		rec.Release()
		b.Release()
	}
}
