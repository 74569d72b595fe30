package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
)

// write runs fill inside one write-log transaction on the table: it is
// committed (durable, then visible) if fill succeeds and aborted if not.
// Inside a transaction block the commit waits for COMMIT, and in an
// implicit transaction for Finish.
func (s *Session) write(ctx context.Context, ti *plan.TableInfo, fill func(exec.Sink, *exec.Target) (int64, error)) (int64, error) {
	if ti.Ref != "" && ti.Ref != table.MainBranch {
		return s.writeBranch(ctx, ti, fill) // "t@branch": branchwrite.go
	}
	txn, err := s.eng.link.Begin(ctx, ti.Namespace, ti.Name)
	if err != nil {
		return 0, err
	}
	// The rows are in the schema the statement was planned against
	// (ti's), which an ALTER since may have changed: the link reads them
	// by field ID (icetable.Conform).
	sc, err := table.SchemaToArrowSchema(ti.Table.Schema(), nil, true, false)
	if err != nil {
		txn.Abort()
		return 0, err
	}
	t := &exec.Target{Table: ti.Name, Names: ti.Columns, Types: ti.Types, Required: ti.Required, Arrow: sc, Loc: s.loc}
	n, err := fill(txn, t)
	if err != nil {
		txn.Abort()
		return 0, err
	}
	if s.tx != 'I' || s.implicit {
		s.written = append(s.written, txn)
		return n, nil
	}
	if err := txn.Commit(); err != nil {
		return 0, err
	}
	return n, nil
}

// pendingTail yields the rows the open block has written to a table, which
// its own statements see as PostgreSQL's do.
func (s *Session) pendingTail(key link.Key) func(yield func(arrow.RecordBatch, error) bool) {
	var txns []*link.Txn
	for i, t := range s.written {
		if t.Key() == key && t.Rows() > 0 && !s.discarded(i) {
			txns = append(txns, t)
		}
	}
	if len(txns) == 0 {
		return nil
	}
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, t := range txns {
			ok := true
			t.Batches(func(rec arrow.RecordBatch, err error) bool {
				ok = yield(rec, err)
				return ok
			})
			if !ok {
				return
			}
		}
	}
}

// abortWrites drops the block's writes from the i-th on.
func (s *Session) abortWrites(i int) {
	for _, t := range s.written[i:] {
		t.Abort()
	}
	s.written = s.written[:i]
}
