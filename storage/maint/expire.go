package maint

import (
	"context"
	"time"

	"github.com/loamdb/loam/storage/link"
)

// SnapshotRetentionProperty is how long snapshots are kept (an interval
// spec as RetentionSpec writes it); WITH (snapshot_retention = '1 day').
const SnapshotRetentionProperty = "loam.snapshot-retention.spec"

// ExpireReport says what ExpireSnapshots removed.
type ExpireReport struct {
	Snapshots int // snapshots expired
	Files     int // files no remaining snapshot references, deleted
}

// ExpireSnapshots expires the table's snapshots older than its snapshot
// retention, keeping the last few and every snapshot a branch or tag
// points to, and deletes the files only they referenced.
// TODO(lifecycle): not yet written; it does nothing.
func ExpireSnapshots(ctx context.Context, m *link.Manager, ns, name string, now time.Time) (ExpireReport, error) {
	return ExpireReport{}, nil
}

// DropExpiredPartitions removes from the snapshot (metadata only) the
// data files of partitions wholly older than the retention cutoff.
// TODO(lifecycle): not yet written; it does nothing.
func DropExpiredPartitions(ctx context.Context, m *link.Manager, ns, name string, now time.Time) (files int, err error) {
	return 0, nil
}
