package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/loamdb/loam/meta"
)

// What the emulated catalogs read of roles and privileges
// (plan.CatalogInfo): the metastore's records, and the authorizer's
// answers, so that has_table_privilege and friends say what enforcement
// does.

// CurrentRole is the role whose privileges the statement uses
// (current_user, after SET ROLE).
func (c *catalog) CurrentRole() string { return c.s.currentRole() }

// SessionUser is session_user (after SET SESSION AUTHORIZATION).
func (c *catalog) SessionUser() string { return c.s.sessionUser() }

func (c *catalog) Roles(ctx context.Context) ([]meta.Role, error) { return c.e.meta.ListRoles(ctx) }

func (c *catalog) Memberships(ctx context.Context) ([]meta.Membership, error) {
	return c.e.meta.Memberships(ctx)
}

func (c *catalog) Grants(ctx context.Context) ([]meta.Grant, error) { return c.e.meta.Grants(ctx, nil) }

func (c *catalog) Owners(ctx context.Context) (map[meta.Object]string, error) {
	return c.e.meta.Owners(ctx)
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
// inherits its privileges) or a grantee WITH GRANT OPTION has it.
func (c *catalog) Allowed(ctx context.Context, role, priv string, obj meta.Object, grantOption bool) (bool, error) {
	p := meta.Principal{Name: role}
	if role != meta.PublicRole {
		r, err := c.e.meta.Role(ctx, role)
		if errors.Is(err, meta.ErrNotFound) {
			return false, nil // dropped since: holds nothing
		}
		if err != nil {
			return false, fmt.Errorf("privilege check: %w", err)
		}
		p.Superuser = r.Superuser
	}
	if !grantOption {
		return c.e.authz.Allowed(ctx, p, priv, obj)
	}
	if p.Superuser {
		return true, nil
	}
	roles := map[string]bool{role: true}
	if role != meta.PublicRole {
		var err error
		if roles, err = meta.EffectiveRoles(ctx, c.e.meta, role); err != nil {
			return false, err
		}
		owner, err := meta.OwnerOf(ctx, c.e.meta, obj)
		if err != nil {
			return false, err
		}
		if roles[owner] {
			return true, nil
		}
	}
	grants, err := c.e.meta.Grants(ctx, &obj)
	if err != nil {
		return false, err
	}
	for _, g := range grants {
		if g.Privilege == priv && g.GrantOption && (roles[g.Grantee] || g.Grantee == meta.PublicRole) {
			return true, nil
		}
	}
	return false, nil
}
