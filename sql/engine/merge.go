package engine

import (
	"context"
	"fmt"

	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// runMerge plans and runs a MERGE. Its target's row lock is taken as the
// catalog first looks the target up (lockingCatalog), before the state
// the statement reads is pinned, and held until the transaction ends:
// the row ids the join reads stay valid, and no other transaction
// deletes the rows it updates. The tag is "MERGE n", n the rows
// inserted, updated and deleted.
func (s *Session) runMerge(ctx context.Context, st *Statement, ms *pg.MergeStmt, params []types.Datum) (*Cursor, error) {
	cat := s.catalog()
	cat.lockRows = func(key link.Key) bool {
		return key.Name == ms.Relation.Relname && (ms.Relation.Schemaname == "" || ms.Relation.Schemaname == key.NS)
	}
	defer cat.release()
	p := plan.New(ctx, cat, s.exprCtx(), st.prep.query, append([]types.T(nil), st.ParamTypes...), params)
	p.NoParams = st.simple
	q, err := p.Merge(ms)
	if err != nil {
		return nil, err
	}
	env := q.Env()
	env.Tables = nil // planned now: the states the catalog pinned are current
	count, err := s.writing(ctx, func(w link.Writer) (int64, error) {
		return runWrite(ctx, q.Root, env, w, nil)
	})
	if err != nil {
		return nil, err
	}
	if s.tx == 'I' && !s.implicit {
		s.releaseRows() // committed by writing
	}
	return &Cursor{tag: fmt.Sprintf("MERGE %d", count), sess: s}, nil
}

// holdRows takes the row lock of the table key for the session's
// transaction, unless the session holds it already.
func (s *Session) holdRows(ctx context.Context, key link.Key) error {
	if _, ok := s.rowLocks[key]; ok {
		return nil
	}
	unlock, err := s.eng.link.LockRows(ctx, key.NS, key.Name)
	if err != nil {
		return err
	}
	if s.rowLocks == nil {
		s.rowLocks = map[link.Key]func(){}
	}
	s.rowLocks[key] = unlock
	return nil
}

// releaseRows lets go of the row locks the transaction took, once its
// writes have committed or been dropped.
func (s *Session) releaseRows() {
	for k, unlock := range s.rowLocks {
		unlock()
		delete(s.rowLocks, k)
	}
}
