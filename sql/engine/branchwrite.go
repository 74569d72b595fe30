package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/storage/link"
)

// writeBranch runs an INSERT or COPY into "t@branch". It does not go
// through the write log, whose rows the link commits to the main branch:
// the rows are committed to the branch as one Iceberg append before the
// statement returns, so acknowledged means durable, and main's current
// snapshot, which holds the log position, is not touched. The commit
// runs beside the link (link.Manager.Maintain) under the table's write
// lease. Inside a transaction it is done at once, like other DDL, and a
// rollback points the branch back at the snapshot it had.
func (s *Session) writeBranch(ctx context.Context, ti *plan.TableInfo, fill func(exec.Sink, *exec.Target) (int64, error)) (int64, error) {
	if r, ok := icetable.Ref(ti.Table, ti.Ref); ok && r.SnapshotRefType == table.TagRef {
		return 0, tagWriteError(ti)
	}
	sc, err := table.SchemaToArrowSchema(ti.Table.Schema(), nil, true, false)
	if err != nil {
		return 0, err
	}
	t := &exec.Target{Table: ti.Name, Names: ti.Columns, Types: ti.Types, Required: ti.Required, Arrow: sc, Loc: s.loc}
	var sink batches
	defer sink.release()
	n, err := fill(&sink, t)
	if err != nil {
		return 0, err
	}
	if len(sink.recs) == 0 {
		return n, nil
	}
	rec, err := link.Concat(sink.recs)
	if err != nil {
		return 0, err
	}
	defer rec.Release()
	if rec.NumRows() == 0 {
		return n, nil
	}
	var from, to int64
	err = s.eng.link.Maintain(ctx, ti.Namespace, ti.Name, func(ctx context.Context, tbl *table.Table, _ iceberg.Properties) (*table.Table, error) {
		r, ok := icetable.Ref(tbl, ti.Ref)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "branch %q of table %q does not exist", ti.Ref, ti.Name)
		}
		from = r.SnapshotID
		// No log position in the summary: it belongs to main's snapshots.
		nt, err := s.eng.store.AppendBranch(ctx, tbl, ti.Ref, rec, nil)
		if err != nil {
			return nil, err
		}
		r, _ = icetable.Ref(nt, ti.Ref)
		to = r.SnapshotID
		return nt, nil
	})
	if err != nil {
		if errors.Is(err, icetable.ErrTagWrite) {
			return 0, tagWriteError(ti)
		}
		return 0, fmt.Errorf("insert into %s.%s@%s: %w", ti.Namespace, ti.Name, ti.Ref, err)
	}
	ns, name, ref := ti.Namespace, ti.Name, ti.Ref
	s.onRollback(func(ctx context.Context) error {
		return s.eng.link.Alter(ctx, ns, name, icetable.SetRef(ref, to, from))
	})
	return n, nil
}

func tagWriteError(ti *plan.TableInfo) error {
	return pgerr.New(pgerr.WrongObjectType, "cannot write to tag %q of table %q: a tag always names one snapshot; write to a branch", ti.Ref, ti.Name)
}

// batches is a Sink that keeps what it is given.
type batches struct{ recs []arrow.RecordBatch }

func (b *batches) Add(rec arrow.RecordBatch) error {
	rec.Retain()
	b.recs = append(b.recs, rec)
	return nil
}

func (b *batches) release() {
	for _, r := range b.recs {
		r.Release()
	}
	b.recs = nil
}
