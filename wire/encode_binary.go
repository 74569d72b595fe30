package wire

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/loamdb/loam/exec/expr"
	"github.com/loamdb/loam/pgerr"
	"github.com/loamdb/loam/types"
)

// PostgreSQL's binary dates and timestamps count from 2000-01-01; Loam's
// from 1970-01-01.
const (
	pgEpochDays   = 10957
	pgEpochMicros = 946684800000000
)

// binaryEncoder picks the binary-format encoder for a column. Values that
// cannot be encoded (malformed numeric or uuid text from the engine) are
// reported through *errp, which the row loop checks once per batch chunk.
func binaryEncoder(t types.T, arr arrow.Array, errp *error) (appendFunc, error) {
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
		return func(buf []byte, i int) []byte { return binary.BigEndian.AppendUint32(buf, math.Float32bits(v[i])) }, nil
	case types.Float8:
		v := arrow.GetValues[float64](arr.Data(), 1)
		return func(buf []byte, i int) []byte { return binary.BigEndian.AppendUint64(buf, math.Float64bits(v[i])) }, nil
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
		a := arr.(*array.MonthDayNanoInterval)
		return func(buf []byte, i int) []byte {
			v := a.Value(i)
			buf = binary.BigEndian.AppendUint64(buf, uint64(v.Nanoseconds/1000))
			buf = binary.BigEndian.AppendUint32(buf, uint32(v.Days))
			return binary.BigEndian.AppendUint32(buf, uint32(v.Months))
		}, nil
	}
	a := arr.(*array.String)
	switch t.Kind {
	case types.Array:
		return func(buf []byte, i int) []byte {
			out, err := appendArrayBinary(buf, t, a.Value(i))
			if err != nil && *errp == nil {
				*errp = err
			}
			return out
		}, nil
	case types.Record:
		return func(buf []byte, i int) []byte {
			out, err := appendRecordBinary(buf, t, a.Value(i))
			if err != nil && *errp == nil {
				*errp = err
			}
			return out
		}, nil
	case types.JSONB:
		return func(buf []byte, i int) []byte { return append(append(buf, 1), a.Value(i)...) }, nil
	case types.UUID:
		return func(buf []byte, i int) []byte {
			out, ok := appendUUID(buf, a.Value(i))
			if !ok && *errp == nil {
				*errp = pgerr.New(pgerr.InternalError, "invalid uuid value %q in result", a.Value(i))
			}
			return out
		}, nil
	case types.Numeric:
		return func(buf []byte, i int) []byte {
			out, err := appendNumeric(buf, a.Value(i))
			if err != nil && *errp == nil {
				*errp = err
			}
			return out
		}, nil
	}
	// text, varchar, char, json, unknown: the UTF-8 bytes.
	return func(buf []byte, i int) []byte { return append(buf, a.Value(i)...) }, nil
}

// appendArrayBinary encodes a one-dimensional array from its text form in
// array_send's format: ndim, has-null flag, element OID, length and lower
// bound, then each element as a length-prefixed binary value.
func appendArrayBinary(buf []byte, t types.T, text string) ([]byte, error) {
	elemT := types.Of(t.Elem)
	elems, null, err := types.SplitArrayText(text)
	if err != nil {
		return buf, err
	}
	hasNull := uint32(0)
	b := expr.NewBuilder(elemT, len(elems))
	for i, s := range elems {
		if null[i] {
			hasNull = 1
			b.AppendNull()
			continue
		}
		d, err := types.ParseText(elemT, s, time.UTC)
		if err != nil {
			return buf, err
		}
		b.Append(d)
	}
	arr := b.Finish()
	defer arr.Release()
	if len(elems) == 0 {
		buf = binary.BigEndian.AppendUint32(buf, 0)
		buf = binary.BigEndian.AppendUint32(buf, 0)
		return binary.BigEndian.AppendUint32(buf, elemT.OID()), nil
	}
	var encErr error
	enc, err := binaryEncoder(elemT, arr, &encErr)
	if err != nil {
		return buf, err
	}
	buf = binary.BigEndian.AppendUint32(buf, 1)
	buf = binary.BigEndian.AppendUint32(buf, hasNull)
	buf = binary.BigEndian.AppendUint32(buf, elemT.OID())
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(elems)))
	buf = binary.BigEndian.AppendUint32(buf, 1)
	for i := range elems {
		if null[i] {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		at := len(buf)
		buf = binary.BigEndian.AppendUint32(buf, 0)
		buf = enc(buf, i)
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	}
	return buf, encErr
}

// appendRecordBinary encodes a record from its text form in record_send's
// format: the field count, then each field's type OID and length-prefixed
// binary value.
func appendRecordBinary(buf []byte, t types.T, text string) ([]byte, error) {
	fields := types.RecordFields(t)
	if fields == nil {
		return buf, pgerr.New(pgerr.FeatureNotSupported, "binary output of an anonymous record is not supported")
	}
	vals, null, err := types.SplitRecordText(text)
	if err != nil {
		return buf, err
	}
	if len(vals) != len(fields) {
		return buf, pgerr.New(pgerr.InternalError, "record %q does not have %d fields", text, len(fields))
	}
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(fields)))
	for k, f := range fields {
		buf = binary.BigEndian.AppendUint32(buf, f.T.OID())
		if null[k] {
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
			continue
		}
		d, err := types.ParseText(f.T, vals[k], time.UTC)
		if err != nil {
			return buf, err
		}
		b := expr.NewBuilder(f.T, 1)
		b.Append(d)
		arr := b.Finish()
		var encErr error
		enc, err := binaryEncoder(f.T, arr, &encErr)
		if err != nil {
			arr.Release()
			return buf, err
		}
		at := len(buf)
		buf = binary.BigEndian.AppendUint32(buf, 0)
		buf = enc(buf, 0)
		binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
		arr.Release()
		if encErr != nil {
			return buf, encErr
		}
	}
	return buf, nil
}

func dateToPG(days int32) int32 {
	if days == math.MaxInt32 || days == math.MinInt32 {
		return days // ±infinity
	}
	return days - pgEpochDays
}

func timestampToPG(us int64) int64 {
	if us == math.MaxInt64 || us == math.MinInt64 {
		return us // ±infinity
	}
	return us - pgEpochMicros
}

// appendUUID appends the 16 bytes of a uuid in text form (dashes optional).
func appendUUID(buf []byte, s string) ([]byte, bool) {
	var raw [32]byte
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '-' {
			continue
		}
		if n == len(raw) {
			return append(buf, make([]byte, 16)...), false
		}
		raw[n] = s[i]
		n++
	}
	var out [16]byte
	if n != 32 {
		return append(buf, out[:]...), false
	}
	if _, err := hex.Decode(out[:], raw[:]); err != nil {
		return append(buf, out[:]...), false
	}
	return append(buf, out[:]...), true
}
