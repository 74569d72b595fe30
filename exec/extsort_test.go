package exec

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// Under a tiny budget a sort writes runs (and merges them in more than
// one pass) and gives exactly the in-memory order, ties in input order
// included.
func TestSortSpills(t *testing.T) {
	ts := []types.T{types.TInt4, types.TText, types.TNumeric, types.TFloat8, types.TInt8}
	const n = 30000
	recs := rowsOf(ts, n, 500, func(r, c int) *types.Datum {
		switch c {
		case 0:
			if r%13 == 0 {
				return nil
			}
			return ptr(types.Int(types.TInt4, int64(r*31%50)))
		case 1:
			return ptr(types.TextDatum(fmt.Sprintf("t%d", r*17%7)))
		case 2:
			// 1.5 and 1.50 are equal: ties keep input order.
			return ptr(types.Datum{T: types.TNumeric, S: []string{"1.5", "1.50", "-2", "10", "0.001"}[r%5]})
		case 3:
			return ptr(types.Float8Datum([]float64{math.NaN(), 1, -1, math.Inf(1), 0}[r*7%5]))
		}
		return ptr(types.Int(types.TInt8, int64(r))) // the row's input position
	})
	defer releaseAll(recs)
	col := func(i int) expr.Expr { return &expr.Col{Idx: i, T: ts[i]} }
	for _, keys := range [][]SortKey{
		{{Expr: col(0), Desc: true, NullsFirst: true}, {Expr: col(1)}},
		{{Expr: col(2)}, {Expr: col(3), Desc: true}},
		{{Expr: col(1), NullsFirst: true}, {Expr: col(0)}},
	} {
		// 64 kB holds a few batches: about 100 runs, merged in two passes.
		spilled(t, 64<<10, true, func() Operator { return NewSort(source(ts, recs), keys, &expr.Ctx{}) })
	}
}

// Keys the merge cannot compare (arrays) fail with 53200 rather than spill.
func TestSortUnmergeableFails(t *testing.T) {
	at := types.ArrayOf(types.Int4)
	ts := []types.T{at}
	recs := rowsOf(ts, 5000, 500, func(r, c int) *types.Datum {
		return ptr(types.Datum{T: at, S: fmt.Sprintf("{%d,%d}", r%10, r)})
	})
	defer releaseAll(recs)
	ctx, _, dir := budgeted(t, 16<<10)
	_, err := runOp(ctx, NewSort(source(ts, recs), []SortKey{{Expr: &expr.Col{Idx: 0, T: at}}}, &expr.Ctx{}))
	var pe *pgerr.Error
	if !errors.As(err, &pe) || pe.Code != pgerr.OutOfMemory {
		t.Fatalf("err %v, want 53200", err)
	}
	if n := filesUnder(dir); n != 0 {
		t.Fatalf("%d spill files left", n)
	}
}

// PostgreSQL's NaN is greater than every float: last ascending, first
// descending (Arrow's sort puts it last both ways).
func TestSortNaNIsGreatest(t *testing.T) {
	ts := []types.T{types.TFloat8}
	recs := rowsOf(ts, 6, 6, func(r, c int) *types.Datum {
		if r == 5 {
			return nil
		}
		return ptr(types.Float8Datum([]float64{math.NaN(), 1, -1, math.Inf(1), 0}[r]))
	})
	defer releaseAll(recs)
	for _, tc := range []struct {
		desc bool
		want string
	}{{false, "-1 0 1 Infinity NaN NULL"}, {true, "NULL NaN Infinity 1 0 -1"}} {
		got, err := runOp(context.Background(), NewSort(source(ts, recs), []SortKey{{Expr: &expr.Col{Idx: 0, T: ts[0]}, Desc: tc.desc, NullsFirst: tc.desc}}, &expr.Ctx{}))
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("desc=%v: %s, want %s", tc.desc, s, tc.want)
		}
	}
}
