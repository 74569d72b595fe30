package window

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/agg"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Under a budget far smaller than its input, windows that share their
// PARTITION BY run a partition at a time over the externally sorted input
// and give the rows, in the order, that the in-memory run gives.
func TestWindowSpills(t *testing.T) {
	recs := bigInput(20000)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	o2 := Spec{Partition: []expr.Expr{colP}, Order: []exec.SortKey{{Expr: colV, Desc: true}}}
	specs := []Spec{byO(), o2}
	funcs := []Func{
		{Kind: RowNumber, T: types.TInt8, Spec: 0, Frame: DefaultFrame},
		withSpec(aggOf(agg.Sum, colV), 0),
		{Kind: Rank, T: types.TInt8, Spec: 1, Frame: DefaultFrame},
		withSpec(withFrame(aggOf(agg.Max, colV), rows(prec(2), cur)), 1),
	}
	want, err := runWindow(context.Background(), recs, specs, funcs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pool, _ := mem.NewPool(64<<10, dir)
	b := pool.NewBudget()
	ctx := mem.WithBudget(context.Background(), b)
	seen := 0
	got, err := runWindowWatching(ctx, recs, specs, funcs, func() { seen = max(seen, countFiles(dir)) })
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatal("nothing spilled")
	}
	if !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("spilled %d rows, in memory %d; first difference at %d: %v vs %v", len(got), len(want), i,
			got[i:min(i+3, len(got))], want[i:min(i+3, len(want))])
	}
	if n := countFiles(dir); n != 0 {
		t.Fatalf("%d spill files left", n)
	}
	if b.Used() != 0 {
		t.Fatalf("%d bytes still held", b.Used())
	}
}

// Windows without a common PARTITION BY cannot run a partition at a time:
// beyond the budget they fail with 53200.
func TestWindowWithoutPartitionFails(t *testing.T) {
	recs := bigInput(5000)
	ctx := mem.WithBudget(context.Background(), mustPool(t, 16<<10).NewBudget())
	_, err := runWindow(ctx, recs, []Spec{{Order: []exec.SortKey{{Expr: colO}}}},
		[]Func{{Kind: RowNumber, T: types.TInt8, Frame: DefaultFrame}})
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.OutOfMemory {
		t.Fatalf("err %v, want 53200", err)
	}
}

func mustPool(t *testing.T, n int64) *mem.Pool {
	p, err := mem.NewPool(n, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func withSpec(f Func, s int) Func { f.Spec = s; return f }

// bigInput is n rows (p, o, v): 300 partitions (and NULL), ties in o.
func bigInput(n int) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for lo := 0; lo < n; lo += 1000 {
		bs := []*expr.Builder{expr.NewBuilder(types.TInt4, 1000), expr.NewBuilder(types.TInt4, 1000), expr.NewBuilder(types.TInt4, 1000)}
		for r := lo; r < min(lo+1000, n); r++ {
			p := types.Int(types.TInt4, int64(r*7919%300))
			if r%211 == 0 {
				p = types.NullOf(types.TInt4)
			}
			bs[0].Append(p)
			bs[1].Append(types.Int(types.TInt4, int64(r%13)))
			bs[2].Append(types.Int(types.TInt4, int64(r)))
		}
		cols := []arrow.Array{bs[0].Finish(), bs[1].Finish(), bs[2].Finish()}
		out = append(out, array.NewRecordBatch(exec.Schema([]types.T{types.TInt4, types.TInt4, types.TInt4}), cols, int64(cols[0].Len())))
		for _, c := range cols {
			c.Release()
		}
	}
	return out
}

func runWindow(ctx context.Context, recs []arrow.RecordBatch, specs []Spec, funcs []Func) ([]string, error) {
	return runWindowWatching(ctx, recs, specs, funcs, func() {})
}

func runWindowWatching(ctx context.Context, recs []arrow.RecordBatch, specs []Spec, funcs []Func, each func()) ([]string, error) {
	for _, r := range recs {
		r.Retain()
	}
	op := New(exec.NewBatches([]types.T{types.TInt4, types.TInt4, types.TInt4}, recs), specs, funcs, &expr.Ctx{Loc: time.UTC})
	if err := op.Open(ctx); err != nil {
		return nil, err
	}
	defer op.Close()
	var out []string
	for {
		rec, err := op.Next(ctx)
		each()
		if err != nil {
			return nil, err
		}
		if rec == nil {
			return out, nil
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			var row []string
			for c, ty := range op.Types() {
				if rec.Column(c).IsNull(r) {
					row = append(row, "NULL")
				} else {
					row = append(row, types.FormatText(types.DatumAt(ty, rec.Column(c), r), time.UTC))
				}
			}
			out = append(out, strings.Join(row, "|"))
		}
		rec.Release()
	}
}

func countFiles(dir string) int {
	n := 0
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			n += countFiles(dir + "/" + e.Name())
		} else {
			n++
		}
	}
	return n
}
