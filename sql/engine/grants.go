package engine

import (
	"context"
	"strings"

	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// GRANT and REVOKE of privileges on tables, views, sequences, schemas and
// the database, ALTER DEFAULT PRIVILEGES, and ALTER … OWNER TO.

func (s *Session) grantStmt(ctx context.Context, gs *pg.GrantStmt) (*Cursor, error) {
	objs, err := s.grantObjects(ctx, gs)
	if err != nil {
		return nil, err
	}
	grantees, err := s.grantees(ctx, gs.Grantees)
	if err != nil {
		return nil, err
	}
	if gs.GrantOption && gs.IsGrant {
		for _, g := range grantees {
			if g == meta.PublicRole {
				return nil, pgerr.New("0LP01", "grant options can only be granted to roles")
			}
		}
	}
	if gs.Grantor != nil {
		// PostgreSQL 15 takes GRANTED BY only naming the current role.
		if name := s.roleSpecName(gs.Grantor); name != s.currentRole() {
			if _, err := s.roleNamed(ctx, name); err != nil {
				return nil, err
			}
			return nil, pgerr.New(pgerr.FeatureNotSupported, "grantor must be current user")
		}
	}
	cascade := gs.Behavior == pg.DropBehavior_DROP_CASCADE
	for _, obj := range objs {
		privs, err := grantPrivileges(gs.Privileges, obj.Kind, "")
		if err != nil {
			return nil, err
		}
		grantor, grantable, err := s.grantorFor(ctx, obj, privs, gs.IsGrant, len(gs.Privileges) == 0)
		if err != nil {
			return nil, err
		}
		for _, grantee := range grantees {
			for _, priv := range grantable {
				g := meta.Grant{Grantee: grantee, Privilege: priv, Object: obj, Grantor: grantor, GrantOption: gs.GrantOption}
				if !gs.IsGrant {
					if mine, err := s.grantedBy(ctx, g); err != nil || !mine {
						if err != nil {
							return nil, err
						}
						continue // REVOKE takes away the revoker's grants only
					}
					if err := s.revokeDependent(ctx, g, cascade); err != nil {
						return nil, err
					}
				}
				if err := s.applyGrant(ctx, g, gs.IsGrant); err != nil {
					return nil, err
				}
			}
		}
	}
	tag := "GRANT"
	if !gs.IsGrant {
		tag = "REVOKE"
	}
	return s.refreshed(ctx, tag)
}

// applyGrant writes one grant or revoke, undone by a rollback.
func (s *Session) applyGrant(ctx context.Context, g meta.Grant, grant bool) error {
	obj := g.Object
	before, err := s.eng.meta.Grants(ctx, &obj)
	if err != nil {
		return err
	}
	if grant {
		err = s.eng.meta.Grant(ctx, g)
	} else {
		err = s.eng.meta.Revoke(ctx, g)
	}
	if err != nil {
		return err
	}
	s.onRollback(func(ctx context.Context) error {
		for _, b := range before {
			if b.Grantee == g.Grantee && b.Privilege == g.Privilege {
				return s.eng.meta.Grant(ctx, b) // what was there before
			}
		}
		return s.eng.meta.Revoke(ctx, meta.Grant{Grantee: g.Grantee, Privilege: g.Privilege, Object: obj})
	})
	return nil
}

// grantObjects resolves GRANT's ON clause.
func (s *Session) grantObjects(ctx context.Context, gs *pg.GrantStmt) ([]meta.Object, error) {
	var out []meta.Object
	switch gs.Targtype {
	case pg.GrantTargetType_ACL_TARGET_ALL_IN_SCHEMA:
		for _, n := range gs.Objects {
			ns := n.GetString_().GetSval()
			if err := s.schemaMustExist(ctx, ns); err != nil {
				return nil, err
			}
			if err := s.useSchema(ctx, ns); err != nil {
				return nil, err
			}
			switch gs.Objtype {
			case pg.ObjectType_OBJECT_TABLE:
				names, err := s.relationsIn(ctx, ns)
				if err != nil {
					return nil, err
				}
				for _, name := range names {
					out = append(out, tableObject(ns, name))
				}
			case pg.ObjectType_OBJECT_SEQUENCE:
				names, err := s.eng.meta.ListSequences(ctx, ns)
				if err != nil {
					return nil, err
				}
				for _, name := range names {
					out = append(out, meta.Object{Kind: meta.KindSequence, Schema: ns, Name: name})
				}
			default:
				return nil, pgerr.New(pgerr.FeatureNotSupported, "GRANT ON ALL %s IN SCHEMA is not supported", parseObjectWord(gs.Objtype))
			}
		}
		return out, nil
	case pg.GrantTargetType_ACL_TARGET_OBJECT:
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this form of GRANT is not supported")
	}
	for _, n := range gs.Objects {
		switch gs.Objtype {
		case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_SEQUENCE:
			rv := n.GetRangeVar()
			if rv.Schemaname != "" {
				if err := s.useSchema(ctx, rv.Schemaname); err != nil {
					return nil, err
				}
			}
			ti, err := s.catalog().Table(ctx, rv.Schemaname, rv.Relname)
			if err != nil {
				return nil, err
			}
			obj := tableObject(ti.Namespace, ti.Name)
			if ti.Sequence {
				obj.Kind = meta.KindSequence
			} else if gs.Objtype == pg.ObjectType_OBJECT_SEQUENCE {
				return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", ti.Name)
			}
			out = append(out, obj)
		case pg.ObjectType_OBJECT_SCHEMA:
			ns := n.GetString_().GetSval()
			if err := s.schemaMustExist(ctx, ns); err != nil {
				return nil, err
			}
			out = append(out, schemaObject(ns))
		case pg.ObjectType_OBJECT_DATABASE:
			db := n.GetString_().GetSval()
			if db != s.database {
				return nil, pgerr.New(pgerr.InvalidCatalogName, "database %q does not exist", db)
			}
			out = append(out, meta.Object{Kind: meta.KindDatabase, Name: db})
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "GRANT on %s is not supported", parseObjectWord(gs.Objtype))
		}
	}
	return out, nil
}

// relationsIn lists the tables and views of a schema.
func (s *Session) relationsIn(ctx context.Context, ns string) ([]string, error) {
	tables, err := s.eng.meta.ListTables(ctx, ns)
	if err != nil {
		return nil, err
	}
	views, err := s.eng.meta.ListViews(ctx, ns)
	if err != nil {
		return nil, err
	}
	return append(tables, views...), nil
}

func (s *Session) schemaMustExist(ctx context.Context, ns string) error {
	ok, err := s.eng.store.NamespaceExists(ctx, ns)
	if err != nil {
		return err
	}
	if !ok {
		return pgerr.New(pgerr.UndefinedSchema, "schema %q does not exist", ns)
	}
	return nil
}

func parseObjectWord(t pg.ObjectType) string {
	return strings.TrimPrefix(t.String(), "OBJECT_")
}

// grantPrivileges is the privilege list of GRANT for an object kind; an
// empty list is ALL. what names the kind in the invalid-privilege error
// (default: the kind).
func grantPrivileges(privs []*pg.Node, kind, what string) ([]string, error) {
	if len(privs) == 0 {
		return privilegeWords[kind], nil
	}
	var out []string
	for _, n := range privs {
		ap := n.GetAccessPriv()
		if len(ap.Cols) > 0 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "column privileges are not supported")
		}
		p := privilegeName(ap.PrivName)
		if !validPrivilege(kind, p) {
			if what == "" {
				what = kind
			}
			return nil, pgerr.New("0LP01", "invalid privilege type %s for %s", p, what)
		}
		out = append(out, p)
	}
	return out, nil
}

// grantees resolves GRANT's TO list: every role must exist.
func (s *Session) grantees(ctx context.Context, specs []*pg.Node) ([]string, error) {
	var out []string
	for _, n := range specs {
		name := s.roleSpecName(n.GetRoleSpec())
		if name != meta.PublicRole {
			if _, err := s.roleNamed(ctx, name); err != nil {
				return nil, err
			}
		}
		out = append(out, name)
	}
	return out, nil
}

// grantorFor checks the current role may grant (or revoke) privs on obj
// and returns who is recorded as the grantor and the privileges it may
// grant, as PostgreSQL's restrict_and_check_grant: the owner grants
// everything (PostgreSQL performs a superuser's GRANT as the owner's);
// another role those it holds the grant option of, with a WARNING for
// the rest, and fails only when it holds nothing at all on obj.
func (s *Session) grantorFor(ctx context.Context, obj meta.Object, privs []string, grant, all bool) (string, []string, error) {
	owner, err := meta.OwnerOf(ctx, s.eng.meta, obj)
	if err != nil {
		return "", nil, err
	}
	ok, err := s.owns(ctx, obj)
	if err != nil {
		return "", nil, err
	}
	if ok {
		return owner, privs, nil
	}
	me := s.currentRole()
	roles, err := meta.EffectiveRoles(ctx, s.eng.meta, me)
	if err != nil {
		return "", nil, err
	}
	grants, err := s.eng.meta.Grants(ctx, &obj)
	if err != nil {
		return "", nil, err
	}
	var grantable []string
	holdsAny := false
	for _, p := range privs {
		held := false
		for _, g := range grants {
			held = held || g.Privilege == p && g.GrantOption && roles[g.Grantee]
		}
		if held {
			grantable = append(grantable, p)
		}
	}
	for _, g := range grants {
		holdsAny = holdsAny || roles[g.Grantee] || g.Grantee == meta.PublicRole
	}
	if len(grantable) == 0 && !holdsAny {
		return "", nil, denied(obj)
	}
	name := obj.Name
	switch {
	case len(grantable) == 0 && grant:
		s.warning("01007", "no privileges were granted for \""+name+"\"")
	case len(grantable) == 0:
		s.warning("01006", "no privileges could be revoked for \""+name+"\"")
	case len(grantable) < len(privs) && !all && grant:
		s.warning("01007", "not all privileges were granted for \""+name+"\"")
	case len(grantable) < len(privs) && !all:
		s.warning("01006", "not all privileges could be revoked for \""+name+"\"")
	}
	return me, grantable, nil
}

// grantedBy reports whether g's grantee holds g's privilege from g's
// grantor (or not at all, when REVOKE is a no-op either way). The
// metastore keeps one grant per grantee and privilege, with its first
// grantor. The owner's grants are those of any grantor that holds no
// grant option now: a former owner's, as PostgreSQL hands those on to
// the new owner.
func (s *Session) grantedBy(ctx context.Context, g meta.Grant) (bool, error) {
	obj := g.Object
	grants, err := s.eng.meta.Grants(ctx, &obj)
	if err != nil {
		return false, err
	}
	owner, err := meta.OwnerOf(ctx, s.eng.meta, obj)
	if err != nil {
		return false, err
	}
	holdsOption := func(role string) bool {
		for _, h := range grants {
			if h.Grantee == role && h.Privilege == g.Privilege && h.GrantOption {
				return true
			}
		}
		return false
	}
	for _, h := range grants {
		if h.Grantee == g.Grantee && h.Privilege == g.Privilege {
			return h.Grantor == g.Grantor || g.Grantor == owner && !holdsOption(h.Grantor), nil
		}
	}
	return true, nil
}

// revokeDependent handles the grants g.Grantee made with the grant
// option g takes away: an error unless CASCADE, which revokes them too
// (and theirs), as PostgreSQL's REVOKE does.
func (s *Session) revokeDependent(ctx context.Context, g meta.Grant, cascade bool) error {
	obj := g.Object
	grants, err := s.eng.meta.Grants(ctx, &obj)
	if err != nil {
		return err
	}
	hadOption := false
	for _, h := range grants {
		hadOption = hadOption || h.Grantee == g.Grantee && h.Privilege == g.Privilege && h.GrantOption
	}
	if !hadOption {
		return nil
	}
	for _, h := range grants {
		if h.Grantor != g.Grantee || h.Privilege != g.Privilege || h.Grantee == g.Grantee {
			continue
		}
		if !cascade {
			e := pgerr.New("2BP01", "dependent privileges exist")
			e.Hint = "Use CASCADE to revoke them too."
			return e
		}
		dep := meta.Grant{Grantee: h.Grantee, Privilege: h.Privilege, Object: obj}
		if err := s.revokeDependent(ctx, dep, true); err != nil {
			return err
		}
		if err := s.applyGrant(ctx, dep, false); err != nil {
			return err
		}
	}
	return nil
}

// alterDefaultPrivileges is ALTER DEFAULT PRIVILEGES [FOR ROLE r] [IN
// SCHEMA s] GRANT|REVOKE … ON TABLES|SEQUENCES|SCHEMAS TO|FROM ….
func (s *Session) alterDefaultPrivileges(ctx context.Context, ad *pg.AlterDefaultPrivilegesStmt) (*Cursor, error) {
	owners := []string{s.currentRole()}
	schemas := []string{""}
	for _, o := range ad.Options {
		d := o.GetDefElem()
		switch d.Defname {
		case "roles":
			owners = roleNames(d.Arg, s)
		case "schemas":
			schemas = nil
			for _, it := range d.Arg.GetList().GetItems() {
				ns := it.GetString_().GetSval()
				if err := s.schemaMustExist(ctx, ns); err != nil {
					return nil, err
				}
				schemas = append(schemas, ns)
			}
		}
	}
	me, err := s.principalRole(ctx)
	if err != nil {
		return nil, err
	}
	for _, owner := range owners {
		if _, err := s.roleNamed(ctx, owner); err != nil {
			return nil, err
		}
		if !me.Superuser {
			roles, err := meta.EffectiveRoles(ctx, s.eng.meta, me.Name)
			if err != nil {
				return nil, err
			}
			if !roles[owner] {
				return nil, pgerr.New(pgerr.InsufficientPrivilege, "must be member of role %q", owner)
			}
		}
	}
	gs := ad.Action
	var kind string
	switch gs.Objtype {
	case pg.ObjectType_OBJECT_TABLE:
		kind = meta.KindTable
	case pg.ObjectType_OBJECT_SEQUENCE:
		kind = meta.KindSequence
	case pg.ObjectType_OBJECT_SCHEMA:
		kind = meta.KindSchema
		if len(schemas) > 1 || schemas[0] != "" {
			return nil, pgerr.New("0LP01", "cannot use IN SCHEMA clause when using GRANT/REVOKE ON SCHEMAS")
		}
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER DEFAULT PRIVILEGES on %s is not supported", parseObjectWord(gs.Objtype))
	}
	what := kind
	if kind == meta.KindTable {
		what = "relation" // ALTER DEFAULT PRIVILEGES says relation, GRANT table
	}
	privs, err := grantPrivileges(gs.Privileges, kind, what)
	if err != nil {
		return nil, err
	}
	grantees, err := s.grantees(ctx, gs.Grantees)
	if err != nil {
		return nil, err
	}
	for _, owner := range owners {
		for _, ns := range schemas {
			for _, grantee := range grantees {
				for _, p := range privs {
					d := meta.DefaultPrivilege{Owner: owner, Schema: ns, Kind: kind, Grantee: grantee, Privilege: p, GrantOption: gs.GrantOption}
					if err := s.eng.meta.SetDefaultPrivilege(ctx, d, gs.IsGrant); err != nil {
						return nil, err
					}
					s.onRollback(func(ctx context.Context) error { return s.eng.meta.SetDefaultPrivilege(ctx, d, !gs.IsGrant) })
				}
			}
		}
	}
	return &Cursor{tag: "ALTER DEFAULT PRIVILEGES", sess: s}, nil
}

// changeOwner is ALTER TABLE|VIEW|SEQUENCE|SCHEMA … OWNER TO role: the
// current role must own the object and be a member of the new owner
// (superusers may do anything).
func (s *Session) changeOwner(ctx context.Context, obj meta.Object, kindWord string, newOwner *pg.RoleSpec) error {
	if err := s.requireOwner(ctx, obj, kindWord); err != nil {
		return err
	}
	to := s.roleSpecName(newOwner)
	if _, err := s.roleNamed(ctx, to); err != nil {
		return err
	}
	p, err := s.principal(ctx)
	if err != nil {
		return err
	}
	if !p.Superuser {
		roles, err := meta.EffectiveRoles(ctx, s.eng.meta, p.Name)
		if err != nil {
			return err
		}
		if !roles[to] {
			return pgerr.New(pgerr.InsufficientPrivilege, "must be member of role %q", to)
		}
		// The new owner of a relation must be able to create it in its
		// schema; of a schema, the role changing it must hold CREATE on
		// the database (PostgreSQL checks the current role there).
		where := meta.Object{Kind: meta.KindSchema, Name: obj.Schema}
		np, err := s.rolePrincipal(ctx, to)
		if obj.Kind == meta.KindSchema {
			where = meta.Object{Kind: meta.KindDatabase, Name: s.database}
			np = p
		}
		if err != nil {
			return err
		}
		ok, err := s.eng.authz.Allowed(ctx, np, "CREATE", where)
		if err != nil {
			return err
		}
		if !ok {
			return denied(where)
		}
	}
	old, err := meta.OwnerOf(ctx, s.eng.meta, obj)
	if err != nil {
		return err
	}
	if err := s.eng.meta.SetOwner(ctx, obj, to); err != nil {
		return err
	}
	s.onRollback(func(ctx context.Context) error { return s.eng.meta.SetOwner(ctx, obj, old) })
	return s.eng.authz.Refresh(ctx)
}
