package exec

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The typed sort gives the permutation Arrow's kernel gives (with
// PostgreSQL's NaN placement) for every kind it takes, with NULLs, NaN, -0
// and ties, in each direction and NULL placement.
func TestFastSortMatchesArrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 3000
	mem := memory.DefaultAllocator
	makeCols := func() []arrow.Array {
		i64 := array.NewInt64Builder(mem)
		i32 := array.NewInt32Builder(mem)
		f64 := array.NewFloat64Builder(mem)
		str := array.NewStringBuilder(mem)
		d32 := array.NewDate32Builder(mem)
		ts := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Microsecond})
		floats := []float64{math.NaN(), 0, math.Copysign(0, -1), 1.5, -2, math.Inf(1), math.Inf(-1)}
		words := []string{"", "a", "ab", "b", "é", "Z"}
		for range n {
			null := rng.IntN(8) == 0
			if null {
				i64.AppendNull()
				i32.AppendNull()
				f64.AppendNull()
				str.AppendNull()
				d32.AppendNull()
				ts.AppendNull()
				continue
			}
			i64.Append(rng.Int64N(20) - 10)
			i32.Append(int32(rng.IntN(5)))
			f64.Append(floats[rng.IntN(len(floats))])
			str.Append(words[rng.IntN(len(words))])
			d32.Append(arrow.Date32(rng.IntN(4)))
			ts.Append(arrow.Timestamp(rng.Int64N(4)))
		}
		return []arrow.Array{i64.NewArray(), i32.NewArray(), f64.NewArray(), str.NewArray(), d32.NewArray(), ts.NewArray()}
	}
	cols := makeCols()
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	ctx := context.Background()
	for trial := range 200 {
		nk := 1 + rng.IntN(3)
		var keyCols []arrow.Array
		var keys []SortKey
		for range nk {
			keyCols = append(keyCols, cols[rng.IntN(len(cols))])
			keys = append(keys, SortKey{Desc: rng.IntN(2) == 0, NullsFirst: rng.IntN(2) == 0})
		}
		fast, ok, err := fastSortIndices(ctx, keyCols, keys, n)
		if err != nil || !ok {
			t.Fatalf("trial %d: fast sort refused: %v", trial, err)
		}
		slow, err := arrowSortIndices(ctx, keyCols, keys, n)
		if err != nil {
			t.Fatal(err)
		}
		a, b := fast.(*array.Uint64).Uint64Values(), slow.(*array.Uint64).Uint64Values()
		if !slices.Equal(a, b) {
			i := 0
			for a[i] == b[i] {
				i++
			}
			var desc []string
			for k, c := range keyCols {
				desc = append(desc, fmt.Sprintf("%v desc=%v nullsfirst=%v: %v vs %v", c.DataType(), keys[k].Desc, keys[k].NullsFirst, c.ValueStr(int(a[i])), c.ValueStr(int(b[i]))))
			}
			t.Fatalf("trial %d: permutations differ at %d: row %d vs Arrow's %d; keys %v", trial, i, a[i], b[i], desc)
		}
		fast.Release()
		slow.Release()
	}
}
