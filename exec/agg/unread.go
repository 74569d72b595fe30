package agg

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// WithoutUnread returns op, when it is a hash aggregate, with the
// aggregates whose output columns nobody reads (read[c] false) computed
// over NULL instead of their arguments, unless keep says an argument
// must still run (a volatile function). Their value is thrown away; not
// evaluating their arguments is what PostgreSQL does for the unused
// columns of a subquery in FROM, so those arguments' errors are not the
// query's.
func WithoutUnread(op exec.Operator, read []bool, keep func(expr.Expr) bool) exec.Operator {
	h, ok := op.(*hashAggOp)
	if !ok {
		return op
	}
	aggs := append([]Agg(nil), h.aggs...)
	changed := false
	for j := range aggs {
		c := len(h.groupBy) + j
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
		return op
	}
	c := &hashAggOp{in: h.in, groupBy: h.groupBy, aggs: aggs, ec: h.ec, ts: h.ts, scalar: h.scalar}
	return c
}
