package exec

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gather is a take for the column kinds joins move most: it builds the
// result's buffers at their final size in one pass. ok is false for other
// kinds, which go through Arrow's take kernel.
func gather(a arrow.Array, rows []int32) (arrow.Array, bool) {
	switch x := a.(type) {
	case *array.Null:
		return array.NewNull(len(rows)), true
	case *array.String:
		return gatherString(x, rows), true
	case *array.Int64:
		return gatherFixed(x, rows, x.Int64Values(), 8), true
	case *array.Int32:
		return gatherFixed(x, rows, x.Int32Values(), 4), true
	case *array.Float64:
		return gatherFixed(x, rows, x.Float64Values(), 8), true
	}
	return nil, false
}

// validity gathers a's null bitmap; nil (all valid) when a has no nulls.
func validity(a arrow.Array, rows []int32) (*memory.Buffer, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(memory.DefaultAllocator)
	buf.Resize(int(bitutil.BytesForBits(int64(len(rows)))))
	bits := buf.Bytes()
	for i := range bits {
		bits[i] = 0
	}
	nulls := 0
	for i, r := range rows {
		if a.IsValid(int(r)) {
			bitutil.SetBit(bits, i)
		} else {
			nulls++
		}
	}
	return buf, nulls
}

func gatherFixed[T int32 | int64 | float64](a arrow.Array, rows []int32, vals []T, width int) arrow.Array {
	valid, nulls := validity(a, rows)
	buf := memory.NewResizableBuffer(memory.DefaultAllocator)
	buf.Resize(len(rows) * width)
	out := arrow.GetData[T](buf.Bytes())
	for i, r := range rows {
		out[i] = vals[r]
	}
	data := array.NewData(a.DataType(), len(rows), []*memory.Buffer{valid, buf}, nil, nulls, 0)
	defer data.Release()
	if valid != nil {
		valid.Release()
	}
	buf.Release()
	return array.MakeFromData(data)
}

func gatherString(a *array.String, rows []int32) arrow.Array {
	valid, nulls := validity(a, rows)
	offs := memory.NewResizableBuffer(memory.DefaultAllocator)
	offs.Resize((len(rows) + 1) * 4)
	o := arrow.Int32Traits.CastFromBytes(offs.Bytes())
	total := 0
	o[0] = 0
	for i, r := range rows {
		if a.IsValid(int(r)) {
			total += a.ValueLen(int(r))
		}
		o[i+1] = int32(total)
	}
	data := memory.NewResizableBuffer(memory.DefaultAllocator)
	data.Resize(total)
	d := data.Bytes()
	for i, r := range rows {
		if a.IsValid(int(r)) {
			// Value, not ValueBytes with ValueOffset: those disagree on a
			// sliced array (one is relative to the slice, one is not).
			copy(d[o[i]:o[i+1]], a.Value(int(r)))
		}
	}
	ad := array.NewData(a.DataType(), len(rows), []*memory.Buffer{valid, offs, data}, nil, nulls, 0)
	defer ad.Release()
	if valid != nil {
		valid.Release()
	}
	offs.Release()
	data.Release()
	return array.MakeFromData(ad)
}
