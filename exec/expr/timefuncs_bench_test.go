package expr

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/types"
)

// benchBatch is a batch of 8192 timestamptz values a few seconds apart.
func benchBatch() arrow.RecordBatch {
	bld := NewBuilder(types.TTimestampTZ, 8192)
	for i := 0; i < 8192; i++ {
		bld.Append(types.Int(types.TTimestampTZ, 1700000000e6+int64(i)*3e6+123))
	}
	col := bld.Finish()
	defer col.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "ts", Type: types.TTimestampTZ.Arrow(), Nullable: true}}, nil)
	return array.NewRecordBatch(sc, []arrow.Array{col}, 8192)
}

func benchExpr(b *testing.B, e Expr, loc *time.Location) {
	rec := benchBatch()
	defer rec.Release()
	c := &Ctx{Loc: loc}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := e.Eval(c, rec)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*8192), "ns/row")
}

func funcExpr(name string, t types.T, args ...Expr) Expr {
	bi := Builtins[name]
	return &Func{Name: name, Args: args, T: t, Strict: bi.Strict, Fn: bi.Fn, Vec: bi.Vec}
}

var tsCol = &Col{Idx: 0, T: types.TTimestampTZ}

func textConst(s string) Expr { return &Const{D: types.TextDatum(s)} }

func BenchmarkDateTruncHourUTC(b *testing.B) {
	benchExpr(b, funcExpr("date_trunc", types.TTimestampTZ, textConst("hour"), tsCol), time.UTC)
}

func BenchmarkDateTruncDayNewYork(b *testing.B) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		b.Skip(err)
	}
	benchExpr(b, funcExpr("date_trunc", types.TTimestampTZ, textConst("day"), tsCol), loc)
}

func BenchmarkExtractEpoch(b *testing.B) {
	benchExpr(b, funcExpr("extract", types.TNumeric, textConst("epoch"), tsCol), time.UTC)
}

func BenchmarkDatePartEpoch(b *testing.B) {
	benchExpr(b, funcExpr("date_part", types.TFloat8, textConst("epoch"), tsCol), time.UTC)
}

func BenchmarkTimestampPlusInterval(b *testing.B) {
	iv := &Const{D: types.IntervalDatum(types.IntervalValue{Micros: 3600e6})}
	benchExpr(b, &TimeArith{Op: Add, L: tsCol, R: iv, T: types.TTimestampTZ}, time.UTC)
}

// floor(extract(epoch from ts)/300)*300, the benchmark's bucketing.
func BenchmarkEpochBucketNumeric(b *testing.B) {
	ext := funcExpr("extract", types.TNumeric, textConst("epoch"), tsCol)
	div := &Arith{Op: Div, L: ext, R: &Const{D: types.Datum{T: types.TNumeric, S: "300"}}, T: types.TNumeric}
	fl := Builtins["floor"]
	_, _, f, ok := fl.Bind([]types.T{types.TNumeric})
	if !ok {
		b.Skip("no floor(numeric)")
	}
	f.Name, f.Args, f.T = "floor", []Expr{div}, types.TNumeric
	mul := &Arith{Op: Mul, L: f, R: &Const{D: types.Datum{T: types.TNumeric, S: "300"}}, T: types.TNumeric}
	benchExpr(b, mul, time.UTC)
}
