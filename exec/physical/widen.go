package physical

import "github.com/loamdb/loam/types"

// Widen places its input's columns at Positions of a wider row of All's
// types and fills the others with NULLs: a scan reads only the columns a
// query uses while expressions address table columns by position.
type Widen struct {
	In        Node
	Positions []int
	All       []types.T
}

func (w *Widen) Types() []types.T   { return w.All }
func (w *Widen) Children() []Node   { return []Node{w.In} }
func (w *Widen) Explain() Explained { return Explained{Name: "Widen"} }
