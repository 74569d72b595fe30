package physical

import (
	"fmt"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Values yields rows of expressions (VALUES, and one-row selects).
type Values struct {
	Rows        [][]expr.Expr
	ColumnTypes []types.T
}

func (v *Values) Types() []types.T { return v.ColumnTypes }
func (v *Values) Children() []Node { return nil }
func (v *Values) Explain() Explained {
	return Explained{Name: fmt.Sprintf("Values Scan (%d rows)", len(v.Rows))}
}
