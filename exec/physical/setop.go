package physical

import (
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/types"
)

// SetOp is INTERSECT or EXCEPT [ALL] of two inputs of the types
// ColumnTypes.
type SetOp struct {
	Kind        agg.SetKind
	All         bool
	Left, Right Node
	ColumnTypes []types.T
}

func (s *SetOp) Types() []types.T { return s.ColumnTypes }
func (s *SetOp) Children() []Node { return []Node{s.Left, s.Right} }
func (s *SetOp) Explain() Explained {
	name := "HashSetOp Intersect"
	if s.Kind == agg.Except {
		name = "HashSetOp Except"
	}
	if s.All {
		name += " All"
	}
	return Explained{Name: name}
}

// UnionAll concatenates inputs of the types ColumnTypes.
type UnionAll struct {
	Inputs      []Node
	ColumnTypes []types.T
}

func (u *UnionAll) Types() []types.T   { return u.ColumnTypes }
func (u *UnionAll) Children() []Node   { return u.Inputs }
func (u *UnionAll) Explain() Explained { return Explained{Name: "Append"} }
