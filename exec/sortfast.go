package exec

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fastSortIndices is SortIndices for key columns of the common plain
// kinds (integers, floats, dates, timestamps, text): a stable sort of row
// indices with one typed comparison per key, where Arrow's record-batch
// sort compares through generic accessors at several microseconds a row.
// ok is false for another kind, which Arrow sorts. Floats order as
// PostgreSQL's: NaN above every number, -0 equal to 0.
func fastSortIndices(ctx context.Context, cols []arrow.Array, keys []SortKey, n int) (_ arrow.Array, ok bool, _ error) {
	if len(keys) == 0 {
		return nil, false, nil
	}
	cmps := make([]func(a, b int) int, len(keys))
	for i, c := range cols[:len(keys)] {
		f := valueCmp(c)
		if f == nil {
			return nil, false, nil
		}
		cmps[i] = withNulls(c, f, keys[i])
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	var err error
	steps := 0
	// Ties broken by position: stable, with pdqsort's O(n log n) rather
	// than SortStableFunc's in-place merging.
	slices.SortFunc(idx, func(a, b int) int {
		// A long sort stops when the statement is cancelled.
		if steps++; steps&0xfffff == 0 && err == nil {
			err = ctx.Err()
		}
		for _, c := range cmps {
			if r := c(a, b); r != 0 {
				return r
			}
		}
		return cmp.Compare(a, b)
	})
	if err != nil {
		return nil, true, err
	}
	bld := array.NewUint64Builder(memory.DefaultAllocator)
	defer bld.Release()
	bld.Reserve(n)
	for _, i := range idx {
		bld.UnsafeAppend(uint64(i))
	}
	return bld.NewArray(), true, nil
}

// valueCmp compares two non-null values of c, or is nil for a kind
// fastSortIndices leaves to Arrow.
func valueCmp(c arrow.Array) func(a, b int) int {
	switch x := c.(type) {
	case *array.Int64:
		v := x.Int64Values()
		return func(a, b int) int { return cmp.Compare(v[a], v[b]) }
	case *array.Int32:
		v := x.Int32Values()
		return func(a, b int) int { return cmp.Compare(v[a], v[b]) }
	case *array.Int16:
		v := x.Int16Values()
		return func(a, b int) int { return cmp.Compare(v[a], v[b]) }
	case *array.Date32:
		v := x.Date32Values()
		return func(a, b int) int { return cmp.Compare(v[a], v[b]) }
	case *array.Timestamp:
		v := x.TimestampValues()
		return func(a, b int) int { return cmp.Compare(v[a], v[b]) }
	case *array.Float64:
		v := x.Float64Values()
		return func(a, b int) int { return floatCmp(v[a], v[b]) }
	case *array.Float32:
		v := x.Float32Values()
		return func(a, b int) int { return floatCmp(float64(v[a]), float64(v[b])) }
	case *array.String:
		return func(a, b int) int { return strings.Compare(x.Value(a), x.Value(b)) }
	}
	return nil
}

// floatCmp orders as PostgreSQL: NaN equal to NaN and above all numbers;
// -0 equal to 0.
func floatCmp(a, b float64) int {
	switch an, bn := a != a, b != b; {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// withNulls is f with k's direction and NULL placement.
func withNulls(c arrow.Array, f func(a, b int) int, k SortKey) func(a, b int) int {
	nullFirst := -1
	if !k.NullsFirst {
		nullFirst = 1
	}
	dir := f
	if k.Desc {
		dir = func(a, b int) int { return -f(a, b) }
	}
	if c.NullN() == 0 {
		return dir
	}
	return func(a, b int) int {
		an, bn := c.IsNull(a), c.IsNull(b)
		switch {
		case an && bn:
			return 0
		case an:
			return nullFirst
		case bn:
			return -nullFirst
		}
		return dir(a, b)
	}
}
