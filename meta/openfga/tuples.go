package openfga

import "github.com/loamdb/loam/meta"

// tuple is one relationship: user is relation of object.
type tuple struct{ object, relation, user string }

// snapshotTuples is the tuple set a snapshot of the Store's facts makes
// (model.go). Every role named anywhere gets its self-membership tuple,
// so an owner or grantee whose role row is gone still matches itself, as
// in the built-in authorizer.
func snapshotTuples(snap *meta.AuthzSnapshot) map[tuple]bool {
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
	for _, r := range snap.Roles {
		self(r.Name)
		if r.Inherit {
			add(roleUser(r.Name), "inherits", "role:*")
		}
		if r.Superuser {
			add(server, "admin", roleUser(r.Name))
		}
	}
	for _, m := range snap.Members {
		self(m.Role)
		self(m.Member)
		add(roleUser(m.Role), "member", roleUser(m.Member)+"#heir")
	}
	for obj, owner := range snap.Owners {
		_, object, _, ok := objectOf(obj)
		if !ok {
			continue
		}
		self(owner)
		add(object, "owner", roleMembers(owner))
		add(object, "recorded", "role:*")
	}
	for obj, grants := range snap.Grants {
		typ, object, _, ok := objectOf(obj)
		if !ok {
			continue
		}
		for _, g := range grants {
			rel := relationOf(typ, g.Privilege)
			if rel == "" {
				continue // no Check asks for it: only owners hold such a privilege
			}
			self(g.Grantee)
			add(object, rel, roleMembers(g.Grantee))
		}
	}
	return out
}
