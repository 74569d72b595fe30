package pgcatalog

import (
	"context"
	"strings"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/meta"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// privilegeKinds are the privileges each has_*_privilege function (and
// pg_has_role) checks.
var privilegeKinds = map[string][]string{
	"has_table_privilege":      {"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"},
	"has_sequence_privilege":   {"USAGE", "SELECT", "UPDATE"},
	"has_schema_privilege":     {"CREATE", "USAGE"},
	"has_database_privilege":   {"CREATE", "CONNECT", "TEMPORARY", "TEMP"},
	"has_column_privilege":     {"SELECT", "INSERT", "UPDATE", "REFERENCES"},
	"has_any_column_privilege": {"SELECT", "INSERT", "UPDATE", "REFERENCES"},
	"pg_has_role":              {"MEMBER", "USAGE"},
	"has_tablespace_privilege": {"CREATE"},
}

// wantPriv is one privilege a call asks about.
type wantPriv struct {
	name        string
	grantOption bool // WITH GRANT OPTION (WITH ADMIN OPTION for pg_has_role)
}

// parsePrivs parses a privilege list as PostgreSQL does: names separated
// by commas, any case, each optionally WITH GRANT OPTION.
func parsePrivs(list string, kinds []string, role bool) ([]wantPriv, error) {
	var out []wantPriv
	for _, p := range strings.Split(list, ",") {
		p = strings.Join(strings.Fields(strings.ToUpper(p)), " ")
		w := wantPriv{}
		for _, suffix := range []string{" WITH GRANT OPTION", " WITH ADMIN OPTION"} {
			if cut, ok := strings.CutSuffix(p, suffix); ok && (suffix == " WITH ADMIN OPTION") == role {
				p, w.grantOption = cut, true
			}
		}
		for _, k := range kinds {
			if k == p {
				w.name = k
			}
		}
		if w.name == "" {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: %q", strings.TrimSpace(list))
		}
		if w.name == "TEMP" {
			w.name = "TEMPORARY"
		}
		out = append(out, w)
	}
	return out, nil
}

// privilegeFunc binds has_table/sequence/schema/database/column_privilege,
// has_any_column_privilege and pg_has_role. The object, the role and the
// privilege names are checked as PostgreSQL checks them when the call is
// bound; whether the role holds the privilege is asked of the authorizer
// (Source.Allowed) on each call, so the answer is enforcement's, as of
// the statement. nil for other names and forms.
func (s *Session) privilegeFunc(ctx context.Context, name string, args []types.T) (*Func, error) {
	kinds, ok := privilegeKinds[name]
	objArgs := 1
	if name == "has_column_privilege" {
		objArgs = 2
	}
	if !ok || len(args) != objArgs+1 && len(args) != objArgs+2 {
		return nil, nil
	}
	m, err := s.regMaps(ctx)
	if err != nil {
		return nil, err
	}
	rels, err := s.relations(ctx)
	if err != nil {
		return nil, err
	}
	relByOID := map[int64]relation{}
	for _, r := range rels {
		relByOID[int64(ObjectOID(r.ns, r.name))] = r
	}
	withUser := len(args) == objArgs+2
	want := make([]types.T, len(args))
	for i, a := range args {
		want[i] = types.TText
		if k := a.Kind; (k == types.OID || k == types.Regclass || a.IsInteger()) && i < len(args)-1 {
			want[i] = types.TOID
			if k == types.Regclass {
				want[i] = types.Of(types.Regclass)
			}
			if name == "has_column_privilege" && i == len(args)-2 {
				want[i] = types.TInt2 // the column's attnum
			}
		}
	}
	bindCtx := ctx
	return &Func{Args: want, Result: types.TBool, Strict: true, Fn: func(ec *expr.Ctx, d []types.Datum) (types.Datum, error) {
		ctx := runContext(ec, bindCtx)
		rs, err := s.roleSet(ctx)
		if err != nil {
			return types.Datum{}, err
		}
		role := s.src.CurrentRole()
		if withUser {
			switch u := d[0]; {
			case u.T.Kind != types.Text:
				if r, ok := rs.byOID[u.I]; ok {
					role = r.Name
				} else {
					role = "" // no such role: holds nothing
				}
			case u.S == "public":
				role = meta.PublicRole
			default:
				if _, ok := rs.byName[u.S]; !ok {
					return types.Datum{}, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", u.S)
				}
				role = u.S
			}
			d = d[1:]
		}
		privs, err := parsePrivs(d[len(d)-1].S, kinds, name == "pg_has_role")
		if err != nil {
			return types.Datum{}, err
		}
		held := func(check func(w wantPriv) (bool, error)) (types.Datum, error) {
			if role == "" {
				return dBool(false), nil
			}
			for _, w := range privs {
				ok, err := check(w)
				if err != nil || ok {
					return dBool(ok), err
				}
			}
			return dBool(false), nil
		}
		super := role != meta.PublicRole && rs.superuser(role)
		obj := d[0]
		switch name {
		case "pg_has_role":
			of := obj.S
			if obj.T.Kind != types.Text {
				r, ok := rs.byOID[obj.I]
				if !ok {
					return types.NullOf(types.TBool), nil
				}
				of = r.Name
			} else if _, ok := rs.byName[of]; !ok {
				return types.Datum{}, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", of)
			}
			return held(func(w wantPriv) (bool, error) {
				if super || role == of && !w.grantOption {
					return true, nil
				}
				if w.grantOption {
					return rs.adminOf(role, of), nil
				}
				return rs.closure(role, w.name == "USAGE")[of], nil
			})
		case "has_schema_privilege":
			ns := obj.S
			if obj.T.Kind == types.OID {
				if ns, ok = m.nsName[obj.I]; !ok {
					return types.NullOf(types.TBool), nil
				}
			} else if _, ok := m.nsOID[ns]; !ok {
				return types.Datum{}, pgerr.New(pgerr.UndefinedSchema, "schema %q does not exist", obj.S)
			}
			return held(func(w wantPriv) (bool, error) {
				if systemSchema(ns) {
					return super || w.name == "USAGE" && !w.grantOption, nil
				}
				return s.src.Allowed(ctx, role, w.name, schemaObject(ns), w.grantOption)
			})
		case "has_tablespace_privilege":
			// pg_default and pg_global are the bootstrap superuser's, and
			// grant nothing to others.
			if obj.T.Kind == types.OID {
				if obj.I != 1663 && obj.I != 1664 {
					return types.NullOf(types.TBool), nil
				}
			} else if obj.S != "pg_default" && obj.S != "pg_global" {
				return types.Datum{}, pgerr.New(pgerr.UndefinedObject, "tablespace %q does not exist", obj.S)
			}
			return held(func(wantPriv) (bool, error) { return super, nil })
		case "has_database_privilege":
			if obj.T.Kind == types.OID {
				if obj.I != oidDatabase {
					return types.NullOf(types.TBool), nil
				}
			} else if obj.S != s.src.Database() {
				return types.Datum{}, pgerr.New("3D000", "database %q does not exist", obj.S)
			}
			return held(func(w wantPriv) (bool, error) {
				// PUBLIC may connect and make temporary tables, as
				// PostgreSQL's default database privileges say.
				if w.name != "CREATE" && !w.grantOption {
					return true, nil
				}
				return s.src.Allowed(ctx, role, w.name, meta.Object{Kind: meta.KindDatabase, Name: s.src.Database()}, w.grantOption)
			})
		}
		// A table, view or sequence, then for has_column_privilege a
		// column.
		var oid int64
		if obj.T.Kind == types.OID {
			if _, ok := m.relName[obj.I]; !ok {
				return types.NullOf(types.TBool), nil
			}
			oid = obj.I
		} else {
			n := strings.ToLower(obj.S)
			if strings.HasPrefix(obj.S, `"`) {
				n = strings.ReplaceAll(strings.Trim(obj.S, `"`), `""`, `"`)
			}
			if oid, ok = m.relOID[strings.TrimPrefix(n, "pg_catalog.")]; !ok {
				if oid, ok = m.relOID[n]; !ok {
					return types.Datum{}, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", obj.S)
				}
			}
		}
		r, ok := relByOID[oid]
		if !ok {
			return types.NullOf(types.TBool), nil // an index
		}
		if name == "has_sequence_privilege" && r.kind != "S" {
			return types.Datum{}, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", m.relName[oid])
		}
		if name == "has_column_privilege" {
			c, found := d[1], false
			for i, vc := range r.cols {
				found = found || c.T.Kind == types.Int2 && c.I == int64(i+1) || c.T.Kind != types.Int2 && vc.name == c.S
			}
			if !found && c.T.Kind == types.Int2 {
				return types.NullOf(types.TBool), nil
			}
			if !found {
				return types.Datum{}, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", c.S, m.relName[oid])
			}
		}
		return held(func(w wantPriv) (bool, error) {
			if systemSchema(r.ns) {
				rel := s.reg.Lookup(r.ns, r.name)
				return super || w.name == "SELECT" && !w.grantOption && rel != nil && !rel.superuserOnly, nil
			}
			return s.src.Allowed(ctx, role, w.name, relObject(r), w.grantOption)
		})
	}}, nil
}

// adminOf says whether role may grant membership in of: a member of it
// WITH ADMIN OPTION (directly or through roles it is a member of).
func (rs *roleSet) adminOf(role, of string) bool {
	in := rs.closure(role, false)
	for _, m := range rs.members {
		if m.Role == of && m.Admin && in[m.Member] {
			return true
		}
	}
	return false
}

// runContext is the running statement's context, which a catalog
// function reads the metastore under (a cancel ends the read), else the
// one it was bound under (a constant folded as it is planned).
func runContext(ec *expr.Ctx, bound context.Context) context.Context {
	if ec != nil && ec.Context != nil {
		return ec.Context
	}
	return bound
}
