package build

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/physical"
	"github.com/loamdb/loam/types"
)

// benchRows are 2M rows (g bigint: 8 groups, v float8) in batches of
// exec.BatchSize: the input of the parallel operator benchmarks, in
// memory so that they time the operators, not the files.
func benchRows(b *testing.B) *physical.Batches {
	const n = 2_000_000
	ts := []types.T{types.TInt8, types.TFloat8}
	var recs []arrow.RecordBatch
	for off := 0; off < n; off += exec.BatchSize {
		m := min(exec.BatchSize, n-off)
		gb, vb := array.NewInt64Builder(memory.DefaultAllocator), array.NewFloat64Builder(memory.DefaultAllocator)
		for i := off; i < off+m; i++ {
			gb.Append(int64(i % 8))
			vb.Append(float64(i%1000) / 7)
		}
		g, v := gb.NewArray(), vb.NewArray()
		recs = append(recs, array.NewRecordBatch(exec.Schema(ts), []arrow.Array{g, v}, int64(m)))
		g.Release()
		v.Release()
	}
	b.Cleanup(func() {
		for _, r := range recs {
			r.Release()
		}
	})
	return &physical.Batches{ColumnTypes: ts, Recs: recs}
}

// benchPlans is a filtered grouped aggregation over src: serially, and
// split for 2 workers.
func benchPlans(src *physical.Batches) (serial, parallel physical.Node) {
	v := &expr.Col{Idx: 1, T: types.TFloat8}
	pred := &expr.Compare{Op: expr.GT, L: v, R: &expr.Const{D: types.Float8Datum(10)}}
	h := &physical.HashAgg{In: &physical.Filter{In: src, Pred: pred}, GroupBy: []expr.Expr{&expr.Col{Idx: 0, T: types.TInt8}},
		Aggs: []agg.Agg{{Fn: agg.CountStar, T: types.TInt8}, {Fn: agg.Sum, Arg: v, T: types.TFloat8}, {Fn: agg.Avg, Arg: v, T: types.TFloat8}}}
	return h, Parallel{Workers: 2}.splitAgg(h, src)
}

func runPlan(b *testing.B, n physical.Node) {
	ctx := context.Background()
	op, err := Build(ctx, n, env())
	if err != nil {
		b.Fatal(err)
	}
	defer op.Close()
	if err := op.Open(ctx); err != nil {
		b.Fatal(err)
	}
	for {
		rec, err := op.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if rec == nil {
			return
		}
		rec.Release()
	}
}

// BenchmarkParallelAgg: filter and grouped count/sum/avg over 2M rows,
// serial and with 2 workers (partial and finalize aggregation).
func BenchmarkParallelAgg(b *testing.B) {
	serial, parallel := benchPlans(benchRows(b))
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			runPlan(b, serial)
		}
	})
	b.Run("workers=2", func(b *testing.B) {
		for b.Loop() {
			runPlan(b, parallel)
		}
	})
}

// BenchmarkParallelJoin: 2M rows probing an 8-row hash table, then a
// grouped count and sum; serial and with 2 workers probing one table.
func BenchmarkParallelJoin(b *testing.B) {
	src := benchRows(b)
	g := &expr.Col{Idx: 0, T: types.TInt8}
	join := &physical.HashJoin{Kind: exec.InnerJoin, Left: src, Right: ints(0, 1, 2, 3, 4, 5, 6, 7),
		LeftKeys: []expr.Expr{g}, RightKeys: []expr.Expr{g}}
	h := &physical.HashAgg{In: join, GroupBy: []expr.Expr{&expr.Col{Idx: 2, T: types.TInt8}},
		Aggs: []agg.Agg{{Fn: agg.CountStar, T: types.TInt8}, {Fn: agg.Sum, Arg: &expr.Col{Idx: 1, T: types.TFloat8}, T: types.TFloat8}}}
	parallel := Parallel{Workers: 2}.splitAgg(h, src)
	b.Run("serial", func(b *testing.B) {
		for b.Loop() {
			runPlan(b, h)
		}
	})
	b.Run("workers=2", func(b *testing.B) {
		for b.Loop() {
			runPlan(b, parallel)
		}
	})
}
