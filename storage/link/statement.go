package link

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/icetable"
)

// RowWriter takes one table's rows, in the table's Iceberg Arrow schema,
// and its deletes. A Txn is one.
type RowWriter interface {
	Add(rec arrow.RecordBatch) error
	// Delete deletes the rows ids names: row ids (RowIDColumn) a read of
	// the statement yielded. It returns how many it deleted that the
	// transaction had not deleted already. The statement must hold the
	// table's row lock (Manager.LockRows) from before the read.
	Delete(ids []int64) (int64, error)
}

// Writer is the storage layer's side of a statement that writes rows.
// The sink of an INSERT (and next UPDATE, DELETE and MERGE, which will
// add delete files beside their rows) and COPY FROM find it in their
// execution context and write each table's rows through the RowWriter it
// opens, so the layers above never begin, commit or abort a write
// themselves. Nothing written is visible before the statement ends
// (Statement.End) and its transaction commits; a failed statement
// (Statement.Abort) writes nothing.
type Writer interface {
	// Table opens the statement's write to the table ns.name at ref: ""
	// or "main" is the main branch, written through the write log;
	// another branch ("t@b") is appended to in Iceberg when the statement
	// ends. A second call for the same table returns the same writer.
	Table(ctx context.Context, ns, name, ref string) (RowWriter, error)
}

// Statement is one statement's writes: a Writer whose ending the session
// decides. Its writes to the write log become transactions the session's
// transaction commits together (CommitAll) or aborts; its writes to a
// branch are committed when it ends, as Iceberg appends.
type Statement struct {
	m        *Manager
	txns     map[Key]*Txn
	order    []*Txn // txns in the order begun, for a deterministic commit
	branches []*branchWrite
	owner    uint64 // SetOwner (keystxn.go)
}

var _ Writer = (*Statement)(nil)

// Statement starts a statement's writes.
func (m *Manager) Statement() *Statement {
	return &Statement{m: m, txns: map[Key]*Txn{}}
}

// Table implements Writer.
func (s *Statement) Table(ctx context.Context, ns, name, ref string) (RowWriter, error) {
	key := Key{ns, name}
	if ref != "" && ref != table.MainBranch {
		for _, b := range s.branches {
			if b.key == key && b.ref == ref {
				return b, nil
			}
		}
		b := &branchWrite{key: key, ref: ref}
		s.branches = append(s.branches, b)
		return b, nil
	}
	if t := s.txns[key]; t != nil {
		return t, nil
	}
	t, err := s.m.Begin(ctx, ns, name)
	if err != nil {
		return nil, err
	}
	if s.owner != 0 {
		t.owner = s.owner
	}
	s.txns[key] = t
	s.order = append(s.order, t)
	return t, nil
}

// Abort ends a statement that failed: nothing it wrote is kept.
func (s *Statement) Abort() {
	for _, t := range s.order {
		t.Abort()
	}
	for _, b := range s.branches {
		b.release()
	}
	s.order, s.txns, s.branches = nil, map[Key]*Txn{}, nil
}

// Ended is what a statement that succeeded leaves its transaction.
type Ended struct {
	// Txns are its writes to the write log, not yet visible: the
	// session's transaction commits them (Manager.CommitAll, one record
	// for the whole transaction) or aborts them.
	Txns []*Txn
	// Branches are its writes to branches, committed already; a rollback
	// of the transaction undoes them (BranchWrite.Undo).
	Branches []BranchWrite
}

// Rows is the number of rows the statement wrote to the write log.
func (e Ended) Rows() int64 {
	var n int64
	for _, t := range e.Txns {
		n += t.Rows()
	}
	return n
}

// End ends a statement that succeeded. Its branch writes are committed
// now, before the statement returns, so acknowledged means durable: they
// do not go through the write log, whose rows the link commits to the
// main branch. When one fails the statement is aborted whole, but for
// branch writes committed before it (a statement writes one table today).
func (s *Statement) End(ctx context.Context) (Ended, error) {
	var e Ended
	for i, b := range s.branches {
		bw, ok, err := b.commit(ctx, s.m)
		if err != nil {
			for _, b := range s.branches[i:] {
				b.release()
			}
			s.branches = nil
			s.Abort()
			return Ended{}, err
		}
		if ok {
			e.Branches = append(e.Branches, bw)
		}
	}
	s.branches = nil
	e.Txns = s.order
	s.order, s.txns = nil, map[Key]*Txn{}
	return e, nil
}

// BranchWrite is a committed append to a branch: the branch moved from
// snapshot From to To.
type BranchWrite struct {
	m        *Manager
	Key      Key
	Ref      string
	From, To int64
}

// Undo points the branch back at the snapshot it had, as a rollback of
// the transaction that wrote it does.
func (b BranchWrite) Undo(ctx context.Context) error {
	return b.m.Alter(ctx, b.Key.NS, b.Key.Name, icetable.SetRef(b.Ref, b.To, b.From))
}

// branchWrite keeps a statement's rows for a branch until it ends.
type branchWrite struct {
	key  Key
	ref  string
	recs []arrow.RecordBatch
}

func (b *branchWrite) Add(rec arrow.RecordBatch) error {
	if rec.NumRows() == 0 {
		return nil
	}
	rec.Retain()
	b.recs = append(b.recs, rec)
	return nil
}

// Delete refuses: rows of a branch are read from Iceberg alone, without
// row ids.
func (b *branchWrite) Delete(ids []int64) (int64, error) {
	return 0, pgerr.New(pgerr.FeatureNotSupported, "UPDATE, DELETE and MERGE on a branch (%s@%s) are not supported", b.key.Name, b.ref)
}

func (b *branchWrite) release() {
	for _, r := range b.recs {
		r.Release()
	}
	b.recs = nil
}

// commit appends the rows to the branch as one Iceberg snapshot. It runs
// beside the link (Maintain) under the table's write lease; main's
// current snapshot, which holds the log position, is not touched. ok is
// false when there was nothing to write.
func (b *branchWrite) commit(ctx context.Context, m *Manager) (bw BranchWrite, ok bool, err error) {
	defer b.release()
	if len(b.recs) == 0 {
		return BranchWrite{}, false, nil
	}
	rec, err := Concat(b.recs)
	if err != nil {
		return BranchWrite{}, false, err
	}
	defer rec.Release()
	bw = BranchWrite{m: m, Key: b.key, Ref: b.ref}
	err = m.Maintain(ctx, b.key.NS, b.key.Name, func(ctx context.Context, tbl *table.Table, _ iceberg.Properties) (*table.Table, error) {
		r, ok := icetable.Ref(tbl, b.ref)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "branch %q of table %q does not exist", b.ref, b.key.Name)
		}
		bw.From = r.SnapshotID
		// No log position in the summary: it belongs to main's snapshots.
		nt, err := m.store.AppendBranch(ctx, tbl, b.ref, rec, nil)
		if err != nil {
			return nil, err
		}
		r, _ = icetable.Ref(nt, b.ref)
		bw.To = r.SnapshotID
		return nt, nil
	})
	if err != nil {
		if errors.Is(err, icetable.ErrTagWrite) {
			return BranchWrite{}, false, TagWriteError(b.key.Name, b.ref)
		}
		return BranchWrite{}, false, fmt.Errorf("write to %s@%s: %w", b.key, b.ref, err)
	}
	return bw, true, nil
}

// TagWriteError is the error of a write to a tag, which always names one
// snapshot.
func TagWriteError(table, tag string) error {
	return pgerr.New(pgerr.WrongObjectType, "cannot write to tag %q of table %q: a tag always names one snapshot; write to a branch", tag, table)
}
