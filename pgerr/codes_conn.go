package pgerr

// SQLSTATEs of connection limits (wire's --max-connections and idle
// timeouts), in their own file so the main list stays conflict-free.
const (
	TooManyConnections              = "53300"
	IdleSessionTimeout              = "57P05"
	IdleInTransactionSessionTimeout = "25P03"
)
