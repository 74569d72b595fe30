package exec

import (
	"context"
	"fmt"
)

// ScanDetails are the lines EXPLAIN shows for a scan from the table's
// metadata: the snapshot, the files pruning keeps and, when op (the
// built scan, or nil) has run, the row groups and tail rows it read.
// Files are planned with ctx, the statement's context, when op has not
// run.
func ScanDetails(ctx context.Context, spec TableScan, op Operator) []string {
	s, ok := op.(*scanOp)
	if !ok {
		s = &scanOp{spec: spec}
	}
	var d []string
	st := s.Stats
	if !s.opened && s.spec.Table.CurrentSnapshot() != nil {
		var err error
		if st, err = s.spec.Store.PlanScan(ctx, s.spec.Table, s.expiryFilter()); err != nil {
			return append(d, "Files: planning failed: "+err.Error())
		}
	}
	if snap := s.spec.Table.CurrentSnapshot(); snap != nil {
		d = append(d, fmt.Sprintf("Snapshot: %d", snap.SnapshotID))
	}
	d = append(d, fmt.Sprintf("Files: %d of %d (%d pruned), Partitions: %d, Rows: %d, Bytes: %d",
		st.FilesScanned, st.FilesTotal, st.FilesTotal-st.FilesScanned, st.Partitions, st.Rows, st.Bytes))
	if n := s.rg.Total.Load(); n > 0 {
		sk := s.rg.Skipped.Load()
		d = append(d, fmt.Sprintf("Row Groups Decoded: %d of %d (%d skipped by statistics)", n-sk, n, sk))
	}
	if s.spec.Log != nil {
		if s.opened {
			d = append(d, fmt.Sprintf("Write Log Tail: %d rows", s.tailRows))
		} else {
			d = append(d, "Write Log Tail: read after the files")
		}
	}
	return d
}

func (k SortKey) String() string {
	s := k.Expr.String()
	if k.Desc {
		s += " DESC"
	}
	if k.NullsFirst != k.Desc {
		if k.NullsFirst {
			s += " NULLS FIRST"
		} else {
			s += " NULLS LAST"
		}
	}
	return s
}
