package pgcodec

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/loamdb/loam/types"
)

// BinaryEncoder picks the binary-format (typsend) encoder of a column. The
// fixed-width types read the Arrow buffers directly: they are the hot path
// of binary result rows and COPY TO.
func BinaryEncoder(t types.T, arr arrow.Array, errp *error) (AppendFunc, error) {
	if err := checkArrow(t, arr); err != nil {
		return nil, err
	}
	switch t.Kind {
	case types.Bool:
		a := arr.(*array.Boolean)
		return func(buf []byte, i int) []byte {
			if a.Value(i) {
				return append(buf, 1)
			}
			return append(buf, 0)
		}, nil
	case types.Int2:
		v := arrow.GetValues[int16](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return binary.BigEndian.AppendUint16(buf, uint16(v[i])) }, nil
	case types.Int4:
		v := arrow.GetValues[int32](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return binary.BigEndian.AppendUint32(buf, uint32(v[i])) }, nil
	case types.OID:
		// oidsend: four bytes, unsigned.
		v := arrow.GetValues[int64](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return binary.BigEndian.AppendUint32(buf, uint32(v[i])) }, nil
	case types.Int8, types.Time:
		v := arrow.GetValues[int64](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return binary.BigEndian.AppendUint64(buf, uint64(v[i])) }, nil
	case types.Float4:
		v := arrow.GetValues[float32](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return binary.BigEndian.AppendUint32(buf, float4Bits(v[i])) }, nil
	case types.Float8:
		v := arrow.GetValues[float64](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return binary.BigEndian.AppendUint64(buf, float8Bits(v[i])) }, nil
	case types.Date:
		v := arrow.GetValues[int32](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return binary.BigEndian.AppendUint32(buf, uint32(dateToPG(v[i]))) }, nil
	case types.Timestamp, types.TimestampTZ:
		v := arrow.GetValues[int64](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return binary.BigEndian.AppendUint64(buf, uint64(timestampToPG(v[i]))) }, nil
	case types.Bytea:
		a := arr.(*array.Binary)
		return func(buf []byte, i int) []byte { return append(buf, a.Value(i)...) }, nil
	case types.Interval:
		v := arrow.GetValues[arrow.MonthDayNanoInterval](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return appendInterval(buf, types.IntervalFromArrow(v[i])) }, nil
	case types.Numeric:
		if _, s, ok := t.Decimal(); ok {
			v := arrow.GetValues[decimal128.Num](arr.Data(), 1)
			var tmp []byte
			return func(buf []byte, i int) []byte {
				tmp = types.AppendDecimal(tmp[:0], v[i], s)
				out, err := appendNumeric(buf, string(tmp))
				if err != nil && *errp == nil {
					*errp = err
				}
				return out
			}, nil
		}
		if _, _, ok := t.Wide(); ok {
			text := types.TextWriter(t, arr, nil)
			var tmp []byte
			return func(buf []byte, i int) []byte {
				tmp = text(tmp[:0], i)
				out, err := appendNumeric(buf, string(tmp))
				if err != nil && *errp == nil {
					*errp = err
				}
				return out
			}, nil
		}
	}
	a := arr.(*array.String)
	if !textCarried(t) {
		// text, varchar, char, json, name, unknown: the UTF-8 bytes.
		return func(buf []byte, i int) []byte { return append(buf, a.Value(i)...) }, nil
	}
	return func(buf []byte, i int) []byte {
		out, err := appendTextCarried(buf, t, a.Value(i))
		if err != nil && *errp == nil {
			*errp = err
		}
		return out
	}, nil
}

// AppendBinary appends one non-null value in the binary format.
func AppendBinary(buf []byte, d types.Datum) ([]byte, error) {
	switch d.T.Kind {
	case types.Bool:
		if d.I != 0 {
			return append(buf, 1), nil
		}
		return append(buf, 0), nil
	case types.Int2:
		return binary.BigEndian.AppendUint16(buf, uint16(d.I)), nil
	case types.Int4, types.OID:
		return binary.BigEndian.AppendUint32(buf, uint32(d.I)), nil
	case types.Int8, types.Time:
		return binary.BigEndian.AppendUint64(buf, uint64(d.I)), nil
	case types.Float4:
		return binary.BigEndian.AppendUint32(buf, float4Bits(float32(d.F))), nil
	case types.Float8:
		return binary.BigEndian.AppendUint64(buf, float8Bits(d.F)), nil
	case types.Date:
		return binary.BigEndian.AppendUint32(buf, uint32(dateToPG(int32(d.I)))), nil
	case types.Timestamp, types.TimestampTZ:
		return binary.BigEndian.AppendUint64(buf, uint64(timestampToPG(d.I))), nil
	case types.Bytea:
		return append(buf, d.B...), nil
	case types.Interval:
		return appendInterval(buf, d.Interval()), nil
	}
	return appendTextCarried(buf, d.T, d.S)
}

// float4Bits and float8Bits send NaN as PostgreSQL's NaN constant
// (get_float8_nan: 0x7ff8000000000000), which 'NaN' reads as there; Go's
// math.NaN() has another payload (…0001).
func float4Bits(f float32) uint32 {
	if f != f {
		return 0x7fc00000
	}
	return math.Float32bits(f)
}

func float8Bits(f float64) uint64 {
	if f != f {
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

// interval_send: microseconds, days, months.
func appendInterval(buf []byte, iv types.IntervalValue) []byte {
	buf = binary.BigEndian.AppendUint64(buf, uint64(iv.Micros))
	buf = binary.BigEndian.AppendUint32(buf, uint32(iv.Days))
	return binary.BigEndian.AppendUint32(buf, uint32(iv.Months))
}

// textCarried says whether batches carry t as text that its binary format
// must translate (the other string-carried types send their UTF-8 bytes).
func textCarried(t types.T) bool {
	switch t.Kind {
	case types.Array, types.Record, types.JSONB, types.UUID, types.Numeric, types.QChar:
		return true
	}
	return false
}

// appendTextCarried encodes a value that batches carry as text.
func appendTextCarried(buf []byte, t types.T, s string) ([]byte, error) {
	switch t.Kind {
	case types.Array:
		return appendArray(buf, t, s)
	case types.Record:
		return appendRecord(buf, t, s)
	case types.JSONB:
		// jsonb_send: version 1, then the text.
		return append(append(buf, 1), s...), nil
	case types.UUID:
		return appendUUID(buf, s)
	case types.Numeric:
		return appendNumeric(buf, s)
	case types.QChar:
		return appendQChar(buf, s), nil
	}
	return append(buf, s...), nil
}
