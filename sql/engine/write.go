package engine

import (
	"context"

	"github.com/loamdb/loam/storage/link"
)

// writing runs a statement that writes rows: run writes them through w,
// the storage layer's writer for the statement (link.Statement), which it
// hands to the sink's execution context or, for COPY FROM, uses itself.
// A statement that fails writes nothing. One that succeeds leaves its
// writes to the session's transaction: committed (durable, then visible)
// at once outside a transaction block, at COMMIT inside one, and at Finish
// in an implicit transaction. Branch writes ("t@b") are committed when
// the statement ends, and a rollback points the branch back.
func (s *Session) writing(ctx context.Context, run func(w link.Writer) (int64, error)) (int64, error) {
	w := s.eng.link.Statement()
	w.SetOwner(s.ownerOfKeys())
	n, err := run(w)
	if err != nil {
		w.Abort()
		return 0, err
	}
	done, err := w.End(ctx)
	if err != nil {
		return 0, err
	}
	for _, b := range done.Branches {
		s.onRollback(b.Undo)
	}
	if s.tx != 'I' || s.implicit {
		s.written = append(s.written, done.Txns...)
		return n, nil
	}
	err = s.eng.link.CommitAll(done.Txns)
	s.unlockRows()
	if err != nil {
		return 0, err
	}
	return n, nil
}

// ownWrites are the open block's writes to a table, which its own
// statements see as PostgreSQL's do: their rows, and the rows they
// deleted.
func (s *Session) ownWrites(key link.Key) []*link.Txn {
	var txns []*link.Txn
	for i, t := range s.written {
		if t.Key() == key && !s.discarded(i) {
			txns = append(txns, t)
		}
	}
	return txns
}

// abortWrites drops the block's writes from the i-th on.
func (s *Session) abortWrites(i int) {
	for _, t := range s.written[i:] {
		t.Abort()
	}
	s.written = s.written[:i]
}
