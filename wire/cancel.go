package wire

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
)

// Cancel keys: every session gets a random process ID and secret, sent in
// BackendKeyData. A CancelRequest naming both cancels the statement that
// session is running, if any; otherwise it does nothing (as in PostgreSQL,
// which never answers a CancelRequest).

// register gives c a fresh, unused (pid, secret) pair.
func (s *Server) register(c *conn) {
	var b [8]byte
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		_, _ = rand.Read(b[:])
		pid := binary.BigEndian.Uint32(b[:4]) & 0x7fffffff
		if pid == 0 || s.keys[pid] != nil {
			continue
		}
		c.pid = pid
		c.secret = append([]byte(nil), b[4:8]...)
		s.keys[pid] = c
		return
	}
}

// cancel cancels the running statement of the session with this key.
func (s *Server) cancel(pid uint32, secret []byte) bool {
	s.mu.Lock()
	c := s.keys[pid]
	s.mu.Unlock()
	if c == nil || subtle.ConstantTimeCompare(c.secret, secret) != 1 {
		s.log.Info("cancel request for unknown key", "pid", pid)
		return false
	}
	c.cancelRunning()
	return true
}
