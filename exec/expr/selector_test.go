package expr

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/types"
)

// selBatch is a batch of n random rows of every type with a kernel (and a
// few without), a sixth of them NULL, with repeats, NaN and -0.
func selBatch(n int, seed int64) (arrow.RecordBatch, []types.T) {
	rng := rand.New(rand.NewSource(seed))
	ts := []types.T{types.TInt2, types.TInt4, types.TInt8, types.TFloat4, types.TFloat8, types.TText,
		types.TDate, types.TTimestamp, types.TBool, types.TNumeric, types.Of(types.Varchar)}
	fields := make([]arrow.Field, len(ts))
	cols := make([]arrow.Array, len(ts))
	for c, t := range ts {
		fields[c] = arrow.Field{Name: fmt.Sprint("c", c), Type: t.Arrow(), Nullable: true}
		b := NewBuilder(t, n)
		for r := 0; r < n; r++ {
			b.Append(selValue(rng, t, rng.Intn(6) == 0))
		}
		cols[c] = b.Finish()
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec, ts
}

func selValue(rng *rand.Rand, t types.T, null bool) types.Datum {
	if null {
		return types.NullOf(t)
	}
	v := int64(rng.Intn(7) - 3)
	switch t.Kind {
	case types.Float4, types.Float8:
		f := float64(v) / 2
		switch rng.Intn(10) {
		case 0:
			f = math.NaN()
		case 1:
			f = math.Copysign(0, -1)
		}
		return types.Datum{T: t, F: f}
	case types.Text, types.Varchar:
		return types.Datum{T: t, S: []string{"", "a", "ab", "b", "t007", "t0070", "B"}[v+3]}
	case types.Numeric:
		return types.Datum{T: t, S: fmt.Sprint(v, ".0")}
	case types.Bool:
		return types.BoolDatum(v > 0)
	}
	return types.Int(t, v)
}

// TestSelector checks every compiled predicate against Eval, the
// column-at-a-time evaluation, over all rows and under selections.
func TestSelector(t *testing.T) {
	rec, ts := selBatch(1000, 1)
	defer rec.Release()
	rng := rand.New(rand.NewSource(2))
	col := func(i int) Expr { return &Col{Idx: i, T: ts[i]} }
	var preds []Expr
	for i, ct := range ts {
		for op := EQ; op <= GE; op++ {
			for k := 0; k < 3; k++ {
				c := &Const{D: selValue(rng, ct, k == 2 && i%2 == 0)}
				preds = append(preds, &Compare{Op: op, L: col(i), R: c}, &Compare{Op: op, L: c, R: col(i)},
					&Not{Arg: &Compare{Op: op, L: col(i), R: c}})
			}
		}
		preds = append(preds, &IsNull{Arg: col(i)}, &IsNull{Arg: col(i), Negate: true},
			&Not{Arg: &IsNull{Arg: col(i)}})
	}
	nan := &Const{D: types.Float8Datum(math.NaN())}
	preds = append(preds,
		&Compare{Op: GT, L: col(4), R: nan}, &Compare{Op: EQ, L: col(4), R: nan},
		&Compare{Op: EQ, L: col(5), R: &Const{D: types.Datum{T: types.Of(types.Varchar), S: "ab"}}},
		col(8), &Const{D: types.BoolDatum(true)}, &Const{D: types.BoolDatum(false)}, &Const{D: types.NullOf(types.TBool)},
		&Compare{Op: LT, L: col(5), R: col(10)}, // no kernel: evaluated
	)
	n := len(preds)
	for i := 0; i < 60; i++ {
		a, b, c := preds[rng.Intn(n)], preds[rng.Intn(n)], preds[rng.Intn(n)]
		preds = append(preds, &BoolOp{Args: []Expr{a, b}}, &BoolOp{Or: true, Args: []Expr{a, b, c}},
			&BoolOp{Args: []Expr{a, &BoolOp{Or: true, Args: []Expr{b, c}}}},
			&BoolOp{Or: true, Args: []Expr{&BoolOp{Args: []Expr{a, b}}, c}})
	}
	ec := &Ctx{Loc: time.UTC}
	// The batch, and a slice of it (values read from an offset).
	sliced := rec.NewSlice(13, 1000)
	defer sliced.Release()
	for _, b := range []arrow.RecordBatch{rec, sliced} {
		n := int(b.NumRows())
		sels := [][]int32{nil, {}, {0}, {int32(n - 1)}}
		for _, keep := range []int{2, 10, 90} {
			var s []int32
			for r := 0; r < n; r++ {
				if rng.Intn(100) < keep {
					s = append(s, int32(r))
				}
			}
			sels = append(sels, s)
		}
		for _, p := range preds {
			checkSelector(t, ec, b, p, sels)
		}
	}
}

// checkSelector compares p's selections of b with the rows where Eval
// gives TRUE.
func checkSelector(t *testing.T, ec *Ctx, b arrow.RecordBatch, p Expr, sels [][]int32) {
	t.Helper()
	mask, err := p.Eval(ec, b)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	defer mask.Release()
	m := mask.(*array.Boolean)
	s := NewSelector(p)
	for _, sel := range sels {
		var want []int32
		for r := 0; r < int(b.NumRows()); r++ {
			if m.IsValid(r) && m.Value(r) && (sel == nil || slices.Contains(sel, int32(r))) {
				want = append(want, int32(r))
			}
		}
		got, err := s.Select(ec, b, sel, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("%s over %d selected: got %v, want %v", p, len(sel), got, want)
		}
		// In place: the selection narrowed in its own array.
		if sel != nil {
			own := slices.Clone(sel)
			got, _ := s.Select(ec, b, own, own[:0])
			if !slices.Equal(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("%s in place: got %v, want %v", p, got, want)
			}
		}
	}
}

// TestSelectorKernels checks that the comparisons the kernels cover do
// not fall back to Eval.
func TestSelectorKernels(t *testing.T) {
	for _, k := range []types.Kind{types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Text,
		types.Varchar, types.Date, types.Timestamp, types.TimestampTZ} {
		c := &Col{Idx: 0, T: types.Of(k)}
		d := &Const{D: types.Datum{T: types.Of(k), I: 1, F: 1, S: "x"}}
		for _, e := range []Expr{&Compare{Op: GT, L: c, R: d}, &Compare{Op: EQ, L: d, R: c}, &Not{Arg: &Compare{Op: LT, L: c, R: d}}} {
			if _, ok := compileSel(e).(*selCmp); !ok {
				t.Errorf("%s (%v): no kernel", e, k)
			}
		}
	}
	and := compileSel(&BoolOp{Args: []Expr{&IsNull{Arg: &Col{T: types.TInt8}}, &Col{T: types.TBool}}})
	if _, ok := and.(selAnd); !ok {
		t.Errorf("AND compiled to %T", and)
	}
}
