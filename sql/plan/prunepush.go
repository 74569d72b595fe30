package plan

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
)

// A filter over a derived table or view (its output columns) is carried
// down to the scans under it for file pruning only: the rows are still
// filtered where the filter is, so no expression is evaluated on rows it
// would not have been, whatever order the conjuncts run in. It goes
// through projections of plain columns, filters, sorts and the group keys
// of an aggregation (a group whose key fails it is dropped whole), and not
// through LIMIT, DISTINCT ON, windows, joins or set operations, where
// fewer input rows would change which rows come out.

// withPrune is n with the conjuncts of pred (over n's columns) added to
// the pruning filter of the scans they reach; n itself when none does.
// It copies the nodes it changes: a plan's nodes may be shared.
func withPrune(n physical.Node, pred expr.Expr) physical.Node {
	if pred == nil {
		return n
	}
	var keep []expr.Expr
	for _, c := range expr.Conjuncts(pred) {
		if cols, ok := colsOf(c); ok && len(cols) > 0 {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		return n
	}
	if out, ok := pruneThrough(n, andOf(keep)); ok {
		return out
	}
	return n
}

func pruneThrough(n physical.Node, pred expr.Expr) (physical.Node, bool) {
	switch x := n.(type) {
	case *physical.Project:
		sub, ok := throughColumns(pred, x.Exprs)
		if !ok {
			return nil, false
		}
		in, ok := pruneThrough(x.In, sub)
		if !ok {
			return nil, false
		}
		c := *x
		c.In = in
		return &c, true
	case *physical.Filter:
		in, ok := pruneThrough(x.In, pred)
		if !ok {
			return nil, false
		}
		c := *x
		c.In = in
		return &c, true
	case *physical.Sort:
		in, ok := pruneThrough(x.In, pred)
		if !ok {
			return nil, false
		}
		c := *x
		c.In = in
		return &c, x.TopN == 0
	case *physical.HashAgg:
		sub, ok := throughColumns(pred, x.GroupBy)
		if !ok {
			return nil, false
		}
		in, ok := pruneThrough(x.In, sub)
		if !ok {
			return nil, false
		}
		c := *x
		c.In = in
		return &c, true
	case *physical.Widen:
		scan, ok := x.In.(*physical.Scan)
		if !ok || scan.RowIDs {
			return nil, false
		}
		return widenPrune(x, scan, pred)
	}
	return nil, false
}

// throughColumns rewrites pred over a node's outputs to its input, where
// every output pred reads is a plain input column.
func throughColumns(pred expr.Expr, outs []expr.Expr) (expr.Expr, bool) {
	bad := false
	sub, ok := rewrite(pred, func(c *expr.Col) expr.Expr {
		if c.Idx >= len(outs) {
			bad = true
			return c
		}
		in, isCol := outs[c.Idx].(*expr.Col)
		if !isCol {
			bad = true
			return c
		}
		return &expr.Col{Idx: in.Idx, T: in.T, Name: in.Name}
	})
	return sub, ok && !bad
}

// widenPrune adds pred, over the widened row, to the scan's pruning
// filter, naming the columns the scan reads.
func widenPrune(w *physical.Widen, scan *physical.Scan, pred expr.Expr) (physical.Node, bool) {
	names := make([]string, len(w.All))
	known := make([]bool, len(w.All))
	for k, p := range w.Positions {
		if p < len(names) && k < len(scan.Columns) {
			names[p], known[p] = scan.Columns[k], true
		}
	}
	cols, _ := colsOf(pred)
	for _, c := range cols {
		if c >= len(known) || !known[c] {
			return nil, false
		}
	}
	s := *scan
	if s.Prune == nil {
		s.Prune, s.Names = pred, names
	} else {
		// The existing filter names columns by its own list: pred's
		// names must be the same there.
		for p, ok := range known {
			if ok && (p >= len(s.Names) || s.Names[p] != names[p]) {
				return nil, false
			}
		}
		s.Prune = andOf([]expr.Expr{s.Prune, pred})
	}
	return &physical.Widen{In: &s, Positions: w.Positions, All: w.All}, true
}
