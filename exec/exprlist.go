package exec

import (
	"fmt"
	"strings"
)

// EXPLAIN shows physical plans (exec/physical), not operators; what is
// here helps operators print their expressions.

// ExprList joins expressions for a detail line.
func ExprList[E fmt.Stringer](es []E) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, ", ")
}
