package pgcodec

import (
	"encoding/binary"
	"math"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// BinaryAppender returns a function that decodes one binary-format value
// of type t (binary COPY FROM data) and appends it to b, a builder of
// t.Arrow(). The fixed-width types and text go straight into the builder;
// the rest through DecodeBinary.
func BinaryAppender(t types.T, b array.Builder, loc *time.Location) func([]byte) error {
	fixed := func(f func([]byte)) func([]byte) error {
		n := fixedSize(t)
		return func(v []byte) error {
			if len(v) != n {
				return pgerr.New(pgerr.InvalidBinaryRepresentation,
					"incorrect binary data format: %s needs %d bytes, got %d", t, n, len(v))
			}
			f(v)
			return nil
		}
	}
	switch bb := b.(type) {
	case *array.Int16Builder:
		return fixed(func(v []byte) { bb.Append(int16(binary.BigEndian.Uint16(v))) })
	case *array.Int32Builder:
		return fixed(func(v []byte) { bb.Append(int32(binary.BigEndian.Uint32(v))) })
	case *array.Int64Builder:
		if t.Kind == types.Int8 {
			return fixed(func(v []byte) { bb.Append(int64(binary.BigEndian.Uint64(v))) })
		}
	case *array.Float32Builder:
		return fixed(func(v []byte) { bb.Append(math.Float32frombits(binary.BigEndian.Uint32(v))) })
	case *array.Float64Builder:
		return fixed(func(v []byte) { bb.Append(math.Float64frombits(binary.BigEndian.Uint64(v))) })
	case *array.BooleanBuilder:
		return fixed(func(v []byte) { bb.Append(v[0] != 0) })
	case *array.TimestampBuilder:
		return fixed(func(v []byte) { bb.Append(arrow.Timestamp(timestampFromPG(int64(binary.BigEndian.Uint64(v)), t))) })
	case *array.Date32Builder:
		return fixed(func(v []byte) { bb.Append(arrow.Date32(dateFromPG(int32(binary.BigEndian.Uint32(v))))) })
	case *array.StringBuilder:
		switch {
		case t.Kind == types.Varchar || t.Kind == types.Char:
			// The binary form is the text, read as DecodeText does.
			add := charAppender(t, bb, loc)
			return func(v []byte) error {
				if err := checkUTF8(v); err != nil {
					return err
				}
				return add(v)
			}
		case t.Kind == types.Numeric && t.Width >= 0:
			add := numericTextAppender(t, bb, loc)
			return func(v []byte) error {
				s, err := numericText(v)
				if err != nil {
					return err
				}
				return add(unsafe.Slice(unsafe.StringData(s), len(s)))
			}
		}
		if t.Kind == types.Text {
			return func(v []byte) error {
				if err := checkUTF8(v); err != nil {
					return err
				}
				bb.BinaryBuilder.Append(v)
				return nil
			}
		}
	}
	return func(v []byte) error {
		d, err := DecodeBinary(t, v, loc)
		if err != nil {
			return err
		}
		return appendDatum(b, d)
	}
}

// appendDatum appends a non-null datum to the builder of its type.
func appendDatum(b array.Builder, d types.Datum) error {
	if err := types.AppendDatum(b, d); err != nil {
		return pgerr.New(pgerr.InternalError, "binary input: %v", err)
	}
	return nil
}
