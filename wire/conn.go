package wire

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/pgerr"
)

// flushThreshold is how much output is buffered before it is written even
// without a Sync or Flush.
const flushThreshold = 64 << 10

// conn is one client connection. All fields but mu/stmtCancel belong to the
// connection's goroutine.
type conn struct {
	srv *Server
	nc  net.Conn  // the socket: deadlines, close, the client's address
	w   io.Writer // nc, or its TLS layer once SSLRequest upgraded it
	tls bool
	rd  *msgReader
	out []byte
	log *slog.Logger

	ctx    context.Context // ends on shutdown
	cancel context.CancelCauseFunc

	pid     uint32
	secret  []byte
	user    string
	sess    Session
	authWhy string // why a password failed, for the log only
	counted bool   // counts against MaxConnections
	// awaitingCommand: ReadyForQuery was sent and nothing read since
	// (the idle timeouts apply).
	awaitingCommand bool

	stmts          map[string]*prepStmt
	portals        map[string]*portal
	ignoreTillSync bool

	mu         sync.Mutex
	stmtCancel context.CancelFunc
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{
		srv:     s,
		nc:      nc,
		w:       nc,
		rd:      newMsgReader(bufio.NewReaderSize(nc, 16<<10), s.cfg.MaxMessageSize),
		log:     s.log.With("remote", nc.RemoteAddr().String()),
		stmts:   map[string]*prepStmt{},
		portals: map[string]*portal{},
	}
	c.ctx, c.cancel = context.WithCancelCause(s.base)
	return c
}

// interrupt is called from Shutdown: it cancels the running statement and
// wakes a blocked read, so the goroutine notices the shutdown.
func (c *conn) interrupt() {
	c.cancel(errShutdown)
	_ = c.nc.SetReadDeadline(time.Now())
}

// cancelRunning cancels the statement in progress, if any.
func (c *conn) cancelRunning() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stmtCancel != nil {
		c.stmtCancel()
	}
}

// stmtContext is the context one statement-level message runs under; a
// CancelRequest cancels it.
func (c *conn) stmtContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	c.stmtCancel = cancel
	c.mu.Unlock()
	return ctx, func() {
		c.mu.Lock()
		c.stmtCancel = nil
		c.mu.Unlock()
		cancel()
	}
}

func (c *conn) shuttingDown() bool { return context.Cause(c.ctx) == errShutdown }

// serve runs the connection to its end.
func (c *conn) serve() {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("connection panic", "panic", r, "stack", string(debug.Stack()))
			c.out = c.out[:0]
			c.sendFatal(pgerr.New(pgerr.InternalError, "internal error: %v", r))
		}
		c.closePortals()
		if c.sess != nil {
			c.sess.Close()
		}
		c.srv.untrack(c)
		c.cancel(nil)
		c.nc.Close()
		c.log.Debug("connection closed", "duration", time.Since(start))
	}()

	if err := c.startup(); err != nil {
		c.endWith(err)
		return
	}
	c.log = c.log.With("pid", c.pid, "user", c.user)
	c.log.Debug("session started")
	for {
		idle := c.armIdle()
		typ, body, err := c.rd.readMessage()
		c.awaitingCommand = false
		if idle != nil {
			c.disarmIdle()
			if err != nil && isTimeout(err) && !c.shuttingDown() {
				c.log.Info("idle timeout", "code", toPgError(idle).Code)
				c.sendFatal(idle)
				return
			}
		}
		if err != nil {
			c.endWith(err)
			return
		}
		if c.ignoreTillSync && typ != 'S' && typ != 'X' {
			continue
		}
		if typ == 'X' {
			return
		}
		if err := c.dispatch(typ, body); err != nil {
			c.endWith(err)
			return
		}
	}
}

// endWith reports why the connection ends, to the client when it can.
func (c *conn) endWith(err error) {
	switch {
	case c.shuttingDown():
		c.sendFatal(adminShutdown())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		c.log.Debug("client went away", "err", err)
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.log.Info("connection timed out", "err", err)
	case isFatal(err):
		var ie *ioError
		if errors.As(err, &ie) {
			c.log.Debug("connection write failed", "err", err)
			return
		}
		c.log.Info("closing connection", "err", err, "code", toPgError(err).Code)
		c.sendFatal(err)
	default:
		c.log.Warn("connection failed", "err", err)
	}
}

// sendFatal writes a final error, giving a stuck client a second to take it.
func (c *conn) sendFatal(err error) {
	pe := *toPgError(err)
	pe.Severity = severityFatal
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Second))
	c.send(errorResponse(&pe))
	_ = c.flush()
}

// dispatch handles one message after startup. It returns only errors that
// end the connection; statement errors are reported to the client.
func (c *conn) dispatch(typ byte, body []byte) error {
	msg, err := decodeFrontend(typ, body)
	if err != nil {
		return err
	}
	_, simple := msg.(*pgproto3.Query)
	err = c.recovered(func() error {
		switch m := msg.(type) {
		case *pgproto3.Query:
			return c.handleQuery(m)
		case *pgproto3.Parse:
			return c.handleParse(m)
		case *pgproto3.Bind:
			return c.handleBind(m)
		case *pgproto3.Describe:
			return c.handleDescribe(m)
		case *pgproto3.Execute:
			return c.handleExecute(m)
		case *pgproto3.Close:
			return c.handleClose(m)
		case *pgproto3.Sync:
			return c.handleSync()
		case *pgproto3.Flush:
			return c.flush()
		case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
			// Ignored outside COPY, as in PostgreSQL.
			return nil
		case *pgproto3.FunctionCall:
			return pgerr.New(pgerr.FeatureNotSupported, "the function call protocol is not supported")
		default:
			return protocolViolation("unexpected frontend message type %q", typ)
		}
	})
	if err == nil {
		return nil
	}
	_, sync := msg.(*pgproto3.Sync)
	_, flush := msg.(*pgproto3.Flush)
	if (sync || flush) && !errors.As(err, new(*panicError)) {
		return err // only writing fails them: the connection is gone
	}
	if isFatal(err) || c.shuttingDown() {
		return err
	}
	c.reportError(err)
	if !simple && !sync {
		c.ignoreTillSync = true
		return nil
	}
	c.ignoreTillSync = false
	return c.readyForQuery()
}

// panicError is a panic recovered inside a statement. PostgreSQL reports
// its internal errors as XX000 errors of the statement, and so does Loam:
// the transaction fails, the session goes on, the log has the stack.
type panicError struct{ v any }

func (e *panicError) Error() string { return fmt.Sprintf("internal error: %v", e.v) }

// recovered runs a message's handler, turning a panic into a panicError.
// The portals may be half run: they are closed.
func (c *conn) recovered(handle func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("statement panic", "panic", r, "stack", string(debug.Stack()))
			c.closePortals()
			err = &panicError{r} // XX000, as pgerr.From makes any plain error
		}
	}()
	return handle()
}

// reportError sends a statement-level error and fails the transaction.
func (c *conn) reportError(err error) {
	c.log.Debug("statement failed", "err", err)
	c.sess.MarkFailed()
	c.sendNotices()
	c.send(errorResponse(err))
}

// send appends a message to the output buffer.
func (c *conn) send(msg pgproto3.BackendMessage) {
	out, err := msg.Encode(c.out)
	if err != nil {
		// Only oversize messages fail to encode; report instead.
		c.out, _ = errorResponse(fmt.Errorf("wire: encoding %T: %w", msg, err)).Encode(c.out)
		return
	}
	c.out = out
}

// flush writes the buffered output.
func (c *conn) flush() error {
	if len(c.out) == 0 {
		return nil
	}
	_, err := c.w.Write(c.out)
	if cap(c.out) > 4*flushThreshold {
		c.out = nil
	} else {
		c.out = c.out[:0]
	}
	if err != nil {
		return &ioError{err}
	}
	return nil
}

// maybeFlush writes the buffer once it has grown past the threshold.
func (c *conn) maybeFlush() error {
	if len(c.out) < flushThreshold {
		return nil
	}
	return c.flush()
}

func (c *conn) sendParameterChanges() {
	for _, kv := range c.sess.TakeParameterChanges() {
		c.send(&pgproto3.ParameterStatus{Name: kv[0], Value: kv[1]})
	}
}

func (c *conn) readyForQuery() error {
	if err := c.sess.Finish(); err != nil {
		c.reportError(err)
	}
	c.send(&pgproto3.ReadyForQuery{TxStatus: c.sess.TxStatus()})
	c.awaitingCommand = true
	return c.flush()
}
