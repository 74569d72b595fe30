package expr

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gatherArray copies the values of a at the rows sel lists into a new
// array, for the layouts a tight loop serves (fixed-width values, text,
// booleans); nil for the others, which Arrow's take kernels gather.
func gatherArray(a arrow.Array, sel []int32) arrow.Array {
	d := a.Data()
	var vals *memory.Buffer
	switch d.DataType().ID() {
	case arrow.INT8, arrow.UINT8:
		vals = gatherFixed[uint8](d, sel)
	case arrow.INT16, arrow.UINT16, arrow.FLOAT16:
		vals = gatherFixed[uint16](d, sel)
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32, arrow.TIME32, arrow.DECIMAL32:
		vals = gatherFixed[uint32](d, sel)
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP,
		arrow.DURATION, arrow.DECIMAL64:
		vals = gatherFixed[uint64](d, sel)
	case arrow.DECIMAL128, arrow.INTERVAL_MONTH_DAY_NANO:
		vals = gatherFixed[[2]uint64](d, sel)
	case arrow.BOOL:
		vals = gatherBits(d, sel)
	case arrow.STRING, arrow.BINARY:
		return gatherBytes(a, sel)
	default:
		return nil
	}
	return finish(a, []*memory.Buffer{nil, vals}, sel)
}

// finish makes the gathered array, with the validity of the rows when a
// has NULLs.
func finish(a arrow.Array, bufs []*memory.Buffer, sel []int32) arrow.Array {
	nulls := 0
	// The array's count, not its data's: that may be unknown (-1).
	if a.NullN() > 0 {
		var valid *memory.Buffer
		valid, nulls = gatherValidity(a.Data(), sel)
		bufs[0] = valid
	}
	data := array.NewData(a.DataType(), len(sel), bufs, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

func gatherFixed[T uint8 | uint16 | uint32 | uint64 | [2]uint64](d arrow.ArrayData, sel []int32) *memory.Buffer {
	out := make([]T, len(sel))
	if len(sel) == 0 {
		return memory.NewBufferBytes(nil)
	}
	b := d.Buffers()[1].Bytes()
	size := int(unsafe.Sizeof(out[0]))
	src := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)[d.Offset():]
	for i, r := range sel {
		out[i] = src[r]
	}
	return memory.NewBufferBytes(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(out)*size))
}

// gatherBits gathers a bitmap (boolean values) at the rows sel lists.
func gatherBits(d arrow.ArrayData, sel []int32) *memory.Buffer {
	src := d.Buffers()[1].Bytes()
	off := d.Offset()
	out := make([]byte, bitutil.BytesForBits(int64(len(sel))))
	for i, r := range sel {
		if bitutil.BitIsSet(src, off+int(r)) {
			bitutil.SetBit(out, i)
		}
	}
	return memory.NewBufferBytes(out)
}

func gatherValidity(d arrow.ArrayData, sel []int32) (*memory.Buffer, int) {
	src := d.Buffers()[0].Bytes()
	off := d.Offset()
	out := make([]byte, bitutil.BytesForBits(int64(len(sel))))
	nulls := 0
	for i, r := range sel {
		if bitutil.BitIsSet(src, off+int(r)) {
			bitutil.SetBit(out, i)
		} else {
			nulls++
		}
	}
	return memory.NewBufferBytes(out), nulls
}

// gatherBytes gathers text or binary values: offsets, then the bytes.
func gatherBytes(a arrow.Array, sel []int32) arrow.Array {
	d := a.Data()
	offs := arrow.Int32Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset():]
	var src []byte
	if b := d.Buffers()[2]; b != nil {
		src = b.Bytes()
	}
	outOffs := make([]int32, len(sel)+1)
	total := int32(0)
	for i, r := range sel {
		total += offs[r+1] - offs[r]
		outOffs[i+1] = total
	}
	out := make([]byte, total)
	for i, r := range sel {
		copy(out[outOffs[i]:outOffs[i+1]], src[offs[r]:offs[r+1]])
	}
	bufs := []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(outOffs)), memory.NewBufferBytes(out)}
	return finish(a, bufs, sel)
}
