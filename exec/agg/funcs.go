// Package agg holds aggregate functions and the hash aggregation operator.
package agg

import (
	"strings"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
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
	StddevSamp
	StddevPop
	VarSamp
	VarPop
	BoolAnd
	BoolOr
	StringAgg
	ArrayAgg
	PercentileCont
	PercentileDisc
	Mode
	// ApproxPercentile and ApproxCountDistinct are not PostgreSQL's: they
	// follow DuckDB/Trino (approx_quantile(x, q), approx_count_distinct(x)).
	ApproxPercentile
	ApproxCountDistinct
	// GroupValue is not callable: it is a column that the GROUP BY
	// determines without listing it (a column of a table whose primary
	// key is grouped), the value of the group's first row.
	GroupValue
	// JSONAgg and the rest build json/jsonb from a group's rows:
	// json_agg(x), jsonb_agg(x), json_object_agg(k, v), jsonb_object_agg(k, v).
	JSONAgg
	JSONBAgg
	JSONObjectAgg
	JSONBObjectAgg
)

var funcNames = [...]string{CountStar: "count", Count: "count", Sum: "sum", Avg: "avg", Min: "min", Max: "max",
	StddevSamp: "stddev_samp", StddevPop: "stddev_pop", VarSamp: "var_samp", VarPop: "var_pop",
	BoolAnd: "bool_and", BoolOr: "bool_or", StringAgg: "string_agg", ArrayAgg: "array_agg",
	PercentileCont: "percentile_cont", PercentileDisc: "percentile_disc", Mode: "mode",
	ApproxPercentile: "approx_percentile", ApproxCountDistinct: "approx_count_distinct", GroupValue: "group_value",
	JSONAgg: "json_agg", JSONBAgg: "jsonb_agg", JSONObjectAgg: "json_object_agg", JSONBObjectAgg: "jsonb_object_agg"}

func (f Func) String() string { return funcNames[f] }

var lookup = map[string]Func{
	"count": Count, "sum": Sum, "avg": Avg, "min": Min, "max": Max,
	"stddev": StddevSamp, "stddev_samp": StddevSamp, "stddev_pop": StddevPop,
	"variance": VarSamp, "var_samp": VarSamp, "var_pop": VarPop,
	"bool_and": BoolAnd, "every": BoolAnd, "bool_or": BoolOr,
	"string_agg": StringAgg, "array_agg": ArrayAgg,
	"percentile_cont": PercentileCont, "percentile_disc": PercentileDisc, "mode": Mode,
	"approx_percentile": ApproxPercentile, "approx_quantile": ApproxPercentile,
	"approx_count_distinct": ApproxCountDistinct,
	"json_agg":              JSONAgg, "jsonb_agg": JSONBAgg, "json_object_agg": JSONObjectAgg, "jsonb_object_agg": JSONBObjectAgg,
}

// Lookup finds an aggregate by name; ok is false for non-aggregates.
func Lookup(name string) (Func, bool) {
	f, ok := lookup[name]
	return f, ok
}

// Collects reports whether f keeps a group's rows and so depends on their
// order (ORDER BY inside the call matters).
func (f Func) Collects() bool {
	switch f {
	case StringAgg, ArrayAgg, JSONAgg, JSONBAgg, JSONObjectAgg, JSONBObjectAgg:
		return true
	}
	return false
}

// TwoArgs reports whether f takes a second argument (Arg2).
func (f Func) TwoArgs() bool {
	return f == StringAgg || f == JSONObjectAgg || f == JSONBObjectAgg
}

// MultiFrac reports whether a is percentile_*(float8[]), whose result is
// an array.
func (a Agg) MultiFrac() bool {
	if a.Arg2 != nil && a.Fn.OrderedSet() {
		return a.Arg2.Type().Kind == types.Array
	}
	return a.Frac.T.Kind == types.Array
}

// OrderedSet reports whether f takes WITHIN GROUP (ORDER BY x).
func (f Func) OrderedSet() bool { return f == PercentileCont || f == PercentileDisc || f == Mode }

// Order is one ORDER BY key inside an aggregate call.
type Order struct {
	Expr             expr.Expr
	Desc, NullsFirst bool
}

// Agg is one aggregate call of a GROUP BY.
type Agg struct {
	Fn  Func
	Arg expr.Expr // nil for count(*) and mode(); the sorted value of WITHIN GROUP
	// Arg2 is string_agg's delimiter, json_object_agg's value, or
	// percentile_*'s fraction when it uses grouped columns (evaluated per
	// row; see fractions).
	Arg2 expr.Expr
	// Frac is the constant fraction of percentile_* and approx_percentile,
	// a float8, or for percentile_*(ARRAY[…]) a float8[] with one result
	// per element (NULL gives a NULL result).
	Frac     types.Datum
	Distinct bool
	Filter   expr.Expr // FILTER (WHERE ...), nil without one
	Order    []Order   // ORDER BY inside the call (string_agg, array_agg)
	Desc     bool      // WITHIN GROUP (ORDER BY x DESC)
	T        types.T   // result type
}

// String identifies the call: equal strings compute one aggregate once.
func (a Agg) String() string {
	var b strings.Builder
	b.WriteString(a.Fn.String())
	b.WriteByte('(')
	if a.Fn.OrderedSet() {
		switch {
		case a.Fn == Mode:
		case a.Arg2 != nil:
			b.WriteString(a.Arg2.String())
		case a.Frac.T.Kind == types.Array && !a.Frac.Null:
			b.WriteString("'" + a.Frac.S + "'::float8[]")
		case !a.Frac.Null:
			b.WriteString(types.FormatText(a.Frac, nil))
		}
	} else {
		if a.Distinct {
			b.WriteString("DISTINCT ")
		}
		if a.Arg == nil {
			b.WriteByte('*')
		} else {
			b.WriteString(a.Arg.String())
		}
		if a.Arg2 != nil {
			b.WriteString(", " + a.Arg2.String())
		}
		if a.Fn == ApproxPercentile {
			b.WriteString(", " + types.FormatText(a.Frac, nil))
		}
		for i, o := range a.Order {
			if i == 0 {
				b.WriteString(" ORDER BY ")
			} else {
				b.WriteString(", ")
			}
			b.WriteString(o.Expr.String())
			if o.Desc {
				b.WriteString(" DESC")
			}
			switch {
			case o.NullsFirst && !o.Desc:
				b.WriteString(" NULLS FIRST")
			case !o.NullsFirst && o.Desc:
				b.WriteString(" NULLS LAST")
			}
		}
	}
	b.WriteByte(')')
	if a.Fn.OrderedSet() {
		b.WriteString(" WITHIN GROUP (ORDER BY ")
		if a.Arg != nil {
			b.WriteString(a.Arg.String())
		}
		if a.Desc {
			b.WriteString(" DESC")
		}
		b.WriteByte(')')
	}
	if a.Filter != nil {
		b.WriteString(" FILTER (WHERE " + a.Filter.String() + ")")
	}
	return b.String()
}

// ResultType is the type PostgreSQL gives fn over an argument of type arg;
// ok is false where PostgreSQL has no such aggregate (42883).
func ResultType(fn Func, arg types.T) (types.T, bool) {
	switch fn {
	case CountStar, Count, ApproxCountDistinct:
		return types.TInt8, true
	case Sum:
		switch arg.Kind {
		case types.Int2, types.Int4:
			return types.TInt8, true
		case types.Int8, types.Numeric:
			return types.TNumeric, true
		case types.Float4, types.Float8:
			return types.Of(arg.Kind), true
		case types.Interval:
			return types.TInterval, true
		}
	case Avg:
		if arg.Kind == types.Interval {
			return types.TInterval, true
		}
		fallthrough
	case StddevSamp, StddevPop, VarSamp, VarPop:
		switch arg.Kind {
		case types.Int2, types.Int4, types.Int8, types.Numeric:
			return types.TNumeric, true
		case types.Float4, types.Float8:
			return types.TFloat8, true
		}
	case Min, Max:
		switch arg.Kind {
		case types.Bool, types.Bytea, types.JSON, types.JSONB, types.Unknown, types.Array:
			return types.T{}, false
		}
		return arg, true
	case BoolAnd, BoolOr:
		if arg.Kind == types.Bool {
			return types.TBool, true
		}
	case StringAgg:
		if arg.IsString() {
			return types.TText, true
		}
	case ArrayAgg:
		if arg.Kind != types.Array && arg.Kind != types.Unknown {
			return types.ArrayOf(arg.Kind), true
		}
	case JSONAgg, JSONObjectAgg:
		if arg.Kind != types.Unknown {
			return types.TJSON, true
		}
	case JSONBAgg, JSONBObjectAgg:
		if arg.Kind != types.Unknown {
			return types.TJSONB, true
		}
	case PercentileCont:
		if arg.Kind == types.Float8 || arg.Kind == types.Interval {
			return types.Of(arg.Kind), true
		}
	case PercentileDisc, Mode:
		switch arg.Kind {
		case types.JSON, types.Unknown, types.Array:
			return types.T{}, false
		}
		return arg, true
	case ApproxPercentile:
		if arg.IsNumeric() {
			return types.TFloat8, true
		}
	}
	return types.T{}, false
}

// fracError is percentile_*'s complaint about a fraction outside [0, 1].
func fracError(f float64) error {
	return pgerr.New(pgerr.NumericValueOutOfRange, "percentile value %s is not between 0 and 1", types.FormatFloat8(f))
}

// CheckFrac validates a percentile fraction as PostgreSQL does.
func CheckFrac(d types.Datum) error {
	if d.Null {
		return nil
	}
	if d.F < 0 || d.F > 1 || d.F != d.F {
		return fracError(d.F)
	}
	return nil
}
