package build

import (
	"strconv"

	"github.com/loamdb/loam/exec"

	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/types"
)

// Where a plan runs on several cores is decided here, on the physical
// plan, once the planner has made it: pipelines of Filter and Project
// over a large table's scan get a Gather above them when what consumes
// their rows does not care in which order they come (an aggregate, a
// sort, a join feeding one of those). An aggregate whose every state can
// be merged is split into a per-worker Partial aggregate under the Gather
// and a Finalize above it. Everything else stays serial: a small table's
// scan too, where starting workers costs more than it saves.

// Parallel is how far a plan may be parallelised.
type Parallel struct {
	// Workers is max_parallel_workers_per_gather: workers a Gather plans;
	// under 2, none.
	Workers int
	// MinRows: a scan of fewer rows (by the table's metadata) stays serial.
	MinRows int64
}

// DefaultParallelMinRows is the smallest table scanned in parallel.
const DefaultParallelMinRows = 100_000

// Parallelize is n with Gathers where p allows and pays.
func Parallelize(n physical.Node, p Parallel) physical.Node {
	if p.Workers < 2 {
		return n
	}
	return p.rewrite(n, false)
}

// rewrite parallelises under n; orderFree says n's consumer ignores the
// order of n's rows.
func (p Parallel) rewrite(n physical.Node, orderFree bool) physical.Node {
	switch x := n.(type) {
	case *physical.HashAgg:
		free := orderInsensitive(x.Aggs)
		c := *x
		if scan := p.pipeline(x.In, true); scan != nil {
			if !free {
				c.NotParallel = "an aggregate depends on the order of its input"
				return &c
			}
			if aggSafe(x) {
				if split := p.splitAgg(x, scan); split != nil {
					return split
				}
				c.NotParallel = "an aggregate's states do not merge"
			}
		}
		c.In = p.rewrite(x.In, free)
		return &c
	case *physical.Sort:
		c := *x
		if scan := p.pipeline(x.In, true); scan != nil && x.TopN > 0 && sortSafe(x.Keys) {
			// Top-N: each worker keeps its best N, the Sort above the
			// best N of those.
			part := *x
			c.In = &physical.Gather{In: &part, Source: scan, Workers: p.Workers}
			return &c
		}
		c.In = p.rewrite(x.In, true)
		return &c
	case *physical.HashJoin:
		if scan := p.orderFreePipeline(n, orderFree); scan != nil {
			return &physical.Gather{In: n, Source: scan, Workers: p.Workers}
		}
		c := *x
		c.Left, c.Right = p.rewrite(x.Left, orderFree), p.rewrite(x.Right, orderFree)
		return &c
	case *physical.Filter, *physical.Project, *physical.Widen:
		if scan := p.orderFreePipeline(n, orderFree); scan != nil {
			return &physical.Gather{In: n, Source: scan, Workers: p.Workers}
		}
		switch y := n.(type) {
		case *physical.Filter:
			c := *y
			c.In = p.rewrite(y.In, orderFree)
			return &c
		case *physical.Project:
			c := *y
			c.In = p.rewrite(y.In, orderFree)
			return &c
		}
		w := n.(*physical.Widen)
		c := *w
		c.In = p.rewrite(w.In, orderFree)
		return &c
	case *physical.Limit:
		c := *x
		c.In = p.rewrite(x.In, false)
		return &c
	}
	return n
}

// pipeline is the scan under n when n is a chain of Filters, Projects
// and Widens over a scan of at least MinRows rows, whose expressions
// workers may evaluate at once; nil otherwise. A bare scan is one only
// when bare allows (an aggregate above has work for the workers): alone
// it has nothing for them to do.
func (p Parallel) pipeline(n physical.Node, bare bool) *physical.Scan {
	work := bare
	for {
		switch x := n.(type) {
		case *physical.Filter:
			if !parallelSafe(x.Pred) {
				return nil
			}
			n, work = x.In, true
			continue
		case *physical.Project:
			for _, e := range x.Exprs {
				if !parallelSafe(e) {
					return nil
				}
			}
			n, work = x.In, true
			continue
		case *physical.Widen:
			n = x.In
			continue
		case *physical.HashJoin:
			// The probe side streams through the workers; each probes
			// the one table built from the other side.
			if !sharesTable(x.Kind) || !parallelSafe(x.Extra) || !allSafe(x.LeftKeys) || !allSafe(x.RightKeys) {
				return nil
			}
			n, work = x.Left, true
			continue
		case *physical.Scan:
			if !work || x.RowIDs || len(x.Columns) == 0 || scanRows(x) < p.MinRows {
				return nil
			}
			return x
		}
		return nil
	}
}

func sortSafe(keys []exec.SortKey) bool {
	for _, k := range keys {
		if !parallelSafe(k.Expr) {
			return false
		}
	}
	return true
}

// orderFreePipeline is pipeline(n, false) where n's consumer ignores
// order (nil elsewhere, without looking at the table).
func (p Parallel) orderFreePipeline(n physical.Node, orderFree bool) *physical.Scan {
	if !orderFree {
		return nil
	}
	return p.pipeline(n, false)
}

// sharesTable says whether parallel copies of a join of kind may probe
// one hash table: not when the join marks the table's matched rows.
func sharesTable(kind exec.JoinKind) bool {
	return kind == exec.InnerJoin || kind == exec.LeftJoin
}

func allSafe(es []expr.Expr) bool {
	for _, e := range es {
		if !parallelSafe(e) {
			return false
		}
	}
	return true
}

// scanRows is how many rows the scan reads, by the table's metadata: the
// snapshot's records and the write log's tail.
func scanRows(s *physical.Scan) int64 {
	var n int64
	if snap := s.Source.Table.CurrentSnapshot(); snap != nil && snap.Summary != nil {
		if v, err := strconv.ParseInt(snap.Summary.Properties["total-records"], 10, 64); err == nil {
			n = v
		}
	}
	if s.Source.Log != nil {
		n += s.Source.Log.TailRows()
	}
	return n
}

// parallelSafe says whether workers may evaluate e at once: it reads
// only its row and the run's constants. Volatile and session functions
// (nextval, random, set_config) and subqueries stay on the session's
// goroutine.
func parallelSafe(e expr.Expr) bool {
	if e == nil {
		return true
	}
	ok := true
	expr.Rewrite(e, func(x expr.Expr) (expr.Expr, bool) {
		switch y := x.(type) {
		case *expr.Func:
			if expr.Volatile(y.Name) {
				ok = false
			}
		case *expr.Col, *expr.Const, expr.ParamRef, *expr.Compare, *expr.Arith, *expr.BoolOp, *expr.Not, *expr.IsNull,
			*expr.IsBool, *expr.In, *expr.Like, *expr.TimeArith, *expr.IntervalNeg, *expr.RegexMatch, *expr.MinMax,
			*expr.Distinct, *expr.Coalesce, *expr.Case, *expr.Cast, *expr.FloorDiv, *expr.Neg:
		default:
			ok = false
		}
		if !ok {
			return x, true
		}
		return nil, false
	})
	return ok
}

// orderInsensitive says whether an aggregation's result ignores the order
// of its input rows: collecting aggregates without ORDER BY (string_agg,
// array_agg, json_agg) show it.
func orderInsensitive(aggs []agg.Agg) bool {
	for _, a := range aggs {
		if a.Fn.Collects() && len(a.Order) == 0 {
			return false
		}
	}
	return true
}

// aggSafe says whether workers may evaluate the aggregation's keys,
// arguments and filters.
func aggSafe(h *physical.HashAgg) bool {
	for _, g := range h.GroupBy {
		if !parallelSafe(g) {
			return false
		}
	}
	for _, a := range h.Aggs {
		if !parallelSafe(a.Arg) || !parallelSafe(a.Arg2) || !parallelSafe(a.Filter) {
			return false
		}
		for _, o := range a.Order {
			if !parallelSafe(o.Expr) {
				return false
			}
		}
	}
	return true
}

// splitAgg is h as a Partial aggregation on each worker under a Gather
// and a Finalize aggregation of the workers' rows above it, when every
// aggregate's partial results merge; nil when one does not (DISTINCT,
// ordered-set, collecting, variance and sketch aggregates run serially,
// over a Gather of their input).
func (p Parallel) splitAgg(h *physical.HashAgg, source physical.Node) physical.Node {
	nk := len(h.GroupBy)
	var partial, final []agg.Agg
	// outs are the result's columns over the Finalize's output.
	var outs []expr.Expr
	keys := make([]expr.Expr, nk)
	for i, g := range h.GroupBy {
		keys[i] = &expr.Col{Idx: i, T: g.Type()}
		outs = append(outs, keys[i])
	}
	col := func(t types.T) expr.Expr { return &expr.Col{Idx: nk + len(partial) - 1, T: t} }
	finalCol := func(t types.T) expr.Expr { return &expr.Col{Idx: nk + len(final) - 1, T: t} }
	needProject := false
	for _, a := range h.Aggs {
		m, ok := mergeOf(a)
		if !ok {
			return nil
		}
		if m.avg {
			needProject = true
			s, c := a, a
			s.Fn, s.T = agg.Sum, m.sumT
			c.Fn, c.T = agg.Count, types.TInt8
			partial = append(partial, s)
			final = append(final, agg.Agg{Fn: agg.Sum, Arg: col(m.sumT), T: m.sumT})
			partial = append(partial, c)
			final = append(final, agg.Agg{Fn: agg.Sum, Arg: col(types.TInt8), T: types.TInt8})
			outs = append(outs, m.divide(&expr.Col{Idx: nk + len(final) - 2, T: m.sumT}, finalCol(types.TInt8), a.T))
			continue
		}
		pa := a
		pa.T = m.partialT
		partial = append(partial, pa)
		final = append(final, agg.Agg{Fn: m.final, Arg: col(m.partialT), T: a.T})
		outs = append(outs, finalCol(a.T))
	}
	part := &physical.HashAgg{In: h.In, GroupBy: h.GroupBy, Aggs: partial, Phase: "Partial"}
	var out physical.Node = &physical.HashAgg{In: &physical.Gather{In: part, Source: source, Workers: p.Workers},
		GroupBy: keys, Aggs: final, Phase: "Finalize"}
	if needProject {
		out = &physical.Project{In: out, Exprs: outs}
	}
	return out
}

// merge is how one aggregate splits: the partial result's type and the
// aggregate that merges the partials; for avg, a sum and a count divided.
type merge struct {
	partialT types.T
	final    agg.Func
	avg      bool
	sumT     types.T
}

func mergeOf(a agg.Agg) (merge, bool) {
	if a.Distinct || len(a.Order) > 0 || a.Arg2 != nil {
		return merge{}, false
	}
	var argT types.T
	if a.Arg != nil {
		argT = a.Arg.Type()
	}
	switch a.Fn {
	case agg.CountStar, agg.Count:
		return merge{partialT: types.TInt8, final: agg.Sum}, true
	case agg.Min, agg.Max, agg.BoolAnd, agg.BoolOr, agg.GroupValue:
		return merge{partialT: a.T, final: a.Fn}, true
	case agg.Sum:
		switch argT.Kind {
		case types.Int2, types.Int4, types.Int8, types.Numeric, types.Float8, types.Interval:
			return merge{partialT: a.T, final: agg.Sum}, true
		case types.Float4:
			// Partial sums kept in float8, as a serial sum is, rounded once.
			return merge{partialT: types.TFloat8, final: agg.Sum}, true
		}
	case agg.Avg:
		switch argT.Kind {
		case types.Int2, types.Int4, types.Int8, types.Numeric:
			return merge{avg: true, sumT: types.TNumeric}, true
		case types.Float4, types.Float8:
			return merge{avg: true, sumT: types.TFloat8}, true
		}
	}
	return merge{}, false
}

// divide is avg from its merged sum and count, as the serial avg
// computes it: numeric division, or float8 division of a sum that starts
// from +0 (a lone -0 averages to 0).
func (m merge) divide(sum, count expr.Expr, t types.T) expr.Expr {
	if m.sumT.Kind == types.Float8 {
		plus0 := &expr.Arith{Op: expr.Add, L: sum, R: &expr.Const{D: types.Float8Datum(0)}, T: types.TFloat8}
		return &expr.Arith{Op: expr.Div, L: plus0, R: &expr.Cast{Arg: count, T: types.TFloat8}, T: t}
	}
	return &expr.Arith{Op: expr.Div, L: sum, R: &expr.Cast{Arg: count, T: types.TNumeric}, T: t}
}
