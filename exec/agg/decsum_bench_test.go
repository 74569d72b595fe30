package agg

import (
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// BenchmarkNumericMulSum is TPC-H q06's sum(l_extendedprice * l_discount)
// over numeric(15,2) columns, 1M rows: evaluating the product and summing
// it, reported per row. mulType is the one line that differs from the
// text-carried numeric this replaced (there the product was plain numeric).
func BenchmarkNumericMulSum(b *testing.B) {
	const rows = 1 << 20
	t := types.T{Kind: types.Numeric, Width: 15, Scale: 2}
	price, disc := expr.NewBuilder(t, rows), expr.NewBuilder(t, rows)
	for i := 0; i < rows; i++ {
		price.Append(types.Datum{T: t, S: strconv.Itoa(90000+i%1000000) + "." + strconv.Itoa(10+i%90)})
		disc.Append(types.Datum{T: t, S: "0.0" + strconv.Itoa(i%10)})
	}
	cols := []arrow.Array{price.Finish(), disc.Finish()}
	schema := arrow.NewSchema([]arrow.Field{{Name: "p", Type: t.Arrow()}, {Name: "d", Type: t.Arrow()}}, nil)
	rec := array.NewRecordBatch(schema, cols, rows)
	l, r := &expr.Col{Idx: 0, T: t, Name: "p"}, &expr.Col{Idx: 1, T: t, Name: "d"}
	mul := &expr.Arith{Op: expr.Mul, L: l, R: r, T: mulType(t, t)}
	gids := make([]int32, rows)
	sumT, _ := ResultType(Sum, mul.T)
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		v, err := mul.Eval(&expr.Ctx{}, rec)
		if err != nil {
			b.Fatal(err)
		}
		s := newState(Agg{Fn: Sum, Arg: mul, T: sumT}, nil)
		s.grow(1)
		s.update(gids, v, nil)
		out, err := s.finish()
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
		v.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
}

func mulType(l, r types.T) types.T {
	t, _ := expr.DecimalArithType(expr.Mul, l, r)
	return t
}
