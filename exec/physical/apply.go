package physical

import (
	"context"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Apply is a dependent (LATERAL) join: Inner plans the inner side for one
// left row, with that row's values bound in, and the builder builds it;
// the rows are joined where On (over left then inner columns; nil: true)
// holds. With KeyCols (the left columns the inner side reads) the inner
// rows are made once per distinct key. Planning per row is what issue 15
// (decorrelation) will replace.
type Apply struct {
	Kind       exec.JoinKind
	Left       Node
	InnerTypes []types.T
	Inner      func(ctx context.Context, row []types.Datum) (Node, error)
	KeyCols    []int
	On         expr.Expr
}

func (a *Apply) Types() []types.T { return concat(a.Left.Types(), a.InnerTypes) }
func (a *Apply) Children() []Node { return []Node{a.Left} }
func (a *Apply) Explain() Explained {
	ex := Explained{Name: "Nested Loop " + joinNames[a.Kind] + " Join", Details: []string{"Inner: planned again for each outer row (LATERAL)"}}
	if a.On != nil {
		ex.Details = append(ex.Details, "Join Filter: "+a.On.String())
	}
	return ex
}
