package expr

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/types"
)

// randDigits is a random value of numeric(p,s) as text, often at the
// extremes of its precision.
func randDigits(r *rand.Rand, p, s int32) string {
	n := int(p)
	if r.Intn(3) > 0 {
		n = 1 + r.Intn(int(p))
	}
	var b strings.Builder
	if r.Intn(2) == 0 {
		b.WriteByte('-')
	}
	digits := make([]byte, n)
	for i := range digits {
		digits[i] = byte('0' + r.Intn(10))
		if r.Intn(4) == 0 {
			digits[i] = '9'
		}
	}
	for len(digits) <= int(s) {
		digits = append([]byte{'0'}, digits...)
	}
	b.Write(digits[:len(digits)-int(s)])
	if s > 0 {
		b.WriteByte('.')
		b.Write(digits[len(digits)-int(s):])
	}
	return b.String()
}

func decimalColumn(t types.T, vals []string) arrow.Array {
	b := NewBuilder(t, len(vals))
	for _, v := range vals {
		if v == "" {
			b.AppendNull()
			continue
		}
		b.Append(types.Datum{T: t, S: v})
	}
	return b.Finish()
}

// TestDecimalArithMatchesText checks + - * and comparisons over scaled
// integers (int64, 128 and 256 bits) against the exact text path.
func TestDecimalArithMatchesText(t *testing.T) {
	r := rand.New(rand.NewSource(15))
	shapes := [][4]int32{{15, 2, 15, 2}, {5, 3, 15, 2}, {18, 0, 18, 18}, {30, 4, 16, 2}, {38, 10, 38, 10}, {31, 4, 16, 2}, {1, 0, 38, 38}, {38, 0, 5, 5}}
	const n = 300
	for _, sh := range shapes {
		lt := types.T{Kind: types.Numeric, Width: sh[0], Scale: sh[1]}
		rt := types.T{Kind: types.Numeric, Width: sh[2], Scale: sh[3]}
		lv, rv := make([]string, n), make([]string, n)
		for i := range lv {
			lv[i], rv[i] = randDigits(r, sh[0], sh[1]), randDigits(r, sh[2], sh[3])
		}
		lv[0] = ""
		la, ra := decimalColumn(lt, lv), decimalColumn(rt, rv)
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "l", Type: lt.Arrow()}, {Name: "r", Type: rt.Arrow()}}, nil), []arrow.Array{la, ra}, n)
		for _, op := range []ArithOp{Add, Sub, Mul} {
			ot, ok := DecimalArithType(op, lt, rt)
			if !ok {
				t.Fatalf("%v %s %v: no decimal result", lt, arithNames[op], rt)
			}
			e := &Arith{Op: op, L: &Col{Idx: 0, T: lt}, R: &Col{Idx: 1, T: rt}, T: ot}
			out, err := e.Eval(&Ctx{}, rec)
			if err != nil {
				t.Fatal(err)
			}
			if !arrow.TypeEqual(out.DataType(), ot.Arrow()) {
				t.Fatalf("%s: result is %s, want %s", e, out.DataType(), ot.Arrow())
			}
			if !out.IsNull(0) {
				t.Fatalf("%s: NULL operand gave a value", e)
			}
			for i := 1; i < n; i++ {
				want, err := numericArithDec(op, lv[i], rv[i])
				if err != nil {
					t.Fatal(err)
				}
				if got := types.DatumAt(ot, out, i).S; got != want.S {
					t.Fatalf("%s %s %s: got %s, want %s (%v)", lv[i], arithNames[op], rv[i], got, want.S, ot)
				}
			}
			out.Release()
		}
		for _, op := range []CmpOp{EQ, LT, GE} {
			got := compareArrays(op, lt, la, ra).(*array.Boolean)
			for i := 1; i < n; i++ {
				if want := op.holds(CompareNumericText(lv[i], rv[i])); got.Value(i) != want {
					t.Fatalf("%s %s %s: got %v", lv[i], op, rv[i], got.Value(i))
				}
			}
		}
	}
}

// TestDecimalTypes pins which numerics travel as scaled integers.
func TestDecimalTypes(t *testing.T) {
	money := types.T{Kind: types.Numeric, Width: 15, Scale: 2}
	for _, c := range []struct {
		op   ArithOp
		l, r types.T
		want string // Arrow type, "" for the text path
	}{
		{Mul, money, money, "decimal(30, 4)"},
		{Add, money, types.DecimalOf(1, 0), "decimal(16, 2)"},
		{Mul, types.DecimalOf(31, 4), types.DecimalOf(16, 2), "decimal256(47, 6)"},
		{Mul, types.DecimalOf(47, 6), types.DecimalOf(31, 4), ""},
		{Div, money, money, ""},
		{Add, money, types.TNumeric, ""},
	} {
		got := ""
		if ot, ok := DecimalArithType(c.op, c.l, c.r); ok {
			got = ot.Arrow().String()
		}
		if got != c.want {
			t.Errorf("%v %s %v: %q, want %q", c.l, arithNames[c.op], c.r, got, c.want)
		}
	}
	if got := money.Arrow().String(); got != "decimal(15, 2)" {
		t.Errorf("numeric(15,2) travels as %s", got)
	}
	if got := types.TNumeric.Arrow().String(); got != "utf8" {
		t.Errorf("numeric travels as %s", got)
	}
}
