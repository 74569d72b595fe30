package engine

import (
	"context"
	"fmt"
	"sort"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// REASSIGN OWNED and DROP OWNED, what one runs before DROP ROLE of a role
// that owns objects or holds privileges.

// ownedRoles resolves the roles of REASSIGN/DROP OWNED BY and checks
// that the current role has their privileges (PostgreSQL's
// has_privs_of_role), else fails with msg.
func (s *Session) ownedRoles(ctx context.Context, specs []*pg.Node, msg string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, n := range specs {
		name := s.roleSpecName(n.GetRoleSpec())
		if _, err := s.roleNamed(ctx, name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	for name := range out {
		if err := s.requirePrivsOf(ctx, name, msg); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// requirePrivsOf fails with 42501 msg unless the current role is a
// superuser or has role's privileges.
func (s *Session) requirePrivsOf(ctx context.Context, role, msg string) error {
	p, err := s.principal(ctx)
	if err != nil || p.Superuser {
		return err
	}
	roles, err := meta.EffectiveRoles(ctx, s.eng.meta, p.Name)
	if err != nil {
		return err
	}
	if !roles[role] {
		return pgerr.New(pgerr.InsufficientPrivilege, "%s", msg)
	}
	return nil
}

// reassignOwned is REASSIGN OWNED BY old, … TO new: everything the old
// roles own becomes new's.
func (s *Session) reassignOwned(ctx context.Context, rs *pg.ReassignOwnedStmt) (*Cursor, error) {
	const msg = "permission denied to reassign objects"
	from, err := s.ownedRoles(ctx, rs.Roles, msg)
	if err != nil {
		return nil, err
	}
	to := s.roleSpecName(rs.Newrole)
	if _, err := s.roleNamed(ctx, to); err != nil {
		return nil, err
	}
	if err := s.requirePrivsOf(ctx, to, msg); err != nil {
		return nil, err
	}
	owners, err := s.eng.meta.Owners(ctx)
	if err != nil {
		return nil, err
	}
	for obj, owner := range owners {
		if !from[owner] {
			continue
		}
		if err := s.eng.meta.SetOwner(ctx, obj, to); err != nil {
			return nil, err
		}
		obj, old := obj, owner
		s.onRollback(func(ctx context.Context) error { return s.eng.meta.SetOwner(ctx, obj, old) })
	}
	return s.refreshed(ctx, "REASSIGN OWNED")
}

// dropOwned is DROP OWNED BY role, … [CASCADE]: the privileges granted
// to the roles are revoked and the objects they own dropped, views
// first and schemas last, each as its own DROP would.
func (s *Session) dropOwned(ctx context.Context, ds *pg.DropOwnedStmt) (*Cursor, error) {
	roles, err := s.ownedRoles(ctx, ds.Roles, "permission denied to drop objects")
	if err != nil {
		return nil, err
	}
	grants, err := s.eng.meta.Grants(ctx, nil)
	if err != nil {
		return nil, err
	}
	for _, g := range grants {
		if roles[g.Grantee] {
			if err := s.applyGrant(ctx, meta.Grant{Grantee: g.Grantee, Privilege: g.Privilege, Object: g.Object}, false); err != nil {
				return nil, err
			}
		}
	}
	defs, err := s.eng.meta.DefaultPrivileges(ctx)
	if err != nil {
		return nil, err
	}
	for _, d := range defs {
		if roles[d.Owner] || roles[d.Grantee] {
			if err := s.eng.meta.SetDefaultPrivilege(ctx, d, false); err != nil {
				return nil, err
			}
			d := d
			s.onRollback(func(ctx context.Context) error { return s.eng.meta.SetDefaultPrivilege(ctx, d, true) })
		}
	}
	owners, err := s.eng.meta.Owners(ctx)
	if err != nil {
		return nil, err
	}
	type drop struct {
		rank int
		sql  string
	}
	var drops []drop
	for obj, owner := range owners {
		if !roles[owner] {
			continue
		}
		switch obj.Kind {
		case meta.KindSchema:
			drops = append(drops, drop{3, "DROP SCHEMA IF EXISTS " + expr.QuoteIdent(obj.Name)})
		case meta.KindTable, meta.KindSequence:
			_, kind, ok := s.resolveRelation(ctx, &pg.RangeVar{Schemaname: obj.Schema, Relname: obj.Name})
			if !ok {
				continue
			}
			rank := map[string]int{"view": 0, "table": 1, "sequence": 2}[kind]
			drops = append(drops, drop{rank, fmt.Sprintf("DROP %s IF EXISTS %s.%s", kind, expr.QuoteIdent(obj.Schema), expr.QuoteIdent(obj.Name))})
		}
	}
	sort.Slice(drops, func(i, j int) bool {
		if drops[i].rank != drops[j].rank {
			return drops[i].rank < drops[j].rank
		}
		return drops[i].sql < drops[j].sql
	})
	for _, d := range drops {
		q := d.sql
		if ds.Behavior == pg.DropBehavior_DROP_CASCADE {
			q += " CASCADE"
		}
		if err := s.runInternal(ctx, q); err != nil {
			return nil, err
		}
	}
	return s.refreshed(ctx, "DROP OWNED")
}

// runInternal runs one statement of Loam's own making as this session's.
func (s *Session) runInternal(ctx context.Context, q string) error {
	sts, err := s.PrepareSimple(ctx, q)
	if err != nil {
		return err
	}
	for _, st := range sts {
		c, err := s.execute(ctx, st, nil)
		if err != nil {
			return err
		}
		c.Close()
	}
	return nil
}
