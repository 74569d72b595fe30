package physical

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/types"
)

// RecursiveUnion runs WITH RECURSIVE: Init's rows, then Step's over the
// rows last produced until an iteration yields none; Distinct (UNION)
// drops rows already produced. Step plans the recursive term for each
// iteration over its working table (a WorkTable node).
type RecursiveUnion struct {
	ColumnTypes []types.T
	Init        Node
	Step        func(work []arrow.RecordBatch) (Node, error)
	Distinct    bool
}

func (r *RecursiveUnion) Types() []types.T { return r.ColumnTypes }
func (r *RecursiveUnion) Children() []Node { return []Node{r.Init} }
func (r *RecursiveUnion) Explain() Explained {
	name := "Recursive Union All"
	if r.Distinct {
		name = "Recursive Union"
	}
	return Explained{Name: name, Details: []string{"Recursive Term: planned for each iteration over the working table"}}
}

// WorkTable yields batches already in memory: a recursive query's working
// table, or rows produced before the plan runs.
type WorkTable struct {
	ColumnTypes []types.T
	Recs        []arrow.RecordBatch
}

func (w *WorkTable) Types() []types.T   { return w.ColumnTypes }
func (w *WorkTable) Children() []Node   { return nil }
func (w *WorkTable) Explain() Explained { return Explained{Name: "WorkTable Scan"} }
