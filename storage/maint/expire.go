package maint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/storage/link"
)

// SnapshotRetentionProperty is how long snapshots are kept (an interval
// spec as RetentionSpec writes it); WITH (snapshot_retention = '1 day').
const SnapshotRetentionProperty = "loam.snapshot-retention.spec"

// DefaultSnapshotRetention is a table's snapshot retention when it sets
// none: time travel reaches a day back.
var DefaultSnapshotRetention = Retention{Days: 1}

// SnapshotsKept is how many of a branch's latest snapshots expiry keeps
// whatever their age (Iceberg's history.expire.min-snapshots-to-keep,
// whose default is 1): a table written rarely keeps a little history to
// travel back to, and a query that pinned a snapshot moments before a
// burst of commits still finds its files.
const SnapshotsKept = 5

// ExpireReport says what ExpireSnapshots removed.
type ExpireReport struct {
	Snapshots int // snapshots expired; the files only they referenced are deleted
}

// SnapshotRetentionOf is a table's snapshot retention: its
// SnapshotRetentionProperty, or DefaultSnapshotRetention.
func SnapshotRetentionOf(props iceberg.Properties) (Retention, error) {
	spec := props[SnapshotRetentionProperty]
	if spec == "" {
		return DefaultSnapshotRetention, nil
	}
	r, err := parseSpec(spec)
	if err != nil {
		return Retention{}, fmt.Errorf("bad %s %q", SnapshotRetentionProperty, spec)
	}
	return r, nil
}

// ExpireSnapshots expires the table's snapshots older than its snapshot
// retention, keeping the last SnapshotsKept of each branch and every
// snapshot a branch or tag points to, and deletes the files only they
// referenced: manifest lists, manifests and data files (those a
// retention drop or a compaction removed from the table leave the
// warehouse here). It is iceberg-go's expire-snapshots, a metadata update
// committed through the catalog with the link lock held (Maintain); the
// files are deleted after the commit, outside the lock, as iceberg-go
// would right after it.
func ExpireSnapshots(ctx context.Context, m *link.Manager, ns, name string, now time.Time) (ExpireReport, error) {
	return expire(ctx, m, ns, name, func(tbl *table.Table) (time.Duration, int, error) {
		r, err := SnapshotRetentionOf(tbl.Properties())
		if err != nil {
			return 0, 0, err
		}
		// iceberg-go measures age from its own clock: the age that puts
		// the cutoff where now says.
		return max(time.Since(r.Cutoff(now)), 0), SnapshotsKept, nil
	})
}

// expire runs iceberg-go's expire-snapshots with the age and count keep
// gives for the table, then deletes the files only the expired snapshots
// referenced.
func expire(ctx context.Context, m *link.Manager, ns, name string, keep func(*table.Table) (age time.Duration, last int, err error)) (ExpireReport, error) {
	var pre, post *table.Table
	err := m.Maintain(ctx, ns, name, func(ctx context.Context, tbl *table.Table, _ iceberg.Properties) (*table.Table, error) {
		age, last, err := keep(tbl)
		if err != nil {
			return nil, err
		}
		tx := tbl.NewTransaction()
		if err := tx.ExpireSnapshots(table.WithOlderThan(age), table.WithRetainLast(last), table.WithPostCommit(false)); err != nil {
			return nil, fmt.Errorf("expire snapshots: %w", err)
		}
		nt, err := tx.Commit(ctx)
		if err != nil {
			return nil, fmt.Errorf("expire snapshots: commit: %w", err)
		}
		if len(nt.Metadata().Snapshots()) < len(tbl.Metadata().Snapshots()) {
			pre, post = tbl, nt
		}
		return nt, nil
	})
	if err != nil || pre == nil {
		return ExpireReport{}, err
	}
	kept := map[int64]bool{}
	for _, s := range post.Metadata().Snapshots() {
		kept[s.SnapshotID] = true
	}
	var ids []int64
	for _, s := range pre.Metadata().Snapshots() {
		if !kept[s.SnapshotID] {
			ids = append(ids, s.SnapshotID)
		}
	}
	rep := ExpireReport{Snapshots: len(ids)}
	// iceberg-go's own cleanup of an expiry, as its commit runs it.
	if err := table.NewRemoveSnapshotsUpdate(ids, true).PostCommit(ctx, pre, post); err != nil && !onlyMissing(err) {
		return rep, fmt.Errorf("expire snapshots: delete files: %w", err)
	}
	return rep, nil
}

// Iceberg's own bound on a table's metadata files: each commit writes a
// metadata.json, and these properties have the commit delete those that
// fall out of the metadata log (iceberg-go honors them on commits it
// makes; RemoveOrphans removes those trimmed by other commits).
const metadataVersionsKept = "20"

// manifestsMergedAt is how many data manifests a link commit finds before
// it merges them into one (Iceberg's merge append): every link commit adds
// a manifest, and planning a query reads each, so without it a table
// linked every second plans over up to a compaction interval's worth.
const manifestsMergedAt = "8"

// CreateProperties are the upkeep properties a new table starts with.
func CreateProperties() iceberg.Properties {
	return iceberg.Properties{
		table.MetadataDeleteAfterCommitEnabledKey: "true",
		table.MetadataPreviousVersionsMaxKey:      metadataVersionsKept,
		table.ManifestMergeEnabledKey:             "true",
		table.ManifestMinMergeCountKey:            manifestsMergedAt,
	}
}

// onlyMissing says every file the cleanup failed to delete was gone
// already. iceberg-go deletes each data file an expired manifest lists,
// DELETED entries too, so a file a compaction replaced is deleted when the
// snapshots that added it expire and again when the compaction's own
// snapshot does; the second time it is missing, which is no failure.
func onlyMissing(err error) bool {
	if errors.Is(err, fs.ErrNotExist) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				if !onlyMissing(e) {
					return false
				}
			}
		}
		return true
	}
	return false
}
