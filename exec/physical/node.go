// Package physical is the physical plan: what the planner (sql/plan)
// decides to run, as an immutable tree of nodes that carry expressions,
// aggregate descriptors and sort keys as plain data. A node has no
// Open/Next: exec/build turns a tree into running operators, and EXPLAIN
// prints the tree itself. This is the contract exec offers the planner.
package physical

import "github.com/loamdb/loam/types"

// Node is one operator of a physical plan.
type Node interface {
	// Types is the SQL type of each output column (the node's schema).
	Types() []types.T
	// Children are the node's inputs, in the order EXPLAIN shows them.
	Children() []Node
	// Explain is what EXPLAIN prints for the node.
	Explain() Explained
}

// Explained is what a node shows of itself in EXPLAIN.
type Explained struct {
	Name    string   // the node's heading, e.g. "Hash Join"
	Details []string // lines under it, e.g. "Hash Cond: …"
}

// SameTypes says whether two schemas are equal column by column.
func SameTypes(a, b []types.T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func concat(ts ...[]types.T) []types.T {
	var out []types.T
	for _, t := range ts {
		out = append(out, t...)
	}
	if out == nil {
		out = []types.T{}
	}
	return out
}
