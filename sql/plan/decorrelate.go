package plan

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/build"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Decorrelation turns a subquery that would run once per outer row into
// a join run once (PostgreSQL's pull-up of sublinks):
//   - EXISTS, IN (= ANY) as a top-level WHERE conjunct: a hash semi join;
//     NOT EXISTS, NOT IN: a hash anti join (NOT IN null-aware);
//   - a scalar subquery of one aggregate row, correlated by equalities, in
//     WHERE or the select list of a query without GROUP BY: a left join to
//     the subquery grouped by its correlation keys, with the value of the
//     aggregates over no rows for outer rows that match no group (so
//     count(*) is 0 there, not NULL: the "count bug").
//
// The subquery's planner is asked for this (Planner.decor); it answers
// with a plan of the inner rows and the correlating conjuncts split off
// its WHERE, or plans as usual when the subquery's shape does not allow
// it: then it runs per outer row (subquery.go, memo.go). The enclosing
// query keeps the joins it must add (decorFrame) and places them above
// its FROM rows (withDecorJoins).

type decorKind uint8

const (
	decorExists decorKind = iota + 1 // EXISTS / NOT EXISTS
	decorIn                          // x IN / NOT IN (SELECT y …)
	decorScalar                      // (SELECT agg(…) … WHERE inner = outer …)
)

// decorReq is a request to a subquery's planner for a decorrelated plan.
type decorReq struct {
	kind   decorKind
	result *decorPlan // set when the subquery could be decorrelated
}

// decorPlan is the subquery as rows joined to the outer query's.
type decorPlan struct {
	root physical.Node
	// corr are the conjuncts that tie the inner rows (expr.Col over root's
	// columns) to the outer row (expr.OuterRef of frame).
	corr  []expr.Expr
	frame int
	// value is root's column holding the target (IN, scalar); for a
	// scalar, the columns before it are the group keys (corr's inner sides
	// in order) and the one after it is a TRUE marker, NULL when an outer
	// row matched no group.
	value int
	// empty (scalar) is the subquery's value over no rows: its select
	// list with each aggregate's value over no rows in place, evaluated
	// when the plan runs (it may read parameters); nil for NULL.
	empty expr.Expr
}

// decorFrame is what one query block decorrelates: its FROM scope and the
// joins its subqueries became, in the order they are placed.
type decorFrame struct {
	sc    *scope
	width int // the row width after the joins so far
	semi  map[*pg.SubLink]bool
	joins []*decorJoinNode
	// grouped: the block aggregates; only WHERE is below its GROUP BY.
	grouped bool
}

// semiCandidates are the sublinks that are top-level conjuncts of where,
// mapped to whether they are negated (NOT EXISTS, NOT IN).
func semiCandidates(where *pg.Node) map[*pg.SubLink]bool {
	out := map[*pg.SubLink]bool{}
	var walk func(n *pg.Node)
	walk = func(n *pg.Node) {
		if n == nil {
			return
		}
		if be := n.GetBoolExpr(); be != nil {
			switch be.Boolop {
			case pg.BoolExprType_AND_EXPR:
				for _, a := range be.Args {
					walk(a)
				}
			case pg.BoolExprType_NOT_EXPR:
				if len(be.Args) == 1 && be.Args[0].GetSubLink() != nil {
					out[be.Args[0].GetSubLink()] = true
				}
			}
			return
		}
		if sl := n.GetSubLink(); sl != nil {
			out[sl] = false
		}
	}
	walk(where)
	return out
}

// decorRequest is the decorrelation to ask of the planner of sublink sl
// bound by b, or nil where none applies.
func (b *binder) decorRequest(sl *pg.SubLink) *decorReq {
	fr := b.p.dframe
	if fr == nil || fr.sc != b.sc || b.aggMode || b.inAgg || b.inWindow {
		return nil
	}
	if b.where != "WHERE" && (fr.grouped || b.where != "SELECT" && b.where != "ORDER BY") {
		// Above GROUP BY the select list is matched with the keys by
		// their text (a subquery key is the subquery), and its rows are
		// groups.
		return nil
	}
	_, top := fr.semi[sl]
	switch sl.SubLinkType {
	case pg.SubLinkType_EXISTS_SUBLINK:
		if top {
			return &decorReq{kind: decorExists}
		}
	case pg.SubLinkType_ANY_SUBLINK:
		if _, row := rowElems(sl.Testexpr); top && !row && (len(sl.OperName) == 0 || opName(sl.OperName) == "=") {
			return &decorReq{kind: decorIn}
		}
	case pg.SubLinkType_EXPR_SUBLINK:
		return &decorReq{kind: decorScalar}
	}
	return nil
}

// countOuter counts the references to frame in e (mine) and to other
// frames (others); ok is false when e cannot be looked into.
func countOuter(e expr.Expr, frame int) (mine, others int, ok bool) {
	_, ok = rewriteWith(e, func(c *expr.Col) expr.Expr { return c }, func(x expr.Expr) (expr.Expr, bool) {
		if o, is := x.(*expr.OuterRef); is {
			if o.Frame == frame {
				mine++
			} else {
				others++
			}
			return x, true
		}
		return nil, false
	})
	return mine, others, ok
}

// joinSide rewrites e, over inner columns and references to frame, to
// read a joined row: the outer row's column i at i, inner column k at
// off+k. ok is false when e reads anything else.
func joinSide(e expr.Expr, frame, off int) (expr.Expr, bool) {
	bad := false
	out, ok := rewriteWith(e, func(c *expr.Col) expr.Expr {
		return &expr.Col{Idx: off + c.Idx, T: c.T, Name: c.Name}
	}, func(x expr.Expr) (expr.Expr, bool) {
		if o, is := x.(*expr.OuterRef); is {
			if o.Frame != frame {
				bad = true
			}
			return &expr.Col{Idx: o.Idx, T: o.T, Name: o.Name}, true
		}
		return nil, false
	})
	return out, ok && !bad
}

// eqSides splits an equality between an expression of the inner row only
// and one of the outer row only: inner, outer. ok is false for any other
// conjunct.
func eqSides(c expr.Expr, frame int) (inner, outer expr.Expr, ok bool) {
	cmp, is := c.(*expr.Compare)
	if !is || cmp.Op != expr.EQ || cmp.L.Type().Kind != cmp.R.Type().Kind {
		return nil, nil, false
	}
	onlyInner := func(e expr.Expr) bool {
		cs, ok := colsOf(e)
		m, o, ok2 := countOuter(e, frame)
		return ok && ok2 && len(cs) > 0 && m == 0 && o == 0
	}
	onlyOuter := func(e expr.Expr) bool {
		cs, ok := colsOf(e)
		m, o, ok2 := countOuter(e, frame)
		return ok && ok2 && len(cs) == 0 && m > 0 && o == 0
	}
	switch {
	case onlyInner(cmp.L) && onlyOuter(cmp.R):
		return cmp.L, cmp.R, true
	case onlyInner(cmp.R) && onlyOuter(cmp.L):
		return cmp.R, cmp.L, true
	}
	return nil, nil, false
}

// decorShape is what selectBody bound of a subquery asked to decorrelate.
type decorShape struct {
	sc       *scope
	exprs    []expr.Expr // the select list (ncols of them first)
	ncols    int
	hasAgg   bool
	groupBy  []expr.Expr
	aggs     []agg.Agg
	grouping *groupingInfo
	having   expr.Expr
	plain    bool // no window, set-returning function, DISTINCT ON, LIMIT or OFFSET
}

// splitCorrelated takes the conjuncts of where that read the outer row
// off it, when the subquery's shape allows req. ok false: plan as usual.
func (p *Planner) splitCorrelated(req *decorReq, where expr.Expr, d decorShape) (corr []expr.Expr, rest expr.Expr, ok bool) {
	o := p.outer
	if o == nil || o.needVals || o.deeper || o.vals != nil || !d.plain || o.lateral {
		return nil, where, false
	}
	switch req.kind {
	case decorExists:
		if d.hasAgg {
			return nil, where, false
		}
	case decorIn:
		if d.hasAgg || d.ncols != 1 {
			return nil, where, false
		}
	case decorScalar:
		if !d.hasAgg || len(d.groupBy) > 0 || d.having != nil || d.ncols != 1 || *d.grouping.idx >= 0 {
			return nil, where, false
		}
	}
	var local []expr.Expr
	seen := 0
	if where != nil {
		for _, c := range expr.Conjuncts(where) {
			mine, others, visible := countOuter(c, o.frame)
			switch {
			case mine == 0 && others == 0:
				local = append(local, c)
			case !visible || others > 0:
				return nil, where, false
			default:
				corr = append(corr, c)
				seen += mine
			}
		}
	}
	// Every reference to the outer row must be in corr: one anywhere else
	// (the select list, a nested subquery) needs the row itself.
	if seen != o.refs {
		return nil, where, false
	}
	keyed := false
	for _, c := range corr {
		_, _, eq := eqSides(c, o.frame)
		if !eq && req.kind == decorScalar {
			return nil, where, false
		}
		keyed = keyed || eq
	}
	if !keyed && req.kind != decorIn {
		// Uncorrelated EXISTS and scalars already run once.
		return nil, where, false
	}
	if len(local) > 0 {
		rest = andOf(local)
	}
	return corr, rest, true
}

// decorrelated is the plan of the subquery's rows for req: root is its
// FROM rows filtered by the uncorrelated WHERE.
// ok false: the subquery is planned as usual.
func (p *Planner) decorrelated(req *decorReq, root node, corr []expr.Expr, d decorShape) (*Query, bool, error) {
	frame := p.outer.frame
	if req.kind == decorScalar {
		return p.decorrelatedScalar(req, root, corr, d)
	}
	// The inner columns corr reads, then the IN target.
	var exprs []expr.Expr
	pos := map[int]int{}
	for _, c := range corr {
		cs, _ := colsOf(c)
		for _, i := range cs {
			if _, ok := pos[i]; !ok {
				pos[i] = len(exprs)
				exprs = append(exprs, &expr.Col{Idx: i, T: d.sc.cols[i].t, Name: d.sc.cols[i].name})
			}
		}
	}
	plan := &decorPlan{frame: frame, value: -1}
	for _, c := range corr {
		e, _ := remap(c, pos)
		plan.corr = append(plan.corr, e)
	}
	if req.kind == decorIn {
		plan.value = len(exprs)
		exprs = append(exprs, d.exprs[0])
	}
	return p.finishDecor(req, plan, &projectNode{in: root, exprs: exprs})
}

// finishDecor lowers a decorrelated subquery's tree into plan, which
// answers req.
func (p *Planner) finishDecor(req *decorReq, plan *decorPlan, root node) (*Query, bool, error) {
	op, err := p.lower(p.rewrite(root))
	if err != nil {
		return nil, false, err
	}
	plan.root = op
	req.result = plan
	return p.decorQuery(op), true, nil
}

// decorQuery is a Query for a decorrelated plan: its columns are unnamed.
func (p *Planner) decorQuery(op physical.Node) *Query {
	q := &Query{Root: op}
	for i, t := range op.Types() {
		q.Columns = append(q.Columns, Column{Name: "?column?" + itoa(i), T: t})
	}
	return q
}

// decorrelatedScalar groups the subquery's rows by the inner sides of the
// correlating equalities: its rows are those keys, the value, and a TRUE
// marker.
func (p *Planner) decorrelatedScalar(req *decorReq, root node, corr []expr.Expr, d decorShape) (*Query, bool, error) {
	frame := p.outer.frame
	plan := &decorPlan{frame: frame}
	var keys []expr.Expr
	for k, c := range corr {
		inner, outer, _ := eqSides(c, frame)
		keys = append(keys, inner)
		plan.corr = append(plan.corr, &expr.Compare{Op: expr.EQ, L: &expr.Col{Idx: k, T: inner.Type()}, R: outer})
	}
	empty, err := p.emptyValue(d)
	if err != nil {
		return nil, false, nil
	}
	plan.empty = empty
	set := make([]int, len(keys))
	for i := range set {
		set[i] = i
	}
	aggs := append([]agg.Agg{}, d.aggs...)
	root = &aggregateNode{in: root, groupBy: keys, sets: [][]int{set}, aggs: aggs, grouping: d.grouping}
	// The select list was bound with no group keys before the aggregates.
	shift := map[int]int{}
	for i := range d.aggs {
		shift[i] = len(keys) + i
	}
	value, ok := remap(d.exprs[0], shift)
	if !ok {
		return nil, false, nil
	}
	var exprs []expr.Expr
	for i, k := range keys {
		exprs = append(exprs, &expr.Col{Idx: i, T: k.Type()})
	}
	plan.value = len(exprs)
	exprs = append(exprs, value, &expr.Const{D: types.BoolDatum(true)})
	return p.finishDecor(req, plan, &projectNode{in: root, exprs: exprs})
}

type decorError struct{}

func (decorError) Error() string { return "plan: the subquery cannot be decorrelated" }

// errNotDecorrelated: the subquery is planned as usual instead.
var errNotDecorrelated error = decorError{}

// emptyValue is the scalar subquery's select list over no rows (nil when
// that is NULL), as PostgreSQL gives it to an outer row that no inner row
// matches (count(*) is 0): the aggregates over an empty input, found now
// (their arguments are never evaluated), in place of the aggregates.
func (p *Planner) emptyValue(d decorShape) (expr.Expr, error) {
	if fr := p.dframe; fr != nil && len(fr.joins) > 0 {
		// The aggregates may read columns those joins add.
		return nil, errNotDecorrelated
	}
	ts := make([]types.T, len(d.sc.cols))
	for i, c := range d.sc.cols {
		ts[i] = c.t
	}
	var n physical.Node = &physical.Values{Rows: [][]expr.Expr{}, ColumnTypes: ts}
	n = &physical.HashAgg{In: n, Aggs: d.aggs}
	op, err := build.Build(p.ctx, n, build.Env{Ec: p.ec})
	if err != nil {
		return nil, err
	}
	if err := op.Open(p.ctx); err != nil {
		op.Close()
		return nil, err
	}
	defer op.Close()
	rec, err := exec.Drain(p.ctx, op)
	if err != nil {
		return nil, err
	}
	if rec == nil || rec.NumRows() != 1 {
		if rec != nil {
			rec.Release()
		}
		return nil, errNotDecorrelated
	}
	defer rec.Release()
	vals := make([]expr.Expr, len(d.aggs))
	for i, a := range d.aggs {
		vals[i] = &expr.Const{D: types.DatumAt(a.T, rec.Column(i), 0)}
	}
	bad := false
	e, ok := rewrite(d.exprs[0], func(c *expr.Col) expr.Expr {
		if c.Idx >= len(vals) {
			bad = true
			return c
		}
		return vals[c.Idx]
	})
	if !ok || bad {
		return nil, errNotDecorrelated
	}
	e = p.fold(e)
	if k, isConst := e.(*expr.Const); isConst && k.D.Null {
		return nil, nil
	}
	return e, nil
}
