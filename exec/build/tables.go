package build

import (
	"context"

	"github.com/loamdb/loam/exec/physical"
)

// Tables gives a scan the state of its table when the plan is built, not
// when it was planned: a plan kept by a prepared statement then reads the
// pinned snapshot and write-log tail current at each execution (DESIGN.md,
// invariant 3). The engine implements it over the link and catalog.
type Tables interface {
	// CurrentSource is the current state of the table src names. It fails
	// when the table is gone or its schema is no longer the one the plan
	// was made for.
	CurrentSource(ctx context.Context, src physical.ScanSource) (physical.ScanSource, error)
}

// source is the table state a scan reads.
func (b *builder) source(ctx context.Context, src physical.ScanSource) (physical.ScanSource, error) {
	if b.env.Tables == nil || !src.Current {
		return src, nil
	}
	return b.env.Tables.CurrentSource(ctx, src)
}
