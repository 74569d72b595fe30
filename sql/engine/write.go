package engine

import (
	"context"

	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
)

// write runs fill inside one write-log transaction on the table: it is
// committed (durable, then visible) if fill succeeds and aborted if not.
func (s *Session) write(ctx context.Context, ti *plan.TableInfo, fill func(*link.Txn, *exec.Target) (int64, error)) (int64, error) {
	txn, err := s.eng.link.Begin(ctx, ti.Namespace, ti.Name)
	if err != nil {
		return 0, err
	}
	sc, err := table.SchemaToArrowSchema(txn.Table().Schema(), nil, true, false)
	if err != nil {
		txn.Abort()
		return 0, err
	}
	t := &exec.Target{Table: ti.Name, Names: ti.Columns, Types: ti.Types, Required: ti.Required, Arrow: sc}
	n, err := fill(txn, t)
	if err != nil {
		txn.Abort()
		return 0, err
	}
	if err := txn.Commit(); err != nil {
		return 0, err
	}
	return n, nil
}
