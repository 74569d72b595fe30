package physical

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Series is generate_series in FROM over arguments typed for T.
type Series struct {
	T    types.T
	Args []expr.Expr
}

func (s *Series) Types() []types.T { return []types.T{s.T} }
func (s *Series) Children() []Node { return nil }
func (s *Series) Explain() Explained {
	return Explained{Name: "Function Scan on generate_series", Details: []string{"Arguments: " + exec.ExprList(s.Args)}}
}
