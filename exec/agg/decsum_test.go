package agg

import (
	"math/big"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// TestDecimalAggregates: sum, avg, min and max over decimal columns are
// exact, including sums past 128 and 256 bits, and match the text path.
func TestDecimalAggregates(t *testing.T) {
	nines := strings.Repeat("9", 38)
	wide := types.DecimalOf(76, 0)
	for _, c := range []struct {
		t    types.T
		vals []string
	}{
		{types.T{Kind: types.Numeric, Width: 15, Scale: 2}, []string{"0.01", "-3.35", "", "9999999999999.99", "1.10"}},
		{types.T{Kind: types.Numeric, Width: 38, Scale: 0}, []string{nines, nines, nines, "-1", ""}},
		{types.T{Kind: types.Numeric, Width: 38, Scale: 0}, []string{"-" + nines, "-" + nines, "5"}},
		{wide, []string{nines + nines, nines + nines, "-" + nines + nines, nines + nines, nines + nines}},
		{types.T{Kind: types.Numeric, Width: 5, Scale: 5}, []string{"", ""}},
	} {
		arg := decimalCol(c.t, c.vals)
		text := decimalCol(types.TNumeric, c.vals)
		gids := make([]int32, len(c.vals))
		for _, fn := range []Func{Sum, Avg, Min, Max} {
			if c.t == wide && (fn == Min || fn == Max) {
				continue
			}
			rt, _ := ResultType(fn, c.t)
			got := runState(t, Agg{Fn: fn, Arg: &expr.Col{T: c.t}, T: rt}, arg, gids)
			trt, _ := ResultType(fn, types.TNumeric)
			want := runState(t, Agg{Fn: fn, Arg: &expr.Col{T: types.TNumeric}, T: trt}, text, gids)
			if got != want {
				t.Errorf("%v of %v %v: %s, want %s", fn, c.t, c.vals, got, want)
			}
		}
		if c.t.Width == 38 && c.vals[2] == nines {
			var want big.Int
			want.SetString(nines, 10)
			want.Mul(&want, big.NewInt(3))
			want.Sub(&want, big.NewInt(1))
			rt, _ := ResultType(Sum, c.t)
			if got := runState(t, Agg{Fn: Sum, Arg: &expr.Col{T: c.t}, T: rt}, arg, gids); got != want.String() {
				t.Errorf("sum past 128 bits: %s, want %s", got, want.String())
			}
		}
	}
}

func decimalCol(t types.T, vals []string) arrow.Array {
	b := expr.NewBuilder(t, len(vals))
	for _, v := range vals {
		if v == "" {
			b.AppendNull()
		} else {
			b.Append(types.Datum{T: t, S: v})
		}
	}
	return b.Finish()
}

func runState(t *testing.T, a Agg, arg arrow.Array, gids []int32) string {
	s := newState(a, nil)
	s.grow(1)
	s.update(gids, arg, nil)
	out, err := s.finish()
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	d := types.DatumAt(a.T, out, 0)
	if d.Null {
		return "NULL"
	}
	return types.FormatText(d, nil)
}
