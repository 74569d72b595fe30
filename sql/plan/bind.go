package plan

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// scopeCol is a column visible to expressions: a table column or an
// output column of a subquery.
type scopeCol struct {
	table, name string
	t           types.T
	// hidden columns are reachable only by table name: the two sides of a
	// JOIN … USING column, which is merged into one unqualified column.
	hidden bool
	// system columns (a catalog's tableoid) are left out of * and
	// NATURAL joins, as PostgreSQL's are.
	system bool
	// rowName is the table alias of a function in FROM that returns a
	// scalar: its whole-row reference (tool in jsonb_array_elements(x) AS
	// tool) is the value, so an unqualified rowName reads this column.
	rowName string
	origin  origin
	// rel numbers the base table named in FROM the column is read from
	// (0: a derived table, view, CTE or join column); key marks its
	// primary key's columns. GROUP BY a primary key groups the rest of
	// its table (groupdeps.go).
	rel int
	key bool
}

// origin is the table column a result column shows unchanged, which
// RowDescription reports (PgJDBC's getTableName and isNullable look it up).
type origin struct {
	table  uint32
	attnum int16
}

// originOf is the origin of a select-list item that is a bare column
// reference, and the zero origin for anything else.
func (s *scope) originOf(n *pg.Node) origin {
	cr := n.GetColumnRef()
	if cr == nil {
		return origin{}
	}
	var names []string
	for _, f := range cr.Fields {
		str := f.GetString_()
		if str == nil {
			return origin{}
		}
		names = append(names, str.Sval)
	}
	tbl, name := "", ""
	switch len(names) {
	case 1:
		name = names[0]
	case 2:
		tbl, name = names[0], names[1]
	default:
		return origin{}
	}
	i, err := s.resolve(tbl, name)
	if err != nil {
		return origin{}
	}
	return s.cols[i].origin
}

type scope struct {
	cols []scopeCol
	used []bool
}

func newScope(cols []scopeCol) *scope { return &scope{cols: cols, used: make([]bool, len(cols))} }

func (s *scope) resolve(tbl, name string) (int, error) {
	found := -1
	for i, c := range s.cols {
		if c.name == name && (tbl == "" && !c.hidden || tbl != "" && c.table == tbl) {
			if found >= 0 {
				return -1, pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", name)
			}
			found = i
		}
	}
	if found < 0 && tbl == "" {
		for i, c := range s.cols {
			if c.rowName == name && !c.hidden {
				if found >= 0 {
					return -1, pgerr.New(pgerr.AmbiguousColumn, "column reference %q is ambiguous", name)
				}
				found = i
			}
		}
	}
	if found < 0 {
		if tbl != "" {
			known := false
			for _, c := range s.cols {
				known = known || c.table == tbl
			}
			if !known {
				return -1, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", tbl)
			}
			return -1, pgerr.New(pgerr.UndefinedColumn, "column %s.%s does not exist", tbl, name)
		}
		return -1, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name)
	}
	s.used[found] = true
	return found, nil
}

// label names column i for an expression's text. The planner matches
// expressions by their text (GROUP BY keys, aggregates, ORDER BY against
// the select list), so two columns of one name from different tables
// must not print alike: such a column is qualified by its table, and by
// its position when even that repeats.
func (s *scope) label(i int) string {
	c := s.cols[i]
	sameName, sameTable := false, false
	for j, o := range s.cols {
		if j != i && o.name == c.name {
			sameName = true
			sameTable = sameTable || o.table == c.table
		}
	}
	switch {
	case !sameName:
		return c.name
	case c.table != "" && !sameTable:
		return c.table + "." + c.name
	default:
		return c.name + "#" + strconv.Itoa(i)
	}
}

// binder turns parse nodes into expressions over a scope. In aggregate
// mode it binds the expressions above a GROUP BY: group keys become
// references to the grouped columns, aggregate calls are collected.
type binder struct {
	p     *Planner
	sc    *scope
	where string // clause name for "not allowed here" errors

	aggMode   bool
	inAgg     bool // binding an aggregate's arguments: no nested aggregates
	groupStrs []string
	groupTs   []types.T
	groupCols []int  // per scope column, its GROUP BY key or -1 (groupedCols)
	depCols   []bool // per scope column, determined by a grouped primary key (dependentCols)
	aggs      *[]agg.Agg
	grouping  *groupingInfo // for GROUPING(); nil outside GROUP BY
	// target: the next bind is a whole select-list entry, which is a
	// grouping key when it equals one even if constant (PostgreSQL's
	// parser links it to the key); a constant anywhere else stays a
	// constant, never the key's NULL of a grouping set without it.
	target bool
	// claimed: the keys a constant select-list entry already is; a later
	// equal entry is a constant again (PostgreSQL links the first).
	claimed map[int]bool

	win      *windowSet // nil where window calls are not allowed
	inWindow bool       // binding inside a window call

	srfs *[]srfCall // the select list's set-returning functions; nil elsewhere
}

// paramRef is a $n whose type is not known yet; the first context that
// needs a type gives it one.
type paramRef struct {
	p *Planner
	n int
}

// Type is Unknown until a context types the parameter, so that operators
// resolve it like an untyped literal.
func (e *paramRef) Type() types.T   { return e.p.ParamTypes[e.n-1] }
func (e *paramRef) String() string  { return "$" + strconv.Itoa(e.n) }
func (e *paramRef) ParamIndex() int { return e.n }

// Eval reads the value bound at execution, as expr.Param does: a plan
// holds no parameter values.
func (e *paramRef) Eval(c *expr.Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	return (&expr.Param{N: e.n, T: e.Type()}).Eval(c, b)
}

func (b *binder) errAt(err *pgerr.Error, loc int32) error {
	if err.Position == 0 {
		return err.WithPosition(pos(b.p.query, loc))
	}
	return err
}

// coerce converts e to type t: literals and untyped parameters take the
// type directly; anything else gets a cast.
func (b *binder) coerce(e expr.Expr, t types.T, loc int32) (expr.Expr, error) {
	if t.Kind == types.Unknown {
		t = types.TText
	}
	if isReg(e.Type().Kind) != isReg(t.Kind) {
		if r, ok, err := b.regCast(e, t, loc); ok || err != nil {
			return r, err
		}
	}
	switch x := e.(type) {
	case *paramRef:
		if b.p.ParamTypes[x.n-1].Kind == types.Unknown {
			// An array keeps its element type: $1::int[] is an int4[] parameter.
			b.p.ParamTypes[x.n-1] = types.T{Kind: t.Kind, Width: -1, Elem: t.Elem}
		}
		// The parameter's type has no typmod; $1::numeric(5,2) is a
		// numeric parameter cast to the column's numeric(5,2), as it is
		// when the parameter comes typed.
		if xt := x.Type(); xt.Kind == t.Kind && xt.Elem == t.Elem && (t.Width < 0 || xt.Width == t.Width) && (t.Kind != types.Numeric || keepsType(xt, t)) {
			return x, nil
		}
		return &expr.Cast{Arg: x, T: t}, nil
	case *expr.Const:
		if x.D.T.Kind == t.Kind && (t.Width < 0 || x.D.T.Width == t.Width) && (t.Kind != types.Numeric || keepsType(x.D.T, t)) {
			return x, nil
		}
		d, err := expr.CastDatum(x.D, t, b.p.ec.Loc)
		if err != nil {
			return nil, b.errAt(pgerr.From(err), loc)
		}
		return &expr.Const{D: d}, nil
	}
	if e.Type().Kind == t.Kind && (t.Width < 0 || e.Type().Width == t.Width) && (t.Kind != types.Numeric || keepsType(e.Type(), t)) {
		return e, nil
	}
	return &expr.Cast{Arg: e, T: t}, nil
}

func (b *binder) coerceBool(e expr.Expr, loc int32) (expr.Expr, error) {
	if k := e.Type().Kind; k != types.Bool && k != types.Unknown {
		if _, ok := e.(*paramRef); !ok {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "argument of %s must be type boolean, not type %s", b.where, e.Type()).WithPosition(pos(b.p.query, loc))
		}
	}
	return b.coerce(e, types.TBool, loc)
}

func (b *binder) bind(n *pg.Node) (expr.Expr, error) {
	if g := n.GetGroupingFunc(); g != nil {
		return b.bindGrouping(g)
	}
	if b.aggMode {
		top := b.target
		b.target = false
		if fc := n.GetFuncCall(); fc != nil && isAggregate(fc) {
			return b.bindAggregate(fc)
		}
		sub := &binder{p: b.p, sc: b.sc, where: b.where}
		e, err := sub.bind(n)
		if konst := err == nil && b.constant(e); err == nil && (top || !konst) {
			s := e.String()
			for i, g := range b.groupStrs {
				if g == s {
					if konst {
						if b.claimed[i] {
							break
						}
						if b.claimed == nil {
							b.claimed = map[int]bool{}
						}
						b.claimed[i] = true
					}
					return &expr.Col{Idx: i, T: b.groupTs[i], Name: s}, nil
				}
			}
		}
		if cr := n.GetColumnRef(); cr != nil {
			c, local := e.(*expr.Col)
			if err == nil && !local {
				// An outer query's column is a constant within each group.
				return e, nil
			}
			if err != nil {
				// An ungrouped column of a grouped outer query, or a
				// column that does not exist (42703) or is ambiguous.
				return nil, err
			}
			if c.Idx < len(b.depCols) && b.depCols[c.Idx] {
				return b.groupValue(c), nil
			}
			name := columnRefName(cr)
			if len(cr.Fields) == 1 && b.sc.cols[c.Idx].table != "" {
				// PostgreSQL names the column with its table: "g.v".
				name = b.sc.cols[c.Idx].table + "." + name
			}
			return nil, pgerr.New(pgerr.GroupingError, "column %q must appear in the GROUP BY clause or be used in an aggregate function", name).WithPosition(pos(b.p.query, cr.Location))
		}
		e, err2 := b.bindNode(n)
		if err2 != nil && resolutionError(err) && pgerr.Code(err2) == pgerr.GroupingError {
			// PostgreSQL resolves every function and operator before it
			// checks grouping: nosuchfn(v) is 42883, whatever v is.
			return nil, err
		}
		return e, err2
	}
	return b.bindNode(n)
}

// resolutionError reports a function or operator that does not exist or
// is not unique for its argument types: an error PostgreSQL raises while
// analysing the expression, before it checks GROUP BY.
func resolutionError(err error) bool {
	switch pgerr.Code(err) {
	case pgerr.UndefinedFunction, pgerr.AmbiguousFunction:
		return true
	}
	return false
}

func columnRefName(cr *pg.ColumnRef) string {
	var parts []string
	for _, f := range cr.Fields {
		if s := f.GetString_(); s != nil {
			parts = append(parts, s.Sval)
		} else {
			parts = append(parts, "*")
		}
	}
	return strings.Join(parts, ".")
}

// isAggregate says whether fc is a plain aggregate call; with OVER it is a
// window call instead.
func isAggregate(fc *pg.FuncCall) bool {
	if fc.Over != nil {
		return false
	}
	_, ok := agg.Lookup(funcName(fc))
	return ok
}

func funcName(fc *pg.FuncCall) string {
	return strings.ToLower(fc.Funcname[len(fc.Funcname)-1].GetString_().Sval)
}

func (b *binder) bindAggregate(fc *pg.FuncCall) (expr.Expr, error) {
	name := funcName(fc)
	fn, _ := agg.Lookup(name)
	at := func(err *pgerr.Error) error { return b.errAt(err, fc.Location) }
	if fc.Over != nil {
		return nil, at(pgerr.New(pgerr.FeatureNotSupported, "%s with OVER is not supported yet", name))
	}
	// Arguments, FILTER and ORDER BY bind below the aggregate: columns of
	// the input, and no further aggregates.
	sub := &binder{p: b.p, sc: b.sc, where: "aggregate function calls", inAgg: true}
	refs, done := b.p.trackAggRefs()
	defer done()
	a := agg.Agg{Fn: fn}
	var args []expr.Expr
	for _, n := range fc.Args {
		e, err := sub.bind(n)
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	undefined := func() error {
		names := make([]string, len(args))
		for i, e := range args {
			names[i] = e.Type().String()
		}
		if fn.OrderedSet() && a.Arg != nil {
			names = append(names, a.Arg.Type().String())
		}
		return at(pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(names, ", ")).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts."))
	}
	// frac binds a fraction argument: a float8 constant (or parameter).
	frac := func(e expr.Expr) (types.Datum, error) {
		if !e.Type().IsNumeric() && e.Type().Kind != types.Unknown {
			return types.Datum{}, undefined()
		}
		e, err := b.coerce(e, types.TFloat8, fc.Location)
		if err != nil {
			return types.Datum{}, err
		}
		arg := e
		if c, ok := arg.(*expr.Cast); ok {
			arg = c.Arg // an outer integer column, cast to float8
		}
		switch x := arg.(type) {
		case *expr.Const, *paramRef, *expr.Param:
		case *expr.OuterRef:
			if x != e && !x.T.IsNumeric() {
				return types.Datum{}, at(pgerr.New(pgerr.FeatureNotSupported, "the fraction of %s must be a constant", name))
			}
		default:
			return types.Datum{}, at(pgerr.New(pgerr.FeatureNotSupported, "the fraction of %s must be a constant", name))
		}
		d, err := b.p.evalConst(e)
		if err != nil {
			return types.Datum{}, at(pgerr.From(err))
		}
		d.T = types.TFloat8
		return d, nil
	}
	switch {
	case fn.OrderedSet():
		if !fc.AggWithinGroup {
			return nil, undefined()
		}
		if fc.AggDistinct {
			return nil, at(pgerr.New(pgerr.FeatureNotSupported, "DISTINCT is not supported for ordered-set aggregates"))
		}
		if len(fc.AggOrder) != 1 {
			return nil, undefined()
		}
		sb := fc.AggOrder[0].GetSortBy()
		x, err := sub.bind(sb.Node)
		if err != nil {
			return nil, err
		}
		a.Arg = x
		a.Desc = sb.SortbyDir == pg.SortByDir_SORTBY_DESC
		want := 1
		if fn == agg.Mode {
			want = 0
		}
		if len(args) != want {
			return nil, undefined()
		}
		if fn != agg.Mode {
			if err := b.percentileFraction(&a, args[0], fc.Args[0], undefined); err != nil {
				return nil, err
			}
		}
		switch {
		case fn == agg.PercentileCont && (x.Type().IsNumeric() || x.Type().Kind == types.Unknown):
			a.Arg, _ = b.coerce(x, types.TFloat8, fc.Location)
		case x.Type().Kind == types.Unknown && (fn == agg.Mode || fn == agg.PercentileDisc):
			// mode and percentile_disc take anyelement, as lag: no type
			// for an untyped literal.
			return nil, unknownPolymorphic()
		case x.Type().Kind == types.Unknown:
			a.Arg, _ = b.coerce(x, types.TText, fc.Location)
		}
	case fc.AggWithinGroup:
		// PostgreSQL looks for a function taking the direct and the
		// sorted arguments together.
		for _, o := range fc.AggOrder {
			e, err := sub.bind(o.GetSortBy().Node)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
		}
		return nil, undefined()
	case fc.AggStar:
		if fn != agg.Count {
			return nil, at(pgerr.New(pgerr.SyntaxError, "%s(*) is not a valid aggregate call", name))
		}
		a.Fn = agg.CountStar
	default:
		want := 1
		if fn.TwoArgs() || fn == agg.ApproxPercentile {
			want = 2
		}
		if len(args) != want {
			return nil, undefined()
		}
		if (fn == agg.JSONAgg || fn == agg.JSONBAgg) && args[0].Type().Kind == types.Unknown {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "could not determine polymorphic type because input has type unknown")
		}
		arg, err := b.untypedAggArg(fn, args[0], fc.Location)
		if err != nil {
			return nil, err
		}
		a.Arg = arg
		switch fn {
		case agg.StringAgg:
			if !arg.Type().IsString() || !args[1].Type().IsString() {
				return nil, undefined()
			}
			a.Arg, _ = b.coerce(arg, types.TText, fc.Location)
			a.Arg2, _ = b.coerce(args[1], types.TText, fc.Location)
		case agg.ApproxPercentile:
			var err error
			if a.Frac, err = frac(args[1]); err != nil {
				return nil, err
			}
		case agg.JSONObjectAgg, agg.JSONBObjectAgg:
			// Keys and values are "any": a literal is text.
			if a.Arg2, err = b.untypedAggArg(agg.StringAgg, args[1], fc.Location); err != nil {
				return nil, err
			}
		}
		a.Distinct = fc.AggDistinct
		for _, o := range fc.AggOrder {
			sb := o.GetSortBy()
			e, err := sub.bind(sb.Node)
			if err != nil {
				return nil, err
			}
			if e.Type().Kind == types.Unknown {
				e, _ = b.coerce(e, types.TText, fc.Location)
			}
			if a.Distinct {
				// An argument as written or as coerced (string_agg's
				// varchar argument is cast to text).
				s := e.String()
				inArgs := s == a.Arg.String() || s == arg.String() || a.Arg2 != nil && s == a.Arg2.String()
				if !inArgs && len(args) > 1 && s == args[1].String() {
					inArgs = true
				}
				if !inArgs {
					return nil, b.errAt(pgerr.New(pgerr.InvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list"), nodeLocation(sb.Node))
				}
			}
			k := agg.Order{Expr: e, Desc: sb.SortbyDir == pg.SortByDir_SORTBY_DESC}
			k.NullsFirst = k.Desc
			switch sb.SortbyNulls {
			case pg.SortByNulls_SORTBY_NULLS_FIRST:
				k.NullsFirst = true
			case pg.SortByNulls_SORTBY_NULLS_LAST:
				k.NullsFirst = false
			}
			// Only the aggregates that collect their rows depend on their
			// input order.
			if fn.Collects() {
				a.Order = append(a.Order, k)
			}
		}
		if a.Distinct && len(a.Order) == 0 && fn.Collects() {
			// PostgreSQL removes duplicates by sorting on the arguments, so
			// the result comes out in their order.
			a.Order = []agg.Order{{Expr: a.Arg}}
			if a.Arg2 != nil {
				a.Order = append(a.Order, agg.Order{Expr: a.Arg2})
			}
		}
	}
	if fc.AggFilter != nil {
		fb := &binder{p: b.p, sc: b.sc, where: "FILTER"}
		e, err := fb.bind(fc.AggFilter)
		if err != nil {
			return nil, err
		}
		if a.Filter, err = fb.coerceBool(e, nodeLocation(fc.AggFilter)); err != nil {
			return nil, err
		}
	}
	if err := b.checkOuterAgg(refs, fc); err != nil {
		return nil, err
	}
	var argT types.T
	if a.Arg != nil {
		argT = a.Arg.Type()
	}
	t, ok := agg.ResultType(a.Fn, argT)
	if !ok {
		if !fn.OrderedSet() {
			args[0] = a.Arg
		}
		return nil, undefined()
	}
	if fn.OrderedSet() && a.MultiFrac() {
		t = types.ArrayOf(t.Kind)
	}
	a.T = t
	s := a.String()
	for i, prev := range *b.aggs {
		// The text alone is not enough: max(NULL::timestamp) and
		// max(NULL::int2) print alike once the casts fold.
		if prev.String() == s && prev.T == t && sameArgType(prev.Arg, a.Arg) {
			return &expr.Col{Idx: len(b.groupStrs) + i, T: t, Name: s}, nil
		}
	}
	*b.aggs = append(*b.aggs, a)
	return &expr.Col{Idx: len(b.groupStrs) + len(*b.aggs) - 1, T: t, Name: s}, nil
}

func (b *binder) bindNode(n *pg.Node) (expr.Expr, error) {
	switch {
	case n.GetColumnRef() != nil:
		cr := n.GetColumnRef()
		if b.where == whereDefault {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot use column reference in DEFAULT expression").WithPosition(pos(b.p.query, cr.Location))
		}
		var tbl, name string
		switch len(cr.Fields) {
		case 1:
			name = cr.Fields[0].GetString_().GetSval()
		case 2:
			tbl, name = cr.Fields[0].GetString_().GetSval(), cr.Fields[1].GetString_().GetSval()
		default:
			// schema.table.column: the table name is what the scope knows.
			l := len(cr.Fields)
			tbl, name = cr.Fields[l-2].GetString_().GetSval(), cr.Fields[l-1].GetString_().GetSval()
		}
		if cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			return nil, pgerr.New(pgerr.SyntaxError, "* is not allowed here").WithPosition(pos(b.p.query, cr.Location))
		}
		if b.sc == nil {
			if e, ok, err := b.p.outerColumn(tbl, name, cr.Location, b.inAgg); ok || err != nil {
				return e, err
			}
			if tbl != "" {
				return nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", tbl).WithPosition(pos(b.p.query, cr.Location))
			}
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist", name).WithPosition(pos(b.p.query, cr.Location))
		}
		i, err := b.sc.resolve(tbl, name)
		if err != nil && len(cr.Fields) == 1 && pgerr.Code(err) == pgerr.UndefinedColumn {
			if e, ok := b.wholeRow(name); ok {
				b.p.noteLocal()
				return e, nil
			}
		}
		if err != nil {
			if code := pgerr.Code(err); code == pgerr.UndefinedColumn || code == pgerr.UndefinedTable {
				if e, ok, err := b.p.outerColumn(tbl, name, cr.Location, b.inAgg); ok || err != nil {
					return e, err
				}
			}
			return nil, b.errAt(pgerr.From(err), cr.Location)
		}
		b.p.noteLocal()
		return &expr.Col{Idx: i, T: b.sc.cols[i].t, Name: b.sc.label(i)}, nil
	case n.GetAConst() != nil:
		return b.bindConst(n.GetAConst())
	case n.GetParamRef() != nil:
		pr := n.GetParamRef()
		k := int(pr.Number)
		if k < 1 || k > 65535 || b.p.NoParams {
			return nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", k).WithPosition(pos(b.p.query, pr.Location))
		}
		for len(b.p.ParamTypes) < k {
			b.p.ParamTypes = append(b.p.ParamTypes, types.TUnknown)
		}
		if t := b.p.ParamTypes[k-1]; t.Kind != types.Unknown {
			// Read at run time (Ctx.Params): the plan does not depend on
			// the values, so one plan serves every execution.
			return &expr.Param{N: k, T: t}, nil
		}
		return &paramRef{p: b.p, n: k}, nil
	case n.GetAIndirection() != nil:
		return b.bindSubscript(n.GetAIndirection())
	case n.GetAArrayExpr() != nil:
		return b.bindArrayExpr(n.GetAArrayExpr())
	case n.GetCollateClause() != nil:
		// Loam compares strings bytewise, which is what the collations
		// clients name (default in a C.UTF-8 database, C, POSIX) do.
		cc := n.GetCollateClause()
		// Names are case-sensitive, as PostgreSQL's: "C", not "c".
		name := cc.Collname[len(cc.Collname)-1].GetString_().Sval
		switch name {
		case "default", "C", "POSIX", "ucs_basic":
		default:
			return nil, pgerr.New(pgerr.UndefinedObject, "collation %q for encoding \"UTF8\" does not exist", name).WithPosition(pos(b.p.query, cc.Location))
		}
		e, err := b.bind(cc.Arg)
		if err != nil {
			return nil, err
		}
		if !e.Type().IsString() {
			return nil, pgerr.New(pgerr.DatatypeMismatch, "collations are not supported by type %s", e.Type()).WithPosition(pos(b.p.query, cc.Location))
		}
		return e, nil
	case n.GetTypeCast() != nil:
		tc := n.GetTypeCast()
		if isJSONPathType(tc.TypeName) {
			return b.jsonPathCast(tc)
		}
		t, err := TypeOf(tc.TypeName, b.p.query)
		if err != nil {
			return nil, err
		}
		arg, err := b.bind(tc.Arg)
		if err != nil {
			return nil, err
		}
		if reg := tc.TypeName.Names[len(tc.TypeName.Names)-1].GetString_().GetSval(); (reg == "regproc" || reg == "regprocedure") &&
			(arg.Type().Kind == types.OID || arg.Type().IsInteger()) {
			return b.regprocOfOID(arg, reg == "regprocedure", tc.Location)
		}
		if names := tc.TypeName.Names; names[len(names)-1].GetString_().GetSval() == "regproc" {
			// regproc prints a pg_catalog function's name unqualified.
			if c, ok := arg.(*expr.Const); ok && !c.D.Null && (c.D.T.Kind == types.Unknown || c.D.T.IsString()) {
				arg = &expr.Const{D: types.Datum{T: c.D.T, S: strings.TrimPrefix(c.D.S, "pg_catalog.")}}
			}
		}
		regAt := tc.Location
		if ac := tc.Arg.GetAConst(); ac != nil {
			regAt = ac.Location // PostgreSQL points at the name that is not found
		}
		if e, ok, err := b.regCast(arg, t, regAt); ok || err != nil {
			return e, err
		}
		if _, ok := arg.(*paramRef); ok {
			return b.coerce(arg, t, tc.Location)
		}
		if arg, err = b.explicitLength(arg, t, tc.Location); err != nil {
			return nil, err
		}
		if c, ok := arg.(*expr.Const); ok {
			d, err := expr.CastDatum(c.D, t, b.p.ec.Loc)
			if err != nil {
				// PostgreSQL points at a bad literal, not at the ::.
				at := tc.Location
				if ac := tc.Arg.GetAConst(); ac != nil && (c.D.T.Kind == types.Unknown || at < 0) {
					at = ac.Location // interval 'x' has no cast location
				}
				return nil, b.errAt(pgerr.From(err), at)
			}
			return &expr.Const{D: d}, nil
		}
		return &expr.Cast{Arg: arg, T: t}, nil
	case n.GetAExpr() != nil:
		return b.bindAExpr(n.GetAExpr())
	case n.GetBoolExpr() != nil:
		be := n.GetBoolExpr()
		args := make([]expr.Expr, len(be.Args))
		for i, a := range be.Args {
			e, err := b.bind(a)
			if err != nil {
				return nil, err
			}
			if args[i], err = b.coerceBool(e, be.Location); err != nil {
				return nil, err
			}
		}
		switch be.Boolop {
		case pg.BoolExprType_AND_EXPR:
			return &expr.BoolOp{Args: args}, nil
		case pg.BoolExprType_OR_EXPR:
			return &expr.BoolOp{Or: true, Args: args}, nil
		}
		return &expr.Not{Arg: args[0]}, nil
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		if elems, ok := rowElems(nt.Arg); ok {
			return b.rowNullTest(nt, elems)
		}
		arg, err := b.bind(nt.Arg)
		if err != nil {
			return nil, err
		}
		if _, ok := arg.(*paramRef); !ok && arg.Type().Kind == types.Unknown {
			// A parameter stays undecided: IS NULL gives it no type, and
			// PostgreSQL refuses it at Parse (42P18) if nothing else does.
			arg, _ = b.coerce(arg, types.TText, nt.Location)
		}
		return &expr.IsNull{Arg: arg, Negate: nt.Nulltesttype == pg.NullTestType_IS_NOT_NULL}, nil
	case n.GetBooleanTest() != nil:
		bt := n.GetBooleanTest()
		arg, err := b.bind(bt.Arg)
		if err != nil {
			return nil, err
		}
		if arg, err = b.coerceBool(arg, bt.Location); err != nil {
			return nil, err
		}
		switch bt.Booltesttype {
		case pg.BoolTestType_IS_TRUE:
			return &expr.IsBool{Arg: arg, Value: true}, nil
		case pg.BoolTestType_IS_NOT_TRUE:
			return &expr.IsBool{Arg: arg, Value: true, Negate: true}, nil
		case pg.BoolTestType_IS_FALSE:
			return &expr.IsBool{Arg: arg}, nil
		case pg.BoolTestType_IS_NOT_FALSE:
			return &expr.IsBool{Arg: arg, Negate: true}, nil
		case pg.BoolTestType_IS_UNKNOWN:
			return &expr.IsNull{Arg: arg}, nil
		}
		return &expr.IsNull{Arg: arg, Negate: true}, nil
	case n.GetFuncCall() != nil:
		return b.bindFunc(n.GetFuncCall())
	case n.GetCoalesceExpr() != nil:
		ce := n.GetCoalesceExpr()
		args, t, err := b.bindCommon(ce.Args, ce.Location, "COALESCE")
		if err != nil {
			return nil, err
		}
		return &expr.Coalesce{Args: args, T: t}, nil
	case n.GetMinMaxExpr() != nil:
		return b.bindMinMax(n.GetMinMaxExpr())
	case n.GetCaseExpr() != nil:
		return b.bindCase(n.GetCaseExpr())
	case n.GetSqlvalueFunction() != nil:
		sv := n.GetSqlvalueFunction()
		if e, ok := b.sessionValue(sv.Op); ok {
			return e, nil
		}
		switch sv.Op {
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
			return &expr.Const{D: types.Int(types.TTimestampTZ, types.RoundMicros(b.p.ec.Now.UnixMicro(), sv.Typmod))}, nil
		case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N,
			pg.SQLValueFunctionOp_SVFOP_LOCALTIME, pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
			// The statement start's wall clock in the session zone.
			now := types.Datum{T: types.TTimestampTZ, I: b.p.ec.Now.UnixMicro()}
			t := types.TTimestamp
			switch sv.Op {
			case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
				t = types.TDate
			case pg.SQLValueFunctionOp_SVFOP_LOCALTIME, pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
				t = types.TTime
			}
			if sv.Typmod >= 0 {
				t.Width = sv.Typmod
			}
			d, err := expr.CastDatum(now, t, b.p.ec.Loc)
			if err != nil {
				return nil, b.errAt(pgerr.From(err), sv.Location)
			}
			d.T.Width = -1
			return &expr.Const{D: d}, nil
		}
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this SQL value function is not supported yet").WithPosition(pos(b.p.query, sv.Location))
	case n.GetRowExpr() != nil:
		return b.rowValue(n.GetRowExpr())
	case n.GetSubLink() != nil:
		if b.where == whereDefault {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "cannot use subquery in DEFAULT expression").WithPosition(pos(b.p.query, n.GetSubLink().Location))
		}
		return b.bindSubquery(n.GetSubLink())
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported yet", parse.ExprName(n)).WithPosition(pos(b.p.query, parse.NodeLocation(n)))
}

func (b *binder) bindConst(c *pg.A_Const) (expr.Expr, error) {
	if c.Isnull {
		return &expr.Const{D: types.NullOf(types.TUnknown)}, nil
	}
	switch v := c.Val.(type) {
	case *pg.A_Const_Ival:
		return &expr.Const{D: types.Int(types.TInt4, int64(v.Ival.Ival))}, nil
	case *pg.A_Const_Fval:
		s := v.Fval.Fval
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			// As make_const: -2147483648 arrives here but is an integer.
			if i == int64(int32(i)) {
				return &expr.Const{D: types.Int(types.TInt4, i)}, nil
			}
			return &expr.Const{D: types.Int(types.TInt8, i)}, nil
		}
		d, err := types.ParseText(types.TNumeric, s, nil)
		if err != nil {
			return nil, b.errAt(pgerr.From(err), c.Location)
		}
		return &expr.Const{D: d}, nil
	case *pg.A_Const_Sval:
		return &expr.Const{D: types.Datum{T: types.TUnknown, S: v.Sval.Sval}}, nil
	case *pg.A_Const_Boolval:
		return &expr.Const{D: types.BoolDatum(v.Boolval.Boolval)}, nil
	case *pg.A_Const_Bsval:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "bit strings are not supported").WithPosition(pos(b.p.query, c.Location))
	}
	// An A_Const with no value is the integer zero.
	return &expr.Const{D: types.Int(types.TInt4, 0)}, nil
}

func opName(names []*pg.Node) string {
	return names[len(names)-1].GetString_().Sval
}

func (b *binder) bindAExpr(a *pg.A_Expr) (expr.Expr, error) {
	if e, ok, err := b.bindRowOp(a); ok {
		return e, err
	}
	op := opName(a.Name)
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		if a.Lexpr == nil {
			r, err := b.bind(a.Rexpr)
			if err != nil {
				return nil, err
			}
			switch op {
			case "-":
				if c, ok := r.(*expr.Const); ok && !c.D.Null {
					return negConst(c.D, b, a.Location)
				}
				if r.Type().Kind == types.Unknown {
					r, _ = b.coerce(r, types.TFloat8, a.Location)
				}
				if r.Type().Kind == types.Interval {
					return &expr.IntervalNeg{Arg: r}, nil
				}
				if !r.Type().IsNumeric() {
					return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: - %s", r.Type()).WithPosition(pos(b.p.query, a.Location))
				}
				return &expr.Neg{Arg: r}, nil
			case "+":
				return r, nil
			}
			return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s", op, r.Type()).WithPosition(pos(b.p.query, a.Location))
		}
		l, err := b.bind(a.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := b.bind(a.Rexpr)
		if err != nil {
			return nil, err
		}
		if (op == "@?" || op == "@@") && l.Type().Kind == types.JSONB {
			if err := b.checkPathLiteral(a.Rexpr); err != nil {
				return nil, err
			}
		}
		return b.binaryOp(op, l, r, a.Location)
	case pg.A_Expr_Kind_AEXPR_LIKE, pg.A_Expr_Kind_AEXPR_ILIKE:
		l, err := b.bind(a.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := b.bind(a.Rexpr)
		if err != nil {
			return nil, err
		}
		return b.binaryOp(op, l, r, a.Location)
	case pg.A_Expr_Kind_AEXPR_OP_ANY, pg.A_Expr_Kind_AEXPR_OP_ALL:
		return b.bindArrayCmp(a, op)
	case pg.A_Expr_Kind_AEXPR_IN:
		l, err := b.bind(a.Lexpr)
		if err != nil {
			return nil, err
		}
		items := a.Rexpr.GetList().GetItems()
		list := make([]expr.Expr, len(items))
		t := l.Type()
		for i, it := range items {
			if list[i], err = b.bind(it); err != nil {
				return nil, err
			}
			var ok bool
			if t, ok = types.Common(t, list[i].Type()); !ok {
				return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s = %s", l.Type(), list[i].Type()).WithPosition(pos(b.p.query, a.Location))
			}
		}
		if l, err = b.coerce(l, t, a.Location); err != nil {
			return nil, err
		}
		for i := range list {
			if list[i], err = b.coerce(list[i], t, a.Location); err != nil {
				return nil, err
			}
		}
		return &expr.In{Arg: l, List: list, Negate: op == "<>"}, nil
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		x, err := b.bind(a.Lexpr)
		if err != nil {
			return nil, err
		}
		bounds := a.Rexpr.GetList().GetItems()
		lo, err := b.bind(bounds[0])
		if err != nil {
			return nil, err
		}
		hi, err := b.bind(bounds[1])
		if err != nil {
			return nil, err
		}
		ge, err := b.binaryOp(">=", x, lo, a.Location)
		if err != nil {
			return nil, err
		}
		le, err := b.binaryOp("<=", x, hi, a.Location)
		if err != nil {
			return nil, err
		}
		both := &expr.BoolOp{Args: []expr.Expr{ge, le}}
		if a.Kind == pg.A_Expr_Kind_AEXPR_NOT_BETWEEN {
			return &expr.Not{Arg: both}, nil
		}
		return both, nil
	case pg.A_Expr_Kind_AEXPR_DISTINCT, pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return b.bindDistinct(a, a.Kind == pg.A_Expr_Kind_AEXPR_NOT_DISTINCT)
	case pg.A_Expr_Kind_AEXPR_SIMILAR:
		return b.bindSimilar(a)
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		// NULLIF(l, r) is CASE WHEN l = r THEN NULL ELSE l END, typed as l.
		l, err := b.bind(a.Lexpr)
		if err != nil {
			return nil, err
		}
		r, err := b.bind(a.Rexpr)
		if err != nil {
			return nil, err
		}
		eq, err := b.binaryOp("=", l, r, a.Location)
		if err != nil {
			return nil, err
		}
		t := l.Type()
		if t.Kind == types.Unknown {
			t = types.TText
			if l, err = b.coerce(l, t, a.Location); err != nil {
				return nil, err
			}
		}
		return &expr.Case{Whens: []expr.Expr{eq}, Thens: []expr.Expr{&expr.Const{D: types.NullOf(t)}}, Else: l, T: t}, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "operator %s is not supported yet", op).WithPosition(pos(b.p.query, a.Location))
}

func negConst(d types.Datum, b *binder, loc int32) (expr.Expr, error) {
	switch d.T.Kind {
	case types.Int2, types.Int4, types.Int8:
		d.I = -d.I
	case types.Float4, types.Float8:
		d.F = -d.F
	case types.Numeric:
		if strings.HasPrefix(d.S, "-") {
			d.S = d.S[1:]
		} else {
			d.S = "-" + d.S
		}
	case types.Interval:
		d = types.IntervalDatum(d.Interval().Neg())
	default:
		return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: - %s", d.T).WithPosition(pos(b.p.query, loc))
	}
	return &expr.Const{D: d}, nil
}

var cmpOps = map[string]expr.CmpOp{"=": expr.EQ, "<>": expr.NE, "!=": expr.NE, "<": expr.LT, "<=": expr.LE, ">": expr.GT, ">=": expr.GE}
var arithOps = map[string]expr.ArithOp{"+": expr.Add, "-": expr.Sub, "*": expr.Mul, "/": expr.Div, "%": expr.Mod}

// widenFloat4 is the type an operator computes in when Common gave t for
// operands lt and rt: a real with an operand of another numeric type
// (int, numeric) computes in double precision, as PostgreSQL's operator
// resolution picks float48 and float84 operators (real / int is float8;
// a real with an untyped literal stays real).
func widenFloat4(t, lt, rt types.T) types.T {
	if t.Kind != types.Float4 {
		return t
	}
	other := func(k types.Kind) bool { return k != types.Float4 && k != types.Unknown }
	if other(lt.Kind) || other(rt.Kind) {
		return types.TFloat8
	}
	return t
}

func (b *binder) binaryOp(op string, l, r expr.Expr, loc int32) (expr.Expr, error) {
	noOp := func() error {
		return pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", l.Type(), op, r.Type()).
			WithPosition(pos(b.p.query, loc)).
			WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
	}
	if c, ok := cmpOps[op]; ok {
		t, ok := types.Common(l.Type(), r.Type())
		if !ok {
			return nil, noOp()
		}
		t = widenFloat4(t, l.Type(), r.Type())
		if t.Kind == types.Numeric {
			if e, ok := b.decimalCompare(c, l, r); ok {
				return e, nil
			}
		}
		var err error
		ct := types.Of(t.Kind)
		if t.Kind == types.Array {
			ct = t // an array keeps its element type
		}
		if l, err = b.coerce(l, ct, loc); err != nil {
			return nil, err
		}
		if r, err = b.coerce(r, ct, loc); err != nil {
			return nil, err
		}
		return &expr.Compare{Op: c, L: l, R: r}, nil
	}
	if a, ok := arithOps[op]; ok {
		lt, rt := l.Type(), r.Type()
		if lt.Kind == types.Unknown && rt.Kind == types.Unknown {
			return nil, noOp()
		}
		if isDateTime(lt) || isDateTime(rt) {
			return b.timeArith(a, l, r, loc, noOp)
		}
		t, ok := types.Common(lt, rt)
		if !ok || !t.IsNumeric() {
			return nil, noOp()
		}
		t = types.Of(t.Kind)
		if a == expr.Mod && (t.Kind == types.Float4 || t.Kind == types.Float8) {
			return nil, noOp() // no float %, named with the operands' own types
		}
		if t.Kind == types.Float4 && lt.Kind != rt.Kind && lt.Kind != types.Unknown && rt.Kind != types.Unknown {
			// real op integer or numeric is double precision: PostgreSQL's
			// float48 operators win as float8 is the preferred type.
			t = types.TFloat8
		}
		if t.Kind == types.Numeric {
			if e, ok := b.decimalArith(a, l, r); ok {
				return e, nil
			}
		}
		var err error
		if l, err = b.coerce(l, t, loc); err != nil {
			return nil, err
		}
		if r, err = b.coerce(r, t, loc); err != nil {
			return nil, err
		}
		return &expr.Arith{Op: a, L: l, R: r, T: t}, nil
	}
	switch op {
	case "~~", "!~~", "~~*", "!~~*":
		if !l.Type().IsString() || !r.Type().IsString() {
			return nil, noOp()
		}
		var err error
		if l, err = b.coerce(l, types.TText, loc); err != nil {
			return nil, err
		}
		if r, err = b.coerce(r, types.TText, loc); err != nil {
			return nil, err
		}
		lk, err := expr.NewLike(l, r, strings.HasSuffix(op, "*"), strings.HasPrefix(op, "!"))
		if err != nil {
			return nil, b.errAt(pgerr.From(err), loc)
		}
		return lk, nil
	}
	if e, ok, err := b.moreBinaryOp(op, l, r, loc); ok || err != nil {
		return e, err
	}
	return nil, noOp()
}

// bindCommon binds expressions and coerces them to their common type, as
// COALESCE, CASE and VALUES columns do.
func (b *binder) bindCommon(nodes []*pg.Node, loc int32, what string) ([]expr.Expr, types.T, error) {
	out := make([]expr.Expr, len(nodes))
	t := types.TUnknown
	for i, n := range nodes {
		e, err := b.bind(n)
		if err != nil {
			return nil, t, err
		}
		out[i] = e
		// Untyped literals and NULLs take the type of the others.
		if e.Type().Kind == types.Unknown {
			continue
		}
		nt, ok := types.Common(t, e.Type())
		if !ok {
			// As PostgreSQL: the type so far, the new one, and where it is.
			at := nodeLocation(n)
			if tc := n.GetTypeCast(); tc != nil {
				if al := nodeLocation(tc.Arg); al >= 0 && al < at {
					at = al
				}
			}
			if at < 0 {
				at = loc
			}
			return nil, t, pgerr.New(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", what, t, e.Type()).WithPosition(pos(b.p.query, at))
		}
		t = nt
	}
	if t.Kind == types.Unknown {
		t = types.TText
	}
	for i := range out {
		var err error
		if out[i], err = b.coerce(out[i], t, loc); err != nil {
			return nil, t, err
		}
	}
	return out, t, nil
}

func (b *binder) bindFunc(fc *pg.FuncCall) (expr.Expr, error) {
	name := funcName(fc)
	if fc.Over != nil {
		return b.bindWindow(fc)
	}
	if isAggregate(fc) {
		if b.inAgg {
			return nil, pgerr.New(pgerr.GroupingError, "aggregate function calls cannot be nested").WithPosition(pos(b.p.query, fc.Location))
		}
		if !b.aggMode {
			return nil, pgerr.New(pgerr.GroupingError, "aggregate functions are not allowed in %s", b.where).WithPosition(pos(b.p.query, fc.Location))
		}
		return b.bindAggregate(fc)
	}
	if strings.HasPrefix(name, "jsonb_path_") && len(fc.Args) > 1 {
		if err := b.checkPathLiteral(fc.Args[1]); err != nil {
			return nil, err
		}
	}
	if isSetFunc(fc) {
		return b.bindSetFunc(fc)
	}
	if bi, ok := expr.Builtins[name]; ok && hasNamedArgs(fc) {
		args, err := b.funcArgs(name, bi, fc)
		if err != nil {
			return nil, err
		}
		return b.callBuiltin(name, args, fc.Location)
	}
	args := make([]expr.Expr, len(fc.Args))
	for i, a := range fc.Args {
		if i == 0 && seqFuncs[name] {
			if e, ok, err := b.sequenceName(a); ok || err != nil {
				if err != nil {
					return nil, err
				}
				args[i] = e
				continue
			}
		}
		e, err := b.bind(a)
		if err != nil {
			return nil, err
		}
		args[i] = e
	}
	// The session functions first: they read the session when they run,
	// so a catalog function of the same name must not bind it at planning.
	if e, ok, err := b.sessionFunc(name, args, fc.Location); ok || err != nil {
		return e, err
	}
	if e, ok, err := b.catalogFunc(name, args, fc.Location); ok || err != nil {
		return e, err
	}
	if e, ok, err := b.sequenceFunc(name, args, fc.Location); ok || err != nil {
		return e, err
	}
	return b.callBuiltin(name, args, fc.Location, fc.Args...)
}

func hasNamedArgs(fc *pg.FuncCall) bool {
	for _, a := range fc.Args {
		if a.GetNamedArgExpr() != nil {
			return true
		}
	}
	return false
}

// callBuiltin resolves a scalar function over bound arguments, failing as
// PostgreSQL does with the argument types when no signature takes them.
// argNodes, when given, place errors in coercing a literal argument at the
// literal, as PostgreSQL does.
func (b *binder) callBuiltin(name string, args []expr.Expr, loc int32, argNodes ...*pg.Node) (expr.Expr, error) {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	bi, ok := expr.Builtins[name]
	if ok && bi.Ambiguous != nil && bi.Ambiguous(ts) {
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = t.String()
		}
		shown := name
		if name == "extract" {
			shown = "pg_catalog.extract"
		}
		return nil, pgerr.New(pgerr.AmbiguousFunction, "function %s(%s) is not unique", shown, strings.Join(names, ", ")).WithPosition(pos(b.p.query, loc)).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
	}
	var rt types.T
	var want []types.T
	var fn *expr.Func
	if ok {
		rt, want, fn, ok = bi.Bind(ts)
	}
	if !ok {
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = t.String()
		}
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(names, ", ")).
			WithPosition(pos(b.p.query, loc)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	for i := range args {
		at := loc
		if i < len(argNodes) {
			if c := argNodes[i].GetAConst(); c != nil && c.Location >= 0 {
				at = c.Location
			}
		}
		var err error
		if args[i], err = b.coerce(args[i], want[i], at); err != nil {
			return nil, err
		}
	}
	fn.Name, fn.Args, fn.T = name, args, rt
	return fn, nil
}

func (b *binder) bindCase(ce *pg.CaseExpr) (expr.Expr, error) {
	var arg expr.Expr
	if ce.Arg != nil {
		var err error
		if arg, err = b.bind(ce.Arg); err != nil {
			return nil, err
		}
	}
	c := &expr.Case{}
	var results []*pg.Node
	for _, w := range ce.Args {
		cw := w.GetCaseWhen()
		var cond expr.Expr
		var err error
		if arg != nil {
			v, err := b.bind(cw.Expr)
			if err != nil {
				return nil, err
			}
			if cond, err = b.binaryOp("=", arg, v, cw.Location); err != nil {
				return nil, err
			}
		} else {
			if cond, err = b.bind(cw.Expr); err != nil {
				return nil, err
			}
			if cond, err = b.coerceBool(cond, cw.Location); err != nil {
				return nil, err
			}
		}
		c.Whens = append(c.Whens, cond)
		results = append(results, cw.Result)
	}
	if ce.Defresult != nil {
		results = append(results, ce.Defresult)
	}
	vals, t, err := b.bindCommon(results, ce.Location, "CASE")
	if err != nil {
		return nil, err
	}
	c.Thens = vals[:len(c.Whens)]
	if ce.Defresult != nil {
		c.Else = vals[len(vals)-1]
	}
	c.T = t
	return c, nil
}

func isDateTime(t types.T) bool {
	switch t.Kind {
	case types.Date, types.Time, types.Timestamp, types.TimestampTZ, types.Interval:
		return true
	}
	return false
}

// timeArith binds arithmetic with a date, time, timestamp or interval
// operand. An untyped literal takes the other operand's type where
// PostgreSQL has that operator (ts - ts, date - date, interval ± interval),
// and is an interval beside a timestamp otherwise.
func (b *binder) timeArith(op expr.ArithOp, l, r expr.Expr, loc int32, noOp func() error) (expr.Expr, error) {
	lt, rt := l.Type(), r.Type()
	guess := func(other types.T) types.T {
		switch {
		case other.Kind == types.Interval:
			if op == expr.Mul || op == expr.Div {
				return types.TFloat8
			}
			return types.TInterval
		case op == expr.Sub:
			return types.Of(other.Kind)
		case other.Kind == types.Timestamp || other.Kind == types.TimestampTZ || other.Kind == types.Time:
			return types.TInterval
		}
		return types.TUnknown
	}
	if op == expr.Add && (lt.Kind == types.Unknown && rt.Kind == types.Date || rt.Kind == types.Unknown && lt.Kind == types.Date) {
		// date + integer, date + interval and date + time all fit.
		return nil, pgerr.New(pgerr.AmbiguousFunction, "operator is not unique: %s + %s", lt, rt).
			WithPosition(pos(b.p.query, loc)).
			WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
	}
	var err error
	if lt.Kind == types.Unknown {
		if lt = guess(rt); lt.Kind == types.Unknown {
			return nil, noOp()
		}
		if l, err = b.coerce(l, lt, loc); err != nil {
			return nil, err
		}
	}
	if rt.Kind == types.Unknown {
		if rt = guess(lt); rt.Kind == types.Unknown {
			return nil, noOp()
		}
		if r, err = b.coerce(r, rt, loc); err != nil {
			return nil, err
		}
	}
	// Mixed date/timestamp/timestamptz subtraction works on the common type.
	if op == expr.Sub && lt.Kind != rt.Kind && rt.Kind != types.Interval && !rt.IsInteger() {
		if t, ok := types.Common(lt, rt); ok && (t.Kind == types.Timestamp || t.Kind == types.TimestampTZ) {
			if l, err = b.coerce(l, t, loc); err != nil {
				return nil, err
			}
			if r, err = b.coerce(r, t, loc); err != nil {
				return nil, err
			}
			lt, rt = t, t
		}
	}
	t, ok := expr.TimeArithType(op, lt, rt)
	if !ok {
		return nil, noOp()
	}
	return &expr.TimeArith{Op: op, L: l, R: r, T: t}, nil
}

// funcArgs binds a call's arguments in parameter order: named arguments
// (make_interval(days => 3)) go to their parameter's place, and parameters
// left out take the builtin's defaults.
func (b *binder) funcArgs(name string, bi expr.Builtin, fc *pg.FuncCall) ([]expr.Expr, error) {
	var args []expr.Expr
	named := false
	for _, a := range fc.Args {
		na := a.GetNamedArgExpr()
		if na == nil {
			if named {
				return nil, pgerr.New(pgerr.SyntaxError, "positional argument cannot follow named argument").WithPosition(pos(b.p.query, nodeLocation(a)))
			}
			e, err := b.bind(a)
			if err != nil {
				return nil, err
			}
			args = append(args, e)
			continue
		}
		named = true
		k := -1
		for i, pn := range bi.ArgNames {
			if pn == na.Name {
				k = i
			}
		}
		e, err := b.bind(na.Arg)
		if err != nil {
			return nil, err
		}
		if k < 0 {
			return nil, pgerr.New(pgerr.UndefinedFunction, "function %s(%s => %s) does not exist", name, na.Name, e.Type()).WithPosition(pos(b.p.query, fc.Location)).
				WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
		}
		for len(args) <= k {
			args = append(args, nil)
		}
		if args[k] != nil {
			return nil, pgerr.New(pgerr.SyntaxError, "argument name %q used more than once", na.Name).WithPosition(pos(b.p.query, na.Location))
		}
		args[k] = e
	}
	for i, e := range args {
		if e == nil {
			if i >= len(bi.ArgDefaults) {
				return nil, pgerr.New(pgerr.UndefinedFunction, "function %s needs argument %s", name, bi.ArgNames[i]).WithPosition(pos(b.p.query, fc.Location))
			}
			args[i] = &expr.Const{D: bi.ArgDefaults[i]}
		}
	}
	return args, nil
}

// untypedAggArg types an untyped argument of an aggregate as PostgreSQL
// resolves it: text for count, string_agg and array_agg, boolean for
// bool_and/bool_or, double precision for the numeric ones.
func (b *binder) untypedAggArg(fn agg.Func, arg expr.Expr, loc int32) (expr.Expr, error) {
	if arg.Type().Kind != types.Unknown {
		return arg, nil
	}
	// PostgreSQL's rule for an unknown argument: the string category if
	// some candidate takes it (min/max have a text form), else the one
	// category all candidates share; sum and avg also take intervals and
	// money, array_agg arrays, so no category wins.
	switch fn {
	case agg.Count, agg.StringAgg, agg.ApproxCountDistinct, agg.Min, agg.Max, agg.JSONObjectAgg, agg.JSONBObjectAgg:
		return b.coerce(arg, types.TText, loc)
	case agg.BoolAnd, agg.BoolOr:
		return b.coerce(arg, types.TBool, loc)
	case agg.Sum, agg.Avg, agg.ArrayAgg:
		return nil, b.errAt(pgerr.New(pgerr.AmbiguousFunction, "function %s(unknown) is not unique", fn).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts."), loc)
	}
	return b.coerce(arg, types.TFloat8, loc)
}

// sameArgType reports whether two aggregates' arguments (nil for *) have
// the same type.
func sameArgType(a, b expr.Expr) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Type() == b.Type()
}

// constant reports whether e reads no column and can be evaluated at
// planning, as PostgreSQL folds it before matching grouping keys.
func (b *binder) constant(e expr.Expr) bool {
	cols, ok := colsOf(e)
	return ok && len(cols) == 0 && b.p.foldable(e)
}
