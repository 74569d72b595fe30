// Package engine runs SQL statements for a session: it parses, plans and
// executes them against the catalog and storage, and keeps the session's
// settings and transaction state. The wire layer drives it.
package engine

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Column describes one result column as RowDescription reports it.
type Column struct {
	Name      string
	Type      types.T
	TableOID  uint32 // 0 when the column is not a plain table column
	ColumnNum int16
}

// Statement is one parsed and planned statement, ready to execute with
// parameters. Its ParamTypes and Columns are what Describe reports.
type Statement struct {
	Query      string    // the statement's own text
	ParamTypes []types.T // $1..$n, inferred where the client left them unspecified
	Columns    []Column  // nil for statements that return no rows
	// Copy is set for COPY … FROM STDIN and COPY … TO STDOUT: the wire
	// layer runs those with CopyIn and CopyOut instead of Execute.
	Copy *CopyInfo
	prep prepared
	// simple: from a simple-protocol Query, so it takes no parameters.
	simple bool
	// multi: one of several statements of a Query, which PostgreSQL runs
	// as an implicit transaction block (see refuseInBlock).
	multi bool
	// kept is the statement's plan, made once and reused by its
	// executions while valid (plancache.go).
	kept *keptPlan
}

// CopyInfo describes a COPY statement's data stream.
type CopyInfo struct {
	In      bool // FROM STDIN (else TO STDOUT)
	Binary  bool // FORMAT binary (else text or CSV, both sent as text)
	Columns int  // number of columns in each row
}

// Cursor streams a statement's result. Commands did their work in Execute
// and return no batches; queries produce batches as Next is called.
type Cursor struct {
	columns []Column
	next    func(ctx context.Context) (arrow.RecordBatch, error)
	close   func()
	tag     string
	rows    int64
	tagFn   func(rows int64) string
	sess    *Session
	done    bool
	// deallocated: a DEALLOCATE that dropped a PREPAREd statement, so the
	// wire layer has none of that name to drop.
	deallocated bool
}

// Deallocated says whether the statement was a DEALLOCATE of a statement
// made by SQL PREPARE, which the session held (see Statement.Deallocates).
func (c *Cursor) Deallocated() bool { return c.deallocated }

// Columns is the result's row shape, nil for commands.
func (c *Cursor) Columns() []Column { return c.columns }

// Next returns the next batch, or nil at the end (and on every call after).
// The batch is the caller's until the next call to Next.
func (c *Cursor) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if c.done || c.next == nil {
		c.done = true
		return nil, nil
	}
	rec, err := c.next(ctx)
	if err != nil {
		c.done = true
		c.sess.markFailed()
		return nil, err
	}
	if rec == nil {
		c.done = true
		return nil, nil
	}
	c.rows += rec.NumRows()
	return rec, nil
}

// Tag is the CommandComplete tag ("SELECT 3", "INSERT 0 2"), complete once
// Next has returned nil.
func (c *Cursor) Tag() string {
	if c.tagFn != nil {
		return c.tagFn(c.rows)
	}
	return c.tag
}

// Close releases the cursor's resources; safe to call more than once.
func (c *Cursor) Close() {
	if c.close != nil {
		c.close()
		c.close = nil
	}
}

// Location is the session's TimeZone, for formatting timestamptz values.
func (s *Session) Location() *time.Location { return s.loc }

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

// ParameterStatus lists the settings reported to the client at startup, in
// the order PostgreSQL sends them.
func (s *Session) ParameterStatus() [][2]string {
	out := make([][2]string, 0, len(reportedSettings))
	for _, name := range reportedSettings {
		out = append(out, [2]string{name, s.settings[name]})
	}
	return out
}

// TakeParameterChanges returns the reported settings the last statements
// changed, and forgets them.
func (s *Session) TakeParameterChanges() [][2]string {
	ch := s.changed
	s.changed = nil
	return ch
}

// TakeNotices returns the notices (severity NOTICE) the last statement
// raised, such as "table … does not exist, skipping", and forgets them.
func (s *Session) TakeNotices() []*pgerr.Error {
	n := s.notices
	s.notices = nil
	return n
}

func (s *Session) notice(format string, args ...any) {
	e := pgerr.New(pgerr.SuccessfulCompletion, format, args...)
	e.Severity = "NOTICE"
	s.notices = append(s.notices, e)
}

// warning queues a WARNING with its SQLSTATE, sent like a notice.
func (s *Session) warning(code, msg string) {
	e := pgerr.New(code, "%s", msg)
	e.Severity = "WARNING"
	s.notices = append(s.notices, e)
}

func (s *Session) noticeDetail(msg, detail string) {
	e := pgerr.New(pgerr.SuccessfulCompletion, "%s", msg)
	e.Severity = "NOTICE"
	e.Detail = detail
	s.notices = append(s.notices, e)
}
