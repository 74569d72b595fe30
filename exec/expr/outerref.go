package expr

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/types"
)

// A correlated subquery or a LATERAL item is planned once, as
// PostgreSQL's SubPlan with parameters is: a reference to a column of an
// enclosing query is an OuterRef, which reads the value of the row that
// query is positioned on from the execution context when evaluated. The
// operator that runs the inner plan for an outer row (the subquery's
// evaluation, the apply) pushes that row as an OuterRow for as long as
// the inner plan is built and run, and pops it after.

// OuterRow is one enclosing query's current row. Rows chain outwards, so
// a subquery nested two levels deep reads both its parents' rows.
type OuterRow struct {
	ID     int // the frame: which enclosing query's row this is
	Vals   []types.Datum
	Parent *OuterRow
}

// Push returns the chain with vals as frame id's row in front of r.
func (r *OuterRow) Push(id int, vals []types.Datum) *OuterRow {
	return &OuterRow{ID: id, Vals: vals, Parent: r}
}

var frames atomic.Int64

// NewFrame is a frame id no other enclosing query of any plan has. Frames
// are found by id rather than by depth, so that a chain may hold rows the
// reference does not care about (an apply inside a subquery) without the
// depth arithmetic having to match the planner's scopes exactly.
func NewFrame() int { return int(frames.Add(1)) }

// OuterRef is column Idx of frame Frame's current row.
type OuterRef struct {
	Frame int
	Idx   int
	T     types.T
	Name  string // the column as written, for String
}

func (e *OuterRef) Type() types.T { return e.T }

// String marks the reference as the outer query's, so that it never
// matches an expression of the subquery's own columns by text (GROUP BY
// keys are matched by String).
func (e *OuterRef) String() string { return "outer." + e.Name }

func (e *OuterRef) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	d, _ := OuterValue(c, e)
	return Repeat(d, int(b.NumRows())), nil
}

// OuterValue is the value e reads in c; ok is false, and the value NULL,
// when c holds no row of e's frame (a plan being made or described).
func OuterValue(c *Ctx, e *OuterRef) (d types.Datum, ok bool) {
	if c != nil {
		for r := c.Outer; r != nil; r = r.Parent {
			if r.ID == e.Frame {
				if e.Idx < len(r.Vals) {
					return r.Vals[e.Idx], true
				}
				break
			}
		}
	}
	return types.NullOf(e.T), false
}

// HasOuterRefs reports whether e holds an outer reference in the parts
// Rewrite sees.
func HasOuterRefs(e Expr) bool {
	found := false
	Rewrite(e, func(x Expr) (Expr, bool) {
		if _, ok := x.(*OuterRef); ok {
			found = true
			return x, true
		}
		return nil, false
	})
	return found
}

// BindOuter returns e with each outer reference whose row c holds
// replaced by a constant of its value, as BindParams does for parameters.
func BindOuter(e Expr, c *Ctx) Expr {
	if e == nil || c == nil || c.Outer == nil || !HasOuterRefs(e) {
		return e
	}
	return Rewrite(e, func(x Expr) (Expr, bool) {
		o, ok := x.(*OuterRef)
		if !ok {
			return nil, false
		}
		if d, ok := OuterValue(c, o); ok {
			return &Const{D: d}, true
		}
		return x, true
	})
}
