package physical

import (
	"fmt"

	"github.com/loamdb/loam/types"
)

// FirstOfRuns is DISTINCT ON over input sorted on the Keys columns: the
// first row of each run of equal keys.
type FirstOfRuns struct {
	In   Node
	Keys []int
}

func (f *FirstOfRuns) Types() []types.T { return f.In.Types() }
func (f *FirstOfRuns) Children() []Node { return []Node{f.In} }
func (f *FirstOfRuns) Explain() Explained {
	return Explained{Name: "Unique", Details: []string{fmt.Sprintf("Distinct On: columns %v", f.Keys)}}
}
