package pgcatalog

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/types"
)

// predefinedRoles are PostgreSQL 15's predefined roles with their fixed
// OIDs, which pg_roles lists after the bootstrap superuser (psql's \du
// hides them by their pg_ prefix). Loam lists them so that catalogs and
// clients agree with PostgreSQL's; they hold nothing in Loam but
// pg_database_owner, which owns schema public as in PostgreSQL 15.
var predefinedRoles = []struct {
	oid  uint32
	name string
}{
	{3373, "pg_monitor"}, {3374, "pg_read_all_settings"}, {3375, "pg_read_all_stats"}, {3377, "pg_stat_scan_tables"},
	{4200, "pg_signal_backend"}, {4544, "pg_checkpoint"}, {4569, "pg_read_server_files"}, {4570, "pg_write_server_files"},
	{4571, "pg_execute_server_program"}, {oidDatabaseOwner, "pg_database_owner"}, {6181, "pg_read_all_data"}, {6182, "pg_write_all_data"},
}

// predefinedMembers are pg_auth_members' rows in a fresh PostgreSQL 15:
// pg_monitor is a member of three of the others, granted by the
// bootstrap superuser.
var predefinedMembers = [][2]uint32{{3374, 3373}, {3375, 3373}, {3377, 3373}}

// databaseOwnerRole is the predefined role that owns schema public.
const databaseOwnerRole = "pg_database_owner"

// RoleOID is a role's OID: 10 for the bootstrap superuser and
// PostgreSQL's own for the predefined roles, as clients hard-code them;
// any other role's is a hash of its name into the range ObjectOID uses
// (no two names of schema "" and a role can meet: the role's is hashed
// under a name no schema can have). A name hash needs no column in the
// metastore and agrees across servers, but a renamed role gets a new
// OID, where PostgreSQL keeps it.
func RoleOID(name string) uint32 {
	if name == meta.BootstrapRole {
		return oidBootstrapRole
	}
	for _, p := range predefinedRoles {
		if p.name == name {
			return p.oid
		}
	}
	h := fnv.New32a()
	h.Write([]byte("\x00role\x00"))
	h.Write([]byte(name))
	return userOIDBase + h.Sum32()%(1<<31-userOIDBase)
}

// roleSet is the roles as the catalogs list them: the metastore's with
// the predefined ones, by OID and by name, and the memberships.
type roleSet struct {
	roles   []meta.Role // sorted by OID, as pg_authid lists them
	byOID   map[int64]meta.Role
	byName  map[string]meta.Role
	members []meta.Membership
}

// roleSet reads the roles and memberships.
func (s *Session) roleSet(ctx context.Context) (*roleSet, error) {
	roles, err := s.src.Roles(ctx)
	if err != nil {
		return nil, fmt.Errorf("roles: %w", err)
	}
	members, err := s.src.Memberships(ctx)
	if err != nil {
		return nil, fmt.Errorf("role memberships: %w", err)
	}
	rs := &roleSet{byOID: map[int64]meta.Role{}, byName: map[string]meta.Role{}, members: members}
	for _, p := range predefinedRoles {
		roles = append(roles, meta.Role{Name: p.name, Inherit: true})
	}
	for _, r := range roles {
		if _, dup := rs.byName[r.Name]; dup {
			continue
		}
		rs.byOID[int64(RoleOID(r.Name))] = r
		rs.byName[r.Name] = r
		rs.roles = append(rs.roles, r)
	}
	slices.SortFunc(rs.roles, func(a, b meta.Role) int { return int(RoleOID(a.Name)) - int(RoleOID(b.Name)) })
	return rs, nil
}

// superuser says whether role is a superuser.
func (rs *roleSet) superuser(role string) bool { return rs.byName[role].Superuser }

// closure is the roles role is a member of, itself included: through
// every membership (MEMBER), or only while each member along the way
// inherits (USAGE). The database owner (the bootstrap superuser) is a
// member of pg_database_owner.
func (rs *roleSet) closure(role string, usage bool) map[string]bool {
	out := map[string]bool{role: true}
	for queue := []string{role}; len(queue) > 0; {
		m := queue[0]
		queue = queue[1:]
		if usage && !rs.byName[m].Inherit {
			continue
		}
		up := []string{}
		for _, ms := range rs.members {
			if ms.Member == m {
				up = append(up, ms.Role)
			}
		}
		if m == meta.BootstrapRole {
			up = append(up, databaseOwnerRole)
		}
		for _, r := range up {
			if !out[r] {
				out[r] = true
				queue = append(queue, r)
			}
		}
	}
	return out
}

// hasRole is pg_has_role(role, of, priv): MEMBER or USAGE, always held by
// a superuser.
func (rs *roleSet) hasRole(role, of string, usage bool) bool {
	return rs.superuser(role) || rs.closure(role, usage)[of]
}

// roleName is the name of the role of an OID, as pg_get_userbyid shows
// it.
func (rs *roleSet) roleName(oid int64) string {
	if r, ok := rs.byOID[oid]; ok {
		return r.Name
	}
	return fmt.Sprintf("unknown (OID=%d)", oid)
}

// timestamptz is a time as a timestamptz datum, NULL when zero.
func validUntil(r meta.Role) types.Datum {
	if r.ValidUntil.IsZero() {
		return types.NullOf(types.TTimestampTZ)
	}
	return types.Datum{T: types.TTimestampTZ, I: r.ValidUntil.UnixMicro()}
}

// roleRows are pg_authid's (all true) or pg_roles' columns of each role:
// the bootstrap superuser alone replicates and bypasses row security, as
// initdb makes it; CREATE ROLE makes neither.
func (s *Session) roleRows(ctx context.Context, rel *Relation, authid bool) ([][]types.Datum, error) {
	rs, err := s.roleSet(ctx)
	if err != nil {
		return nil, err
	}
	var out [][]types.Datum
	for _, r := range rs.roles {
		boot := r.Name == meta.BootstrapRole
		row := map[string]types.Datum{
			"oid": dOID(RoleOID(r.Name)), "rolname": dName(r.Name), "rolsuper": dBool(r.Superuser), "rolinherit": dBool(r.Inherit),
			"rolcreaterole": dBool(r.CreateRole), "rolcreatedb": dBool(r.CreateDB), "rolcanlogin": dBool(r.Login),
			"rolreplication": dBool(boot), "rolbypassrls": dBool(boot), "rolconnlimit": {I: -1},
			"rolvaliduntil": validUntil(r), "rolpassword": dText("********"),
		}
		if authid {
			row["rolpassword"] = types.NullOf(types.TText)
			if r.Password != "" {
				row["rolpassword"] = dText(r.Password)
			}
		}
		out = append(out, rel.row(row))
	}
	return out, nil
}

// userRows are pg_user's (passwords masked) or pg_shadow's: the roles
// that may log in.
func (s *Session) userRows(ctx context.Context, rel *Relation, shadow bool) ([][]types.Datum, error) {
	rs, err := s.roleSet(ctx)
	if err != nil {
		return nil, err
	}
	var out [][]types.Datum
	for _, r := range rs.roles {
		if !r.Login {
			continue
		}
		boot := r.Name == meta.BootstrapRole
		passwd := dText("********")
		if shadow {
			passwd = types.NullOf(types.TText)
			if r.Password != "" {
				passwd = dText(r.Password)
			}
		}
		out = append(out, rel.row(map[string]types.Datum{
			"usename": dName(r.Name), "usesysid": dOID(RoleOID(r.Name)), "usecreatedb": dBool(r.CreateDB), "usesuper": dBool(r.Superuser),
			"userepl": dBool(boot), "usebypassrls": dBool(boot), "passwd": passwd, "valuntil": validUntil(r),
		}))
	}
	return out, nil
}

// authMemberRows are pg_auth_members': the predefined memberships, then
// GRANT role TO role's.
func (s *Session) authMemberRows(ctx context.Context, rel *Relation) ([][]types.Datum, error) {
	rs, err := s.roleSet(ctx)
	if err != nil {
		return nil, err
	}
	var out [][]types.Datum
	for _, m := range predefinedMembers {
		out = append(out, rel.row(map[string]types.Datum{"roleid": dOID(m[0]), "member": dOID(m[1]),
			"grantor": dOID(oidBootstrapRole), "admin_option": dBool(false)}))
	}
	for _, m := range rs.members {
		grantor := m.Grantor
		if grantor == "" {
			grantor = meta.BootstrapRole
		}
		out = append(out, rel.row(map[string]types.Datum{"roleid": dOID(RoleOID(m.Role)), "member": dOID(RoleOID(m.Member)),
			"grantor": dOID(RoleOID(grantor)), "admin_option": dBool(m.Admin)}))
	}
	return out, nil
}

// roleTables are the catalogs of roles. pg_authid and pg_shadow hold
// password verifiers: superusers only, as in PostgreSQL.
func roleTables() []*Relation {
	authid := defTable("pg_catalog", "pg_authid", `oid:oid rolname:name rolsuper:boolean rolinherit:boolean rolcreaterole:boolean rolcreatedb:boolean rolcanlogin:boolean rolreplication:boolean rolbypassrls:boolean rolconnlimit:integer rolpassword:text rolvaliduntil:timestamptz`,
		func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
			return s.roleRows(ctx, rel, true)
		})
	authid.superuserOnly = true
	shadow := defTable("pg_catalog", "pg_shadow", `usename:name usesysid:oid usecreatedb:boolean usesuper:boolean userepl:boolean usebypassrls:boolean passwd:text valuntil:timestamptz useconfig:text[]`,
		func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
			return s.userRows(ctx, rel, true)
		})
	shadow.superuserOnly, shadow.view = true, true
	return []*Relation{
		defTable("pg_catalog", "pg_roles", `rolname:name rolsuper:boolean rolinherit:boolean rolcreaterole:boolean rolcreatedb:boolean rolcanlogin:boolean rolreplication:boolean rolconnlimit:integer rolpassword:text rolvaliduntil:timestamptz rolbypassrls:boolean rolconfig:text[] oid:oid`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return s.roleRows(ctx, rel, false)
			}),
		defTable("pg_catalog", "pg_user", `usename:name usesysid:oid usecreatedb:boolean usesuper:boolean userepl:boolean usebypassrls:boolean passwd:text valuntil:timestamptz useconfig:text[]`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return s.userRows(ctx, rel, false)
			}),
		authid, shadow,
		defTable("pg_catalog", "pg_auth_members", `roleid:oid member:oid grantor:oid admin_option:boolean`,
			func(ctx context.Context, s *Session, rel *Relation) ([][]types.Datum, error) {
				return s.authMemberRows(ctx, rel)
			}),
		auditTable(),
	}
}

// quoteRole is a role name as aclitem text shows it (acl.c's putid):
// bare when it is ASCII letters, digits and underscores, else in double
// quotes with quotes doubled.
func quoteRole(name string) string {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
	}
	return name
}

// roleMaps map role OIDs to the names regrole prints (quoted as
// identifiers, as regroleout quotes them) and names to OIDs, read as the
// cast is bound.
func (s *Session) roleMaps(ctx context.Context) (names map[int64]string, oids map[string]int64, err error) {
	rs, err := s.roleSet(ctx)
	if err != nil {
		return nil, nil, err
	}
	names, oids = map[int64]string{}, map[string]int64{}
	for oid, r := range rs.byOID {
		shown := expr.QuoteIdent(r.Name)
		names[oid], oids[r.Name], oids[shown] = shown, oid, oid
	}
	return names, oids, nil
}
