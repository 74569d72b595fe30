// Package agg holds aggregate functions and the hash aggregation operator.
package agg

import (
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/types"
	"github.com/loamdb/loam/pgerr"
)

// Func is an aggregate function.
type Func uint8

const (
	CountStar Func = iota
	Count
	Sum
	Avg
	Min
	Max
)

var funcNames = [...]string{CountStar: "count", Count: "count", Sum: "sum", Avg: "avg", Min: "min", Max: "max"}

func (f Func) String() string { return funcNames[f] }

// Lookup finds an aggregate by name; ok is false for non-aggregates.
func Lookup(name string) (Func, bool) {
	switch name {
	case "count":
		return Count, true
	case "sum":
		return Sum, true
	case "avg":
		return Avg, true
	case "min":
		return Min, true
	case "max":
		return Max, true
	}
	return 0, false
}

// Agg is one aggregate call of a GROUP BY.
type Agg struct {
	Fn  Func
	Arg expr.Expr // nil for count(*)
	T   types.T   // result type
}

func (a Agg) String() string {
	if a.Arg == nil {
		return "count(*)"
	}
	return a.Fn.String() + "(" + a.Arg.String() + ")"
}

// ResultType is the type PostgreSQL gives fn over an argument of type arg.
func ResultType(fn Func, arg types.T) (types.T, error) {
	bad := func() (types.T, error) {
		return types.T{}, pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", fn, arg)
	}
	switch fn {
	case CountStar, Count:
		return types.TInt8, nil
	case Sum:
		switch arg.Kind {
		case types.Int2, types.Int4:
			return types.TInt8, nil
		case types.Int8, types.Numeric:
			return types.TNumeric, nil
		case types.Float4, types.Float8:
			return types.Of(arg.Kind), nil
		}
		return bad()
	case Avg:
		switch arg.Kind {
		case types.Int2, types.Int4, types.Int8, types.Numeric:
			return types.TNumeric, nil
		case types.Float4, types.Float8:
			return types.TFloat8, nil
		}
		return bad()
	case Min, Max:
		switch arg.Kind {
		case types.Bool, types.Bytea, types.JSON, types.Unknown:
			return bad()
		}
		return arg, nil
	}
	return bad()
}
