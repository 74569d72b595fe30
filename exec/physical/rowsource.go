package physical

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/types"
)

// RowSource yields the rows Gen computes when the plan opens: catalog
// tables (pg_catalog, information_schema), metadata tables and functions
// whose rows come from the catalog or the storage layer.
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
