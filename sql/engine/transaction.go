package engine

import (
	"context"
	"maps"
	"time"

	"github.com/loamdb/loam/pgerr"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// A session's transaction: BEGIN, COMMIT, ROLLBACK and savepoints, the
// implicit transaction the wire layer ends with Finish, and the commit or
// rollback of the transaction's work (its writes, the undo of its DDL,
// its pending DROPs: txddl.go).

// savepoint is a SAVEPOINT of the current block and the settings then.
type savepoint struct {
	name     string
	settings map[string]string
	work     txMark
}

// txMark is how far the transaction's undoable work reached: the lengths
// of Session.written, undo and drops. The zero mark is its start.
type txMark struct{ written, undo, drops int }

// mark is where the transaction's work stands now.
func (s *Session) mark() txMark { return txMark{len(s.written), len(s.undo), len(s.drops)} }

// TxStatus is the ReadyForQuery status: 'I' idle, 'T' in a transaction
// block, 'E' in a failed transaction block.
func (s *Session) TxStatus() byte { return s.tx }

// MarkFailed records an error the wire layer raised itself (a bad Bind, say)
// so that an open transaction block becomes failed, as in PostgreSQL.
func (s *Session) MarkFailed() { s.markFailed() }

func (s *Session) markFailed() {
	switch s.tx {
	case 'T':
		s.tx = 'E'
	case 'I':
		s.rollbackWork(txMark{}) // the implicit transaction fails whole
	}
}

// commitWork commits the transaction's writes with one write-log record;
// its CREATEs, ALTERs and COMMENTs then stay, and its DROPs are carried
// out. After a failure of the writes the rest is left for rollbackWork.
func (s *Session) commitWork() error {
	if len(s.written) > 0 {
		// Writes to a table the transaction then dropped go nowhere.
		for i, t := range s.written {
			if s.discarded(i) {
				t.Abort()
			}
		}
		err := s.eng.link.CommitAll(s.written)
		s.written = nil
		s.unlockRows()
		if err != nil {
			return err
		}
	}
	s.undo = nil
	return s.commitDrops(context.Background())
}

// rollbackWork undoes the transaction's writes, DDL and DROPs made since
// m, last first for the DDL.
func (s *Session) rollbackWork(m txMark) {
	s.abortWrites(m.written)
	if m.written == 0 {
		s.unlockRows() // no write is left that deleted rows
	}
	s.drops = s.drops[:m.drops]
	s.undoTo(m.undo)
}

// ImplicitTransactions makes writes outside a transaction block wait for
// Finish, as PostgreSQL's implicit transactions do: the statements of one
// simple Query, or the extended-protocol messages up to a Sync, commit
// together or not at all (PgJDBC sends a batch of INSERTs that way). The
// wire layer turns it on; without it each statement commits itself.
func (s *Session) ImplicitTransactions() { s.implicit = true }

// Finish ends the implicit transaction before ReadyForQuery: the writes
// made outside a block since the last Finish commit. Inside a block they
// wait for COMMIT.
func (s *Session) Finish() error {
	if s.tx != 'I' {
		return nil
	}
	s.txNow = time.Time{}
	if err := s.commitWork(); err != nil {
		// What did not commit is undone, not left for the next
		// transaction to commit.
		s.rollbackWork(txMark{})
		return err
	}
	return nil
}

func (s *Session) transaction(ts *pg.TransactionStmt) (*Cursor, error) {
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		// PostgreSQL warns about a nested BEGIN and carries on.
		if s.tx == 'I' {
			s.txSettings = maps.Clone(s.settings)
			if s.txNow.IsZero() {
				s.txNow = s.stmtNow // a block's now() is its BEGIN's
				if s.txNow.IsZero() {
					s.txNow = time.Now()
				}
			}
		} else {
			s.warning(pgerr.ActiveSQLTransaction, "there is already a transaction in progress")
		}
		s.tx = 'T'
		return &Cursor{tag: "BEGIN", sess: s}, nil
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		if s.tx == 'I' {
			s.warning(pgerr.NoActiveSQLTransaction, "there is no transaction in progress")
		}
		// COMMIT of a failed block rolls it back, and says so.
		tag := "COMMIT"
		if s.tx == 'E' {
			tag = "ROLLBACK"
		}
		if err := s.endTx(s.tx != 'E'); err != nil {
			return nil, err
		}
		return &Cursor{tag: tag, sess: s}, nil
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		if s.tx == 'I' {
			s.warning(pgerr.NoActiveSQLTransaction, "there is no transaction in progress")
		}
		_ = s.endTx(false)
		return &Cursor{tag: "ROLLBACK", sess: s}, nil
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT, pg.TransactionStmtKind_TRANS_STMT_RELEASE,
		pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		return s.savepoint(ts)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "two-phase commit is not supported")
}

// savepoint runs SAVEPOINT, RELEASE and ROLLBACK TO. psycopg 3's nested
// transaction() blocks and SQLAlchemy's begin_nested use them, above all to
// recover from an error without ending the block. As with ROLLBACK, the
// SETs and the writes since the savepoint are undone.
func (s *Session) savepoint(ts *pg.TransactionStmt) (*Cursor, error) {
	verb, tag := "SAVEPOINT", "SAVEPOINT"
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		verb, tag = "RELEASE SAVEPOINT", "RELEASE"
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		verb, tag = "ROLLBACK TO SAVEPOINT", "ROLLBACK"
	}
	if s.tx == 'I' {
		return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "%s can only be used in transaction blocks", verb)
	}
	if ts.Kind == pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT {
		s.savepoints = append(s.savepoints, savepoint{name: ts.SavepointName, settings: maps.Clone(s.settings),
			work: s.mark()})
		return &Cursor{tag: tag, sess: s}, nil
	}
	i := len(s.savepoints) - 1
	for i >= 0 && s.savepoints[i].name != ts.SavepointName {
		i--
	}
	if i < 0 {
		return nil, pgerr.New(pgerr.InvalidSavepointSpec, "savepoint \"%s\" does not exist", ts.SavepointName)
	}
	if ts.Kind == pg.TransactionStmtKind_TRANS_STMT_RELEASE {
		s.savepoints = s.savepoints[:i]
		return &Cursor{tag: tag, sess: s}, nil
	}
	s.restoreSettings(s.savepoints[i].settings)
	s.rollbackWork(s.savepoints[i].work)
	s.savepoints = s.savepoints[:i+1]
	s.tx = 'T'
	return &Cursor{tag: tag, sess: s}, nil
}

// endTx ends a transaction block. A commit makes the block's writes
// durable and visible at once, with one write-log record. A rollback (or
// the COMMIT of a failed block) drops them and undoes the SETs made in the
// block, as in PostgreSQL: psycopg runs every statement in a block, so an
// error there must not leave a SET behind.
func (s *Session) endTx(commit bool) error {
	var err error
	if commit {
		err = s.commitWork()
	}
	s.rollbackWork(txMark{}) // after a commit, nothing is left to undo
	if (!commit || err != nil) && s.txSettings != nil {
		s.restoreSettings(s.txSettings)
		s.localSaved = nil
	}
	s.restoreLocal()
	s.txSettings, s.savepoints = nil, nil
	s.tx = 'I'
	s.txNow = time.Time{}
	s.closeCursors(false)
	return err
}

// refuseInBlock is PostgreSQL's PreventInTransactionBlock, for the
// statements it runs only outside a transaction block: not in BEGIN …
// COMMIT, nor among the statements of one Query (an implicit block).
func (s *Session) refuseInBlock(st *Statement, what string) error {
	if s.tx != 'I' || st.multi {
		return pgerr.New(pgerr.ActiveSQLTransaction, "%s cannot run inside a transaction block", what)
	}
	return nil
}
