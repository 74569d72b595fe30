package plan

import (
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/types"
)

// pruneUnread computes as NULL each output of a subquery in FROM (or a
// WITH query) that the query does not read (read[i] false), when the
// subquery's top is a projection: PostgreSQL replaces such columns with
// NULL (remove_unused_subquery_outputs), so their errors (division by
// zero, a scalar subquery of several rows) are never raised. Volatile
// expressions still run, as there. An aggregate only such columns read is
// computed over NULL instead of its arguments.
func (p *Planner) pruneUnread(op physical.Node, read []bool) physical.Node {
	proj, ok := op.(*physical.Project)
	if !ok {
		return op
	}
	in, exprs := proj.In, proj.Exprs
	out := make([]expr.Expr, len(exprs))
	changed := false
	for i, e := range exprs {
		out[i] = e
		if _, isConst := e.(*expr.Const); isConst || i >= len(read) || read[i] || !p.foldable(e) {
			continue
		}
		out[i] = &expr.Const{D: types.NullOf(e.Type())}
		changed = true
	}
	if !changed {
		return op
	}
	// The input columns the remaining outputs read.
	inRead := make([]bool, len(in.Types()))
	for _, e := range out {
		cols, ok := colsOf(e)
		if !ok {
			for i := range inRead {
				inRead[i] = true
			}
			break
		}
		for _, c := range cols {
			if c >= 0 && c < len(inRead) {
				inRead[c] = true
			}
		}
	}
	in = p.aggWithoutUnread(in, inRead)
	return &physical.Project{In: in, Exprs: out}
}

// aggWithoutUnread returns n, when it is a hash aggregate, with the
// aggregates whose columns are not read (read[c] false) computed over
// NULL rather than their arguments, where those are foldable: their
// errors are never raised, as in PostgreSQL.
func (p *Planner) aggWithoutUnread(n physical.Node, read []bool) physical.Node {
	h, ok := n.(*physical.HashAgg)
	if !ok {
		return n
	}
	keep := func(e expr.Expr) bool { return !p.foldable(e) }
	aggs := append([]agg.Agg(nil), h.Aggs...)
	changed := false
	for j := range aggs {
		c := len(h.GroupBy) + j
		if c >= len(read) || read[c] {
			continue
		}
		a := &aggs[j]
		if a.Arg == nil || a.Fn.OrderedSet() || keep(a.Arg) || a.Arg2 != nil && keep(a.Arg2) || a.Filter != nil && keep(a.Filter) {
			continue
		}
		a.Arg = &expr.Const{D: types.NullOf(a.Arg.Type())}
		if a.Arg2 != nil {
			a.Arg2 = &expr.Const{D: types.NullOf(a.Arg2.Type())}
		}
		a.Filter, a.Order, a.Distinct = nil, nil, false
		changed = true
	}
	if !changed {
		return n
	}
	return &physical.HashAgg{In: h.In, GroupBy: h.GroupBy, Aggs: aggs}
}
