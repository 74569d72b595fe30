package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/loamdb/loam/auth/scram"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/wire"
)

// metaRoles is wire's view of the metastore's roles.
type metaRoles struct{ st meta.Store }

func (m metaRoles) LoginRole(ctx context.Context, name string) (wire.LoginRole, error) {
	r, err := m.st.Role(ctx, name)
	if errors.Is(err, meta.ErrNotFound) {
		return wire.LoginRole{}, nil
	}
	if err != nil {
		return wire.LoginRole{}, err
	}
	return wire.LoginRole{Exists: true, Login: r.Login,
		Verifier: r.Password, ValidUntil: r.ValidUntil}, nil
}

// MemberOf follows the memberships up from name: every role it belongs to,
// directly or through another (an hba line's +role).
func (m metaRoles) MemberOf(ctx context.Context, name string) ([]string, error) {
	ms, err := m.st.Memberships(ctx)
	if err != nil {
		return nil, err
	}
	up := map[string][]string{}
	for _, x := range ms {
		up[x.Member] = append(up[x.Member], x.Role)
	}
	seen := map[string]bool{name: true}
	var out []string
	for todo := []string{name}; len(todo) > 0; {
		r := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, g := range up[r] {
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
				todo = append(todo, g)
			}
		}
	}
	return out, nil
}

// bootstrapRole makes sure the loam superuser exists and, when password
// is set, that its verifier is that password's. The verifier is rewritten
// only when the password no longer verifies, so restarts with the same
// --password leave the role as it is.
func bootstrapRole(ctx context.Context, st meta.Store, password string, log *slog.Logger) error {
	r, err := st.Role(ctx, meta.BootstrapRole)
	if errors.Is(err, meta.ErrNotFound) {
		r = meta.Role{Name: meta.BootstrapRole, Superuser: true, Login: true, Inherit: true, CreateRole: true, CreateDB: true}
		if err := st.CreateRole(ctx, r); err != nil && !errors.Is(err, meta.ErrExists) {
			return fmt.Errorf("creating the %s superuser: %w", meta.BootstrapRole, err)
		}
		log.Info("created the superuser", "role", meta.BootstrapRole)
	} else if err != nil {
		return fmt.Errorf("looking up the %s superuser: %w", meta.BootstrapRole, err)
	}
	if password == "" {
		return nil
	}
	if v, err := scram.Parse(r.Password); err == nil && v.VerifyPassword(password) {
		return nil
	}
	v, err := scram.New(password)
	if err != nil {
		return err
	}
	err = st.AlterRole(ctx, meta.BootstrapRole, func(r meta.Role) (meta.Role, error) {
		r.Password = v.String()
		return r, nil
	})
	if err != nil {
		return fmt.Errorf("setting the %s superuser's password: %w", meta.BootstrapRole, err)
	}
	log.Info("set the superuser's password from --password", "role", meta.BootstrapRole)
	return nil
}

// auditLogin records a login in the audit trail (the wire layer has logged
// it already). A failure to record is logged, not the client's problem.
func auditLogin(st meta.Store, log *slog.Logger) func(wire.LoginEvent) {
	return func(e wire.LoginEvent) {
		kind := meta.AuditLogin
		if !e.OK {
			kind = meta.AuditLoginFailed
		}
		detail := []string{"database=" + e.Database}
		if e.Method != "" {
			detail = append(detail, "method="+string(e.Method))
		}
		if e.SSL {
			detail = append(detail, "ssl")
		}
		if !e.OK {
			detail = append(detail, e.Code+": "+e.Reason)
			if e.Detail != "" {
				detail = append(detail, e.Detail)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := st.AppendAudit(ctx, meta.AuditEvent{Time: time.Now().UTC(), Role: e.User, Address: e.Address,
			Kind: kind, OK: e.OK, Detail: strings.Join(detail, "; ")})
		if err != nil {
			log.Warn("recording a login in the audit trail", "user", e.User, "err", err)
		}
	}
}
