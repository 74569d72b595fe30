package maint

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/storage/link"
)

// OrphanMargin is how old an unreferenced file must be before it is
// removed: younger ones may belong to a commit still in flight.
var OrphanMargin = time.Hour

// RemoveOrphans deletes the table's files no snapshot references that are
// older than OrphanMargin: data files and manifests an interrupted commit
// left behind (invariant 4), and metadata files trimmed from the metadata
// log by a commit that did not delete them. It is iceberg-go's
// DeleteOrphanFiles over the table's location, run only while this server
// holds the table's write lease (Maintain checks it): another server's
// commits would be its own files in flight, and only the writer writes.
// The listing runs outside the link lock; a commit landing meanwhile adds
// only files younger than the margin.
func RemoveOrphans(ctx context.Context, m *link.Manager, ns, name string, now time.Time) (files int, err error) {
	var tbl *table.Table
	err = m.Maintain(ctx, ns, name, func(_ context.Context, t *table.Table, _ iceberg.Properties) (*table.Table, error) {
		tbl = t
		return nil, nil
	})
	if err != nil || tbl == nil {
		return 0, err
	}
	// iceberg-go measures age from its own clock: the age that puts the
	// cutoff where now says.
	age := max(time.Since(now.Add(-OrphanMargin)), 0)
	res, err := tbl.DeleteOrphanFiles(ctx, table.WithFilesOlderThan(age))
	if err != nil {
		return 0, fmt.Errorf("remove orphans of %s.%s: %w", ns, name, err)
	}
	aborted, err := abortStaleUploads(ctx, tbl, now.Add(-OrphanMargin))
	if err != nil {
		return len(res.DeletedFiles), fmt.Errorf("remove orphans of %s.%s: %w", ns, name, err)
	}
	return len(res.DeletedFiles) + aborted, nil
}
