package jsonb

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A batch carries jsonb as its text, the normal form every other part of
// Loam reads. Beside it this file keeps the binary form of the rows,
// encoded once per Arrow buffer: batches sliced from one cached file
// column share the buffer, so every query over the cached file, and every
// jsonb operator of one query, finds the rows already parsed.

// chunkRows is how many rows are encoded together: a scan that stops
// early (LIMIT) parses little more than it reads.
const chunkRows = 4096

// Column is the binary form of every row of one Arrow string buffer.
type Column struct {
	values  *byte // the text buffer's first byte, to check the match
	nvalues int
	offsets []int32 // the buffer's offsets, row i is [offsets[i], offsets[i+1])
	text    []byte
	chunks  []atomic.Pointer[chunk]
}

// chunk holds the encoded rows of one chunk: row i of the chunk is
// data[ends[i-1]:ends[i]], empty when the text is not valid JSON.
type chunk struct {
	data []byte
	ends []uint32
	bad  bool // some row failed to parse
}

// View is the binary form of the rows of one array.
type View struct {
	col *Column
	off int
	arr *array.String
}

var (
	mu      sync.Mutex
	columns = map[weak.Pointer[memory.Buffer]]*Column{}
)

// ViewOf returns the binary form of a jsonb text array's rows, encoding
// them on first use; ok is false for an array of another layout.
func ViewOf(a arrow.Array) (View, bool) {
	s, ok := a.(*array.String)
	if !ok {
		return View{}, false
	}
	bufs := s.Data().Buffers()
	if s.Len() == 0 {
		return View{col: &Column{}, arr: s}, true
	}
	if len(bufs) < 3 || bufs[1] == nil || bufs[1].Len() < 4*(s.Data().Offset()+s.Len()+1) {
		return View{}, false // no offsets to key the rows by: the text path
	}
	return View{col: columnOf(bufs[1], bufs[2]), off: s.Data().Offset(), arr: s}, true
}

func columnOf(offs, vals *memory.Buffer) *Column {
	key := weak.Make(offs)
	var first *byte
	var text []byte
	if vals != nil {
		text = vals.Bytes()
		if len(text) > 0 {
			first = &text[0]
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if c := columns[key]; c != nil && c.values == first && c.nvalues == len(text) {
		return c
	}
	o := arrow.Int32Traits.CastFromBytes(offs.Bytes())
	n := max(len(o)-1, 0)
	c := &Column{values: first, nvalues: len(text), offsets: o, text: text,
		chunks: make([]atomic.Pointer[chunk], (n+chunkRows-1)/chunkRows)}
	if _, had := columns[key]; !had {
		runtime.AddCleanup(offs, func(k weak.Pointer[memory.Buffer]) {
			mu.Lock()
			delete(columns, k)
			mu.Unlock()
		}, key)
	}
	columns[key] = c
	return c
}

// Len is the number of rows.
func (v View) Len() int { return v.arr.Len() }

// IsNull reports a NULL row.
func (v View) IsNull(i int) bool { return v.arr.IsNull(i) }

// Row is row i's value; ok is false for NULL or text that is no JSON (the
// caller leaves such a batch to the text path, which reports the error).
func (v View) Row(i int) (Value, bool) {
	if v.arr.IsNull(i) {
		return nil, false
	}
	r := v.off + i
	ch := v.col.chunk(r / chunkRows)
	j := r % chunkRows
	start := uint32(0)
	if j > 0 {
		start = ch.ends[j-1]
	}
	if start == ch.ends[j] {
		return nil, false
	}
	return Value(ch.data[start:ch.ends[j]]), true
}

// Bad reports whether any non-NULL row of the view is not valid JSON
// (empty text included, which the chunks cannot tell from NULL).
func (v View) Bad() bool {
	n := v.arr.Len()
	if n == 0 {
		return false
	}
	for c := v.off / chunkRows; c <= (v.off+n-1)/chunkRows; c++ {
		if v.col.chunk(c).bad {
			return true
		}
	}
	for i := 0; i < n; i++ {
		if _, ok := v.Row(i); !ok && !v.arr.IsNull(i) {
			return true
		}
	}
	return false
}

func (c *Column) chunk(k int) *chunk {
	if ch := c.chunks[k].Load(); ch != nil {
		return ch
	}
	lo := k * chunkRows
	hi := min(lo+chunkRows, len(c.offsets)-1)
	ch := &chunk{ends: make([]uint32, hi-lo)}
	// The binary form runs a little longer than the text: tables for
	// separators.
	ch.data = make([]byte, 0, int(c.offsets[hi]-c.offsets[lo])*3/2+16*(hi-lo))
	var enc Encoder
	for r := lo; r < hi; r++ {
		s := c.text[c.offsets[r]:c.offsets[r+1]]
		if len(s) > 0 {
			var err error
			if ch.data, err = enc.Encode(ch.data, bytesString(s)); err != nil {
				ch.bad = true
			}
		}
		ch.ends[r-lo] = uint32(len(ch.data))
	}
	// Two goroutines may encode one chunk; either result is the same.
	c.chunks[k].CompareAndSwap(nil, ch)
	return c.chunks[k].Load()
}

// bytesString views text bytes of an Arrow buffer, which never change
// once built, as a string without copying.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
