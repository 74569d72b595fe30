package meta

import (
	"context"
	"errors"
	"fmt"
)

// Principal is who asks: a role, and whether it is a superuser (known
// from its Role at the time of the check).
type Principal struct {
	Name      string
	Superuser bool
}

// Authorizer decides every privilege check: SQL statements at planning
// and the REST catalog's requests. The built-in one (NewAuthorizer)
// reads the Store's roles, memberships, owners and privileges on each
// check, so a REVOKE holds from the next statement of every session on
// every server; meta/openfga keeps the same facts as OpenFGA
// relationships. The Store stays the record either way: GRANT and REVOKE
// write it, then call Refresh.
type Authorizer interface {
	// Allowed reports whether p holds priv on obj: as a superuser, as the
	// owner, through a grant to it, to PUBLIC, or to a role it inherits.
	Allowed(ctx context.Context, p Principal, priv string, obj Object) (bool, error)
	// Refresh is called after roles, memberships, owners or privileges
	// changed in the Store.
	Refresh(ctx context.Context) error
}

// NewAuthorizer is the built-in Authorizer over st: it decides from an
// AuthzSnapshot, current as of each statement.
func NewAuthorizer(st Store) Authorizer { return storeAuthorizer{NewAuthzCache(st)} }

// NewCachedAuthorizer is the built-in Authorizer over a cache its caller
// reads too, so a statement reads the version once for both.
func NewCachedAuthorizer(c *AuthzCache) Authorizer { return storeAuthorizer{c} }

type storeAuthorizer struct{ c *AuthzCache }

func (a storeAuthorizer) Refresh(context.Context) error { return nil }

func (a storeAuthorizer) Allowed(ctx context.Context, p Principal, priv string, obj Object) (bool, error) {
	if p.Superuser {
		return true, nil
	}
	snap, err := a.c.Snapshot(ctx)
	if err != nil {
		return false, err
	}
	return snap.Allowed(p, priv, obj), nil
}

// OwnerOf is obj's owner: the recorded one, else the bootstrap role.
func OwnerOf(ctx context.Context, st Store, obj Object) (string, error) {
	owner, err := st.Owner(ctx, obj)
	if errors.Is(err, ErrNotFound) {
		return BootstrapRole, nil
	}
	return owner, err
}

// EffectiveRoles is the set of roles whose privileges name uses: itself
// and, while each member along the way inherits, the roles it is a member
// of, transitively.
func EffectiveRoles(ctx context.Context, st Store, name string) (map[string]bool, error) {
	members, err := st.Memberships(ctx)
	if err != nil {
		return nil, fmt.Errorf("meta: roles of %q: %w", name, err)
	}
	out := map[string]bool{name: true}
	if len(members) == 0 {
		return out, nil
	}
	roles, err := st.ListRoles(ctx)
	if err != nil {
		return nil, fmt.Errorf("meta: roles of %q: %w", name, err)
	}
	inherits := map[string]bool{}
	for _, r := range roles {
		inherits[r.Name] = r.Inherit
	}
	for queue := []string{name}; len(queue) > 0; {
		m := queue[0]
		queue = queue[1:]
		if !inherits[m] {
			continue
		}
		for _, ms := range members {
			if ms.Member == m && !out[ms.Role] {
				out[ms.Role] = true
				queue = append(queue, ms.Role)
			}
		}
	}
	return out, nil
}
