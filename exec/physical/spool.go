package physical

import (
	"fmt"

	"github.com/loamdb/loam/types"
)

// Spool is an input read by several SpoolReads: its rows are computed
// once and kept. A plan with a spool is a DAG; the builder builds the
// spooled input once.
type Spool struct {
	In      Node
	readers int
	first   *SpoolRead
}

// NewSpool spools in; take its readers with Reader while planning.
func NewSpool(in Node) *Spool { return &Spool{In: in} }

// Reader is one more consumer of the spooled rows.
func (s *Spool) Reader() *SpoolRead {
	s.readers++
	r := &SpoolRead{Spool: s}
	if s.first == nil {
		s.first = r
	}
	return r
}

// SpoolRead reads a Spool's rows.
type SpoolRead struct {
	Spool *Spool
}

func (r *SpoolRead) Types() []types.T { return r.Spool.In.Types() }

// Children shows the spooled input under the first reader only.
func (r *SpoolRead) Children() []Node {
	if r.Spool.first == r {
		return []Node{r.Spool.In}
	}
	return nil
}
func (r *SpoolRead) Explain() Explained {
	return Explained{Name: fmt.Sprintf("Spool Reader (%d readers)", r.Spool.readers)}
}
