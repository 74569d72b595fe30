package plan

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/types"
	"github.com/loamdb/loam/pgerr"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// fromItem is one entry of FROM: its columns, and how to build its
// operator once the query is bound (so scans read only the used columns).
// off is where its columns start in the query's scope.
type fromItem struct {
	cols  []scopeCol
	build func(sc *scope, off int) (exec.Operator, error)
}

func (p *Planner) fromNode(n *pg.Node) (*fromItem, error) {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		ti, err := p.cat.Table(p.ctx, rv.Schemaname, rv.Relname)
		if err != nil {
			return nil, pgerr.From(err).WithPosition(pos(p.query, rv.Location))
		}
		alias := ti.Name
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
		cols := make([]scopeCol, len(ti.Columns))
		for i, c := range ti.Columns {
			cols[i] = scopeCol{table: alias, name: c, t: ti.Types[i]}
		}
		return &fromItem{cols: cols, build: func(sc *scope, off int) (exec.Operator, error) {
			spec := exec.TableScan{Store: p.cat.Store(), Table: ti.Table, Tail: ti.Tail}
			var positions []int
			all := make([]types.T, len(cols))
			for i, c := range cols {
				all[i] = c.t
				if sc.used[off+i] {
					spec.Columns = append(spec.Columns, c.name)
					spec.Types = append(spec.Types, c.t)
					positions = append(positions, i)
				}
			}
			return exec.NewWiden(exec.NewScan(spec), positions, all), nil
		}}, nil
	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		if rs.Lateral {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "LATERAL is not supported yet")
		}
		sel := rs.Subquery.GetSelectStmt()
		if sel == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "this subquery in FROM is not supported")
		}
		q, err := p.Select(sel)
		if err != nil {
			return nil, err
		}
		alias := ""
		var names []string
		if rs.Alias != nil {
			alias = rs.Alias.Aliasname
			for _, c := range rs.Alias.Colnames {
				names = append(names, c.GetString_().Sval)
			}
		}
		cols := make([]scopeCol, len(q.Columns))
		for i, c := range q.Columns {
			name := c.Name
			if i < len(names) {
				name = names[i]
			}
			cols[i] = scopeCol{table: alias, name: name, t: c.T}
		}
		return &fromItem{cols: cols, build: func(*scope, int) (exec.Operator, error) { return q.Root, nil }}, nil
	case n.GetJoinExpr() != nil:
		return p.joinItem(n.GetJoinExpr())
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "this FROM item is not supported yet")
}

func (p *Planner) joinItem(je *pg.JoinExpr) (*fromItem, error) {
	l, err := p.fromNode(je.Larg)
	if err != nil {
		return nil, err
	}
	r, err := p.fromNode(je.Rarg)
	if err != nil {
		return nil, err
	}
	kind := map[pg.JoinType]exec.JoinKind{pg.JoinType_JOIN_INNER: exec.InnerJoin, pg.JoinType_JOIN_LEFT: exec.LeftJoin,
		pg.JoinType_JOIN_RIGHT: exec.RightJoin, pg.JoinType_JOIN_FULL: exec.FullJoin}[je.Jointype]
	// USING and NATURAL join on equal names.
	var using []string
	for _, u := range je.UsingClause {
		using = append(using, u.GetString_().Sval)
	}
	if je.IsNatural {
		for _, lc := range l.cols {
			for _, rc := range r.cols {
				if lc.name == rc.name {
					using = append(using, lc.name)
				}
			}
		}
	}
	cols := append(append([]scopeCol{}, l.cols...), r.cols...)
	return &fromItem{cols: cols, build: func(sc *scope, off int) (exec.Operator, error) {
		sub := &scope{cols: sc.cols[off : off+len(cols)], used: sc.used[off : off+len(cols)]}
		b := &binder{p: p, sc: sub, where: "JOIN conditions"}
		var on expr.Expr
		var conds []expr.Expr
		for _, name := range using {
			li, ri := -1, -1
			for i, c := range l.cols {
				if c.name == name {
					li = i
				}
			}
			for i, c := range r.cols {
				if c.name == name {
					ri = len(l.cols) + i
				}
			}
			if li < 0 || ri < 0 {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q specified in USING clause does not exist in both tables", name)
			}
			sub.used[li], sub.used[ri] = true, true
			e, err := b.binaryOp("=", &expr.Col{Idx: li, T: cols[li].t, Name: name}, &expr.Col{Idx: ri, T: cols[ri].t, Name: name}, -1)
			if err != nil {
				return nil, err
			}
			conds = append(conds, e)
		}
		if je.Quals != nil {
			e, err := b.bind(je.Quals)
			if err != nil {
				return nil, err
			}
			if e, err = b.coerceBool(e, nodeLocation(je.Quals)); err != nil {
				return nil, err
			}
			conds = append(conds, e)
		}
		switch len(conds) {
		case 0:
		case 1:
			on = conds[0]
		default:
			on = &expr.BoolOp{Args: conds}
		}
		lop, err := l.build(sc, off)
		if err != nil {
			return nil, err
		}
		rop, err := r.build(sc, off+len(l.cols))
		if err != nil {
			return nil, err
		}
		return exec.NewNestedLoopJoin(kind, lop, rop, on, p.ec), nil
	}}, nil
}

// fromList plans a FROM list: its items cross-joined left to right, with
// each WHERE conjunct applied at the first join where all its columns are
// there, so a chain of equalities never builds the whole cross product.
func (p *Planner) fromList(nodes []*pg.Node) ([]scopeCol, func(sc *scope, where expr.Expr) (exec.Operator, error), error) {
	items := make([]*fromItem, len(nodes))
	var cols []scopeCol
	for i, n := range nodes {
		it, err := p.fromNode(n)
		if err != nil {
			return nil, nil, err
		}
		items[i] = it
		cols = append(cols, it.cols...)
	}
	build := func(sc *scope, where expr.Expr) (exec.Operator, error) {
		var conj []expr.Expr
		if where != nil {
			conj = conjuncts(where)
		}
		placed := make([]bool, len(conj))
		take := func(width int) expr.Expr {
			var ready []expr.Expr
			for k, c := range conj {
				if placed[k] {
					continue
				}
				if m, ok := maxCol(c); ok && m < width {
					placed[k] = true
					ready = append(ready, c)
				}
			}
			switch len(ready) {
			case 0:
				return nil
			case 1:
				return ready[0]
			}
			return &expr.BoolOp{Args: ready}
		}
		off := 0
		src, err := items[0].build(sc, 0)
		if err != nil {
			return nil, err
		}
		off += len(items[0].cols)
		if f := take(off); f != nil {
			src = exec.NewFilter(src, f, p.ec)
		}
		for _, it := range items[1:] {
			op, err := it.build(sc, off)
			if err != nil {
				return nil, err
			}
			// Equalities between the rows so far and the new item make a
			// hash join; the other conjuncts that become ready filter it.
			var lk, rk []expr.Expr
			for k, c := range conj {
				if placed[k] {
					continue
				}
				if l, r, ok := equiKeys(c, off, off+len(it.cols)); ok {
					placed[k] = true
					lk, rk = append(lk, l), append(rk, r)
				}
			}
			width := off + len(it.cols)
			if len(lk) > 0 {
				src = exec.NewHashJoin(src, op, lk, rk, p.ec)
				if f := take(width); f != nil {
					src = exec.NewFilter(src, f, p.ec)
				}
			} else {
				src = exec.NewNestedLoopJoin(exec.InnerJoin, src, op, take(width), p.ec)
			}
			off = width
		}
		var rest []expr.Expr
		for k, c := range conj {
			if !placed[k] {
				rest = append(rest, c)
			}
		}
		switch len(rest) {
		case 0:
		case 1:
			src = exec.NewFilter(src, rest[0], p.ec)
		default:
			src = exec.NewFilter(src, &expr.BoolOp{Args: rest}, p.ec)
		}
		return src, nil
	}
	return cols, build, nil
}

// maxCol is the highest input column e reads; ok is false for expressions
// it cannot see into (subqueries read the whole row).
func maxCol(e expr.Expr) (int, bool) {
	m := -1
	var walk func(e expr.Expr) bool
	all := func(es ...expr.Expr) bool {
		for _, x := range es {
			if x != nil && !walk(x) {
				return false
			}
		}
		return true
	}
	walk = func(e expr.Expr) bool {
		switch x := e.(type) {
		case *expr.Col:
			m = max(m, x.Idx)
			return true
		case *expr.Const, *paramRef:
			return true
		case *expr.Compare:
			return all(x.L, x.R)
		case *expr.Arith:
			return all(x.L, x.R)
		case *expr.BoolOp:
			return all(x.Args...)
		case *expr.Not:
			return all(x.Arg)
		case *expr.IsNull:
			return all(x.Arg)
		case *expr.IsBool:
			return all(x.Arg)
		case *expr.In:
			return all(x.Arg) && all(x.List...)
		case *expr.Like:
			return all(x.Arg, x.Pattern)
		case *expr.Func:
			return all(x.Args...)
		case *expr.Coalesce:
			return all(x.Args...)
		case *expr.Case:
			return all(x.Whens...) && all(x.Thens...) && all(x.Else)
		case *expr.Cast:
			return all(x.Arg)
		case *expr.Neg:
			return all(x.Arg)
		}
		return false
	}
	if !walk(e) {
		return 0, false
	}
	return m, true
}

// equiKeys splits `a = b` where one side reads only columns before off
// (the rows joined so far) and the other only columns in [off, end) (the
// new item) into the two keys, the second shifted to the item's columns.
func equiKeys(e expr.Expr, off, end int) (expr.Expr, expr.Expr, bool) {
	c, ok := e.(*expr.Compare)
	if !ok || c.Op != expr.EQ {
		return nil, nil, false
	}
	side := func(x expr.Expr) (lo, hi int, ok bool) {
		lo, hi = -1, -1
		var col *expr.Col
		switch v := x.(type) {
		case *expr.Col:
			col = v
		case *expr.Cast:
			col, ok = v.Arg.(*expr.Col)
			if !ok {
				return 0, 0, false
			}
		default:
			return 0, 0, false
		}
		return col.Idx, col.Idx, true
	}
	shift := func(x expr.Expr) expr.Expr {
		switch v := x.(type) {
		case *expr.Col:
			return &expr.Col{Idx: v.Idx - off, T: v.T, Name: v.Name}
		case *expr.Cast:
			a := v.Arg.(*expr.Col)
			return &expr.Cast{Arg: &expr.Col{Idx: a.Idx - off, T: a.T, Name: a.Name}, T: v.T}
		}
		return nil
	}
	l, _, okl := side(c.L)
	r, _, okr := side(c.R)
	if !okl || !okr {
		return nil, nil, false
	}
	switch {
	case l < off && r >= off && r < end:
		return c.L, shift(c.R), true
	case r < off && l >= off && l < end:
		return c.R, shift(c.L), true
	}
	return nil, nil, false
}
