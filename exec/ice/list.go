package ice

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/types"
)

// Array columns are stored as Iceberg lists of their element type, so that
// outside engines read them as arrays. Inside Loam an array travels as its
// PostgreSQL text form ({1,2,NULL}) in a string column (types.Array); the
// conversions below cross between the two at the storage boundary.

// listOf is the Iceberg list storing an array of t's element type. Its
// element ID is set by NumberFields once the top-level IDs are known.
func listOf(t types.T) (iceberg.Type, error) {
	et := types.Of(t.Elem)
	if t.Elem == types.Array || t.Elem == types.Interval || t.Elem == types.Unknown {
		return nil, fmt.Errorf("type %s cannot be stored in a table", t)
	}
	it, err := ToIceberg(et)
	if err != nil {
		return nil, err
	}
	return &iceberg.ListType{Element: it}, nil
}

// NumberFields gives the fields of a new schema their IDs in the order
// Iceberg assigns fresh IDs when it creates a table (each field, then its
// list element), so that IDs recorded beside the schema (column types,
// defaults) stay those of the same fields.
func NumberFields(fields []iceberg.NestedField) {
	next := 0
	for i, f := range fields {
		next++
		fields[i].ID = next
		if l, ok := f.Type.(*iceberg.ListType); ok {
			next++
			fields[i].Type = &iceberg.ListType{ElementID: next, Element: l.Element, ElementRequired: l.ElementRequired}
		}
	}
}

// listFromText builds the Arrow list (of type dt) storing the arrays of a,
// a string column of array texts with elements of kind elem.
func listFromText(a arrow.Array, t types.T, dt arrow.DataType, elemType arrow.DataType) (arrow.Array, error) {
	src, ok := a.(*array.String)
	if !ok {
		return nil, fmt.Errorf("cannot store %s from %s", t, a.DataType())
	}
	et := types.Of(t.Elem)
	n := src.Len()
	offsets := make([]int32, n+1)
	valid := memory.NewResizableBuffer(memory.DefaultAllocator)
	valid.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := valid.Bytes()
	for i := range bits {
		bits[i] = 0
	}
	elems := expr.NewBuilder(et, n)
	nulls := 0
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		if src.IsNull(i) {
			nulls++
			continue
		}
		bitutil.SetBit(bits, i)
		texts, null, err := types.SplitArrayText(src.Value(i))
		if err != nil {
			elems.Finish().Release()
			valid.Release()
			return nil, err
		}
		for k, s := range texts {
			if null[k] {
				elems.AppendNull()
				continue
			}
			d, err := types.ParseText(et, s, time.UTC)
			if err != nil {
				elems.Finish().Release()
				valid.Release()
				return nil, err
			}
			elems.Append(d)
		}
		offsets[i+1] += int32(len(texts))
	}
	loam := elems.Finish()
	defer loam.Release()
	child, err := ToArrow(loam, et, elemType)
	if err != nil {
		valid.Release()
		return nil, err
	}
	defer child.Release()
	offBuf := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets))
	data := array.NewData(dt, n, []*memory.Buffer{valid, offBuf}, []arrow.ArrayData{child.Data()}, nulls, 0)
	defer data.Release()
	valid.Release()
	return array.MakeFromData(data), nil
}

// textFromList renders each list of a (an Arrow list read from Iceberg or
// the write log) as the array text of type t.
func textFromList(a arrow.Array, t types.T) (arrow.Array, error) {
	var values arrow.Array
	var bounds func(i int) (int64, int64)
	switch l := a.(type) {
	case *array.List:
		values, bounds = l.ListValues(), l.ValueOffsets
	case *array.LargeList:
		values, bounds = l.ListValues(), l.ValueOffsets
	default:
		return nil, fmt.Errorf("cannot read %s as %s", a.DataType(), t)
	}
	et := types.Of(t.Elem)
	conv, err := FromArrow(values, et)
	if err != nil {
		return nil, err
	}
	defer conv.Release()
	w := types.TextWriter(et, conv, time.UTC)
	var buf []byte
	return textArray(a, func(i int) string {
		from, to := bounds(i)
		buf = append(buf[:0], '{')
		for k := from; k < to; k++ {
			if k > from {
				buf = append(buf, ',')
			}
			if conv.IsNull(int(k)) {
				buf = append(buf, "NULL"...)
				continue
			}
			buf = types.AppendArrayElem(buf, string(w(nil, int(k))))
		}
		return string(append(buf, '}'))
	}), nil
}
