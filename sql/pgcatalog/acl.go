package pgcatalog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/types"
)

// Access control lists as PostgreSQL 15 shows them (relacl, nspacl,
// defaclacl): aclitems `grantee=privileges/grantor`, PUBLIC an empty
// grantee, each privilege a letter in acl.h's bit order followed by *
// when it carries the grant option. Loam records grants, not lists, so a
// list is made from them: NULL while an object has no grant (PostgreSQL
// shows an object whose privileges were never changed as NULL, meaning
// its owner's), else the owner's implicit privileges first, then the
// grants by grantee (PUBLIC last, but on schema public) and grantor.
// PostgreSQL lists grantees in the order they were first granted to,
// which Loam does not record.

// aclPrivileges are the privileges with their aclitem letters, in bit
// order (ACL_INSERT first).
var aclPrivileges = []struct {
	name   string
	letter byte
}{
	{"INSERT", 'a'}, {"SELECT", 'r'}, {"UPDATE", 'w'}, {"DELETE", 'd'}, {"TRUNCATE", 'D'}, {"REFERENCES", 'x'},
	{"TRIGGER", 't'}, {"EXECUTE", 'X'}, {"USAGE", 'U'}, {"CREATE", 'C'}, {"TEMPORARY", 'T'}, {"CONNECT", 'c'},
}

// privBit is a privilege's bit in an aclItem; 0 for one Loam does not
// know.
func privBit(priv string) uint32 {
	priv = strings.ToUpper(priv)
	if priv == "TEMP" {
		priv = "TEMPORARY"
	}
	for i, p := range aclPrivileges {
		if p.name == priv {
			return 1 << i
		}
	}
	return 0
}

// ownerPrivileges are every privilege on an object of each kind, which
// its owner holds (acldefault).
var ownerPrivileges = map[string][]string{
	meta.KindTable:    {"INSERT", "SELECT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"},
	meta.KindSequence: {"SELECT", "UPDATE", "USAGE"},
	meta.KindSchema:   {"USAGE", "CREATE"},
	meta.KindDatabase: {"CREATE", "TEMPORARY", "CONNECT"},
}

func ownerMask(kind string) uint32 {
	var m uint32
	for _, p := range ownerPrivileges[kind] {
		m |= privBit(p)
	}
	return m
}

// aclItem is one grantee's privileges from one grantor; opts are those
// it may grant on.
type aclItem struct {
	grantee, grantor string // grantee "" is PUBLIC
	privs, opts      uint32
}

func (a aclItem) String() string {
	var b strings.Builder
	if a.grantee != "" {
		b.WriteString(quoteRole(a.grantee))
	}
	b.WriteByte('=')
	for i, p := range aclPrivileges {
		if a.privs&(1<<i) != 0 {
			b.WriteByte(p.letter)
			if a.opts&(1<<i) != 0 {
				b.WriteByte('*')
			}
		}
	}
	b.WriteByte('/')
	b.WriteString(quoteRole(a.grantor))
	return b.String()
}

// aclDatum is an aclitem[] of items.
func aclDatum(items []aclItem) types.Datum {
	buf := []byte{'{'}
	for i, it := range items {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = types.AppendArrayElem(buf, it.String())
	}
	return types.Datum{T: types.ArrayOf(types.ACLItem), S: string(append(buf, '}'))}
}

// privData is what the catalogs show of ownership and privileges, read
// once per catalog query.
type privData struct {
	rs     *roleSet
	owners map[meta.Object]string
	grants map[meta.Object][]meta.Grant
	// current is the role whose privileges information_schema shows.
	current string
}

func (s *Session) privData(ctx context.Context) (*privData, error) {
	rs, err := s.roleSet(ctx)
	if err != nil {
		return nil, err
	}
	owners, err := s.src.Owners(ctx)
	if err != nil {
		return nil, fmt.Errorf("owners: %w", err)
	}
	grants, err := s.src.Grants(ctx)
	if err != nil {
		return nil, fmt.Errorf("privileges: %w", err)
	}
	d := &privData{rs: rs, owners: owners, grants: map[meta.Object][]meta.Grant{}, current: s.src.CurrentRole()}
	for _, g := range grants {
		d.grants[g.Object] = append(d.grants[g.Object], g)
	}
	return d, nil
}

// owner is obj's owner: the recorded one, else, as for an object made
// before roles existed, the bootstrap superuser, but for schema public,
// which pg_database_owner owns as in PostgreSQL 15.
func (d *privData) owner(obj meta.Object) string {
	if o, ok := d.owners[obj]; ok {
		return o
	}
	if obj.Kind == meta.KindSchema && obj.Name == "public" {
		return databaseOwnerRole
	}
	return meta.BootstrapRole
}

// items are obj's aclitems: its owner's implicit privileges, then the
// grants. A superuser's grant is shown from the owner, as PostgreSQL
// records a superuser's GRANT as the owner's.
func (d *privData) items(obj meta.Object) []aclItem {
	owner := d.owner(obj)
	out := []aclItem{{grantee: owner, grantor: owner, privs: ownerMask(obj.Kind)}}
	if obj.Kind == meta.KindDatabase {
		// PUBLIC may connect and make temporary tables, before the
		// owner's, as acldefault lists a database's.
		out = append([]aclItem{{grantor: owner, privs: privBit("TEMPORARY") | privBit("CONNECT")}}, out...)
	}
	gs := slices.Clone(d.grants[obj])
	// By grantee as the metastore sorts them, PUBLIC last, but first on
	// schema public, whose USAGE the first start granted before any other.
	publicFirst := obj.Kind == meta.KindSchema && obj.Name == "public"
	slices.SortStableFunc(gs, func(a, b meta.Grant) int {
		ap, bp := a.Grantee == meta.PublicRole, b.Grantee == meta.PublicRole
		switch {
		case ap == bp:
			return 0
		case ap != publicFirst:
			return 1
		}
		return -1
	})
	for _, g := range gs {
		bit := privBit(g.Privilege)
		if bit == 0 {
			continue
		}
		grantee, grantor := g.Grantee, g.Grantor
		if grantee == meta.PublicRole {
			grantee = ""
		}
		if grantor == "" || d.rs.superuser(grantor) {
			grantor = owner
		}
		i := slices.IndexFunc(out, func(a aclItem) bool { return a.grantee == grantee && a.grantor == grantor })
		if i < 0 {
			out = append(out, aclItem{grantee: grantee, grantor: grantor})
			i = len(out) - 1
		}
		out[i].privs |= bit
		if g.GrantOption {
			out[i].opts |= bit
		}
	}
	return out
}

// acl is obj's ACL column: NULL while nothing was granted on it.
func (d *privData) acl(obj meta.Object) types.Datum {
	if len(d.grants[obj]) == 0 {
		return types.NullOf(types.ArrayOf(types.ACLItem))
	}
	return aclDatum(d.items(obj))
}

// relObject is the object a pg_class relation is for privileges.
func relObject(r relation) meta.Object {
	if r.kind == "S" {
		return meta.Object{Kind: meta.KindSequence, Schema: r.ns, Name: r.name}
	}
	return meta.Object{Kind: meta.KindTable, Schema: r.ns, Name: r.name}
}

// schemaObject is a schema's object for privileges.
func schemaObject(ns string) meta.Object { return meta.Object{Kind: meta.KindSchema, Name: ns} }

// systemSchema says whether ns is one of the catalogs' own schemas,
// which the bootstrap superuser owns and every role may use.
func systemSchema(ns string) bool { return ns == "pg_catalog" || ns == "information_schema" }

// relOwner is a relation's owner: the bootstrap superuser's for the
// catalogs' own.
func (s *Session) relOwner(d *privData, r relation) string {
	if systemSchema(r.ns) {
		return meta.BootstrapRole
	}
	return d.owner(relObject(r))
}

// relACL is a relation's relacl.
func (s *Session) relACL(d *privData, r relation) types.Datum {
	if systemSchema(r.ns) {
		return aclDatum(s.relItems(d, r))
	}
	return d.acl(relObject(r))
}

// relItems are a relation's aclitems: the catalogs' own may be read by
// every role but those superusers alone may (pg_authid, loam_audit).
func (s *Session) relItems(d *privData, r relation) []aclItem {
	if !systemSchema(r.ns) {
		return d.items(relObject(r))
	}
	items := []aclItem{{grantee: meta.BootstrapRole, grantor: meta.BootstrapRole, privs: ownerMask(meta.KindTable)}}
	if rel := s.reg.Lookup(r.ns, r.name); rel == nil || !rel.superuserOnly {
		items = append(items, aclItem{grantor: meta.BootstrapRole, privs: privBit("SELECT")})
	}
	return items
}

// schemaOwner and schemaACL are a schema's nspowner and nspacl.
func (d *privData) schemaOwner(ns string) string {
	if systemSchema(ns) {
		return meta.BootstrapRole
	}
	return d.owner(schemaObject(ns))
}

func (d *privData) schemaACL(ns string) types.Datum {
	if systemSchema(ns) {
		return aclDatum([]aclItem{{grantee: meta.BootstrapRole, grantor: meta.BootstrapRole, privs: ownerMask(meta.KindSchema)},
			{grantor: meta.BootstrapRole, privs: privBit("USAGE")}})
	}
	return d.acl(schemaObject(ns))
}

// defaultACLRows are pg_default_acl's: one row per owner, schema and
// kind of object. A row for every schema holds the whole list new
// objects start with (the owner's privileges too); a row for one schema
// only what it adds. Items are sorted by grantee's OID, then grantor's
// (aclitemsort), PUBLIC (OID 0) first.
func defaultACLRows(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
	dps, err := s.src.DefaultPrivileges(ctx)
	if err != nil {
		return nil, fmt.Errorf("default privileges: %w", err)
	}
	type key struct{ owner, schema, kind string }
	var keys []key
	lists := map[key][]aclItem{}
	for _, dp := range dps {
		k := key{dp.Owner, dp.Schema, dp.Kind}
		items, seen := lists[k]
		if !seen {
			keys = append(keys, k)
			if dp.Schema == "" {
				items = []aclItem{{grantee: dp.Owner, grantor: dp.Owner, privs: ownerMask(dp.Kind)}}
			}
		}
		grantee := dp.Grantee
		if grantee == meta.PublicRole {
			grantee = ""
		}
		i := slices.IndexFunc(items, func(a aclItem) bool { return a.grantee == grantee })
		if i < 0 {
			items = append(items, aclItem{grantee: grantee, grantor: dp.Owner})
			i = len(items) - 1
		}
		bit := privBit(dp.Privilege)
		items[i].privs |= bit
		if dp.GrantOption {
			items[i].opts |= bit
		}
		lists[k] = items
	}
	oidOf := func(role string) uint32 {
		if role == "" {
			return 0
		}
		return RoleOID(role)
	}
	var out [][]types.Datum
	for _, k := range keys {
		items := lists[k]
		slices.SortFunc(items, func(a, b aclItem) int {
			if c := int64(oidOf(a.grantee)) - int64(oidOf(b.grantee)); c != 0 {
				return int(c)
			}
			return int(int64(oidOf(a.grantor)) - int64(oidOf(b.grantor)))
		})
		ns := uint32(0)
		if k.schema != "" {
			ns = ObjectOID(k.schema, "")
		}
		out = append(out, rel.row(map[string]types.Datum{
			"oid": dOID(ObjectOID(k.schema, "\x00defacl "+k.owner+" "+k.kind)), "defaclrole": dOID(RoleOID(k.owner)),
			"defaclnamespace": dOID(ns), "defaclobjtype": {S: defaclObjType[k.kind]}, "defaclacl": aclDatum(items),
		}))
	}
	return out, nil
}

// defaclObjType is pg_default_acl.defaclobjtype of each kind.
var defaclObjType = map[string]string{meta.KindTable: "r", meta.KindSequence: "S", meta.KindSchema: "n", "function": "f", "type": "T"}

// holds says whether role holds any of privs on obj by the grants: to
// it, to a role whose privileges it inherits, or to PUBLIC. The owner's
// privileges and a superuser's are the caller's to add.
func (d *privData) holds(role string, obj meta.Object, privs ...string) bool {
	roles := d.rs.closure(role, true)
	for _, g := range d.grants[obj] {
		if (g.Grantee == meta.PublicRole || roles[g.Grantee]) && slices.Contains(privs, g.Privilege) {
			return true
		}
	}
	return false
}

// relVisible says whether information_schema shows relation r to the
// current role, as PostgreSQL 15's views decide: when the role has the
// owner's privileges or holds any of privs on it (PUBLIC holds SELECT on
// the catalogs' own, but on those superusers alone may read).
func (s *Session) relVisible(d *privData, r relation, privs ...string) bool {
	if d.rs.hasRole(d.current, s.relOwner(d, r), true) {
		return true
	}
	if systemSchema(r.ns) {
		rel := s.reg.Lookup(r.ns, r.name)
		return slices.Contains(privs, "SELECT") && (rel == nil || !rel.superuserOnly)
	}
	return d.holds(d.current, relObject(r), privs...)
}

// The privileges information_schema's views look for (has_table_privilege,
// has_any_column_privilege, has_sequence_privilege).
var (
	anyTablePrivilege  = []string{"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"}
	anyColumnPrivilege = []string{"SELECT", "INSERT", "UPDATE", "REFERENCES"}
	anySeqPrivilege    = []string{"SELECT", "UPDATE", "USAGE"}
)
