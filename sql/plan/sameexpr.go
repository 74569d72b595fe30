package plan

import "github.com/loamdb/loam/exec/expr"

// sameExpr reports whether a and b compute the same value from the same
// input columns, as PostgreSQL's equal() on two target list expressions.
// String alone is not enough: a column reference prints its name, so
// a.c and b.c print alike. Expressions rewrite cannot see into (window
// function results, subqueries) are compared by String alone, as before.
func sameExpr(a, b expr.Expr) bool {
	if a.String() != b.String() {
		return false
	}
	ca, okA := colsOf(a)
	cb, okB := colsOf(b)
	if !okA || !okB {
		return true
	}
	if len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		if ca[i] != cb[i] {
			return false
		}
	}
	return true
}
