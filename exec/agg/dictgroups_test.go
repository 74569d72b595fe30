package agg

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// callBatches are rows of (tenant, model, latency): tenants and models
// with NULLs; with dict, every batch but each third carries tenant and
// model as dictionary arrays (each batch its own dictionary, in its own
// order), the others as plain strings.
func callBatches(rows, size int, dict bool) *batchSource {
	rng := rand.New(rand.NewSource(2))
	models := []string{"gpt-4o", "claude", "gpt-4o-mini", "llama", "mistral"}
	ts := []types.T{types.TText, types.TText, types.TInt8}
	s := &batchSource{ts: ts}
	for lo, bi := 0, 0; lo < rows; lo, bi = lo+size, bi+1 {
		n := min(size, rows-lo)
		tb := array.NewStringBuilder(memory.DefaultAllocator)
		mb := array.NewStringBuilder(memory.DefaultAllocator)
		lb := array.NewInt64Builder(memory.DefaultAllocator)
		for i := 0; i < n; i++ {
			if rng.Intn(50) == 0 {
				tb.AppendNull()
			} else {
				tb.Append(fmt.Sprintf("t%03d", rng.Intn(200)))
			}
			if rng.Intn(70) == 0 {
				mb.AppendNull()
			} else {
				mb.Append(models[rng.Intn(len(models))])
			}
			lb.Append(int64(rng.Intn(1000)))
		}
		cols := []arrow.Array{tb.NewArray(), mb.NewArray(), lb.NewArray()}
		if dict && bi%3 != 2 {
			for c := 0; c < 2; c++ {
				d := exec.DictEncode(cols[c].(*array.String))
				cols[c].Release()
				cols[c] = d
			}
		}
		fields := make([]arrow.Field, len(cols))
		for i, c := range cols {
			fields[i] = arrow.Field{Name: fmt.Sprint("c", i), Type: c.DataType(), Nullable: true}
		}
		s.recs = append(s.recs, array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n)))
	}
	return s
}

func runOp(t testing.TB, op exec.Operator) []string {
	ctx := context.Background()
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	var out []string
	for {
		rec, err := op.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			row := ""
			for c := 0; c < int(rec.NumCols()); c++ {
				row += rec.Column(c).ValueStr(r) + "|"
			}
			out = append(out, row)
		}
		rec.Release()
	}
	sort.Strings(out)
	return out
}

// TestHashAggDict groups by dictionary keys (with NULLs, per-batch
// dictionaries and plain batches between) and checks the groups against
// grouping the same rows as plain strings.
func TestHashAggDict(t *testing.T) {
	tenant := &expr.Col{Idx: 0, T: types.TText}
	model := &expr.Col{Idx: 1, T: types.TText}
	lat := &expr.Col{Idx: 2, T: types.TInt8}
	aggs := []Agg{mk(CountStar, nil), {Fn: Sum, Arg: lat, T: types.TNumeric}}
	ec := &expr.Ctx{Loc: time.UTC}
	for _, keys := range [][]expr.Expr{{tenant}, {model}, {tenant, model}, {model, lat, tenant}} {
		dict := make([]bool, len(keys))
		for i, k := range keys {
			dict[i] = k != lat
		}
		want := runOp(t, NewHashAgg(callBatches(30000, 1000, false), keys, aggs, ec))
		got := runOp(t, NewHashAggDict(callBatches(30000, 1000, true), keys, aggs, ec, dict))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("keys %v: %d groups, want %d", keys, len(got), len(want))
		}
		if len(want) < 6 {
			t.Errorf("keys %v: only %d groups", keys, len(want))
		}
	}
}

// BenchmarkGroupTenantModel is count(*) GROUP BY tenant, model over 2M
// rows in 16384-row batches, plain strings against dictionaries.
func BenchmarkGroupTenantModel(b *testing.B) {
	keys := []expr.Expr{&expr.Col{Idx: 0, T: types.TText}, &expr.Col{Idx: 1, T: types.TText}}
	aggs := []Agg{mk(CountStar, nil)}
	ec := &expr.Ctx{Loc: time.UTC}
	const rows = 2_000_000
	for _, dict := range []bool{false, true} {
		src := callBatches(rows, 16384, false)
		if dict {
			for i, r := range src.recs {
				cols := []arrow.Array{exec.DictEncode(r.Column(0).(*array.String)), exec.DictEncode(r.Column(1).(*array.String)), r.Column(2)}
				fields := make([]arrow.Field, len(cols))
				for j, c := range cols {
					fields[j] = arrow.Field{Name: fmt.Sprint("c", j), Type: c.DataType(), Nullable: true}
				}
				src.recs[i] = array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, r.NumRows())
			}
		}
		b.Run(fmt.Sprintf("dict=%v", dict), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var op exec.Operator
				if dict {
					op = NewHashAggDict(src, keys, aggs, ec, []bool{true, true})
				} else {
					op = NewHashAgg(src, keys, aggs, ec)
				}
				drain(b, op)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
	}
}
