package plan

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// pruneUnread computes as NULL each output of a subquery in FROM (or a
// WITH query) that the query does not read (read[i] false), when the
// subquery's top is a projection: PostgreSQL replaces such columns with
// NULL (remove_unused_subquery_outputs), so their errors (division by
// zero, a scalar subquery of several rows) are never raised. Volatile
// expressions still run, as there. An aggregate only such columns read is
// computed over NULL instead of its arguments.
func (p *Planner) pruneUnread(op exec.Operator, read []bool) exec.Operator {
	in, exprs, ok := exec.ProjectionOf(op)
	if !ok {
		return op
	}
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
	in = agg.WithoutUnread(in, inRead, func(e expr.Expr) bool { return !p.foldable(e) })
	return exec.NewProject(in, out, p.ec)
}
