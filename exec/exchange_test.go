package exec

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// intBatches are n batches of size ints each, counting up from 0.
func intBatches(n, size int) []arrow.RecordBatch {
	schema := Schema([]types.T{types.TInt8})
	out := make([]arrow.RecordBatch, n)
	for i := range out {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for j := range size {
			b.Append(int64(i*size + j))
		}
		col := b.NewArray()
		out[i] = array.NewRecordBatch(schema, []arrow.Array{col}, int64(size))
		col.Release()
	}
	return out
}

// failing is a pipeline stage that fails on its k-th batch, or blocks
// until cancelled when block is set.
type failing struct {
	Operator
	k     int
	n     int
	block bool
	seen  *atomic.Int64
}

func (f *failing) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := f.Operator.Next(ctx)
	if rec == nil || err != nil {
		return rec, err
	}
	f.seen.Add(1)
	f.n++
	if f.block {
		rec.Release()
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if f.n == f.k {
		rec.Release()
		return nil, errors.New("worker failed")
	}
	return rec, nil
}

// gatherOf is a Gather of workers copies of a Filter (x % 3 = 0) over
// the shared batches; wrap, when set, wraps each copy.
func gatherOf(recs []arrow.RecordBatch, workers int, wrap func(Operator) Operator) Operator {
	m := NewMorsels(NewBatches([]types.T{types.TInt8}, recs))
	pred := &expr.Compare{Op: expr.EQ, L: &expr.Arith{Op: expr.Mod, L: &expr.Col{Idx: 0, T: types.TInt8},
		R: &expr.Const{D: types.Int(types.TInt8, 3)}, T: types.TInt8}, R: &expr.Const{D: types.Int(types.TInt8, 0)}}
	ops := make([]Operator, workers)
	for i := range ops {
		var op Operator = NewFilter(m.Reader(), pred, &expr.Ctx{})
		if wrap != nil {
			op = wrap(op)
		}
		ops[i] = op
	}
	return NewGather(ops, []types.T{types.TInt8}, m)
}

func noLeaks(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left, %d before", n, before)
	}
}

func TestGatherRows(t *testing.T) {
	before := runtime.NumGoroutine()
	recs := intBatches(200, 100)
	for _, workers := range []int{1, 2, 4} {
		g := gatherOf(recs, workers, nil)
		ctx := context.Background()
		if err := g.Open(ctx); err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		for {
			rec, err := g.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if rec == nil {
				break
			}
			for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
				if seen[v] || v%3 != 0 {
					t.Fatalf("%d workers: row %d twice or not filtered", workers, v)
				}
				seen[v] = true
			}
			rec.Release()
		}
		if want := (200*100 + 2) / 3; len(seen) != want {
			t.Errorf("%d workers: %d rows, want %d", workers, len(seen), want)
		}
		g.Close()
		if d := g.(RunDetailer).RunDetails(); d[0] != "Workers Launched: "+string(rune('0'+workers)) || len(d) != workers+1 {
			t.Errorf("details %q", d)
		}
	}
	noLeaks(t, before)
}

// One worker's error is the Gather's, and stops the others.
func TestGatherError(t *testing.T) {
	before := runtime.NumGoroutine()
	recs := intBatches(2000, 10)
	var seen atomic.Int64
	i := 0
	g := gatherOf(recs, 2, func(op Operator) Operator {
		i++
		if i == 1 {
			return &failing{Operator: op, k: 3, seen: &seen}
		}
		return &failing{Operator: op, k: -1, seen: &seen}
	})
	ctx := context.Background()
	g.Open(ctx)
	var err error
	for {
		var rec arrow.RecordBatch
		rec, err = g.Next(ctx)
		if rec == nil || err != nil {
			break
		}
		rec.Release()
	}
	if err == nil || err.Error() != "worker failed" {
		t.Fatalf("error %v, want the worker's", err)
	}
	g.Close()
	if n := seen.Load(); n >= 2000 {
		t.Errorf("the other worker read all %d morsels after the failure", n)
	}
	noLeaks(t, before)
}

// Cancelling the consumer's context stops workers that wait on theirs.
func TestGatherCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	recs := intBatches(100, 10)
	var seen atomic.Int64
	g := gatherOf(recs, 2, func(op Operator) Operator { return &failing{Operator: op, block: true, seen: &seen} })
	ctx, cancel := context.WithCancel(context.Background())
	g.Open(ctx)
	done := make(chan error)
	go func() {
		_, err := g.Next(ctx)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next did not return after the cancel")
	}
	g.Close()
	noLeaks(t, before)
}

// A Gather closed before its end, or never read, leaves nothing running.
func TestGatherCloseEarly(t *testing.T) {
	before := runtime.NumGoroutine()
	recs := intBatches(500, 10)
	g := gatherOf(recs, 2, nil)
	ctx := context.Background()
	g.Open(ctx)
	rec, err := g.Next(ctx)
	if err != nil || rec == nil {
		t.Fatalf("first batch: %v %v", rec, err)
	}
	rec.Release()
	g.Close()
	unread := gatherOf(recs, 2, nil)
	unread.Open(ctx)
	unread.Close()
	noLeaks(t, before)
}
