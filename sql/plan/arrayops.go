package plan

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

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
	if arr.Type().Kind == types.Name && !at.IsSlice {
		return b.nameSubscript(arr, at)
	}
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
// may refer to the enclosing query (psql's unnest(tc.reloptions)); the
// scan evaluates it when it opens.
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
		return &physical.FunctionScan{Name: "unnest", Args: []expr.Expr{arg}, Fn: exec.ArraySet{Elem: et}, ColumnTypes: []types.T{et}}, nil
	}}, nil
}

// nameSubscript is name[i]: PostgreSQL's name is a fixed array of 64
// "char", subscripted from 0 (pg_dump asks typname[0] = '_'). A byte
// past the name's end is the NUL padding, "char"'s empty string.
func (b *binder) nameSubscript(arr expr.Expr, at *pg.A_Indices) (expr.Expr, error) {
	i, err := b.bind(at.Uidx)
	if err != nil {
		return nil, err
	}
	if i, err = b.coerce(i, types.TInt4, nodeLocation(at.Uidx)); err != nil {
		return nil, err
	}
	return &expr.Func{Name: "subscript", Args: []expr.Expr{arr, i}, T: types.TQChar, Strict: true, Fn: func(c *expr.Ctx, a []types.Datum) (types.Datum, error) {
		k := a[1].I
		if k < 0 || k >= 64 {
			return types.NullOf(types.TQChar), nil
		}
		if k >= int64(len(a[0].S)) {
			return types.Datum{T: types.TQChar, S: ""}, nil
		}
		return types.Datum{T: types.TQChar, S: a[0].S[k : k+1]}, nil
	}}, nil
}
