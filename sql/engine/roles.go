package engine

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/loamdb/loam/auth/scram"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// CREATE ROLE, ALTER ROLE, DROP ROLE and GRANT/REVOKE of role
// membership, as PostgreSQL 15 checks them: superusers do anything;
// CREATEROLE roles manage roles that are not superusers; a role may
// change its own password; a role's ADMIN OPTION holders grant it.

const (
	sqlstateReservedName       = "42939"
	sqlstateInvalidGrant       = "0LP01"
	sqlstateObjectInUse        = "55006"
	sqlstateDuplicateObject    = "42710"
	sqlstateFeatureNotSupport  = pgerr.FeatureNotSupported
	sqlstateInsufficientPrivil = pgerr.InsufficientPrivilege
)

// checkRoleName refuses the names PostgreSQL reserves.
func checkRoleName(name string) error {
	switch {
	case name == "public" || name == "none":
		return pgerr.New(sqlstateReservedName, "role name %q is reserved", name)
	case name == meta.PublicRole:
		// The metastore records grants to PUBLIC as grants to this name:
		// a role so named would give its privileges to everyone.
		return pgerr.New(sqlstateReservedName, "role name %q is reserved", name)
	case strings.HasPrefix(name, "pg_"):
		e := pgerr.New(sqlstateReservedName, "role name %q is reserved", name)
		e.Detail = `Role names starting with "pg_" are reserved.`
		return e
	}
	return nil
}

func (s *Session) createRole(ctx context.Context, cs *pg.CreateRoleStmt, query string) (*Cursor, error) {
	me, err := s.principalRole(ctx)
	if err != nil {
		return nil, err
	}
	if !me.Superuser && !me.CreateRole {
		return nil, pgerr.New(sqlstateInsufficientPrivil, "permission denied to create role")
	}
	if err := checkRoleName(cs.Role); err != nil {
		return nil, err
	}
	if err := redundantOptions(cs.Options, query); err != nil {
		return nil, err
	}
	r := meta.Role{Name: cs.Role, Inherit: true, Login: cs.StmtType == pg.RoleStmtType_ROLESTMT_USER}
	var inRoles, members, admins []string
	for _, o := range cs.Options {
		d := o.GetDefElem()
		switch d.Defname {
		case "addroleto":
			inRoles = roleNames(d.Arg, s)
		case "rolemembers":
			members = roleNames(d.Arg, s)
		case "adminmembers":
			admins = roleNames(d.Arg, s)
		default:
			if err := s.roleOption(d, &r); err != nil {
				return nil, err
			}
		}
	}
	if r.Superuser && !me.Superuser {
		return nil, pgerr.New(sqlstateInsufficientPrivil, "must be superuser to create superusers")
	}
	if err := s.eng.meta.CreateRole(ctx, r); err != nil {
		if errors.Is(err, meta.ErrExists) {
			return nil, pgerr.New(sqlstateDuplicateObject, "role %q already exists", r.Name)
		}
		return nil, err
	}
	s.onRollback(func(ctx context.Context) error { return s.eng.meta.DropRole(ctx, r.Name) })
	for _, in := range inRoles {
		if err := s.grantRole(ctx, me, in, r.Name, false); err != nil {
			return nil, err
		}
	}
	for _, m := range members {
		if err := s.grantRole(ctx, me, r.Name, m, false); err != nil {
			return nil, err
		}
	}
	for _, m := range admins {
		if err := s.grantRole(ctx, me, r.Name, m, true); err != nil {
			return nil, err
		}
	}
	return s.refreshed(ctx, "CREATE ROLE")
}

// redundantOptions is PostgreSQL's 42601 for an option given twice
// (LOGIN NOLOGIN, two PASSWORDs), pointing at the second.
func redundantOptions(opts []*pg.Node, query string) error {
	seen := map[string]bool{}
	for _, o := range opts {
		d := o.GetDefElem()
		if seen[d.Defname] {
			return pgerr.New(pgerr.SyntaxError, "conflicting or redundant options").WithPosition(parse.CharPos(query, int(d.Location)))
		}
		seen[d.Defname] = true
	}
	return nil
}

// roleOption applies one option of CREATE or ALTER ROLE.
func (s *Session) roleOption(d *pg.DefElem, r *meta.Role) error {
	flag := func() bool {
		if b := d.Arg.GetBoolean(); b != nil {
			return b.Boolval
		}
		return d.Arg.GetInteger().GetIval() != 0
	}
	switch d.Defname {
	case "superuser":
		r.Superuser = flag()
	case "canlogin":
		r.Login = flag()
	case "inherit":
		r.Inherit = flag()
	case "createrole":
		r.CreateRole = flag()
	case "createdb":
		r.CreateDB = flag()
	case "sysid":
		s.notice("SYSID can no longer be specified") // as PostgreSQL, which ignores it
	case "isreplication", "bypassrls", "connectionlimit":
		// Accepted for scripts written for PostgreSQL; Loam has no
		// replication, row security or per-role connection limit.
	case "password":
		if d.Arg == nil || d.Arg.GetString_() == nil {
			r.Password = "" // PASSWORD NULL
			return nil
		}
		pw := d.Arg.GetString_().Sval
		switch {
		case scram.IsVerifier(pw):
			r.Password = pw // a pre-hashed secret is stored as is
		case len(pw) == 35 && strings.HasPrefix(pw, "md5"):
			return pgerr.New(sqlstateFeatureNotSupport, "MD5 password hashes are not supported; give the password or a SCRAM-SHA-256 secret")
		case pw == "":
			s.notice("empty string is not a valid password, clearing password")
			r.Password = ""
		default:
			// Anything else, a malformed SCRAM secret included, is a
			// password, as PostgreSQL takes it.
			v, err := scram.New(pw)
			if err != nil {
				return err
			}
			r.Password = v.String()
		}
	case "validUntil":
		text := d.Arg.GetString_().GetSval()
		if strings.EqualFold(text, "infinity") {
			r.ValidUntil = time.Time{}
			return nil
		}
		us, err := types.ParseTimestamp(text, true, s.loc)
		if err != nil {
			return err
		}
		r.ValidUntil = time.UnixMicro(us).UTC()
	default:
		return pgerr.New(sqlstateFeatureNotSupport, "role option %q is not supported", d.Defname)
	}
	return nil
}

// roleNames reads a list of RoleSpecs (CREATE ROLE … IN ROLE a, b).
func roleNames(n *pg.Node, s *Session) []string {
	var out []string
	for _, it := range n.GetList().GetItems() {
		out = append(out, s.roleSpecName(it.GetRoleSpec()))
	}
	return out
}

// roleSpecName resolves CURRENT_USER, SESSION_USER, CURRENT_ROLE and
// PUBLIC (as meta.PublicRole).
func (s *Session) roleSpecName(rs *pg.RoleSpec) string {
	switch rs.GetRoletype() {
	case pg.RoleSpecType_ROLESPEC_CURRENT_USER, pg.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		return s.currentRole()
	case pg.RoleSpecType_ROLESPEC_SESSION_USER:
		return s.user
	case pg.RoleSpecType_ROLESPEC_PUBLIC:
		return meta.PublicRole
	}
	return rs.GetRolename()
}

func (s *Session) alterRole(ctx context.Context, as *pg.AlterRoleStmt, query string) (*Cursor, error) {
	me, err := s.principalRole(ctx)
	if err != nil {
		return nil, err
	}
	name := s.roleSpecName(as.Role)
	target, err := s.roleNamed(ctx, name)
	if err != nil {
		return nil, err
	}
	if err := redundantOptions(as.Options, query); err != nil {
		return nil, err
	}
	if len(as.Options) == 1 && as.Options[0].GetDefElem().GetDefname() == "rolemembers" {
		return s.alterGroup(ctx, me, name, as)
	}
	var next meta.Role
	err = s.eng.meta.AlterRole(ctx, name, func(r meta.Role) (meta.Role, error) {
		n := r
		onlyPassword := true
		for _, o := range as.Options {
			d := o.GetDefElem()
			if d.Defname != "password" {
				onlyPassword = false
			}
			if err := s.roleOption(d, &n); err != nil {
				return r, err
			}
		}
		switch {
		case me.Superuser:
		case target.Superuser || n.Superuser:
			return r, pgerr.New(sqlstateInsufficientPrivil, "must be superuser to alter superuser roles or change superuser attribute")
		case me.CreateRole:
		case name == me.Name && onlyPassword:
		default:
			return r, pgerr.New(sqlstateInsufficientPrivil, "permission denied")
		}
		next = n
		return n, nil
	})
	if err != nil {
		return nil, err
	}
	s.onRollback(func(ctx context.Context) error {
		return s.eng.meta.AlterRole(ctx, name, func(meta.Role) (meta.Role, error) { return target, nil })
	})
	_ = next
	return s.refreshed(ctx, "ALTER ROLE")
}

// alterGroup is ALTER GROUP g ADD|DROP USER u, …: GRANT or REVOKE of g.
func (s *Session) alterGroup(ctx context.Context, me meta.Role, group string, as *pg.AlterRoleStmt) (*Cursor, error) {
	for _, m := range roleNames(as.Options[0].GetDefElem().Arg, s) {
		var err error
		if as.Action > 0 {
			err = s.grantRole(ctx, me, group, m, false)
		} else {
			err = s.revokeRole(ctx, me, group, m, false)
		}
		if err != nil {
			return nil, err
		}
	}
	return s.refreshed(ctx, "ALTER ROLE")
}

// renameRole is ALTER ROLE … RENAME TO.
func (s *Session) renameRole(ctx context.Context, from, to string) (*Cursor, error) {
	me, err := s.principalRole(ctx)
	if err != nil {
		return nil, err
	}
	target, err := s.roleNamed(ctx, from)
	if err != nil {
		return nil, err
	}
	switch {
	case from == s.user:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "session user cannot be renamed")
	case from == s.currentRole():
		return nil, pgerr.New(pgerr.FeatureNotSupported, "current user cannot be renamed")
	case me.Superuser:
	case target.Superuser:
		return nil, pgerr.New(sqlstateInsufficientPrivil, "must be superuser to rename superusers")
	case !me.CreateRole:
		return nil, pgerr.New(sqlstateInsufficientPrivil, "permission denied to rename role")
	}
	if err := checkRoleName(to); err != nil {
		return nil, err
	}
	err = s.eng.meta.AlterRole(ctx, from, func(r meta.Role) (meta.Role, error) {
		r.Name = to
		if r.Password != "" {
			// PostgreSQL clears an MD5 password on rename; a SCRAM
			// verifier does not depend on the name and stays.
		}
		return r, nil
	})
	if errors.Is(err, meta.ErrExists) {
		return nil, pgerr.New(sqlstateDuplicateObject, "role %q already exists", to)
	}
	if err != nil {
		return nil, err
	}
	s.onRollback(func(ctx context.Context) error {
		return s.eng.meta.AlterRole(ctx, to, func(r meta.Role) (meta.Role, error) { r.Name = from; return r, nil })
	})
	return s.refreshed(ctx, "ALTER ROLE")
}

func (s *Session) dropRole(ctx context.Context, ds *pg.DropRoleStmt) (*Cursor, error) {
	me, err := s.principalRole(ctx)
	if err != nil {
		return nil, err
	}
	if !me.Superuser && !me.CreateRole {
		return nil, pgerr.New(sqlstateInsufficientPrivil, "permission denied to drop role")
	}
	for _, n := range ds.Roles {
		name := s.roleSpecName(n.GetRoleSpec())
		target, err := s.eng.meta.Role(ctx, name)
		if errors.Is(err, meta.ErrNotFound) {
			if ds.MissingOk {
				s.notice("role %q does not exist, skipping", name)
				continue
			}
			return nil, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
		}
		if err != nil {
			return nil, err
		}
		switch {
		case name == s.currentRole():
			return nil, pgerr.New(sqlstateObjectInUse, "current user cannot be dropped")
		case name == s.user:
			return nil, pgerr.New(sqlstateObjectInUse, "session user cannot be dropped")
		case target.Superuser && !me.Superuser:
			return nil, pgerr.New(sqlstateInsufficientPrivil, "must be superuser to drop superusers")
		case name == meta.BootstrapRole:
			return nil, pgerr.New(sqlstateObjectInUse, "cannot drop role %s because it is required by the database system", name)
		}
		if err := s.refuseDependentRole(ctx, name); err != nil {
			return nil, err
		}
		ms, err := s.eng.meta.Memberships(ctx)
		if err != nil {
			return nil, err
		}
		if err := s.eng.meta.DropRole(ctx, name); err != nil {
			return nil, err
		}
		s.onRollback(func(ctx context.Context) error {
			if err := s.eng.meta.CreateRole(ctx, target); err != nil {
				return err
			}
			for _, m := range ms {
				if m.Role == name || m.Member == name {
					if err := s.eng.meta.GrantRole(ctx, m); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	return s.refreshed(ctx, "DROP ROLE")
}

// refuseDependentRole fails, as PostgreSQL does, while a role owns
// objects or holds privileges.
func (s *Session) refuseDependentRole(ctx context.Context, name string) error {
	owners, err := s.eng.meta.Owners(ctx)
	if err != nil {
		return err
	}
	var detail []string
	for obj, owner := range owners {
		if owner == name {
			detail = append(detail, "owner of "+s.describeObject(ctx, obj))
		}
	}
	// PostgreSQL lists them in its objects' OID order, which Loam does
	// not keep: owned objects come first here, each list sorted.
	sort.Strings(detail)
	grants, err := s.eng.meta.Grants(ctx, nil)
	if err != nil {
		return err
	}
	seen := map[meta.Object]bool{}
	for _, g := range grants {
		if (g.Grantee == name || g.Grantor == name) && !seen[g.Object] {
			seen[g.Object] = true
			detail = append(detail, "privileges for "+s.describeObject(ctx, g.Object))
		}
	}
	defs, err := s.eng.meta.DefaultPrivileges(ctx)
	if err != nil {
		return err
	}
	seenDef := map[string]bool{}
	for _, d := range defs {
		what := "default privileges on new " + defaultKindWord[d.Kind] + " belonging to role " + d.Owner
		if d.Schema != "" {
			what += " in schema " + d.Schema
		}
		for _, line := range []string{"owner of " + what, "privileges for " + what} {
			mine := d.Owner == name
			if strings.HasPrefix(line, "privileges") {
				mine = d.Grantee == name
			}
			if mine && !seenDef[line] {
				seenDef[line] = true
				detail = append(detail, line)
			}
		}
	}
	if len(detail) == 0 {
		return nil
	}
	e := pgerr.New(pgerr.DependentObjectsStillExist, "role %q cannot be dropped because some objects depend on it", name)
	e.Detail = strings.Join(detail, "\n")
	return e
}

// defaultKindWord is how PostgreSQL names the objects ALTER DEFAULT
// PRIVILEGES applies to.
var defaultKindWord = map[string]string{
	meta.KindTable:    "relations",
	meta.KindSequence: "sequences",
	meta.KindSchema:   "schemas",
}

// describeObject names an object as PostgreSQL's dependency messages do:
// a view as a view.
func (s *Session) describeObject(ctx context.Context, o meta.Object) string {
	if o.Kind == meta.KindTable {
		if _, kind, ok := s.resolveRelation(ctx, &pg.RangeVar{Schemaname: o.Schema, Relname: o.Name}); ok {
			return kind + " " + qualifiedName(o.Schema, o.Name)
		}
	}
	switch o.Kind {
	case meta.KindSchema:
		return "schema " + o.Name
	case meta.KindDatabase:
		return "database " + o.Name
	}
	return o.Kind + " " + qualifiedName(o.Schema, o.Name)
}

func qualifiedName(schema, name string) string {
	if schema == "public" || schema == "" {
		return name
	}
	return schema + "." + name
}

// grantRoleStmt is GRANT role TO role and REVOKE role FROM role.
func (s *Session) grantRoleStmt(ctx context.Context, gs *pg.GrantRoleStmt, query string) (*Cursor, error) {
	me, err := s.principalRole(ctx)
	if err != nil {
		return nil, err
	}
	admin := false
	for _, o := range gs.Opt {
		d := o.GetDefElem()
		if d.Defname == "admin" {
			admin = d.Arg == nil || d.Arg.GetBoolean() == nil || d.Arg.GetBoolean().Boolval
			if s := d.Arg.GetString_(); s != nil {
				admin = s.Sval == "true" || s.Sval == "on"
			}
			if !gs.IsGrant {
				// REVOKE ADMIN OPTION FOR: the grammar gives the option
				// as false; revoke only the admin option.
				admin = true
			}
		} else {
			// WITH INHERIT and WITH SET are PostgreSQL 16's; 15 has no
			// such syntax.
			return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near %q", strings.ToUpper(d.Defname)).WithPosition(parse.CharPos(query, int(d.Location)))
		}
	}
	for _, r := range gs.GrantedRoles {
		role := r.GetAccessPriv().GetPrivName()
		for _, m := range gs.GranteeRoles {
			if m.GetRoleSpec().GetRoletype() == pg.RoleSpecType_ROLESPEC_PUBLIC {
				// PUBLIC is no role to be a member.
				return nil, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", "public")
			}
			member := s.roleSpecName(m.GetRoleSpec())
			if gs.IsGrant {
				err = s.grantRole(ctx, me, role, member, admin)
			} else {
				err = s.revokeRole(ctx, me, role, member, admin)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	tag := "GRANT ROLE"
	if !gs.IsGrant {
		tag = "REVOKE ROLE"
	}
	return s.refreshed(ctx, tag)
}

// mayAdminister says whether me may grant or revoke membership in role.
func (s *Session) mayAdminister(ctx context.Context, me meta.Role, role meta.Role) (bool, error) {
	if me.Superuser {
		return true, nil
	}
	if role.Superuser {
		return false, nil
	}
	if me.CreateRole {
		return true, nil
	}
	ms, err := s.eng.meta.Memberships(ctx)
	if err != nil {
		return false, err
	}
	for _, m := range ms {
		if m.Role == role.Name && m.Member == me.Name && m.Admin {
			return true, nil
		}
	}
	return false, nil
}

// mayChangeMembers checks that role and member exist and that me may
// grant or revoke membership in role.
func (s *Session) mayChangeMembers(ctx context.Context, me meta.Role, role, member string) error {
	target, err := s.roleNamed(ctx, role)
	if err != nil {
		return err
	}
	if _, err := s.roleNamed(ctx, member); err != nil {
		return err
	}
	ok, err := s.mayAdminister(ctx, me, target)
	if err != nil {
		return err
	}
	if !ok {
		if target.Superuser {
			return pgerr.New(sqlstateInsufficientPrivil, "must be superuser to alter superusers")
		}
		return pgerr.New(sqlstateInsufficientPrivil, "must have admin option on role %q", role)
	}
	return nil
}

func (s *Session) grantRole(ctx context.Context, me meta.Role, role, member string, admin bool) error {
	if err := s.mayChangeMembers(ctx, me, role, member); err != nil {
		return err
	}
	// A membership loop would make a role a member of itself.
	up, err := meta.EffectiveRoles(ctx, s.eng.meta, role)
	if err != nil {
		return err
	}
	if member == role || s.memberOf(ctx, role, member, up) {
		return pgerr.New(sqlstateInvalidGrant, "role %q is a member of role %q", role, member)
	}
	ms, err := s.eng.meta.Memberships(ctx)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.Role == role && m.Member == member && (m.Admin || !admin) {
			s.notice("role %q is already a member of role %q", member, role)
			return nil
		}
	}
	if err := s.eng.meta.GrantRole(ctx, meta.Membership{Role: role, Member: member, Grantor: me.Name, Admin: admin}); err != nil {
		return err
	}
	s.onRollback(func(ctx context.Context) error { return s.eng.meta.RevokeRole(ctx, role, member) })
	return nil
}

// memberOf reports whether role is (transitively) a member of member,
// whatever INHERIT says: the loop check of GRANT.
func (s *Session) memberOf(ctx context.Context, role, member string, _ map[string]bool) bool {
	ms, err := s.eng.meta.Memberships(ctx)
	if err != nil {
		return false
	}
	seen := map[string]bool{role: true}
	for queue := []string{role}; len(queue) > 0; queue = queue[1:] {
		for _, m := range ms {
			if m.Member == queue[0] && !seen[m.Role] {
				if m.Role == member {
					return true
				}
				seen[m.Role] = true
				queue = append(queue, m.Role)
			}
		}
	}
	return false
}

func (s *Session) revokeRole(ctx context.Context, me meta.Role, role, member string, adminOnly bool) error {
	if err := s.mayChangeMembers(ctx, me, role, member); err != nil {
		return err
	}
	ms, err := s.eng.meta.Memberships(ctx)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.Role != role || m.Member != member {
			continue
		}
		if adminOnly {
			n := m
			n.Admin = false
			err = s.eng.meta.GrantRole(ctx, n)
		} else {
			err = s.eng.meta.RevokeRole(ctx, role, member)
		}
		if err != nil {
			return err
		}
		s.onRollback(func(ctx context.Context) error { return s.eng.meta.GrantRole(ctx, m) })
		return nil
	}
	s.warning("01000", "role \""+member+"\" is not a member of role \""+role+"\"")
	return nil
}

// roleNamed is the role name, or PostgreSQL's 42704.
func (s *Session) roleNamed(ctx context.Context, name string) (meta.Role, error) {
	r, err := s.eng.meta.Role(ctx, name)
	if errors.Is(err, meta.ErrNotFound) {
		return meta.Role{}, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
	}
	return r, err
}

// refreshed tells the authorizer the roles or privileges changed and
// ends the statement with tag.
func (s *Session) refreshed(ctx context.Context, tag string) (*Cursor, error) {
	if err := s.eng.authz.Refresh(ctx); err != nil {
		return nil, err
	}
	return &Cursor{tag: tag, sess: s}, nil
}
