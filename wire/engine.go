package wire

import (
	"context"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
	"github.com/loamdb/loam/types"
)

// Engine opens sessions. FromEngine adapts *engine.Engine; tests supply
// their own.
type Engine interface {
	NewSession(user, database string, startupParams map[string]string) (Session, error)
}

// Session is what the wire layer needs of an engine session. Its methods
// are called from the connection's goroutine only.
type Session interface {
	ParameterStatus() [][2]string
	TakeParameterChanges() [][2]string
	TxStatus() byte
	// Finish ends the implicit transaction before ReadyForQuery: writes
	// made outside a block since the last one commit (a failed statement
	// has already dropped them through MarkFailed).
	Finish() error
	Location() *time.Location
	MarkFailed()
	// SetBackendPID records the process ID sent in BackendKeyData, which
	// pg_backend_pid() and pg_stat_activity report.
	SetBackendPID(pid uint32)
	// StatementTimeout is statement_timeout, 0 for none: each Execute
	// (and each Query's statement) ends then with a 57014.
	StatementTimeout() time.Duration
	// IdleSessionTimeout and IdleInTransactionSessionTimeout are
	// idle_session_timeout and idle_in_transaction_session_timeout, 0 for
	// none: the connection ends (57P05, 25P03) when a wait for the next
	// command outside, or inside, a transaction block lasts that long.
	IdleSessionTimeout() time.Duration
	IdleInTransactionSessionTimeout() time.Duration
	// TakeNotices returns the notices (NOTICE, WARNING…) the statements
	// since the last call queued, and forgets them.
	TakeNotices() []*pgerr.Error
	// Close ends the session when the connection does: an open block's
	// writes are dropped.
	Close()

	Prepare(ctx context.Context, query string, paramOIDs []uint32) ([]*engine.Statement, error)
	// PrepareSimple prepares a simple-protocol Query string, whose
	// statements take no parameters: a $n in them fails as PostgreSQL's.
	PrepareSimple(ctx context.Context, query string) ([]*engine.Statement, error)
	// CursorColumns is the row shape of a cursor DECLAREd by that name:
	// such cursors share the portals' namespace, so a Describe of a portal
	// the wire layer does not know asks the session (psycopg 3's
	// ServerCursor sends one). ok is false when there is none.
	CursorColumns(name string) (cols []engine.Column, ok bool)
	Execute(ctx context.Context, st *engine.Statement, params []types.Datum) (Cursor, error)

	// CopyIn runs a statement whose Copy.In is set. r yields the client's
	// CopyData payloads, each Read at most the rest of one message, and
	// io.EOF once the client sent CopyDone. After a CopyFail it returns a
	// 57014 error, and io.ErrUnexpectedEOF (or another I/O error) when the
	// connection is lost; the engine must not make the COPY visible then.
	// It should read r to io.EOF before committing, as PostgreSQL does after
	// a text COPY's "\." line, so that a CopyFail still aborts it. The
	// wire layer consumes whatever the engine leaves unread.
	CopyIn(ctx context.Context, st *engine.Statement, r io.Reader) (tag string, err error)
	// CopyOut runs a statement whose Copy is set and Copy.In is not. Each
	// Write to w is sent as one CopyData message (w does not keep p); an
	// error from Write means the connection is gone.
	CopyOut(ctx context.Context, st *engine.Statement, w io.Writer) (tag string, err error)
}

// Cursor streams one statement's result; *engine.Cursor implements it.
// Next returns nil at the end; the batch is the caller's until the next
// call to Next. Tag is final once Next returned nil.
type Cursor interface {
	Columns() []engine.Column
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Tag() string
	Close()
	// Deallocated is set for a DEALLOCATE that dropped a statement of SQL
	// PREPARE, the session's: the connection then has none to drop.
	Deallocated() bool
}

var _ Cursor = (*engine.Cursor)(nil)

// FromEngine adapts the SQL engine to the wire layer.
func FromEngine(e *engine.Engine) Engine { return engineAdapter{e} }

type engineAdapter struct{ e *engine.Engine }

func (a engineAdapter) NewSession(user, database string, params map[string]string) (Session, error) {
	s, err := a.e.NewSession(user, database, params)
	if err != nil {
		return nil, err
	}
	s.ImplicitTransactions()
	return sessionAdapter{s}, nil
}

type sessionAdapter struct{ *engine.Session }

func (s sessionAdapter) Execute(ctx context.Context, st *engine.Statement, params []types.Datum) (Cursor, error) {
	c, err := s.Session.Execute(ctx, st, params)
	if err != nil {
		return nil, err
	}
	return c, nil
}
