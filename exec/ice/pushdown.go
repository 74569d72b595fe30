package ice

import (
	"github.com/apache/iceberg-go"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/storage/icetable"
	"github.com/loamdb/loam/types"
)

// Pushdown turns the conjuncts of a WHERE clause that Iceberg can evaluate
// into one Iceberg filter, used to prune partitions, files and row groups.
// The full predicate still runs above the scan, so a conjunct left out only
// costs pruning, never correctness. names maps input columns to table
// column names.
func Pushdown(pred expr.Expr, names []string) iceberg.BooleanExpression {
	var parts []iceberg.BooleanExpression
	for _, c := range expr.Conjuncts(pred) {
		if e := toIceberg(c, names); e != nil {
			parts = append(parts, e)
		}
	}
	switch len(parts) {
	case 0:
		return nil
	case 1:
		return parts[0]
	}
	return iceberg.NewAnd(parts[0], parts[1], parts[2:]...)
}

func toIceberg(e expr.Expr, names []string) iceberg.BooleanExpression {
	switch x := e.(type) {
	case *expr.BoolOp:
		var parts []iceberg.BooleanExpression
		for _, a := range x.Args {
			p := toIceberg(a, names)
			if p == nil {
				return nil
			}
			parts = append(parts, p)
		}
		if len(parts) == 1 {
			return parts[0]
		}
		if x.Or {
			return iceberg.NewOr(parts[0], parts[1], parts[2:]...)
		}
		return iceberg.NewAnd(parts[0], parts[1], parts[2:]...)
	case *expr.Not:
		if p := toIceberg(x.Arg, names); p != nil {
			return iceberg.NewNot(p)
		}
	case *expr.IsNull:
		// Not on arrays: iceberg-go's evaluators take primitive columns only.
		if c, ok := x.Arg.(*expr.Col); ok && c.T.Kind != types.Array {
			if x.Negate {
				return iceberg.NotNull(iceberg.Reference(names[c.Idx]))
			}
			return iceberg.IsNull(iceberg.Reference(names[c.Idx]))
		}
	case *expr.Compare:
		col, ok1 := x.L.(*expr.Col)
		k, ok2 := expr.IsConst(x.R)
		op := x.Op
		if !ok1 || !ok2 {
			col, ok1 = x.R.(*expr.Col)
			k, ok2 = expr.IsConst(x.L)
			op = op.Flip()
		}
		if !ok1 || !ok2 || k.Null {
			return nil
		}
		return compareLit(op, iceberg.Reference(names[col.Idx]), k)
	case *expr.In:
		col, ok := x.Arg.(*expr.Col)
		if !ok || x.Negate {
			return nil
		}
		var parts []iceberg.BooleanExpression
		for _, item := range x.List {
			k, ok := expr.IsConst(item)
			if !ok || k.Null {
				return nil
			}
			p := compareLit(expr.EQ, iceberg.Reference(names[col.Idx]), k)
			if p == nil {
				return nil
			}
			parts = append(parts, p)
		}
		switch len(parts) {
		case 0:
			return nil
		case 1:
			return parts[0]
		}
		return iceberg.NewOr(parts[0], parts[1], parts[2:]...)
	}
	return nil
}

func compareLit(op expr.CmpOp, ref iceberg.Reference, k types.Datum) iceberg.BooleanExpression {
	switch k.T.Kind {
	case types.Int2, types.Int4:
		return pred(op, ref, int32(k.I))
	case types.Int8:
		return pred(op, ref, k.I)
	case types.Float8:
		return pred(op, ref, k.F)
	case types.Float4:
		return pred(op, ref, float32(k.F))
	case types.Text, types.Varchar:
		return pred(op, ref, k.S)
	case types.Bool:
		return pred(op, ref, k.I != 0)
	case types.Date:
		return pred(op, ref, iceberg.Date(k.I))
	case types.Timestamp, types.TimestampTZ:
		return timestampPred(op, ref, k.I)
	}
	return nil
}

// timestampPred is a pruning predicate on a timestamp column that keeps
// the files holding ±infinity (int64's extremes) where they match:
// iceberg-go's hour transform wraps their partition values around int32,
// so a range projected onto hour(col) would prune them. A range with an
// infinite bound is not pushed at all, for the same reason.
func timestampPred(op expr.CmpOp, ref iceberg.Reference, us int64) iceberg.BooleanExpression {
	p := pred(op, ref, iceberg.Timestamp(us))
	if op == expr.EQ || op == expr.NE {
		return p
	}
	if types.IsInfTimestamp(us) {
		return nil
	}
	inf := types.TimestampNegInf
	if op == expr.GT || op == expr.GE {
		inf = types.TimestampInf
	}
	return iceberg.NewOr(p, iceberg.EqualTo(ref, iceberg.Timestamp(inf)))
}

func pred[T iceberg.LiteralType](op expr.CmpOp, ref iceberg.Reference, v T) iceberg.BooleanExpression {
	switch op {
	case expr.EQ:
		return iceberg.EqualTo(ref, v)
	case expr.NE:
		return iceberg.NotEqualTo(ref, v)
	case expr.LT:
		return iceberg.LessThan(ref, v)
	case expr.LE:
		return iceberg.LessThanEqual(ref, v)
	case expr.GT:
		return iceberg.GreaterThan(ref, v)
	}
	return iceberg.GreaterThanEqual(ref, v)
}

// RangePreds lists the conjuncts of pred that compare a column with a
// constant, in the form Parquet row-group statistics can rule out.
func RangePreds(pred expr.Expr, names []string) []icetable.RangePred {
	var out []icetable.RangePred
	for _, c := range expr.Conjuncts(pred) {
		x, ok := c.(*expr.Compare)
		if !ok {
			continue
		}
		col, ok1 := x.L.(*expr.Col)
		k, ok2 := expr.IsConst(x.R)
		op := x.Op
		if !ok1 || !ok2 {
			col, ok1 = x.R.(*expr.Col)
			k, ok2 = expr.IsConst(x.L)
			op = op.Flip()
		}
		if !ok1 || !ok2 || k.Null || col.Idx >= len(names) || k.T.Kind != col.T.Kind {
			continue
		}
		var v any
		switch k.T.Kind {
		case types.Int2, types.Int4, types.Int8, types.Date, types.Timestamp, types.TimestampTZ:
			v = k.I
		case types.Float8:
			v = k.F
		case types.Text, types.Varchar:
			v = k.S
		default:
			continue
		}
		name := map[expr.CmpOp]string{expr.EQ: "=", expr.LT: "<", expr.LE: "<=", expr.GT: ">", expr.GE: ">="}[op]
		if name == "" {
			continue
		}
		out = append(out, icetable.RangePred{Column: names[col.Idx], Op: name, Val: v})
	}
	return out
}
