package exec

import (
	"context"
	"errors"
	"testing"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Under a small budget every kind of hash join runs as a grace hash join
// and answers as it does in memory.
func TestHashJoinSpills(t *testing.T) {
	lts := []types.T{types.TInt4, types.TInt8}
	rts := []types.T{types.TInt4, types.TText}
	left := rowsOf(lts, 3000, 500, func(r, c int) *types.Datum {
		if c == 0 {
			if r%97 == 0 {
				return nil
			}
			return ptr(types.Int(types.TInt4, int64(r%400)))
		}
		return ptr(types.Int(types.TInt8, int64(r)))
	})
	right := rowsOf(rts, 2500, 300, func(r, c int) *types.Datum {
		if c == 0 {
			if r%89 == 0 {
				return nil
			}
			return ptr(types.Int(types.TInt4, int64(r%450)))
		}
		return ptr(types.TextDatum("right row " + string(rune('a'+r%26))))
	})
	defer releaseAll(left)
	defer releaseAll(right)
	lk := []expr.Expr{&expr.Col{Idx: 0, T: types.TInt4}}
	rk := []expr.Expr{&expr.Col{Idx: 0, T: types.TInt4}}
	// ON l.k = r.k AND l.v % 3 <> 0, as the rest of ON: over left then right.
	extra := &expr.Compare{Op: expr.NE, L: &expr.Col{Idx: 3, T: types.TText}, R: &expr.Const{D: types.TextDatum("right row c")}}
	for _, kind := range []JoinKind{InnerJoin, LeftJoin, RightJoin, FullJoin} {
		for _, ex := range []expr.Expr{nil, extra} {
			spilled(t, 32<<10, false, func() Operator {
				return NewHashJoin(kind, source(lts, left), source(rts, right), lk, rk, ex, &expr.Ctx{})
			})
		}
	}
}

// A join whose build side is one key bigger than the budget cannot be
// split: it fails with 53200 and leaves no file.
func TestHashJoinOneKeyTooBigFails(t *testing.T) {
	ts := []types.T{types.TInt4, types.TText}
	rows := rowsOf(ts, 6000, 1000, func(r, c int) *types.Datum {
		if c == 0 {
			return ptr(types.Int(types.TInt4, 7))
		}
		return ptr(types.TextDatum("a value long enough to take room"))
	})
	defer releaseAll(rows)
	k := []expr.Expr{&expr.Col{Idx: 0, T: types.TInt4}}
	ctx, _, dir := budgeted(t, 64<<10)
	_, err := runOp(ctx, NewHashJoin(InnerJoin, source(ts, rows[:1]), source(ts, rows), k, k, nil, &expr.Ctx{}))
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.OutOfMemory {
		t.Fatalf("err %v, want 53200", err)
	}
	if n := filesUnder(dir); n != 0 {
		t.Fatalf("%d spill files left", n)
	}
}

// One key matching every row streams its fan-out a batch at a time, and a
// cancel stops it between batches.
func TestHashJoinFanOutStreams(t *testing.T) {
	ts := []types.T{types.TInt4}
	rows := rowsOf(ts, 4000, 4000, func(r, c int) *types.Datum { return ptr(types.Int(types.TInt4, 1)) })
	defer releaseAll(rows)
	k := []expr.Expr{&expr.Col{Idx: 0, T: types.TInt4}}
	j := NewHashJoin(InnerJoin, source(ts, rows), source(ts, rows), k, k, nil, &expr.Ctx{})
	ctx, cancel := context.WithCancel(context.Background())
	if err := j.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	b, err := j.Next(ctx)
	if err != nil || b == nil {
		t.Fatalf("first batch: %v, %v", b, err)
	}
	if b.NumRows() > BatchSize {
		t.Fatalf("first batch has %d rows; the fan-out of 16M pairs should come %d at a time", b.NumRows(), BatchSize)
	}
	b.Release()
	cancel()
	if _, err := j.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: %v, want context.Canceled", err)
	}
}

// A nested loop join cannot spill: a right input beyond the budget fails
// with 53200, and within it the join runs.
func TestNestedLoopJoinBudget(t *testing.T) {
	ts := []types.T{types.TInt4}
	rows := rowsOf(ts, 5000, 1000, func(r, c int) *types.Datum { return ptr(types.Int(types.TInt4, int64(r))) })
	defer releaseAll(rows)
	ctx, b, _ := budgeted(t, 8<<10)
	_, err := runOp(ctx, NewNestedLoopJoin(InnerJoin, source(ts, rows[:1]), source(ts, rows), nil, &expr.Ctx{}))
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.OutOfMemory {
		t.Fatalf("err %v, want 53200", err)
	}
	if b.Used() != 0 {
		t.Fatalf("%d bytes held after Close", b.Used())
	}
	ctx, _, _ = budgeted(t, 1<<20)
	got, err := runOp(ctx, NewNestedLoopJoin(InnerJoin, source(ts, rows[:1]), source(ts, rows[:1]), nil, &expr.Ctx{}))
	if err != nil || len(got) != 1000*1000 {
		t.Fatalf("%d rows, %v; want 1000000", len(got), err)
	}
}
