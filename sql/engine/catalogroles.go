package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loamdb/loam/meta"
)

// What the emulated catalogs read of roles and privileges
// (plan.CatalogInfo): the roles, memberships, owners and grants of the
// engine's AuthzCache snapshot (one version read a call, the same facts
// enforcement reads), and the authorizer's answers, so that
// has_table_privilege and friends say what enforcement does.

// CurrentRole is the role whose privileges the statement uses
// (current_user, after SET ROLE).
func (c *catalog) CurrentRole() string { return c.s.currentRole() }

// SessionUser is session_user (after SET SESSION AUTHORIZATION).
func (c *catalog) SessionUser() string { return c.s.sessionUser() }

func (c *catalog) snapshot(ctx context.Context) (*meta.AuthzSnapshot, error) {
	snap, err := c.e.roles.Snapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	return snap, nil
}

// Roles are sorted by name.
func (c *catalog) Roles(ctx context.Context) ([]meta.Role, error) {
	snap, err := c.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]meta.Role, 0, len(snap.Roles))
	for _, r := range snap.Roles {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b meta.Role) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (c *catalog) Memberships(ctx context.Context) ([]meta.Membership, error) {
	snap, err := c.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return snap.Members, nil
}

// Grants are sorted by object, grantee and privilege, as the metastore
// lists them.
func (c *catalog) Grants(ctx context.Context) ([]meta.Grant, error) {
	snap, err := c.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	var out []meta.Grant
	for _, gs := range snap.Grants {
		out = append(out, gs...)
	}
	slices.SortFunc(out, func(a, b meta.Grant) int {
		for _, c := range [][2]string{{a.Object.Kind, b.Object.Kind}, {a.Object.Schema, b.Object.Schema}, {a.Object.Name, b.Object.Name},
			{a.Grantee, b.Grantee}, {a.Privilege, b.Privilege}} {
			if d := strings.Compare(c[0], c[1]); d != 0 {
				return d
			}
		}
		return 0
	})
	return out, nil
}

func (c *catalog) Owners(ctx context.Context) (map[meta.Object]string, error) {
	snap, err := c.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return snap.Owners, nil
}

func (c *catalog) DefaultPrivileges(ctx context.Context) ([]meta.DefaultPrivilege, error) {
	return c.e.meta.DefaultPrivileges(ctx)
}

func (c *catalog) Audit(ctx context.Context) ([]meta.AuditEvent, error) {
	return c.e.meta.Audit(ctx, 0)
}

// Allowed asks the authorizer whether role holds priv on obj. The grant
// option is not the authorizer's to answer (it decides what may be done,
// not what may be granted): a superuser, the owner (or a role that
// inherits its privileges, as the authorizer decides) or a grantee WITH
// GRANT OPTION has it.
func (c *catalog) Allowed(ctx context.Context, role, priv string, obj meta.Object, grantOption bool) (bool, error) {
	snap, err := c.snapshot(ctx)
	if err != nil {
		return false, err
	}
	p := meta.Principal{Name: role}
	roles := map[string]bool{role: true}
	if role != meta.PublicRole {
		r, ok := snap.Role(role)
		if !ok {
			return false, nil // dropped since: holds nothing
		}
		p.Superuser = r.Superuser
		roles = snap.EffectiveRoles(role)
	}
	if !grantOption {
		return c.e.authz.Allowed(ctx, p, priv, obj)
	}
	if p.Superuser {
		return true, nil
	}
	if role != meta.PublicRole {
		if owns, err := c.e.authz.Allowed(ctx, p, meta.OwnerPrivilege, obj); err != nil || owns {
			return owns, err
		}
	}
	for _, g := range snap.Grants[obj] {
		if g.Privilege == priv && g.GrantOption && (roles[g.Grantee] || g.Grantee == meta.PublicRole) {
			return true, nil
		}
	}
	return false, nil
}
