package plan

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// lateralInfo marks a FROM item that reads columns of the items before
// it (LATERAL, or a function in FROM): it is planned once, its references
// to those columns reading the apply's current left row (frame) from the
// execution context, the way a correlated subquery is (correlated.go).
type lateralInfo struct {
	leftUsed []bool // which of the earlier items' columns it reads
	frame    int    // the left row's frame (expr.OuterRef)
	// plan is nil when the item planned once serves every left row; else
	// (planning needed a left value) it plans the item for one left row,
	// with the row's values bound in as constants.
	plan func(ctx context.Context, vals []types.Datum) (*fromItem, error)
	// set, when not nil, is the item as a JSON set-returning function
	// whose arguments are bound over the earlier items' columns: joined
	// on true, it runs over whole batches of them, planned once.
	set *lateralSet
}

// lateralSet is a lateral JSON set-returning function in FROM.
type lateralSet struct {
	spec    *expr.SetSpec
	args    []expr.Expr // over the columns left of the item
	ordinal bool        // WITH ORDINALITY
}

// isLateral tells whether a FROM item may refer to the items before it:
// LATERAL subqueries, and functions, which PostgreSQL makes implicitly
// lateral.
func isLateral(n *pg.Node) bool {
	if rs := n.GetRangeSubselect(); rs != nil {
		return rs.Lateral
	}
	return n.GetRangeFunction() != nil
}

// joinHasLateral tells whether a join in FROM holds an item that may read
// the FROM items before the join.
func joinHasLateral(n *pg.Node) bool {
	je := n.GetJoinExpr()
	if je == nil {
		return false
	}
	for _, x := range []*pg.Node{je.Larg, je.Rarg} {
		if isLateral(x) || joinHasLateral(x) {
			return true
		}
	}
	return false
}

// lateralNode plans FROM item n, which may refer to the columns left of
// it. When it does, the item carries lateral and must be joined by an
// apply; else it is an ordinary item.
func (p *Planner) lateralNode(n *pg.Node, left []scopeCol, kind exec.JoinKind) (*fromItem, error) {
	osc := newScope(left)
	frame := expr.NewFrame()
	child := func(ctx context.Context, vals []types.Datum) *Planner {
		return &Planner{ctx: ctx, cat: p.cat, ec: p.ec, query: p.query, ParamTypes: p.ParamTypes, deps: p.deps, NoParams: p.NoParams,
			ctes: p.ctes, reg: p.reg, inFrom: true, outer: &outerRow{sc: osc, frame: frame, vals: vals, parent: p.outer, owner: p, lateral: true}}
	}
	planned.Add(1)
	c := child(p.ctx, nil)
	it, err := c.fromNode(n)
	if err != nil {
		return nil, err
	}
	corr := false
	for _, u := range osc.used {
		corr = corr || u
	}
	if !corr && n.GetJoinExpr() != nil {
		// A join binds its ON clause when built, which must be p's doing
		// (its parameters, no view of the items left of it): plan it again.
		return p.fromNode(n)
	}
	p.ParamTypes = c.ParamTypes
	if !corr {
		return it, nil
	}
	if kind != exec.InnerJoin && kind != exec.LeftJoin {
		e := pgerr.New(pgerr.InvalidColumnReference, "invalid reference to FROM-clause entry for table %q", firstTable(osc))
		e.Detail = "The combining JOIN type must be INNER or LEFT for a LATERAL reference."
		return nil, e
	}
	it.rows = -1
	it.lateral = &lateralInfo{leftUsed: osc.used, frame: frame}
	if c.outer.needVals {
		// Fallback (correlated.go): planned again for each left row.
		perRowPlannings.Add(1)
		it.lateral.plan = func(ctx context.Context, vals []types.Datum) (*fromItem, error) {
			planned.Add(1)
			return child(ctx, vals).fromNode(n)
		}
	}
	if set, err := p.lateralSetOf(n, left); err != nil {
		return nil, err
	} else if set != nil && len(set.spec.Cols)+btoi(set.ordinal) == len(it.cols) {
		it.lateral.set = set
	}
	return it, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lateralSetOf binds a JSON set-returning function in FROM over the
// columns left of it, for a lateral join that runs it batch by batch; nil
// for any other item.
func (p *Planner) lateralSetOf(n *pg.Node, left []scopeCol) (*lateralSet, error) {
	rf := n.GetRangeFunction()
	if rf == nil {
		return nil, nil
	}
	spec, fc, err := p.recordSpecOf(rf)
	if err != nil {
		return nil, err
	}
	if spec == nil {
		if rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 {
			return nil, nil
		}
		items := rf.Functions[0].GetList().GetItems()
		if len(items) == 0 || items[0].GetFuncCall() == nil {
			return nil, nil
		}
		fc = items[0].GetFuncCall()
		var ok bool
		if spec, ok = jsonSetSpec(fc); !ok {
			return nil, nil
		}
	}
	b := &binder{p: p, sc: newScope(left), where: "functions in FROM"}
	args, err := b.setSpecArgs(fc, spec)
	if err != nil {
		return nil, err
	}
	return &lateralSet{spec: spec, args: args, ordinal: rf.Ordinality}, nil
}

// isTrue tells whether a join condition is the constant true (ON true).
func isTrue(on expr.Expr) bool {
	if on == nil {
		return true
	}
	for _, c := range expr.Conjuncts(on) {
		k, ok := expr.IsConst(c)
		if !ok || k.Null || k.T.Kind != types.Bool || k.I == 0 {
			return false
		}
	}
	return true
}

// applyOp joins left (the operator of the columns lat refers to) to lat,
// built for each left row. latOff is where lat's columns are in sc.
func (p *Planner) applyOp(kind exec.JoinKind, left physical.Node, lat *fromItem, sc *scope, latOff int, on expr.Expr) physical.Node {
	if set := lat.lateral.set; set != nil {
		ts := make([]types.T, len(set.spec.Cols))
		for i, c := range set.spec.Cols {
			ts[i] = c.T
		}
		spec := set.spec
		if isTrue(on) {
			on = nil
		}
		// The join condition reads the joined row as the apply's would:
		// the left columns, then the item's.
		return &physical.LateralSet{In: left, Name: spec.Name, Args: set.args, FnTypes: ts, Rows: func(vals []types.Datum, ec *expr.Ctx) ([][]types.Datum, error) {
			return specRows(spec, vals, ec)
		}, Outer: kind == exec.LeftJoin, Ordinal: set.ordinal, On: on}
	}
	used := sc.used[latOff : latOff+len(lat.cols)]
	ts := make([]types.T, len(lat.cols))
	for i, c := range lat.cols {
		ts[i] = c.t
	}
	// The inner side was planned once (lat): its plan is lowered when the
	// first left row needs it and built for each left row, the row being
	// in the context (physical.Apply.Frame). Decorrelating it is issue
	// 15's.
	var kept physical.Node
	inner := func(ctx context.Context, vals []types.Datum) (physical.Node, error) {
		it := lat
		if lat.lateral.plan != nil {
			var err error
			if it, err = lat.lateral.plan(ctx, vals); err != nil {
				return nil, err
			}
		} else if kept != nil {
			return kept, nil
		}
		op, err := it.build(&scope{cols: it.cols, used: used}, 0, nil)
		if err != nil {
			return nil, err
		}
		// A column typed from a NULL outer value may come out otherwise
		// typed for a real one; the apply's types are the first plan's.
		got := op.Types()
		var fix []expr.Expr
		for i, t := range got {
			if i < len(ts) && t != ts[i] {
				fix = make([]expr.Expr, len(got))
				break
			}
		}
		if fix != nil {
			for i, t := range got {
				fix[i] = &expr.Col{Idx: i, T: t}
				if t != ts[i] {
					fix[i] = &expr.Cast{Arg: fix[i], T: ts[i]}
				}
			}
			op = &physical.Project{In: op, Exprs: fix}
		}
		if lat.lateral.plan == nil {
			kept = op
		}
		return op, nil
	}
	// The inner rows depend only on the left columns it reads, unless a
	// volatile function may make them differ for equal values: then the
	// apply remembers them by those values.
	var keyCols []int
	if !mentionsVolatile(p.query) {
		keyCols = []int{}
		for k, u := range lat.lateral.leftUsed {
			if u {
				keyCols = append(keyCols, k)
			}
		}
	}
	return &physical.Apply{Kind: kind, Left: left, InnerTypes: ts, Inner: inner, KeyCols: keyCols, On: on, Frame: lat.lateral.frame, PerRow: lat.lateral.plan != nil}
}

// markLeftUsed makes the scans left of a lateral item read the columns it
// refers to; off is where those columns start in sc.
func markLeftUsed(lat *fromItem, sc *scope, off int) {
	for k, u := range lat.lateral.leftUsed {
		if u {
			sc.used[off+k] = true
		}
	}
}

// applyItem is the FROM-list item of the items before a lateral one and
// the lateral item itself, cross-joined by an apply.
func (p *Planner) applyItem(prefix []*fromItem, lat *fromItem) *fromItem {
	var cols []scopeCol
	for _, it := range prefix {
		cols = append(cols, it.cols...)
	}
	nl := len(cols)
	cols = append(cols, lat.cols...)
	return &fromItem{cols: cols, rows: -1, build: func(sc *scope, off int, filter expr.Expr) (physical.Node, error) {
		markLeftUsed(lat, sc, off)
		sub := &scope{cols: sc.cols[off : off+nl], used: sc.used[off : off+nl]}
		// WHERE conjuncts on the earlier items alone still join them well.
		var lf []expr.Expr
		if filter != nil {
			for _, c := range expr.Conjuncts(filter) {
				cs, ok := colsOf(c)
				if !ok || len(cs) == 0 {
					continue
				}
				all := true
				for _, k := range cs {
					all = all && k < nl
				}
				if all {
					lf = append(lf, c)
				}
			}
		}
		left, err := p.joinList(sub, prefix, pruneOnly(lf))
		if err != nil {
			return nil, err
		}
		return p.applyOp(exec.InnerJoin, left, lat, sc, off+nl, nil), nil
	}}
}

// firstTable names the first table of sc whose columns were read.
func firstTable(sc *scope) string {
	for i, u := range sc.used {
		if u {
			return sc.cols[i].table
		}
	}
	return ""
}

// selectInFrom plans a subquery in FROM. Beside a lateral item's planner,
// a plain subquery must not see the items left of it (PostgreSQL: "invalid
// reference to FROM-clause entry"), so it skips that outer row.
func (p *Planner) selectInFrom(sel *pg.SelectStmt, lateral bool) (*Query, error) {
	if !p.inFrom {
		return p.Select(sel)
	}
	outer := p.outer
	if !lateral {
		for outer != nil && outer.lateral {
			outer = outer.parent
		}
	}
	f := &Planner{ctx: p.ctx, cat: p.cat, ec: p.ec, query: p.query, ParamTypes: p.ParamTypes, deps: p.deps, NoParams: p.NoParams,
		ctes: p.ctes, reg: p.reg, outer: outer}
	q, err := f.Select(sel)
	if err != nil {
		var skipped []scopeCol
		for x := p.outer; x != outer; x = x.parent {
			skipped = append(skipped, x.sc.cols...)
		}
		return nil, notLateralError(err, skipped)
	}
	p.ParamTypes = f.ParamTypes
	if f.correlated {
		// What the skipped rows' owners would have learned from p.
		p.correlated = true
		for x := p.outer; x != nil && x != outer; x = x.parent {
			x.owner.correlated = true
		}
	}
	return q, err
}

// notLateralError words an error of a plain subquery in FROM that names
// an item left of it as PostgreSQL does: that item exists but needs
// LATERAL to be read.
func notLateralError(err error, left []scopeCol) error {
	var pe *pgerr.Error
	if !errors.As(err, &pe) {
		return err
	}
	for _, c := range left {
		switch {
		case pe.Code == pgerr.UndefinedTable && c.table != "" && pe.Message == fmt.Sprintf("missing FROM-clause entry for table %q", c.table):
			out := *pe
			out.Message = fmt.Sprintf("invalid reference to FROM-clause entry for table %q", c.table)
			out.Hint = fmt.Sprintf("There is an entry for table %q, but it cannot be referenced from this part of the query.", c.table)
			return &out
		case pe.Code == pgerr.UndefinedColumn && c.table != "" && pe.Message == fmt.Sprintf("column %q does not exist", c.name):
			out := *pe
			out.Hint = fmt.Sprintf("There is a column named %q in table %q, but it cannot be referenced from this part of the query.", c.name, c.table)
			return &out
		}
	}
	return err
}

// mentionsVolatile tells whether a statement may call a volatile function
// (by name, anywhere in its text: a cautious test).
func mentionsVolatile(query string) bool {
	q := strings.ToLower(query)
	for _, v := range []string{"random", "clock_timestamp", "timeofday", "gen_random_uuid", "nextval", "setval",
		"pg_sleep", "set_config", "statement_timestamp", "txid_current", "uuid_generate"} {
		if strings.Contains(q, v) {
			return true
		}
	}
	return false
}
