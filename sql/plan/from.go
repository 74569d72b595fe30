package plan

import (
	"fmt"
	"strings"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/sql/parse"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// fromItem is one entry of FROM: its columns, and how to plan its
// physical node once the query is bound (so scans read only the used columns).
// off is where its columns start in the query's scope.
type fromItem struct {
	cols []scopeCol
	// filter, when not nil, is a predicate over the item's own columns
	// the caller applies above it: a table scan prunes files with it.
	build func(sc *scope, off int, filter expr.Expr) (physical.Node, error)
	// rows estimates how many rows the item yields; -1 when unknown.
	rows int64
	// ndv is each column's distinct count where statistics know it (0:
	// unknown); nil when none is known (stats.go).
	ndv []float64
	// lateral, when set, is an item that reads the items before it: it is
	// joined to them by an apply, not built once (see lateral.go).
	lateral *lateralInfo
	// exact: build applies the filter it is given to the rows itself (a
	// join, which places each conjunct where it applies), so the caller
	// need not filter above it.
	exact bool
}

// tableRows is the row count of a table's snapshot, from its summary,
// and of its write-log tail.
func tableRows(ti *TableInfo) int64 {
	var n int64
	if snap := ti.Table.CurrentSnapshot(); snap != nil && snap.Summary != nil {
		if v, ok := snap.Summary.Properties["total-records"]; ok {
			if _, err := fmt.Sscan(v, &n); err != nil {
				return -1
			}
		}
	}
	if ti.Log != nil {
		n += ti.Log.TailRows()
	}
	return n
}

func (p *Planner) fromNode(n *pg.Node) (*fromItem, error) {
	switch {
	case n.GetRangeVar() != nil:
		rv := n.GetRangeVar()
		if c := p.lookupCTE(rv); c != nil {
			if err := p.refuseAsOf(rv, "a WITH query"); err != nil {
				return nil, err
			}
			return p.cteItem(c, rv)
		}
		if vt := p.lookupVirtual(rv.Schemaname, rv.Relname); vt != nil {
			if err := p.refuseAsOf(rv, "a system relation"); err != nil {
				return nil, err
			}
			alias := vt.Name
			if rv.Alias != nil {
				alias = rv.Alias.Aliasname
			}
			return p.virtualItem(vt, alias), nil
		}
		ti, err := p.fromTable(rv)
		if err != nil && pgerr.Code(err) == pgerr.UndefinedTable {
			// "t$snapshots" and the other metadata tables (metatables.go).
			if it, merr := p.metaTableItem(rv); it != nil || merr != nil {
				if merr == nil {
					merr = p.refuseAsOf(rv, "a metadata table")
				}
				if merr != nil {
					return nil, merr
				}
				return it, nil
			}
		}
		if err != nil {
			return nil, err
		}
		if ti.ViewSQL != "" {
			return p.viewItem(ti, rv)
		}
		alias := ti.Name
		if rv.Alias != nil {
			alias = rv.Alias.Aliasname
		}
		cols := p.tableCols(ti, alias)
		rows := tableRows(ti)
		return &fromItem{cols: cols, rows: rows, ndv: tableNDV(ti, rows), build: func(sc *scope, off int, filter expr.Expr) (physical.Node, error) {
			scan := &physical.Scan{Source: p.scanSource(ti), Expiry: p.expiry(ti)}
			if filter != nil {
				scan.Prune, scan.Names = filter, ti.Columns
			}
			var positions []int
			all := make([]types.T, len(cols))
			for i, c := range cols {
				all[i] = c.t
				if sc.used[off+i] {
					scan.Columns = append(scan.Columns, c.name)
					scan.ColumnTypes = append(scan.ColumnTypes, c.t)
					positions = append(positions, i)
				}
			}
			return &physical.Widen{In: scan, Positions: positions, All: all}, nil
		}}, nil
	case n.GetRangeSubselect() != nil:
		rs := n.GetRangeSubselect()
		sel := rs.Subquery.GetSelectStmt()
		if sel == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "this subquery in FROM is not supported")
		}
		q, err := p.selectInFrom(sel, rs.Lateral)
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
			cols[i] = scopeCol{table: alias, name: name, t: c.T, origin: origin{c.TableOID, c.ColumnNum}}
		}
		return &fromItem{cols: cols, build: func(sc *scope, off int, filter expr.Expr) (physical.Node, error) {
			return withPrune(p.pruneUnread(q.Root, sc.used[off:off+len(cols)]), filter), nil
		}}, nil
	case n.GetJoinExpr() != nil:
		return p.joinItem(n.GetJoinExpr())
	case n.GetRangeFunction() != nil:
		return p.rangeFunction(n.GetRangeFunction())
	}
	what := "this FROM item"
	switch {
	case n.GetRangeTableSample() != nil:
		what = "TABLESAMPLE"
	case n.GetRangeTableFunc() != nil:
		what = "XMLTABLE"
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "%s is not supported yet", what).WithPosition(pos(p.query, parse.NodeLocation(n)))
}

func (p *Planner) joinItem(je *pg.JoinExpr) (*fromItem, error) {
	l, err := p.fromNode(je.Larg)
	if err != nil {
		return nil, err
	}
	kind := map[pg.JoinType]exec.JoinKind{pg.JoinType_JOIN_INNER: exec.InnerJoin, pg.JoinType_JOIN_LEFT: exec.LeftJoin,
		pg.JoinType_JOIN_RIGHT: exec.RightJoin, pg.JoinType_JOIN_FULL: exec.FullJoin}[je.Jointype]
	var r *fromItem
	if isLateral(je.Rarg) {
		r, err = p.lateralNode(je.Rarg, l.cols, kind)
	} else {
		r, err = p.fromNode(je.Rarg)
		if err != nil && je.Rarg.GetRangeSubselect() != nil {
			err = notLateralError(err, l.cols)
		}
	}
	if err != nil {
		return nil, err
	}
	// USING and NATURAL join on equal names.
	var using []string
	for _, u := range je.UsingClause {
		using = append(using, u.GetString_().Sval)
	}
	if je.IsNatural {
		for _, lc := range l.cols {
			for _, rc := range r.cols {
				if lc.name == rc.name && !lc.system && !rc.system {
					using = append(using, lc.name)
				}
			}
		}
	}
	// A USING column is one merged column of the join, first in its
	// output; the two it comes from stay reachable only by table name.
	find := func(cols []scopeCol, name string) int {
		for i, c := range cols {
			if c.name == name && !c.hidden {
				return i
			}
		}
		return -1
	}
	lcols := append([]scopeCol{}, l.cols...)
	rcols := append([]scopeCol{}, r.cols...)
	type usingCol struct{ li, ri int }
	var pairs []usingCol
	var merged []scopeCol
	for _, name := range using {
		li, ri := find(l.cols, name), find(r.cols, name)
		if li < 0 || ri < 0 {
			side := "left"
			if li >= 0 {
				side = "right"
			}
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q specified in USING clause does not exist in %s table", name, side).WithPosition(pos(p.query, je.Rarg.GetRangeVar().GetLocation()))
		}
		t, ok := types.Common(l.cols[li].t, r.cols[ri].t)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedFunction, "JOIN/USING types %s and %s cannot be matched", l.cols[li].t, r.cols[ri].t)
		}
		pairs = append(pairs, usingCol{li, ri})
		merged = append(merged, scopeCol{name: name, t: t})
		lcols[li].hidden, rcols[ri].hidden = true, true
	}
	nm := len(merged)
	cols := append(append(append([]scopeCol{}, merged...), lcols...), rcols...)
	return &fromItem{cols: cols, build: func(sc *scope, off int, filter expr.Expr) (physical.Node, error) {
		sub := &scope{cols: sc.cols[off+nm : off+len(cols)], used: sc.used[off+nm : off+len(cols)]}
		b := &binder{p: p, sc: sub, where: "JOIN conditions"}
		var conds []expr.Expr
		var mergedExprs []expr.Expr
		for i, u := range pairs {
			li, ri := u.li, len(l.cols)+u.ri
			sub.used[li], sub.used[ri] = true, true
			le := expr.Expr(&expr.Col{Idx: li, T: sub.cols[li].t, Name: merged[i].name})
			re := expr.Expr(&expr.Col{Idx: ri, T: sub.cols[ri].t, Name: merged[i].name})
			e, err := b.binaryOp("=", le, re, -1)
			if err != nil {
				return nil, err
			}
			conds = append(conds, e)
			t := merged[i].t
			if le.Type() != t {
				le = &expr.Cast{Arg: le, T: t}
			}
			if re.Type() != t {
				re = &expr.Cast{Arg: re, T: t}
			}
			switch kind {
			case exec.RightJoin:
				mergedExprs = append(mergedExprs, re)
			case exec.FullJoin:
				mergedExprs = append(mergedExprs, &expr.Coalesce{Args: []expr.Expr{le, re}, T: t})
			default:
				mergedExprs = append(mergedExprs, le)
			}
		}
		// WHERE conjuncts on one side prune that side's files, where the
		// side is not null-extended by the join.
		var lf, rf, other []expr.Expr
		if filter != nil {
			lm, rm := map[int]int{}, map[int]int{}
			for i := range l.cols {
				lm[nm+i] = i
			}
			for i := range r.cols {
				rm[nm+len(l.cols)+i] = i
			}
			for _, c := range expr.Conjuncts(filter) {
				cs, ok := colsOf(c)
				if !ok || len(cs) == 0 {
					other = append(other, c)
					continue
				}
				if e, ok := remap(c, lm); ok && (kind == exec.InnerJoin || kind == exec.LeftJoin) {
					lf = append(lf, e)
				} else if e, ok := remap(c, rm); ok && (kind == exec.InnerJoin || kind == exec.RightJoin) {
					rf = append(rf, e)
				} else {
					other = append(other, c)
				}
			}
		}
		op, err := p.joinOp(kind, l, r, sc, off+nm, b, je, conds, lf, rf)
		if err != nil {
			return nil, err
		}
		if nm > 0 {
			out := append([]expr.Expr{}, mergedExprs...)
			for i, c := range sub.cols {
				out = append(out, &expr.Col{Idx: i, T: c.t, Name: c.name})
			}
			op = &physical.Project{In: op, Exprs: out}
		}
		if len(other) > 0 {
			op = &physical.Filter{In: op, Pred: andOf(other)}
		}
		return op, nil
	}, exact: true}, nil
}

// joinOp builds the join of l and r on conds and the ON clause.
func (p *Planner) joinOp(kind exec.JoinKind, l, r *fromItem, sc *scope, off int, b *binder, je *pg.JoinExpr, conds, lf, rf []expr.Expr) (physical.Node, error) {
	var on expr.Expr
	{
		if je.Quals != nil {
			e, err := b.bind(je.Quals)
			if err != nil {
				return nil, err
			}
			if e, err = b.coerceBool(e, nodeLocation(je.Quals)); err != nil {
				return nil, err
			}
			conds = append(conds, foldNulls(e))
		}
		if r.lateral != nil {
			markLeftUsed(r, sc, off)
			lop, err := filteredItem(l, sc, off, lf)
			if err != nil {
				return nil, err
			}
			var on expr.Expr
			if len(conds) > 0 {
				on = andOf(conds)
			}
			op := p.applyOp(kind, lop, r, sc, off+len(l.cols), on)
			if len(rf) > 0 {
				// The lateral side is planned per left row: its WHERE
				// conjuncts filter the joined rows.
				shift := map[int]int{}
				for i := range r.cols {
					shift[i] = len(l.cols) + i
				}
				pred, _ := remap(andOf(rf), shift)
				op = &physical.Filter{In: op, Pred: pred}
			}
			return op, nil
		}
		var flat []expr.Expr
		for _, c := range conds {
			flat = append(flat, expr.Conjuncts(c)...)
		}
		nl := len(l.cols)
		leftLocal, rightLocal := map[int]int{}, map[int]int{}
		for i := range l.cols {
			leftLocal[i] = i
		}
		for i := range r.cols {
			rightLocal[nl+i] = i
		}
		// WHERE conjuncts (lf, rf) and ON conjuncts of one side filter
		// that side before the join (joinpush.go).
		onL, onR, flat := pushableOn(kind, flat, leftLocal, rightLocal)
		lf, rf = append(append([]expr.Expr{}, lf...), onL...), append(append([]expr.Expr{}, rf...), onR...)
		lop, err := filteredItem(l, sc, off, lf)
		if err != nil {
			return nil, err
		}
		rop, err := filteredItem(r, sc, off+len(l.cols), rf)
		if err != nil {
			return nil, err
		}
		// Equalities between a left and a right expression make it a hash
		// join; the rest of ON is checked on the pairs the keys match.
		var lk, rk, rest []expr.Expr
		for _, c := range flat {
			if cmp, ok := c.(*expr.Compare); ok && cmp.Op == expr.EQ {
				found := false
				for _, pair := range [2][2]expr.Expr{{cmp.L, cmp.R}, {cmp.R, cmp.L}} {
					lc, okl := colsOf(pair[0])
					rc, okr := colsOf(pair[1])
					if !okl || !okr || len(lc) == 0 || len(rc) == 0 || !allIn(lc, leftLocal) || !allIn(rc, rightLocal) {
						continue
					}
					le, ok1 := remap(pair[0], leftLocal)
					re, ok2 := remap(pair[1], rightLocal)
					if ok1 && ok2 {
						lk, rk = append(lk, le), append(rk, re)
						found = true
						break
					}
				}
				if found {
					continue
				}
			}
			rest = append(rest, c)
		}
		if len(lk) > 0 {
			var extra expr.Expr
			if len(rest) > 0 {
				extra = andOf(rest)
			}
			if kind == exec.InnerJoin && l.rows >= 0 && r.rows > l.rows {
				// An inner join commutes: hash the smaller side.
				return p.swappedHashJoin(exec.InnerJoin, lop, rop, lk, rk, extra), nil
			}
			return &physical.HashJoin{Kind: kind, Left: lop, Right: rop, LeftKeys: lk, RightKeys: rk, Extra: extra}, nil
		}
		if len(flat) > 0 {
			on = andOf(flat)
		}
		return &physical.NestedLoop{Kind: kind, Left: lop, Right: rop, On: on}, nil
	}
}

// fromList plans a FROM list: its items cross-joined left to right, with
// each WHERE conjunct applied at the first join where all its columns are
// there, so a chain of equalities never builds the whole cross product.
func (p *Planner) fromList(nodes []*pg.Node) ([]scopeCol, func(sc *scope, where expr.Expr) (physical.Node, error), error) {
	var items []*fromItem
	var cols []scopeCol
	for _, n := range nodes {
		var it *fromItem
		var err error
		// A join may hold a lateral item that reads the items before it.
		if len(cols) > 0 && (isLateral(n) || joinHasLateral(n)) {
			it, err = p.lateralNode(n, cols, exec.InnerJoin)
		} else {
			it, err = p.fromNode(n)
			if err != nil && n.GetRangeSubselect() != nil {
				err = notLateralError(err, cols)
			}
		}
		if err != nil {
			return nil, nil, err
		}
		cols = append(cols, it.cols...)
		if it.lateral != nil {
			items = []*fromItem{p.applyItem(items, it)}
		} else {
			items = append(items, it)
		}
	}
	build := func(sc *scope, where expr.Expr) (physical.Node, error) {
		return p.joinList(sc, items, where)
	}
	return cols, build, nil
}

// joinList joins FROM items: conjuncts of WHERE on one item alone filter
// it before any join; the items are then joined in the order joinorder.go
// finds cheapest (or, for long lists, greedily: from an item a conjunct
// filters, adding an item an equality ties to the rows so far), each
// conjunct applied as soon as the columns it reads are there. The result
// is put back in FROM order.
func (p *Planner) joinList(sc *scope, items []*fromItem, where expr.Expr) (physical.Node, error) {
	jl := &joinListing{items: items, offs: make([]int, len(items))}
	width := 0
	for i, it := range items {
		jl.offs[i] = width
		width += len(it.cols)
	}
	if where != nil {
		jl.conj = factorOrs(expr.Conjuncts(where))
	}
	jl.placed = make([]bool, len(jl.conj))
	jl.ops = make([]physical.Node, len(items))
	rows := make([]float64, len(items))
	filtered := make([]bool, len(items))
	for i, it := range items {
		local := jl.localOf(i)
		var mine []expr.Expr
		for k, c := range jl.conj {
			if cols, ok := colsOf(c); ok && len(cols) > 0 && allIn(cols, local) {
				if e, ok := remap(c, local); ok {
					jl.placed[k] = true
					mine = append(mine, e)
				}
			} else if implied := impliedItemFilter(c, local); implied != nil && len(items) > 1 {
				if e, ok := remap(implied, local); ok {
					mine = append(mine, e)
				}
			}
		}
		var own expr.Expr
		if len(mine) > 0 {
			own = andOf(mine)
		}
		op, err := it.build(sc, jl.offs[i], own)
		if err != nil {
			return nil, err
		}
		rows[i] = itemRows(it)
		if own != nil {
			if !it.exact {
				op = &physical.Filter{In: op, Pred: own}
			}
			filtered[i] = true
			rows[i] = max(rows[i]*estimateSel(own, it.ndvOf), 1)
		}
		jl.ops[i] = op
	}
	var (
		src    physical.Node
		layout map[int]int
	)
	if t := orderJoins(rows, jl.edges(rows)); t != nil {
		src, layout = jl.buildJoinTree(t)
	} else {
		src, layout = jl.greedy(filtered)
	}
	// Back to FROM order.
	order := make([]expr.Expr, width)
	for i, c := range sc.cols {
		order[i] = &expr.Col{Idx: layout[i], T: c.t, Name: c.name}
	}
	src = &physical.Project{In: src, Exprs: order}
	var rest []expr.Expr
	for k, c := range jl.conj {
		if !jl.placed[k] {
			rest = append(rest, c)
		}
	}
	if len(rest) > 0 {
		src = &physical.Filter{In: src, Pred: andOf(rest)}
	}
	return src, nil
}

// joinListing is the state of joinList while it joins: the items, their
// operators, and which WHERE conjuncts are applied already.
type joinListing struct {
	items  []*fromItem
	offs   []int // each item's first scope column
	ops    []physical.Node
	conj   []expr.Expr
	placed []bool
}

// localOf maps item i's scope columns to its own positions.
func (jl *joinListing) localOf(i int) map[int]int {
	local := map[int]int{}
	for k := range jl.items[i].cols {
		local[jl.offs[i]+k] = k
	}
	return local
}

// itemOf is the item whose columns hold all of cols, or -1.
func (jl *joinListing) itemOf(cols []int) int {
	if len(cols) == 0 {
		return -1
	}
	for i, it := range jl.items {
		lo, hi := jl.offs[i], jl.offs[i]+len(it.cols)
		all := true
		for _, c := range cols {
			if c < lo || c >= hi {
				all = false
				break
			}
		}
		if all {
			return i
		}
	}
	return -1
}

// edges are the unplaced equalities between an expression of one item and
// one of another, with their estimated selectivity.
func (jl *joinListing) edges(rows []float64) []joinEdge {
	var out []joinEdge
	for k, c := range jl.conj {
		cmp, ok := c.(*expr.Compare)
		if jl.placed[k] || !ok || cmp.Op != expr.EQ {
			continue
		}
		lc, okl := colsOf(cmp.L)
		rc, okr := colsOf(cmp.R)
		if !okl || !okr {
			continue
		}
		a, b := jl.itemOf(lc), jl.itemOf(rc)
		if a < 0 || b < 0 || a == b {
			continue
		}
		ndvA, ndvB := jl.colNDV(a, cmp.L), jl.colNDV(b, cmp.R)
		out = append(out, joinEdge{a: a, b: b, sel: joinSel(ndvA, ndvB, itemRows(jl.items[a]), itemRows(jl.items[b]))})
	}
	return out
}

// colNDV is the distinct count of e when it is a plain column of item i
// with known statistics, else 0.
func (jl *joinListing) colNDV(i int, e expr.Expr) float64 {
	c, ok := e.(*expr.Col)
	if !ok {
		return 0
	}
	return jl.items[i].ndvOf(c.Idx - jl.offs[i])
}

// keysBetween takes the unplaced equalities between an expression over
// the columns of one layout and one over the other's as hash keys.
func (jl *joinListing) keysBetween(left, right map[int]int) (lk, rk []expr.Expr) {
	for k, c := range jl.conj {
		if jl.placed[k] {
			continue
		}
		cmp, ok := c.(*expr.Compare)
		if !ok || cmp.Op != expr.EQ {
			continue
		}
		for _, pair := range [2][2]expr.Expr{{cmp.L, cmp.R}, {cmp.R, cmp.L}} {
			lc, okl := colsOf(pair[0])
			rc, okr := colsOf(pair[1])
			if !okl || !okr || len(lc) == 0 || len(rc) == 0 || !allIn(lc, left) || !allIn(rc, right) {
				continue
			}
			le, ok1 := remap(pair[0], left)
			re, ok2 := remap(pair[1], right)
			if ok1 && ok2 {
				lk, rk = append(lk, le), append(rk, re)
				jl.placed[k] = true
				break
			}
		}
	}
	return lk, rk
}

// filterReady applies, above src, the unplaced conjuncts whose columns
// are all in layout.
func (jl *joinListing) filterReady(src physical.Node, layout map[int]int) physical.Node {
	var ready []expr.Expr
	for k, c := range jl.conj {
		if jl.placed[k] {
			continue
		}
		if cols, ok := colsOf(c); ok && allIn(cols, layout) {
			if e, ok := remap(c, layout); ok {
				jl.placed[k] = true
				ready = append(ready, e)
			}
		}
	}
	if len(ready) > 0 {
		return &physical.Filter{In: src, Pred: andOf(ready)}
	}
	return src
}

// greedy joins the items from the first one a conjunct filters, then
// keeps adding an item an equality ties to the rows so far (a hash join,
// hashing the new item), else the next item in FROM order.
func (jl *joinListing) greedy(filtered []bool) (physical.Node, map[int]int) {
	start := 0
	for i := range jl.items {
		if filtered[i] {
			start = i
			break
		}
	}
	layout := map[int]int{}
	n := 0
	add := func(i int) {
		for k := range jl.items[i].cols {
			layout[jl.offs[i]+k] = n
			n++
		}
	}
	joined := map[int]bool{start: true}
	add(start)
	src := jl.ops[start]
	for len(joined) < len(jl.items) {
		next := -1
		var lk, rk []expr.Expr
		for j := range jl.items {
			if joined[j] {
				continue
			}
			if lk, rk = jl.keysBetween(layout, jl.localOf(j)); len(lk) > 0 {
				next = j
				break
			}
		}
		if next < 0 {
			for j := range jl.items {
				if !joined[j] {
					next = j
					break
				}
			}
		}
		if len(lk) > 0 {
			src = &physical.HashJoin{Kind: exec.InnerJoin, Left: src, Right: jl.ops[next], LeftKeys: lk, RightKeys: rk}
		} else {
			src = &physical.NestedLoop{Kind: exec.InnerJoin, Left: src, Right: jl.ops[next]}
		}
		joined[next] = true
		add(next)
		src = jl.filterReady(src, layout)
	}
	return src, layout
}

// swappedHashJoin is a hash join of l and r, inner or left (kind), that
// hashes l: r joined to l, inner or right, with its output columns put
// back in l, r order.
func (p *Planner) swappedHashJoin(kind exec.JoinKind, l, r physical.Node, lk, rk []expr.Expr, extra expr.Expr) physical.Node {
	mirror := exec.InnerJoin
	if kind == exec.LeftJoin {
		mirror = exec.RightJoin
	}
	nl, nr := len(l.Types()), len(r.Types())
	if extra != nil {
		m := map[int]int{}
		for i := 0; i < nl; i++ {
			m[i] = nr + i
		}
		for i := 0; i < nr; i++ {
			m[nl+i] = i
		}
		e, ok := remap(extra, m)
		if !ok {
			return &physical.HashJoin{Kind: kind, Left: l, Right: r, LeftKeys: lk, RightKeys: rk, Extra: extra}
		}
		extra = e
	}
	j := &physical.HashJoin{Kind: mirror, Left: r, Right: l, LeftKeys: rk, RightKeys: lk, Extra: extra}
	ts := j.Types()
	out := make([]expr.Expr, 0, nl+nr)
	for i := 0; i < nl; i++ {
		out = append(out, &expr.Col{Idx: nr + i, T: ts[nr+i]})
	}
	for i := 0; i < nr; i++ {
		out = append(out, &expr.Col{Idx: i, T: ts[i]})
	}
	return &physical.Project{In: j, Exprs: out}
}

// pruneOnly is the conjunction of es, or nil for none.
func pruneOnly(es []expr.Expr) expr.Expr {
	if len(es) == 0 {
		return nil
	}
	return andOf(es)
}

func andOf(es []expr.Expr) expr.Expr {
	if len(es) == 1 {
		return es[0]
	}
	return &expr.BoolOp{Args: es}
}

func allIn(cols []int, m map[int]int) bool {
	for _, c := range cols {
		if _, ok := m[c]; !ok {
			return false
		}
	}
	return true
}

// colsOf lists the input columns e reads; ok is false for expressions it
// cannot see into.
func colsOf(e expr.Expr) ([]int, bool) {
	var cols []int
	_, ok := rewrite(e, func(c *expr.Col) expr.Expr { cols = append(cols, c.Idx); return c })
	return cols, ok
}

// remap rewrites e's column indexes through m.
func remap(e expr.Expr, m map[int]int) (expr.Expr, bool) {
	missing := false
	out, ok := rewrite(e, func(c *expr.Col) expr.Expr {
		i, found := m[c.Idx]
		if !found {
			missing = true
			return c
		}
		return &expr.Col{Idx: i, T: c.T, Name: c.Name}
	})
	return out, ok && !missing
}

// rewrite copies e with f applied to every column reference; ok is false
// for expressions it cannot see into (subqueries read the whole row).
func rewrite(e expr.Expr, f func(*expr.Col) expr.Expr) (expr.Expr, bool) {
	return rewriteWith(e, f, nil)
}

// rewriteWith is rewrite where pre, when it answers true, replaces a
// subexpression before it is looked into.
func rewriteWith(e expr.Expr, f func(*expr.Col) expr.Expr, pre func(expr.Expr) (expr.Expr, bool)) (expr.Expr, bool) {
	okAll := true
	var rw func(e expr.Expr) expr.Expr
	list := func(es []expr.Expr) []expr.Expr {
		out := make([]expr.Expr, len(es))
		for i, x := range es {
			out[i] = rw(x)
		}
		return out
	}
	rw = func(e expr.Expr) expr.Expr {
		if pre != nil && e != nil {
			if r, ok := pre(e); ok {
				return r
			}
		}
		switch x := e.(type) {
		case nil:
			return nil
		case *expr.Col:
			return f(x)
		case *expr.Const, *paramRef, *expr.Param, *expr.OuterRef:
			return x
		case *expr.Compare:
			return &expr.Compare{Op: x.Op, L: rw(x.L), R: rw(x.R)}
		case *expr.Arith:
			return &expr.Arith{Op: x.Op, L: rw(x.L), R: rw(x.R), T: x.T}
		case *expr.BoolOp:
			return &expr.BoolOp{Or: x.Or, Args: list(x.Args)}
		case *expr.Not:
			return &expr.Not{Arg: rw(x.Arg)}
		case *expr.IsNull:
			return &expr.IsNull{Arg: rw(x.Arg), Negate: x.Negate}
		case *expr.IsBool:
			return &expr.IsBool{Arg: rw(x.Arg), Value: x.Value, Negate: x.Negate}
		case *expr.In:
			return &expr.In{Arg: rw(x.Arg), List: list(x.List), Negate: x.Negate}
		case *expr.Like:
			l, err := expr.NewLike(rw(x.Arg), rw(x.Pattern), x.Fold, x.Negate)
			if err != nil {
				okAll = false
				return x
			}
			return l
		case *expr.Func:
			return &expr.Func{Name: x.Name, Args: list(x.Args), T: x.T, Strict: x.Strict, Fn: x.Fn, Vec: x.Vec}
		case *expr.TimeArith:
			return &expr.TimeArith{Op: x.Op, L: rw(x.L), R: rw(x.R), T: x.T}
		case *expr.IntervalNeg:
			return &expr.IntervalNeg{Arg: rw(x.Arg)}
		case *expr.RegexMatch:
			m, err := expr.NewRegexMatch(rw(x.Arg), rw(x.Pattern), x.Fold, x.Negate)
			if err != nil {
				okAll = false
				return x
			}
			return m
		case *expr.MinMax:
			return &expr.MinMax{Args: list(x.Args), T: x.T, Least: x.Least}
		case *expr.Distinct:
			return &expr.Distinct{L: rw(x.L), R: rw(x.R), Not: x.Not}
		case *expr.Coalesce:
			return &expr.Coalesce{Args: list(x.Args), T: x.T}
		case *expr.Case:
			var els expr.Expr
			if x.Else != nil {
				els = rw(x.Else)
			}
			return &expr.Case{Whens: list(x.Whens), Thens: list(x.Thens), Else: els, T: x.T}
		case *expr.Cast:
			return &expr.Cast{Arg: rw(x.Arg), T: x.T}
		case *expr.FloorDiv:
			fd := &expr.FloorDiv{L: rw(x.L), R: rw(x.R), Orig: rw(x.Orig), Times: x.Times}
			if x.EpochOf != nil {
				fd.EpochOf = rw(x.EpochOf)
			}
			return fd
		case *expr.Neg:
			return &expr.Neg{Arg: rw(x.Arg)}
		}
		okAll = false
		return e
	}
	out := rw(e)
	return out, okAll
}

// rangeFunction plans a set-returning function in FROM; generate_series
// is the one there is. Its column is named after the alias (AS g, or
// AS g(t)), else after the function.
func (p *Planner) rangeFunction(rf *pg.RangeFunction) (*fromItem, error) {
	if rf.Ordinality {
		return p.withOrdinality(rf)
	}
	if rf.IsRowsfrom || len(rf.Functions) != 1 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ROWS FROM is not supported yet")
	}
	if spec, fc, err := p.recordSpecOf(rf); spec != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return p.jsonSetItem(fc, spec, rf.Alias)
	}
	if len(rf.Coldeflist) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a column definition list for a function in FROM is not supported yet").
			WithPosition(pos(p.query, parse.NodeLocation(rf.Coldeflist[0])))
	}
	items := rf.Functions[0].GetList().GetItems()
	fc := items[0].GetFuncCall()
	if fc == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "%s in FROM is not supported yet", parse.ExprName(items[0])).
			WithPosition(pos(p.query, parse.NodeLocation(items[0])))
	}
	name := funcName(fc)
	if name == "pg_partition_tree" {
		return p.partitionTree(rf, fc)
	}
	b := &binder{p: p, where: "functions in FROM"}
	var t types.T
	var args []expr.Expr
	var scalar expr.Expr
	if name == "generate_series" {
		var err error
		if t, args, err = b.seriesArgs(fc); err != nil {
			return nil, err
		}
	} else {
		// A function that returns one value is a one-row table in FROM
		// (Grafana's string_to_array(current_setting('search_path'), ',') s).
		if name == "unnest" {
			table, col := name, name
			if rf.Alias != nil {
				table, col = rf.Alias.Aliasname, rf.Alias.Aliasname
				if len(rf.Alias.Colnames) == 1 {
					col = rf.Alias.Colnames[0].GetString_().Sval
				}
			}
			return p.unnestItem(fc, table, col)
		}
		if name == "pg_options_to_table" && len(fc.Args) == 1 {
			return p.optionsItem(fc, rf.Alias)
		}
		if name == "aclexplode" && len(fc.Args) == 1 {
			return p.aclexplodeItem(fc, rf.Alias)
		}
		if name == "pg_get_keywords" && len(fc.Args) == 0 && (len(fc.Funcname) == 1 || schemaOf(fc) == "pg_catalog") {
			alias := name
			if rf.Alias != nil {
				alias = rf.Alias.Aliasname
			}
			return p.virtualItem(p.catalogs().Registry().FuncTable(name), alias), nil
		}
		if name == "_pg_expandarray" && isSetFunc(fc) {
			return p.recordSetItem(fc, rf.Alias)
		}
		if spec, ok := jsonSetSpec(fc); ok {
			return p.jsonSetItem(fc, spec, rf.Alias)
		}
		if name == "regexp_matches" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "function %s in FROM is not supported yet", name).WithPosition(pos(p.query, fc.Location))
		}
		var err error
		if scalar, err = b.bind(items[0]); err != nil {
			return nil, err
		}
		t = scalar.Type()
		if t.Kind == types.Unknown {
			t = types.TText
		}
	}
	table, col := name, name
	if rf.Alias != nil {
		table, col = rf.Alias.Aliasname, rf.Alias.Aliasname
		if len(rf.Alias.Colnames) > 1 {
			return nil, pgerr.New(pgerr.SyntaxError, "too many column aliases specified for function %s", name)
		}
		if len(rf.Alias.Colnames) == 1 {
			col = rf.Alias.Colnames[0].GetString_().Sval
		}
	}
	ancestors := name == "pg_partition_ancestors"
	if ancestors && (rf.Alias == nil || len(rf.Alias.Colnames) == 0) {
		col = "relid" // its OUT parameter, which a table alias does not rename
	}
	cols := []scopeCol{{table: table, name: col, t: t}}
	return &fromItem{cols: cols, rows: -1, build: func(*scope, int, expr.Expr) (physical.Node, error) {
		if ancestors {
			// No ancestors (NULL from the one-value function) is no row.
			return &physical.Filter{In: &physical.Values{Rows: [][]expr.Expr{{scalar}}, ColumnTypes: []types.T{t}},
				Pred: &expr.IsNull{Arg: &expr.Col{Idx: 0, T: t}, Negate: true}}, nil
		}
		if scalar != nil {
			return &physical.Values{Rows: [][]expr.Expr{{scalar}}, ColumnTypes: []types.T{t}}, nil
		}
		return &physical.Series{T: t, Args: args}, nil
	}}, nil
}

// seriesArgs binds generate_series's arguments: (int, int[, int]) or
// (timestamp[tz], timestamp[tz], interval).
func (b *binder) seriesArgs(fc *pg.FuncCall) (types.T, []expr.Expr, error) {
	noFunc := func(ts []types.T) error {
		names := make([]string, len(ts))
		for i, t := range ts {
			names[i] = t.String()
		}
		return pgerr.New(pgerr.UndefinedFunction, "function generate_series(%s) does not exist", strings.Join(names, ", ")).
			WithPosition(pos(b.p.query, fc.Location)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	}
	args := make([]expr.Expr, len(fc.Args))
	ts := make([]types.T, len(fc.Args))
	for i, a := range fc.Args {
		e, err := b.bind(a)
		if err != nil {
			return types.T{}, nil, err
		}
		args[i], ts[i] = e, e.Type()
	}
	if len(args) != 2 && len(args) != 3 {
		return types.T{}, nil, noFunc(ts)
	}
	var t types.T
	allInt := true
	for _, x := range ts {
		allInt = allInt && (x.IsInteger() || x.Kind == types.Unknown)
	}
	switch {
	case allInt:
		t = types.TInt4
		for _, x := range ts {
			if x.Kind == types.Int8 {
				t = types.TInt8
			}
		}
	case len(args) == 3 && (ts[2].Kind == types.Interval || ts[2].Kind == types.Unknown):
		t = types.TTimestampTZ
		if ts[0].Kind == types.Timestamp || ts[1].Kind == types.Timestamp {
			t = types.TTimestamp
		}
		for _, x := range ts[:2] {
			if x.Kind != types.Unknown && x.Kind != types.Timestamp && x.Kind != types.TimestampTZ && x.Kind != types.Date {
				return types.T{}, nil, noFunc(ts)
			}
		}
	default:
		return types.T{}, nil, noFunc(ts)
	}
	for i := range args {
		want := t
		if i == 2 && !t.IsInteger() {
			want = types.TInterval
		}
		var err error
		if args[i], err = b.coerce(args[i], want, fc.Location); err != nil {
			return types.T{}, nil, err
		}
	}
	return t, args, nil
}
