package physical

import "github.com/loamdb/loam/types"

// Ordinality numbers its input's rows from 1 in a last bigint column
// (WITH ORDINALITY).
type Ordinality struct {
	In Node
}

func (o *Ordinality) Types() []types.T { return concat(o.In.Types(), []types.T{types.TInt8}) }
func (o *Ordinality) Children() []Node { return []Node{o.In} }
func (o *Ordinality) Explain() Explained {
	return Explained{Name: "Function Scan With Ordinality"}
}
