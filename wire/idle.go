package wire

import (
	"time"

	"github.com/loamdb/loam/pgerr"
)

// armIdle sets the read deadline for the wait after ReadyForQuery:
// idle_session_timeout outside a block, idle_in_transaction_session_timeout
// inside one. It returns the error that ends the connection when the
// deadline passes, nil when no timeout applies.
func (c *conn) armIdle() error {
	if !c.awaitingCommand {
		return nil
	}
	var d time.Duration
	var fatal error
	if c.sess.TxStatus() == 'I' {
		d = c.sess.IdleSessionTimeout()
		fatal = fatalError(pgerr.IdleSessionTimeout, "terminating connection due to idle-session timeout")
	} else {
		d = c.sess.IdleInTransactionSessionTimeout()
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
