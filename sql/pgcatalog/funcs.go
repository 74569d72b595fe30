package pgcatalog

import (
	"context"
	"strconv"
	"strings"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Value is the value of current_user, current_catalog or current_schema
// (and their synonyms, which the binder maps to these names); ok is false
// for other names or without a session.
func (s *Session) Value(ctx context.Context, name string) (d types.Datum, ok bool) {
	if s.src == nil {
		return types.Datum{}, false
	}
	switch name {
	case "current_user":
		return dName(s.src.CurrentRole()), true
	case "session_user":
		return dName(s.src.SessionUser()), true
	case "current_catalog":
		return dName(s.src.Database()), true
	case "current_schema":
		return s.currentSchema(ctx), true
	}
	return types.Datum{}, false
}

// currentSchema is the first schema of the search path that exists
// (pg_catalog and information_schema included: BI tools connect with
// options=-csearch_path=...).
func (s *Session) currentSchema(ctx context.Context) types.Datum {
	nss, _ := s.allSchemas(ctx)
	for _, p := range s.src.SearchPath() {
		for _, ns := range nss {
			if ns == p {
				return dName(p)
			}
		}
	}
	return types.NullOf(types.TName)
}

// Func is a catalog function as the session sees it, for the binder to
// call: the types its arguments are coerced to, its result and its
// row-wise body; or, when Const is set, the constant it is (its arguments
// not evaluated). What a body reads of the catalogs is read when Func
// is called, once per statement.
type Func struct {
	Args   []types.T
	Result types.T
	Strict bool
	Fn     expr.RowFunc
	Const  *types.Datum
}

// Func finds the functions clients call on the catalog (psql's \d,
// drivers' type loading, Grafana) by name and argument types; nil for
// other names and forms.
func (s *Session) Func(ctx context.Context, name string, args []types.T) (*Func, error) {
	if s.src == nil {
		return nil, nil
	}
	// fn is a row-wise call with the arguments coerced to want.
	fn := func(rt types.T, want []types.T, strict bool, f expr.RowFunc) (*Func, error) {
		if len(args) != len(want) {
			return nil, nil
		}
		return &Func{Args: want, Result: rt, Strict: strict, Fn: f}, nil
	}
	constant := func(d types.Datum) (*Func, error) { return &Func{Const: &d}, nil }
	switch name {
	case "pg_is_in_recovery":
		// pg_dump's and pg_restore's first question: Loam is no standby.
		if len(args) == 0 {
			return constant(dBool(false))
		}
	case "current_database":
		if len(args) == 0 {
			return constant(dName(s.src.Database()))
		}
	case "current_schema":
		if len(args) == 0 {
			return constant(s.currentSchema(ctx))
		}
	case "current_schemas":
		// The implicit pg_catalog comes first when asked for, unless the
		// path names it.
		nss, _ := s.allSchemas(ctx)
		var path []string
		explicit := false
		for _, s := range s.src.SearchPath() {
			for _, ns := range nss {
				if ns == s {
					path = append(path, s)
					explicit = explicit || s == "pg_catalog"
				}
			}
		}
		return fn(types.ArrayOf(types.Name), []types.T{types.TBool}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			p := path
			if a[0].I != 0 && !explicit {
				p = append([]string{"pg_catalog"}, path...)
			}
			return types.Datum{T: types.ArrayOf(types.Name), S: "{" + strings.Join(p, ",") + "}"}, nil
		})
	case "version":
		if len(args) == 0 {
			return constant(dText("PostgreSQL " + s.src.Settings()["server_version"] + " (Loam) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"))
		}
	case "pg_get_userbyid":
		rs, err := s.roleSet(ctx)
		if err != nil {
			return nil, err
		}
		return fn(types.TName, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			return dName(rs.roleName(a[0].I)), nil
		})
	case "pg_table_is_visible":
		rels, err := s.relations(ctx)
		if err != nil {
			return nil, err
		}
		visible := map[int64]bool{}
		for _, r := range rels {
			if s.isVisible(r.ns) {
				visible[int64(ObjectOID(r.ns, r.name))] = true
				for _, k := range r.keys {
					visible[int64(r.keyOID(k))] = true
				}
			}
		}
		return fn(types.TBool, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			return dBool(visible[a[0].I]), nil
		})
	case "pg_type_is_visible":
		// Every type Loam has (pg_type's rows) lives in pg_catalog, which
		// is always searched; an unknown OID is NULL, as in PostgreSQL.
		known := map[int64]bool{}
		for _, pt := range pgTypes {
			known[int64(pt.t.OID())] = true
			known[int64(types.ArrayOf(pt.t.Kind).OID())] = true
		}
		return fn(types.TBool, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			if !known[a[0].I] {
				return types.NullOf(types.TBool), nil
			}
			return dBool(true), nil
		})
	case "format_type":
		return fn(types.TText, []types.T{types.TOID, types.TInt4}, false, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			if a[0].Null {
				return types.NullOf(types.TText), nil
			}
			if a[0].I == 0 {
				return dText("-"), nil // InvalidOid, as PostgreSQL prints it
			}
			if a[0].I == types.OIDRecord {
				// The pseudo-type of a set-returning function's row
				// (SELECT jsonb_each(x)), which pg_type lists and Loam's
				// catalog does not.
				return dText("record"), nil
			}
			t, ok := typeByOID(uint32(a[0].I))
			if !ok {
				return dText("???"), nil
			}
			if !a[1].Null {
				t = withTypmod(t, int32(a[1].I))
			}
			s := t.String()
			if t.Kind == types.QChar {
				s = `"char"`
			}
			return dText(s), nil
		})
	case "parse_ident":
		parse := func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			strict := len(a) < 2 || a[1].I != 0
			parts, err := parseIdent(a[0].S, strict)
			if err != nil {
				return types.Datum{}, err
			}
			buf := []byte{'{'}
			for i, p := range parts {
				if i > 0 {
					buf = append(buf, ',')
				}
				buf = types.AppendArrayElem(buf, p)
			}
			return types.Datum{T: types.ArrayOf(types.Text), S: string(append(buf, '}'))}, nil
		}
		if len(args) == 1 {
			return fn(types.ArrayOf(types.Text), []types.T{types.TText}, true, parse)
		}
		return fn(types.ArrayOf(types.Text), []types.T{types.TText, types.TBool}, true, parse)
	case "pg_get_expr":
		// Loam stores no expression trees: the text stand-ins are passed
		// through, column defaults (pg_attrdef.adbin) as DefaultText.
		if len(args) == 2 {
			return fn(types.TText, []types.T{types.TText, types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
				return dText(DefaultText(a[0].S, false)), nil
			})
		}
		return fn(types.TText, []types.T{types.TText, types.TOID, types.TBool}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			return dText(DefaultText(a[0].S, a[2].I != 0)), nil
		})
	case "pg_get_indexdef", "pg_get_constraintdef":
		// The only indexes and constraints are keys: PRIMARY KEY and
		// UNIQUE.
		rels, err := s.relations(ctx)
		if err != nil {
			return nil, err
		}
		type relAndKey struct {
			r relation
			k tableKey
		}
		byOID := map[int64]relAndKey{}
		for _, r := range rels {
			for _, k := range r.keys {
				if name == "pg_get_indexdef" {
					byOID[int64(r.keyOID(k))] = relAndKey{r, k}
				} else {
					byOID[int64(r.keyConOID(k))] = relAndKey{r, k}
				}
			}
		}
		others := map[int64]string{}
		if name == "pg_get_constraintdef" {
			for _, r := range rels {
				for _, c := range r.cons {
					others[int64(r.conOID(c))] = c.Def
				}
			}
		}
		def := func(a []types.Datum) (types.Datum, error) {
			if d, ok := others[a[0].I]; ok {
				return dText(d), nil
			}
			rk, ok := byOID[a[0].I]
			if !ok {
				return types.NullOf(types.TText), nil
			}
			r := rk.r
			var cols []string
			for _, k := range rk.k.cols {
				cols = append(cols, expr.QuoteIdent(r.cols[k-1].name))
			}
			if name == "pg_get_constraintdef" {
				if !rk.k.primary {
					nulls := ""
					if rk.k.nullsNotDistinct {
						nulls = "NULLS NOT DISTINCT "
					}
					return dText("UNIQUE " + nulls + "(" + strings.Join(cols, ", ") + ")"), nil
				}
				return dText("PRIMARY KEY (" + strings.Join(cols, ", ") + ")"), nil
			}
			if len(a) == 3 && a[1].I != 0 {
				// One column's definition: its name.
				if a[1].I < 0 || int(a[1].I) > len(cols) {
					return dText(""), nil
				}
				return dText(cols[a[1].I-1]), nil
			}
			// Pretty printing leaves out a schema on the search path.
			tbl := expr.QuoteIdent(r.ns) + "." + expr.QuoteIdent(r.name)
			if len(a) == 3 && a[2].I != 0 && s.isVisible(r.ns) {
				tbl = expr.QuoteIdent(r.name)
			}
			return dText("CREATE UNIQUE INDEX " + expr.QuoteIdent(rk.k.name) + " ON " + tbl + " USING btree (" + strings.Join(cols, ", ") + ")"), nil
		}
		row := func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) { return def(a) }
		switch {
		case len(args) == 1:
			return fn(types.TText, []types.T{types.TOID}, true, row)
		case len(args) == 2 && name == "pg_get_constraintdef":
			return fn(types.TText, []types.T{types.TOID, types.TBool}, true, row)
		case len(args) == 3 && name == "pg_get_indexdef":
			return fn(types.TText, []types.T{types.TOID, types.TInt4, types.TBool}, true, row)
		}
	case "pg_get_viewdef":
		defs, err := s.viewDefs(ctx)
		if err != nil {
			return nil, err
		}
		want := []types.T{types.TOID, types.TBool}[:len(args)]
		return fn(types.TText, want, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) { return defs(a[0].I), nil })
	case "pg_get_statisticsobjdef_columns", "pg_get_triggerdef", "pg_get_ruledef":
		// No extended statistics, triggers or rules to describe.
		if len(args) >= 1 {
			return constant(types.NullOf(types.TText))
		}
	case "pg_get_partkeydef":
		rels, err := s.relations(ctx)
		if err != nil {
			return nil, err
		}
		defs := map[int64]string{}
		for _, r := range rels {
			if r.kind == "p" {
				defs[int64(ObjectOID(r.ns, r.name))] = r.clauses.partKeyDef()
			}
		}
		return fn(types.TText, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			if d, ok := defs[a[0].I]; ok {
				return dText(d), nil
			}
			return types.NullOf(types.TText), nil // not a partitioned table, as in PostgreSQL
		})
	case "pg_partition_ancestors":
		// A Loam table is never a partition: a partitioned one is its own
		// only ancestor. Other relations have none: NULL here, which FROM
		// turns into no row (in a select list it stays one NULL row).
		m, err := s.regMaps(ctx)
		if err != nil {
			return nil, err
		}
		rels, err := s.relations(ctx)
		if err != nil {
			return nil, err
		}
		partitioned := map[int64]bool{}
		for _, r := range rels {
			if r.kind == "p" {
				partitioned[int64(ObjectOID(r.ns, r.name))] = true
			}
		}
		reg := types.Of(types.Regclass)
		return fn(reg, []types.T{reg}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			if partitioned[m.relOID[a[0].S]] {
				return a[0], nil
			}
			return types.NullOf(reg), nil
		})
	case "pg_table_size", "pg_relation_size", "pg_total_relation_size", "pg_indexes_size":
		// A Loam table's size is its data files' (no indexes, no TOAST);
		// catalog tables and views have none.
		m, err := s.regMaps(ctx)
		if err != nil {
			return nil, err
		}
		rels, err := s.relations(ctx)
		if err != nil {
			return nil, err
		}
		sizes := map[int64]int64{}
		for _, r := range rels {
			sizes[int64(ObjectOID(r.ns, r.name))] = r.clauses.size
		}
		if name == "pg_indexes_size" {
			sizes = map[int64]int64{}
		}
		reg := types.Of(types.Regclass)
		f := func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			oid, ok := m.relOID[a[0].S]
			if !ok {
				return types.NullOf(types.TInt8), nil // no such relation, as in PostgreSQL
			}
			return types.Datum{T: types.TInt8, I: sizes[oid]}, nil
		}
		if name == "pg_relation_size" && len(args) == 2 {
			// The fork: only 'main' holds data.
			return fn(types.TInt8, []types.T{reg, types.TText}, true, func(c *expr.Ctx, a []types.Datum) (types.Datum, error) {
				if a[1].S != "main" {
					return types.Datum{T: types.TInt8}, nil
				}
				return f(c, a)
			})
		}
		return fn(types.TInt8, []types.T{reg}, true, f)
	case "pg_tablespace_size":
		// pg_default holds every Loam table, pg_global nothing.
		if len(args) != 1 {
			break
		}
		total, err := s.tablesSize(ctx)
		if err != nil {
			return nil, err
		}
		return fn(types.TInt8, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			switch a[0].I {
			case 1663:
				return types.Datum{T: types.TInt8, I: total}, nil
			case 1664:
				return types.Datum{T: types.TInt8}, nil
			}
			return types.Datum{}, pgerr.New(pgerr.UndefinedObject, "tablespace with OID %d does not exist", a[0].I)
		})
	case "pg_database_size":
		// The one database holds every Loam table.
		if len(args) != 1 {
			break
		}
		total, err := s.tablesSize(ctx)
		if err != nil {
			return nil, err
		}
		db := s.src.Database()
		if t := args[0]; t.Kind == types.OID || t.IsInteger() {
			return fn(types.TInt8, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
				if a[0].I != oidDatabase {
					return types.NullOf(types.TInt8), nil // no such database, as in PostgreSQL
				}
				return types.Datum{T: types.TInt8, I: total}, nil
			})
		}
		return fn(types.TInt8, []types.T{types.TName}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			if a[0].S != db {
				return types.Datum{}, pgerr.New(pgerr.InvalidCatalogName, "database %q does not exist", a[0].S)
			}
			return types.Datum{T: types.TInt8, I: total}, nil
		})
	case "pg_size_pretty":
		if len(args) == 1 && args[0].Kind == types.Numeric {
			// Sizes summed (psql's \dP+) are whole numbers within int8.
			return fn(types.TText, []types.T{types.TNumeric}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
				n, err := strconv.ParseInt(strings.SplitN(a[0].S, ".", 2)[0], 10, 64)
				if err != nil {
					return types.Datum{}, pgerr.New(pgerr.FeatureNotSupported, "pg_size_pretty(%s) is not supported yet", a[0].S)
				}
				return dText(sizePretty(n)), nil
			})
		}
		return fn(types.TText, []types.T{types.TInt8}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			return dText(sizePretty(a[0].I)), nil
		})
	case "pg_get_serial_sequence":
		// The sequence a serial or identity column owns, schema-qualified
		// (SQLAlchemy's reflection asks for identity columns' options).
		if len(args) == 2 {
			rels, err := s.relations(ctx)
			if err != nil {
				return nil, err
			}
			return fn(types.TText, []types.T{types.TText, types.TText}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
				return serialSequence(s.src, rels, a[0].S, a[1].S)
			})
		}
	case "pg_relation_is_publishable":
		if len(args) == 1 {
			return constant(dBool(false))
		}
	case "pg_collation_is_visible":
		// pg_collation's rows all live in pg_catalog.
		return fn(types.TBool, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			switch a[0].I {
			case 100, 950, 951:
				return dBool(true), nil
			}
			return types.NullOf(types.TBool), nil
		})
	case "getdatabaseencoding":
		if len(args) == 0 {
			return constant(dName("UTF8"))
		}
	case "pg_char_to_encoding":
		return fn(types.TInt4, []types.T{types.TName}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			for i, e := range pgEncodings {
				if strings.EqualFold(e, a[0].S) {
					return dInt(int64(i)), nil
				}
			}
			return dInt(-1), nil
		})
	case "pg_encoding_to_char":
		return fn(types.TName, []types.T{types.TInt4}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			if a[0].I >= 0 && a[0].I < int64(len(pgEncodings)) {
				return dName(pgEncodings[a[0].I]), nil
			}
			return dName(""), nil
		})
	case "pg_operator_is_visible", "pg_conversion_is_visible", "pg_ts_config_is_visible", "pg_ts_parser_is_visible",
		"pg_ts_dict_is_visible", "pg_ts_template_is_visible", "pg_opclass_is_visible", "pg_opfamily_is_visible",
		"pg_statistics_obj_is_visible":
		// Their catalogs list nothing: every OID is unknown, NULL as in
		// PostgreSQL.
		return fn(types.TBool, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			return types.NullOf(types.TBool), nil
		})
	case "pg_function_is_visible", "pg_get_function_result", "pg_get_function_arguments", "pg_get_function_identity_arguments", "pg_get_function_sqlbody":
		// pg_proc lists no functions: every OID is unknown, which these
		// answer with NULL in PostgreSQL (psql's \df).
		rt := types.TText
		if name == "pg_function_is_visible" {
			rt = types.TBool
		}
		return fn(rt, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			return types.NullOf(rt), nil
		})
	case "pg_tablespace_location":
		// Loam's tablespaces are PostgreSQL's two built-in ones, which
		// live in the data directory: an empty location.
		return fn(types.TText, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			return dText(""), nil
		})
	case "shobj_description":
		// Loam keeps no comments on shared objects (databases, roles).
		if len(args) == 2 {
			return constant(types.NullOf(types.TText))
		}
	case "obj_description", "col_description":
		return s.descriptionFunc(ctx, name, args, fn)
	case "acldefault":
		return s.acldefaultFunc(ctx, args)
	}
	if f, err := s.privilegeFunc(ctx, name, args); f != nil || err != nil {
		return f, err
	}
	if f, err := s.dumpFunc(ctx, name, args); f != nil || err != nil {
		return f, err
	}
	if strings.HasPrefix(name, "has_") && strings.HasSuffix(name, "_privilege") && len(args) >= 1 {
		// One superuser role: every privilege is held.
		return constant(dBool(true))
	}
	return nil, nil
}

// pgEncodings are PostgreSQL's encoding names by number (pg_wchar.h), for
// pg_encoding_to_char.
var pgEncodings = []string{
	"SQL_ASCII", "EUC_JP", "EUC_CN", "EUC_KR", "EUC_TW", "EUC_JIS_2004", "UTF8", "MULE_INTERNAL",
	"LATIN1", "LATIN2", "LATIN3", "LATIN4", "LATIN5", "LATIN6", "LATIN7", "LATIN8", "LATIN9", "LATIN10",
	"WIN1256", "WIN1258", "WIN866", "WIN874", "KOI8R", "WIN1251", "WIN1252", "ISO_8859_5", "ISO_8859_6",
	"ISO_8859_7", "ISO_8859_8", "WIN1250", "WIN1253", "WIN1254", "WIN1255", "WIN1257", "KOI8U",
	"SJIS", "BIG5", "GBK", "UHC", "GB18030", "JOHAB", "SHIFT_JIS_2004",
}

// descriptionFunc is obj_description(oid[, catalog]) and
// col_description(oid, attnum), looked up in the comments pg_description
// lists, read once when the call is bound.
func (s *Session) descriptionFunc(ctx context.Context, name string, args []types.T,
	fn func(types.T, []types.T, bool, expr.RowFunc) (*Func, error)) (*Func, error) {
	type key struct {
		objoid, classoid int64
		objsubid         int64
	}
	descs, err := s.descriptions(ctx)
	if err != nil {
		return nil, err
	}
	byKey := map[key]string{}
	anyClass := map[int64]string{} // obj_description's one-argument form
	add := func(d description) {
		byKey[key{int64(d.objoid), int64(d.classoid), int64(d.objsubid)}] = d.text
		if d.objsubid == 0 {
			anyClass[int64(d.objoid)] = d.text
		}
	}
	add(description{oidPlpgsql, systemCatalogOIDs["pg_extension"], 0, "PL/pgSQL procedural language"})
	for _, d := range descs {
		add(d)
	}
	found := func(s string, ok bool) (types.Datum, error) {
		if !ok {
			return types.NullOf(types.TText), nil
		}
		return dText(s), nil
	}
	switch {
	case name == "col_description" && len(args) == 2:
		return fn(types.TText, []types.T{types.TOID, types.TInt4}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			text, ok := byKey[key{a[0].I, int64(systemCatalogOIDs["pg_class"]), a[1].I}]
			return found(text, ok)
		})
	case name == "obj_description" && len(args) == 2:
		return fn(types.TText, []types.T{types.TOID, types.TName}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			cls, ok := systemCatalogOIDs[a[1].S]
			if !ok {
				return types.NullOf(types.TText), nil
			}
			text, ok := byKey[key{a[0].I, int64(cls), 0}]
			return found(text, ok)
		})
	case name == "obj_description" && len(args) == 1:
		return fn(types.TText, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			text, ok := anyClass[a[0].I]
			return found(text, ok)
		})
	}
	return nil, nil
}

// tablesSize is the bytes of every Loam table: what the one database and
// pg_default hold.
func (s *Session) tablesSize(ctx context.Context) (int64, error) {
	rels, err := s.relations(ctx)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, r := range rels {
		total += r.clauses.size
	}
	return total, nil
}
