package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/types"
)

// Running is one aggregate over a single group that rows are added to a
// slice at a time and that can be read after each addition. Window
// operators use it so that every aggregate (including ones added later)
// works over window frames through its ordinary state.
type Running struct {
	a    Agg
	s    state
	gids []int32
}

// NewRunning starts an empty running aggregate.
func NewRunning(a Agg) *Running {
	r := &Running{a: a}
	r.Reset()
	return r
}

// Reset empties the aggregate.
func (r *Running) Reset() {
	r.s = newState(r.a)
	r.s.grow(1)
}

// Add folds n rows into the aggregate; arg holds their argument values
// (nil for count(*)).
func (r *Running) Add(n int, arg arrow.Array) {
	for len(r.gids) < n {
		r.gids = append(r.gids, 0)
	}
	r.s.update(r.gids[:n], arg)
}

// Result is the aggregate over the rows added so far.
func (r *Running) Result() (types.Datum, error) {
	a, err := r.s.finish()
	if err != nil {
		return types.Datum{}, err
	}
	defer a.Release()
	d := types.DatumAt(r.a.T, a, 0)
	if d.S != "" {
		d.S = string([]byte(d.S)) // the array's buffer goes away with it
	}
	return d, nil
}
