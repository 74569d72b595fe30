package physical

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Modify is the sink of an UPDATE or DELETE (exec.NewModify). In yields
// the rows to change: first their row id (link.RowIDColumn), then one
// column per table column in table order, of the columns' types: the new
// row of an UPDATE, the old row of a DELETE (only with Returning; a
// DELETE without it yields the ids alone), then the columns of FROM or
// USING that Returning reads after the table's. The sink deletes the rows by
// id through the statement's writer and, for an UPDATE, adds the new
// rows, and yields Returning evaluated over the rows (new for UPDATE, old
// for DELETE), or, without Returning, one bigint row: the number of rows
// changed. With Dedupe, a row id that comes twice (a row joined to two
// rows of FROM or USING) changes the row once, as in PostgreSQL; without
// FROM or USING each row comes once, and the sink keeps no set of ids.
type Modify struct {
	Dedupe bool
	// Update: the new rows are added; else the rows are only deleted.
	Update    bool
	In        Node
	Target    *exec.Target
	Returning []expr.Expr
}

func (m *Modify) Types() []types.T {
	if m.Returning == nil {
		return []types.T{types.TInt8}
	}
	ts := make([]types.T, len(m.Returning))
	for k, e := range m.Returning {
		ts[k] = e.Type()
	}
	return ts
}

func (m *Modify) Children() []Node { return []Node{m.In} }

// Explain names the table as PostgreSQL's "Update on t" and "Delete on t"
// do.
func (m *Modify) Explain() Explained {
	verb := "Delete on "
	if m.Update {
		verb = "Update on "
	}
	ex := Explained{Name: verb + m.Target.Table}
	if m.Returning != nil {
		ex.Details = append(ex.Details, "Returning: "+exec.ExprList(m.Returning))
	}
	return ex
}
