package physical

import (
	"fmt"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/types"
)

// Sort orders its input by Keys; with TopN > 0 only the first TopN rows
// are wanted (ORDER BY … LIMIT), and only so many are kept.
type Sort struct {
	In   Node
	Keys []exec.SortKey
	TopN int64
}

func (s *Sort) Types() []types.T { return s.In.Types() }
func (s *Sort) Children() []Node { return []Node{s.In} }
func (s *Sort) Explain() Explained {
	ex := Explained{Name: "Sort", Details: []string{"Sort Key: " + exec.ExprList(s.Keys)}}
	if s.TopN > 0 {
		ex.Name = "Top-N Sort"
		ex.Details = append(ex.Details, fmt.Sprintf("Keeps: %d rows", max(s.TopN, 1)))
	}
	return ex
}
