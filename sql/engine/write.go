package engine

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
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
	if err := s.eng.link.CommitAll(done.Txns); err != nil {
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
