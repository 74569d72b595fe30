package plan

import (
	"time"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// A plan reads its parameters' values at run time: the binder makes $n an
// expr.Param (or a paramRef while its type is open), folding leaves them
// alone, and scan pruning substitutes the values when the scan is built
// (expr.BindRun). A few clauses need a value while planning — LIMIT $1,
// FOR TIMESTAMP AS OF $1, a percentile's fraction — and evalConst notes
// those, so that the caller knows the plan holds the values of one
// execution and plans again for the next (PostgreSQL's custom plan).

// planDeps is what one statement's plan depends on besides its text and
// the catalog objects it resolved.
type planDeps struct {
	// paramValues: a parameter's value was evaluated while planning.
	paramValues bool
	// bound: the plan holds a value of its planning's moment: a
	// time-travel snapshot.
	bound bool
	// stateful: an expression plans at run time with this planner's
	// catalog and parameter types (a subquery planned again for each
	// outer row), so the plan serves one run. A subquery planned once
	// keeps its results in the execution's expr.RunState instead, and
	// does not make its plan stateful.
	stateful bool
	// access are the privileges the statement needs (access.go).
	access []Access
}

func (p *Planner) noteBound() {
	if p.deps != nil {
		p.deps.bound = true
	}
}

func (p *Planner) noteStateful() {
	if p.deps != nil {
		p.deps.stateful = true
	}
}

// readsMoment reports whether x, whose value now is d, depends on the
// statement's time (now(), current_date): evaluated as if a year, a day,
// an hour, a minute, a second and a microsecond later, it differs.
func (p *Planner) readsMoment(x expr.Expr, d types.Datum) bool {
	if p.ec == nil {
		return false
	}
	later := *p.ec
	shift := 400*24*time.Hour + time.Hour + time.Minute + time.Second + time.Microsecond
	later.Now = later.Now.Add(shift)
	if !later.Stmt.IsZero() {
		later.Stmt = later.Stmt.Add(shift)
	}
	d2, err := exec.EvalConst(&later, x)
	return err != nil || d2.Null != d.Null || types.FormatText(d2, time.UTC) != types.FormatText(d, time.UTC)
}

// evalConst evaluates e, which reads no column, while planning.
func (p *Planner) evalConst(e expr.Expr) (types.Datum, error) {
	if expr.HasParams(e) && p.deps != nil {
		p.deps.paramValues = true
	}
	if hasSubquery(e) {
		p.noteBound() // the value is the subquery's result now (LIMIT (SELECT …))
	}
	p.noteOuterValue(e)
	return exec.EvalConst(p.ec, e)
}

// describing says the statement is only being prepared: it has
// parameters, and no values for them.
func (p *Planner) describing() bool {
	return p.ec.Params == nil && len(p.ParamTypes) > 0
}

// UsesParamValues reports whether the plan holds values of the
// parameters it was planned with, so that it serves only an execution
// with those values.
func (p *Planner) UsesParamValues() bool { return p.deps != nil && p.deps.paramValues }

// Reusable reports whether the plan may serve later executions: it holds
// neither parameter values nor values of its planning's moment, and its
// expressions keep no state between runs. Its operators then read the
// execution's values from the context (Ctx), refreshed before each run.
func (p *Planner) Reusable() bool {
	return p.deps != nil && !p.deps.paramValues && !p.deps.bound && !p.deps.stateful
}

// Ctx is the evaluation context the plan's operators run with.
func (p *Planner) Ctx() *expr.Ctx { return p.ec }

// hasSubquery reports whether e holds a subquery, whose value depends on
// the tables' contents when it runs.
func hasSubquery(e expr.Expr) bool {
	found := false
	expr.Rewrite(e, func(x expr.Expr) (expr.Expr, bool) {
		if _, ok := x.(*subqueryExpr); ok {
			found = true
			return x, true
		}
		return nil, false
	})
	return found
}
