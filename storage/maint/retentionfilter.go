package maint

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/table"
)

// retentionCutoff is the table's retention cutoff at now; ok is false
// when the table keeps rows forever.
func retentionCutoff(t *table.Table, now time.Time) (cutoff time.Time, ok bool, err error) {
	r, ok, err := RetentionOf(t.Properties())
	if err != nil || !ok {
		return time.Time{}, false, err
	}
	return r.Cutoff(now), true, nil
}

// dropExpired returns rec without the rows whose retention column col lies
// before cutoff, as queries hide them (KeepFrom): NULLs stay, a timestamp
// without time zone is taken as UTC, a date as its midnight UTC. It also
// returns how many rows it left out.
func dropExpired(col string, rec arrow.RecordBatch, cutoff time.Time) (arrow.RecordBatch, int64, error) {
	idx := rec.Schema().FieldIndices(col)
	if len(idx) == 0 {
		rec.Retain()
		return rec, 0, nil
	}
	a := rec.Column(idx[0])
	expired := func(i int) bool { return false }
	switch c := a.(type) {
	case *array.Timestamp:
		limit := inUnit(KeepFrom(cutoff, false), c.DataType().(*arrow.TimestampType).Unit)
		expired = func(i int) bool { return int64(c.Value(i)) < limit }
	case *array.Date32:
		limit := KeepFrom(cutoff, true)
		expired = func(i int) bool { return int64(c.Value(i)) < limit }
	default:
		return nil, 0, fmt.Errorf("retention column %q has type %s, not a timestamp or date", col, a.DataType())
	}
	mask := array.NewBooleanBuilder(memory.DefaultAllocator)
	defer mask.Release()
	var n int64
	for i := 0; i < a.Len(); i++ {
		drop := a.IsValid(i) && expired(i)
		if drop {
			n++
		}
		mask.Append(!drop)
	}
	if n == 0 {
		rec.Retain()
		return rec, 0, nil
	}
	m := mask.NewBooleanArray()
	defer m.Release()
	out, err := compute.FilterRecordBatch(context.Background(), rec, m, compute.DefaultFilterOptions())
	if err != nil {
		return nil, 0, fmt.Errorf("retention filter: %w", err)
	}
	return out, n, nil
}

// inUnit turns KeepFrom's microseconds into a count of unit, rounded up
// so that "value < limit" stays "instant < cutoff".
func inUnit(us int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return ceilDiv(us, 1e6)
	case arrow.Millisecond:
		return ceilDiv(us, 1e3)
	case arrow.Nanosecond:
		return us * 1e3
	}
	return us
}

func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}
