package physical

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Filter keeps its input's rows where Pred is true.
type Filter struct {
	In   Node
	Pred expr.Expr
}

func (f *Filter) Types() []types.T { return f.In.Types() }
func (f *Filter) Children() []Node { return []Node{f.In} }
func (f *Filter) Explain() Explained {
	return Explained{Name: "Filter", Details: []string{"Filter: " + f.Pred.String()}}
}
