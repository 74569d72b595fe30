package plan

import (
	"math"
	"math/bits"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
)

// Join order: the items of a FROM list joined by WHERE's equalities are
// ordered by estimated cost, over every connected split of every subset
// (dynamic programming, as System R and PostgreSQL's standard planner do,
// with bushy trees allowed). Estimates come from the items' row counts,
// the selectivity of the filters each item applies on its own, and the
// distinct counts of join columns (statisticsNDV); the smaller side of a
// hash join is the one hashed.

// maxOrderedItems bounds the search: 3^n splits. Beyond it the FROM list
// is joined greedily (joinList's fallback), as PostgreSQL's
// join_collapse_limit stops at 8.
const maxOrderedItems = 10

// unknownRows is assumed for an item whose size is unknown (a subquery, a
// function), PostgreSQL's default for a function's rows.
const unknownRows = 1000

// joinEdge is a WHERE equality between an expression of one item and an
// expression of another: a hash key when the join that brings the two
// items together is planned.
type joinEdge struct {
	a, b int     // the items
	sel  float64 // the fraction of pairs of a and b rows it keeps
}

// joinTree is a plan for a set of items: a leaf (one item) or the join of
// two disjoint sets.
type joinTree struct {
	set         uint32
	item        int // a leaf's item, else -1
	left, right *joinTree
	rows, cost  float64
}

// joinOrderer holds what the search needs about one FROM list.
type joinOrderer struct {
	n     int
	rows  []float64 // each item's estimated rows after its own filters
	edges []joinEdge
	best  map[uint32]*joinTree
	card  map[uint32]float64
}

// orderJoins returns the cheapest join tree over items with the given
// estimated rows and equality edges, or nil when there are too many items.
func orderJoins(rows []float64, edges []joinEdge) *joinTree {
	n := len(rows)
	if n < 2 || n > maxOrderedItems {
		return nil
	}
	o := &joinOrderer{n: n, rows: rows, edges: edges, best: map[uint32]*joinTree{}, card: map[uint32]float64{}}
	for i := range n {
		o.best[1<<i] = &joinTree{set: 1 << i, item: i, rows: rows[i]}
	}
	full := uint32(1)<<n - 1
	o.search(full, false)
	if o.best[full] == nil {
		// A FROM list with items no equality ties together: allow cross
		// products where a set has no connected split.
		o.search(full, true)
	}
	return o.best[full]
}

// search fills best for every subset of full in order of size.
func (o *joinOrderer) search(full uint32, cross bool) {
	for size := 2; size <= o.n; size++ {
		for s := uint32(1); s <= full; s++ {
			if bits.OnesCount32(s) != size || o.best[s] != nil && !cross {
				continue
			}
			o.plan(s, cross)
		}
	}
}

// plan finds the best join of two parts of s: connected parts, or any
// parts when cross is set and s has no connected split.
func (o *joinOrderer) plan(s uint32, cross bool) {
	if cross && o.best[s] != nil {
		return
	}
	rows := o.rowsOf(s)
	var best *joinTree
	try := func(connectedOnly bool) {
		// Every ordered split: l probes, r is hashed. Ascending, so that
		// of equal costs the split keeping FROM order wins.
		for l := -s & s; l != s; l = (l - s) & s {
			r := s ^ l
			lt, rt := o.best[l], o.best[r]
			if lt == nil || rt == nil {
				continue
			}
			keyed := o.connected(l, r)
			if connectedOnly && !keyed {
				continue
			}
			cost := lt.cost + rt.cost + rows
			if keyed {
				// Hashing a row costs more than probing with one.
				cost += lt.rows + 1.5*rt.rows
			} else {
				cost += lt.rows * rt.rows
			}
			if best == nil || cost < best.cost {
				best = &joinTree{set: s, item: -1, left: lt, right: rt, rows: rows, cost: cost}
			}
		}
	}
	try(true)
	if best == nil && cross {
		try(false)
	}
	if best != nil {
		o.best[s] = best
	}
}

// connected reports whether an edge joins l and r.
func (o *joinOrderer) connected(l, r uint32) bool {
	for _, e := range o.edges {
		a, b := uint32(1)<<e.a, uint32(1)<<e.b
		if l&a != 0 && r&b != 0 || l&b != 0 && r&a != 0 {
			return true
		}
	}
	return false
}

// rowsOf estimates the rows of the join of s's items: the product of
// their rows times the selectivity of every edge inside s.
func (o *joinOrderer) rowsOf(s uint32) float64 {
	if r, ok := o.card[s]; ok {
		return r
	}
	r := 1.0
	for i := range o.n {
		if s&(1<<i) != 0 {
			r *= o.rows[i]
		}
	}
	// Several edges between the same two items are one composite key:
	// count the most selective only, since such columns go together.
	pair := map[[2]int]float64{}
	for _, e := range o.edges {
		if s&(1<<e.a) == 0 || s&(1<<e.b) == 0 {
			continue
		}
		k := [2]int{min(e.a, e.b), max(e.a, e.b)}
		if v, ok := pair[k]; !ok || e.sel < v {
			pair[k] = e.sel
		}
	}
	for _, sel := range pair {
		r *= sel
	}
	r = max(r, 1)
	o.card[s] = r
	return r
}

// estimateSel is the fraction of rows a filter keeps, by PostgreSQL's
// default selectivities where nothing better is known; ndv gives the
// distinct count of an item column (0: unknown).
func estimateSel(e expr.Expr, ndv func(col int) float64) float64 {
	const (
		defaultEq    = 0.005 // DEFAULT_EQ_SEL
		defaultRange = 1.0 / 3
		defaultMatch = 0.005 // DEFAULT_MATCH_SEL: LIKE, regexps
	)
	switch x := e.(type) {
	case *expr.BoolOp:
		if x.Or {
			keep := 0.0
			for _, a := range x.Args {
				s := estimateSel(a, ndv)
				keep = keep + s - keep*s
			}
			return keep
		}
		keep := 1.0
		for _, a := range x.Args {
			keep *= estimateSel(a, ndv)
		}
		return keep
	case *expr.Not:
		return 1 - estimateSel(x.Arg, ndv)
	case *expr.Compare:
		switch x.Op {
		case expr.EQ:
			return eqSel(x.L, x.R, ndv, defaultEq)
		case expr.NE:
			return 1 - eqSel(x.L, x.R, ndv, defaultEq)
		default:
			return defaultRange
		}
	case *expr.In:
		s := float64(len(x.List)) * eqSel(x.Arg, nil, ndv, defaultEq)
		if x.Negate {
			return 1 - min(s, 1)
		}
		return min(s, 1)
	case *expr.IsNull:
		if x.Negate {
			return 0.995
		}
		return 0.005
	case *expr.Like:
		if x.Negate {
			return 1 - defaultMatch*10
		}
		return defaultMatch * 10
	}
	return defaultRange
}

// eqSel is the selectivity of l = r (r nil: l = a constant): 1/ndv of a
// plain column when its distinct count is known.
func eqSel(l, r expr.Expr, ndv func(col int) float64, def float64) float64 {
	for _, side := range [2]expr.Expr{l, r} {
		if c, ok := side.(*expr.Col); ok && ndv != nil {
			if d := ndv(c.Idx); d > 0 {
				return 1 / d
			}
		}
	}
	return def
}

// joinSel is the selectivity of an equality between a column of one item
// and a column of another: 1/max(ndv), taking a side's row count for an
// unknown distinct count (the key side of a foreign key, the common case).
func joinSel(ndvA, ndvB, rowsA, rowsB float64) float64 {
	a, b := ndvA, ndvB
	if a <= 0 {
		a = rowsA
	}
	if b <= 0 {
		b = rowsB
	}
	d := max(a, b, 1)
	if ndvA <= 0 && ndvB <= 0 {
		// Neither is known: assume the smaller side is a key the other
		// references.
		d = max(min(rowsA, rowsB), 1)
	}
	return 1 / d
}

// itemRows is an item's estimated rows before its own filters.
func itemRows(it *fromItem) float64 {
	if it.rows < 0 {
		return unknownRows
	}
	return math.Max(float64(it.rows), 1)
}

// buildJoinTree turns t into hash joins (nested loops where no equality
// keys a join), with each conjunct applied at the lowest join where its
// columns are all present. layout maps a scope column to its position in
// the node's output.
func (jl *joinListing) buildJoinTree(t *joinTree) (physical.Node, map[int]int) {
	if t.item >= 0 {
		layout := map[int]int{}
		for k := range jl.items[t.item].cols {
			layout[jl.offs[t.item]+k] = k
		}
		return jl.ops[t.item], layout
	}
	lop, ll := jl.buildJoinTree(t.left)
	rop, rl := jl.buildJoinTree(t.right)
	lk, rk := jl.keysBetween(ll, rl)
	var src physical.Node
	if len(lk) > 0 {
		src = &physical.HashJoin{Kind: exec.InnerJoin, Left: lop, Right: rop, LeftKeys: lk, RightKeys: rk}
	} else {
		src = &physical.NestedLoop{Kind: exec.InnerJoin, Left: lop, Right: rop}
	}
	width := len(lop.Types())
	layout := make(map[int]int, len(ll)+len(rl))
	for c, i := range ll {
		layout[c] = i
	}
	for c, i := range rl {
		layout[c] = width + i
	}
	return jl.filterReady(src, layout), layout
}
