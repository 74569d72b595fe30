package plan

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// groupingSets expands a GROUP BY list into its grouping sets, each a list
// of expressions: the cross product of its items, where ROLLUP, CUBE and
// GROUPING SETS items stand for several sets. A plain GROUP BY is one set.
func groupingSets(items []*pg.Node) ([][]*pg.Node, error) {
	sets := [][]*pg.Node{nil}
	for _, it := range items {
		alts, err := itemSets(it)
		if err != nil {
			return nil, err
		}
		var next [][]*pg.Node
		for _, s := range sets {
			for _, a := range alts {
				next = append(next, append(append([]*pg.Node{}, s...), a...))
			}
		}
		sets = next
		if len(sets) > 4096 {
			return nil, pgerr.New(pgerr.StatementTooComplex, "too many grouping sets present (maximum 4096)")
		}
	}
	return sets, nil
}

// rowItems flattens (a, b) inside grouping constructs into its elements.
func rowItems(n *pg.Node) []*pg.Node {
	if r := n.GetRowExpr(); r != nil && r.RowFormat == pg.CoercionForm_COERCE_IMPLICIT_CAST {
		return r.Args
	}
	return []*pg.Node{n}
}

func itemSets(n *pg.Node) ([][]*pg.Node, error) {
	gs := n.GetGroupingSet()
	if gs == nil {
		return [][]*pg.Node{rowItems(n)}, nil
	}
	switch gs.Kind {
	case pg.GroupingSetKind_GROUPING_SET_EMPTY:
		return [][]*pg.Node{nil}, nil
	case pg.GroupingSetKind_GROUPING_SET_SIMPLE:
		var all []*pg.Node
		for _, c := range gs.Content {
			all = append(all, rowItems(c)...)
		}
		return [][]*pg.Node{all}, nil
	case pg.GroupingSetKind_GROUPING_SET_ROLLUP:
		var out [][]*pg.Node
		for k := len(gs.Content); k >= 0; k-- {
			var set []*pg.Node
			for _, c := range gs.Content[:k] {
				set = append(set, rowItems(c)...)
			}
			out = append(out, set)
		}
		return out, nil
	case pg.GroupingSetKind_GROUPING_SET_CUBE:
		n := len(gs.Content)
		if n > 12 {
			return nil, pgerr.New(pgerr.ProgramLimitExceeded, "CUBE is limited to 12 elements")
		}
		var out [][]*pg.Node
		// Largest sets first, as PostgreSQL lists them.
		for mask := (1 << n) - 1; mask >= 0; mask-- {
			var set []*pg.Node
			for i, c := range gs.Content {
				if mask&(1<<(n-1-i)) != 0 {
					set = append(set, rowItems(c)...)
				}
			}
			out = append(out, set)
		}
		return out, nil
	case pg.GroupingSetKind_GROUPING_SET_SETS:
		var out [][]*pg.Node
		for _, c := range gs.Content {
			sub, err := itemSets(c)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
		return out, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "this grouping set is not supported")
}

// groupingInfo is what GROUPING() needs: the grouped expressions, and
// where the aggregate's output carries the bitmask of the keys its row's
// grouping set leaves out (bit k for key k; set once the aggregates are
// all bound). idx < 0 means a plain GROUP BY, where GROUPING() is 0.
type groupingInfo struct {
	idx   *int
	multi bool // more than one grouping set
}

// groupingRef is GROUPING(a, b, …): bit i (from the left) set when the
// row's grouping set does not include argument i.
type groupingRef struct {
	info *groupingInfo
	keys []int
}

func (e *groupingRef) Type() types.T { return types.TInt4 }
func (e *groupingRef) String() string {
	parts := make([]string, len(e.keys))
	for i, k := range e.keys {
		parts[i] = strconv.Itoa(k)
	}
	return "grouping(" + strings.Join(parts, ", ") + ")"
}

func (e *groupingRef) Eval(c *expr.Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	n := int(b.NumRows())
	out := array.NewInt32Builder(memory.DefaultAllocator)
	defer out.Release()
	if *e.info.idx < 0 {
		for i := 0; i < n; i++ {
			out.Append(0)
		}
		return out.NewArray(), nil
	}
	masks := b.Column(*e.info.idx).(*array.Int32)
	for i := 0; i < n; i++ {
		m := masks.Value(i)
		var v int32
		for _, k := range e.keys {
			v <<= 1
			if m&(1<<k) != 0 {
				v |= 1
			}
		}
		out.Append(v)
	}
	return out.NewArray(), nil
}

// bindGrouping binds GROUPING(args): each argument must be one of the
// GROUP BY expressions.
func (b *binder) bindGrouping(g *pg.GroupingFunc) (expr.Expr, error) {
	if !b.aggMode || b.grouping == nil {
		return nil, pgerr.New(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level").WithPosition(pos(b.p.query, g.Location))
	}
	if len(g.Args) > 31 {
		return nil, pgerr.New(pgerr.TooManyArguments, "GROUPING must have fewer than 32 arguments").WithPosition(pos(b.p.query, g.Location))
	}
	ref := &groupingRef{info: b.grouping}
	for _, a := range g.Args {
		sub := &binder{p: b.p, sc: b.sc, where: b.where}
		e, err := sub.bind(a)
		if err != nil {
			return nil, err
		}
		k := -1
		for i, s := range b.groupStrs {
			if s == e.String() {
				k = i
				break
			}
		}
		if k < 0 {
			return nil, pgerr.New(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level").WithPosition(pos(b.p.query, nodeLocation(a)))
		}
		ref.keys = append(ref.keys, k)
	}
	return ref, nil
}

// aggregate groups src by each grouping set. One set covering every key is
// a plain hash aggregate. Several sets aggregate the same spooled rows
// once each, with NULL for the keys a set leaves out and, last, the
// bitmask GROUPING() reads.
func (p *Planner) aggregate(src physical.Node, groupBy []expr.Expr, sets [][]int, aggs []agg.Agg, grouping *groupingInfo) physical.Node {
	if len(sets) == 1 {
		return &physical.HashAgg{In: src, GroupBy: groupBy, Aggs: aggs}
	}
	*grouping.idx = len(groupBy) + len(aggs)
	spool := physical.NewSpool(src)
	ts := make([]types.T, 0, len(groupBy)+len(aggs)+1)
	for _, g := range groupBy {
		ts = append(ts, g.Type())
	}
	for _, a := range aggs {
		ts = append(ts, a.T)
	}
	ts = append(ts, types.TInt4)
	var parts []physical.Node
	for _, set := range sets {
		keys := make([]expr.Expr, len(set))
		for i, k := range set {
			keys[i] = groupBy[k]
		}
		op := &physical.HashAgg{In: spool.Reader(), GroupBy: keys, Aggs: aggs}
		proj := make([]expr.Expr, 0, len(ts))
		var mask int32
		for k, g := range groupBy {
			pos := -1
			for i, x := range set {
				if x == k {
					pos = i
					break
				}
			}
			if pos < 0 {
				mask |= 1 << k
				proj = append(proj, &expr.Const{D: types.NullOf(g.Type())})
				continue
			}
			proj = append(proj, &expr.Col{Idx: pos, T: g.Type()})
		}
		for i, a := range aggs {
			proj = append(proj, &expr.Col{Idx: len(set) + i, T: a.T})
		}
		proj = append(proj, &expr.Const{D: types.Int(types.TInt4, int64(mask))})
		parts = append(parts, &physical.Project{In: op, Exprs: proj})
	}
	return &physical.UnionAll{Inputs: parts, ColumnTypes: ts}
}
