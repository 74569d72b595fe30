package maint

import (
	"context"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
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

// Iceberg's own bound on a table's metadata files: each commit writes a
// metadata.json, and these properties have the commit delete those that
// fall out of the metadata log (iceberg-go honors them on commits it
// makes; RemoveOrphans removes those trimmed by other commits).
const metadataVersionsKept = "20"

// CreateProperties are the upkeep properties a new table starts with.
func CreateProperties() iceberg.Properties {
	return iceberg.Properties{
		table.MetadataDeleteAfterCommitEnabledKey: "true",
		table.MetadataPreviousVersionsMaxKey:      metadataVersionsKept,
	}
}
