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

// srfCall is a set-returning function of a select list: ProjectSet runs
// it, and ref, the placeholder the binder returned for the call, reads
// its column (placed once ProjectSet's input width is known).
type srfCall struct {
	fn  exec.SetFunc
	ref *expr.Col
	// level is 0 for a call whose arguments call no set-returning
	// function, else one more than the deepest such call: each level runs
	// in a ProjectSet of its own, over the rows of the one below.
	level int
}

// projectSets stacks the ProjectSets of a select list's set-returning
// calls on root, a level at a time.
func projectSets(root node, srfs []srfCall) node {
	for level := 0; ; level++ {
		var these []srfCall
		for _, c := range srfs {
			if c.level == level {
				these = append(these, c)
			}
		}
		if len(these) == 0 {
			return root
		}
		root = &projectSetNode{in: root, srfs: these}
	}
}

// isSetFunc names the set-returning functions a select list can call.
func isSetFunc(fc *pg.FuncCall) bool {
	switch funcName(fc) {
	case "generate_series", "unnest", "generate_subscripts":
		return len(fc.Funcname) == 1 || schemaOf(fc) == "pg_catalog"
	case "_pg_expandarray":
		return schemaOf(fc) == "information_schema"
	}
	_, ok := jsonSetSpec(fc)
	return ok
}

func schemaOf(fc *pg.FuncCall) string {
	if len(fc.Funcname) < 2 {
		return ""
	}
	return fc.Funcname[len(fc.Funcname)-2].GetString_().Sval
}

// bindSetFunc binds a set-returning function call of the select list to
// the placeholder of its ProjectSet column.
func (b *binder) bindSetFunc(fc *pg.FuncCall) (expr.Expr, error) {
	name := funcName(fc)
	if b.srfs == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "set-returning functions are not allowed in %s", b.where).WithPosition(pos(b.p.query, fc.Location))
	}
	var fn exec.SetFunc
	nested := len(*b.srfs) // calls bound from here on are in the arguments
	if spec, ok := jsonSetSpec(fc); ok {
		f, err := b.jsonSetFunc(fc, spec)
		if err != nil {
			return nil, err
		}
		fn = f
	} else if name == "generate_series" {
		t, args, err := b.seriesArgs(fc)
		if err != nil {
			return nil, err
		}
		fn = exec.SetFunc{Name: "generate_series", T: t, Args: args, Impl: exec.SeriesSet{T: t}}
	} else if name == "generate_subscripts" {
		f, err := b.subscriptsFunc(fc)
		if err != nil {
			return nil, err
		}
		fn = f
	} else {
		if len(fc.Args) != 1 {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "%s of several arrays is not supported yet", name).WithPosition(pos(b.p.query, fc.Location))
		}
		arg, err := b.bind(fc.Args[0])
		if err != nil {
			return nil, err
		}
		if arg.Type().Kind != types.Array {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, arg.Type()).WithPosition(pos(b.p.query, fc.Location)).
				WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
		}
		fn = arraySetFunc(name, arg)
	}
	ref := &expr.Col{Idx: -1, T: fn.T, Name: name}
	level := 0
	for _, c := range (*b.srfs)[nested:] {
		level = max(level, c.level+1)
	}
	*b.srfs = append(*b.srfs, srfCall{fn: fn, ref: ref, level: level})
	return ref, nil
}

// arraySetFunc is unnest(array), one row an element, or
// information_schema._pg_expandarray(array), one row (x, n) an element
// (exec.ArraySet).
func arraySetFunc(name string, arg expr.Expr) exec.SetFunc {
	impl := exec.ArraySet{Elem: types.Of(arg.Type().Elem), Expand: name == "_pg_expandarray"}
	t := impl.Elem
	if impl.Expand {
		t = exec.ExpandType(impl.Elem)
	}
	return exec.SetFunc{Name: name, T: t, Args: []expr.Expr{arg}, Impl: impl}
}

// recordSetItem is a set-returning function of records in FROM
// (information_schema._pg_expandarray): one column a field, named after
// it unless the alias names the columns.
func (p *Planner) recordSetItem(fc *pg.FuncCall, alias *pg.Alias) (*fromItem, error) {
	name := funcName(fc)
	if len(fc.Args) != 1 {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", name).WithPosition(pos(p.query, fc.Location))
	}
	b := &binder{p: p, where: "functions in FROM"}
	arg, err := b.bind(fc.Args[0])
	if err != nil {
		return nil, err
	}
	if arg.Type().Kind != types.Array {
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, arg.Type()).WithPosition(pos(p.query, fc.Location)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	fn := arraySetFunc(name, arg)
	fields := types.RecordFields(fn.T)
	table := name
	if alias != nil {
		table = alias.Aliasname
		if len(alias.Colnames) > len(fields) {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "table \"%s\" has %d columns available but %d columns specified", table, len(fields), len(alias.Colnames))
		}
	}
	cols := make([]scopeCol, len(fields))
	ts := make([]types.T, len(fields))
	for i, f := range fields {
		cols[i] = scopeCol{table: table, name: f.Name, t: f.T}
		if alias != nil && i < len(alias.Colnames) {
			cols[i].name = alias.Colnames[i].GetString_().Sval
		}
		ts[i] = f.T
	}
	return &fromItem{cols: cols, rows: -1, build: func(*scope, int, expr.Expr) (physical.Node, error) {
		return &physical.FunctionScan{Name: name, Args: fn.Args, Fn: fn.Impl.(exec.SetTable), ColumnTypes: ts}, nil
	}}, nil
}

// subscriptsFunc is generate_subscripts(array, dim [, reverse]): the
// subscripts of the array's dimension dim, as SQLAlchemy's primary key
// reflection numbers pg_index.indkey. Loam's arrays are one-dimensional
// with lower bound 1, so any other dimension has no subscripts.
func (b *binder) subscriptsFunc(fc *pg.FuncCall) (exec.SetFunc, error) {
	args := make([]expr.Expr, len(fc.Args))
	names := make([]string, len(fc.Args))
	for i, a := range fc.Args {
		e, err := b.bind(a)
		if err != nil {
			return exec.SetFunc{}, err
		}
		args[i], names[i] = e, e.Type().String()
	}
	if (len(args) != 2 && len(args) != 3) || args[0].Type().Kind != types.Array {
		return exec.SetFunc{}, pgerr.New(pgerr.UndefinedFunction, "function generate_subscripts(%s) does not exist", strings.Join(names, ", ")).
			WithPosition(pos(b.p.query, fc.Location)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	want := []types.T{args[0].Type(), types.TInt4, types.TBool}
	for i := 1; i < len(args); i++ {
		c, err := b.coerce(args[i], want[i], fc.Location)
		if err != nil {
			return exec.SetFunc{}, err
		}
		args[i] = c
	}
	return exec.SetFunc{Name: "generate_subscripts", T: types.TInt4, Args: args, Impl: exec.SubscriptsSet{}}, nil
}
