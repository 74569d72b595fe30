package build

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
)

// Dictionary-encoded text (exec/dict.go) is allowed on the chains
// HashAgg ← [Filter ←] Scan and Filter ← Scan, for the text columns that
// only the filter's comparisons with constants and the aggregation's bare
// group keys read. A filter not under such an aggregation passes its rows
// on through a DictDecode.

// dictPlan is what planDicts decided for one chain.
type dictPlan struct {
	cols     []bool         // the chain's columns that may be dictionaries
	scanCols []bool         // the same columns as the scan's
	cmps     []exec.DictCmp // the filter's conjuncts tested on codes
	rest     expr.Expr      // its other conjuncts, nil for none
	inAgg    bool           // the filter feeds an aggregation that understands dictionaries
}

// planDicts looks at n, before its inputs are built, and records which
// scan columns below it may travel as dictionaries.
func (b *builder) planDicts(n physical.Node) {
	if b.dicts == nil {
		b.dicts = map[physical.Node]*dictPlan{}
	}
	if _, done := b.dicts[n]; done {
		return
	}
	var filt *physical.Filter
	var ha *physical.HashAgg
	in := n
	switch x := n.(type) {
	case *physical.HashAgg:
		ha, in = x, x.In
		if f, ok := in.(*physical.Filter); ok {
			filt, in = f, f.In
		}
	case *physical.Filter:
		filt, in = x, x.In
	default:
		return
	}
	// The chain addresses columns by position in a Widen's row, if any.
	var positions []int
	width := in.Types()
	if w, ok := in.(*physical.Widen); ok {
		positions, in = w.Positions, w.In
	}
	scan, ok := in.(*physical.Scan)
	if !ok || scan.RowIDs {
		return
	}
	if positions == nil {
		positions = make([]int, len(scan.ColumnTypes))
		for i := range positions {
			positions[i] = i
		}
	}
	p := &dictPlan{cols: make([]bool, len(width)), inAgg: ha != nil}
	bad := make([]bool, len(width))
	use := func(e expr.Expr) {
		if !exprCols(e, bad) {
			for i := range bad {
				bad[i] = true
			}
		}
	}
	if ha != nil {
		for _, g := range ha.GroupBy {
			if c, ok := g.(*expr.Col); ok && exec.DictKind(c.T) && c.Idx < len(p.cols) {
				p.cols[c.Idx] = true
				continue
			}
			use(g)
		}
		for _, a := range ha.Aggs {
			use(a.Arg)
			use(a.Arg2)
			use(a.Filter)
			if len(a.Order) > 0 {
				for i := range bad {
					bad[i] = true
				}
			}
		}
	}
	if filt != nil {
		var rest []expr.Expr
		for _, c := range expr.Conjuncts(expr.BindRun(filt.Pred, b.env.Ec)) {
			if dc, ok := exec.AsDictCmp(c); ok && dc.Col < len(p.cols) {
				p.cols[dc.Col] = true
				p.cmps = append(p.cmps, dc)
				continue
			}
			rest = append(rest, c)
			use(c)
		}
		switch len(rest) {
		case 0:
		case 1:
			p.rest = rest[0]
		default:
			p.rest = &expr.BoolOp{Args: rest}
		}
	}
	any := false
	for i := range p.cols {
		p.cols[i] = p.cols[i] && !bad[i] && exec.DictKind(width[i])
	}
	p.scanCols = make([]bool, len(scan.ColumnTypes))
	for j, pos := range positions {
		if j < len(p.scanCols) && pos < len(p.cols) && p.cols[pos] && exec.DictKind(scan.ColumnTypes[j]) {
			p.scanCols[j] = true
			any = true
		}
	}
	if !any {
		return
	}
	b.dicts[scan] = p
	if filt != nil {
		b.dicts[filt] = p
	}
	if ha != nil {
		b.dicts[ha] = p
	}
}

// exprCols marks in used the columns e reads; false when e has a shape it
// does not look into (which may read any column). nil reads none.
func exprCols(e expr.Expr, used []bool) bool {
	switch x := e.(type) {
	case nil:
		return true
	case *expr.Col:
		if x.Idx < len(used) {
			used[x.Idx] = true
		}
		return true
	case *expr.Const:
		return true
	case *expr.Compare:
		return exprCols(x.L, used) && exprCols(x.R, used)
	case *expr.Arith:
		return exprCols(x.L, used) && exprCols(x.R, used)
	case *expr.Cast:
		return exprCols(x.Arg, used)
	case *expr.Not:
		return exprCols(x.Arg, used)
	case *expr.IsNull:
		return exprCols(x.Arg, used)
	case *expr.BoolOp:
		return allCols(x.Args, used)
	case *expr.In:
		return exprCols(x.Arg, used) && allCols(x.List, used)
	case *expr.Func:
		return allCols(x.Args, used)
	}
	return false
}

func allCols(es []expr.Expr, used []bool) bool {
	for _, e := range es {
		if !exprCols(e, used) {
			return false
		}
	}
	return true
}

// dictFilter builds a filter of a chain planDicts chose, or false.
func (b *builder) dictFilter(f *physical.Filter, in exec.Operator) (exec.Operator, bool) {
	p := b.dicts[f]
	if p == nil {
		return nil, false
	}
	op := exec.NewDictFilter(in, p.cmps, p.rest, b.env.Ec)
	if p.inAgg {
		return op, true
	}
	return exec.NewDictDecode(op), true
}

// dictAgg builds an aggregation of a chain planDicts chose, or false.
func (b *builder) dictAgg(h *physical.HashAgg, in exec.Operator) (exec.Operator, bool) {
	p := b.dicts[h]
	if p == nil {
		return nil, false
	}
	keys := make([]bool, len(h.GroupBy))
	for i, g := range h.GroupBy {
		if c, ok := g.(*expr.Col); ok && c.Idx < len(p.cols) && p.cols[c.Idx] {
			keys[i] = true
		}
	}
	return agg.NewHashAggDict(in, h.GroupBy, h.Aggs, b.env.Ec, keys), true
}

// scanDict is the Dict flags of a scan planDicts chose, or nil.
func (b *builder) scanDict(s *physical.Scan) []bool {
	if p := b.dicts[s]; p != nil {
		return p.scanCols
	}
	return nil
}
