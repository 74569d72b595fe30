package plan

import "github.com/loamdb/loam/exec/expr"

// OR clauses in WHERE, as PostgreSQL's planner treats them: a conjunct
// common to every branch of an OR is taken out of it, since
// (A AND B) OR (A AND C) is A AND (B OR C) in three-valued logic too, so
// an equality all the branches share keys a hash join instead of leaving
// a cross product (TPC-H q19); and the OR of each branch's conditions on
// one FROM item alone, implied by the OR, filters that item before any
// join (the OR itself still applies after it).

// factorOrs returns conj with the common conjuncts of each OR's branches
// taken out.
func factorOrs(conj []expr.Expr) []expr.Expr {
	var out []expr.Expr
	for _, c := range conj {
		or, ok := c.(*expr.BoolOp)
		if !ok || !or.Or || len(or.Args) < 2 || containsVolatile(c) {
			out = append(out, c)
			continue
		}
		branches := make([][]expr.Expr, len(or.Args))
		for i, a := range or.Args {
			branches[i] = expr.Conjuncts(a)
		}
		var common []expr.Expr
		for _, cand := range branches[0] {
			inAll := true
			for _, b := range branches[1:] {
				if indexSame(b, cand) < 0 {
					inAll = false
					break
				}
			}
			if inAll && indexSame(common, cand) < 0 {
				common = append(common, cand)
			}
		}
		if len(common) == 0 {
			out = append(out, c)
			continue
		}
		out = append(out, common...)
		rest := make([]expr.Expr, 0, len(branches))
		always := false
		for _, b := range branches {
			var left []expr.Expr
			for _, x := range b {
				if indexSame(common, x) < 0 {
					left = append(left, x)
				}
			}
			if len(left) == 0 {
				// This branch is the common part alone: the OR holds
				// whenever the common part does.
				always = true
				break
			}
			rest = append(rest, andOf(left))
		}
		if !always {
			out = append(out, &expr.BoolOp{Or: true, Args: rest})
		}
	}
	return out
}

// impliedItemFilter is, for an OR conjunct, the OR over its branches of
// each branch's conjuncts that read only the columns in local, or nil
// when a branch has none (then the OR implies nothing about the item).
func impliedItemFilter(c expr.Expr, local map[int]int) expr.Expr {
	or, ok := c.(*expr.BoolOp)
	if !ok || !or.Or || containsVolatile(c) {
		return nil
	}
	parts := make([]expr.Expr, 0, len(or.Args))
	for _, a := range or.Args {
		var mine []expr.Expr
		for _, x := range expr.Conjuncts(a) {
			if cols, ok := colsOf(x); ok && len(cols) > 0 && allIn(cols, local) {
				mine = append(mine, x)
			}
		}
		if len(mine) == 0 {
			return nil
		}
		parts = append(parts, andOf(mine))
	}
	return &expr.BoolOp{Or: true, Args: parts}
}

// indexSame is the index in es of an expression the same as e, an
// equality written either way round included, or -1.
func indexSame(es []expr.Expr, e expr.Expr) int {
	var swapped expr.Expr
	if c, ok := e.(*expr.Compare); ok && (c.Op == expr.EQ || c.Op == expr.NE) {
		swapped = &expr.Compare{Op: c.Op, L: c.R, R: c.L}
	}
	for i, x := range es {
		if sameExpr(x, e) || swapped != nil && sameExpr(x, swapped) {
			return i
		}
	}
	return -1
}

// containsVolatile reports whether e may call a volatile function, which
// must be evaluated as often as written.
func containsVolatile(e expr.Expr) bool {
	found := false
	_, ok := rewriteWith(e, func(c *expr.Col) expr.Expr { return c }, func(x expr.Expr) (expr.Expr, bool) {
		if f, ok := x.(*expr.Func); ok && expr.Volatile(f.Name) {
			found = true
		}
		return nil, false
	})
	// An expression rewriteWith cannot see into may call one.
	return found || !ok
}
