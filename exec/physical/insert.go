package physical

import (
	"strings"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Insert is the sink of an INSERT (exec.NewInsert): it writes In's rows,
// one column per table column in table order, of the columns' types, to
// Target through the statement's writer, and yields Returning evaluated
// over each row written, or, without Returning, one bigint row: the
// number of rows written. UPDATE, DELETE and MERGE will be sinks of this
// shape, writing delete files and new rows through the same writer.
type Insert struct {
	In        Node
	Target    *exec.Target
	Returning []expr.Expr
}

func (i *Insert) Types() []types.T {
	if i.Returning == nil {
		return []types.T{types.TInt8}
	}
	ts := make([]types.T, len(i.Returning))
	for k, e := range i.Returning {
		ts[k] = e.Type()
	}
	return ts
}

func (i *Insert) Children() []Node { return []Node{i.In} }

// Explain names the table as PostgreSQL's "Insert on t" does, with the
// branch a "t@b" writes.
func (i *Insert) Explain() Explained {
	name := i.Target.Table
	if i.Target.Ref != "" {
		name += "@" + i.Target.Ref
	}
	ex := Explained{Name: "Insert on " + name}
	if c := i.Target.Conflict; c != nil {
		res := "NOTHING"
		if c.Update {
			res = "UPDATE"
		}
		ex.Details = append(ex.Details, "Conflict Resolution: "+res)
		if len(c.Names) > 0 {
			ex.Details = append(ex.Details, "Conflict Arbiter Indexes: "+strings.Join(c.Names, ", "))
		}
	}
	if i.Returning != nil {
		ex.Details = append(ex.Details, "Returning: "+exec.ExprList(i.Returning))
	}
	return ex
}
