package icetable

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func int64Array(t *testing.T, mem memory.Allocator, n int) arrow.Array {
	t.Helper()
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Append(int64(i))
	}
	return b.NewArray()
}

func TestColCache(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	one := arraySize(int64Array(t, memory.DefaultAllocator, 1000)) // 8000 bytes of values
	c := newColCache(one * 12)

	cases := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"miss on an empty cache", func(t *testing.T) {
			if _, ok := c.get("a", []string{"x"}); ok {
				t.Fatal("hit")
			}
		}},
		{"hit after put, same values", func(t *testing.T) {
			a := int64Array(t, mem, 1000)
			c.put("a", []string{"x"}, []arrow.Array{a})
			a.Release()
			got, ok := c.get("a", []string{"x"})
			if !ok || got[0].Len() != 1000 || got[0].(*array.Int64).Value(999) != 999 {
				t.Fatalf("get a.x: %v %v", ok, got)
			}
			got[0].Release()
		}},
		{"a column not cached is a miss", func(t *testing.T) {
			if _, ok := c.get("a", []string{"x", "y"}); ok {
				t.Fatal("hit for a.y")
			}
		}},
		{"least recently used files are evicted past the limit", func(t *testing.T) {
			for i := 0; i < 20; i++ {
				a := int64Array(t, mem, 1000)
				c.put(fmt.Sprintf("f%d", i), []string{"x"}, []arrow.Array{a})
				a.Release()
				if got, ok := c.get("a", []string{"x"}); ok { // keep a recent
					got[0].Release()
				}
			}
			if c.used > c.limit {
				t.Fatalf("used %d over limit %d", c.used, c.limit)
			}
			if _, ok := c.get("f0", []string{"x"}); ok {
				t.Fatal("f0 survived")
			}
			got, ok := c.get("a", []string{"x"})
			if !ok {
				t.Fatal("a, the most used, was evicted")
			}
			got[0].Release()
		}},
		{"a file larger than a quarter of the cache is not kept", func(t *testing.T) {
			a := int64Array(t, mem, 4000)
			c.put("huge", []string{"x"}, []arrow.Array{a})
			a.Release()
			if _, ok := c.get("huge", []string{"x"}); ok {
				t.Fatal("huge cached")
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, tc.do)
	}
	for p := range c.files {
		c.evict(p)
	}
	mem.AssertSize(t, 0)
}
