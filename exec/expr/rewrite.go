package expr

// Rewrite copies e, replacing each subexpression for which f answers true
// by f's result before looking into it. Expressions of a shape it does not
// know (subqueries, aggregates' internals) are kept as they are; their
// parts are not visited.
func Rewrite(e Expr, f func(Expr) (Expr, bool)) Expr {
	var rw func(e Expr) Expr
	list := func(es []Expr) []Expr {
		out := make([]Expr, len(es))
		for i, x := range es {
			out[i] = rw(x)
		}
		return out
	}
	rw = func(e Expr) Expr {
		if e == nil {
			return nil
		}
		if r, ok := f(e); ok {
			return r
		}
		switch x := e.(type) {
		case *Compare:
			return &Compare{Op: x.Op, L: rw(x.L), R: rw(x.R)}
		case *Arith:
			return &Arith{Op: x.Op, L: rw(x.L), R: rw(x.R), T: x.T}
		case *BoolOp:
			return &BoolOp{Or: x.Or, Args: list(x.Args)}
		case *Not:
			return &Not{Arg: rw(x.Arg)}
		case *IsNull:
			return &IsNull{Arg: rw(x.Arg), Negate: x.Negate}
		case *IsBool:
			return &IsBool{Arg: rw(x.Arg), Value: x.Value, Negate: x.Negate}
		case *In:
			return &In{Arg: rw(x.Arg), List: list(x.List), Negate: x.Negate}
		case *Like:
			l, err := NewLike(rw(x.Arg), rw(x.Pattern), x.Fold, x.Negate)
			if err != nil {
				return x // a bad pattern fails when evaluated, as before
			}
			return l
		case *Func:
			return &Func{Name: x.Name, Args: list(x.Args), T: x.T, Strict: x.Strict, Fn: x.Fn, Vec: x.Vec}
		case *TimeArith:
			return &TimeArith{Op: x.Op, L: rw(x.L), R: rw(x.R), T: x.T}
		case *IntervalNeg:
			return &IntervalNeg{Arg: rw(x.Arg)}
		case *RegexMatch:
			m, err := NewRegexMatch(rw(x.Arg), rw(x.Pattern), x.Fold, x.Negate)
			if err != nil {
				return x
			}
			return m
		case *MinMax:
			return &MinMax{Args: list(x.Args), T: x.T, Least: x.Least}
		case *Distinct:
			return &Distinct{L: rw(x.L), R: rw(x.R), Not: x.Not}
		case *Coalesce:
			return &Coalesce{Args: list(x.Args), T: x.T}
		case *Case:
			return &Case{Whens: list(x.Whens), Thens: list(x.Thens), Else: rw(x.Else), T: x.T}
		case *Cast:
			return &Cast{Arg: rw(x.Arg), T: x.T}
		case *FloorDiv:
			return &FloorDiv{L: rw(x.L), R: rw(x.R), Orig: rw(x.Orig), Times: x.Times, EpochOf: rw(x.EpochOf)}
		case *Neg:
			return &Neg{Arg: rw(x.Arg)}
		}
		return e
	}
	return rw(e)
}
