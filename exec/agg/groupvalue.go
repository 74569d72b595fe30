package agg

import (
	"bytes"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// groupValueState is GroupValue: each group's first row's value, NULL
// or not. Every row of a group has the same value (the planner uses it
// for columns the grouped primary key determines), so the first is it.
type groupValueState struct {
	t    types.T
	vals []types.Datum
	seen []bool
}

func (s *groupValueState) grow(g int) {
	for len(s.vals) < g {
		s.vals = append(s.vals, types.NullOf(s.t))
		s.seen = append(s.seen, false)
	}
}

func (s *groupValueState) update(gids []int32, arg arrow.Array, _ []arrow.Array) {
	for i, g := range gids {
		if s.seen[g] {
			continue
		}
		d := types.DatumAt(s.t, arg, i)
		d.S = strings.Clone(d.S)
		d.B = bytes.Clone(d.B)
		s.vals[g], s.seen[g] = d, true
	}
}

func (s *groupValueState) finish() (arrow.Array, error) {
	b := expr.NewBuilder(s.t, len(s.vals))
	for _, d := range s.vals {
		b.Append(d)
	}
	return b.Finish(), nil
}
