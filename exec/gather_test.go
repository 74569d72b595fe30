package exec

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

// TestGather checks the hand-written take against Arrow's take kernel.
func TestGather(t *testing.T) {
	mem := memory.DefaultAllocator
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"a", "", "ccc", "dd"}, []bool{true, true, false, true})
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{1, 2, 3, 4}, []bool{true, false, true, true})
	fb := array.NewFloat64Builder(mem)
	fb.AppendValues([]float64{0.5, 1.5, 2.5, 3.5}, nil)
	i32 := array.NewInt32Builder(mem)
	i32.AppendValues([]int32{7, 8, 9, 10}, []bool{false, true, true, true})
	cols := []arrow.Array{sb.NewArray(), ib.NewArray(), fb.NewArray(), i32.NewArray(), array.NewNull(4)}
	rowSets := [][]int32{{}, {0}, {3, 2, 1, 0}, {2, 2, 2}, {1, 3, 1, 0, 2}}
	for _, col := range cols {
		for _, rows := range rowSets {
			got, ok := gather(col, rows)
			if !ok {
				t.Fatalf("%s: not gathered", col.DataType())
			}
			b := array.NewInt32Builder(mem)
			b.AppendValues(rows, nil)
			idx := b.NewArray()
			want, err := compute.TakeArray(context.Background(), col, idx)
			if err != nil {
				t.Fatal(err)
			}
			if !array.Equal(got, want) {
				t.Errorf("%s rows %v: got %v, want %v", col.DataType(), rows, got, want)
			}
		}
	}
}

func TestExactKey(t *testing.T) {
	for _, c := range []struct {
		k    types.Kind
		want bool
	}{{types.Text, true}, {types.Int8, true}, {types.TimestampTZ, true}, {types.Float8, false}, {types.Numeric, false}, {types.Char, false}} {
		if got := exactKey(types.Of(c.k)); got != c.want {
			t.Errorf("exactKey(%v) = %v", c.k, got)
		}
	}
}
