package wire

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/engine"
)

// The rest of Session and Cursor for the fakes of fake_test.go: what an
// engine without those features answers.

func (s *fakeSession) SetBackendPID(pid uint32) { s.pid = pid }

func (s *fakeSession) StatementTimeout() time.Duration { return s.timeout }

func (s *fakeSession) IdleSessionTimeout() time.Duration              { return 0 }
func (s *fakeSession) IdleInTransactionSessionTimeout() time.Duration { return 0 }

func (s *fakeSession) Close() { s.closed = true }

// PrepareSimple is Prepare: the fake's commands take no $n.
func (s *fakeSession) PrepareSimple(ctx context.Context, query string) ([]*engine.Statement, error) {
	return s.Prepare(ctx, query, nil)
}

// CursorColumns finds no cursor: the fake has no DECLARE.
func (s *fakeSession) CursorColumns(string) ([]engine.Column, bool) { return nil, false }

func (c *fakeCursor) Deallocated() bool { return false }

// sessionsEngine is the fake engine handing its sessions to the test, with
// statement_timeout set to timeout.
type sessionsEngine struct {
	fakeEngine
	timeout  time.Duration
	sessions chan *fakeSession
}

func (e sessionsEngine) NewSession(user, db string, params map[string]string) (Session, error) {
	s, err := e.fakeEngine.NewSession(user, db, params)
	if err == nil {
		s.(*fakeSession).timeout = e.timeout
		e.sessions <- s.(*fakeSession)
	}
	return s, err
}

// The wire layer tells the session what it needs through Session's
// methods: the BackendKeyData pid, statement_timeout (which ends a
// statement with 57014), and Close when the connection ends.
func TestSessionContract(t *testing.T) {
	eng := sessionsEngine{timeout: 50 * time.Millisecond, sessions: make(chan *fakeSession, 1)}
	ts := startServer(t, Config{Engine: eng})
	ctx := testCtx(t)
	c, err := pgx.Connect(ctx, ts.url(""))
	if err != nil {
		t.Fatal(err)
	}
	s := <-eng.sessions
	_, err = c.Exec(ctx, "sleep")
	pe := wantPgError(t, err, pgerr.QueryCanceled)
	if pe.Message != "canceling statement due to statement timeout" {
		t.Errorf("sleep past statement_timeout: %q", pe.Message)
	}
	pid := c.PgConn().PID()
	c.Close(ctx)
	ts.stop() // waits for the connection's goroutine
	if s.pid != pid || !s.closed {
		t.Errorf("session pid %d closed %v; want BackendKeyData's %d, closed", s.pid, s.closed, pid)
	}
}
