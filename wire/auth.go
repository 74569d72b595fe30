package wire

import (
	"crypto/sha256"
	"crypto/subtle"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/pgerr"
)

// authenticate runs the configured authentication exchange. It does not
// send AuthenticationOk; startup does once the session exists.
func (c *conn) authenticate(user string) error {
	switch c.srv.cfg.AuthMethod {
	case AuthPassword:
		return c.authCleartext(user)
	case AuthSCRAM:
		return c.authSCRAM(user)
	}
	return nil
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

func (c *conn) authCleartext(user string) error {
	c.send(&pgproto3.AuthenticationCleartextPassword{})
	body, err := c.readPasswordMessage()
	if err != nil {
		return err
	}
	var msg pgproto3.PasswordMessage
	if err := msg.Decode(body); err != nil {
		return protocolViolation("invalid password packet")
	}
	got := sha256.Sum256([]byte(msg.Password))
	want := sha256.Sum256([]byte(c.srv.cfg.Password))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		c.log.Info("password authentication failed", "user", user, "method", "password")
		return authFailed(user)
	}
	return nil
}
