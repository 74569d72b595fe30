package physical

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Project computes Exprs over each input row.
type Project struct {
	In    Node
	Exprs []expr.Expr
}

func (p *Project) Types() []types.T {
	ts := make([]types.T, len(p.Exprs))
	for i, e := range p.Exprs {
		ts[i] = e.Type()
	}
	return ts
}
func (p *Project) Children() []Node { return []Node{p.In} }
func (p *Project) Explain() Explained {
	return Explained{Name: "Project", Details: []string{"Output: " + exec.ExprList(p.Exprs)}}
}
