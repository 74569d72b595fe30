package pgcatalog

import (
	"testing"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/types"
)

// TestACLItemText: aclitems print as PostgreSQL 15's aclitemout does
// (letters in bit order, * for the grant option, names quoted as putid
// quotes them) and parse back.
func TestACLItemText(t *testing.T) {
	for _, c := range []struct {
		it   aclItem
		want string
	}{
		{aclItem{grantee: "loam", grantor: "loam", privs: ownerMask(meta.KindTable)}, "loam=arwdDxt/loam"},
		{aclItem{grantor: "loam", privs: privBit("SELECT")}, "=r/loam"},
		{aclItem{grantee: "bob", grantor: "loam", privs: privBit("SELECT") | privBit("INSERT"), opts: privBit("SELECT") | privBit("INSERT")}, "bob=a*r*/loam"},
		{aclItem{grantee: "bob", grantor: "loam", privs: privBit("SELECT") | privBit("UPDATE"), opts: privBit("UPDATE")}, "bob=rw*/loam"},
		{aclItem{grantee: "Mixed Case", grantor: "a\"b", privs: ownerMask(meta.KindSchema)}, `"Mixed Case"=UC/"a""b"`},
		{aclItem{grantee: "Bob_2", grantor: "é", privs: ownerMask(meta.KindSequence)}, `Bob_2=rwU/"é"`},
		{aclItem{grantor: "loam", privs: privBit("TEMP") | privBit("CONNECT")}, "=Tc/loam"},
	} {
		if got := c.it.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.it, got, c.want)
		}
		back, err := parseACLItem(c.want)
		if err != nil || back != c.it {
			t.Errorf("parseACLItem(%q) = %+v, %v; want %+v", c.want, back, err, c.it)
		}
	}
	for _, bad := range []string{"x", "bob=q/loam", "bob=r", "bob=r/"} {
		if _, err := parseACLItem(bad); err == nil {
			t.Errorf("parseACLItem(%q) took it", bad)
		}
	}
}

// TestACLOfGrants: an object's ACL is NULL until something is granted on
// it, then its owner's privileges, the grants by grantee with PUBLIC
// last, merged per grantee and grantor; a superuser's grant shows as the
// owner's, as PostgreSQL records it.
func TestACLOfGrants(t *testing.T) {
	t1 := meta.Object{Kind: meta.KindTable, Schema: "public", Name: "t1"}
	seq := meta.Object{Kind: meta.KindSequence, Schema: "public", Name: "s"}
	d := &privData{
		rs: &roleSet{byName: map[string]meta.Role{"loam": {Name: "loam", Superuser: true}, "carol": {Name: "carol", Superuser: true},
			"bob": {Name: "bob"}, "amy": {Name: "amy"}}},
		owners: map[meta.Object]string{seq: "bob"},
		grants: map[meta.Object][]meta.Grant{
			t1: {{Grantee: meta.PublicRole, Privilege: "SELECT", Grantor: "loam"}, {Grantee: "amy", Privilege: "UPDATE", Grantor: "bob"},
				{Grantee: "bob", Privilege: "INSERT", Grantor: "loam", GrantOption: true}, {Grantee: "bob", Privilege: "SELECT", Grantor: "carol"}},
			seq: {{Grantee: "amy", Privilege: "USAGE", Grantor: "loam"}},
		},
	}
	for _, c := range []struct {
		obj  meta.Object
		want string
	}{
		{t1, "{loam=arwdDxt/loam,amy=w/bob,bob=a*r/loam,=r/loam}"},
		{seq, "{bob=rwU/bob,amy=U/bob}"},
		{meta.Object{Kind: meta.KindTable, Schema: "public", Name: "t2"}, "NULL"},
	} {
		got := d.acl(c.obj)
		if s := got.S; got.Null && s == "" {
			got.S = "NULL"
		}
		if got.S != c.want || got.T.Kind != types.Array && !got.Null {
			t.Errorf("acl(%v) = %q, want %q", c.obj, got.S, c.want)
		}
	}
}
