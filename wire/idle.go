package wire

import (
	"time"

	"github.com/loamdb/loam/pgerr"
)

// idleTimeouts is what a Session offers when it has PostgreSQL's idle
// timeouts (the engine's does); sessions without them never time out.
type idleTimeouts interface {
	IdleSessionTimeout() time.Duration
	IdleInTransactionSessionTimeout() time.Duration
}

// armIdle sets the read deadline for the wait after ReadyForQuery:
// idle_session_timeout outside a block, idle_in_transaction_session_timeout
// inside one. It returns the error that ends the connection when the
// deadline passes, nil when no timeout applies.
func (c *conn) armIdle() error {
	it, ok := c.sess.(idleTimeouts)
	if !ok || !c.awaitingCommand {
		return nil
	}
	var d time.Duration
	var fatal error
	if c.sess.TxStatus() == 'I' {
		d = it.IdleSessionTimeout()
		fatal = fatalError(pgerr.IdleSessionTimeout, "terminating connection due to idle-session timeout")
	} else {
		d = it.IdleInTransactionSessionTimeout()
		fatal = fatalError(pgerr.IdleInTransactionSessionTimeout, "terminating connection due to idle-in-transaction timeout")
	}
	if d <= 0 {
		return nil
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
	if c.shuttingDown() { // interrupt may have set its deadline before ours
		_ = c.nc.SetReadDeadline(time.Now())
	}
	return fatal
}

// disarmIdle clears armIdle's deadline, keeping an interrupt's.
func (c *conn) disarmIdle() {
	_ = c.nc.SetReadDeadline(time.Time{})
	if c.shuttingDown() {
		_ = c.nc.SetReadDeadline(time.Now())
	}
}
