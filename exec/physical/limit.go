package physical

import (
	"fmt"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Limit skips Offset rows and passes at most Limit (< 0: all). With Ties
// (WITH TIES: the sort key columns) rows equal on them to the last one
// passed are passed too. Count and Skip, when set, are LIMIT and OFFSET
// expressions that read parameters: the builder evaluates them with the
// execution's values and they replace Limit and Offset.
type Limit struct {
	In            Node
	Limit, Offset int64
	Ties          []int
	Count, Skip   expr.Expr
}

func (l *Limit) Types() []types.T { return l.In.Types() }
func (l *Limit) Children() []Node { return []Node{l.In} }
func (l *Limit) Explain() Explained {
	if l.Ties != nil {
		return Explained{Name: "Limit", Details: []string{fmt.Sprintf("Limit: %d WITH TIES", max(l.Limit, 0)), fmt.Sprintf("Offset: %d", l.Offset)}}
	}
	var d []string
	switch {
	case l.Count != nil:
		d = append(d, "Limit: "+l.Count.String())
	case l.Limit >= 0:
		d = append(d, fmt.Sprintf("Limit: %d", l.Limit))
	}
	switch {
	case l.Skip != nil:
		d = append(d, "Offset: "+l.Skip.String())
	case l.Offset > 0:
		d = append(d, fmt.Sprintf("Offset: %d", l.Offset))
	}
	return Explained{Name: "Limit", Details: d}
}
