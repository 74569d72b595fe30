package plan

import (
	"strings"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// jsonSetSpec finds the JSON set-returning function fc calls
// (jsonb_each, jsonb_array_elements, jsonb_path_query, …).
func jsonSetSpec(fc *pg.FuncCall) (*expr.SetSpec, bool) {
	if len(fc.Funcname) > 1 && schemaOf(fc) != "pg_catalog" {
		return nil, false
	}
	return expr.LookupSetSpec(funcName(fc))
}

// setSpecArgs binds the arguments of a call of spec: each must have the
// parameter's type, or be a literal or parameter that takes it; text
// parameters (a jsonpath) take any string.
func (b *binder) setSpecArgs(fc *pg.FuncCall, spec *expr.SetSpec) ([]expr.Expr, error) {
	if hasNamedArgs(fc) {
		return b.namedSpecArgs(fc, spec)
	}
	args := make([]expr.Expr, len(fc.Args))
	names := make([]string, len(fc.Args))
	for i, a := range fc.Args {
		e, err := b.bind(a)
		if err != nil {
			return nil, err
		}
		args[i], names[i] = e, e.Type().String()
	}
	return b.coerceSpecArgs(fc, spec, args, names)
}

// namedSpecArgs binds a call with named arguments (jsonb_path_query(j,
// '$.a', silent => true)): each goes to its parameter's place, and those
// left out take their defaults.
func (b *binder) namedSpecArgs(fc *pg.FuncCall, spec *expr.SetSpec) ([]expr.Expr, error) {
	args := make([]expr.Expr, len(spec.Args))
	names := []string{}
	named := false
	for i, a := range fc.Args {
		na := a.GetNamedArgExpr()
		k := i
		node := a
		if na == nil {
			if named {
				return nil, pgerr.New(pgerr.SyntaxError, "positional argument cannot follow named argument").WithPosition(pos(b.p.query, nodeLocation(a)))
			}
		} else {
			named = true
			k = -1
			for j, pn := range spec.ArgNames {
				if pn == na.Name {
					k = j
				}
			}
			node = na.Arg
		}
		e, err := b.bind(node)
		if err != nil {
			return nil, err
		}
		names = append(names, e.Type().String())
		if k < 0 || k >= len(args) {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", spec.Name, strings.Join(names, ", ")).
				WithPosition(pos(b.p.query, fc.Location)).
				WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
		}
		if args[k] != nil {
			return nil, pgerr.New(pgerr.SyntaxError, "argument name %q used more than once", na.Name).WithPosition(pos(b.p.query, na.Location))
		}
		args[k] = e
	}
	for i, e := range args {
		if e == nil {
			if i < spec.MinArgs || i >= len(spec.ArgDefaults) {
				return nil, pgerr.New(pgerr.UndefinedFunction, "function %s needs argument %s", spec.Name, spec.ArgNames[i]).WithPosition(pos(b.p.query, fc.Location))
			}
			args[i] = &expr.Const{D: spec.ArgDefaults[i]}
		}
	}
	return b.coerceSpecArgs(fc, spec, args, names)
}

// coerceSpecArgs checks and casts bound arguments to spec's parameters.
func (b *binder) coerceSpecArgs(fc *pg.FuncCall, spec *expr.SetSpec, args []expr.Expr, names []string) ([]expr.Expr, error) {
	ok := len(args) >= spec.MinArgs && len(args) <= len(spec.Args)
	for i := 0; ok && i < len(args); i++ {
		got, want := args[i].Type(), spec.Args[i]
		_, param := args[i].(*paramRef)
		ok = got.Kind == want.Kind || got.Kind == types.Unknown || param ||
			want.Kind == types.Text && got.IsString()
	}
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", spec.Name, strings.Join(names, ", ")).
			WithPosition(pos(b.p.query, fc.Location)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	for i := range args {
		c, err := b.coerce(args[i], spec.Args[i], fc.Location)
		if err != nil {
			return nil, err
		}
		args[i] = c
	}
	return args, nil
}

// specRows is the rows of one call of spec over argument values: none
// when one is NULL, the functions being strict.
func specRows(spec *expr.SetSpec, vals []types.Datum, ec *expr.Ctx) ([][]types.Datum, error) {
	return exec.JSONSet{Spec: spec}.Rows(vals, ec)
}

// jsonSetItem is a JSON set-returning function in FROM. Its arguments are
// evaluated when its rows are made: a lateral call's references to the
// items left of it read the apply's current row (correlated.go).
// Columns are named as PostgreSQL names them: after the function's OUT
// parameters (key, value), a lone unnamed one after the alias or else the
// function; column aliases rename them in order.
func (p *Planner) jsonSetItem(fc *pg.FuncCall, spec *expr.SetSpec, alias *pg.Alias) (*fromItem, error) {
	b := &binder{p: p, where: "functions in FROM"}
	args, err := b.setSpecArgs(fc, spec)
	if err != nil {
		return nil, err
	}
	table := spec.Name
	if alias != nil {
		table = alias.Aliasname
		if len(alias.Colnames) > len(spec.Cols) {
			if len(spec.Cols) == 1 {
				return nil, pgerr.New(pgerr.SyntaxError, "too many column aliases specified for function %s", spec.Name)
			}
			return nil, pgerr.New(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", table, len(spec.Cols), len(alias.Colnames))
		}
	}
	cols := make([]scopeCol, len(spec.Cols))
	ts := make([]types.T, len(spec.Cols))
	for i, f := range spec.Cols {
		cols[i] = scopeCol{table: table, name: f.Name, t: f.T}
		if len(spec.Cols) == 1 && !expr.IsRecordFunc(spec.Name) {
			// A function of one column returns a scalar; json[b]_to_record
			// returns a row even of one column.
			cols[i].rowName = table
			if !spec.Named && alias != nil {
				cols[i].name = alias.Aliasname
			}
		}
		if alias != nil && i < len(alias.Colnames) {
			cols[i].name = alias.Colnames[i].GetString_().Sval
		}
		ts[i] = f.T
	}
	return &fromItem{cols: cols, rows: -1, build: func(*scope, int, expr.Expr) (physical.Node, error) {
		return &physical.FunctionScan{Name: spec.Name, Args: args, Fn: exec.JSONSet{Spec: spec}, ColumnTypes: ts}, nil
	}}, nil
}

// jsonSetFunc is a JSON set-returning function of a select list: one
// value a row, a record of the columns when there are several.
func (b *binder) jsonSetFunc(fc *pg.FuncCall, spec *expr.SetSpec) (exec.SetFunc, error) {
	args, err := b.setSpecArgs(fc, spec)
	if err != nil {
		return exec.SetFunc{}, err
	}
	t := spec.Cols[0].T
	if len(spec.Cols) > 1 {
		t = types.RecordOf(spec.Cols...)
	}
	return exec.SetFunc{Name: spec.Name, T: t, Args: args, Impl: exec.JSONSet{Spec: spec, T: t}}, nil
}

// checkPathLiteral parses a jsonpath written as a literal while the
// statement is bound, as PostgreSQL reads a jsonpath constant, so that a
// bad one fails before any row is read, pointing at the literal.
func (b *binder) checkPathLiteral(n *pg.Node) error {
	if na := n.GetNamedArgExpr(); na != nil {
		n = na.Arg
	}
	ac := n.GetAConst()
	if ac == nil || ac.GetSval() == nil {
		return nil
	}
	if _, err := expr.ParsePath(ac.GetSval().Sval); err != nil {
		return b.errAt(pgerr.From(err), ac.Location)
	}
	return nil
}

// isJSONPathType tells whether a type name is jsonpath (or
// pg_catalog.jsonpath), which Loam has no type of its own for.
func isJSONPathType(tn *pg.TypeName) bool {
	if tn == nil || len(tn.Names) == 0 || len(tn.ArrayBounds) > 0 {
		return false
	}
	if len(tn.Names) == 2 && tn.Names[0].GetString_().GetSval() != "pg_catalog" {
		return false
	}
	return len(tn.Names) <= 2 && tn.Names[len(tn.Names)-1].GetString_().GetSval() == "jsonpath"
}

// jsonPathCast is x::jsonpath. A jsonpath travels as its text, so the
// cast checks a literal path (as PostgreSQL reads it: at the literal, when
// the statement is bound) and otherwise makes the value text.
func (b *binder) jsonPathCast(tc *pg.TypeCast) (expr.Expr, error) {
	if err := b.checkPathLiteral(tc.Arg); err != nil {
		return nil, err
	}
	arg, err := b.bind(tc.Arg)
	if err != nil {
		return nil, err
	}
	if t := arg.Type(); !t.IsString() && t.Kind != types.Unknown {
		return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to jsonpath", t).WithPosition(pos(b.p.query, tc.Location))
	}
	return b.coerce(arg, types.TText, tc.Location)
}

// recordSpecOf is json[b]_to_record[set] in FROM with the columns of its
// column definition list (AS t(name text, tokens int)); nil for any
// other function.
func (p *Planner) recordSpecOf(rf *pg.RangeFunction) (*expr.SetSpec, *pg.FuncCall, error) {
	if rf.IsRowsfrom || len(rf.Functions) != 1 {
		return nil, nil, nil
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 || items[0].GetFuncCall() == nil {
		return nil, nil, nil
	}
	fc := items[0].GetFuncCall()
	name := funcName(fc)
	if !expr.IsRecordFunc(name) || len(fc.Funcname) > 1 && schemaOf(fc) != "pg_catalog" {
		return nil, nil, nil
	}
	defs := rf.Coldeflist
	if len(defs) == 0 && len(items) > 1 && items[1].GetList() != nil {
		defs = items[1].GetList().Items
	}
	if len(defs) == 0 {
		return nil, nil, pgerr.New(pgerr.SyntaxError, "a column definition list is required for functions returning \"record\"").WithPosition(pos(p.query, fc.Location))
	}
	cols := make([]types.Field, len(defs))
	for i, d := range defs {
		cd := d.GetColumnDef()
		if cd == nil {
			return nil, nil, pgerr.New(pgerr.SyntaxError, "bad column definition list of %s", name)
		}
		t, err := TypeOf(cd.TypeName, p.query)
		if err != nil {
			return nil, nil, err
		}
		cols[i] = types.Field{Name: cd.Colname, T: t}
	}
	return expr.RecordSpec(name, cols), fc, nil
}
