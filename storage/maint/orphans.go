package maint

import (
	"context"
	"time"

	"github.com/loamdb/loam/storage/link"
)

// OrphanMargin is how old an unreferenced file must be before it is
// removed: younger ones may belong to a commit still in flight.
var OrphanMargin = time.Hour

// RemoveOrphans deletes the table's files no snapshot references that are
// older than OrphanMargin.
// TODO(lifecycle): not yet written; it does nothing.
func RemoveOrphans(ctx context.Context, m *link.Manager, ns, name string, now time.Time) (files int, err error) {
	return 0, nil
}
