package engine

import (
	"context"
	"errors"
	"strings"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
)

// Who may do what. Every check goes through the engine's meta.Authorizer
// and reads the metastore as the statement runs, so a REVOKE holds from
// the next statement of every open session, on every server.

// currentRole is current_user: the role SET ROLE chose, else the
// session's user.
func (s *Session) currentRole() string {
	if r := s.settings["role"]; r != "" && r != "none" {
		return r
	}
	return s.sessionUser()
}

// sessionUser is session_user: the user who logged in, or the one SET
// SESSION AUTHORIZATION chose.
func (s *Session) sessionUser() string {
	if u := s.settings["session_authorization"]; u != "" {
		return u
	}
	return s.user
}

// principalRole is the current role as the metastore has it now. A role
// dropped while its session is open has no attributes left.
func (s *Session) principalRole(ctx context.Context) (meta.Role, error) {
	name := s.currentRole()
	snap, err := s.eng.roles.Snapshot(ctx)
	if err != nil {
		return meta.Role{}, err
	}
	if r, ok := snap.Role(name); ok {
		return r, nil
	}
	return meta.Role{Name: name}, nil
}

func (s *Session) principal(ctx context.Context) (meta.Principal, error) {
	r, err := s.principalRole(ctx)
	if err != nil {
		return meta.Principal{}, err
	}
	return meta.Principal{Name: r.Name, Superuser: r.Superuser}, nil
}

// allowed asks the authorizer whether the current role holds priv on obj.
func (s *Session) allowed(ctx context.Context, priv string, obj meta.Object) (bool, error) {
	p, err := s.principal(ctx)
	if err != nil {
		return false, err
	}
	return s.eng.authz.Allowed(ctx, p, priv, obj)
}

// require fails with PostgreSQL's 42501 unless the current role holds
// priv on obj.
func (s *Session) require(ctx context.Context, priv string, obj meta.Object) error {
	ok, err := s.allowed(ctx, priv, obj)
	if err != nil || ok {
		return err
	}
	return denied(obj)
}

// denied is PostgreSQL's "permission denied for table t".
func denied(obj meta.Object) error {
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for %s %s", aclKindName(obj), obj.Name)
}

// aclKindName is the object kind as PostgreSQL's aclcheck messages name
// it.
func aclKindName(obj meta.Object) string {
	if obj.Kind == meta.KindTable && obj.Schema != "" {
		return "table"
	}
	return obj.Kind
}

// requireOwner fails with 42501 "must be owner of …" unless the current
// role is a superuser or a member (inheriting) of obj's owner.
func (s *Session) requireOwner(ctx context.Context, obj meta.Object, kindWord string) error {
	ok, err := s.owns(ctx, obj)
	if err != nil || ok {
		return err
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of %s %s", kindWord, obj.Name)
}

// owns reports whether the current role may act as obj's owner.
func (s *Session) owns(ctx context.Context, obj meta.Object) (bool, error) {
	return s.allowed(ctx, meta.OwnerPrivilege, obj)
}

// tableObject is the privilege object of a table, view or sequence.
func tableObject(ns, name string) meta.Object {
	return meta.Object{Kind: meta.KindTable, Schema: ns, Name: name}
}

func schemaObject(ns string) meta.Object {
	return meta.Object{Kind: meta.KindSchema, Name: ns}
}

// created records the current role as the owner of a new object and
// gives it the default privileges its owner set (ALTER DEFAULT
// PRIVILEGES); both go again if the transaction rolls back.
func (s *Session) created(ctx context.Context, obj meta.Object) error {
	owner := s.currentRole()
	if err := s.eng.meta.SetOwner(ctx, obj, owner); err != nil {
		return err
	}
	s.onRollback(func(ctx context.Context) error { return s.eng.meta.ForgetObject(ctx, obj) })
	defs, err := s.eng.meta.DefaultPrivileges(ctx)
	if err != nil {
		return err
	}
	kind := obj.Kind
	for _, d := range defs {
		if d.Owner != owner || d.Kind != kind || (d.Schema != "" && d.Schema != obj.Schema) {
			continue
		}
		g := meta.Grant{Grantee: d.Grantee, Privilege: d.Privilege, Object: obj, Grantor: owner, GrantOption: d.GrantOption}
		if err := s.eng.meta.Grant(ctx, g); err != nil && !errors.Is(err, meta.ErrNotFound) {
			return err
		}
	}
	return s.eng.authz.Refresh(ctx)
}

// forgotten drops a dropped object's owner and privileges; a rollback
// of the DROP puts them back.
func (s *Session) forgotten(ctx context.Context, obj meta.Object) error {
	owner, err := s.eng.meta.Owner(ctx, obj)
	if err != nil && !errors.Is(err, meta.ErrNotFound) {
		return err
	}
	grants, err := s.eng.meta.Grants(ctx, &obj)
	if err != nil {
		return err
	}
	if err := s.eng.meta.ForgetObject(ctx, obj); err != nil {
		return err
	}
	s.onRollback(func(ctx context.Context) error {
		if owner != "" {
			if err := s.eng.meta.SetOwner(ctx, obj, owner); err != nil {
				return err
			}
		}
		for _, g := range grants {
			if err := s.eng.meta.Grant(ctx, g); err != nil {
				return err
			}
		}
		return nil
	})
	return s.eng.authz.Refresh(ctx)
}

// moved carries a renamed object's owner and privileges to its new name.
func (s *Session) moved(ctx context.Context, from, to meta.Object) error {
	if err := s.eng.meta.MoveObject(ctx, from, to); err != nil {
		return err
	}
	s.onRollback(func(ctx context.Context) error { return s.eng.meta.MoveObject(ctx, to, from) })
	return s.eng.authz.Refresh(ctx)
}

// requireSuperuser is the check of statements only superusers run.
func (s *Session) requireSuperuser(ctx context.Context, msg string) error {
	p, err := s.principal(ctx)
	if err != nil || p.Superuser {
		return err
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "%s", msg)
}

// requireCreateSchema is CREATE SCHEMA's check: CREATE on the database,
// which superusers hold, or a grant (CREATEDB is about databases, as in
// PostgreSQL).
func (s *Session) requireCreateSchema(ctx context.Context) error {
	r, err := s.principalRole(ctx)
	if err != nil || r.Superuser {
		return err
	}
	ok, err := s.allowed(ctx, "CREATE", meta.Object{Kind: meta.KindDatabase, Name: s.database})
	if err != nil || ok {
		return err
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for database %s", s.database)
}

// privilegeWords are the privileges each kind of object takes, in
// PostgreSQL's order; ALL means these.
var privilegeWords = map[string][]string{
	meta.KindTable:    {"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"},
	meta.KindSequence: {"USAGE", "SELECT", "UPDATE"},
	meta.KindSchema:   {"USAGE", "CREATE"},
	meta.KindDatabase: {"CREATE", "CONNECT", "TEMPORARY"},
}

func validPrivilege(kind, priv string) bool {
	for _, p := range privilegeWords[kind] {
		if p == priv {
			return true
		}
	}
	return false
}

// privilegeName is the privilege as GRANT spells it.
func privilegeName(p string) string {
	p = strings.ToUpper(p)
	if p == "TEMP" {
		return "TEMPORARY"
	}
	return p
}
