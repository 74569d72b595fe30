package maint

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"reflect"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/storage/link"
)

// OperationProperty names, in a snapshot's summary, the upkeep that made
// it, so a reader of the table's history can tell it from the link's.
const OperationProperty = "loam.operation"

// DropExpiredPartitions removes from the snapshot (metadata only) the
// data files of partitions wholly older than the retention cutoff: a file
// goes when every row it holds is expired, as its column bounds say (the
// upper bound before the cutoff and no NULLs), or, for a file written
// without them, as its partition value of the retention column does (a
// day, hour, month or year, or the value itself). No data file is read
// or rewritten: the commit removes the files from the table's manifests,
// as an overwrite snapshot with no files added (iceberg-go's delete
// commits a "delete" snapshot only through a row filter, which would
// rewrite the boundary files; those are compaction's to trim). The files
// themselves leave the warehouse when the snapshots that hold them expire.
// It returns how many files it dropped.
func DropExpiredPartitions(ctx context.Context, m *link.Manager, ns, name string, now time.Time) (files int, err error) {
	err = m.Maintain(ctx, ns, name, func(ctx context.Context, tbl *table.Table, snapProps iceberg.Properties) (*table.Table, error) {
		r, ok, err := RetentionOf(tbl.Properties())
		if err != nil || !ok || tbl.CurrentSnapshot() == nil {
			return nil, err
		}
		expired, err := ExpiredFiles(ctx, tbl, r, now)
		if err != nil || len(expired) == 0 {
			return nil, err
		}
		props := maps.Clone(snapProps)
		props[OperationProperty] = "retention"
		tx := tbl.NewTransaction()
		if err := tx.ReplaceDataFilesWithDataFiles(ctx, expired, nil, props); err != nil {
			return nil, fmt.Errorf("drop expired files: %w", err)
		}
		nt, err := tx.Commit(ctx)
		if err != nil {
			return nil, fmt.Errorf("drop expired files: commit: %w", err)
		}
		files = len(expired)
		return nt, nil
	})
	return files, err
}

// ExpiredFiles lists the current snapshot's data files all of whose rows
// retention r has expired at now.
func ExpiredFiles(ctx context.Context, tbl *table.Table, r Retention, now time.Time) ([]iceberg.DataFile, error) {
	snap := tbl.CurrentSnapshot()
	if snap == nil {
		return nil, nil
	}
	field, ok := tbl.Schema().FindFieldByName(r.Column)
	if !ok {
		return nil, nil // the column is gone: nothing can be judged
	}
	date := false
	switch field.Type.(type) {
	case iceberg.DateType:
		date = true
	case iceberg.TimestampType, iceberg.TimestampTzType:
	default:
		return nil, nil
	}
	keep := KeepFrom(r.Cutoff(now), date)
	fs, err := tbl.FS(ctx)
	if err != nil {
		return nil, err
	}
	mans, err := snap.Manifests(fs)
	if err != nil {
		return nil, fmt.Errorf("read manifests: %w", err)
	}
	var out []iceberg.DataFile
	for _, man := range mans {
		if man.ManifestContent() != iceberg.ManifestContentData {
			continue
		}
		for entry, err := range man.Entries(fs, true) {
			if err != nil {
				return nil, fmt.Errorf("read manifest %s: %w", man.FilePath(), err)
			}
			df := entry.DataFile()
			if df.ContentType() != iceberg.EntryContentData {
				continue
			}
			if fileExpired(tbl.Metadata(), df, field.ID, date, keep) {
				out = append(out, df)
			}
		}
	}
	return out, nil
}

// fileExpired says whether every row of df has its retention column
// (field id) below keep.
func fileExpired(md table.Metadata, df iceberg.DataFile, id int, date bool, keep int64) bool {
	if df.Count() == 0 {
		return false
	}
	nulls, hasNulls := df.NullValueCounts()[id]
	if upper, ok := df.UpperBoundValues()[id]; ok && hasNulls {
		v, ok := decodeBound(upper, date)
		return ok && nulls == 0 && v < keep
	}
	// No bounds: the partition decides, when it is of the column.
	spec := md.PartitionSpecByID(int(df.SpecID()))
	if spec == nil {
		return false
	}
	for _, pf := range spec.Fields() {
		if pf.SourceID() != id {
			continue
		}
		last, ok := partitionLast(pf.Transform, df.Partition()[pf.FieldID], date)
		if ok && last < keep {
			return true
		}
	}
	return false
}

// decodeBound reads a single-value serialized bound: a date's days
// (4 bytes) or a timestamp's microseconds (8 bytes), little-endian.
func decodeBound(b []byte, date bool) (int64, bool) {
	switch {
	case date && len(b) == 4:
		return int64(int32(binary.LittleEndian.Uint32(b))), true
	case !date && len(b) == 8:
		return int64(binary.LittleEndian.Uint64(b)), true
	}
	return 0, false
}

// partitionLast is the greatest value of the source column (days or
// microseconds) a partition value of transform tr can hold; ok is false
// when the partition does not bound the column.
func partitionLast(tr iceberg.Transform, v any, date bool) (last int64, ok bool) {
	n, ok := integer(v, date)
	if !ok {
		return 0, false
	}
	const dayUs = int64(86400e6)
	// end is the first instant after the partition, as microseconds.
	var end int64
	switch tr.(type) {
	case iceberg.IdentityTransform:
		return n, true
	case iceberg.HourTransform:
		if date {
			return 0, false
		}
		end = (n + 1) * 3600e6
	case iceberg.DayTransform:
		end = (n + 1) * dayUs
	case iceberg.MonthTransform:
		end = time.Date(1970, time.Month(n+2), 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	case iceberg.YearTransform:
		end = time.Date(1970+int(n)+1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	default:
		return 0, false
	}
	if date {
		return end/dayUs - 1, true
	}
	return end - 1, true
}

// integer reads a partition value of a time transform or identity
// (int32 hours/days/months/years, Date, Timestamp).
func integer(v any, date bool) (int64, bool) {
	if v == nil {
		return 0, false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	}
	if t, ok := v.(time.Time); ok {
		if date {
			return t.Unix() / 86400, true
		}
		return t.UnixMicro(), true
	}
	return 0, false
}
