package expr

import (
	"bytes"
	"cmp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// CmpOp is a comparison operator.
type CmpOp uint8

const (
	EQ CmpOp = iota
	NE
	LT
	LE
	GT
	GE
)

var cmpNames = [...]string{EQ: "=", NE: "<>", LT: "<", LE: "<=", GT: ">", GE: ">="}

func (o CmpOp) String() string { return cmpNames[o] }

// Flip returns the operator with its operands swapped (a < b ⇔ b > a).
func (o CmpOp) Flip() CmpOp {
	switch o {
	case LT:
		return GT
	case LE:
		return GE
	case GT:
		return LT
	case GE:
		return LE
	}
	return o
}

func (o CmpOp) holds(c int) bool {
	switch o {
	case EQ:
		return c == 0
	case NE:
		return c != 0
	case LT:
		return c < 0
	case LE:
		return c <= 0
	case GT:
		return c > 0
	}
	return c >= 0
}

// Compare compares two operands of one type (the planner coerces them).
type Compare struct {
	Op   CmpOp
	L, R Expr
}

func (e *Compare) Type() types.T { return types.TBool }
func (e *Compare) String() string {
	return "(" + e.L.String() + " " + e.Op.String() + " " + e.R.String() + ")"
}

func (e *Compare) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	args, err := evalAll(c, b, []Expr{e.L, e.R})
	if err != nil {
		return nil, err
	}
	defer release(args)
	return compareArrays(e.Op, e.L.Type(), args[0], args[1]), nil
}

func compareArrays(op CmpOp, t types.T, l, r arrow.Array) arrow.Array {
	n := l.Len()
	out := make([]bool, n)
	switch t.Kind {
	case types.Int2:
		cmpFixed(op, arrow.GetValues[int16](l.Data(), 1), arrow.GetValues[int16](r.Data(), 1), out)
	case types.Int4, types.Date:
		cmpFixed(op, arrow.GetValues[int32](l.Data(), 1), arrow.GetValues[int32](r.Data(), 1), out)
	case types.Int8, types.OID, types.Time, types.Timestamp, types.TimestampTZ:
		cmpFixed(op, arrow.GetValues[int64](l.Data(), 1), arrow.GetValues[int64](r.Data(), 1), out)
	case types.Float4:
		cmpFloat(op, arrow.GetValues[float32](l.Data(), 1), arrow.GetValues[float32](r.Data(), 1), out)
	case types.Float8:
		cmpFloat(op, arrow.GetValues[float64](l.Data(), 1), arrow.GetValues[float64](r.Data(), 1), out)
	case types.Bool:
		la, ra := l.(*array.Boolean), r.(*array.Boolean)
		for i := range out {
			out[i] = op.holds(cmpBool(la.Value(i), ra.Value(i)))
		}
	case types.Bytea:
		la, ra := l.(*array.Binary), r.(*array.Binary)
		for i := range out {
			out[i] = op.holds(bytes.Compare(la.Value(i), ra.Value(i)))
		}
	case types.Numeric:
		compareNumeric(op, l, r, out)
	case types.Interval:
		// Intervals compare by span, a month as 30 days: '1 day' = '24 hours'.
		lv := arrow.GetValues[arrow.MonthDayNanoInterval](l.Data(), 1)
		rv := arrow.GetValues[arrow.MonthDayNanoInterval](r.Data(), 1)
		for i := range out {
			out[i] = op.holds(types.CmpInterval(types.IntervalFromArrow(lv[i]), types.IntervalFromArrow(rv[i])))
		}
	case types.JSONB:
		// jsonb orders as PostgreSQL's btree does (9 < 10, 1.0 = 1).
		if compareJSONBArrays(op, l, r, out) {
			break
		}
		la, ra := l.(*array.String), r.(*array.String)
		for i := range out {
			if la.IsNull(i) || ra.IsNull(i) {
				continue
			}
			out[i] = op.holds(CompareJSONB(la.Value(i), ra.Value(i)))
		}
	case types.Char:
		la, ra := l.(*array.String), r.(*array.String)
		for i := range out {
			out[i] = op.holds(strings.Compare(strings.TrimRight(la.Value(i), " "), strings.TrimRight(ra.Value(i), " ")))
		}
	default:
		la, ra := l.(*array.String), r.(*array.String)
		for i := range out {
			out[i] = op.holds(strings.Compare(la.Value(i), ra.Value(i)))
		}
	}
	return boolArray(out, l, r)
}

func cmpFixed[T int16 | int32 | int64](op CmpOp, l, r []T, out []bool) {
	switch op {
	case EQ:
		for i := range out {
			out[i] = l[i] == r[i]
		}
	case NE:
		for i := range out {
			out[i] = l[i] != r[i]
		}
	case LT:
		for i := range out {
			out[i] = l[i] < r[i]
		}
	case LE:
		for i := range out {
			out[i] = l[i] <= r[i]
		}
	case GT:
		for i := range out {
			out[i] = l[i] > r[i]
		}
	case GE:
		for i := range out {
			out[i] = l[i] >= r[i]
		}
	}
}

// cmpFloat orders NaN above every other value and equal to itself, as
// PostgreSQL does.
func cmpFloat[T float32 | float64](op CmpOp, l, r []T, out []bool) {
	for i := range out {
		out[i] = op.holds(floatCmp(l[i], r[i]))
	}
}

func floatCmp[T float32 | float64](a, b T) int {
	aNaN, bNaN := a != a, b != b
	switch {
	case aNaN && bNaN:
		return 0
	case aNaN:
		return 1
	case bNaN:
		return -1
	}
	return cmp.Compare(a, b)
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// CompareNumericText compares two numeric values in their text form.
func CompareNumericText(a, b string) int {
	da, err1 := types.ParseDec(a)
	db, err2 := types.ParseDec(b)
	if err1 != nil || err2 != nil {
		return strings.Compare(a, b)
	}
	return da.Cmp(&db)
}

// boolArray wraps results with the validity of the inputs: NULL where any
// input is NULL.
func boolArray(vals []bool, inputs ...arrow.Array) arrow.Array {
	var valid []bool
	for _, in := range inputs {
		if in.NullN() == 0 {
			continue
		}
		if valid == nil {
			valid = make([]bool, len(vals))
			for i := range valid {
				valid[i] = true
			}
		}
		for i := range valid {
			if in.IsNull(i) {
				valid[i] = false
			}
		}
	}
	bld := array.NewBooleanBuilder(memory.DefaultAllocator)
	bld.AppendValues(vals, valid)
	return bld.NewArray()
}
