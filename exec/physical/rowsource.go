package physical

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/types"
)

// RowSource yields the rows Gen computes when the operator opens: the
// tables of the PostgreSQL catalog emulation (pg_catalog,
// information_schema). Gen stays a function because those rows are the
// catalog's as it is when the plan runs, which only the sql layer can
// read (exec does not know its catalog): computing them at planning
// would freeze them into a kept plan. Set-returning functions are not
// RowSources but FunctionScans (a descriptor and argument expressions),
// and metadata tables MetaTableScans.
//
// Known gap (issue 13, catalog part): the generators read the catalog
// through the handle of the statement that planned them (the planner's
// catalog, captured when the plan is made), not one the execution hands
// over; a plan kept across statements must get the executing
// statement's catalog through build.Env instead.
type RowSource struct {
	// Name is the heading EXPLAIN shows; "" shows "rowSource".
	Name        string
	ColumnTypes []types.T
	Gen         exec.RowFunc
}

func (r *RowSource) Types() []types.T { return r.ColumnTypes }
func (r *RowSource) Children() []Node { return nil }
func (r *RowSource) Explain() Explained {
	if r.Name == "" {
		return Explained{Name: "rowSource"}
	}
	return Explained{Name: r.Name}
}
