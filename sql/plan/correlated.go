package plan

import (
	"sync/atomic"

	"github.com/loamdb/loam/exec/expr"
)

// A correlated subquery or LATERAL item is planned once, when the
// enclosing query is bound, as PostgreSQL plans a SubPlan with
// parameters: its references to enclosing queries' columns are
// expr.OuterRef, read when evaluated from the rows the execution context
// holds (expr.Ctx.Outer), and for each outer row its operators are built
// from the kept plan and run (scans bind the references into their
// pruning filters, expr.BindRun).
//
// LIMIT and OFFSET of an outer column are evaluated when the plan is
// built (physical.Limit.Count), while the row is in the context.
//
// The one fallback: where planning itself needed an outer value — FETCH
// FIRST t.x ROWS WITH TIES, FOR TIMESTAMP AS OF an outer value, a
// percentile's fraction from an outer column, all through evalConst —
// the plan made without the values cannot serve every row, so the inner
// side is planned again for each outer row with its values bound in as
// constants, as before (subqueryExpr.run, lateralNode).

var (
	// planned counts the plannings of subqueries and LATERAL items, for
	// the test that each is planned once (not once per outer row).
	planned atomic.Int64
	// perRowPlannings counts the subqueries and LATERAL items bound to
	// the per-row fallback.
	perRowPlannings atomic.Int64
)

// noteOuterValue records that planning read e's outer references' values:
// each subquery or LATERAL item between p and the outermost row read
// falls back to planning per outer row, when the values are in the
// context. Marking only the innermost would not do: a LATERAL item that
// reads none of its left items is an ordinary item, whose planning is the
// enclosing subquery's.
func (p *Planner) noteOuterValue(e expr.Expr) {
	frames := map[int]bool{}
	expr.Rewrite(e, func(x expr.Expr) (expr.Expr, bool) {
		if o, ok := x.(*expr.OuterRef); ok {
			frames[o.Frame] = true
			return x, true
		}
		return nil, false
	})
	for o := p.outer; o != nil && len(frames) > 0; o = o.parent {
		o.needVals = true
		delete(frames, o.frame)
	}
}
