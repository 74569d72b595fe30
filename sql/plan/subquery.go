package plan

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// outerRow is the enclosing query's scope as a subquery or LATERAL item
// sees it. A reference to one of its columns is an expr.OuterRef to frame,
// whose values the execution context holds while the inner plan runs for
// one outer row (outerref.go); vals is set only where the inner side is
// planned again for each outer row (perRowPlannings), and then the
// references are constants of that row.
type outerRow struct {
	sc     *scope
	frame  int
	vals   []types.Datum
	parent *outerRow
	owner  *Planner // the planner whose scope sc is
	// lateral: sc is the FROM items left of a LATERAL item, which only
	// lateral items (not plain subqueries in FROM) may read.
	lateral bool
	// grouped is set for a subquery above GROUP BY: per column of sc, the
	// aggregate output column of the GROUP BY key that is that column, or
	// -1 when it is not grouped (reading it is a 42803 error).
	grouped []int
	// needVals: planning the inner side needed a value of an outer row
	// (evalConst), so the plan made with none cannot serve every row.
	needVals bool
	// read marks the columns of sc the inner side reads; deeper is set
	// when it also reads a row further out (memo.go).
	read   []bool
	deeper bool
	// refs counts the references to sc's columns bound below (any depth),
	// which decorrelation must all find in the WHERE it turns into joins.
	refs int
}

// groupedCols maps each column of sc to the GROUP BY key that is exactly
// that column (its index among the aggregate's output columns), else -1.
func groupedCols(sc *scope, groupBy []expr.Expr) []int {
	if sc == nil {
		return []int{}
	}
	out := make([]int, len(sc.cols))
	for k := range out {
		out[k] = -1
	}
	for i, g := range groupBy {
		if c, ok := g.(*expr.Col); ok && c.Idx < len(out) && out[c.Idx] < 0 {
			out[c.Idx] = i
		}
	}
	return out
}

// outerColumn resolves a name against the enclosing queries; a subquery's
// reference to them reads the current outer row when evaluated.
// inAgg: the reference is in an aggregate's arguments.
func (p *Planner) outerColumn(tbl, name string, loc int32, inAgg bool) (expr.Expr, bool, error) {
	for o := p.outer; o != nil; o = o.parent {
		if o.sc == nil {
			continue
		}
		found := -1
		for i, c := range o.sc.cols {
			if c.name == name && (tbl == "" && !c.hidden || tbl != "" && c.table == tbl) {
				found = i
				break
			}
		}
		if found < 0 {
			continue
		}
		if o.grouped != nil && o.grouped[found] < 0 {
			c := o.sc.cols[found]
			qual := c.name
			if c.table != "" {
				qual = c.table + "." + c.name
			}
			if inAgg {
				// PostgreSQL may make such an aggregate the outer query's
				// (one over its rows), which Loam does not do.
				return nil, false, pgerr.New(pgerr.FeatureNotSupported, "aggregates of an outer query's ungrouped column %q in a subquery are not supported yet", qual).WithPosition(pos(p.query, loc))
			}
			return nil, false, pgerr.New(pgerr.GroupingError, "subquery uses ungrouped column %q from outer query", qual).WithPosition(pos(p.query, loc))
		}
		o.sc.used[found] = true
		o.refs++
		if o.read == nil {
			o.read = make([]bool, len(o.sc.cols))
		}
		if found < len(o.read) {
			o.read[found] = true
		}
		for x := p.outer; x != nil && x != o; x = x.parent {
			x.deeper = true
		}
		p.noteOuter(o)
		// Every subquery between this one and the owner of the column
		// depends on the outer row.
		p.correlated = true
		for x := p.outer; x != nil && x != o; x = x.parent {
			x.owner.correlated = true
		}
		t := o.sc.cols[found].t
		if o.vals == nil {
			qual := name
			if tbl != "" {
				qual = tbl + "." + name
			}
			return &expr.OuterRef{Frame: o.frame, Idx: found, T: t, Name: qual}, true, nil
		}
		return &expr.Const{D: o.vals[found]}, true, nil
	}
	return nil, false, nil
}

type subKind uint8

const (
	subScalar subKind = iota
	subExists
	subIn    // x IN (SELECT …)
	subArray // ARRAY(SELECT …)
	subQuant // x op ANY|ALL (SELECT …), but for = ANY, which is subIn
)

// subqueryExpr runs a subquery: once per execution when it does not refer
// to the outer query, else once per outer row (per distinct outer values,
// memo.go) with that row in the execution context (expr.Ctx.Outer), from
// the plan made when it was bound. It is part of the plan and keeps
// nothing between evaluations itself: what one execution found is in
// that execution's expr.RunState (subqueryRun), so a kept plan serves
// every execution of a prepared statement.
type subqueryExpr struct {
	p      *Planner // the enclosing planner (context, catalog, parameters)
	sel    *pg.SelectStmt
	text   string // the subquery as SQL, which tells subqueries apart in String
	ctes   *cte   // the WITH queries visible where the subquery is written
	sc     *scope // the scope whose rows the expression is evaluated on
	kind   subKind
	test   expr.Expr      // the left side of IN, ANY or ALL
	op     string         // subQuant: the comparison operator
	holds  func(int) bool // subQuant: whether a comparison's outcome satisfies op
	all    bool           // subQuant: ALL rather than ANY
	negate bool
	t      types.T // scalar: the subquery's column type; IN: the compared type
	corr   bool
	frame  int // the outer row's frame (expr.OuterRef) when corr
	// plan is the subquery's plan, made once when bound and built when
	// evaluated (for each outer row when corr). It is nil only where
	// planning needed an outer row's value (LIMIT t.x, AS OF t.ts, …):
	// then the subquery is planned again for each outer row with that
	// row's values bound in as constants (perRowPlannings).
	plan    *Query
	grouped []int // see outerRow.grouped; nil below GROUP BY
	memo    *memo // how results are kept by the outer values read, when they decide them
}

// subqueryRun is what one execution of the plan keeps of a subquery's
// results (in its expr.RunState, keyed by the subqueryExpr): the
// expression is part of an immutable plan that a prepared statement
// runs again, and each execution must see the rows as they are then.
type subqueryRun struct {
	once sync.Once
	rows []types.Datum // the uncorrelated subquery's rows
	err  error
	memo memoRows // the correlated one's, by outer values (memo.go)
	set  inSet    // the uncorrelated IN's rows as a hash set (inset.go)
}

// state is the subquery's state in the execution c belongs to.
func (e *subqueryExpr) state(c *expr.Ctx) *subqueryRun {
	if c == nil {
		c = e.p.ec
	}
	return c.RunState().Slot(e, func() any { return &subqueryRun{} }).(*subqueryRun)
}

func (e *subqueryExpr) Type() types.T {
	if e.kind == subScalar {
		return e.t
	}
	if e.kind == subArray {
		return types.ArrayOf(e.t.Kind)
	}
	return types.TBool
}

func (e *subqueryExpr) String() string {
	switch e.kind {
	case subExists:
		return "EXISTS(" + e.text + ")"
	case subIn:
		return "(" + e.test.String() + " IN (" + e.text + "))"
	case subQuant:
		q := " ANY"
		if e.all {
			q = " ALL"
		}
		return "(" + e.test.String() + " " + e.op + q + " (" + e.text + "))"
	case subArray:
		return "ARRAY(" + e.text + ")"
	}
	return "(" + e.text + ")"
}

// subqueryText is sel as SQL. Aggregates, GROUP BY keys and ORDER BY
// items are matched by String, so two different subqueries must not
// print alike (min((SELECT 'a' …)) and min((SELECT DATE … …)) were one
// aggregate).
func subqueryText(sel *pg.SelectStmt) string {
	s, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: sel}}}}})
	if err != nil {
		return fmt.Sprintf("subquery %p", sel)
	}
	return s
}

// run runs the subquery for the given outer row, returning the first
// column of its rows. The row is the context's (frame e.frame) while the
// plan is built and run.
func (e *subqueryExpr) run(c *expr.Ctx, vals []types.Datum, limit int) ([]types.Datum, error) {
	ctx := runContext(c, e.p.ctx)
	q := e.plan
	if e.corr {
		ec := e.p.ec
		saved := ec.Outer
		ec.Outer = saved.Push(e.frame, vals)
		defer func() { ec.Outer = saved }()
	}
	var root exec.Operator
	var err error
	if q != nil {
		// Built for this execution: its scans read the tables' states
		// the execution's plan was built with (a kept plan's, pinned at
		// this Execute), not those of its planning.
		env := q.Env()
		env.Tables = build.EnvOf(c).Tables
		root, err = build.Build(ctx, q.Root, env)
	} else {
		// Fallback: planning needed the outer row's values (needVals).
		planned.Add(1)
		child := &Planner{ctx: ctx, cat: e.p.cat, ec: e.p.ec, query: e.p.query, ParamTypes: e.p.ParamTypes, deps: e.p.deps, ctes: e.ctes,
			outer: &outerRow{sc: e.sc, frame: expr.NewFrame(), vals: vals, parent: e.p.outer, owner: e.p, grouped: e.grouped}}
		if q, err = child.Select(e.sel); err != nil {
			return nil, err
		}
		root, err = q.Build(ctx)
	}
	if err != nil {
		return nil, err
	}
	if err := root.Open(ctx); err != nil {
		root.Close()
		return nil, err
	}
	defer root.Close()
	var out []types.Datum
	for {
		rec, err := root.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			return out, nil
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			if rec.NumCols() == 0 {
				out = append(out, types.NullOf(types.TBool))
			} else {
				out = append(out, types.DatumAt(q.Columns[0].T, rec.Column(0), i))
			}
			if limit > 0 && len(out) >= limit {
				rec.Release()
				return out, nil
			}
		}
		rec.Release()
	}
}

// runContext is the context a subquery runs under: the statement's, from
// the Ctx it is evaluated with (a cursor's rows may be fetched under a
// later one than planning's), so a cancel or statement_timeout ends it;
// the planning context where the Ctx has none (a constant fold).
func runContext(c *expr.Ctx, planning context.Context) context.Context {
	if c != nil && c.Context != nil {
		return c.Context
	}
	return planning
}

func (e *subqueryExpr) Eval(c *expr.Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	var test arrow.Array
	if e.kind == subIn || e.kind == subQuant {
		var err error
		if test, err = e.test.Eval(c, b); err != nil {
			return nil, err
		}
		defer test.Release()
	}
	bld := expr.NewBuilder(e.Type(), n)
	vals := make([]types.Datum, 0)
	for i := 0; i < n; i++ {
		var rows []types.Datum
		if !e.corr {
			st := e.state(c)
			st.once.Do(func() { st.rows, st.err = e.run(c, nil, 0) })
			if st.err != nil {
				bld.Finish().Release()
				return nil, st.err
			}
			rows = st.rows
		} else {
			vals = vals[:0]
			for k, col := range e.sc.cols {
				switch {
				case e.grouped == nil:
					vals = append(vals, types.DatumAt(col.t, b.Column(k), i))
				case e.grouped[k] >= 0:
					// Above GROUP BY the rows are groups: the key columns.
					vals = append(vals, types.DatumAt(col.t, b.Column(e.grouped[k]), i))
				default:
					vals = append(vals, types.NullOf(col.t))
				}
			}
			limit := 0
			switch e.kind {
			case subExists:
				limit = 1
			case subScalar:
				limit = 2
			}
			key, keyed := e.memo.key(vals)
			var memo *memoRows
			memoed := false
			if keyed {
				memo = &e.state(c).memo
				rows, memoed = memo.get(key)
			}
			if !memoed {
				var err error
				if rows, err = e.run(c, append([]types.Datum(nil), vals...), limit); err != nil {
					bld.Finish().Release()
					return nil, err
				}
				if keyed {
					memo.put(key, rows)
				}
			}
		}
		switch e.kind {
		case subExists:
			bld.Append(types.BoolDatum((len(rows) > 0) != e.negate))
		case subScalar:
			switch len(rows) {
			case 0:
				bld.Append(types.NullOf(e.t))
			case 1:
				d, err := expr.CastDatum(rows[0], e.t, c.Loc)
				if err != nil {
					bld.Finish().Release()
					return nil, err
				}
				bld.Append(d)
			default:
				bld.Finish().Release()
				return nil, pgerr.New(pgerr.CardinalityViolation, "more than one row returned by a subquery used as an expression")
			}
		case subIn:
			x := types.DatumAt(e.t, test, i)
			if !e.corr {
				st := e.state(c)
				st.set.once.Do(func() { st.set.build(rows, e.t, c) })
				if st.set.ok {
					bld.Append(st.set.test(x, e.negate))
					continue
				}
			}
			bld.Append(inList(x, rows, e.t, e.negate, c))
		case subQuant:
			d, err := quantified(types.DatumAt(e.t, test, i), rows, e.t, e.holds, e.all, c)
			if err != nil {
				bld.Finish().Release()
				return nil, err
			}
			bld.Append(d)
		case subArray:
			bld.Append(arrayOf(rows, e.Type(), c))
		}
	}
	return bld.Finish(), nil
}

// arrayOf is ARRAY(SELECT …): the rows in array_out's text form.
func arrayOf(rows []types.Datum, t types.T, c *expr.Ctx) types.Datum {
	buf := []byte{'{'}
	for i, r := range rows {
		if i > 0 {
			buf = append(buf, ',')
		}
		if r.Null {
			buf = append(buf, "NULL"...)
			continue
		}
		buf = types.AppendArrayElem(buf, types.FormatText(r, c.Loc))
	}
	return types.Datum{T: t, S: string(append(buf, '}'))}
}

// quantified is x op ANY (rows) or x op ALL (rows) with SQL's NULL rules:
// ANY is true when some row satisfies op, else NULL when x or some row is
// NULL, else false (so for no rows); ALL the other way round.
func quantified(x types.Datum, rows []types.Datum, t types.T, holds func(int) bool, all bool, c *expr.Ctx) (types.Datum, error) {
	sawNull := false
	for _, r := range rows {
		if x.Null || r.Null {
			sawNull = true
			continue
		}
		v, err := expr.CastDatum(r, t, c.Loc)
		if err != nil {
			return types.Datum{}, err
		}
		if h := holds(expr.CompareDatums(x, v)); h != all {
			return types.BoolDatum(h), nil
		}
	}
	if sawNull {
		return types.NullOf(types.TBool), nil
	}
	return types.BoolDatum(all), nil
}

// inList is x IN (rows) with SQL's NULL rules.
func inList(x types.Datum, rows []types.Datum, t types.T, negate bool, c *expr.Ctx) types.Datum {
	if len(rows) == 0 {
		return types.BoolDatum(negate)
	}
	if x.Null {
		return types.NullOf(types.TBool)
	}
	sawNull := false
	for _, r := range rows {
		if r.Null {
			sawNull = true
			continue
		}
		v, err := expr.CastDatum(r, t, c.Loc)
		if err != nil {
			continue
		}
		if datumEqual(x, v) {
			return types.BoolDatum(!negate)
		}
	}
	if sawNull {
		return types.NullOf(types.TBool)
	}
	return types.BoolDatum(negate)
}

func datumEqual(a, b types.Datum) bool {
	switch a.T.Kind {
	case types.Float4, types.Float8:
		return a.F == b.F
	case types.Numeric:
		return expr.CompareNumericText(a.S, b.S) == 0
	case types.Bytea:
		return string(a.B) == string(b.B)
	case types.Bool, types.Int2, types.Int4, types.Int8, types.OID, types.Date, types.Time, types.Timestamp, types.TimestampTZ:
		return a.I == b.I
	}
	return a.S == b.S
}

func (b *binder) bindSubquery(sl *pg.SubLink) (expr.Expr, error) {
	sel := sl.Subselect.GetSelectStmt()
	if sel == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "this subquery form is not supported").WithPosition(pos(b.p.query, sl.Location))
	}
	// Plan once: checks the subquery, gives its type, finds out whether
	// it refers to the outer row, and is the plan every outer row runs.
	planned.Add(1)
	child := &Planner{ctx: b.p.ctx, cat: b.p.cat, ec: b.p.ec, query: b.p.query, ParamTypes: b.p.ParamTypes, deps: b.p.deps, ctes: b.p.ctes,
		outer: &outerRow{sc: b.sc, frame: expr.NewFrame(), parent: b.p.outer, owner: b.p}}
	if b.aggMode {
		child.outer.grouped = b.outerGrouped()
	}
	req := b.decorRequest(sl)
	child.decor = req
	q, err := child.Select(sel)
	if err != nil {
		return nil, err
	}
	b.p.ParamTypes = child.ParamTypes
	if req != nil && req.result != nil {
		if e, ok, err := b.bindDecorrelated(sl, req, q); ok || err != nil {
			return e, err
		}
		// Planned again, as a subquery run per outer row.
		planned.Add(1)
		child = &Planner{ctx: b.p.ctx, cat: b.p.cat, ec: b.p.ec, query: b.p.query, ParamTypes: b.p.ParamTypes, deps: b.p.deps, ctes: b.p.ctes,
			outer: &outerRow{sc: b.sc, frame: expr.NewFrame(), parent: b.p.outer, owner: b.p}}
		if q, err = child.Select(sel); err != nil {
			return nil, err
		}
		b.p.ParamTypes = child.ParamTypes
	}
	e := &subqueryExpr{p: b.p, sel: sel, text: subqueryText(sel), sc: b.sc, corr: child.correlated, frame: child.outer.frame, ctes: b.p.ctes, grouped: child.outer.grouped}
	if !e.corr || !child.outer.needVals {
		// The plan serves every execution: the results it finds are the
		// execution's (subqueryRun), and it runs under the context and
		// reads the table states of the execution evaluating it.
		e.plan = q
		if e.corr {
			e.memo = newMemo(child.outer, b.p.query)
		}
	} else {
		// Planned again for each outer row, at run time, with the
		// planner's catalog and parameter types: the enclosing plan
		// serves this execution only.
		b.p.noteStateful()
		perRowPlannings.Add(1)
	}
	if e.sc == nil {
		e.sc = newScope(nil)
	}
	switch sl.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		e.kind = subExists
	case pg.SubLinkType_EXPR_SUBLINK:
		if len(q.Columns) != 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery must return only one column").WithPosition(pos(b.p.query, sl.Location))
		}
		e.kind, e.t = subScalar, q.Columns[0].T
	case pg.SubLinkType_ANY_SUBLINK, pg.SubLinkType_ALL_SUBLINK:
		if elems, ok := rowElems(sl.Testexpr); ok {
			return b.rowInSubquery(sl, elems, len(q.Columns))
		}
		if len(q.Columns) != 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery has too many columns").WithPosition(pos(b.p.query, sl.Location))
		}
		op := "="
		if len(sl.OperName) > 0 {
			op = opName(sl.OperName)
		}
		holds, ok := cmpHolds[op]
		if !ok {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "operator %s with ANY/ALL (subquery) is not supported yet", op).WithPosition(pos(b.p.query, sl.Location))
		}
		test, err := b.bind(sl.Testexpr)
		if err != nil {
			return nil, err
		}
		t, ok := types.Common(test.Type(), q.Columns[0].T)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s %s %s", test.Type(), op, q.Columns[0].T).WithPosition(pos(b.p.query, sl.Location))
		}
		if test, err = b.coerce(test, types.Of(t.Kind), sl.Location); err != nil {
			return nil, err
		}
		e.kind, e.test, e.t = subIn, test, types.Of(t.Kind)
		if all := sl.SubLinkType == pg.SubLinkType_ALL_SUBLINK; all || op != "=" {
			e.kind, e.op, e.holds, e.all = subQuant, op, holds, all
		}
	case pg.SubLinkType_ARRAY_SUBLINK:
		if len(q.Columns) != 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "subquery must return only one column").WithPosition(pos(b.p.query, sl.Location))
		}
		if q.Columns[0].T.Kind == types.Array {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "ARRAY of arrays is not supported yet").WithPosition(pos(b.p.query, sl.Location))
		}
		e.kind, e.t = subArray, q.Columns[0].T
		if e.t.Kind == types.Unknown {
			e.t = types.TText
		}
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported yet", parse.ExprName(&pg.Node{Node: &pg.Node_SubLink{SubLink: sl}})).
			WithPosition(pos(b.p.query, sl.Location))
	}
	return e, nil
}
