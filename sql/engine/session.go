package engine

import (
	"context"
	"sort"
	"time"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/storage/link"
)

// Session is one client connection's state. It is not safe for concurrent
// use; the wire layer runs one statement at a time per session.
type Session struct {
	eng      *Engine
	user     string
	database string
	settings map[string]string
	changed  [][2]string
	tx       byte
	// txSettings are the settings when the transaction block began, which
	// a rollback restores; nil outside a block.
	txSettings map[string]string
	cursors    map[string]*sqlCursor // DECLAREd cursors by name
	savepoints []savepoint           // the block's savepoints, innermost last
	// written are the block's writes, one write-log transaction a
	// statement, committed together at COMMIT and dropped at ROLLBACK.
	written []*link.Txn
	// implicit: writes outside a block also wait, for Finish.
	implicit bool
	// txNow is now() for the transaction under way; zero between them.
	txNow time.Time
	// stmtNow is statement_timestamp(): set by each Query (for all its
	// statements) and each extended-protocol Execute.
	stmtNow time.Time
	// drops are the transaction's DROPs, carried out at COMMIT (txddl.go).
	drops   []*pendingDrop
	loc     *time.Location
	notices []*pgerr.Error
	// localSaved are the values to put back when the transaction ends, of
	// the settings SET LOCAL (or set_config(…, true)) changed in it.
	localSaved map[string]string
	pid        int32  // the BackendKeyData process ID
	clientAddr string // the client's address, for the audit trail
	keyOwner   uint64 // whose keys its writes hold (keyOwner in keys.go)
	// runCtx is the context of the statement running now, and ec the
	// evaluation context its expressions share, made by exprCtx with
	// runCtx and this session in it: a cancel request or
	// statement_timeout ends a pg_sleep through it. A query's cursor puts
	// the context of each fetch in its runCtx.
	runCtx *runContext
	ec     *expr.Ctx

	// seqCurr is currval of each sequence nextval was called on in the
	// session; seqLast is the sequence nextval was last called on, whose
	// currval lastval is (when seqLastSet), as in PostgreSQL.
	seqCurr    map[link.Key]int64
	seqLast    link.Key
	seqLastSet bool

	// undo undoes the transaction's CREATEs, ALTERs and COMMENTs (stored
	// at once) if it rolls back, last first.
	undo []func(context.Context) error

	// sqlPrepared are the statements of SQL PREPARE, by name.
	sqlPrepared map[string]*Statement

	// rowLocks are the row locks of the tables the transaction deletes
	// rows of, with their unlock functions (dml.go).
	rowLocks map[link.Key]func()
}

// NewSession starts a session for user on database, applying the startup
// parameters the client sent (application_name, TimeZone, DateStyle, options).
func (e *Engine) NewSession(user, database string, params map[string]string) (*Session, error) {
	s := &Session{eng: e, user: user, database: database, settings: defaultSettings(user), tx: 'I', loc: time.UTC}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "user", "database", "replication", "options":
			continue
		}
		if err := s.set(k, params[k]); err != nil {
			return nil, err
		}
	}
	if r, err := e.meta.Role(context.Background(), user); err == nil && !r.Superuser {
		s.settings["is_superuser"] = "off"
	}
	s.changed = nil
	return s, nil
}

// SetClientAddress records the client's address for the audit trail.
func (s *Session) SetClientAddress(addr string) { s.clientAddr = addr }

// startStatement begins running a statement under ctx: its expressions
// get a new evaluation context (exprCtx).
func (s *Session) startStatement(ctx context.Context) {
	s.runCtx, s.ec = newRunContext(ctx), nil
}

// SetBackendPID records the process ID the wire layer sent the client in
// BackendKeyData, which pg_backend_pid() and pg_stat_activity report.
func (s *Session) SetBackendPID(pid uint32) { s.pid = int32(pid) }

// Location is the session's TimeZone, for formatting timestamptz values.
func (s *Session) Location() *time.Location { return s.loc }

// Close ends the session: its cursors' scans are closed and an open
// block's writes dropped.
func (s *Session) Close() {
	s.closeCursors(true)
	// A connection lost inside a block commits nothing.
	s.rollbackWork(txMark{})
}
