package physical

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// HashAgg groups its input by GroupBy and computes Aggs per group; its
// columns are the keys, then the aggregates. Without GroupBy it yields
// exactly one row. DISTINCT is a HashAgg with no aggregates.
type HashAgg struct {
	In      Node
	GroupBy []expr.Expr
	Aggs    []agg.Agg
	// Phase is "Partial" or "Finalize" for the two halves of a parallel
	// aggregation (EXPLAIN shows it as PostgreSQL does); empty otherwise.
	Phase string
	// NotParallel, when set, says why an aggregation over a table large
	// enough to scan in parallel is not split between workers.
	NotParallel string
}

func (h *HashAgg) Types() []types.T {
	ts := make([]types.T, 0, len(h.GroupBy)+len(h.Aggs))
	for _, g := range h.GroupBy {
		ts = append(ts, g.Type())
	}
	for _, a := range h.Aggs {
		ts = append(ts, a.T)
	}
	return ts
}
func (h *HashAgg) Children() []Node { return []Node{h.In} }
func (h *HashAgg) Explain() Explained {
	ex := Explained{Name: "HashAggregate"}
	if len(h.GroupBy) == 0 {
		ex.Name = "Aggregate"
	} else {
		ex.Details = append(ex.Details, "Group Key: "+exec.ExprList(h.GroupBy))
	}
	if h.Phase != "" {
		ex.Name = h.Phase + " " + ex.Name
	}
	if h.NotParallel != "" {
		ex.Details = append(ex.Details, "Serial Aggregation: "+h.NotParallel)
	}
	if len(h.Aggs) > 0 {
		ex.Details = append(ex.Details, "Aggregates: "+exec.ExprList(h.Aggs))
	}
	return ex
}
