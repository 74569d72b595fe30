package exec

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// A cross join whose blocks come from one left batch stops when its
// statement is cancelled: nothing below it (no scan) would notice.
func TestNestedLoopJoinCancel(t *testing.T) {
	ints := func(n int) arrow.RecordBatch {
		b := array.NewInt32Builder(memory.DefaultAllocator)
		for i := range n {
			b.Append(int32(i))
		}
		col := b.NewArray()
		defer col.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int32, Nullable: true}}, nil)
		return array.NewRecordBatch(schema, []arrow.Array{col}, int64(n))
	}
	ts := []types.T{types.TInt4}
	left, right := ints(1000), ints(1000)
	defer left.Release()
	defer right.Release()
	j := NewNestedLoopJoin(InnerJoin, NewBatches(ts, []arrow.RecordBatch{left}), NewBatches(ts, []arrow.RecordBatch{right}), nil, &expr.Ctx{})
	ctx, cancel := context.WithCancel(context.Background())
	if err := j.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	b, err := j.Next(ctx)
	if err != nil || b == nil {
		t.Fatalf("first block: %v, %v", b, err)
	}
	b.Release()
	cancel()
	if b, err := j.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("after cancel: batch %v, err %v; want context.Canceled", b, err)
	}
}
