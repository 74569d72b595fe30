package plan

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// sessionValue is current_user, session_user, user, current_role,
// current_catalog or current_schema; ok is false for other ops.
func (b *binder) sessionValue(op pg.SQLValueFunctionOp) (expr.Expr, bool) {
	ci, _ := b.p.cat.(CatalogInfo)
	if ci == nil {
		return nil, false
	}
	switch op {
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_USER, pg.SQLValueFunctionOp_SVFOP_SESSION_USER,
		pg.SQLValueFunctionOp_SVFOP_USER, pg.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return &expr.Const{D: dName(ci.User())}, true
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return &expr.Const{D: dName(ci.Database())}, true
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return &expr.Const{D: currentSchema(b.p.ctx, ci)}, true
	}
	return nil, false
}

// currentSchema is the first schema of the search path that exists
// (pg_catalog and information_schema included: BI tools connect with
// options=-csearch_path=...).
func currentSchema(ctx context.Context, ci CatalogInfo) types.Datum {
	nss, _ := allSchemas(ctx, ci)
	for _, s := range ci.SearchPath() {
		for _, ns := range nss {
			if ns == s {
				return dName(s)
			}
		}
	}
	return types.NullOf(types.TName)
}

// catalogFunc binds the functions clients call on the catalog (psql's \d,
// drivers' type loading, Grafana); ok is false for other names.
func (b *binder) catalogFunc(name string, args []expr.Expr, loc int32) (expr.Expr, bool, error) {
	ci, _ := b.p.cat.(CatalogInfo)
	if ci == nil {
		return nil, false, nil
	}
	// fn builds a row-wise call with the arguments coerced to want.
	fn := func(rt types.T, want []types.T, strict bool, f expr.RowFunc) (expr.Expr, bool, error) {
		if len(args) != len(want) {
			return nil, false, nil
		}
		out := make([]expr.Expr, len(args))
		for i, a := range args {
			c, err := b.coerce(a, want[i], loc)
			if err != nil {
				return nil, true, err
			}
			out[i] = c
		}
		return &expr.Func{Name: name, Args: out, T: rt, Strict: strict, Fn: f}, true, nil
	}
	constant := func(d types.Datum) (expr.Expr, bool, error) { return &expr.Const{D: d}, true, nil }
	switch name {
	case "current_database":
		if len(args) == 0 {
			return constant(dName(ci.Database()))
		}
	case "current_schema":
		if len(args) == 0 {
			return constant(currentSchema(b.p.ctx, ci))
		}
	case "current_schemas":
		// The implicit pg_catalog comes first when asked for, unless the
		// path names it.
		nss, _ := allSchemas(b.p.ctx, ci)
		var path []string
		explicit := false
		for _, s := range ci.SearchPath() {
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
			return constant(dText("PostgreSQL " + ci.Settings()["server_version"] + " (Loam) on x86_64-pc-linux-gnu, compiled by Go, 64-bit"))
		}
	case "pg_get_userbyid":
		user := ci.User()
		return fn(types.TName, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			switch a[0].I {
			case oidBootstrapRole:
				return dName(user), nil
			case oidDatabaseOwner:
				return dName("pg_database_owner"), nil
			}
			return dName("unknown (OID=" + strconv.FormatInt(a[0].I, 10) + ")"), nil
		})
	case "pg_table_is_visible":
		rels, err := relations(b.p.ctx, ci)
		if err != nil {
			return nil, true, err
		}
		visible := map[int64]bool{}
		for _, r := range rels {
			if isVisible(ci, r.ns) {
				visible[int64(ObjectOID(r.ns, r.name))] = true
				if len(r.pkey) > 0 {
					visible[int64(r.pkeyOID())] = true
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
		// The only indexes and constraints are primary keys.
		rels, err := relations(b.p.ctx, ci)
		if err != nil {
			return nil, true, err
		}
		byOID := map[int64]relation{}
		for _, r := range rels {
			if len(r.pkey) == 0 {
				continue
			}
			if name == "pg_get_indexdef" {
				byOID[int64(r.pkeyOID())] = r
			} else {
				byOID[int64(r.pkeyConOID())] = r
			}
		}
		def := func(a []types.Datum) (types.Datum, error) {
			r, ok := byOID[a[0].I]
			if !ok {
				return types.NullOf(types.TText), nil
			}
			var cols []string
			for _, k := range r.pkey {
				cols = append(cols, expr.QuoteIdent(r.cols[k-1].name))
			}
			if name == "pg_get_constraintdef" {
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
			if len(a) == 3 && a[2].I != 0 && isVisible(ci, r.ns) {
				tbl = expr.QuoteIdent(r.name)
			}
			return dText("CREATE UNIQUE INDEX " + expr.QuoteIdent(r.pkeyName()) + " ON " + tbl + " USING btree (" + strings.Join(cols, ", ") + ")"), nil
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
		defs, err := viewDefs(b.p.ctx, ci)
		if err != nil {
			return nil, true, err
		}
		want := []types.T{types.TOID, types.TBool}[:len(args)]
		return fn(types.TText, want, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) { return defs(a[0].I), nil })
	case "pg_get_statisticsobjdef_columns", "pg_get_triggerdef", "pg_get_ruledef":
		// No extended statistics, triggers or rules to describe.
		if len(args) >= 1 {
			return constant(types.NullOf(types.TText))
		}
	case "pg_get_partkeydef":
		rels, err := relations(b.p.ctx, ci)
		if err != nil {
			return nil, true, err
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
		m, err := b.p.regMaps()
		if err != nil {
			return nil, true, err
		}
		rels, err := relations(b.p.ctx, ci)
		if err != nil {
			return nil, true, err
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
		m, err := b.p.regMaps()
		if err != nil {
			return nil, true, err
		}
		rels, err := relations(b.p.ctx, ci)
		if err != nil {
			return nil, true, err
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
		rels, err := relations(b.p.ctx, ci)
		if err != nil {
			return nil, true, err
		}
		var total int64
		for _, r := range rels {
			total += r.clauses.size
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
		rels, err := relations(b.p.ctx, ci)
		if err != nil {
			return nil, true, err
		}
		var total int64
		for _, r := range rels {
			total += r.clauses.size
		}
		db := ci.Database()
		if t := args[0].Type(); t.Kind == types.OID || t.IsInteger() {
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
		if len(args) == 1 && args[0].Type().Kind == types.Numeric {
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
			rels, err := relations(b.p.ctx, ci)
			if err != nil {
				return nil, true, err
			}
			return fn(types.TText, []types.T{types.TText, types.TText}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
				return serialSequence(ci, rels, a[0].S, a[1].S)
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
		return b.descriptionFunc(ci, name, args, fn)
	}
	if e, ok, err := b.privilegeFunc(ci, name, args, loc); ok || err != nil {
		return e, ok, err
	}
	if strings.HasPrefix(name, "has_") && strings.HasSuffix(name, "_privilege") && len(args) >= 1 {
		// One superuser role: every privilege is held.
		return constant(dBool(true))
	}
	return nil, false, nil
}

// regMaps map between OIDs and the names regclass and regtype print.
type regMaps struct {
	relName, typName, nsName map[int64]string
	relOID, typOID, nsOID    map[string]int64
}

func (p *Planner) regMaps() (*regMaps, error) {
	if p.reg != nil {
		return p.reg, nil
	}
	m := &regMaps{relName: map[int64]string{}, typName: map[int64]string{}, relOID: map[string]int64{}, typOID: map[string]int64{},
		nsName: map[int64]string{}, nsOID: map[string]int64{}}
	if ci, ok := p.cat.(CatalogInfo); ok {
		nss, err := allSchemas(p.ctx, ci)
		if err != nil {
			return nil, err
		}
		for _, ns := range nss {
			oid := int64(ObjectOID(ns, ""))
			m.nsName[oid], m.nsOID[ns] = ns, oid
		}
		rels, err := relations(p.ctx, ci)
		if err != nil {
			return nil, err
		}
		// add registers a relation's (or type's) OID and name: regclass
		// prints the bare name when the search path finds it.
		add := func(names map[int64]string, oids map[string]int64, ns, name string, oid int64) {
			shown := ns + "." + name
			if isVisible(ci, ns) {
				shown = name
				if _, taken := oids[name]; !taken {
					oids[name] = oid
				}
			}
			names[oid] = shown
			oids[ns+"."+name] = oid
		}
		for _, r := range rels {
			add(m.relName, m.relOID, r.ns, r.name, int64(ObjectOID(r.ns, r.name)))
			if len(r.pkey) > 0 {
				add(m.relName, m.relOID, r.ns, r.pkeyName(), int64(r.pkeyOID()))
			}
		}
		// Row types, after the built-in types, which win on a name.
		defer func() {
			for _, r := range rels {
				row, _ := r.rowTypeOIDs()
				add(m.typName, m.typOID, r.ns, r.name, int64(row))
			}
		}()
	}
	for _, pt := range pgTypes {
		for _, t := range []types.T{pt.t, types.ArrayOf(pt.t.Kind)} {
			oid := int64(t.OID())
			shown := t.String()
			if t.Kind == types.QChar {
				shown = `"char"`
			}
			m.typName[oid] = shown
			m.typOID[shown] = oid
		}
		m.typOID[pt.name] = int64(pt.t.OID())
		m.typOID["_"+pt.name] = int64(types.ArrayOf(pt.t.Kind).OID())
	}
	p.reg = m
	return m, nil
}

func isReg(k types.Kind) bool { return types.Of(k).IsReg() }

// regCast converts to or from regclass/regtype, which needs the catalog;
// ok is false for other casts.
func (b *binder) regCast(arg expr.Expr, to types.T, loc int32) (expr.Expr, bool, error) {
	from := arg.Type()
	if !isReg(to.Kind) && !(isReg(from.Kind) && (to.Kind == types.OID || to.IsInteger())) {
		return nil, false, nil
	}
	m, err := b.p.regMaps()
	if err != nil {
		return nil, true, err
	}
	names, oids := m.relName, m.relOID
	if to.Kind == types.Regtype || from.Kind == types.Regtype {
		names, oids = m.typName, m.typOID
	}
	if to.Kind == types.Regnamespace || from.Kind == types.Regnamespace {
		names, oids = m.nsName, m.nsOID
	}
	var f expr.RowFunc
	switch {
	case isReg(to.Kind) && (from.IsString() || from.Kind == types.Unknown):
		f = func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			name := a[0].S
			if name == "-" {
				return types.Datum{T: to, S: "-"}, nil // InvalidOid
			}
			if strings.HasPrefix(name, `"`) {
				name = strings.ReplaceAll(strings.Trim(name, `"`), `""`, `"`)
			} else {
				name = strings.ToLower(name)
			}
			if to.Kind != types.Regnamespace {
				name = strings.TrimPrefix(name, "pg_catalog.")
			}
			oid, ok := oids[name]
			if !ok && name != "" && strings.Trim(name, "0123456789") == "" {
				// A number is an OID, as psql writes '16384'::regclass.
				n, err := strconv.ParseUint(name, 10, 32)
				if err != nil {
					return types.Datum{}, pgerr.New(pgerr.NumericValueOutOfRange, "value %q is out of range for type oid", name)
				}
				if s, ok := names[int64(n)]; ok {
					return types.Datum{T: to, S: s}, nil
				}
				return types.Datum{T: to, S: name}, nil
			}
			if !ok {
				if to.Kind == types.Regnamespace {
					return types.Datum{}, pgerr.New(pgerr.UndefinedSchema, "schema %q does not exist", a[0].S)
				}
				if to.Kind == types.Regtype {
					return types.Datum{}, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", a[0].S)
				}
				return types.Datum{}, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", a[0].S)
			}
			return types.Datum{T: to, S: names[oid]}, nil
		}
	case isReg(to.Kind) && (from.Kind == types.OID || from.IsInteger() || isReg(from.Kind)):
		if isReg(from.Kind) {
			return arg, true, nil
		}
		f = func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			if a[0].I == 0 {
				return types.Datum{T: to, S: "-"}, nil // InvalidOid prints as -
			}
			if name, ok := names[a[0].I]; ok {
				return types.Datum{T: to, S: name}, nil
			}
			// An OID naming nothing prints as the number, as in PostgreSQL.
			return types.Datum{T: to, S: strconv.FormatInt(a[0].I, 10)}, nil
		}
	case isReg(from.Kind):
		f = func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			oid, ok := oids[a[0].S]
			if !ok {
				oid, _ = strconv.ParseInt(a[0].S, 10, 64)
			}
			return expr.CastDatum(types.Datum{T: types.TOID, I: oid}, to, nil)
		}
	default:
		return nil, false, nil
	}
	if from.Kind == types.Unknown {
		if arg, err = b.coerce(arg, types.TText, loc); err != nil {
			return nil, true, err
		}
	}
	fn := &expr.Func{Name: to.String(), Args: []expr.Expr{arg}, T: to, Strict: true, Fn: f}
	if c, ok := arg.(*expr.Const); ok {
		if c.D.Null {
			return &expr.Const{D: types.NullOf(to)}, true, nil
		}
		d, err := f(b.p.ec, []types.Datum{c.D})
		if err != nil {
			return nil, true, b.errAt(pgerr.From(err), loc)
		}
		return &expr.Const{D: d}, true, nil
	}
	return fn, true, nil
}

// cmpHolds says whether a comparison's outcome (-1, 0, 1) satisfies op.
var cmpHolds = map[string]func(int) bool{
	"=": func(c int) bool { return c == 0 }, "<>": func(c int) bool { return c != 0 }, "!=": func(c int) bool { return c != 0 },
	"<": func(c int) bool { return c < 0 }, "<=": func(c int) bool { return c <= 0 },
	">": func(c int) bool { return c > 0 }, ">=": func(c int) bool { return c >= 0 },
}

// bindArrayCmp binds x op ANY (array) and x op ALL (array) for the
// comparison operators, with SQL's NULL rules: ANY is true when some
// element matches, else NULL when an element (or x) is NULL, else false;
// ALL the other way round.
func (b *binder) bindArrayCmp(a *pg.A_Expr, op string) (expr.Expr, error) {
	holds, ok := cmpHolds[op]
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "operator %s with ANY/ALL is not supported yet", op).WithPosition(pos(b.p.query, a.Location))
	}
	l, err := b.bind(a.Lexpr)
	if err != nil {
		return nil, err
	}
	r, err := b.bind(a.Rexpr)
	if err != nil {
		return nil, err
	}
	rt := r.Type()
	if rt.Kind == types.Unknown {
		k := l.Type().Kind
		if k == types.Unknown {
			k = types.Text
		}
		rt = types.ArrayOf(k)
	}
	if rt.Kind != types.Array {
		return nil, pgerr.New(pgerr.WrongObjectType, "op ANY/ALL (array) requires array on right side").WithPosition(pos(b.p.query, a.Location))
	}
	t, ok := types.Common(l.Type(), types.Of(rt.Elem))
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", l.Type(), op, types.Of(rt.Elem)).WithPosition(pos(b.p.query, a.Location))
	}
	et := types.Of(t.Kind)
	if l, err = b.coerce(l, et, a.Location); err != nil {
		return nil, err
	}
	if r, err = b.coerce(r, types.ArrayOf(t.Kind), a.Location); err != nil {
		return nil, err
	}
	all := a.Kind == pg.A_Expr_Kind_AEXPR_OP_ALL
	return &expr.Func{Name: op + " ANY", Args: []expr.Expr{l, r}, T: types.TBool, Fn: func(c *expr.Ctx, args []types.Datum) (types.Datum, error) {
		if args[1].Null {
			return types.NullOf(types.TBool), nil
		}
		elems, null, err := types.SplitArrayText(args[1].S)
		if err != nil {
			return types.Datum{}, err
		}
		sawNull := args[0].Null && len(elems) > 0
		for i, s := range elems {
			if null[i] || args[0].Null {
				sawNull = true
				continue
			}
			d, err := types.ParseText(et, s, c.Loc)
			if err != nil {
				return types.Datum{}, err
			}
			if h := holds(expr.CompareDatums(args[0], d)); h != all {
				return dBool(h), nil
			}
		}
		if sawNull {
			return types.NullOf(types.TBool), nil
		}
		return dBool(all), nil
	}}, nil
}

// bindSubscript binds arr[i], one subscript of a one-dimensional array
// (lower bound 1): NULL when i is out of range, as in PostgreSQL.
func (b *binder) bindSubscript(ind *pg.A_Indirection) (expr.Expr, error) {
	arr, err := b.bind(ind.Arg)
	if err != nil {
		return nil, err
	}
	for _, step := range ind.Indirection {
		if f := step.GetString_(); f != nil {
			if arr, err = b.fieldSelect(arr, f.Sval, nodeLocation(ind.Arg)); err != nil {
				return nil, err
			}
			continue
		}
		if step.GetAIndices() == nil || step.GetAIndices().IsSlice {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "array slices are not supported yet")
		}
		if arr, err = b.subscript(arr, step.GetAIndices(), nodeLocation(ind.Arg)); err != nil {
			return nil, err
		}
	}
	return arr, nil
}

// fieldSelect is (record).field: the field's text in the record's text
// form, read as the field's type.
func (b *binder) fieldSelect(rec expr.Expr, name string, loc int32) (expr.Expr, error) {
	fields := types.RecordFields(rec.Type())
	k := -1
	for i, f := range fields {
		if f.Name == name {
			k = i
		}
	}
	if k < 0 {
		if rec.Type().Kind == types.Record {
			return nil, pgerr.New(pgerr.UndefinedColumn, "could not identify column \"%s\" in record data type", name).WithPosition(pos(b.p.query, loc))
		}
		return nil, pgerr.New(pgerr.UndefinedColumn, "column notation .%s applied to type %s, which is not a composite type", name, rec.Type()).WithPosition(pos(b.p.query, loc))
	}
	ft := fields[k].T
	return &expr.Func{Name: "field " + name, Args: []expr.Expr{rec}, T: ft, Strict: true, Fn: func(c *expr.Ctx, a []types.Datum) (types.Datum, error) {
		vals, null, err := types.SplitRecordText(a[0].S)
		if err != nil {
			return types.Datum{}, err
		}
		if k >= len(vals) || null[k] {
			return types.NullOf(ft), nil
		}
		return types.ParseText(ft, vals[k], c.Loc)
	}}, nil
}

// subscript is arr[i].
func (b *binder) subscript(arr expr.Expr, at *pg.A_Indices, loc int32) (expr.Expr, error) {
	if arr.Type().Kind != types.Array {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", arr.Type()).WithPosition(pos(b.p.query, loc))
	}
	i, err := b.bind(at.Uidx)
	if err != nil {
		return nil, err
	}
	if i, err = b.coerce(i, types.TInt4, nodeLocation(at.Uidx)); err != nil {
		return nil, err
	}
	et := types.Of(arr.Type().Elem)
	return &expr.Func{Name: "subscript", Args: []expr.Expr{arr, i}, T: et, Strict: true, Fn: func(c *expr.Ctx, a []types.Datum) (types.Datum, error) {
		elems, null, err := types.SplitArrayText(a[0].S)
		if err != nil {
			return types.Datum{}, err
		}
		k := a[1].I - 1
		if k < 0 || k >= int64(len(elems)) || null[k] {
			return types.NullOf(et), nil
		}
		return types.ParseText(et, elems[k], c.Loc)
	}}, nil
}

// parseIdent splits a qualified SQL identifier as parse_ident does:
// unquoted parts are lower-cased, quoted ones kept with "" undoubled. Not
// strict, text after the last identifier is ignored.
func parseIdent(s string, strict bool) ([]string, error) {
	bad := func(detail string) error {
		e := pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: %q", s)
		e.Detail = detail
		return e
	}
	var parts []string
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	for {
		skip()
		if i >= len(s) {
			if len(parts) == 0 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: %q", s)
			}
			return nil, bad("No valid identifier after \".\".")
		}
		if s[i] == '"' {
			var b strings.Builder
			i++
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, bad("String has unclosed double quotes.")
				}
				b.WriteString(s[i : i+j])
				i += j + 1
				if i < len(s) && s[i] == '"' {
					b.WriteByte('"')
					i++
					continue
				}
				break
			}
			if b.Len() == 0 {
				return nil, bad("Quoted identifier must not be empty.")
			}
			parts = append(parts, b.String())
		} else {
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '$' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' && j > i || s[j] >= 0x80) {
				j++
			}
			if j == i {
				if len(parts) == 0 {
					return nil, pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: %q", s)
				}
				return nil, bad("No valid identifier after \".\".")
			}
			parts = append(parts, strings.ToLower(s[i:j]))
			i = j
		}
		skip()
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		if i < len(s) && strict {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: %q", s)
		}
		return parts, nil
	}
}

// arrayCat binds || with an array operand: array || array (array_cat),
// array || element (array_append), element || array (array_prepend). An
// untyped literal beside an array is an array. A NULL array is empty here,
// as in PostgreSQL; nil when the types do not fit.
func (b *binder) arrayCat(l, r expr.Expr, loc int32) (expr.Expr, error) {
	lt, rt := l.Type(), r.Type()
	lArr, rArr := lt.Kind == types.Array || lt.Kind == types.Unknown, rt.Kind == types.Array || rt.Kind == types.Unknown
	elemOf := func(t types.T) types.T {
		if t.Kind == types.Array {
			return types.Of(t.Elem)
		}
		return t
	}
	et, ok := types.Common(elemOf(lt), elemOf(rt))
	if !ok || et.Kind == types.Array {
		return nil, nil
	}
	if et.Kind == types.Unknown {
		et = types.TText
	}
	at := types.ArrayOf(et.Kind)
	want := func(isArr bool) types.T {
		if isArr {
			return at
		}
		return types.Of(et.Kind)
	}
	var err error
	if l, err = b.coerce(l, want(lArr), loc); err != nil {
		return nil, err
	}
	if r, err = b.coerce(r, want(rArr), loc); err != nil {
		return nil, err
	}
	// inner is an operand's elements in array_out's text, without braces.
	inner := func(d types.Datum, isArr bool) (string, bool) {
		switch {
		case isArr && d.Null:
			return "", false
		case isArr:
			return strings.TrimSuffix(strings.TrimPrefix(d.S, "{"), "}"), true
		case d.Null:
			return "NULL", true
		}
		return string(types.AppendArrayElem(nil, types.FormatText(d, b.p.ec.Loc))), true
	}
	return &expr.Func{Name: "||", Args: []expr.Expr{l, r}, T: at, Fn: func(c *expr.Ctx, a []types.Datum) (types.Datum, error) {
		ls, lok := inner(a[0], lArr)
		rs, rok := inner(a[1], rArr)
		if !lok && !rok {
			return types.NullOf(at), nil
		}
		var parts []string
		for _, s := range []string{ls, rs} {
			if s != "" {
				parts = append(parts, s)
			}
		}
		return types.Datum{T: at, S: "{" + strings.Join(parts, ",") + "}"}, nil
	}}, nil
}

// unnestItem is unnest(array) in FROM: one row per element. The argument
// may refer to the enclosing query (psql's unnest(tc.reloptions)).
func (p *Planner) unnestItem(fc *pg.FuncCall, table, col string) (*fromItem, error) {
	if len(fc.Args) != 1 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "unnest of several arrays is not supported yet").WithPosition(pos(p.query, fc.Location))
	}
	b := &binder{p: p, where: "functions in FROM"}
	arg, err := b.bind(fc.Args[0])
	if err != nil {
		return nil, err
	}
	if arg.Type().Kind != types.Array {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function unnest(%s) does not exist", arg.Type()).WithPosition(pos(p.query, fc.Location)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	et := types.Of(arg.Type().Elem)
	cols := []scopeCol{{table: table, name: col, t: et}}
	return &fromItem{cols: cols, rows: -1, build: func(*scope, int, expr.Expr) (physical.Node, error) {
		return &physical.RowSource{ColumnTypes: []types.T{et}, Gen: func(ctx context.Context) ([][]types.Datum, error) {
			one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
			defer one.Release()
			v, err := arg.Eval(p.ec, one)
			if err != nil {
				return nil, err
			}
			d := types.DatumAt(arg.Type(), v, 0)
			v.Release()
			if d.Null {
				return nil, nil
			}
			elems, null, err := types.SplitArrayText(d.S)
			if err != nil {
				return nil, err
			}
			rows := make([][]types.Datum, len(elems))
			for i, s := range elems {
				if null[i] {
					rows[i] = []types.Datum{types.NullOf(et)}
					continue
				}
				e, err := types.ParseText(et, s, p.ec.Loc)
				if err != nil {
					return nil, err
				}
				rows[i] = []types.Datum{e}
			}
			return rows, nil
		}}, nil
	}}, nil
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
func (b *binder) descriptionFunc(ci CatalogInfo, name string, args []expr.Expr,
	fn func(types.T, []types.T, bool, expr.RowFunc) (expr.Expr, bool, error)) (expr.Expr, bool, error) {
	type key struct {
		objoid, classoid int64
		objsubid         int64
	}
	descs, err := descriptions(b.p.ctx, ci)
	if err != nil {
		return nil, true, err
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
			s, ok := byKey[key{a[0].I, int64(systemCatalogOIDs["pg_class"]), a[1].I}]
			return found(s, ok)
		})
	case name == "obj_description" && len(args) == 2:
		return fn(types.TText, []types.T{types.TOID, types.TName}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			cls, ok := systemCatalogOIDs[a[1].S]
			if !ok {
				return types.NullOf(types.TText), nil
			}
			s, ok := byKey[key{a[0].I, int64(cls), 0}]
			return found(s, ok)
		})
	case name == "obj_description" && len(args) == 1:
		return fn(types.TText, []types.T{types.TOID}, true, func(_ *expr.Ctx, a []types.Datum) (types.Datum, error) {
			s, ok := anyClass[a[0].I]
			return found(s, ok)
		})
	}
	return nil, false, nil
}
