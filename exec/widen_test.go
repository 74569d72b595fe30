package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// TestWiden feeds batches of many lengths (more than the NULL columns it
// keeps) and checks each output: read columns in place, the rest NULL.
func TestWiden(t *testing.T) {
	all := []types.T{types.TText, types.TInt8, types.TFloat8}
	var recs []arrow.RecordBatch
	for n := 1; n <= 40; n++ {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		for i := 0; i < n; i++ {
			b.Append(int64(n*100 + i))
		}
		a := b.NewArray()
		recs = append(recs, array.NewRecordBatch(Schema([]types.T{types.TInt8}), []arrow.Array{a}, int64(n)))
		a.Release()
	}
	w := NewWiden(NewBatches([]types.T{types.TInt8}, recs), []int{1}, all)
	ctx := context.Background()
	if err := w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for n := 1; n <= 40; n++ {
		out, err := w.Next(ctx)
		if err != nil || out == nil {
			t.Fatalf("batch %d: %v", n, err)
		}
		if int(out.NumRows()) != n || out.NumCols() != 3 {
			t.Fatalf("batch %d: %d rows, %d cols", n, out.NumRows(), out.NumCols())
		}
		if got := out.Column(1).(*array.Int64).Value(n - 1); got != int64(n*100+n-1) {
			t.Fatalf("batch %d: read column holds %d", n, got)
		}
		for _, c := range []int{0, 2} {
			if out.Column(c).NullN() != n {
				t.Fatalf("batch %d: column %d has %d NULLs", n, c, out.Column(c).NullN())
			}
		}
		out.Release()
	}
}
