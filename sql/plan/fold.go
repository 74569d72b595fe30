package plan

import (
	"strings"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
)

// fold evaluates once, at planning, each subexpression of e that reads no
// column: `ts >= now() - interval '1 day'` compares ts with a constant,
// which the scan can prune files by and the filter need not recompute for
// every row. Volatile functions, parameters not yet bound and anything
// that fails to evaluate (it may not be reached at run time) stay as they
// are.
func (p *Planner) fold(e expr.Expr) expr.Expr {
	if e == nil {
		return nil
	}
	out, ok := rewriteWith(e, func(c *expr.Col) expr.Expr { return c }, func(x expr.Expr) (expr.Expr, bool) {
		switch x.(type) {
		case *expr.Const, *expr.Col:
			return x, true
		}
		cols, ok := colsOf(x)
		if !ok || len(cols) > 0 || !p.foldable(x) {
			return nil, false
		}
		d, err := exec.EvalConst(p.ec, x)
		if err != nil {
			return nil, false
		}
		return &expr.Const{D: d}, true
	})
	if !ok {
		return e
	}
	return out
}

func (p *Planner) foldable(x expr.Expr) bool {
	s := x.String()
	if p.params == nil && strings.Contains(s, "$") {
		return false
	}
	for _, v := range []string{"random(", "clock_timestamp(", "timeofday(", "gen_random_uuid(", "nextval("} {
		if strings.Contains(s, v) {
			return false
		}
	}
	return true
}
