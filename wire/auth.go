package wire

import (
	"context"
	"fmt"
	"net"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/auth/scram"
	"github.com/loamdb/loam/pgerr"
)

// login decides the connection's method from the hba rules, runs it, and
// checks the role may log in, as PostgreSQL's ClientAuthentication and
// InitializeSessionUserId do. It does not send AuthenticationOk; startup
// does once the session exists. The method is returned for the login
// report even when authentication fails.
func (c *conn) login(user, db string) (AuthMethod, error) {
	ctx, cancel := context.WithTimeout(c.ctx, c.srv.cfg.AuthTimeout)
	defer cancel()
	var members []string
	var memberErr error
	looked := false
	memberOf := func() []string {
		if !looked {
			looked = true
			members, memberErr = c.srv.roles.MemberOf(ctx, user)
		}
		return members
	}
	line, ok := c.srv.hba.match(hbaConn{ssl: c.tls, database: db, user: user, ip: c.remoteIP(), memberOf: memberOf})
	if memberErr != nil {
		c.log.Error("looking up the login role's memberships", "user", user, "err", memberErr)
		return "", fatalError(pgerr.InternalError, "could not look up role %q", user)
	}
	if !ok {
		return "", fatalError(pgerr.InvalidAuthorizationSpec,
			"no pg_hba.conf entry for host %q, user %q, database %q, %s", c.hostString(), user, db, c.encryption())
	}
	if line.Method == AuthReject {
		return AuthReject, fatalError(pgerr.InvalidAuthorizationSpec,
			"pg_hba.conf rejects connection for host %q, user %q, database %q, %s", c.hostString(), user, db, c.encryption())
	}
	role, err := c.srv.roles.LoginRole(ctx, user)
	if err != nil {
		c.log.Error("looking up the login role", "user", user, "err", err)
		return line.Method, fatalError(pgerr.InternalError, "could not look up role %q", user)
	}
	// Why a password method fails goes to the log, never to the client
	// (PostgreSQL's DETAIL in the server log): the client learns nothing
	// about which roles exist.
	var why string
	var v *scram.Verifier
	switch {
	case !role.Exists:
		why = fmt.Sprintf("Role %q does not exist.", user)
	case role.Verifier == "":
		why = fmt.Sprintf("User %q has no password assigned.", user)
	case !role.ValidUntil.IsZero() && c.srv.now().After(role.ValidUntil):
		why = fmt.Sprintf("User %q has an expired password.", user)
	default:
		if v, err = scram.Parse(role.Verifier); err != nil {
			why = fmt.Sprintf("User %q has a password that cannot be used for SCRAM authentication: %v.", user, err)
		}
	}
	switch line.Method {
	case AuthTrust:
		if !role.Exists {
			return line.Method, fatalError(pgerr.InvalidAuthorizationSpec, "role %q does not exist", user)
		}
	case AuthSCRAM:
		if err := c.authSCRAM(user, v, why); err != nil {
			return line.Method, err
		}
	case AuthPassword:
		if err := c.authCleartext(user, v, why); err != nil {
			return line.Method, err
		}
	default:
		return line.Method, fatalError(pgerr.InternalError, "unknown authentication method %q", line.Method)
	}
	if !role.Login {
		return line.Method, fatalError(pgerr.InvalidAuthorizationSpec, "role %q is not permitted to log in", user)
	}
	return line.Method, nil
}

// remoteIP is the client's address, nil when it has none (a pipe).
func (c *conn) remoteIP() net.IP {
	if a, ok := c.nc.RemoteAddr().(*net.TCPAddr); ok {
		if v4 := a.IP.To4(); v4 != nil {
			return v4
		}
		return a.IP
	}
	return nil
}

func (c *conn) hostString() string {
	if ip := c.remoteIP(); ip != nil {
		return ip.String()
	}
	return "[local]"
}

func (c *conn) encryption() string {
	if c.tls {
		return "SSL encryption"
	}
	return "no encryption"
}

func authFailed(user string) *pgerr.Error {
	return fatalError(pgerr.InvalidPassword, "password authentication failed for user %q", user)
}

// readPasswordMessage reads the next 'p' message (PasswordMessage,
// SASLInitialResponse and SASLResponse all use it).
func (c *conn) readPasswordMessage() ([]byte, error) {
	if err := c.flush(); err != nil {
		return nil, err
	}
	typ, body, err := c.rd.readMessage()
	if err != nil {
		return nil, err
	}
	if typ != 'p' {
		return nil, protocolViolation("expected password response, got message type %d", typ)
	}
	return body, nil
}

// authCleartext asks for the password in the clear and checks it against
// the verifier. v is nil when the role cannot log in with a password (why
// says what to log); the password is still asked for, as PostgreSQL does.
func (c *conn) authCleartext(user string, v *scram.Verifier, why string) error {
	c.send(&pgproto3.AuthenticationCleartextPassword{})
	body, err := c.readPasswordMessage()
	if err != nil {
		return err
	}
	var msg pgproto3.PasswordMessage
	if err := msg.Decode(body); err != nil {
		return protocolViolation("invalid password packet")
	}
	if v == nil || !v.VerifyPassword(msg.Password) {
		if why == "" {
			why = fmt.Sprintf("Password does not match for user %q.", user)
		}
		c.authWhy = why
		return authFailed(user)
	}
	return nil
}
