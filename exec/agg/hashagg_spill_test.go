package agg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/loamdb/loam/exec"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Under a budget that holds a few hundred groups, grouping thousands of
// keys spills (splitting the files again) and answers exactly as in
// memory, per-group row order (array_agg) included; no file is left.
func TestHashAggSpills(t *testing.T) {
	const n = 20000
	g1, g2, x, s := make([]types.Datum, n), make([]types.Datum, n), make([]types.Datum, n), make([]types.Datum, n)
	for r := range n {
		g1[r] = types.Int(types.TInt4, int64(r*7919%3000))
		if r%101 == 0 {
			g1[r] = types.NullOf(types.TInt4)
		}
		g2[r] = types.TextDatum(fmt.Sprintf("k%d", r%3)) // with g1: (g1, g2) has 9000 groups
		x[r] = types.Int(types.TInt4, int64(r/3000%3))   // a group's rows are 3000 apart
		s[r] = types.TextDatum(fmt.Sprintf("s%05d", r))
	}
	ts := []types.T{types.TInt4, types.TText, types.TInt4, types.TText}
	cols := [][]types.Datum{g1, g2, x, s}
	xc := &expr.Col{Idx: 2, T: types.TInt4}
	sc := &expr.Col{Idx: 3, T: types.TText}
	distinct := mk(Count, xc)
	distinct.Distinct = true
	aggs := []Agg{mk(CountStar, nil), mk(Sum, xc), mk(Min, sc), distinct, mk(ArrayAgg, xc)}
	for _, groupBy := range [][]expr.Expr{
		{&expr.Col{Idx: 1, T: types.TText}, &expr.Col{Idx: 0, T: types.TInt4}},
		{&expr.Col{Idx: 0, T: types.TInt4}},
		{&expr.Cast{Arg: &expr.Col{Idx: 0, T: types.TInt4}, T: types.TText}},
	} {
		want := rows(t, context.Background(), source(ts, cols, 1000), groupBy, aggs)
		dir := t.TempDir()
		pool, _ := mem.NewPool(64<<10, dir)
		b := pool.NewBudget()
		ctx := mem.WithBudget(context.Background(), b)
		src := &spyDir{batchSource: source(ts, cols, 1000), dir: dir}
		got := rows(t, ctx, src, groupBy, aggs)
		if src.files == 0 {
			t.Fatalf("group by %v: nothing spilled", groupBy)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("group by %v: spilled %d groups, in memory %d\n%.400v\n%.400v", groupBy, len(got), len(want), got, want)
		}
		if left := countFiles(dir); left != 0 {
			t.Fatalf("%d spill files left", left)
		}
		if b.Used() != 0 {
			t.Fatalf("%d bytes still held", b.Used())
		}
	}
}

// A budget too small for even one group fails with 53200.
func TestHashAggTooSmallFails(t *testing.T) {
	pool, _ := mem.NewPool(10, t.TempDir())
	ctx := mem.WithBudget(context.Background(), pool.NewBudget())
	op := NewHashAgg(source([]types.T{types.TInt4}, [][]types.Datum{ints(types.TInt4, 1, 2, 3)}, 10),
		[]expr.Expr{&expr.Col{Idx: 0, T: types.TInt4}}, []Agg{mk(CountStar, nil)}, &expr.Ctx{Loc: time.UTC})
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	var err error
	for err == nil {
		var rec arrow.RecordBatch
		if rec, err = op.Next(ctx); rec == nil && err == nil {
			t.Fatal("finished within 10 bytes")
		} else if rec != nil {
			rec.Release()
		}
	}
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.OutOfMemory {
		t.Fatalf("err %v, want 53200", err)
	}
}

// rows runs a hash aggregation under ctx, rendering each row as one string.
func rows(t *testing.T, ctx context.Context, src exec.Operator, groupBy []expr.Expr, aggs []Agg) []string {
	t.Helper()
	op := NewHashAgg(src, groupBy, aggs, &expr.Ctx{Loc: time.UTC})
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
			return out
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

// spyDir counts the most files the spill directory held while the
// aggregation read its input.
type spyDir struct {
	*batchSource
	dir   string
	files int
}

func (s *spyDir) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := s.batchSource.Next(ctx)
	if rec == nil {
		s.files = max(s.files, countFiles(s.dir))
	}
	return rec, err
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

// count(DISTINCT) keeps every value it has seen with its group: values
// far beyond the budget fail with 53200 (there is no group to spill).
func TestDistinctBeyondBudgetFails(t *testing.T) {
	vals := make([]types.Datum, 20000)
	for r := range vals {
		vals[r] = types.Int(types.TInt4, int64(r))
	}
	src := source([]types.T{types.TInt4}, [][]types.Datum{vals}, 1000)
	a := mk(Count, &expr.Col{Idx: 0, T: types.TInt4})
	a.Distinct = true
	pool, _ := mem.NewPool(64<<10, t.TempDir())
	ctx := mem.WithBudget(context.Background(), pool.NewBudget())
	op := NewHashAgg(src, nil, []Agg{a}, &expr.Ctx{Loc: time.UTC})
	if err := op.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	_, err := op.Next(ctx)
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.OutOfMemory {
		t.Fatalf("err %v, want 53200", err)
	}
	// Within the budget it counts.
	if got := rows(t, context.Background(), source([]types.T{types.TInt4}, [][]types.Datum{vals}, 1000), nil, []Agg{a}); len(got) != 1 || got[0] != "20000" {
		t.Fatalf("count(DISTINCT) unlimited: %v", got)
	}
}
