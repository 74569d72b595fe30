package exec

import (
	"bytes"
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/loamdb/loam/types"
)

type firstOfRunsOp struct {
	in   Operator
	keys []int
	prev []byte
	has  bool
	buf  []byte
}

// NewFirstOfRuns keeps the first row of each run of rows with equal values
// in the key columns (NULLs equal): over input sorted on those columns,
// that is SELECT DISTINCT ON.
func NewFirstOfRuns(in Operator, keys []int) Operator {
	return &firstOfRunsOp{in: in, keys: keys}
}

func (f *firstOfRunsOp) Types() []types.T               { return f.in.Types() }
func (f *firstOfRunsOp) Open(ctx context.Context) error { return f.in.Open(ctx) }
func (f *firstOfRunsOp) Close() error                   { return f.in.Close() }

func (f *firstOfRunsOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	ts := f.in.Types()
	for {
		rec, err := f.in.Next(ctx)
		if rec == nil || err != nil {
			return nil, err
		}
		writers := make([]func([]byte, int) []byte, len(f.keys))
		for i, k := range f.keys {
			writers[i] = KeyWriter(ts[k], rec.Column(k))
		}
		mb := array.NewBooleanBuilder(memory.DefaultAllocator)
		kept := 0
		for r := 0; r < int(rec.NumRows()); r++ {
			buf := f.buf[:0]
			for _, w := range writers {
				buf = w(buf, r)
			}
			f.buf = buf
			first := !f.has || !bytes.Equal(buf, f.prev)
			if first {
				f.prev = append(f.prev[:0], buf...)
				f.has = true
				kept++
			}
			mb.Append(first)
		}
		mask := mb.NewBooleanArray()
		mb.Release()
		var out arrow.RecordBatch
		if kept > 0 {
			out, err = applyMask(ctx, rec, mask)
		}
		mask.Release()
		rec.Release()
		if err != nil || out != nil {
			return out, err
		}
	}
}
