package physical

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// LateralSet joins each input row to the rows a set-returning function
// of FROM returns for it (FROM t, jsonb_array_elements(t.x) e), the
// arguments evaluated over the input batch at once.
type LateralSet struct {
	In      Node
	Name    string
	Args    []expr.Expr
	FnTypes []types.T
	Rows    exec.SetRows
	Outer   bool // LEFT JOIN: input rows without function rows are kept
	Ordinal bool // WITH ORDINALITY
	On      expr.Expr
}

func (l *LateralSet) Types() []types.T {
	ts := concat(l.In.Types(), l.FnTypes)
	if l.Ordinal {
		ts = append(ts, types.TInt8)
	}
	return ts
}
func (l *LateralSet) Children() []Node { return []Node{l.In} }
func (l *LateralSet) Explain() Explained {
	kind := "Inner"
	if l.Outer {
		kind = "Left"
	}
	ex := Explained{Name: "Nested Loop " + kind + " Join", Details: []string{"Function Scan on " + l.Name + ": " + exec.ExprList(l.Args) + ", for each outer row"}}
	if l.On != nil {
		ex.Details = append(ex.Details, "Join Filter: "+l.On.String())
	}
	return ex
}
