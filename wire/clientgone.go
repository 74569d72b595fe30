package wire

import (
	"context"
	"errors"
	"net"
	"os"
	"time"
)

// errClientGone cancels a statement whose client closed its connection.
var errClientGone = errors.New("client closed the connection")

// watchClient is ctx cancelled when the client closes its connection
// while a statement runs (PostgreSQL notices that only when it next
// writes; a long aggregate writes nothing until its end). The connection
// is not read while a statement runs, so a goroutine waits on the socket
// for more than what is buffered already: end of file cancels the
// statement; data (a pipelined message) stays buffered for the loop to
// read after. stop ends the wait before the loop reads again.
func (c *conn) watchClient(ctx context.Context) (context.Context, func()) {
	br := c.rd.r
	n := br.Buffered() + 1
	if n > br.Size() {
		return ctx, func() {} // a full buffer: nothing more can be peeked
	}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := br.Peek(n)
		if err != nil && !isTimeout(err) {
			cancel(errClientGone)
		}
	}()
	return ctx, func() {
		_ = c.nc.SetReadDeadline(time.Now())
		<-done
		_ = c.nc.SetReadDeadline(time.Time{})
		if c.shuttingDown() {
			// interrupt (which cancels, then sets its deadline) may have
			// run meanwhile: its deadline must stay to wake the loop.
			_ = c.nc.SetReadDeadline(time.Now())
		}
		cancel(nil)
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}
