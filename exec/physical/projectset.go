package physical

import (
	"strings"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/types"
)

// ProjectSet runs set-returning functions of the select list over each
// input row, adding a column for each after the input's.
type ProjectSet struct {
	In  Node
	Fns []exec.SetFunc
}

func (p *ProjectSet) Types() []types.T {
	ts := append([]types.T{}, p.In.Types()...)
	for _, f := range p.Fns {
		ts = append(ts, f.T)
	}
	return ts
}
func (p *ProjectSet) Children() []Node { return []Node{p.In} }
func (p *ProjectSet) Explain() Explained {
	var calls []string
	for _, f := range p.Fns {
		calls = append(calls, f.Name+"("+exec.ExprList(f.Args)+")")
	}
	return Explained{Name: "ProjectSet", Details: []string{"Functions: " + strings.Join(calls, ", ")}}
}
