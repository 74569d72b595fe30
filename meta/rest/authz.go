package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/loamdb/loam/meta"
)

// Who may do what through the catalog: every request acts as a role (its
// token's, or the bootstrap superuser's for a trusted client) and is
// checked through the same meta.Authorizer as SQL, with PostgreSQL's
// rules for the statement it stands for:
//
//   - namespaces are listed and loaded by every role (PostgreSQL shows
//     every schema in pg_namespace); creating one needs CREATE on the
//     database (superusers and CREATEDB roles hold it), dropping or
//     altering its properties its ownership;
//   - anything in a namespace needs USAGE on it, checked after the
//     namespace is found (a missing one is 404, as PostgreSQL's 3F000
//     comes before its 42501);
//   - listing tables or views shows those the role holds any privilege
//     on, as information_schema.tables does; HEAD answers likewise;
//   - loading a table or view needs SELECT;
//   - a commit needs what its updates do (commitPrivileges): INSERT for
//     an append, DELETE for a delete, UPDATE for an overwrite, a replace
//     or moving refs, and ownership to change the schema, spec, sort
//     order, location or properties (ALTER TABLE);
//   - creating a table or view needs CREATE on the namespace, and the
//     creator owns it; dropping, renaming or replacing needs ownership
//     (and CREATE on the destination namespace to move it there).
//
// Denials are 403 with the error model's ForbiddenException.

const typeForbidden = "ForbiddenException"

type principalKey struct{}

// authenticate finds the role r acts as: its bearer token's, or, for a
// trusted client without one, the bootstrap superuser.
func (s *Server) authenticate(r *http.Request) (meta.Role, error) {
	name := meta.BootstrapRole
	if h := r.Header.Get("Authorization"); h != "" || !s.trusted(r) {
		var err error
		if name, err = s.tokens.check(h); err != nil {
			return meta.Role{}, err
		}
	}
	role, err := s.st.Role(r.Context(), name)
	if errors.Is(err, meta.ErrNotFound) {
		return meta.Role{}, errorf(http.StatusUnauthorized, typeNotAuthorized, "role %q of the bearer token no longer exists", name)
	}
	if err != nil {
		return meta.Role{}, fmt.Errorf("rest: role %q: %w", name, err)
	}
	return role, nil
}

// role is the role the request acts as (authenticate put it there).
func role(r *http.Request) meta.Role {
	role, _ := r.Context().Value(principalKey{}).(meta.Role)
	return role
}

func withRole(r *http.Request, role meta.Role) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), principalKey{}, role))
}

func principal(r *http.Request) meta.Principal {
	ro := role(r)
	return meta.Principal{Name: ro.Name, Superuser: ro.Superuser}
}

func tableObject(ns, name string) meta.Object {
	return meta.Object{Kind: meta.KindTable, Schema: ns, Name: name}
}

func schemaObject(ns string) meta.Object { return meta.Object{Kind: meta.KindSchema, Name: ns} }

// databaseObject is the database: Loam serves one, named as its
// bootstrap role.
var databaseObject = meta.Object{Kind: meta.KindDatabase, Name: "loam"}

// allowed asks the authorizer whether the request's role holds priv on
// obj (OWNER: owns it).
func (s *Server) allowed(r *http.Request, priv string, obj meta.Object) (bool, error) {
	ok, err := s.authz.Allowed(r.Context(), principal(r), priv, obj)
	if err != nil {
		return false, fmt.Errorf("rest: check %s on %s: %w", priv, obj, err)
	}
	return ok, nil
}

// require is 403 unless the request's role holds every priv on obj.
func (s *Server) require(r *http.Request, obj meta.Object, privs ...string) error {
	for _, priv := range privs {
		ok, err := s.allowed(r, priv, obj)
		if err != nil {
			return err
		}
		if !ok {
			return forbidden(r, priv, obj)
		}
	}
	return nil
}

// forbidden is PostgreSQL's message for a denied privilege.
func forbidden(r *http.Request, priv string, obj meta.Object) *apiError {
	what := obj.Kind + " " + obj.Name
	if obj.Schema != "" {
		what = obj.Kind + " " + obj.Schema + "." + obj.Name
	}
	if priv == meta.OwnerPrivilege {
		return errorf(http.StatusForbidden, typeForbidden, "role %q must be owner of %s", role(r).Name, what)
	}
	return errorf(http.StatusForbidden, typeForbidden, "permission denied for %s: role %q lacks %s", what, role(r).Name, priv)
}

// requireUsage is the namespace part of every request inside one: 404
// when it does not exist, else USAGE.
func (s *Server) requireUsage(r *http.Request, ns string) error {
	if _, err := s.st.NamespaceProperties(r.Context(), ns); err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	return s.require(r, schemaObject(ns), "USAGE")
}

// requireTable is USAGE on ns, then ns.name must exist (a table, or a
// view when view is set), then privs on it.
func (s *Server) requireTable(r *http.Request, ns, name string, view bool, privs ...string) error {
	if err := s.requireUsage(r, ns); err != nil {
		return err
	}
	if view {
		if _, err := s.st.View(r.Context(), ns, name); err != nil {
			return storeError(err, typeNoSuchView)
		}
	} else if _, err := s.st.TablePointer(r.Context(), ns, name); err != nil {
		return storeError(err, typeNoSuchTable)
	}
	return s.require(r, tableObject(ns, name), privs...)
}

// requireVisible is HEAD's check: USAGE on ns, ns.name exists, and the
// role holds some privilege on it (as a listing would show it).
func (s *Server) requireVisible(r *http.Request, ns, name string, view bool) error {
	if err := s.requireTable(r, ns, name, view); err != nil {
		return err
	}
	vis, err := s.visible(r, ns, []string{name})
	if err != nil {
		return err
	}
	if len(vis) == 0 {
		return forbidden(r, "any privilege", tableObject(ns, name))
	}
	return nil
}

// requireMove is the destination's check of a rename: CREATE on it when
// the object changes namespace (ALTER … SET SCHEMA), after it is found.
func (s *Server) requireMove(r *http.Request, from, to string) error {
	if _, err := s.st.NamespaceProperties(r.Context(), to); err != nil {
		return storeError(err, typeNoSuchNamespace)
	}
	if from == to {
		return nil
	}
	return s.require(r, schemaObject(to), "CREATE")
}

// visiblePrivileges are the privileges any one of which shows a table in
// a listing (information_schema.tables' rule), ownership last.
var visiblePrivileges = []string{"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER", meta.OwnerPrivilege}

// visible filters names in ns to those the request's role may see.
func (s *Server) visible(r *http.Request, ns string, names []string) ([]string, error) {
	if role(r).Superuser {
		return names, nil
	}
	out := names[:0:0]
	for _, n := range names {
		for _, priv := range visiblePrivileges {
			ok, err := s.allowed(r, priv, tableObject(ns, n))
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, n)
				break
			}
		}
	}
	return out, nil
}

// requireCreateNamespace is CREATE SCHEMA's check: CREATE on the
// database, which superusers and CREATEDB roles hold, or a grant.
func (s *Server) requireCreateNamespace(r *http.Request) error {
	if ro := role(r); ro.Superuser || ro.CreateDB {
		return nil
	}
	ok, err := s.allowed(r, "CREATE", databaseObject)
	if err != nil || ok {
		return err
	}
	return errorf(http.StatusForbidden, typeForbidden, "permission denied for database %s: role %q may not create namespaces", databaseObject.Name, role(r).Name)
}

// created records the request's role as the owner of a new object, with
// the default privileges its owner set (ALTER DEFAULT PRIVILEGES), as
// CREATE does in SQL, then refreshes the authorizer.
func (s *Server) created(r *http.Request, obj meta.Object) error {
	ctx := context.WithoutCancel(r.Context()) // the object exists: record its owner regardless
	owner := role(r).Name
	if err := s.st.SetOwner(ctx, obj, owner); err != nil {
		return err
	}
	defs, err := s.st.DefaultPrivileges(ctx)
	if err != nil {
		return err
	}
	for _, d := range defs {
		if d.Owner != owner || d.Kind != obj.Kind || (d.Schema != "" && d.Schema != obj.Schema) {
			continue
		}
		g := meta.Grant{Grantee: d.Grantee, Privilege: d.Privilege, Object: obj, Grantor: owner, GrantOption: d.GrantOption}
		if err := s.st.Grant(ctx, g); err != nil && !errors.Is(err, meta.ErrNotFound) {
			return err
		}
	}
	return s.authz.Refresh(ctx)
}

// forgotten drops a dropped object's owner and privileges, so a new
// object of the same name starts clean.
func (s *Server) forgotten(r *http.Request, obj meta.Object) error {
	ctx := context.WithoutCancel(r.Context())
	if err := s.st.ForgetObject(ctx, obj); err != nil {
		return err
	}
	return s.authz.Refresh(ctx)
}

// moved carries a renamed object's owner and privileges to its new name.
func (s *Server) moved(r *http.Request, from, to meta.Object) error {
	ctx := context.WithoutCancel(r.Context())
	if err := s.st.MoveObject(ctx, from, to); err != nil {
		return err
	}
	return s.authz.Refresh(ctx)
}
