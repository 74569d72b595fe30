package physical

import (
	"context"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Apply is a dependent (LATERAL) join: Inner gives the inner side's plan
// for one left row, and the builder builds it with the row in the context
// (Frame); the rows are joined where On (over left then inner columns;
// nil: true) holds. With KeyCols (the left columns the inner side reads)
// the inner rows are made once per distinct key. Running the inner side
// per row is what issue 15 (decorrelation) will replace.
type Apply struct {
	Kind       exec.JoinKind
	Left       Node
	InnerTypes []types.T
	Inner      func(ctx context.Context, row []types.Datum) (Node, error)
	KeyCols    []int
	On         expr.Expr
	// Frame is the left row's frame: while the inner side is built and
	// run for a left row, the context holds that row as it (expr.OuterRef).
	Frame int
	// PerRow: Inner plans the inner side for each left row (the planner's
	// fallback where planning needed a left value); else it returns the
	// one plan.
	PerRow bool
}

func (a *Apply) Types() []types.T { return concat(a.Left.Types(), a.InnerTypes) }
func (a *Apply) Children() []Node { return []Node{a.Left} }
func (a *Apply) Explain() Explained {
	inner := "Inner: planned once, run for each outer row (LATERAL)"
	if a.PerRow {
		inner = "Inner: planned again for each outer row (LATERAL)"
	}
	ex := Explained{Name: "Nested Loop " + joinNames[a.Kind] + " Join", Details: []string{inner}}
	if a.On != nil {
		ex.Details = append(ex.Details, "Join Filter: "+a.On.String())
	}
	return ex
}
