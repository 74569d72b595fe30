package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// foldNulls replaces each strict operator, function or cast that has a
// NULL constant operand with a NULL constant of its type, as
// PostgreSQL's eval_const_expressions does before running: the other
// operands are then never evaluated, so `(a / 0) = NULL` finds no rows
// rather than raising division by zero. Only strict nodes fold: CASE,
// COALESCE, IS [NOT] NULL, IS DISTINCT FROM, GREATEST/LEAST, AND/OR
// (whose x AND NULL is false when x is) and non-strict functions such as
// concat or array || keep their NULL operands.
func foldNulls(e expr.Expr) expr.Expr {
	if e == nil {
		return nil
	}
	out, ok := rewriteWith(e, func(c *expr.Col) expr.Expr { return c }, func(x expr.Expr) (expr.Expr, bool) {
		if _, isConst := x.(*expr.Const); !isConst && nullValued(x) {
			return &expr.Const{D: types.NullOf(x.Type())}, true
		}
		return nil, false
	})
	if !ok {
		return e
	}
	return out
}

// nullValued reports whether x is NULL whatever the row: a NULL constant,
// or a strict node with a NULL-valued operand.
func nullValued(x expr.Expr) bool {
	switch x := x.(type) {
	case *expr.Const:
		return x.D.Null
	case *expr.Compare:
		return nullValued(x.L) || nullValued(x.R)
	case *expr.Arith:
		return nullValued(x.L) || nullValued(x.R)
	case *expr.TimeArith:
		return nullValued(x.L) || nullValued(x.R)
	case *expr.FloorDiv:
		return nullValued(x.Orig)
	case *expr.Neg:
		return nullValued(x.Arg)
	case *expr.IntervalNeg:
		return nullValued(x.Arg)
	case *expr.Not:
		return nullValued(x.Arg)
	case *expr.Cast:
		return nullValued(x.Arg)
	case *expr.Like:
		return nullValued(x.Arg) || nullValued(x.Pattern)
	case *expr.RegexMatch:
		return nullValued(x.Arg) || nullValued(x.Pattern)
	case *expr.In:
		// PostgreSQL compares the operand with each element by a strict
		// =, OR-ing the results: a NULL operand makes every one NULL; a
		// NULL element does only when it is the only one.
		return nullValued(x.Arg) || len(x.List) == 1 && nullValued(x.List[0])
	case *expr.Func:
		if !x.Strict {
			return false
		}
		for _, a := range x.Args {
			if nullValued(a) {
				return true
			}
		}
	}
	return false
}
