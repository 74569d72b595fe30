package wire

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/loamdb/loam/auth/scram"
)

// authSCRAM runs SCRAM-SHA-256 (auth/scram has the exchange). v is nil
// when the role cannot log in with a password (why says what to log):
// then a mock exchange runs, as PostgreSQL does, so a client cannot tell
// such a role from one with a password it got wrong.
func (c *conn) authSCRAM(user string, v *scram.Verifier, why string) error {
	ex := c.srv.mockExchange(user)
	if v != nil {
		ex = scram.NewExchange(v)
	}
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{scram.Mechanism}})
	body, err := c.readPasswordMessage()
	if err != nil {
		return err
	}
	var first pgproto3.SASLInitialResponse
	if err := first.Decode(body); err != nil {
		return scram.ErrMalformed
	}
	if first.AuthMechanism != scram.Mechanism {
		return protocolViolation("client selected an invalid SASL authentication mechanism")
	}
	serverFirst, err := ex.ServerFirst(string(first.Data))
	if err != nil {
		return err
	}
	c.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})

	body, err = c.readPasswordMessage()
	if err != nil {
		return err
	}
	var final pgproto3.SASLResponse
	if err := final.Decode(body); err != nil {
		return scram.ErrMalformed
	}
	serverFinal, ok, err := ex.ServerFinal(string(final.Data))
	if err != nil {
		return err
	}
	if !ok {
		if why == "" {
			why = fmt.Sprintf("Password does not match for user %q.", user)
		}
		c.authWhy = why
		return authFailed(user)
	}
	c.send(&pgproto3.AuthenticationSASLFinal{Data: []byte(serverFinal)})
	return nil
}
