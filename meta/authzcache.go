package meta

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// The roles, memberships, owners and privileges are read often (each
// statement's checks) and change rarely, so a server keeps them in memory
// as an AuthzSnapshot and reads only AuthzVersion to know it is current:
// one metastore read a statement, yet a change another server made holds
// from the next statement here.

// authzTx runs fn in a transaction that also moves AuthzVersion on.
func (s *sqlStore) authzTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE loam_authz_version SET version = version + 1 WHERE id = 1")
		return err
	})
}

// authzExec is one statement run by authzTx.
func (s *sqlStore) authzExec(ctx context.Context, q string, args ...any) error {
	return s.authzTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, s.d.rebind(q), args...)
		return err
	})
}

// AuthzVersion is the number authzTx moves on.
func (s *sqlStore) AuthzVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := s.queryRow(ctx, "SELECT version FROM loam_authz_version WHERE id = 1").Scan(&v); err != nil {
		return 0, fmt.Errorf("meta: authorization version: %w", err)
	}
	return v, nil
}

// AuthzSnapshot is every role, membership, owner and privilege at one
// AuthzVersion. It is read-only once made.
type AuthzSnapshot struct {
	Version int64
	Roles   map[string]Role
	Members []Membership
	Owners  map[Object]string
	Grants  map[Object][]Grant

	mu  sync.Mutex
	eff map[string]map[string]bool
}

func loadSnapshot(ctx context.Context, st Store, v int64) (*AuthzSnapshot, error) {
	roles, err := st.ListRoles(ctx)
	if err != nil {
		return nil, err
	}
	members, err := st.Memberships(ctx)
	if err != nil {
		return nil, err
	}
	owners, err := st.Owners(ctx)
	if err != nil {
		return nil, err
	}
	grants, err := st.Grants(ctx, nil)
	if err != nil {
		return nil, err
	}
	snap := &AuthzSnapshot{Version: v, Roles: map[string]Role{}, Members: members, Owners: owners,
		Grants: map[Object][]Grant{}, eff: map[string]map[string]bool{}}
	for _, r := range roles {
		snap.Roles[r.Name] = r
	}
	for _, g := range grants {
		snap.Grants[g.Object] = append(snap.Grants[g.Object], g)
	}
	return snap, nil
}

// Role is the role named name; ok is false when there is none.
func (s *AuthzSnapshot) Role(name string) (Role, bool) {
	r, ok := s.Roles[name]
	return r, ok
}

// OwnerOf is obj's owner: the recorded one, else the bootstrap role.
func (s *AuthzSnapshot) OwnerOf(obj Object) string {
	if o, ok := s.Owners[obj]; ok {
		return o
	}
	return BootstrapRole
}

// EffectiveRoles is the set of roles whose privileges name uses: itself
// and, while each member along the way inherits, the roles it is a member
// of, transitively.
func (s *AuthzSnapshot) EffectiveRoles(name string) map[string]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.eff[name]; ok {
		return e
	}
	out := map[string]bool{name: true}
	for queue := []string{name}; len(queue) > 0; queue = queue[1:] {
		if !s.Roles[queue[0]].Inherit {
			continue
		}
		for _, m := range s.Members {
			if m.Member == queue[0] && !out[m.Role] {
				out[m.Role] = true
				queue = append(queue, m.Role)
			}
		}
	}
	s.eff[name] = out
	return out
}

// Allowed is the built-in authorizer's decision.
func (s *AuthzSnapshot) Allowed(p Principal, priv string, obj Object) bool {
	if p.Superuser || s.Roles[p.Name].Superuser {
		return true
	}
	roles := s.EffectiveRoles(p.Name)
	if roles[s.OwnerOf(obj)] {
		return true
	}
	for _, g := range s.Grants[obj] {
		if g.Privilege == priv && (g.Grantee == PublicRole || roles[g.Grantee]) {
			return true
		}
	}
	return false
}

// AuthzCache keeps the latest AuthzSnapshot of a Store.
type AuthzCache struct {
	st   Store
	mu   sync.Mutex
	snap *AuthzSnapshot
}

// NewAuthzCache caches st's roles and privileges.
func NewAuthzCache(st Store) *AuthzCache { return &AuthzCache{st: st} }

type scopeKey struct{}

// authzScope holds the snapshots one statement's checks read, so the
// version is read once a statement, not once a check.
type authzScope struct {
	mu    sync.Mutex
	snaps map[*AuthzCache]*AuthzSnapshot
}

// WithAuthzScope returns a context in which every Snapshot of every cache
// is read at most once: the checks of one statement.
func WithAuthzScope(ctx context.Context) context.Context {
	if _, ok := ctx.Value(scopeKey{}).(*authzScope); ok {
		return ctx
	}
	return context.WithValue(ctx, scopeKey{}, &authzScope{snaps: map[*AuthzCache]*AuthzSnapshot{}})
}

// Snapshot is the current snapshot: the cached one when AuthzVersion has
// not moved, else a new one.
func (c *AuthzCache) Snapshot(ctx context.Context) (*AuthzSnapshot, error) {
	scope, _ := ctx.Value(scopeKey{}).(*authzScope)
	if scope != nil {
		scope.mu.Lock()
		defer scope.mu.Unlock()
		if snap := scope.snaps[c]; snap != nil {
			return snap, nil
		}
	}
	v, err := c.st.AuthzVersion(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	snap := c.snap
	c.mu.Unlock()
	if snap == nil || snap.Version != v {
		if snap, err = loadSnapshot(ctx, c.st, v); err != nil {
			return nil, fmt.Errorf("meta: roles and privileges: %w", err)
		}
		c.mu.Lock()
		if c.snap == nil || c.snap.Version < v {
			c.snap = snap
		}
		c.mu.Unlock()
	}
	if scope != nil {
		scope.snaps[c] = snap
	}
	return snap, nil
}
