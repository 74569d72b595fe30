package copyfmt

import (
	"encoding/binary"
	"math"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// PostgreSQL's binary dates and timestamps count from 2000-01-01.
const (
	pgEpochDays   = 10957
	pgEpochMicros = 946684800000000
)

func badLength(t types.T, want, got int) error {
	return pgerr.New(pgerr.InvalidBinaryRepresentation, "incorrect binary data format: %s needs %d bytes, got %d", t, want, got)
}

// binaryAppender decodes one binary field straight into b for the common
// fixed-width and text types, and through decode for the rest.
func binaryAppender(t types.T, b array.Builder, loc *time.Location, decode BinaryDecoder) func([]byte) error {
	fixed := func(n int, f func([]byte)) func([]byte) error {
		return func(v []byte) error {
			if len(v) != n {
				return badLength(t, n, len(v))
			}
			f(v)
			return nil
		}
	}
	switch bb := b.(type) {
	case *array.Int16Builder:
		return fixed(2, func(v []byte) { bb.Append(int16(binary.BigEndian.Uint16(v))) })
	case *array.Int32Builder:
		return fixed(4, func(v []byte) { bb.Append(int32(binary.BigEndian.Uint32(v))) })
	case *array.Int64Builder:
		return fixed(8, func(v []byte) { bb.Append(int64(binary.BigEndian.Uint64(v))) })
	case *array.Float32Builder:
		return fixed(4, func(v []byte) { bb.Append(math.Float32frombits(binary.BigEndian.Uint32(v))) })
	case *array.Float64Builder:
		return fixed(8, func(v []byte) { bb.Append(math.Float64frombits(binary.BigEndian.Uint64(v))) })
	case *array.BooleanBuilder:
		return fixed(1, func(v []byte) { bb.Append(v[0] != 0) })
	case *array.TimestampBuilder:
		return fixed(8, func(v []byte) {
			us := int64(binary.BigEndian.Uint64(v))
			if !types.IsInfTimestamp(us) { // ±infinity are the same sentinels
				us = types.RoundMicros(us+pgEpochMicros, t.Width)
			}
			bb.Append(arrow.Timestamp(us))
		})
	case *array.Date32Builder:
		return fixed(4, func(v []byte) {
			days := int32(binary.BigEndian.Uint32(v))
			if !types.IsInfDate(int64(days)) {
				days += pgEpochDays
			}
			bb.Append(arrow.Date32(days))
		})
	case *array.StringBuilder:
		if t.Kind == types.Text {
			return func(v []byte) error {
				if !utf8.Valid(v) {
					return pgerr.New("22021", "invalid byte sequence for encoding \"UTF8\"")
				}
				bb.BinaryBuilder.Append(v)
				return nil
			}
		}
	}
	return func(v []byte) error {
		if decode == nil {
			return pgerr.New(pgerr.FeatureNotSupported, "binary COPY of type %s is not available", t)
		}
		d, err := decode(t, v, loc)
		if err != nil {
			return err
		}
		expr.AppendDatum(b, d)
		return nil
	}
}
