package openfga

import (
	"context"

	"github.com/loamdb/loam/meta"
)

// tuple is one relationship: user is relation of object.
type tuple struct{ object, relation, user string }

// storeTuples is the tuple set the Store's facts make (model.go).
// Every role named anywhere gets its self-membership tuple, so an owner
// or grantee whose role row is gone still matches itself, as in the
// built-in authorizer.
func storeTuples(ctx context.Context, st meta.Store) (map[tuple]bool, error) {
	roles, err := st.ListRoles(ctx)
	if err != nil {
		return nil, err
	}
	members, err := st.Memberships(ctx)
	if err != nil {
		return nil, err
	}
	grants, err := st.Grants(ctx, nil)
	if err != nil {
		return nil, err
	}
	owners, err := st.Owners(ctx)
	if err != nil {
		return nil, err
	}
	out := map[tuple]bool{}
	add := func(object, relation, user string) { out[tuple{object, relation, user}] = true }
	self := func(name string) {
		if name != meta.PublicRole {
			add(roleUser(name), "member", roleUser(name))
		}
	}
	server := "server:" + serverID
	add(server, "bootstrap", roleMembers(meta.BootstrapRole))
	self(meta.BootstrapRole)
	for _, r := range roles {
		self(r.Name)
		if r.Inherit {
			add(roleUser(r.Name), "inherits", "role:*")
		}
		if r.Superuser {
			add(server, "admin", roleUser(r.Name))
		}
	}
	for _, m := range members {
		self(m.Role)
		self(m.Member)
		add(roleUser(m.Role), "member", roleUser(m.Member)+"#heir")
	}
	for obj, owner := range owners {
		_, object, _, ok := objectOf(obj)
		if !ok {
			continue
		}
		self(owner)
		add(object, "owner", roleMembers(owner))
		add(object, "recorded", "role:*")
	}
	for _, g := range grants {
		typ, object, _, ok := objectOf(g.Object)
		if !ok {
			continue
		}
		rel := relationOf(typ, g.Privilege)
		if rel == "" {
			continue // no Check asks for it: only owners hold such a privilege
		}
		self(g.Grantee)
		add(object, rel, roleMembers(g.Grantee))
	}
	return out, nil
}
