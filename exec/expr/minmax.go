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

// CompareDatums orders two non-NULL values of one type as the comparison
// operators do.
func CompareDatums(a, b types.Datum) int {
	switch a.T.Kind {
	case types.Float4, types.Float8:
		return floatCmp(a.F, b.F)
	case types.Numeric:
		return CompareNumericText(a.S, b.S)
	case types.Bool, types.Int2, types.Int4, types.Int8, types.OID, types.Date, types.Time, types.Timestamp, types.TimestampTZ:
		return cmp.Compare(a.I, b.I)
	case types.Bytea:
		return bytes.Compare(a.B, b.B)
	case types.Char:
		return strings.Compare(strings.TrimRight(a.S, " "), strings.TrimRight(b.S, " "))
	case types.JSONB:
		return CompareJSONB(a.S, b.S)
	case types.Interval:
		// By span, as the comparison operators: '2 hours' > '90 minutes'.
		return types.CmpInterval(a.Interval(), b.Interval())
	}
	return strings.Compare(a.S, b.S)
}

// MinMax is GREATEST(...) or LEAST(...): NULL arguments are ignored, the
// result is NULL only when all are.
type MinMax struct {
	Args  []Expr // coerced to T
	T     types.T
	Least bool
}

func (e *MinMax) Type() types.T { return e.T }
func (e *MinMax) String() string {
	name := "GREATEST"
	if e.Least {
		name = "LEAST"
	}
	return (&Func{Name: name, Args: e.Args}).String()
}

func (e *MinMax) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	args, err := evalAll(c, b, e.Args)
	if err != nil {
		return nil, err
	}
	defer release(args)
	return mapDatums(e.T, int(b.NumRows()), func(i int) (types.Datum, error) {
		best := types.NullOf(e.T)
		for _, a := range args {
			if a.IsNull(i) {
				continue
			}
			d := types.DatumAt(e.T, a, i)
			if best.Null {
				best = d
				continue
			}
			c := CompareDatums(d, best)
			if e.Least && c < 0 || !e.Least && c > 0 {
				best = d
			}
		}
		return best, nil
	})
}

// Distinct is `l IS [NOT] DISTINCT FROM r`: <> (or =) with NULL a value
// like any other, never NULL itself.
type Distinct struct {
	L, R Expr // of one type
	Not  bool // IS NOT DISTINCT FROM
}

func (e *Distinct) Type() types.T { return types.TBool }
func (e *Distinct) String() string {
	op := " IS DISTINCT FROM "
	if e.Not {
		op = " IS NOT DISTINCT FROM "
	}
	return "(" + e.L.String() + op + e.R.String() + ")"
}

func (e *Distinct) Eval(c *Ctx, b arrow.RecordBatch) (arrow.Array, error) {
	args, err := evalAll(c, b, []Expr{e.L, e.R})
	if err != nil {
		return nil, err
	}
	defer release(args)
	l, r := args[0], args[1]
	ne := compareArrays(NE, e.L.Type(), l, r)
	defer ne.Release()
	neb := ne.(*array.Boolean)
	n := l.Len()
	bld := array.NewBooleanBuilder(memory.DefaultAllocator)
	bld.Reserve(n)
	for i := 0; i < n; i++ {
		var d bool
		switch ln, rn := l.IsNull(i), r.IsNull(i); {
		case ln || rn:
			d = ln != rn
		default:
			d = neb.Value(i)
		}
		bld.Append(d != e.Not)
	}
	return bld.NewArray(), nil
}
