package wire

import (
	"context"
	"time"

	"github.com/loamdb/loam/auth/scram"
)

// Roles looks up who may log in. The wire layer asks it during
// authentication and knows nothing of where roles are stored; cmd/loam
// adapts the metastore's roles to it.
type Roles interface {
	// LoginRole returns the role named name. A role that does not exist
	// is LoginRole{} (Exists false) with a nil error; an error is the
	// lookup failing.
	LoginRole(ctx context.Context, name string) (LoginRole, error)
	// MemberOf lists the roles name is a member of, directly or through
	// others (whatever their INHERIT), for an hba line's +role. It is
	// asked only when such a line is reached.
	MemberOf(ctx context.Context, name string) ([]string, error)
}

// LoginRole is what authentication needs of a role.
type LoginRole struct {
	Exists bool
	// Login is the role's LOGIN attribute: without it the role may not
	// start a session (28000), whatever the method.
	Login bool
	// Verifier is the SCRAM-SHA-256 verifier in PostgreSQL's text form
	// (scram.Parse); "" when the role has no password.
	Verifier string
	// ValidUntil is when the password stops working; zero: never.
	ValidUntil time.Time
}

// passwordRoles is the Roles of a server configured with one password
// (Config.Password) and no Roles: every user name exists, may log in, and
// has that password.
type passwordRoles struct{ verifier string }

func newPasswordRoles(password string) (passwordRoles, error) {
	if password == "" {
		return passwordRoles{}, nil
	}
	v, err := scram.New(password)
	if err != nil {
		return passwordRoles{}, err
	}
	return passwordRoles{verifier: v.String()}, nil
}

func (passwordRoles) MemberOf(context.Context, string) ([]string, error) { return nil, nil }

func (p passwordRoles) LoginRole(context.Context, string) (LoginRole, error) {
	return LoginRole{Exists: true, Login: true, Verifier: p.verifier}, nil
}
