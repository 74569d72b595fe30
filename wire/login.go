package wire

import (
	"github.com/loamdb/loam/auth/scram"
	"github.com/loamdb/loam/pgerr"
)

// LoginEvent reports one login, for Config.OnLogin.
type LoginEvent struct {
	User     string
	Database string
	Address  string // the client's IP address, "[local]" without one
	Method   AuthMethod
	SSL      bool
	OK       bool
	// Code and Reason are the error the client was sent (Reason is its
	// message); Detail is what only the server log learns, as
	// PostgreSQL's DETAIL: why a password did not do.
	Code, Reason, Detail string
}

// reportLogin tells the log and OnLogin how a login ended.
func (c *conn) reportLogin(user, db string, method AuthMethod, err error) {
	ev := LoginEvent{User: user, Database: db, Address: c.hostString(), Method: method, SSL: c.tls, OK: err == nil}
	if err != nil {
		pe := toPgError(err)
		ev.Code, ev.Reason, ev.Detail = pe.Code, pe.Message, c.authWhy
		c.log.Info("login failed", "user", user, "database", db, "method", string(method),
			"code", ev.Code, "reason", ev.Reason, "detail", ev.Detail, "ssl", c.tls)
	} else {
		c.log.Info("login", "user", user, "database", db, "method", string(method), "ssl", c.tls)
	}
	if c.srv.cfg.OnLogin != nil {
		c.srv.cfg.OnLogin(ev)
	}
}

// isAuthFailure is an error of a login attempt that counts against the
// client's address: a wrong password or a role that may not log in (not a
// protocol error, timeout or full server).
func isAuthFailure(err error) bool {
	pe := toPgError(err)
	return pe.Code == pgerr.InvalidPassword || pe.Code == pgerr.InvalidAuthorizationSpec
}

func (s *Server) mockExchange(user string) *scram.Exchange {
	return scram.MockExchange(user, s.mockSecret)
}

// admitClient counts a connection past its startup packet against
// MaxConnections; false when the server is full.
func (s *Server) admitClient(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.MaxConnections > 0 && s.clients >= s.cfg.MaxConnections {
		return false
	}
	s.clients++
	c.counted = true
	return true
}

func tooManyClients() *pgerr.Error {
	return fatalError(pgerr.TooManyConnections, "sorry, too many clients already")
}
