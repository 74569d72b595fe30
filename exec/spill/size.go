package spill

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Size estimates the memory rec's rows hold: for a slice, its rows' share
// of the buffers, not the whole buffers it shares with others.
func Size(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += ArraySize(c)
	}
	return n
}

// ArraySize is Size for one column.
func ArraySize(a arrow.Array) int64 {
	l := int64(a.Len())
	bitmap := (l + 7) / 8
	switch v := a.(type) {
	case *array.String:
		return bitmap + 4*(l+1) + span(v.ValueOffsets())
	case *array.Binary:
		return bitmap + 4*(l+1) + span(v.ValueOffsets())
	case *array.LargeString:
		return bitmap + 8*(l+1) + span(v.ValueOffsets())
	}
	if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok {
		return bitmap + (l*int64(fw.BitWidth())+7)/8
	}
	return dataSize(a.Data())
}

// dataSize is the size of every buffer of d and its children.
func dataSize(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataSize(c)
	}
	if dict := d.Dictionary(); dict != nil {
		n += dataSize(dict)
	}
	return n
}

// span is the bytes of values between a slice's first and last offsets.
func span[T int32 | int64](offs []T) int64 {
	if len(offs) == 0 {
		return 0
	}
	return int64(offs[len(offs)-1] - offs[0])
}
