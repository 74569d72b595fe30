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
