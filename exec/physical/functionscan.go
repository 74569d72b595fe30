package physical

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// FunctionScan is a set-returning function in FROM whose arguments read
// no column (jsonb_each('{…}'), unnest(ARRAY[…]), _pg_expandarray): the
// function (Fn, a descriptor, not a closure) and its argument
// expressions, evaluated when the scan opens, with the execution's
// context, so a kept plan calls it afresh each time it runs.
type FunctionScan struct {
	Name        string
	Args        []expr.Expr
	Fn          exec.SetTable
	ColumnTypes []types.T
}

func (f *FunctionScan) Types() []types.T { return f.ColumnTypes }
func (f *FunctionScan) Children() []Node { return nil }
func (f *FunctionScan) Explain() Explained {
	return Explained{Name: "Function Scan on " + f.Name, Details: []string{"Arguments: " + exec.ExprList(f.Args)}}
}
