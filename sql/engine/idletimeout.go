package engine

import "time"

// IdleSessionTimeout is idle_session_timeout: how long the connection may
// wait for a command outside a transaction block before the wire layer
// ends it (57P05); 0 for never.
func (s *Session) IdleSessionTimeout() time.Duration {
	ms, _ := parseMillis(s.settings["idle_session_timeout"])
	return time.Duration(ms) * time.Millisecond
}

// IdleInTransactionSessionTimeout is idle_in_transaction_session_timeout:
// the same inside a block (open or failed), ending it with 25P03.
func (s *Session) IdleInTransactionSessionTimeout() time.Duration {
	ms, _ := parseMillis(s.settings["idle_in_transaction_session_timeout"])
	return time.Duration(ms) * time.Millisecond
}
