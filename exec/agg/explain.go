package agg

import (
	"github.com/loamdb/loam/exec"
)

// EXPLAIN for the operators of this package.

func (h *hashAggOp) Explain() exec.Explained {
	ex := exec.Explained{Name: "HashAggregate"}
	if h.scalar {
		ex.Name = "Aggregate"
	} else {
		ex.Details = append(ex.Details, "Group Key: "+exec.ExprList(h.groupBy))
	}
	if len(h.aggs) > 0 {
		ex.Details = append(ex.Details, "Aggregates: "+exec.ExprList(h.aggs))
	}
	return ex
}
func (h *hashAggOp) Inputs() []*exec.Operator { return []*exec.Operator{&h.in} }

func (s *setOp) Explain() exec.Explained {
	name := "HashSetOp Intersect"
	if s.kind == Except {
		name = "HashSetOp Except"
	}
	if s.all {
		name += " All"
	}
	return exec.Explained{Name: name}
}
func (s *setOp) Inputs() []*exec.Operator { return []*exec.Operator{&s.left, &s.right} }

func (u *unionAll) Explain() exec.Explained { return exec.Explained{Name: "Append"} }
func (u *unionAll) Inputs() []*exec.Operator {
	out := make([]*exec.Operator, len(u.inputs))
	for i := range u.inputs {
		out[i] = &u.inputs[i]
	}
	return out
}
