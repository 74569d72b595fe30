package physical

import (
	"fmt"

	"github.com/loamdb/loam/types"
)

// Gather runs Workers copies of the pipeline under it at once, each on
// its share of Scan's batches (morsels), and passes on their rows in the
// order they come (PostgreSQL's Gather). Source is the one leaf of In
// (a table's Scan) that the copies share; everything else under In is
// built once a worker. The
// builder runs In alone when the session allows fewer than two workers.
type Gather struct {
	In      Node
	Source  Node
	Workers int
}

func (g *Gather) Types() []types.T { return g.In.Types() }
func (g *Gather) Children() []Node { return []Node{g.In} }
func (g *Gather) Explain() Explained {
	return Explained{Name: "Gather", Details: []string{fmt.Sprintf("Workers Planned: %d", g.Workers)}}
}
