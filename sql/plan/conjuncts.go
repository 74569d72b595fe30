package plan

import "github.com/loamdb/loam/exec/expr"

// conjuncts splits e at its top-level ANDs.
func conjuncts(e expr.Expr) []expr.Expr {
	if b, ok := e.(*expr.BoolOp); ok && !b.Or {
		var out []expr.Expr
		for _, a := range b.Args {
			out = append(out, conjuncts(a)...)
		}
		return out
	}
	return []expr.Expr{e}
}
