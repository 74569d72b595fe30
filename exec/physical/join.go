package physical

import (
	"strings"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

var joinNames = [...]string{exec.InnerJoin: "Inner", exec.LeftJoin: "Left", exec.RightJoin: "Right", exec.FullJoin: "Full",
	exec.SemiJoin: "Semi", exec.AntiJoin: "Anti"}

// HashJoin joins Left and Right where LeftKeys equal RightKeys and Extra
// (over both sides' columns; nil: true) holds, hashing Right.
type HashJoin struct {
	Kind                exec.JoinKind
	Left, Right         Node
	LeftKeys, RightKeys []expr.Expr
	Extra               expr.Expr
	// NullAware (AntiJoin, one key) is NOT IN's anti join: a NULL key on
	// either side makes the comparison unknown, so the left row is not kept
	// unless the right side is empty.
	NullAware bool
}

func (j *HashJoin) Types() []types.T {
	if j.Kind == exec.SemiJoin || j.Kind == exec.AntiJoin {
		return concat(j.Left.Types())
	}
	return concat(j.Left.Types(), j.Right.Types())
}
func (j *HashJoin) Children() []Node { return []Node{j.Left, j.Right} }
func (j *HashJoin) Explain() Explained {
	conds := make([]string, len(j.LeftKeys))
	for i := range j.LeftKeys {
		conds[i] = j.LeftKeys[i].String() + " = " + j.RightKeys[i].String()
	}
	name := "Hash Join"
	if j.Kind == exec.SemiJoin || j.Kind == exec.AntiJoin {
		// As PostgreSQL names them; Extra is checked on key-matched pairs.
		name = "Hash " + joinNames[j.Kind] + " Join"
		ex := Explained{Name: name, Details: []string{"Hash Cond: " + strings.Join(conds, " AND ")}}
		if j.NullAware {
			ex.Details = append(ex.Details, "Null-aware: NOT IN")
		}
		if j.Extra != nil {
			ex.Details = append(ex.Details, "Join Filter: "+j.Extra.String())
		}
		return ex
	}
	return Explained{Name: name, Details: []string{"Hash Cond: " + strings.Join(conds, " AND "), "Hashed: the second input"}}
}

// NestedLoop joins every Left row to every Right row where On (nil:
// true) holds.
type NestedLoop struct {
	Kind        exec.JoinKind
	Left, Right Node
	On          expr.Expr
}

func (j *NestedLoop) Types() []types.T { return concat(j.Left.Types(), j.Right.Types()) }
func (j *NestedLoop) Children() []Node { return []Node{j.Left, j.Right} }
func (j *NestedLoop) Explain() Explained {
	ex := Explained{Name: "Nested Loop " + joinNames[j.Kind] + " Join"}
	if j.On != nil {
		ex.Details = []string{"Join Filter: " + j.On.String()}
	}
	return ex
}
