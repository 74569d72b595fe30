package agg

import (
	"context"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// batchSource replays record batches.
type batchSource struct {
	ts   []types.T
	recs []arrow.RecordBatch
	i    int
}

func (s *batchSource) Open(context.Context) error { s.i = 0; return nil }
func (s *batchSource) Close() error               { return nil }
func (s *batchSource) Types() []types.T           { return s.ts }
func (s *batchSource) Next(context.Context) (arrow.RecordBatch, error) {
	if s.i >= len(s.recs) {
		return nil, nil
	}
	r := s.recs[s.i]
	s.i++
	r.Retain()
	return r, nil
}

// source builds batches of at most size rows from columns of datums.
func source(ts []types.T, cols [][]types.Datum, size int) *batchSource {
	s := &batchSource{ts: ts}
	n := len(cols[0])
	for lo := 0; lo < n || (n == 0 && lo == 0); lo += size {
		hi := min(lo+size, n)
		arrs := make([]arrow.Array, len(cols))
		for c := range cols {
			b := expr.NewBuilder(ts[c], hi-lo)
			for _, d := range cols[c][lo:hi] {
				b.Append(d)
			}
			arrs[c] = b.Finish()
		}
		s.recs = append(s.recs, array.NewRecordBatch(exec.Schema(ts), arrs, int64(hi-lo)))
		if n == 0 {
			break
		}
	}
	return s
}

// run aggregates and renders every output row as text ("NULL" for NULL).
func run(t *testing.T, src exec.Operator, groupBy []expr.Expr, aggs []Agg) [][]string {
	t.Helper()
	op := NewHashAgg(src, groupBy, aggs, &expr.Ctx{Loc: time.UTC})
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	var out [][]string
	for {
		rec, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			var row []string
			for c, ty := range op.Types() {
				d := types.DatumAt(ty, rec.Column(c), r)
				if rec.Column(c).IsNull(r) {
					row = append(row, "NULL")
				} else {
					row = append(row, types.FormatText(d, time.UTC))
				}
			}
			out = append(out, row)
		}
		rec.Release()
	}
	return out
}

func ints(t types.T, vs ...any) []types.Datum {
	out := make([]types.Datum, len(vs))
	for i, v := range vs {
		if v == nil {
			out[i] = types.NullOf(t)
		} else {
			out[i] = types.Int(t, int64(v.(int)))
		}
	}
	return out
}

func texts(vs ...any) []types.Datum {
	out := make([]types.Datum, len(vs))
	for i, v := range vs {
		if v == nil {
			out[i] = types.NullOf(types.TText)
		} else {
			out[i] = types.TextDatum(v.(string))
		}
	}
	return out
}

func floats(vs ...float64) []types.Datum {
	out := make([]types.Datum, len(vs))
	for i, v := range vs {
		out[i] = types.Float8Datum(v)
	}
	return out
}

func mk(fn Func, arg expr.Expr) Agg {
	a := Agg{Fn: fn, Arg: arg}
	var argT types.T
	if arg != nil {
		argT = arg.Type()
	}
	a.T, _ = ResultType(fn, argT)
	return a
}

func TestAggregates(t *testing.T) {
	// Columns: g int4, x int4, s text, f float8.
	ts := []types.T{types.TInt4, types.TInt4, types.TText, types.TFloat8}
	cols := [][]types.Datum{
		ints(types.TInt4, 1, 1, 1, 2, 2, 2, 2),
		ints(types.TInt4, 5, 5, nil, 1, 2, 3, 3),
		texts("b", "a", "a", nil, "x y", "", "z"),
		floats(1, 2, 4, 0.5, 0.25, 1, 1),
	}
	g := &expr.Col{Idx: 0, T: types.TInt4}
	x := &expr.Col{Idx: 1, T: types.TInt4}
	s := &expr.Col{Idx: 2, T: types.TText}
	f := &expr.Col{Idx: 3, T: types.TFloat8}
	pos := &expr.Compare{Op: expr.GT, L: x, R: &expr.Const{D: types.Int(types.TInt4, 2)}}
	half := types.Float8Datum(0.5)
	with := func(a Agg, edit func(*Agg)) Agg { edit(&a); return a }
	cases := []struct {
		name string
		agg  Agg
		want []string // per group 1, 2
	}{
		{"count distinct", with(mk(Count, x), func(a *Agg) { a.Distinct = true }), []string{"1", "3"}},
		{"count distinct text", with(mk(Count, s), func(a *Agg) { a.Distinct = true }), []string{"2", "3"}},
		{"sum distinct", with(mk(Sum, x), func(a *Agg) { a.Distinct = true }), []string{"5", "6"}},
		{"avg distinct", with(mk(Avg, x), func(a *Agg) { a.Distinct = true }), []string{"5.0000000000000000", "2.0000000000000000"}},
		{"count filter", with(mk(CountStar, nil), func(a *Agg) { a.Filter = pos }), []string{"2", "2"}},
		{"sum distinct filter", with(mk(Sum, x), func(a *Agg) { a.Distinct, a.Filter = true, pos }), []string{"5", "3"}},
		{"var_samp int", mk(VarSamp, x), []string{"0", "0.91666666666666666667"}},
		{"stddev_pop int", mk(StddevPop, x), []string{"0", "0.82915619758884996228"}},
		{"stddev float", mk(StddevSamp, f), []string{"1.5275252316519468", "0.375"}},
		{"var_pop float", mk(VarPop, f), []string{"1.5555555555555556", "0.10546875"}},
		{"bool_and", mk(BoolAnd, pos), []string{"t", "f"}},
		{"bool_or", mk(BoolOr, pos), []string{"t", "t"}},
		{"string_agg ordered", with(mk(StringAgg, s), func(a *Agg) {
			a.Arg2 = &expr.Const{D: types.TextDatum(",")}
			a.Order = []Order{{Expr: s}}
		}), []string{"a,a,b", ",x y,z"}},
		{"array_agg ordered desc", with(mk(ArrayAgg, x), func(a *Agg) {
			a.Order = []Order{{Expr: x, Desc: true, NullsFirst: true}}
		}), []string{"{NULL,5,5}", "{3,3,2,1}"}},
		{"array_agg text", with(mk(ArrayAgg, s), func(a *Agg) { a.Order = []Order{{Expr: s}} }), []string{"{a,a,b}", `{"","x y",z,NULL}`}},
		{"percentile_cont", with(mk(PercentileCont, f), func(a *Agg) { a.Frac = half }), []string{"2", "0.75"}},
		{"percentile_cont desc", with(mk(PercentileCont, f), func(a *Agg) { a.Frac = types.Float8Datum(0.25); a.Desc = true }), []string{"3", "1"}},
		{"percentile_disc", with(mk(PercentileDisc, x), func(a *Agg) { a.Frac = half }), []string{"5", "2"}},
		{"percentile null frac", with(mk(PercentileDisc, x), func(a *Agg) { a.Frac = types.NullOf(types.TFloat8) }), []string{"NULL", "NULL"}},
		{"mode", mk(Mode, x), []string{"5", "3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, size := range []int{1, 3, 100} {
				got := run(t, source(ts, cols, size), []expr.Expr{g}, []Agg{c.agg})
				slices.SortFunc(got, func(a, b []string) int { return cmpStr(a[0], b[0]) })
				if len(got) != 2 || got[0][1] != c.want[0] || got[1][1] != c.want[1] {
					t.Fatalf("batch %d: got %v, want %v", size, got, c.want)
				}
			}
		})
	}
}

func cmpStr(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Without GROUP BY, empty input gives one row: counts 0, the rest NULL.
func TestEmptyInput(t *testing.T) {
	ts := []types.T{types.TInt4, types.TText}
	x := &expr.Col{Idx: 0, T: types.TInt4}
	s := &expr.Col{Idx: 1, T: types.TText}
	fx := &expr.Cast{Arg: x, T: types.TFloat8}
	aggs := []Agg{
		func() Agg { a := mk(Count, x); a.Distinct = true; return a }(),
		mk(StddevSamp, x), mk(VarPop, x), mk(ArrayAgg, x),
		func() Agg { a := mk(StringAgg, s); a.Arg2 = &expr.Const{D: types.TextDatum(",")}; return a }(),
		func() Agg { a := mk(PercentileCont, fx); a.Frac = types.Float8Datum(0.5); return a }(),
		mk(ApproxCountDistinct, x),
		func() Agg { a := mk(ApproxPercentile, x); a.Frac = types.Float8Datum(0.5); return a }(),
	}
	got := run(t, source(ts, [][]types.Datum{nil, nil}, 10), nil, aggs)
	want := []string{"0", "NULL", "NULL", "NULL", "NULL", "NULL", "0", "NULL"}
	if len(got) != 1 || !slices.Equal(got[0], want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestPercentileFracError(t *testing.T) {
	ts := []types.T{types.TFloat8}
	a := mk(PercentileCont, &expr.Col{Idx: 0, T: types.TFloat8})
	a.Frac = types.Float8Datum(1.5)
	op := NewHashAgg(source(ts, [][]types.Datum{floats(1)}, 10), nil, []Agg{a}, &expr.Ctx{})
	ctx := context.Background()
	_ = op.Open(ctx)
	defer op.Close()
	if _, err := op.Next(ctx); err == nil || err.Error() != "percentile value 1.5 is not between 0 and 1" {
		t.Fatalf("got %v", err)
	}
}

// The sketches: within 2% of the exact answer on 1e5 rows.
func TestApprox(t *testing.T) {
	const n = 100_000
	rng := rand.New(rand.NewSource(1))
	vals := make([]types.Datum, n)
	strs := make([]types.Datum, n)
	exactVals := make([]float64, n)
	distinct := map[int64]bool{}
	for i := range vals {
		v := int64(rng.ExpFloat64() * 1000)
		vals[i] = types.Int(types.TInt8, v)
		strs[i] = types.TextDatum("tenant-" + strconv.Itoa(rng.Intn(60_000)))
		exactVals[i] = float64(v)
		distinct[v] = true
	}
	exactStr := map[string]bool{}
	for _, d := range strs {
		exactStr[d.S] = true
	}
	slices.Sort(exactVals)
	ts := []types.T{types.TInt8, types.TText}
	x := &expr.Col{Idx: 0, T: types.TInt8}
	s := &expr.Col{Idx: 1, T: types.TText}
	var aggs []Agg
	qs := []float64{0.05, 0.25, 0.5, 0.9, 0.95, 0.99}
	for _, q := range qs {
		a := mk(ApproxPercentile, x)
		a.Frac = types.Float8Datum(q)
		aggs = append(aggs, a)
	}
	aggs = append(aggs, mk(ApproxCountDistinct, x), mk(ApproxCountDistinct, s))
	got := run(t, source(ts, [][]types.Datum{vals, strs}, exec.BatchSize), nil, aggs)[0]
	for i, q := range qs {
		exact := exactVals[int(math.Ceil(q*n))-1]
		v, _ := strconv.ParseFloat(got[i], 64)
		if math.Abs(v-exact) > 0.02*exact {
			t.Errorf("approx_percentile(%v) = %v, exact %v", q, v, exact)
		}
	}
	for i, want := range []int{len(distinct), len(exactStr)} {
		v, _ := strconv.Atoi(got[len(qs)+i])
		if math.Abs(float64(v-want)) > 0.02*float64(want) {
			t.Errorf("approx_count_distinct #%d = %d, exact %d", i, v, want)
		}
	}
}

// HyperLogLog stays within 2% across the small-to-large switch.
func TestHLLRange(t *testing.T) {
	for _, n := range []int{10, 1000, 3000, 20_000, 50_000, 200_000} {
		s := &hllState{t: types.TInt8}
		s.grow(1)
		for i := 0; i < n; i++ {
			s.add(0, mix64(uint64(i)+0x9e3779b97f4a7c15))
		}
		if e := s.estimate(0); math.Abs(float64(e-int64(n))) > 0.02*float64(n) {
			t.Errorf("n=%d: estimate %d", n, e)
		}
	}
}

func benchSource(b *testing.B, rows int) *batchSource {
	rng := rand.New(rand.NewSource(1))
	ts := []types.T{types.TText, types.TText, types.TFloat8}
	models := []string{"gpt-4o", "claude", "gpt-4o-mini", "llama", "mistral"}
	s := &batchSource{ts: ts}
	for lo := 0; lo < rows; lo += exec.BatchSize {
		n := min(exec.BatchSize, rows-lo)
		mb := array.NewStringBuilder(memoryPool)
		tb := array.NewStringBuilder(memoryPool)
		fb := array.NewFloat64Builder(memoryPool)
		for i := 0; i < n; i++ {
			mb.Append(models[rng.Intn(len(models))])
			tb.Append("tenant-" + strconv.Itoa(rng.Intn(5000)))
			fb.Append(rng.Float64() * 100)
		}
		s.recs = append(s.recs, array.NewRecordBatch(exec.Schema(ts), []arrow.Array{mb.NewArray(), tb.NewArray(), fb.NewArray()}, int64(n)))
	}
	return s
}

func drain(b *testing.B, op exec.Operator) {
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		b.Fatal(err)
	}
	for {
		rec, err := op.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if rec == nil {
			break
		}
		rec.Release()
	}
	op.Close()
}

func BenchmarkCountDistinctByModel(b *testing.B) {
	src := benchSource(b, 1_000_000)
	model := &expr.Col{Idx: 0, T: types.TText}
	a := mk(Count, &expr.Col{Idx: 1, T: types.TText})
	a.Distinct = true
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		drain(b, NewHashAgg(src, []expr.Expr{model}, []Agg{a}, &expr.Ctx{}))
	}
}

func BenchmarkPercentileCont(b *testing.B) {
	src := benchSource(b, 1_000_000)
	a := mk(PercentileCont, &expr.Col{Idx: 2, T: types.TFloat8})
	a.Frac = types.Float8Datum(0.95)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		drain(b, NewHashAgg(src, nil, []Agg{a}, &expr.Ctx{}))
	}
}

var memoryPool = memory.DefaultAllocator

func TestRank(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 300; trial++ {
		n := rng.Intn(200) + 1
		v := make([]float64, n)
		for i := range v {
			switch rng.Intn(10) {
			case 0:
				v[i] = math.NaN()
			case 1:
				v[i] = 7
			default:
				v[i] = float64(rng.Intn(50)) - 25
			}
		}
		sorted := slices.Clone(v)
		m := nanLast(sorted)
		slices.Sort(sorted[:m])
		k := rng.Intn(n)
		work := slices.Clone(v)
		got := rank(work, nanLast(work), k)
		if want := sorted[k]; got != want && !(got != got && want != want) {
			t.Fatalf("rank %d of %v: got %v want %v", k, v, got, want)
		}
	}
}

func TestDistinctFixedWidth(t *testing.T) {
	ts := []types.T{types.TFloat8, types.TInt8}
	fcol := append(floats(0, math.Copysign(0, -1), math.NaN(), math.NaN(), 1), types.NullOf(types.TFloat8))
	icol := ints(types.TInt8, 5, 5, nil, nil, -1, 7)
	f := &expr.Col{Idx: 0, T: types.TFloat8}
	x := &expr.Col{Idx: 1, T: types.TInt8}
	cd := func(e expr.Expr) Agg { a := mk(Count, e); a.Distinct = true; return a }
	ad := func(e expr.Expr) Agg {
		a := mk(ArrayAgg, e)
		a.Distinct = true
		a.Order = []Order{{Expr: e}}
		return a
	}
	got := run(t, source(ts, [][]types.Datum{fcol, icol}, 2), nil, []Agg{cd(f), cd(x), ad(x)})
	want := []string{"3", "3", "{-1,5,7,NULL}"}
	if !slices.Equal(got[0], want) {
		t.Fatalf("got %v, want %v", got[0], want)
	}
}

func BenchmarkCountDistinctInt(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	ts := []types.T{types.TInt4, types.TInt8}
	s := &batchSource{ts: ts}
	for lo := 0; lo < 1_000_000; lo += exec.BatchSize {
		gb := array.NewInt32Builder(memoryPool)
		vb := array.NewInt64Builder(memoryPool)
		for i := 0; i < exec.BatchSize; i++ {
			gb.Append(int32(rng.Intn(5)))
			vb.Append(int64(rng.Intn(5000)))
		}
		s.recs = append(s.recs, array.NewRecordBatch(exec.Schema(ts), []arrow.Array{gb.NewArray(), vb.NewArray()}, exec.BatchSize))
	}
	a := mk(Count, &expr.Col{Idx: 1, T: types.TInt8})
	a.Distinct = true
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		drain(b, NewHashAgg(s, []expr.Expr{&expr.Col{Idx: 0, T: types.TInt4}}, []Agg{a}, &expr.Ctx{}))
	}
}

func TestAggString(t *testing.T) {
	x := &expr.Col{Idx: 0, T: types.TInt4, Name: "x"}
	s := &expr.Col{Idx: 1, T: types.TText, Name: "s"}
	cases := []struct {
		a    Agg
		want string
	}{
		{Agg{Fn: CountStar}, "count(*)"},
		{Agg{Fn: Count, Arg: x, Distinct: true, Filter: x}, "count(DISTINCT x) FILTER (WHERE x)"},
		{Agg{Fn: StringAgg, Arg: s, Arg2: s, Order: []Order{{Expr: x, Desc: true, NullsFirst: true}, {Expr: s, NullsFirst: true}}}, "string_agg(s, s ORDER BY x DESC, s NULLS FIRST)"},
		{Agg{Fn: PercentileCont, Arg: x, Frac: types.Float8Datum(0.5), Desc: true}, "percentile_cont(0.5) WITHIN GROUP (ORDER BY x DESC)"},
		{Agg{Fn: PercentileDisc, Arg: x, Frac: types.Datum{T: types.ArrayOf(types.Float8), S: "{0.1,0.9}"}}, "percentile_disc('{0.1,0.9}'::float8[]) WITHIN GROUP (ORDER BY x)"},
		{Agg{Fn: PercentileDisc, Arg: x, Arg2: x}, "percentile_disc(x) WITHIN GROUP (ORDER BY x)"},
		{Agg{Fn: Mode, Arg: s}, "mode() WITHIN GROUP (ORDER BY s)"},
		{Agg{Fn: ApproxPercentile, Arg: x, Frac: types.Float8Datum(0.95)}, "approx_percentile(x, 0.95)"},
	}
	for _, c := range cases {
		if got := c.a.String(); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
}

// With GROUP BY, empty input gives no row, masked aggregates (FILTER,
// DISTINCT) included: their trash group exists even when no group does.
func TestEmptyInputGrouped(t *testing.T) {
	ts := []types.T{types.TInt4, types.TBool}
	x := &expr.Col{Idx: 0, T: types.TInt4}
	b := &expr.Col{Idx: 1, T: types.TBool}
	cases := map[string]Agg{
		"filter":   func() Agg { a := mk(Count, x); a.Filter = b; return a }(),
		"distinct": func() Agg { a := mk(Sum, x); a.Distinct = true; return a }(),
		"min":      func() Agg { a := mk(Min, x); a.Filter = b; return a }(),
	}
	for name, a := range cases {
		t.Run(name, func(t *testing.T) {
			got := run(t, source(ts, [][]types.Datum{nil, nil}, 10), []expr.Expr{x}, []Agg{a, mk(Count, x)})
			if len(got) != 0 {
				t.Fatalf("got %v, want no rows", got)
			}
		})
	}
}

func TestFractionElements(t *testing.T) {
	for _, c := range []struct {
		in, want string // want: the result of each fraction as its own value, or the error
	}{
		{"{0.5,0.9}", "{0.5,0.9}"},
		{"{}", "{}"},
		{"{0.5,NULL}", "{0.5,NULL}"},
		{"{1.5}", "percentile value 1.5 is not between 0 and 1"},
		{"{NaN}", "percentile value NaN is not between 0 and 1"},
	} {
		d, err := multiResult(types.Datum{T: types.ArrayOf(types.Float8), S: c.in}, types.ArrayOf(types.Float8),
			func(p float64) string { return types.FormatFloat8(p) })
		got := d.S
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.in, got, c.want)
		}
	}
	if d, err := multiResult(types.NullOf(types.ArrayOf(types.Float8)), types.ArrayOf(types.Float8), nil); err != nil || !d.Null {
		t.Errorf("NULL fractions: %+v, %v", d, err)
	}
}
