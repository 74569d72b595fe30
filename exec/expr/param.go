package expr

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/types"
)

// Param is $N of type T, read from the execution's bound values
// (Ctx.Params) when evaluated, so that a plan does not depend on them and
// one plan serves every execution of a prepared statement.
type Param struct {
	N int // 1-based
	T types.T
}

// ParamRef is an expression that stands for a parameter: Param, or the
// planner's not-yet-typed parameter. BindRun replaces any of them.
type ParamRef interface {
	Expr
	ParamIndex() int // 1-based
}

func (e *Param) Type() types.T   { return e.T }
func (e *Param) String() string  { return "$" + strconv.Itoa(e.N) }
func (e *Param) ParamIndex() int { return e.N }
func (e *Param) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	d, err := ParamValue(c, e.N, e.T)
	if err != nil {
		return nil, err
	}
	return Repeat(d, int(b.NumRows())), nil
}

// ParamValue is the value of $n as type t: NULL when the execution bound
// none (a statement being described), converted when the value came in
// another type (an untyped text value, an EXECUTE argument).
func ParamValue(c *Ctx, n int, t types.T) (types.Datum, error) {
	if t.Kind == types.Unknown {
		t = types.TText
	}
	if c == nil || n > len(c.Params) {
		return types.NullOf(t), nil
	}
	d := c.Params[n-1]
	if d.Null {
		return types.NullOf(t), nil
	}
	if d.T.Kind == types.Unknown {
		d.T = types.TText
	}
	if d.T.Kind != t.Kind || d.T.Elem != t.Elem {
		v, err := CastDatum(d, t, c.Loc)
		if err != nil {
			return types.Datum{}, err
		}
		return v, nil
	}
	return d, nil
}

// HasParams reports whether e holds a parameter in the parts Rewrite
// sees.
func HasParams(e Expr) bool {
	found := false
	Rewrite(e, func(x Expr) (Expr, bool) {
		if _, ok := x.(ParamRef); ok {
			found = true
			return x, true
		}
		return nil, false
	})
	return found
}

// BindRun returns e with each parameter it can see replaced by a constant
// of its value in c, and each part that reads no column and calls nothing
// volatile evaluated in c: `id = $1` and `ts >= now() - interval '1 day'`
// become comparisons with this run's constants, which scan pruning needs.
// The planner leaves such parts unfolded so that a kept plan computes them
// anew at each execution. Parts Rewrite cannot see into are kept; their
// parameters read c when evaluated.
func BindRun(e Expr, c *Ctx) Expr {
	if e == nil || c == nil {
		return e
	}
	// Outer references to the rows c holds are this run's constants too;
	// one whose row c lacks (a plan shown, not run) stays, and a part
	// holding it is not evaluated (it would read NULL).
	e = BindOuter(e, c)
	return Rewrite(e, func(x Expr) (Expr, bool) {
		switch x := x.(type) {
		case *Col, *Const, *OuterRef:
			return x, true
		case ParamRef:
			d, err := ParamValue(c, x.ParamIndex(), x.Type())
			if err != nil {
				return x, true // evaluation reports it
			}
			return &Const{D: d}, true
		}
		if !runConstant(x) {
			return nil, false
		}
		d, err := evalOne(c, x)
		if err != nil {
			return nil, false // it may not be reached when the rows are read
		}
		return &Const{D: d}, true
	})
}

// runConstant reports whether e is the same for every row of one run:
// no column, nothing Rewrite cannot see into, nothing volatile.
func runConstant(e Expr) bool {
	ok := true
	Rewrite(e, func(x Expr) (Expr, bool) {
		switch x.(type) {
		case *Col:
			ok = false
		case *Func:
			if Volatile(x.(*Func).Name) {
				ok = false
			}
		case *Const, ParamRef, *Compare, *Arith, *BoolOp, *Not, *IsNull, *IsBool, *In, *Like,
			*TimeArith, *IntervalNeg, *RegexMatch, *MinMax, *Distinct, *Coalesce, *Case, *Cast, *FloorDiv, *Neg:
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

// Volatile reports whether a function may give another value each call,
// or acts on the session: it is never evaluated ahead of its rows.
func Volatile(name string) bool {
	switch name {
	case "random", "clock_timestamp", "timeofday", "gen_random_uuid", "nextval", "setval", "currval", "lastval",
		"pg_sleep", "set_config", "current_setting":
		return true
	}
	return false
}

// evalOne evaluates e, which reads no column, on one row.
func evalOne(c *Ctx, e Expr) (types.Datum, error) {
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	a, err := e.Eval(c, one)
	if err != nil {
		return types.Datum{}, err
	}
	defer a.Release()
	return types.DatumAt(e.Type(), a, 0), nil
}
