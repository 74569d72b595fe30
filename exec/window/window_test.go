package window

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// rows (p, o, v), in the order the window sorts them by p, o: the
// expected columns below are PostgreSQL 15's for this table.
var testRows = [][3]*int64{
	{i(1), i(1), i(10)}, {i(1), i(2), i(20)}, {i(1), i(2), i(30)}, {i(1), i(3), nil}, {i(1), i(5), i(50)},
	{i(2), i(1), i(1)}, {i(2), nil, i(2)}, {nil, i(4), i(4)},
}

func i(v int64) *int64 { return &v }

var (
	colP = &expr.Col{Idx: 0, T: types.TInt4}
	colO = &expr.Col{Idx: 1, T: types.TInt4}
	colV = &expr.Col{Idx: 2, T: types.TInt4}
)

func input() exec.Operator {
	rows := make([][]expr.Expr, len(testRows))
	for r, row := range testRows {
		for _, v := range row {
			d := types.NullOf(types.TInt4)
			if v != nil {
				d = types.Int(types.TInt4, *v)
			}
			rows[r] = append(rows[r], &expr.Const{D: d})
		}
	}
	return exec.NewValues(rows, []types.T{types.TInt4, types.TInt4, types.TInt4}, &expr.Ctx{})
}

func byO() Spec { return Spec{Partition: []expr.Expr{colP}, Order: []exec.SortKey{{Expr: colO}}} }
func byOV() Spec {
	return Spec{Partition: []expr.Expr{colP}, Order: []exec.SortKey{{Expr: colO}, {Expr: colV}}}
}
func byP() Spec { return Spec{Partition: []expr.Expr{colP}} }

func konst(v int64) expr.Expr { return &expr.Const{D: types.Int(types.TInt8, v)} }
func konst4(v int64) expr.Expr {
	return &expr.Const{D: types.Int(types.TInt4, v)}
}

func aggOf(fn agg.Func, arg expr.Expr) Func {
	a := agg.Agg{Fn: fn, Arg: arg}
	var argT types.T
	if arg != nil {
		argT = arg.Type()
	}
	a.T, _ = agg.ResultType(fn, argT)
	return Func{Kind: Aggregate, Agg: a, T: a.T, Frame: DefaultFrame}
}

func withFrame(f Func, fr Frame) Func { f.Frame = fr; return f }

func rows(s, e Bound) Frame { return Frame{Mode: Rows, Start: s, End: e} }

var (
	unbPrec = Bound{Kind: UnboundedPreceding}
	unbFoll = Bound{Kind: UnboundedFollowing}
	cur     = Bound{Kind: CurrentRow}
)

func prec(n int64) Bound { return Bound{Kind: OffsetPreceding, Offset: konst(n)} }
func foll(n int64) Bound { return Bound{Kind: OffsetFollowing, Offset: konst(n)} }

func TestWindowFunctions(t *testing.T) {
	vf := func(k Kind, args ...expr.Expr) Func {
		return Func{Kind: k, Args: args, T: types.TInt4, Frame: DefaultFrame}
	}
	tests := []struct {
		name string
		spec Spec
		fn   Func
		want string
	}{
		{"row_number", byOV(), Func{Kind: RowNumber, T: types.TInt8}, "1,2,3,4,5,1,2,1"},
		{"rank", byO(), Func{Kind: Rank, T: types.TInt8}, "1,2,2,4,5,1,2,1"},
		{"dense_rank", byO(), Func{Kind: DenseRank, T: types.TInt8}, "1,2,2,3,4,1,2,1"},
		{"percent_rank", byO(), Func{Kind: PercentRank, T: types.TFloat8}, "0,0.25,0.25,0.75,1,0,1,0"},
		{"cume_dist", byO(), Func{Kind: CumeDist, T: types.TFloat8}, "0.2,0.6,0.6,0.8,1,0.5,1,1"},
		{"ntile", byOV(), vf(Ntile, konst4(2)), "1,1,1,2,2,1,2,1"},
		{"lag", byOV(), vf(Lag, colV), "NULL,10,20,30,NULL,NULL,1,NULL"},
		{"lead default", byOV(), vf(Lead, colV, konst4(2), konst4(-1)), "30,NULL,50,-1,-1,-1,-1,-1"},
		{"running sum", byO(), aggOf(agg.Sum, colV), "10,60,60,60,110,1,3,4"},
		{"count whole partition", byP(), aggOf(agg.Count, colV), "4,4,4,4,4,2,2,1"},
		{"sliding sum", byOV(), withFrame(aggOf(agg.Sum, colV), rows(prec(1), foll(1))), "30,60,50,80,50,3,3,4"},
		{"sliding max", byOV(), withFrame(aggOf(agg.Max, colV), rows(prec(1), foll(1))), "20,30,30,50,50,2,2,4"},
		{"groups", byO(), withFrame(aggOf(agg.Sum, colV), Frame{Mode: Groups, Start: prec(1), End: cur}), "10,60,60,50,50,1,3,4"},
		{"range to end", byO(), withFrame(aggOf(agg.CountStar, nil), Frame{Mode: Range, Start: cur, End: unbFoll}), "5,4,4,2,1,2,1,1"},
		{"last_value default frame", byO(), vf(LastValue, colV), "10,30,30,NULL,50,1,2,4"},
		{"nth_value whole", byOV(), withFrame(vf(NthValue, colV, konst4(2)), rows(unbPrec, unbFoll)), "20,20,20,20,20,2,2,NULL"},
		{"avg preceding only", byOV(), withFrame(aggOf(agg.Avg, colV), rows(prec(2), prec(1))),
			"NULL,10.0000000000000000,15.0000000000000000,25.0000000000000000,30.0000000000000000,NULL,1.00000000000000000000,NULL"},
		{"range offsets", byO(), withFrame(aggOf(agg.Sum, colV), Frame{Mode: Range, Start: Bound{Kind: OffsetPreceding, Offset: konst4(1)}, End: Bound{Kind: OffsetFollowing, Offset: konst4(1)}}),
			"60,60,60,50,50,1,2,4"},
		{"range offsets desc", Spec{Partition: []expr.Expr{colP}, Order: []exec.SortKey{{Expr: colO, Desc: true, NullsFirst: true}}},
			withFrame(aggOf(agg.CountStar, nil), Frame{Mode: Range, Start: cur, End: Bound{Kind: OffsetFollowing, Offset: konst4(2)}}),
			"1,3,3,4,2,1,1,1"},
		{"exclude group", byO(), withFrame(aggOf(agg.Sum, colV), Frame{Mode: Range, Start: unbPrec, End: unbFoll, Exclude: ExcludeGroup}),
			"100,60,60,110,60,2,1,NULL"},
		{"exclude ties", byO(), withFrame(aggOf(agg.Sum, colV), Frame{Mode: Range, Start: unbPrec, End: unbFoll, Exclude: ExcludeTies}),
			"110,80,90,110,110,3,3,4"},
		{"exclude current row", byOV(), withFrame(vf(FirstValue, colV), Frame{Mode: Rows, Start: cur, End: foll(1), Exclude: ExcludeCurrentRow}),
			"20,30,NULL,50,NULL,2,NULL,NULL"},
		{"first_value following", byOV(), withFrame(vf(FirstValue, colV), rows(foll(1), foll(2))), "20,30,NULL,50,NULL,2,NULL,NULL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn.Spec = 0
			got, err := run([]Spec{tc.spec}, []Func{tc.fn})
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// run computes funcs and returns the last column, rows sorted by (p, o, v).
func run(specs []Spec, funcs []Func) (string, error) {
	ctx := context.Background()
	ec := &expr.Ctx{}
	o := New(input(), specs, funcs, ec)
	if err := o.Open(ctx); err != nil {
		return "", err
	}
	defer o.Close()
	all, err := exec.Drain(ctx, o)
	if err != nil || all == nil {
		return "", err
	}
	defer all.Release()
	keys := []exec.SortKey{{Expr: colP}, {Expr: colO}, {Expr: colV}}
	idx, err := exec.SortIndices(ctx, ec, all, keys)
	if err != nil {
		return "", err
	}
	defer idx.Release()
	last := len(funcs) + 2
	col := all.Column(last)
	var out []string
	ix := expr.Datums(types.TInt8, idx)
	for _, d := range ix {
		v := types.DatumAt(o.Types()[last], col, int(d.I))
		if v.Null {
			out = append(out, "NULL")
		} else {
			out = append(out, types.FormatText(v, nil))
		}
	}
	return strings.Join(out, ","), nil
}

func TestWindowErrors(t *testing.T) {
	tests := []struct {
		name string
		fn   Func
		code string
	}{
		{"ntile zero", Func{Kind: Ntile, Args: []expr.Expr{konst4(0)}, T: types.TInt4, Frame: DefaultFrame}, pgerr.InvalidArgumentForNtile},
		{"nth_value zero", Func{Kind: NthValue, Args: []expr.Expr{colV, konst4(0)}, T: types.TInt4, Frame: DefaultFrame}, pgerr.InvalidArgumentForNthValue},
		{"negative start", withFrame(aggOf(agg.Sum, colV), rows(prec(-1), cur)), pgerr.InvalidPrecedingOrFollowingSize},
		{"null end", withFrame(aggOf(agg.Sum, colV), rows(cur, Bound{Kind: OffsetFollowing, Offset: &expr.Const{D: types.NullOf(types.TInt8)}})), pgerr.NullValueNotAllowed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run([]Spec{byO()}, []Func{tc.fn})
			if pgerr.Code(err) != tc.code {
				t.Errorf("got %v (%s), want %s", err, pgerr.Code(err), tc.code)
			}
		})
	}
}

// TestSeveralWindows checks that functions over different windows land in
// their own columns, whatever order the windows sort in.
func TestSeveralWindows(t *testing.T) {
	specs := []Spec{byOV(), {Order: []exec.SortKey{{Expr: colV, Desc: true, NullsFirst: true}}}}
	funcs := []Func{
		{Kind: RowNumber, T: types.TInt8, Spec: 1},
		{Kind: RowNumber, T: types.TInt8, Spec: 0},
	}
	got, err := run(specs, funcs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "1,2,3,4,5,1,2,1"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	funcs[0], funcs[1] = funcs[1], funcs[0]
	if got, err = run(specs, funcs); err != nil {
		t.Fatal(err)
	}
	// v DESC NULLS FIRST over all rows: NULL, 50, 30, 20, 10, 4, 2, 1.
	if want := "5,4,3,1,2,8,7,6"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestManyRows checks incremental frames against brute force over more
// rows than a batch holds.
func TestManyRows(t *testing.T) {
	const n = 3*exec.BatchSize + 17
	rows := make([][]expr.Expr, n)
	for r := range rows {
		rows[r] = []expr.Expr{konst4(int64(r % 3)), konst4(int64(r)), konst4(int64(r % 7))}
	}
	ctx, ec := context.Background(), &expr.Ctx{}
	in := exec.NewValues(rows, []types.T{types.TInt4, types.TInt4, types.TInt4}, ec)
	spec := Spec{Partition: []expr.Expr{colP}, Order: []exec.SortKey{{Expr: colO}}}
	funcs := []Func{
		{Kind: RowNumber, T: types.TInt8},
		aggOf(agg.Sum, colV),
		withFrame(aggOf(agg.Sum, colV), rows3()),
		withFrame(aggOf(agg.Max, colV), rows3()),
	}
	o := New(in, []Spec{spec}, funcs, ec)
	if err := o.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	batches, seen := 0, 0
	running := map[int64]int64{}
	window := map[int64][]int64{}
	for {
		rec, err := o.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		batches++
		for r := 0; r < int(rec.NumRows()); r++ {
			at := func(c int) int64 { return types.DatumAt(o.Types()[c], rec.Column(c), r).I }
			p, v := at(0), at(2)
			running[p] += v
			w := append(window[p], v)
			if len(w) > 3 {
				w = w[1:]
			}
			window[p] = w
			var sum, mx int64
			for _, x := range w {
				sum += x
				mx = max(mx, x)
			}
			if at(4) != running[p] || at(5) != sum || at(6) != mx {
				t.Fatalf("row %d (p=%d o=%d): got %d %d %d, want %d %d %d", seen, p, at(1), at(4), at(5), at(6), running[p], sum, mx)
			}
			seen++
		}
		rec.Release()
	}
	if seen != n || batches < 3 {
		t.Errorf("%d rows in %d batches, want %d rows in several", seen, batches, n)
	}
}

func rows3() Frame { return rows(prec(2), cur) }

func TestShiftTime(t *testing.T) {
	ts := func(s string) int64 {
		d, err := types.ParseTimestamp(s, false, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no zoneinfo")
	}
	tests := []struct {
		v    types.Datum
		iv   types.IntervalValue
		down bool
		loc  *time.Location
		want string
	}{
		// Months clamp to the last day of the month, as PostgreSQL does.
		{types.Int(types.TTimestamp, ts("2024-01-31 10:00:00")), types.IntervalValue{Months: 1}, false, nil, "2024-02-29 10:00:00"},
		{types.Int(types.TTimestamp, ts("2024-03-31 10:00:00")), types.IntervalValue{Months: 1}, true, nil, "2024-02-29 10:00:00"},
		{types.Int(types.TTimestamp, ts("2024-01-15 00:00:00")), types.IntervalValue{Months: 13, Days: 1, Micros: 3600e6}, true, nil, "2022-12-13 23:00:00"},
		// Dates become timestamps.
		{types.Int(types.TDate, 19723), types.IntervalValue{Days: 2}, false, nil, "2024-01-03 00:00:00"},
		// A day across a DST change is 23 hours in the session zone.
		{types.Int(types.TTimestampTZ, ts("2024-03-10 12:00:00")), types.IntervalValue{Days: 1}, true, ny, "2024-03-09 13:00:00"},
	}
	for _, tc := range tests {
		w := &win{ec: &expr.Ctx{Loc: tc.loc}}
		got, err := w.shift(tc.v, types.IntervalDatum(tc.iv), tc.down)
		if err != nil {
			t.Fatal(err)
		}
		if s := time.UnixMicro(got.I).UTC().Format("2006-01-02 15:04:05"); s != tc.want {
			t.Errorf("%v %+v down=%v: got %s, want %s", tc.v, tc.iv, tc.down, s, tc.want)
		}
	}
}

func TestNegativeOffset(t *testing.T) {
	iv := func(m, d int32, us int64) types.Datum {
		return types.IntervalDatum(types.IntervalValue{Months: m, Days: d, Micros: us})
	}
	for _, c := range []struct {
		key  types.Kind
		off  types.Datum
		want bool
	}{
		{types.Timestamp, iv(0, 0, 3600e6), false},
		{types.Timestamp, iv(0, 0, -1), true},
		{types.Timestamp, iv(1, -30, 0), false}, // a month is 30 days
		{types.Timestamp, iv(1, -31, 0), true},
		{types.Date, iv(-1, 31, 0), false},
		{types.Time, iv(0, -1, 1), false}, // time keys look at the time part only
		{types.Time, iv(0, 1, -1), true},
		{types.Interval, iv(0, 1, -86400e6), false},
		{types.Int4, types.Int(types.TInt8, -1), true},
		{types.Float8, types.Float8Datum(-0.5), true},
		{types.Numeric, types.Datum{T: types.TNumeric, S: "-0.1"}, true},
		{types.Numeric, types.Datum{T: types.TNumeric, S: "0"}, false},
	} {
		if got := negativeOffset(c.key, c.off); got != c.want {
			t.Errorf("%v offset %v: got %v, want %v", c.key, c.off, got, c.want)
		}
	}
}
