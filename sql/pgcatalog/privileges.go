package pgcatalog

import (
	"context"
	"strings"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// privilegeKinds are the privileges each has_*_privilege function checks.
var privilegeKinds = map[string][]string{
	"has_table_privilege":    {"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"},
	"has_schema_privilege":   {"CREATE", "USAGE"},
	"has_database_privilege": {"CREATE", "CONNECT", "TEMPORARY", "TEMP"},
	"has_column_privilege":   {"SELECT", "INSERT", "UPDATE", "REFERENCES"},
}

// privilegeFunc binds has_table/schema/database/column_privilege: Loam has
// one superuser role, so every privilege on an existing object is held,
// but the object, the role and the privilege names are checked as
// PostgreSQL checks them. nil for other names and forms.
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
	cols := map[int64][]vcol{}
	for _, r := range rels {
		cols[int64(ObjectOID(r.ns, r.name))] = r.cols
	}
	user := s.src.User()
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
	return &Func{Args: want, Result: types.TBool, Strict: true, Fn: func(_ *expr.Ctx, d []types.Datum) (types.Datum, error) {
		public := false // the PUBLIC pseudo-role: PostgreSQL 15's default grants
		if withUser {
			public = d[0].T.Kind == types.Text && strings.EqualFold(d[0].S, "public")
			if d[0].T.Kind == types.Text && d[0].S != user && !public {
				return types.Datum{}, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", d[0].S)
			}
			d = d[1:]
		}
		held := true
		for _, p := range strings.Split(d[len(d)-1].S, ",") {
			p = strings.ToUpper(strings.TrimSpace(p))
			p = strings.TrimSpace(strings.TrimSuffix(p, " WITH GRANT OPTION"))
			found := false
			for _, k := range kinds {
				found = found || k == p
			}
			// PUBLIC holds USAGE on schemas and CONNECT and TEMP on the
			// database, no table privileges.
			if public && !(name == "has_schema_privilege" && p == "USAGE" || name == "has_database_privilege" && p != "CREATE") {
				held = false
			}
			if !found {
				return types.Datum{}, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: %q", strings.TrimSpace(d[len(d)-1].S))
			}
		}
		obj := d[0]
		switch name {
		case "has_schema_privilege":
			if obj.T.Kind == types.OID {
				if _, ok := m.nsName[obj.I]; !ok {
					return types.NullOf(types.TBool), nil
				}
				return dBool(held), nil
			}
			if _, ok := m.nsOID[obj.S]; !ok {
				return types.Datum{}, pgerr.New(pgerr.UndefinedSchema, "schema %q does not exist", obj.S)
			}
		case "has_database_privilege":
			if obj.T.Kind == types.OID {
				if obj.I != oidDatabase {
					return types.NullOf(types.TBool), nil
				}
				return dBool(held), nil
			}
			if obj.S != s.src.Database() {
				return types.Datum{}, pgerr.New("3D000", "database %q does not exist", obj.S)
			}
		default: // a table, then for has_column_privilege a column
			var rel int64
			switch obj.T.Kind {
			case types.OID:
				if _, ok := m.relName[obj.I]; !ok {
					return types.NullOf(types.TBool), nil
				}
				rel = obj.I
			default:
				n := strings.ToLower(obj.S)
				if strings.HasPrefix(obj.S, `"`) {
					n = strings.ReplaceAll(strings.Trim(obj.S, `"`), `""`, `"`)
				}
				if rel, ok = m.relOID[strings.TrimPrefix(n, "pg_catalog.")]; !ok {
					if rel, ok = m.relOID[n]; !ok {
						return types.Datum{}, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", obj.S)
					}
				}
			}
			if name == "has_column_privilege" {
				c := d[1]
				for i, vc := range cols[rel] {
					if c.T.Kind == types.Int2 && c.I == int64(i+1) || c.T.Kind != types.Int2 && vc.name == c.S {
						return dBool(held), nil
					}
				}
				if c.T.Kind == types.Int2 {
					return types.NullOf(types.TBool), nil
				}
				return types.Datum{}, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", c.S, m.relName[rel])
			}
		}
		return dBool(held), nil
	}}, nil
}
