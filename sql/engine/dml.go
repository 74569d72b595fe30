package engine

import (
	"context"

	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/sql/plan"
	"github.com/loamdb/loam/storage/link"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// UPDATE, DELETE and TRUNCATE delete rows by the row ids their scans read
// (plan.Update, plan.Delete). A statement that deletes rows of a table
// takes the table's row lock (link.Manager.LockRows) before its lookups
// pin the table's state, and the session holds it until the transaction
// ends: the ids stay valid while the statement uses them, and a second
// transaction changing the same table waits, then reads the rows as the
// first committed them, so no update is lost and no row is changed twice.
// The lock is the session's, not reentrant: rowLocks remembers which it
// holds.

// modifiedTable is the table a statement deletes rows of, or nil.
func modifiedTable(n *pg.Node) *pg.RangeVar {
	switch x := n.Node.(type) {
	case *pg.Node_UpdateStmt:
		return x.UpdateStmt.Relation
	case *pg.Node_DeleteStmt:
		return x.DeleteStmt.Relation
	case *pg.Node_MergeStmt:
		return x.MergeStmt.Relation
	case *pg.Node_ExplainStmt:
		// Only EXPLAIN ANALYZE runs the statement.
		if opts, err := explainOpts(x.ExplainStmt); err == nil && opts.analyze {
			return modifiedTable(x.ExplainStmt.Query)
		}
	}
	return nil
}

// lockRows takes the row lock of the table rv names, unless the session
// holds it. A name that resolves to no table locks nothing: the planner
// then raises the error.
func (s *Session) lockRows(ctx context.Context, rv *pg.RangeVar) error {
	cat := s.catalog()
	ti, err := cat.Table(ctx, rv.Schemaname, rv.Relname)
	cat.release()
	if err != nil || ti == nil || ti.Table == nil || ti.ViewSQL != "" || ti.Sequence || ti.Ref != "" {
		return nil
	}
	return s.lockTable(ctx, link.Key{NS: ti.Namespace, Name: ti.Name})
}

// lockTable takes the row lock of the table key, unless the session
// holds it.
func (s *Session) lockTable(ctx context.Context, key link.Key) error {
	if _, ok := s.rowLocks[key]; ok {
		return nil
	}
	if err := s.eng.rowWaits.wait(s, key); err != nil {
		return err
	}
	unlock, err := s.eng.link.LockRows(ctx, key.NS, key.Name)
	s.eng.rowWaits.got(s, key, err == nil)
	if err != nil {
		if ctx.Err() != nil {
			return pgerr.Canceled(ctx)
		}
		return err
	}
	if s.rowLocks == nil {
		s.rowLocks = map[link.Key]func(){}
	}
	s.rowLocks[key] = unlock
	return nil
}

// unlockRows releases the row locks the session holds: its transaction
// has ended, or has no writes left.
func (s *Session) unlockRows() {
	for k, unlock := range s.rowLocks {
		s.eng.rowWaits.released(s, k)
		unlock()
		delete(s.rowLocks, k)
	}
}

// refuseHoldingRows refuses the statements that would wait for the row
// lock this session holds: CHECKPOINT and the DDL that commits a table's
// log tail (ALTER, RENAME, DROP, branches and tags, VACUUM) take the
// lock of the tables they move rows of, and the link may already be
// waiting for it while holding the table (so even a COMMENT would wait).
func (s *Session) refuseHoldingRows(ps parse.Statement) error {
	if len(s.rowLocks) == 0 {
		return nil
	}
	what := ""
	switch ps.Node.Node.(type) {
	case *pg.Node_CheckPointStmt, *pg.Node_VacuumStmt, *pg.Node_AlterTableStmt, *pg.Node_RenameStmt,
		*pg.Node_DropStmt, *pg.Node_CommentStmt:
		what = parse.StmtName(ps.Node)
	}
	if ps.Ref != nil {
		what = "ALTER TABLE … BRANCH or TAG"
	}
	if what == "" {
		return nil
	}
	return pgerr.New(pgerr.FeatureNotSupported, "%s is not supported in a transaction that has updated or deleted rows", what).
		WithHint("COMMIT or ROLLBACK first.")
}

// planModify plans an UPDATE or DELETE and names its command tag (before
// the count); q is nil for other statements.
func planModify(p *plan.Planner, n *pg.Node) (q *plan.Query, tag string, err error) {
	switch x := n.Node.(type) {
	case *pg.Node_UpdateStmt:
		q, err = p.Update(x.UpdateStmt)
		return q, "UPDATE ", err
	case *pg.Node_DeleteStmt:
		q, err = p.Delete(x.DeleteStmt)
		return q, "DELETE ", err
	case *pg.Node_MergeStmt:
		q, err = p.Merge(x.MergeStmt)
		return q, "MERGE ", err
	}
	return nil, "", nil
}
