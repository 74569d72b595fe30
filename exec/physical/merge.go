package physical

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/types"
)

// Merge is the sink of a MERGE (exec.NewMerge): In is the source joined to
// the target (source LEFT JOIN target, or an inner join when no clause is
// WHEN NOT MATCHED) with the target row's id in column RowID, NULL for a
// source row that matched none. Each row takes the first of Actions it
// meets; updated and deleted rows are deleted by id and new rows written
// to Target through the statement's writer. It yields one bigint row, the
// number of rows inserted, updated and deleted.
type Merge struct {
	In      Node
	Target  *exec.Target
	RowID   int
	Actions []exec.MergeAction
}

func (m *Merge) Types() []types.T { return []types.T{types.TInt8} }
func (m *Merge) Children() []Node { return []Node{m.In} }

// Explain names the table as PostgreSQL's "Merge on t" does, and lists
// the clauses in order.
func (m *Merge) Explain() Explained {
	name := m.Target.Table
	if m.Target.Ref != "" {
		name += "@" + m.Target.Ref
	}
	ex := Explained{Name: "Merge on " + name}
	for _, a := range m.Actions {
		when := "WHEN NOT MATCHED"
		if a.Matched {
			when = "WHEN MATCHED"
		}
		if a.Cond != nil {
			when += " AND " + a.Cond.String()
		}
		ex.Details = append(ex.Details, when+" THEN "+a.Kind.String())
	}
	return ex
}
