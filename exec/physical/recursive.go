package physical

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/types"
)

// RecursiveUnion runs WITH RECURSIVE, as PostgreSQL's Recursive Union:
// Init's rows, then Recursive's over the rows last produced until an
// iteration yields none; Distinct (UNION) drops rows already produced.
// Recursive is planned once: the WorkTableScan nodes in it that name Work
// read the previous iteration's rows, which the builder hands them from
// the running union, building Recursive's operators anew per iteration.
type RecursiveUnion struct {
	ColumnTypes []types.T
	Work        *WorkTable
	Init        Node
	Recursive   Node
	Distinct    bool
}

func (r *RecursiveUnion) Types() []types.T { return r.ColumnTypes }
func (r *RecursiveUnion) Children() []Node { return []Node{r.Init, r.Recursive} }
func (r *RecursiveUnion) Explain() Explained {
	name := "Recursive Union All"
	if r.Distinct {
		name = "Recursive Union"
	}
	return Explained{Name: name}
}

// WorkTable names the working table of one RecursiveUnion: the rows its
// last iteration produced. It is an identity, not rows: the plan is built
// and run many times, and the rows exist only while the union runs.
type WorkTable struct {
	Name        string // the WITH query's name, for EXPLAIN
	ColumnTypes []types.T
}

// WorkTableScan reads the working table Work of the RecursiveUnion it is
// planned under (PostgreSQL's WorkTable Scan).
type WorkTableScan struct {
	Work *WorkTable
}

func (w *WorkTableScan) Types() []types.T { return w.Work.ColumnTypes }
func (w *WorkTableScan) Children() []Node { return nil }
func (w *WorkTableScan) Explain() Explained {
	return Explained{Name: "WorkTable Scan on " + w.Work.Name}
}

// Batches yields batches already in memory: rows produced before the
// plan runs (an INSERT's RETURNING rows, replayed to the client).
type Batches struct {
	ColumnTypes []types.T
	Recs        []arrow.RecordBatch
}

func (b *Batches) Types() []types.T   { return b.ColumnTypes }
func (b *Batches) Children() []Node   { return nil }
func (b *Batches) Explain() Explained { return Explained{Name: "Batches"} }
