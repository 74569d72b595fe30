package physical

import (
	"strconv"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/window"
	"github.com/loamdb/loam/types"
)

// Window computes window functions over its input, adding a column for
// each function after the input's.
type Window struct {
	In    Node
	Specs []window.Spec
	Funcs []window.Func
}

func (w *Window) Types() []types.T {
	ts := append([]types.T{}, w.In.Types()...)
	for _, f := range w.Funcs {
		ts = append(ts, f.T)
	}
	return ts
}
func (w *Window) Children() []Node { return []Node{w.In} }
func (w *Window) Explain() Explained {
	ex := Explained{Name: "WindowAgg"}
	for i, s := range w.Specs {
		d := "w" + strconv.Itoa(i+1) + ":"
		if len(s.Partition) > 0 {
			d += " PARTITION BY " + exec.ExprList(s.Partition)
		}
		if len(s.Order) > 0 {
			d += " ORDER BY " + exec.ExprList(s.Order)
		}
		ex.Details = append(ex.Details, d)
	}
	ex.Details = append(ex.Details, "Computes: "+exec.ExprList(w.Funcs))
	return ex
}
