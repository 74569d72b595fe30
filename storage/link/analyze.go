package link

import (
	"context"
	"fmt"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/storage/icetable"
)

// Analyze computes a table's statistics from all its rows (ANALYZE, and
// upkeep for a table that has none): the tail is committed first, then
// every column of the snapshot is sketched and the sketches committed as
// its statistics file. The link keeps them current after that, adding the
// rows it commits.
func (m *Manager) Analyze(ctx context.Context, ns, name string) error {
	if err := m.Flush(ctx, ns, name); err != nil {
		return err
	}
	v, err := m.View(ctx, ns, name)
	if err != nil {
		return err
	}
	tbl := v.Table
	v.Release()
	if tbl.CurrentSnapshot() == nil {
		return nil
	}
	sk := icetable.Sketches{}
	_, rows, err := tbl.Scan().ToArrowRecords(ctx)
	if err != nil {
		return fmt.Errorf("analyze %s.%s: %w", ns, name, err)
	}
	for rec, err := range rows {
		if err != nil {
			return fmt.Errorf("analyze %s.%s: %w", ns, name, err)
		}
		sk.AddBatch(tbl, rec)
		rec.Release()
	}
	if len(sk) == 0 {
		return nil
	}
	// Committed as maintenance: only by the table's writer. The sketches
	// are of tbl's snapshot even when the link has committed since; the
	// table the commit returns is the catalog's current one.
	return m.Maintain(ctx, ns, name, func(ctx context.Context, _ *table.Table, _ iceberg.Properties) (*table.Table, error) {
		return m.store.WriteStatistics(ctx, tbl, sk)
	})
}
