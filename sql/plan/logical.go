package plan

import (
	"fmt"
	"strings"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/types"
)

// A query block is bound into a tree of logical nodes: what it computes,
// over which inputs, before any operator is chosen. Rewrites (rewrite)
// work on that tree; lower turns it into a physical plan.
type node interface {
	inputs() []*node
	describe() string
}

// scanNode reads a table; filter (over the scan's scope columns, may be
// nil) is the part of WHERE it may prune files by. The rows it yields are
// as wide as the scope: unread columns are NULL.
type scanNode struct {
	source    physical.ScanSource
	columns   []string  // the table columns read
	types     []types.T // their types
	expiry    *exec.Expiry
	names     []string // every scope column, for pushdown
	positions []int    // scope positions of columns
	all       []types.T
	filter    expr.Expr
}

// scan is the node's physical scan, pruning by its filter.
func (n *scanNode) scan() *physical.Scan {
	s := &physical.Scan{Source: n.source, Columns: n.columns, ColumnTypes: n.types, Expiry: n.expiry}
	if n.filter != nil {
		s.Prune, s.Names = n.filter, n.names
	}
	return s
}

// sourceNode is an input planned on its own: FROM lists and joins,
// subqueries, VALUES.
type sourceNode struct {
	what  string
	build func(where expr.Expr) (physical.Node, error)
	where expr.Expr // a WHERE the source applies inside (joins place it)
}

type filterNode struct {
	in   node
	pred expr.Expr
}

type aggregateNode struct {
	in       node
	groupBy  []expr.Expr
	sets     [][]int
	aggs     []agg.Agg
	grouping *groupingInfo
}

type projectNode struct {
	in    node
	exprs []expr.Expr
}

type distinctNode struct {
	in    node
	width int
}

// projectSetNode runs the select list's set-returning functions over its
// input rows, adding a column for each after the input's.
type projectSetNode struct {
	in   node
	srfs []srfCall
}

// firstOfRunsNode is DISTINCT ON over input sorted on keys.
type firstOfRunsNode struct {
	in   node
	keys []int
}

type sortNode struct {
	in   node
	keys []exec.SortKey
	topN int64 // > 0: only so many rows are wanted (set by rewrite)
}

type limitNode struct {
	in            node
	limit, offset int64
	ties          []int     // WITH TIES: the sort key columns
	count, skip   expr.Expr // LIMIT, OFFSET read at run time (physical.Limit)
}

func (n *scanNode) inputs() []*node        { return nil }
func (n *sourceNode) inputs() []*node      { return nil }
func (n *filterNode) inputs() []*node      { return []*node{&n.in} }
func (n *aggregateNode) inputs() []*node   { return []*node{&n.in} }
func (n *projectNode) inputs() []*node     { return []*node{&n.in} }
func (n *distinctNode) inputs() []*node    { return []*node{&n.in} }
func (n *projectSetNode) inputs() []*node  { return []*node{&n.in} }
func (n *firstOfRunsNode) inputs() []*node { return []*node{&n.in} }
func (n *sortNode) inputs() []*node        { return []*node{&n.in} }
func (n *limitNode) inputs() []*node       { return []*node{&n.in} }
func (n *scanNode) describe() string {
	id := n.source.Table.Identifier()
	return "Scan " + id[len(id)-1] + pruneText(n.filter)
}
func (n *sourceNode) describe() string   { return "Source " + n.what + pruneText(n.where) }
func (n *filterNode) describe() string   { return "Filter " + n.pred.String() }
func (n *projectNode) describe() string  { return "Project " + exec.ExprList(n.exprs) }
func (n *distinctNode) describe() string { return "Distinct" }
func (n *projectSetNode) describe() string {
	var calls []string
	for _, c := range n.srfs {
		calls = append(calls, c.fn.Name+"("+exec.ExprList(c.fn.Args)+")")
	}
	return "ProjectSet " + strings.Join(calls, ", ")
}
func (n *firstOfRunsNode) describe() string { return fmt.Sprintf("DistinctOn %v", n.keys) }
func (n *aggregateNode) describe() string {
	s := "Aggregate"
	if len(n.groupBy) > 0 {
		s += " by " + exec.ExprList(n.groupBy)
	}
	if len(n.sets) > 1 {
		s += fmt.Sprintf(" in %d grouping sets", len(n.sets))
	}
	return s + " computing " + exec.ExprList(n.aggs)
}
func (n *sortNode) describe() string {
	s := "Sort " + exec.ExprList(n.keys)
	if n.topN > 0 {
		s += fmt.Sprintf(" keeping %d", n.topN)
	}
	return s
}
func (n *limitNode) describe() string {
	s := fmt.Sprintf("Limit %d offset %d", n.limit, n.offset)
	if n.count != nil || n.skip != nil {
		s = fmt.Sprintf("Limit %v offset %v", n.count, n.skip)
	}
	if n.ties != nil {
		s += " with ties"
	}
	return s
}

func pruneText(e expr.Expr) string {
	if e == nil {
		return ""
	}
	return " where " + e.String()
}

// renderLogical lays the tree out one node a line, inputs indented.
func renderLogical(n node) []string {
	var out []string
	var walk func(n node, depth int)
	walk = func(n node, depth int) {
		out = append(out, strings.Repeat("  ", depth)+n.describe())
		for _, in := range n.inputs() {
			walk(*in, depth+1)
		}
	}
	walk(n, 0)
	return out
}

// rewrite applies the logical rewrites in order:
//   - constant subexpressions are evaluated once (fold);
//   - a filter over a scan gives the scan its pruning filter, and a filter
//     over a FROM list is placed inside it, at the joins;
//   - a sort under a limit keeps only limit+offset rows (top-N).
func (p *Planner) rewrite(root node) node {
	p.foldAll(root)
	root = p.pushFilters(root)
	return topN(root)
}

func (p *Planner) foldAll(n node) {
	switch x := n.(type) {
	case *filterNode:
		x.pred = fuse(p.fold(x.pred))
	case *projectNode:
		for i, e := range x.exprs {
			x.exprs[i] = fuse(p.fold(e))
		}
	case *aggregateNode:
		for i, e := range x.groupBy {
			x.groupBy[i] = fuse(foldNulls(e))
		}
		for i := range x.aggs {
			a := &x.aggs[i]
			a.Arg, a.Arg2, a.Filter = foldNulls(a.Arg), foldNulls(a.Arg2), foldNulls(a.Filter)
		}
	}
	for _, in := range n.inputs() {
		p.foldAll(*in)
	}
}

func (p *Planner) pushFilters(n node) node {
	for _, in := range n.inputs() {
		*in = p.pushFilters(*in)
	}
	f, ok := n.(*filterNode)
	if !ok {
		return n
	}
	switch in := f.in.(type) {
	case *scanNode:
		// Rows are still filtered above: Iceberg prunes files, it does not
		// filter rows exactly.
		in.filter = f.pred
	case *sourceNode:
		if in.where == nil {
			in.where = f.pred
			return in
		}
	}
	return n
}

func topN(n node) node {
	for _, in := range n.inputs() {
		*in = topN(*in)
	}
	if l, ok := n.(*limitNode); ok && l.limit >= 0 && l.ties == nil && l.count == nil && l.skip == nil {
		if s, ok := l.in.(*sortNode); ok {
			s.topN = max(l.limit+l.offset, 1)
		}
	}
	return n
}

// lower makes the physical plan of a logical tree.
func (p *Planner) lower(n node) (physical.Node, error) {
	var ins []physical.Node
	for _, in := range n.inputs() {
		op, err := p.lower(*in)
		if err != nil {
			return nil, err
		}
		ins = append(ins, op)
	}
	switch x := n.(type) {
	case *scanNode:
		return &physical.Widen{In: x.scan(), Positions: x.positions, All: x.all}, nil
	case *sourceNode:
		return x.build(x.where)
	case *filterNode:
		return &physical.Filter{In: ins[0], Pred: x.pred}, nil
	case *decorJoinNode:
		return x.lower(ins[0]), nil
	case *aggregateNode:
		return p.aggregate(ins[0], x.groupBy, x.sets, x.aggs, x.grouping), nil
	case *windowNode:
		return x.ws.operator(ins[0]), nil
	case *projectNode:
		return &physical.Project{In: ins[0], Exprs: x.exprs}, nil
	case *projectSetNode:
		// The projection above reads each function's column after the
		// input's.
		fns := make([]exec.SetFunc, len(x.srfs))
		for k, c := range x.srfs {
			c.ref.Idx = len(ins[0].Types()) + k
			fns[k] = c.fn
		}
		return &physical.ProjectSet{In: ins[0], Fns: fns}, nil
	case *distinctNode:
		keyCols := make([]expr.Expr, x.width)
		ts := ins[0].Types()
		for i := range keyCols {
			keyCols[i] = &expr.Col{Idx: i, T: ts[i]}
		}
		return &physical.HashAgg{In: ins[0], GroupBy: keyCols}, nil
	case *firstOfRunsNode:
		return &physical.FirstOfRuns{In: ins[0], Keys: x.keys}, nil
	case *sortNode:
		return &physical.Sort{In: ins[0], Keys: x.keys, TopN: x.topN}, nil
	case *limitNode:
		return &physical.Limit{In: ins[0], Limit: x.limit, Offset: x.offset, Ties: x.ties, Count: x.count, Skip: x.skip}, nil
	}
	return nil, fmt.Errorf("plan: no operator for %T", n)
}
