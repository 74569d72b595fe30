package plan

import (
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/types"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// decorJoinNode joins a query block's FROM rows to a decorrelated
// subquery's rows (decorrelate.go): a hash semi or anti join for EXISTS
// and IN, a left join for a scalar subquery, whose columns then follow the
// row's.
type decorJoinNode struct {
	in        node
	kind      exec.JoinKind
	right     physical.Node
	lk, rk    []expr.Expr // lk over the left rows, rk over right's
	extra     expr.Expr   // over the left row then right's; nil: none
	nullAware bool
	what      string
}

func (n *decorJoinNode) inputs() []*node { return []*node{&n.in} }
func (n *decorJoinNode) describe() string {
	return "Join " + n.what + " on " + exec.ExprList(n.lk) + " = " + exec.ExprList(n.rk)
}

func (n *decorJoinNode) lower(left physical.Node) physical.Node {
	return &physical.HashJoin{Kind: n.kind, Left: left, Right: n.right, LeftKeys: n.lk, RightKeys: n.rk, Extra: n.extra, NullAware: n.nullAware}
}

// decorJoin turns a decorrelated subquery into a join of the current
// query block and the expression that stands for the subquery there: a
// constant for EXISTS and IN (the join filters), the joined value for a
// scalar. ok false: the join cannot be made (no equality to hash on).
func (b *binder) decorJoin(sl *pg.SubLink, req *decorReq, test expr.Expr, t types.T) (expr.Expr, bool) {
	fr := b.p.dframe
	d := req.result
	off := fr.width
	rightTypes := d.root.Types()
	j := &decorJoinNode{right: d.root, what: "subquery"}
	var extras []expr.Expr
	for _, c := range d.corr {
		if inner, outer, ok := eqSides(c, d.frame); ok {
			lk, ok1 := joinSide(outer, d.frame, 0)
			if ok1 {
				j.lk, j.rk = append(j.lk, lk), append(j.rk, inner)
				continue
			}
		}
		e, ok := joinSide(c, d.frame, off)
		if !ok {
			return nil, false
		}
		extras = append(extras, e)
	}
	negated := fr.semi[sl]
	switch req.kind {
	case decorExists:
		j.kind = exec.SemiJoin
		if negated {
			j.kind = exec.AntiJoin
		}
	case decorIn:
		j.kind = exec.SemiJoin
		var val expr.Expr = &expr.Col{Idx: d.value, T: rightTypes[d.value]}
		if val.Type() != t {
			val = &expr.Cast{Arg: val, T: t}
		}
		switch {
		case !negated:
			j.lk, j.rk = append(j.lk, test), append(j.rk, val)
		case len(j.lk) == 0 && len(extras) > 0:
			// Correlated by inequalities alone: nothing to hash on.
			return nil, false
		case len(j.lk) == 0:
			// Uncorrelated NOT IN: the null-aware anti join.
			j.kind, j.nullAware = exec.AntiJoin, true
			j.lk, j.rk = []expr.Expr{test}, []expr.Expr{val}
		default:
			// Correlated NOT IN: an inner row of the outer row's set rules
			// the row out when it equals x, or either is NULL.
			j.kind = exec.AntiJoin
			rv, _ := joinSide(val, d.frame, off)
			extras = append(extras, &expr.BoolOp{Or: true, Args: []expr.Expr{
				&expr.Compare{Op: expr.EQ, L: test, R: rv},
				&expr.IsNull{Arg: rv}, &expr.IsNull{Arg: test}}})
		}
	case decorScalar:
		j.kind = exec.LeftJoin
	}
	if len(j.lk) == 0 {
		return nil, false
	}
	if len(extras) > 0 {
		j.extra = andOf(extras)
	}
	fr.joins = append(fr.joins, j)
	if req.kind != decorScalar {
		return &expr.Const{D: types.BoolDatum(!negated)}, true
	}
	fr.width += len(rightTypes)
	value := &expr.Col{Idx: off + d.value, T: rightTypes[d.value]}
	if d.empty == nil {
		return value, true
	}
	marker := &expr.Col{Idx: off + d.value + 1, T: types.TBool}
	return &expr.Case{Whens: []expr.Expr{&expr.IsNull{Arg: marker}}, Thens: []expr.Expr{d.empty}, Else: value, T: value.T}, true
}

// withDecorJoins is root filtered by where, with the query block's
// decorrelated subqueries joined: conjuncts over the FROM rows alone are
// applied below the joins (and so pushed into scans and joins), the rest
// above them.
func (p *Planner) withDecorJoins(root node, where expr.Expr) node {
	fr := p.dframe
	if fr == nil || len(fr.joins) == 0 {
		if where != nil {
			root = &filterNode{in: root, pred: where}
		}
		return root
	}
	var below, above []expr.Expr
	if where != nil {
		for _, c := range expr.Conjuncts(where) {
			if k, ok := c.(*expr.Const); ok && !k.D.Null && k.D.T.Kind == types.Bool && k.D.I != 0 {
				continue // a subquery the joins stand for
			}
			cs, ok := colsOf(c)
			low := ok
			for _, i := range cs {
				low = low && i < len(fr.sc.cols)
			}
			if low {
				below = append(below, c)
			} else {
				above = append(above, c)
			}
		}
	}
	if len(below) > 0 {
		root = &filterNode{in: root, pred: andOf(below)}
	}
	for _, j := range fr.joins {
		j.in = root
		root = j
	}
	if len(above) > 0 {
		root = &filterNode{in: root, pred: andOf(above)}
	}
	return root
}

// bindDecorrelated is the expression for sublink sl, decorrelated into a
// join of the current query block (q is its decorrelated plan). ok false:
// bind it as a subquery run per outer row instead.
func (b *binder) bindDecorrelated(sl *pg.SubLink, req *decorReq, q *Query) (expr.Expr, bool, error) {
	d := req.result
	switch req.kind {
	case decorIn:
		vt := q.Columns[d.value].T
		test, err := b.bind(sl.Testexpr)
		if err != nil {
			return nil, false, err
		}
		t, ok := types.Common(test.Type(), vt)
		if !ok || t.Kind == types.Unknown {
			return nil, false, nil
		}
		t = types.Of(t.Kind)
		if test, err = b.coerce(test, t, sl.Location); err != nil {
			return nil, false, nil
		}
		e, ok := b.decorJoin(sl, req, test, t)
		return e, ok, nil
	default:
		e, ok := b.decorJoin(sl, req, nil, types.T{})
		return e, ok, nil
	}
}
