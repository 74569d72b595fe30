package rest

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/loamdb/loam/auth/scram"
	"github.com/loamdb/loam/meta"
)

// errLogin is every refused login, alike whether the role is missing,
// may not log in, or gave a wrong password, as PostgreSQL answers them
// alike.
var errLogin = errors.New("client_id and client_secret must be a role with LOGIN and its password")

// trusted says r needs no credentials: the server has no --password and
// the client is on loopback, as the wire port trusts such clients.
// Nothing off loopback is trusted.
func (s *Server) trusted(r *http.Request) bool {
	if s.opts.Password != "" || s.opts.NoLoopbackTrust {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// login checks a client's credentials and returns the role a token for
// them acts as: id must be a role with LOGIN whose SCRAM verifier takes
// secret, and whose VALID UNTIL has not passed. The bootstrap role with
// no verifier stored takes the server's --password (which is its
// password). A trusted client needs no secret (an empty id is the
// bootstrap role). Successes and failures go to the audit trail.
func (s *Server) login(r *http.Request, id, secret string) (string, error) {
	trusted := s.trusted(r)
	if id == "" && trusted {
		id = meta.BootstrapRole
	}
	ok, err := s.checkLogin(r.Context(), id, secret, trusted)
	if err != nil {
		return "", err
	}
	s.auditLogin(r, id, ok)
	if !ok {
		return "", errLogin
	}
	return id, nil
}

func (s *Server) checkLogin(ctx context.Context, id, secret string, trusted bool) (bool, error) {
	if id == "" {
		return false, nil
	}
	role, err := s.st.Role(ctx, id)
	if errors.Is(err, meta.ErrNotFound) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("rest: login of %q: %w", id, err)
	}
	if !role.Login {
		return false, nil
	}
	if trusted {
		return true, nil
	}
	if !role.ValidUntil.IsZero() && time.Now().After(role.ValidUntil) {
		return false, nil
	}
	if role.Password == "" {
		return role.Name == meta.BootstrapRole && s.opts.Password != "" && equalSecret(secret, s.opts.Password), nil
	}
	v, err := scram.Parse(role.Password)
	if err != nil {
		return false, nil // a verifier Loam cannot read takes no password
	}
	return v.VerifyPassword(secret), nil
}

// auditLogin records a token request's outcome, as the wire records a
// connection's.
func (s *Server) auditLogin(r *http.Request, role string, ok bool) {
	e := meta.AuditEvent{Time: time.Now(), Role: role, Address: r.RemoteAddr, Kind: meta.AuditLogin, OK: ok,
		Detail: "REST catalog token"}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		e.Address = host
	}
	if !ok {
		e.Kind = meta.AuditLoginFailed
		e.Detail = "REST catalog token: " + errLogin.Error()
	}
	s.log.Info("audit", "kind", e.Kind, "role", e.Role, "address", e.Address, "ok", e.OK, "detail", e.Detail)
	if err := s.st.AppendAudit(context.WithoutCancel(r.Context()), e); err != nil {
		s.log.Warn("audit: writing loam_audit failed", "err", err)
	}
}

func equalSecret(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
