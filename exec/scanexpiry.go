package exec

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/loamdb/loam/exec/ice"
	"github.com/loamdb/loam/storage/maint"
	"github.com/loamdb/loam/types"
)

// Expiry hides a table's expired rows from a scan: those whose Column (a
// timestamp, timestamptz or date) lies before Cutoff. A row whose Column is
// NULL has no age and is kept, as a PostgreSQL user would expect of a
// table where only rows known to be old go. A date is taken as its
// midnight and a timestamp without time zone as UTC, the instants the
// retention cutoff (UTC) is compared with.
//
// It applies to the files and to the write log's tail alike, and prunes
// files: a partition wholly before the cutoff is not even read.
type Expiry struct {
	Column string
	Type   types.T
	Cutoff time.Time
	// Retention, when set, is the rule Cutoff comes from: a plan run
	// again takes the cutoff at its run's now() (physical.Scan.SpecOf).
	Retention *maint.Retention
}

// keepFrom is the first value of the column's storage that is kept.
func (x *Expiry) keepFrom() int64 { return maint.KeepFrom(x.Cutoff, x.Type.Kind == types.Date) }

// filter is the pruning predicate of the kept rows: col >= cutoff, or
// NULL, or +infinity (iceberg-go's hour transform wraps infinities around,
// so they are named, as the planner's pushdown does).
func (x *Expiry) filter() iceberg.BooleanExpression {
	ref := iceberg.Reference(x.Column)
	k := x.keepFrom()
	if x.Type.Kind == types.Date {
		return iceberg.NewOr(iceberg.GreaterThanEqual(ref, iceberg.Date(k)), iceberg.IsNull(ref))
	}
	return iceberg.NewOr(iceberg.GreaterThanEqual(ref, iceberg.Timestamp(k)), iceberg.IsNull(ref),
		iceberg.EqualTo(ref, iceberg.Timestamp(types.TimestampInf)))
}

// expiryFields adds the retention column to the fields a scan reads.
func (s *scanOp) expiryFields(fields []string) []string {
	x := s.spec.Expiry
	if x == nil || slices.Contains(fields, x.Column) {
		return fields
	}
	return append(slices.Clone(fields), x.Column)
}

// expiryFilter is the scan's pruning filter with the expired rows' files
// pruned too.
func (s *scanOp) expiryFilter() iceberg.BooleanExpression {
	x := s.spec.Expiry
	if x == nil {
		return s.spec.Filter
	}
	if s.spec.Filter == nil {
		return x.filter()
	}
	return iceberg.NewAnd(s.spec.Filter, x.filter())
}

// dropExpired keeps rec's rows that have not expired; rec is released
// unless it is returned.
func (s *scanOp) dropExpired(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	x := s.spec.Expiry
	if x == nil {
		return rec, nil
	}
	idx := rec.Schema().FieldIndices(x.Column)
	if len(idx) == 0 {
		rec.Release()
		return nil, errMissingColumn(x.Column)
	}
	col, err := ice.FromArrow(rec.Column(idx[0]), x.Type)
	if err != nil {
		rec.Release()
		return nil, fmt.Errorf("scan: retention column %s: %w", x.Column, err)
	}
	defer col.Release()
	k := x.keepFrom()
	var old func(i int) bool
	switch c := col.(type) {
	case *array.Timestamp:
		old = func(i int) bool { return int64(c.Value(i)) < k }
	case *array.Date32:
		old = func(i int) bool { return int64(c.Value(i)) < k }
	default:
		rec.Release()
		return nil, fmt.Errorf("scan: retention column %s is %s, not a timestamp or date", x.Column, col.DataType())
	}
	n := col.Len()
	expired := 0
	for i := 0; i < n; i++ {
		if col.IsValid(i) && old(i) {
			expired++
		}
	}
	if expired == 0 {
		return rec, nil
	}
	b := array.NewBooleanBuilder(memory.DefaultAllocator)
	defer b.Release()
	b.Reserve(n)
	for i := 0; i < n; i++ {
		b.UnsafeAppend(!col.IsValid(i) || !old(i))
	}
	mask := b.NewBooleanArray()
	defer mask.Release()
	out, err := applyMask(ctx, rec, mask)
	rec.Release()
	return out, err
}
