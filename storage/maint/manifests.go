package maint

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/storage/link"
)

// MinManifestsToMerge is how many data manifests a snapshot may list
// before they are merged: every link commit adds one, and scan planning
// reads them all.
var MinManifestsToMerge = 16

// MergeManifests merges the current snapshot's small data manifests into
// target-sized ones (iceberg-go's RewriteManifests, a "replace" snapshot)
// when there are more than MinManifestsToMerge (min 2, always when force).
// It returns how many manifests it replaced.
//
// iceberg-go's manifest rewrite takes no snapshot properties, so the log
// position the current snapshot must record cannot ride on it: an empty
// append in the same transaction follows it and carries the position.
func MergeManifests(ctx context.Context, m *link.Manager, ns, name string, force bool) (replaced int, err error) {
	err = m.Maintain(ctx, ns, name, func(ctx context.Context, cur *table.Table, props iceberg.Properties) (*table.Table, error) {
		snap := cur.CurrentSnapshot()
		if snap == nil {
			return nil, nil
		}
		fs, err := cur.FS(ctx)
		if err != nil {
			return nil, err
		}
		mfs, err := snap.Manifests(fs)
		if err != nil {
			return nil, fmt.Errorf("merge manifests: %w", err)
		}
		data := 0
		for _, mf := range mfs {
			if mf.ManifestContent() == iceberg.ManifestContentData {
				data++
			}
		}
		if data < 2 || (!force && data <= MinManifestsToMerge) {
			return nil, nil
		}
		txn := cur.NewTransaction()
		res, err := txn.RewriteManifests(ctx)
		if err != nil {
			return nil, fmt.Errorf("merge manifests: %w", err)
		}
		if res.IsNoOp() {
			return nil, nil
		}
		if err := txn.AddFiles(ctx, nil, props, true); err != nil {
			return nil, fmt.Errorf("merge manifests: position snapshot: %w", err)
		}
		nt, err := txn.Commit(ctx)
		if err != nil {
			return nil, fmt.Errorf("merge manifests: %w", err)
		}
		replaced = len(res.RewrittenManifests)
		return nt, nil
	})
	return replaced, err
}
