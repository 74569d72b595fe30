package exec_test

// Per-operator micro-benchmarks over 1M rows of an LLM-call-like table,
// reported in ns a row (`make bench-ops` runs them and sets the figures
// beside the previous commit's). They use only the operators'
// constructors, so they run unchanged on older commits.

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

const benchRows = 1 << 20

// benchTypes: latency_ms int8, tenant text (100 tenants), cost float8,
// ts timestamptz, model text (a tenth NULL).
var benchTypes = []types.T{types.TInt8, types.TText, types.TFloat8, types.TTimestampTZ, types.TText}

var benchData = sync.OnceValue(func() []arrow.RecordBatch {
	rng := rand.New(rand.NewSource(1))
	models := []string{"gpt-4o", "gpt-4o-mini", "claude-3-5-sonnet", "llama-3-70b"}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	var recs []arrow.RecordBatch
	for at := 0; at < benchRows; at += exec.BatchSize {
		n := min(exec.BatchSize, benchRows-at)
		blds := make([]*expr.Builder, len(benchTypes))
		for i, t := range benchTypes {
			blds[i] = expr.NewBuilder(t, n)
		}
		for r := 0; r < n; r++ {
			blds[0].Append(types.Int(types.TInt8, int64(rng.ExpFloat64()*60)))
			blds[1].Append(types.TextDatum(fmt.Sprintf("t%03d", rng.Intn(100))))
			blds[2].Append(types.Float8Datum(rng.Float64() / 100))
			blds[3].Append(types.Datum{T: types.TTimestampTZ, I: start + int64(at+r)*1e6})
			if rng.Intn(10) == 0 {
				blds[4].Append(types.NullOf(types.TText))
			} else {
				blds[4].Append(types.TextDatum(models[rng.Intn(len(models))]))
			}
		}
		cols := make([]arrow.Array, len(blds))
		for i, b := range blds {
			cols[i] = b.Finish()
		}
		recs = append(recs, array.NewRecordBatch(exec.Schema(benchTypes), cols, int64(n)))
		for _, c := range cols {
			c.Release()
		}
	}
	return recs
})

func bcol(i int) expr.Expr { return &expr.Col{Idx: i, T: benchTypes[i]} }

// benchOp runs the operator make builds over the 1M rows b.N times and
// reports ns per input row.
func benchOp(b *testing.B, make func(in exec.Operator) exec.Operator) {
	recs := benchData()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		op := make(exec.NewBatches(benchTypes, recs))
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
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

var (
	benchEc       = &expr.Ctx{Loc: time.UTC}
	latencyGT100  = &expr.Compare{Op: expr.GT, L: bcol(0), R: &expr.Const{D: types.Int(types.TInt8, 100)}}
	tenantIs007   = &expr.Compare{Op: expr.EQ, L: bcol(1), R: &expr.Const{D: types.TextDatum("t007")}}
	costGT        = &expr.Compare{Op: expr.GT, L: bcol(2), R: &expr.Const{D: types.Float8Datum(0.009)}}
	lastDay       = &expr.Compare{Op: expr.GE, L: bcol(3), R: &expr.Const{D: types.Datum{T: types.TTimestampTZ, I: time.Date(2026, 1, 12, 0, 0, 0, 0, time.UTC).UnixMicro()}}}
	modelNull     = &expr.IsNull{Arg: bcol(4)}
	countStar     = []agg.Agg{{Fn: agg.CountStar, T: types.TInt8}}
	filterBenches = []struct {
		name string
		pred expr.Expr
	}{
		{"int64>const", latencyGT100},
		{"text=const", tenantIs007},
		{"float64>const", costGT},
		{"timestamptz>=const", lastDay},
		{"isnull", modelNull},
		{"and", &expr.BoolOp{Args: []expr.Expr{latencyGT100, tenantIs007}}},
		{"or", &expr.BoolOp{Or: true, Args: []expr.Expr{latencyGT100, tenantIs007}}},
	}
)

// BenchmarkFilter is WHERE … with the kept rows gathered (the consumer
// reads compacted batches), and under count(*).
func BenchmarkFilter(b *testing.B) {
	for _, fb := range filterBenches {
		b.Run(fb.name, func(b *testing.B) {
			benchOp(b, func(in exec.Operator) exec.Operator { return exec.NewFilter(in, fb.pred, benchEc) })
		})
		b.Run("count/"+fb.name, func(b *testing.B) {
			benchOp(b, func(in exec.Operator) exec.Operator {
				return agg.NewHashAgg(exec.NewFilter(in, fb.pred, benchEc), nil, countStar, benchEc)
			})
		})
	}
}

func BenchmarkProject(b *testing.B) {
	twice := &expr.Arith{Op: expr.Mul, L: bcol(0), R: &expr.Const{D: types.Int(types.TInt8, 2)}, T: types.TInt8}
	b.Run("columns", func(b *testing.B) {
		benchOp(b, func(in exec.Operator) exec.Operator {
			return exec.NewProject(in, []expr.Expr{bcol(1), bcol(0)}, benchEc)
		})
	})
	b.Run("arith", func(b *testing.B) {
		benchOp(b, func(in exec.Operator) exec.Operator { return exec.NewProject(in, []expr.Expr{twice}, benchEc) })
	})
	b.Run("arith/filtered", func(b *testing.B) {
		benchOp(b, func(in exec.Operator) exec.Operator {
			return exec.NewProject(exec.NewFilter(in, latencyGT100, benchEc), []expr.Expr{twice}, benchEc)
		})
	})
}

func BenchmarkHashAgg(b *testing.B) {
	sum := agg.Agg{Fn: agg.Sum, Arg: bcol(0), T: types.TNumeric}
	b.Run("count", func(b *testing.B) {
		benchOp(b, func(in exec.Operator) exec.Operator { return agg.NewHashAgg(in, nil, countStar, benchEc) })
	})
	b.Run("group-text/count,sum", func(b *testing.B) {
		benchOp(b, func(in exec.Operator) exec.Operator {
			return agg.NewHashAgg(in, []expr.Expr{bcol(1)}, append(countStar, sum), benchEc)
		})
	})
	b.Run("group-text/count,sum/filtered", func(b *testing.B) {
		benchOp(b, func(in exec.Operator) exec.Operator {
			return agg.NewHashAgg(exec.NewFilter(in, latencyGT100, benchEc), []expr.Expr{bcol(1)}, append(countStar, sum), benchEc)
		})
	})
}

// BenchmarkHashJoin probes 1M rows against a 100-row build side (one row
// a tenant).
func BenchmarkHashJoin(b *testing.B) {
	first := benchData()[0]
	dims := exec.NewProject(exec.NewBatches(benchTypes, []arrow.RecordBatch{first}), []expr.Expr{bcol(1)}, benchEc)
	build := func() exec.Operator {
		return agg.NewHashAgg(exec.NewProject(exec.NewBatches(benchTypes, []arrow.RecordBatch{first}), []expr.Expr{bcol(1)}, benchEc),
			[]expr.Expr{&expr.Col{Idx: 0, T: types.TText}}, nil, benchEc)
	}
	_ = dims
	b.Run("inner", func(b *testing.B) {
		benchOp(b, func(in exec.Operator) exec.Operator {
			return exec.NewHashJoin(exec.InnerJoin, in, build(), []expr.Expr{bcol(1)}, []expr.Expr{&expr.Col{Idx: 0, T: types.TText}}, nil, benchEc)
		})
	})
	b.Run("inner/filtered", func(b *testing.B) {
		benchOp(b, func(in exec.Operator) exec.Operator {
			return exec.NewHashJoin(exec.InnerJoin, exec.NewFilter(in, latencyGT100, benchEc), build(), []expr.Expr{bcol(1)}, []expr.Expr{&expr.Col{Idx: 0, T: types.TText}}, nil, benchEc)
		})
	})
}

func BenchmarkSort(b *testing.B) {
	b.Run("int64", func(b *testing.B) {
		benchOp(b, func(in exec.Operator) exec.Operator {
			return exec.NewSort(in, []exec.SortKey{{Expr: bcol(0)}}, benchEc)
		})
	})
	b.Run("text,int64", func(b *testing.B) {
		benchOp(b, func(in exec.Operator) exec.Operator {
			return exec.NewSort(in, []exec.SortKey{{Expr: bcol(1)}, {Expr: bcol(0)}}, benchEc)
		})
	})
}
