package exec

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/exec/mem"
	"github.com/loamdb/loam/types"
)

// rowsOf makes batches of at most size rows; cell(r, c) is row r's value
// of column c (nil for NULL).
func rowsOf(ts []types.T, n, size int, cell func(r, c int) *types.Datum) []arrow.RecordBatch {
	var out []arrow.RecordBatch
	for lo := 0; lo < n; lo += size {
		hi := min(lo+size, n)
		cols := make([]arrow.Array, len(ts))
		for c, t := range ts {
			b := expr.NewBuilder(t, hi-lo)
			for r := lo; r < hi; r++ {
				if d := cell(r, c); d != nil {
					b.Append(*d)
				} else {
					b.Append(types.NullOf(t))
				}
			}
			cols[c] = b.Finish()
		}
		out = append(out, array.NewRecordBatch(Schema(ts), cols, int64(hi-lo)))
		for _, c := range cols {
			c.Release()
		}
	}
	return out
}

// source replays batches (retained for each reader) as an operator.
func source(ts []types.T, recs []arrow.RecordBatch) Operator {
	for _, r := range recs {
		r.Retain()
	}
	return NewBatches(ts, recs)
}

// budgeted is a context whose statement has limit bytes of query memory
// (0: unlimited), and the budget's spill directory.
func budgeted(t *testing.T, limit int64) (context.Context, *mem.Budget, string) {
	t.Helper()
	dir := t.TempDir()
	p, err := mem.NewPool(limit, dir)
	if err != nil {
		t.Fatal(err)
	}
	b := p.NewBudget()
	return mem.WithBudget(context.Background(), b), b, dir
}

// runOp runs op to its end and renders its rows as text, in the order
// they came.
func runOp(ctx context.Context, op Operator) ([]string, error) {
	if err := op.Open(ctx); err != nil {
		op.Close()
		return nil, err
	}
	defer op.Close()
	var out []string
	ts := op.Types()
	for {
		rec, err := op.Next(ctx)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			return out, nil
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			vals := make([]string, len(ts))
			for c, t := range ts {
				if rec.Column(c).IsNull(r) {
					vals[c] = "NULL"
				} else {
					vals[c] = types.FormatText(types.DatumAt(t, rec.Column(c), r), time.UTC)
				}
			}
			out = append(out, strings.Join(vals, "|"))
		}
		rec.Release()
	}
}

// spilled runs the operator make builds twice: unlimited, then under a
// budget of limit bytes. It checks the second spilled (made files), gave
// the same rows (in the same order when ordered), left no file behind and
// returned all its memory.
func spilled(t *testing.T, limit int64, ordered bool, make func() Operator) []string {
	t.Helper()
	want, err := runOp(context.Background(), make())
	if err != nil {
		t.Fatal(err)
	}
	ctx, b, dir := budgeted(t, limit)
	op := make()
	files := 0
	seen := &watchDir{dir: dir, max: &files}
	got, err := runOp(ctx, &spyOp{Operator: op, each: seen.look})
	if err != nil {
		t.Fatalf("under a budget of %d: %v", limit, err)
	}
	if files == 0 {
		t.Fatalf("under a budget of %d: no spill file was made", limit)
	}
	if !ordered {
		slices.Sort(want)
		slices.Sort(got)
	}
	if !slices.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("spilled: %d rows, in memory %d; first difference at row %d:\n%v\n%v", len(got), len(want), i,
			got[i:min(i+5, len(got))], want[i:min(i+5, len(want))])
	}
	if left := filesUnder(dir); left != 0 {
		t.Fatalf("%d spill files left after Close", left)
	}
	if b.Used() != 0 {
		t.Fatalf("%d bytes of budget still held after Close", b.Used())
	}
	return got
}

// spyOp calls each after every Next (to look at the spill directory).
type spyOp struct {
	Operator
	each func()
}

func (s *spyOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := s.Operator.Next(ctx)
	s.each()
	return rec, err
}

type watchDir struct {
	dir string
	max *int
}

func (w *watchDir) look() { *w.max = max(*w.max, filesUnder(w.dir)) }

func filesUnder(dir string) int {
	n := 0
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			n += filesUnder(dir + "/" + e.Name())
		} else {
			n++
		}
	}
	return n
}

func ptr(d types.Datum) *types.Datum { return &d }
