package agg

import (
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// The TPC-H money shapes over numeric(15,2) columns, 1M rows: evaluating
// the expression and summing it, reported per row. arithType and
// constType, at the end, are the only lines that differ from the
// text-carried numeric this replaced (there every result was plain
// numeric), so the file runs against that code too.

const benchRows = 1 << 20

var money = types.T{Kind: types.Numeric, Width: 15, Scale: 2}

// lineitems is price, discount and tax columns of numeric(15,2).
func lineitems() arrow.RecordBatch {
	cols := make([]arrow.Array, 3)
	fields := make([]arrow.Field, 3)
	for c := range cols {
		b := expr.NewBuilder(money, benchRows)
		for i := 0; i < benchRows; i++ {
			s := "0.0" + strconv.Itoa((i+c)%10)
			if c == 0 {
				s = strconv.Itoa(900+i%100000) + "." + strconv.Itoa(10+i%90)
			}
			b.Append(types.Datum{T: money, S: s})
		}
		cols[c] = b.Finish()
		fields[c] = arrow.Field{Name: "c" + strconv.Itoa(c), Type: money.Arrow()}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, benchRows)
}

func benchSum(b *testing.B, e expr.Expr) {
	rec := lineitems()
	gids := make([]int32, benchRows)
	sumT, _ := ResultType(Sum, e.Type())
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		v, err := e.Eval(&expr.Ctx{}, rec)
		if err != nil {
			b.Fatal(err)
		}
		s := newState(Agg{Fn: Sum, Arg: e, T: sumT}, nil)
		s.grow(1)
		s.update(gids, v, nil)
		out, err := s.finish()
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
		v.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

func arith(op expr.ArithOp, l, r expr.Expr) expr.Expr {
	return &expr.Arith{Op: op, L: l, R: r, T: arithType(op, l.Type(), r.Type())}
}

// BenchmarkNumericMulSum is q06's sum(l_extendedprice * l_discount).
func BenchmarkNumericMulSum(b *testing.B) {
	price, disc := &expr.Col{Idx: 0, T: money}, &expr.Col{Idx: 1, T: money}
	benchSum(b, arith(expr.Mul, price, disc))
}

// BenchmarkNumericChargeSum is q01's sum(l_extendedprice * (1 -
// l_discount) * (1 + l_tax)), whose 47 digits pass Decimal128.
func BenchmarkNumericChargeSum(b *testing.B) {
	price, disc, tax := &expr.Col{Idx: 0, T: money}, &expr.Col{Idx: 1, T: money}, &expr.Col{Idx: 2, T: money}
	one := &expr.Const{D: types.Datum{T: constType(1, 0), S: "1"}}
	benchSum(b, arith(expr.Mul, arith(expr.Mul, price, arith(expr.Sub, one, disc)), arith(expr.Add, one, tax)))
}

func arithType(op expr.ArithOp, l, r types.T) types.T {
	t, _ := expr.DecimalArithType(op, l, r)
	return t
}

func constType(p, s int32) types.T { return types.DecimalOf(p, s) }
