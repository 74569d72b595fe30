package engine

import (
	"context"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/plan"
)

// checkAccess checks the privileges a plan needs (plan.Access) before it
// runs: the current role's on what the statement names, with USAGE on
// their schemas, and each view owner's on what its view reads.
func (s *Session) checkAccess(ctx context.Context, access []plan.Access) error {
	if len(access) == 0 {
		return nil
	}
	ctx = meta.WithAuthzScope(ctx)
	me, err := s.principal(ctx)
	if err != nil || me.Superuser {
		return err
	}
	owners := map[meta.Object]meta.Principal{}
	schemas := map[string]bool{}
	for _, a := range access {
		p := me
		if a.ViaView != "" {
			view := tableObject(a.ViaSchema, a.ViaView)
			var ok bool
			if p, ok = owners[view]; !ok {
				if p, err = s.ownerPrincipal(ctx, view); err != nil {
					return err
				}
				owners[view] = p
			}
		} else if !schemas[a.Schema] {
			schemas[a.Schema] = true
			if err := s.require(ctx, "USAGE", schemaObject(a.Schema)); err != nil {
				return pgerr.From(err).WithPosition(a.Pos)
			}
		}
		obj := tableObject(a.Schema, a.Name)
		if a.Sequence {
			obj.Kind = meta.KindSequence
		}
		ok, err := s.eng.authz.Allowed(ctx, p, a.Privilege, obj)
		if err != nil {
			return err
		}
		if !ok {
			if a.View {
				return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for view %s", a.Name)
			}
			return denied(obj)
		}
	}
	return nil
}

// ownerPrincipal is obj's owner as a principal.
func (s *Session) ownerPrincipal(ctx context.Context, obj meta.Object) (meta.Principal, error) {
	snap, err := s.eng.roles.Snapshot(ctx)
	if err != nil {
		return meta.Principal{}, err
	}
	owner := snap.OwnerOf(obj)
	r, _ := snap.Role(owner) // a dropped owner holds nothing
	return meta.Principal{Name: owner, Superuser: r.Superuser}, nil
}

// UseSchema is USAGE on a schema a statement names (plan.SchemaUser).
// The emulated catalogs' schemas are everyone's; a schema that does not
// exist is left to the lookup's own error.
func (c *catalog) UseSchema(ctx context.Context, ns string) error { return c.s.useSchema(ctx, ns) }

func (s *Session) useSchema(ctx context.Context, ns string) error {
	switch ns {
	case "pg_catalog", "information_schema":
		return nil
	}
	p, err := s.principal(ctx)
	if err != nil || p.Superuser {
		return err
	}
	if ok, err := s.namespaceExists(ctx, ns); err != nil || !ok {
		return err
	}
	return s.require(ctx, "USAGE", schemaObject(ns))
}

// rolePrincipal is the role name as a principal.
func (s *Session) rolePrincipal(ctx context.Context, name string) (meta.Principal, error) {
	r, err := s.roleNamed(ctx, name)
	if err != nil {
		return meta.Principal{}, err
	}
	return meta.Principal{Name: r.Name, Superuser: r.Superuser}, nil
}
