package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Running is one aggregate over a single group that rows are added to a
// range at a time and that can be read after each addition. Window
// operators use it so that every aggregate works over window frames
// through its ordinary state.
type Running struct {
	a    Agg
	ec   *expr.Ctx
	s    state
	gids []int32
	// arg, extra and filter are the evaluated Arg, Arg2 and Filter of the
	// aggregate over all rows; Add takes ranges of them.
	arg    arrow.Array
	extra  []arrow.Array
	filter *array.Boolean
}

// NewRunning starts an empty running aggregate over the given columns:
// arg (nil for count(*)), extra (Arg2, if any) and filter (the FILTER
// condition, or nil). DISTINCT and ORDER BY inside the call are not
// supported here.
func NewRunning(a Agg, ec *expr.Ctx, arg arrow.Array, extra []arrow.Array, filter *array.Boolean) *Running {
	r := &Running{a: a, ec: ec, arg: arg, extra: extra, filter: filter}
	r.Reset()
	return r
}

// Reset empties the aggregate.
func (r *Running) Reset() {
	r.s = newState(r.a, r.ec)
	// With a filter, group 0 takes the rows it rejects, as in hashAggOp.
	r.s.grow(2)
}

// Add folds rows [s, e) into the aggregate.
func (r *Running) Add(s, e int) {
	n := e - s
	if n <= 0 {
		return
	}
	if cap(r.gids) < n {
		r.gids = make([]int32, n)
	}
	g := r.gids[:n]
	for i := range g {
		g[i] = 1
		if r.filter != nil && (r.filter.IsNull(s+i) || !r.filter.Value(s+i)) {
			g[i] = 0
		}
	}
	var arg arrow.Array
	if r.arg != nil {
		arg = array.NewSlice(r.arg, int64(s), int64(e))
		defer arg.Release()
	}
	var extra []arrow.Array
	for _, x := range r.extra {
		sl := array.NewSlice(x, int64(s), int64(e))
		defer sl.Release()
		extra = append(extra, sl)
	}
	r.s.update(g, arg, extra)
}

// Result is the aggregate over the rows added so far.
func (r *Running) Result() (types.Datum, error) {
	a, err := r.s.finish()
	if err != nil {
		return types.Datum{}, err
	}
	defer a.Release()
	d := types.DatumAt(r.a.T, a, 1)
	if d.S != "" {
		d.S = string([]byte(d.S)) // the array's buffer goes away with it
	}
	return d, nil
}
